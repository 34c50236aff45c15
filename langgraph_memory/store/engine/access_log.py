"""When memories were last read, recorded after the read, off its critical path.

A read (``retrieve``) refreshes the ``last_accessed`` of what it returns, which recency
and decay use. Written inside the read, that write cost about as much as the rest of
the read (issue 23: 47 vs 24 ms at 5k memories). So a read only notes the times here
(``note``: a dict update under a lock) and returns; a daemon thread of the store's
engine writes them soon after, at most ``FLUSH_S`` later, one write per scope however
many reads noted it (the latest time of each memory wins).

What it costs: a time not written yet is lost if the process dies (SIGKILL, power
loss) in that second; a normal exit writes it (the engine's ``close`` and the
interpreter's exit flush). A memory's recency moves on a scale of months, so a lost
refresh barely changes a ranking, and the next read notes it again. Readers that
need the times written (decay's ``forget_stale``, ``export``) flush first.

>>> from datetime import datetime, timezone
>>> written = []
>>> log = AccessLog(lambda scope, ids, when: written.append((scope.key, sorted(ids), when.year)))
>>> log.note(Scope.parse("user:a"), ["m1", "m2"], datetime(2030, 1, 1, tzinfo=timezone.utc))
>>> log.note(Scope.parse("user:a"), ["m2"], datetime(2031, 1, 1, tzinfo=timezone.utc))
>>> log.flush()
True
>>> sorted(written)
[('user:a', ['m1'], 2030), ('user:a', ['m2'], 2031)]
>>> log.close()
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime

from langgraph_memory.scope import Scope

__all__ = ["FLUSH_S", "AccessLog"]

log = logging.getLogger("langgraph_memory")

#: Seconds at most between a read and the write of its access times.
FLUSH_S = 1.0

Write = Callable[[Scope, list[str], datetime], None]


class AccessLog:
    """Access times noted by reads, written by a thread of its own (module docstring).

    ``write(scope, ids, when)`` sets the ``last_accessed`` of ``ids`` to ``when``;
    ``every`` is the thread's pause between two writes (both may be changed).
    """

    def __init__(self, write: Write, *, every: float = FLUSH_S) -> None:
        self.write = write
        self.every = every
        self._cond = threading.Condition()
        self._pending: dict[str, tuple[Scope, dict[str, datetime]]] = {}
        self._writing = 0  # batches taken from _pending and not written yet
        self._thread: threading.Thread | None = None
        self._closed = False

    def note(self, scope: Scope, ids: Sequence[str], when: datetime) -> None:
        """Note that ``ids`` of ``scope`` were read at ``when``; returns at once."""
        if not ids:
            return
        with self._cond:
            if self._closed:
                return  # the store is closing: a refresh is worth no write after it
            _, times = self._pending.setdefault(scope.key, (scope, {}))
            for memory_id in ids:
                if memory_id not in times or times[memory_id] < when:
                    times[memory_id] = when
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="langgraph-memory-access-log", daemon=True
                )
                self._thread.start()
                atexit.register(self.close)

    def discard(self, scope: Scope) -> None:
        """Forget the times noted for ``scope`` (a purge: its memories are gone)."""
        with self._cond:
            self._pending.pop(scope.key, None)

    def flush(self, scope: Scope | None = None, timeout: float | None = 10.0) -> bool:
        """Write the times noted so far (of ``scope`` only, if given) in this thread,
        and wait for a batch the thread is writing; False if that took past ``timeout``."""
        with self._cond:
            if scope is None:
                batches = list(self._pending.values())
                self._pending.clear()
            else:
                one = self._pending.pop(scope.key, None)
                batches = [] if one is None else [one]
            self._writing += len(batches)
        self._write_all(batches)
        with self._cond:
            return self._cond.wait_for(lambda: self._writing == 0, timeout)

    def close(self) -> None:
        """Write what is noted and stop the thread; later notes are dropped."""
        atexit.unregister(self.close)
        self.flush()
        with self._cond:
            self._closed = True
            thread, self._thread = self._thread, None
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait(self.every)
                if self._closed:
                    return
                batches = list(self._pending.values())
                self._pending.clear()
                self._writing += len(batches)
            self._write_all(batches)

    def _write_all(self, batches: list[tuple[Scope, dict[str, datetime]]]) -> None:
        for scope, times in batches:
            try:
                by_time: dict[datetime, list[str]] = {}
                for memory_id, when in times.items():
                    by_time.setdefault(when, []).append(memory_id)
                for when, ids in by_time.items():
                    self.write(scope, ids, when)
            except Exception as exc:  # a refresh lost is a ranking barely moved: go on
                log.warning(
                    "langgraph_memory: access times of %d memories of %s not written: %r",
                    len(times),
                    scope.key,
                    exc,
                )
            finally:
                with self._cond:
                    self._writing -= 1
                    self._cond.notify_all()
