"""LangGraph's TTL on a MemoryStore: items that expire, and expiry that archives.

``MemoryStore(ttl=TTLConfig)`` takes LangGraph's keys: ``default_ttl`` (minutes,
for a ``put`` without ``ttl=``), ``refresh_on_read`` (default True),
``sweep_interval_minutes`` (a sweeper thread starts with the store and stops at
``close()``) and ``omit_expired`` (accepted: expired items are always omitted).

- ``put(..., ttl=m)`` makes the item expire ``m`` minutes after that write; a
  ``get`` or ``search`` that returns it with ``refresh_ttl`` (default
  ``refresh_on_read``) moves its expiry to ``m`` minutes after the read. A put
  without a TTL (and no ``default_ttl``) never expires.
- An expired item is hidden from ``get`` and ``search`` at once. The sweep
  archives it, never deletes it: its version closes with ``valid_until`` = the
  expiry time, so ``history`` and ``as_of`` reads keep it (``purge`` erases).
- ``store.ttl.sweep()`` archives every expired item now; ``start_ttl_sweeper()``
  and ``stop_ttl_sweeper()`` run it every ``sweep_interval_minutes`` (default 5).
  Only scopes that ever held an item with a TTL are looked at (the registry
  marks them), and since an item closes at its expiry time, two processes
  sweeping one server's store archive it identically.
- The memory API's reads (``active``, ``nearest``, ``retrieve``) see an expired
  item until a sweep archives it; a memory-API ``update`` of an item keeps its
  TTL, counted from the update.

>>> import tempfile
>>> from datetime import timedelta
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.records import now_utc
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> store.put(("cache", "alice"), "weather", {"text": "Sunny in Pune."}, ttl=30)
>>> store.get(("cache", "alice"), "weather").value
{'text': 'Sunny in Pune.'}
>>> store.ttl.sweep(now=now_utc() + timedelta(minutes=31))
1
>>> store.get(("cache", "alice"), "weather") is None
True
>>> [m.active for m in store.history(("cache", "alice"), "weather")]
[False]
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from langgraph.store.base import TTLConfig

from langgraph_memory.checks import check_seconds
from langgraph_memory.errors import InvalidArgumentError, StoreClosedError
from langgraph_memory.records import now_utc, utc
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import EXPIRES_KEY, fetch, to_epoch, ttl_scopes
from langgraph_memory.store.engine import StoreCore, fresh_method
from langgraph_memory.store.version import Version

__all__ = ["TTL", "Sweeper", "check_minutes", "check_ttl_config", "refresh", "sweep"]

logger = logging.getLogger(__name__)

#: Minutes between sweeps when neither the call nor the TTLConfig says (as LangGraph's stores).
DEFAULT_SWEEP_MINUTES = 5.0
_KEYS = ("default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired")


def check_minutes(value: Any, name: str) -> float | None:
    """A TTL or an interval in minutes: None, or a positive finite number.

    >>> check_minutes(1.5, "ttl"), check_minutes(None, "ttl")
    (1.5, None)
    >>> check_minutes(0, "ttl")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: ttl must be a positive number of minutes...
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(f"{name} must be a number of minutes or None, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise InvalidArgumentError(
            f"{name} must be a positive number of minutes (None: never expires), got {value!r}"
        )
    return float(value)


def check_ttl_config(config: Mapping[str, Any] | None) -> TTLConfig | None:
    """Validate ``MemoryStore(ttl=...)``: LangGraph's ``TTLConfig``, copied.

    >>> check_ttl_config({"default_ttl": 60, "refresh_on_read": False})
    {'default_ttl': 60.0, 'refresh_on_read': False}
    """
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise InvalidArgumentError(
            f"ttl must be a dict (LangGraph's TTLConfig), got {type(config).__name__}"
        )
    unknown = sorted(set(config) - set(_KEYS))
    if unknown:
        raise InvalidArgumentError(f"unknown ttl key {unknown[0]!r}; TTLConfig takes {_KEYS}")
    checked = TTLConfig()
    if "default_ttl" in config:
        checked["default_ttl"] = check_minutes(config["default_ttl"], "default_ttl")
    if "sweep_interval_minutes" in config:
        minutes = check_minutes(config["sweep_interval_minutes"], "sweep_interval_minutes")
        checked["sweep_interval_minutes"] = minutes  # type: ignore[typeddict-item]
    for flag in ("refresh_on_read", "omit_expired"):
        if flag in config:
            if not isinstance(config[flag], bool):
                raise InvalidArgumentError(f"{flag} must be True or False, got {config[flag]!r}")
            checked[flag] = config[flag]
    return checked


def refresh(
    core: StoreCore,
    versions: Sequence[Version],
    now: datetime,
    *,
    scope_of: Callable[[str], Scope] = Scope.parse,
) -> None:
    """Move the expiry of the versions that have a TTL to ``now`` plus it (a read
    that returned them). One that was archived since it was read is left alone.

    ``scope_of`` turns a version's scope key into its scope (a batch passes the
    scopes it already made). A batch may return one item several times (a GetOp
    and a SearchOp that both find it): each is refreshed once, as Chroma refuses an
    id twice in one update.
    """
    by_scope: dict[str, dict[str, Version]] = {}
    for v in versions:
        if v.ttl is not None:
            by_scope.setdefault(v.memory.scope, {})[v.memory.id] = v
    for key, by_id in by_scope.items():
        scope = scope_of(key)  # once per scope, not per item (a batch knows it already)
        with core.writing(scope):
            cols = core.collections(scope)
            if cols is None:
                continue
            present = set(cols.active.read(ids=list(by_id))["ids"])
            kept = [v for v in by_id.values() if v.memory.id in present]
            if kept:
                changes = {
                    v.memory.id: {EXPIRES_KEY: to_epoch(now + timedelta(minutes=v.ttl or 0))}
                    for v in kept
                }
                cols.active.patch(list(changes), list(changes.values()))
                core.live().lexicon.patched(scope, changes)


def sweep(core: StoreCore, now: datetime) -> int:
    """Archive every item whose TTL ran out at or before ``now``; returns how many.

    Each closes at its own expiry time, whenever the sweep runs."""
    with core.reading() as engine:
        scopes = ttl_scopes(engine.registry)
    archived = 0
    for scope in scopes:
        with core.writing(scope):
            cols = core.collections(scope)
            if cols is None:
                continue
            where = {EXPIRES_KEY: {"$lte": to_epoch(now)}}
            by_time: dict[datetime, list[Version]] = {}
            for v in fetch(cols.active, scope, where=where, with_vector=True):
                by_time.setdefault(v.expires_at or now, []).append(v)
            for when, expired in sorted(by_time.items()):
                core.replace(cols, [(v, None) for v in expired], when)
                archived += len(expired)
    return archived


class Sweeper:
    """A daemon thread that runs a sweep every few minutes until stopped.

    >>> ran = threading.Event()
    >>> sweeper = Sweeper(lambda: ran.set() or 0)
    >>> done = sweeper.start(60)
    >>> ran.wait(5)  # the first sweep runs at once
    True
    >>> sweeper.stop(timeout=5), done.done()
    (True, True)
    """

    def __init__(self, run: Callable[[], int]) -> None:
        self._run = run
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def start(self, minutes: float) -> concurrent.futures.Future[None]:
        """Sweep now and then every ``minutes``; the future resolves when the thread
        ends. A sweeper already running keeps running (its future is returned)."""
        minutes = check_minutes(minutes, "sweep_interval_minutes") or DEFAULT_SWEEP_MINUTES
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return self._done
            self._stop = threading.Event()
            self._done = concurrent.futures.Future()
            self._thread = threading.Thread(
                target=self._loop,
                args=(minutes, self._stop, self._done),
                name="langgraph-memory-ttl-sweeper",
                daemon=True,
            )
            self._thread.start()
            return self._done

    def _loop(
        self, minutes: float, stop: threading.Event, done: concurrent.futures.Future[None]
    ) -> None:
        try:
            while not stop.is_set():
                try:
                    self._run()
                except StoreClosedError:
                    break
                except Exception:  # a failed sweep must not end the sweeping
                    logger.exception("TTL sweep failed; the next runs in %s minutes", minutes)
                stop.wait(minutes * 60)
        finally:
            done.set_result(None)

    def stop(self, timeout: float | None = None) -> bool:
        """Stop the thread; True once it has ended (False: still running at ``timeout``)."""
        with self._lock:
            self._stop.set()
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()


class TTL:
    """A store's TTL sweeps: ``store.ttl``. ``sweep`` archives every BaseStore item
    whose TTL ran out, now; ``start`` runs it in a daemon thread every few minutes,
    until ``stop`` or the store's ``close()``.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> s.put(("user", "a"), "k", {"text": "Likes tea."}, ttl=10)
    >>> s.ttl.sweep(), s.get(("user", "a"), "k") is not None
    (0, True)
    """

    def __init__(
        self, core: StoreCore, config: TTLConfig | None, sweeper: Sweeper | None = None
    ) -> None:
        self._core = core
        self.config = config
        #: One thread per store: an admin view's TTL shares its store's.
        self.sweeper = sweeper if sweeper is not None else Sweeper(self.sweep)

    def __repr__(self) -> str:
        return "<MemoryStore.ttl: sweep, start, stop>"

    @fresh_method
    def sweep(self, *, now: datetime | None = None) -> int:
        """Archive every BaseStore item whose TTL ran out (see ``store/basestore/ttl.py``);
        returns how many. Each closes at its expiry time and stays in ``history``.

        Args:
            now: the time to sweep at (default: now; timezone-aware).

        Returns:
            How many items were archived.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.ttl.sweep()
        0
        """
        when = utc(now, "now") if now is not None else now_utc()
        return sweep(self._core, when)

    def start(self, sweep_interval_minutes: float | None = None) -> concurrent.futures.Future[None]:
        """Run :meth:`sweep` now and every ``sweep_interval_minutes`` (default: the
        TTLConfig's, else 5) in a daemon thread, until :meth:`stop` or the store's
        ``close()``. The future resolves when the thread ends.

        Args:
            sweep_interval_minutes: minutes between sweeps (None: the store's
                ``TTLConfig``'s ``sweep_interval_minutes``, else 5).

        Returns:
            A future that resolves when the sweeper thread ends.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> done = s.ttl.start(60)
        >>> s.ttl.stop(timeout=10), done.result(timeout=10)
        (True, None)
        """
        configured = (self.config or {}).get("sweep_interval_minutes")
        return self.sweeper.start(sweep_interval_minutes or configured or DEFAULT_SWEEP_MINUTES)

    def stop(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread (see :meth:`start`).

        Args:
            timeout: seconds to wait for it to end (None: as long as it takes).

        Returns:
            True once it has ended; False when ``timeout`` ran out first.
        """
        return self.sweeper.stop(check_seconds(timeout))
