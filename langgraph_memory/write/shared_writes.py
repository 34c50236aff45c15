"""SharedWrites: a ``BackgroundWriter``'s side of its store's shared Postgres queue.

A store built with ``queue=URL`` (or ``$LANGGRAPH_MEMORY_QUEUE_URL``) keeps its
deferred turns in a table there (``store/engine/shared_queue.py``) instead of a writer's
journal. A ``BackgroundWriter`` on such a store hands its queue work to a
``SharedWrites`` and keeps the rest (the attempts of a turn, its counts, closing):

- **submit** returns once the insert is committed; ``max_pending`` bounds the
  table's turns of the store, all processes together.
- **Any process drains any scope.** The workers of every ``BackgroundWriter`` on
  the store, in any process, take any scope's oldest turn first, one worker per
  scope (under the scope's cross-process lock), so a turn a dead process accepted
  is written by another. A scope whose lock another process holds past its bound
  waits (it steps aside for the others) and is looked at again later.
- **Woken, not only polling.** A listener thread hears each new turn of the store
  (Postgres ``LISTEN``/``NOTIFY``) and wakes the idle workers; without it they
  look at the table every ``SHARED_POLL_S`` seconds.
- **flush and wait.** ``flush``/``close`` wait for the turns this writer
  submitted, ``wait(scope)`` for the scope's turns whoever accepted them;
  ``pending`` counts the table's turns of the store. The journal, ``purged`` and
  ``pending_turns`` are then the store's queue's business.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> store_queue(store, True) is None  # an embedded store has no shared queue
True
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory.errors import (
    InvalidArgumentError,
    JournalError,
    QueueConfigError,
    QueueError,
    QueueFullError,
    ScopeLockError,
    WriterClosedError,
)
from langgraph_memory.scope import Scope
from langgraph_memory.write.journal import JournalEntry
from langgraph_memory.write.types import Turn

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore, SharedQueue
    from langgraph_memory.write.journal import Journal

__all__ = ["SHARED_CHECK_S", "SHARED_POLL_S", "SharedWrites", "store_queue"]

log = logging.getLogger("langgraph_memory")

#: Seconds an idle worker on a shared queue sleeps between two looks at it, when no
#: announcement of a new turn (Postgres NOTIFY) wakes it earlier.
SHARED_POLL_S = 1.0
#: Seconds between two looks at a shared queue by flush() and wait().
SHARED_CHECK_S = 0.02


def store_queue(
    store: MemoryStore, journal: Journal | str | os.PathLike[str] | bool | None
) -> SharedQueue | None:
    """The store's shared queue (``MemoryStore(queue=...)``), which replaces a writer's
    journal; None when the store has none. Refuses a ``journal=`` other than the
    default (True) beside a shared queue.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> store_queue(store, False) is None
    True
    """
    shared = stores.internals(store).shared_queue
    if shared is not None and journal is not True:
        raise InvalidArgumentError(
            f"this store's deferred turns go to {shared.describe()} (MemoryStore(queue=...) "
            "or $LANGGRAPH_MEMORY_QUEUE_URL), which replaces the journal: leave journal= "
            "unset"
        )
    return shared


class SharedWrites:
    """A ``BackgroundWriter``'s turns on its store's shared queue (module docstring).

    The writer builds one when its store has a queue (``store_queue``), runs
    ``work`` on each of its worker threads and ``listen`` on one more, and hands
    ``submit``, ``flush`` and ``wait`` to it. What is the writer's own comes in as
    arguments: ``cond``, the writer's condition (an ``RLock``'s), which guards this
    object's state too and which a close notifies; ``closed`` and ``stopped``, which
    read the writer's flags while the caller holds ``cond``; ``count``, which adds
    one to a counter of the writer's ``stats``; ``write``, which applies a claimed
    turn (its queue number, scope and turn) with the writer's attempts, holding the
    scope's lock, and says False when the scope's lock was lost meanwhile, so the
    turn goes back to the queue; ``lock_wait_s``, how long a scope whose lock
    another process holds steps aside. It needs Postgres, so it has no runnable
    example here: ``tests/test_shared_queue.py`` runs it on a real one.
    """

    def __init__(
        self,
        queue: SharedQueue,
        store: MemoryStore,
        cond: threading.Condition,
        *,
        closed: Callable[[], bool],
        stopped: Callable[[], bool],
        count: Callable[[str], None],
        write: Callable[[int, Scope, Turn], bool],
        lock_wait_s: float,
    ) -> None:
        self.queue = queue
        self.store = store
        self.lock_wait_s = lock_wait_s
        self._cond = cond  # the writer's: guards the sets below
        self._is_closed = closed
        self._is_stopped = stopped
        self._count = count
        self._write = write
        self._mine: set[int] = set()  # turns this writer put in the queue, not seen done
        self._cooling: dict[str, float] = {}  # scope -> when to look at it again
        self._busy: set[str] = set()  # scopes a worker of this writer holds

    # -- submitting, flushing, waiting -----------------------------------------------------

    def submit(
        self,
        scope: Scope,
        turn: Turn,
        timeout: float | None,
        *,
        max_pending: int,
        on_full: Literal["wait", "raise"],
    ) -> str:
        """``submit`` on a shared queue: wait for room in the table (``max_pending``
        turns of this store, all processes together), then insert the turn."""
        shared = self.queue
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._cond:
                if self._is_closed():
                    raise WriterClosedError(
                        "this BackgroundWriter is closed; it takes no more turns"
                    )
            held = shared.depth()
            if held < max_pending:
                break
            full = (
                f"{shared.describe()} holds {held} turns of this store, the background "
                f"writer's max_pending ({max_pending})"
            )
            if on_full == "raise":
                raise QueueFullError(
                    f"{full}: the workers are slower than the turns arrive. Retry later, "
                    "raise max_pending, add workers or processes, or use on_full='wait'."
                )
            if deadline is not None and time.monotonic() >= deadline:
                raise QueueFullError(f"{full}, and no room came within {timeout} s")
            time.sleep(SHARED_CHECK_S * 10)
        seq = shared.put(JournalEntry.of(scope.key, turn))
        with self._cond:
            self._mine.add(seq)
            self._count("submitted")
            self._cond.notify_all()  # an idle worker of this process takes it at once
        return turn.id

    def outstanding(self) -> int:
        """How many turns this writer put in the queue and has not seen done yet."""
        with self._cond:
            return len(self._mine)

    def flush(self, timeout: float | None) -> bool:
        """``flush`` on a shared queue: the turns this writer put there so far are
        gone from it (written, by any process's worker, or recorded as failed)."""
        shared = self.queue
        with self._cond:
            mark = set(self._mine)

        def gone() -> bool:
            left = shared.left(mark)
            with self._cond:
                self._mine -= mark - left
            mark.intersection_update(left)
            return not left

        return self._poll(gone, timeout)

    def wait(self, key: str, timeout: float | None) -> bool:
        """``wait`` on a shared queue: any process may have accepted the scope's last
        turn, so wait until every turn of the scope ``key`` queued so far is gone."""
        shared = self.queue
        last = shared.last(key)
        return last == 0 or self._poll(lambda: not shared.any_left(key, last), timeout)

    def _poll(self, done: Callable[[], bool], timeout: float | None) -> bool:
        """Ask ``done`` every ``SHARED_CHECK_S`` until it says True (True) or ``timeout``
        seconds pass (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not done():
            if self._stopped() or (deadline is not None and time.monotonic() >= deadline):
                return False  # stopped: this writer's workers take no more turns
            time.sleep(SHARED_CHECK_S)
        return True

    # -- the worker threads ----------------------------------------------------------------

    def work(self) -> None:
        """A worker on a shared queue: take the oldest turn of a scope no worker of
        any process holds, under the scope's lock, until the writer stops."""
        shared = self.queue
        conn: Any = None
        try:
            while True:
                now = time.monotonic()
                with self._cond:
                    if self._is_stopped():
                        return
                    self._cooling = {k: t for k, t in self._cooling.items() if t > now}
                    skip = self._busy | set(self._cooling)
                try:
                    if conn is None or conn.closed:
                        conn = shared.connect()
                    key = shared.peek(conn, skip)
                    if key is None:
                        self._sleep(SHARED_POLL_S)
                        continue
                    with self._cond:
                        if self._is_stopped() or key in self._busy:
                            continue
                        self._busy.add(key)
                    try:
                        self._take(conn, key)
                    except ScopeLockError as exc:
                        # Another process writes the scope (not through this queue) past
                        # lock_timeout: its turn waits in the table; other scopes first.
                        self._count("lock_waits")
                        with self._cond:
                            self._cooling[key] = time.monotonic() + self.lock_wait_s
                        log.info(
                            "langgraph_memory: a queued turn of %s waits for its lock: %r", key, exc
                        )
                    except JournalError as exc:
                        # A row this release cannot read (a newer release's, a hand edit):
                        # it stays in the table, its scope waits, and the log says why.
                        with self._cond:
                            self._cooling[key] = time.monotonic() + self.lock_wait_s
                        log.error(
                            "langgraph_memory: the oldest queued turn of %s in %s cannot be "
                            "read, so the scope's turns wait: %s",
                            key,
                            shared.describe(),
                            exc,
                        )
                    finally:
                        with self._cond:
                            self._busy.discard(key)
                            self._cond.notify_all()
                except (QueueConfigError, QueueError, shared.psycopg.Error) as exc:
                    log.warning(
                        "langgraph_memory: %s: %r; trying again in %s s",
                        shared.describe(),
                        exc,
                        self.lock_wait_s,
                    )
                    if conn is not None:
                        conn.close()
                    conn = None
                    self._sleep(self.lock_wait_s)
        finally:
            if conn is not None:
                conn.close()

    def _take(self, conn: Any, key: str) -> None:
        """Hold ``key``'s lock, claim its oldest queued turn and write it; the claim
        is deleted when the turn is written or recorded as failed, else given back."""
        scope = Scope.parse(key)
        with (
            stores.internals(self.store).scope_lock(scope),
            self.queue.claim(conn, key) as claim,
        ):
            if claim is None:
                return  # written meanwhile by another worker (it held the lock)
            turn = JournalEntry.from_record(claim.record).turn()
            if not self._write(claim.seq, scope, turn):
                claim.give_back()
                with self._cond:
                    self._cooling[key] = time.monotonic() + self.lock_wait_s

    def listen(self) -> None:
        """Wake the idle workers when any process announces a turn of this store."""
        shared = self.queue
        conn: Any = None
        try:
            while not self._stopped():
                try:
                    if conn is None or conn.closed:
                        conn = shared.connect()
                        shared.listen(conn)
                    if shared.announced(conn, SHARED_POLL_S):
                        with self._cond:
                            self._cond.notify_all()
                except (QueueConfigError, QueueError, shared.psycopg.Error):
                    if conn is not None:
                        conn.close()
                    conn = None  # the workers still poll; listen again after a pause
                    self._sleep(self.lock_wait_s)
        finally:
            if conn is not None:
                conn.close()

    def _sleep(self, seconds: float) -> None:
        """Sleep up to ``seconds``, woken early by a submit, an announcement or close."""
        with self._cond:
            if not self._is_stopped():
                self._cond.wait(seconds)

    def _stopped(self) -> bool:
        with self._cond:
            return self._is_stopped()

    def __repr__(self) -> str:
        return f"SharedWrites({self.queue!r})"
