"""BackgroundWriter: learn from turns off the request path, in order, durably.

``submit`` hands a turn to worker threads and returns at once (with the turn
id); the workers run ``MemoryWriter.write_turn``. The guarantees:

- **Per-scope FIFO, one worker per scope.** Each scope has its own queue; a
  worker takes a scope, applies its next turn, then gives the scope back. So
  the turns of one scope apply in the order they were accepted ("I live in
  Delhi" before "I moved to Pune"), while different scopes run in parallel.
- **Bounded.** At most ``max_pending`` turns are queued or in flight. When
  full, ``submit`` waits for room (``on_full="wait"``, up to ``timeout``) or
  raises ``QueueFullError`` at once (``on_full="raise"``); memory never grows
  without bound.
- **Durable: a journal by default.** ``submit`` appends the turn to a journal
  file and fsyncs it before it returns: an accepted turn survives a crash, and
  the next ``BackgroundWriter`` on that journal replays the turns that were not
  done, in their original order, before any new one. For an embedded store the
  journal is ``journal/turns.jsonl`` in the store's directory (``journal_path``),
  so the next writer on the same store finds it; ``journal=`` another path or
  ``Journal`` chooses another file. A store on a Chroma server has no directory:
  there the queue is in memory unless ``journal=`` names a file (on a disk of
  this machine; one writer per file). ``journal=False`` turns it off: turns
  queued when the process dies are then lost.
- **Shared by processes: a Postgres queue.** A store built with ``queue=URL``
  (or ``$LANGGRAPH_MEMORY_QUEUE_URL``) keeps the turns in a table there instead
  of the journal (``store/engine/shared_queue.py``), which the workers of every
  ``BackgroundWriter`` on the store, in any process, drain, one worker per
  scope, so a turn a dead process accepted is written by another. The writer
  hands that side to ``write/shared_writes.py`` (``SharedWrites``), whose
  docstring says what ``submit``, ``flush``, ``wait``, ``pending`` and
  ``max_pending`` then mean.
- **Flushed at exit.** A writer that is not closed is closed when the
  interpreter exits (``atexit``): it waits up to ``exit_timeout`` seconds (10
  by default) for the queued turns. If turns are still pending then, a warning
  on the ``langgraph_memory`` logger says how many and whether the journal
  keeps them for the next start or they are lost (no journal). It is a log
  record, not ``warnings.warn``: it reports data, not a misuse of code, and
  ``warnings`` shows a message once per place in the code, where every writer
  and every exit needs its own count. Unconfigured logging still prints it to
  stderr (logging's last-resort handler). A process killed outright (SIGKILL,
  ``os._exit``, power loss) runs no exit hook: only the journal keeps its turns.
- **Read your writes.** ``wait(scope, timeout)`` waits until the turns of one
  scope accepted so far are written; the graph's read node calls it (up to
  ``wait_for_writes`` seconds) so that a user's next turn sees their last one.
- **Never silently dropped.** An exception from ``write_turn`` (a store error;
  model errors never raise, the writer logs them as failed decisions) is
  retried after ``backoff_s``, then ``backoff_s * backoff_factor`` ..., up to
  ``max_attempts`` attempts in all. Then a failed decision (op NOOP,
  ``Status.FAILED``, the error, the turn id, the turn's text as ``fact``) goes to
  the scope's decision log and the turn counts as ``failed`` in ``stats``. If
  even that log write fails, the error is logged, the turn counts as
  ``unrecorded`` and stays in the journal, to be tried again on the next start.
- **flush / close drain.** ``flush()`` waits for every turn submitted before
  it, and says False if any of them ended ``unrecorded``; ``close()`` refuses
  new turns, drains, stops the workers and compacts the journal.
- **Purge reaches the queue.** The writer listens to its store's purges: a
  purged scope's queued turns are dropped (counted as ``purged``; a turn a
  worker is already applying writes nothing: ``MemoryWriter`` sees the purge
  under the scope's lock), and the journal is rewritten so that
  it keeps no copy of a purged scope's words, nor of any turn already done.

Exactly once across a crash. A replayed turn may already have been applied,
in part or in full: the crash can fall anywhere in ``write_turn``, or after it
and before the journal's done record (done records are not even fsynced, to
keep the apply path cheap). A replayed turn keeps its turn id, and
``write_turn`` skips the facts the decision log already has a decision for in
that turn, so only what the crash cut off is applied (``stats.resumed`` counts
replayed turns that had been started). What remains is a crash between a
fact's store write and its log entry (two store calls, milliseconds apart in
``apply``): the change is in the store but no decision names it, so the fact
is reconciled again; the model is shown the memory the first run made and
decides NOOP for a fact already held (the rules model always does; a chat
model should), so the effect is not applied twice, but this rests on the model.

Retries within a run are different: an attempt that raised did not finish,
so the whole turn runs again (no skip); facts its failed attempt already
applied are shown to the model as held memories and come out NOOP.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write import MemoryWriter, RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as bg:
...     _ = bg.submit("user:alice", [("user", "I live in Delhi.")])
...     _ = bg.submit("user:alice", [("user", "I moved to Pune.")])
...     bg.flush()
True
>>> [m.text for m in store.active("user:alice", episodes=False)], bg.stats.applied
(['User lives in Pune.'], 2)
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tenacity import (
    RetryCallState,
    RetryError,
    Retrying,
    retry_if_exception_type,
)

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory import telemetry
from langgraph_memory.checks import check_instance, check_int, check_seconds
from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    QueueFullError,
    ScopeLockError,
    StoreLockedError,
    WriterClosedError,
)
from langgraph_memory.records import MAX_TEXT_CHARS, Decision, DecisionOp, Status, utc
from langgraph_memory.scope import Scope, ScopeLike, check_path_scope
from langgraph_memory.write.idle import IdleJob, IdleRunner
from langgraph_memory.write.journal import Journal, JournalEntry
from langgraph_memory.write.shared_writes import SharedWrites, store_queue
from langgraph_memory.write.types import Turn
from langgraph_memory.write.writer import MemoryWriter, MessageLike

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = [
    "EXIT_TIMEOUT_S",
    "BackgroundStats",
    "BackgroundWriter",
    "QueueFullError",
    "WriterClosedError",
    "journal_path",
]

log = logging.getLogger("langgraph_memory")

OnFull = Literal["wait", "raise"]
#: How long the interpreter's exit waits for queued turns, by default.
EXIT_TIMEOUT_S = 10.0
#: Seconds at most between two tries of a turn whose scope another process holds locked.
MAX_LOCK_WAIT_S = 5.0

Outcome = Literal["applied", "failed", "kept"]


def journal_path(store: MemoryStore) -> Path | None:
    """The default journal file of a background writer on ``store``: in the store's
    directory; None for a store without one (a Chroma server).

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> journal_path(store).relative_to(store.path).as_posix()
    'journal/turns.jsonl'
    """
    from langgraph_memory.store import JOURNAL_FILE

    return None if store.path is None else store.path / JOURNAL_FILE


@dataclass(frozen=True)
class BackgroundStats:
    """Counts since this writer started.

    ``submitted``: accepted by ``submit``; ``replayed``: taken from the journal
    on start; ``applied``: ``write_turn`` returned; ``resumed``: replayed turns
    the decision log shows were started (``write_turn`` applies only their
    undecided facts); ``retries``: attempts repeated
    after an exception; ``lock_waits``: attempts that found the scope's
    cross-process lock held past its bound (``ScopeLockError``), retried without
    counting as a failed attempt; ``failed``: recorded as failed decisions after the
    last attempt; ``unrecorded``: neither written nor logged, kept in the journal
    (a failure that could not be logged, or a scope still locked when the writer
    closed); ``purged``: queued turns dropped because their scope was purged;
    ``pending``: queued or in flight now.

    >>> BackgroundStats().pending
    0
    """

    submitted: int = 0
    replayed: int = 0
    applied: int = 0
    resumed: int = 0
    retries: int = 0
    lock_waits: int = 0
    failed: int = 0
    unrecorded: int = 0
    purged: int = 0
    pending: int = 0


@dataclass(frozen=True)
class _Item:
    seq: int  # acceptance number: flush() waits for all below a mark
    scope: Scope
    turn: Turn
    replayed: bool
    accepted: float = field(default_factory=time.monotonic)  # for the lag


class BackgroundWriter:
    """Runs ``writer.write_turn`` on worker threads; see the module docstring.

    Args:
        writer: the write path to run.
        workers: worker threads (scopes in parallel; one scope never in two).
        max_pending: most turns queued or in flight at once.
        journal: True (the default) for ``journal_path(store)``: the store's
            directory, or no journal for a store without one; a file path or an
            open ``Journal``; False (or None) for an in-memory queue. A path is
            opened, replayed and, on close, closed by this writer; a ``Journal``
            passed in is left open.
        on_full: ``"wait"`` for room (up to ``submit``'s timeout) or ``"raise"``.
        max_attempts: attempts per turn when ``write_turn`` raises.
        backoff_s: the wait before the second attempt.
        backoff_factor: what each later wait is multiplied by.
        exit_timeout: seconds the interpreter's exit waits for queued turns when
            the writer was not closed (0: none; pending turns are reported).
        when_idle: a job to run when no turn is queued, at most once per its
            ``every`` (opt-in; see ``write.idle``), e.g.
            ``lifecycle.Maintenance(every=timedelta(hours=6))``.

    Raises:
        InvalidTypeError: ``writer`` is not a ``MemoryWriter``, ``journal`` is none
            of what it takes, or a number is of another type.
        InvalidArgumentError: a number is out of range, ``on_full`` is neither
            ``"wait"`` nor ``"raise"``, or ``journal`` is set on a store whose
            turns go to a shared queue (``MemoryStore(queue=...)``).
        StoreLockedError: another ``BackgroundWriter`` holds the store's journal.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> from langgraph_memory.write.rules import RulesModel
    >>> bg = BackgroundWriter(MemoryWriter(store, model=RulesModel()), workers=1, max_pending=10)
    >>> bg.submit("user:bob", [("user", "I'm vegan.")], turn_id="t1")
    't1'
    >>> bg.close(), [m.text for m in store.active("user:bob", episodes=False)]
    (True, ['User is vegan.'])
    """

    def __init__(
        self,
        writer: MemoryWriter,
        *,
        workers: int = 2,
        max_pending: int = 1000,
        journal: Journal | str | os.PathLike[str] | bool | None = True,
        on_full: OnFull = "wait",
        max_attempts: int = 3,
        backoff_s: float = 0.5,
        backoff_factor: float = 2.0,
        exit_timeout: float = EXIT_TIMEOUT_S,
        when_idle: IdleJob | None = None,
    ) -> None:
        check_instance(writer, MemoryWriter, "writer", "pass BackgroundWriter(MemoryWriter(store))")
        check_int(workers, "workers")
        check_int(max_pending, "max_pending")
        if on_full not in ("wait", "raise"):
            raise InvalidArgumentError(f"on_full must be 'wait' or 'raise', got {on_full!r}")
        check_int(max_attempts, "max_attempts")
        _check_number(backoff_s, "backoff_s", 0, " seconds")
        _check_number(backoff_factor, "backoff_factor", 1)
        # None is refused too: at exit it would wait for ever.
        _check_number(exit_timeout, "exit_timeout", 0, " seconds")
        _check_journal(journal)
        queue = store_queue(writer.store, journal)
        # Checked here, before any thread starts; started last.
        self._idle = None if when_idle is None else IdleRunner(when_idle, writer, self._queued)
        self.writer = writer
        self.max_pending = max_pending
        self.on_full: OnFull = on_full
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.backoff_factor = backoff_factor
        self.exit_timeout = exit_timeout
        self._journal = None if queue is not None else _open_journal(journal, writer.store)
        self._owns_journal = self._journal is not None and self._journal is not journal
        self._cond = threading.Condition()  # guards everything below
        # Held from journal append to enqueue, so the queue order is the journal
        # order and a replay repeats the order the live run had.
        self._order = threading.Lock()
        self._queues: dict[str, deque[_Item]] = {}
        self._ready: deque[str] = deque()  # scopes with turns and no worker on them
        self._busy: set[str] = set()
        self._inflight: dict[str, _Item] = {}  # scope key -> the turn a worker applies
        # seq -> (turn id, scope key), queued or in flight
        self._unfinished: dict[int, tuple[str, str]] = {}
        self._unrecorded: set[int] = set()  # seqs that failed and could not be logged
        self._seq = 0
        self._closed = False
        self._stop = False
        self._counts = {name: 0 for name in BackgroundStats.__dataclass_fields__}
        # The store's shared queue, when it has one: the other side of this writer.
        self._shared = (
            None
            if queue is None
            else SharedWrites(
                queue,
                writer.store,
                self._cond,
                closed=lambda: self._closed,
                stopped=lambda: self._stop,
                count=self._count,
                write=self._write_claimed,
                lock_wait_s=MAX_LOCK_WAIT_S,
            )
        )
        if self._journal is not None:
            # Accepted earlier, so they bypass max_pending: refusing them now would lose them.
            with self._cond:
                for entry in self._journal.pending():
                    self._unfinished[self._seq] = (entry.turn_id, entry.scope)
                    self._enqueue(_Item(self._seq, Scope.of(entry.scope), entry.turn(), True))
                    self._seq += 1
                    self._counts["replayed"] += 1
        # Daemon threads: a process that exits without close() must not hang on
        # them; what they had not done stays in the journal, if there is one.
        shared = self._shared
        work = self._work if shared is None else shared.work
        self._threads = [
            threading.Thread(target=work, name=f"langgraph-memory-writer-{i}", daemon=True)
            for i in range(workers)
        ]
        if shared is not None:
            self._threads.append(
                threading.Thread(
                    target=shared.listen, name="langgraph-memory-listener", daemon=True
                )
            )
        for thread in self._threads:
            thread.start()
        if shared is None:  # a shared queue is the store's: it answers for its turns itself
            stores.internals(writer.store).attach(
                self
            )  # purges reach the queue and journal; exports list turns
        atexit.register(self._close_at_exit)  # unregistered by close()
        telemetry.watch_queue(self)  # its depth and lag in the queue gauges, while it lives
        if self._idle is not None:
            self._idle.start()

    # -- submitting --------------------------------------------------------------------

    def submit(
        self,
        scope: ScopeLike,
        messages: Turn | Iterable[MessageLike],
        *,
        now: datetime | None = None,
        turn_id: str | None = None,
        thread_id: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """Accept a turn for the background; returns its turn id.

        The messages (and a ``now``, which must be timezone-aware) are checked
        here, so bad input raises in the caller and never reaches the journal.
        ``turn_id`` and ``thread_id`` are as for ``MemoryWriter.write_turn``.
        When the queue is full, waits up to ``timeout`` seconds (None: as long
        as it takes) or, with ``on_full="raise"``, raises ``QueueFullError``.
        Raises ``WriterClosedError`` after ``close``.

        Args:
            scope: the scope to write: a ``Scope``, ``"kind:id"`` or a namespace
                tuple; never an org scope.
            messages: the turn: LangChain messages, ``(role, text)`` pairs, dicts
                with ``"role"`` and ``"content"``, or a ``Turn``.
            now: the turn's time (timezone-aware); None: a given ``Turn``'s, else
                the clock.
            turn_id: the turn's id, not already queued; None: a given ``Turn``'s,
                else a new one.
            thread_id: the conversation's id; None: a given ``Turn``'s, else none.
            timeout: the most seconds to wait for room in a full queue; None: as
                long as it takes.

        Returns:
            The turn's id.

        Raises:
            QueueFullError: the queue is full and ``on_full="raise"``, or no room
                came within ``timeout``.
            WriterClosedError: the writer is closed.
            InvalidArgumentError: the messages cannot be read as a turn, ``now`` is
                naive, or the turn id is already queued.
            AdminRequiredError: ``scope`` is an org scope.
        """
        scope = check_path_scope(Scope.of(scope))  # never an org scope
        check_seconds(timeout)
        # The turn is checked here (and its id and time fixed: a replay reuses both).
        when = utc(now, "now") if now is not None else None
        turn = Turn.of(messages, when=when, turn_id=turn_id, thread_id=thread_id)
        if self._shared is not None:
            return self._shared.submit(
                scope, turn, timeout, max_pending=self.max_pending, on_full=self.on_full
            )
        with self._cond:
            seq = self._reserve(turn.id, scope.key, timeout)
        try:
            with self._order:
                if self._journal is not None:
                    self._journal.append(JournalEntry.of(scope.key, turn))
                with self._cond:
                    self._enqueue(_Item(seq, scope, turn, False))
                    self._counts["submitted"] += 1
        except BaseException:
            with self._cond:  # not accepted: give the slot back
                self._unfinished.pop(seq, None)
                self._cond.notify_all()
            raise
        return turn.id

    async def asubmit(
        self,
        scope: ScopeLike,
        messages: Turn | Iterable[MessageLike],
        *,
        now: datetime | None = None,
        turn_id: str | None = None,
        thread_id: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """``submit`` without blocking the event loop (the same code, in a thread).

        Args:
            scope: the scope to write, as for ``submit``.
            messages: the turn, as for ``submit``.
            now: the turn's time (timezone-aware); None: as for ``submit``.
            turn_id: the turn's id; None: as for ``submit``.
            thread_id: the conversation's id; None: as for ``submit``.
            timeout: the most seconds to wait for room; None: as long as it takes.

        Returns:
            The turn's id.
        """
        # A generator is read here, in the caller's thread; anything else that is
        # no list of messages goes as it is, for submit to refuse.
        materialised: Turn | Iterable[MessageLike] = messages
        if isinstance(messages, Iterable) and not isinstance(messages, (Turn, str, Mapping)):
            materialised = list(messages)
        return await asyncio.to_thread(
            self.submit,
            scope,
            materialised,
            now=now,
            turn_id=turn_id,
            thread_id=thread_id,
            timeout=timeout,
        )

    def _reserve(self, turn_id: str, scope_key: str, timeout: float | None) -> int:
        """Take a slot for one turn (caller holds the condition); returns its seq."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:
                raise WriterClosedError("this BackgroundWriter is closed; it takes no more turns")
            if len(self._unfinished) < self.max_pending:
                break
            full = (
                f"the background writer holds {len(self._unfinished)} turns, its max_pending "
                f"({self.max_pending})"
            )
            if self.on_full == "raise":
                raise QueueFullError(
                    f"{full}: the model or the store is slower than the turns arrive. "
                    "Retry later, raise max_pending, add workers, or use on_full='wait'."
                )
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise QueueFullError(f"{full}, and no room came within {timeout} s")
            self._cond.wait(remaining)
        if any(queued == turn_id for queued, _ in self._unfinished.values()):
            raise InvalidArgumentError(
                f"turn id {turn_id!r} is already queued; give each turn its own id"
            )
        seq = self._seq
        self._seq += 1
        self._unfinished[seq] = (turn_id, scope_key)
        return seq

    def _enqueue(self, item: _Item) -> None:
        """Queue an item behind its scope's others (caller holds the condition)."""
        key = item.scope.key
        queue = self._queues.setdefault(key, deque())
        if not queue and key not in self._busy:  # else it is in _ready, or a worker has it
            self._ready.append(key)
        queue.append(item)
        self._cond.notify_all()

    # -- waiting and closing -------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Turns queued or in flight (on a shared queue: this store's, every process's)."""
        if self._shared is not None:
            return self._shared.queue.depth()
        with self._cond:
            return len(self._unfinished)

    @property
    def lag(self) -> float:
        """Seconds the oldest turn queued or in flight in this process has waited since
        it was accepted (or replayed, or claimed from a shared queue); 0.0 when none."""
        now = time.monotonic()
        with self._cond:
            oldest = [queue[0].accepted for queue in self._queues.values() if queue]
            oldest += [item.accepted for item in self._inflight.values()]
        return max(0.0, now - min(oldest)) if oldest else 0.0

    def _queued(self) -> bool:
        return self.pending > 0

    @property
    def stats(self) -> BackgroundStats:
        """A snapshot of the counts (see ``BackgroundStats``)."""
        pending = self.pending
        with self._cond:
            return BackgroundStats(**{**self._counts, "pending": pending})

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every turn submitted before this call is applied or recorded
        as failed; False if ``timeout`` seconds passed first (or the writer stopped).

        Args:
            timeout: the most seconds to wait; None: as long as it takes.

        Returns:
            True when those turns are done and none of them ended ``unrecorded``;
            False otherwise.
        """
        timeout = check_seconds(timeout)
        if self._shared is not None:
            return self._shared.flush(timeout)
        with self._cond:
            mark = self._seq

            def drained() -> bool:
                return min(self._unfinished, default=mark) >= mark

            self._cond.wait_for(lambda: self._stop or drained(), timeout)
            # A turn that failed and whose failure could not be logged either is
            # not done: it stays in the journal (or is lost without one).
            return drained() and not any(seq < mark for seq in self._unrecorded)

    async def aflush(self, timeout: float | None = None) -> bool:
        """``flush`` without blocking the event loop.

        Args:
            timeout: the most seconds to wait; None: as long as it takes.

        Returns:
            What ``flush`` returns.
        """
        return await asyncio.to_thread(self.flush, check_seconds(timeout))

    def wait(self, scope: ScopeLike, timeout: float | None = None) -> bool:
        """Wait until every turn of ``scope`` accepted before this call is applied
        (or recorded as failed); False if ``timeout`` seconds passed first (or the
        writer stopped). Other scopes' turns are not waited for.

        Args:
            scope: the scope whose turns to wait for: a ``Scope``, ``"kind:id"`` or
                a namespace tuple.
            timeout: the most seconds to wait; None: as long as it takes.

        Returns:
            True when the scope's turns accepted before the call are written (or
            recorded as failed); False otherwise.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.write.rules import RulesModel
        >>> from langgraph_memory.store import MemoryStore
        >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as bg:
        ...     _ = bg.submit("user:alice", [("user", "I'm vegan.")])
        ...     bg.wait("user:alice", timeout=10)
        ...     [m.text for m in store.active("user:alice", episodes=False)]
        True
        ['User is vegan.']
        """
        key = Scope.of(scope).key
        timeout = check_seconds(timeout)
        if self._shared is not None:
            return self._shared.wait(key, timeout)
        with self._cond:
            mark = self._seq

            def written() -> bool:
                return not any(
                    seq < mark and where == key for seq, (_, where) in self._unfinished.items()
                )

            self._cond.wait_for(lambda: self._stop or written(), timeout)
            return written()

    def close(self, timeout: float | None = None) -> bool:
        """Refuse new turns, drain the queue, stop the workers; True if drained.

        If ``timeout`` passes first, the workers stop after their current turn;
        the turns left are replayed from the journal on the next start (without
        a journal they are lost, and a warning says how many). Safe to call twice.

        Args:
            timeout: the most seconds to wait for the queue to drain; None: as long
                as it takes.

        Returns:
            True when every turn was written (or recorded as failed) and none ended
            ``unrecorded``.
        """
        return self._shut(check_seconds(timeout), "closed")

    def _shut(self, timeout: float | None, how: str) -> bool:
        atexit.unregister(self._close_at_exit)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._closed = True
            self._cond.notify_all()  # submitters waiting for room raise now
        drained = self.flush(timeout)
        if self._idle is not None:  # an idle job that runs now ends first
            self._idle.stop(None if deadline is None else max(0.0, deadline - time.monotonic()))
        with self._cond:
            self._stop = True
            left = len(self._unfinished) + (
                0 if self._shared is None else self._shared.outstanding()
            )
            self._cond.notify_all()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if left:
            if self._shared is not None:
                where = (
                    f"kept in {self._shared.queue.describe()}, where any BackgroundWriter on it "
                    "writes them"
                )
            elif self._journal is not None:
                where = (
                    f"kept in the journal {self._journal.path} and replayed by the next "
                    "BackgroundWriter on it"
                )
            else:
                where = "lost (no journal: pass journal=<a file> to keep them)"
            log.warning(
                "langgraph_memory: BackgroundWriter %s with %d turns not written after "
                "waiting %s s: %s",
                how,
                left,
                timeout,
                where,
            )
        if self._journal is not None:
            if drained:
                self._journal.compact()
            if self._owns_journal:
                self._journal.close()
        return drained

    def _close_at_exit(self) -> None:
        """The interpreter is exiting and nobody closed this writer: give the queue
        ``exit_timeout`` seconds; what is left then is reported (see ``_shut``)."""
        self._shut(self.exit_timeout, "closed at interpreter exit")

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._shared is not None:
            return (
                f"BackgroundWriter(workers={len(self._threads) - 1}, queue={self._shared.queue!r})"
            )
        return (
            f"BackgroundWriter(workers={len(self._threads)}, pending={self.pending}, "
            f"journal={self._journal!r})"
        )

    # -- the workers -----------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stop or bool(self._ready))
                if self._stop:  # only after a drain, or when close() timed out
                    return
                key = self._ready.popleft()
                item = self._queues[key].popleft()
                self._busy.add(key)
                self._inflight[key] = item
            try:
                if self._process(item) == "kept":
                    with self._cond:
                        self._unrecorded.add(item.seq)  # the journal replays it next start
                else:
                    self._done(item)
            finally:
                with self._cond:
                    self._busy.discard(key)
                    self._inflight.pop(key, None)
                    if self._queues[key]:
                        self._ready.append(key)
                    else:
                        del self._queues[key]
                    self._unfinished.pop(item.seq, None)
                    self._cond.notify_all()

    def _write_claimed(self, seq: int, scope: Scope, turn: Turn) -> bool:
        """Apply a turn a shared queue's worker claimed, holding its scope's lock (see
        ``SharedWrites``); False when the scope's lock was lost: the turn goes back."""
        item = _Item(seq, scope, turn, replayed=True)  # a worker may have died in it
        with self._cond:
            self._inflight[scope.key] = item
        try:
            return self._process(item, lock_lost="give back") != "kept"
        finally:
            with self._cond:
                self._inflight.pop(scope.key, None)

    def _process(self, item: _Item, *, lock_lost: Literal["wait", "give back"] = "wait") -> Outcome:
        """Apply one turn: replay check, attempts with backoff, then record a failure.

        The attempts are tenacity's: ``max_attempts`` failures in all, on any
        ``Exception``, waiting ``backoff_s * backoff_factor ** (n - 1)`` after the n-th
        (as ``wait_exponential``), each failure logged, each wait counted as a retry. A
        scope whose cross-process lock another process holds past its bound
        (``ScopeLockError``) is no failure of the turn: it is tried again, at most
        ``MAX_LOCK_WAIT_S`` apart, for as long as the writer is open; a writer that
        closes meanwhile leaves the turn in its journal for the next start
        (``"kept"``). With ``lock_lost="give back"`` (a shared queue's worker, which
        holds the scope's lock around this), a ``ScopeLockError`` ends the tries at
        once (``"kept"``): the worker gives the turn back to the queue."""
        checked = not item.replayed
        failures = 0  # attempts that failed for another reason than a busy scope lock

        def attempt() -> None:
            nonlocal checked
            if not checked:
                if self._started(item):
                    self._count("resumed")
                checked = True
            self.writer.write_turn(item.scope, item.turn)

        def locked(state: RetryCallState) -> bool:
            outcome = state.outcome
            return outcome is not None and isinstance(outcome.exception(), ScopeLockError)

        def failed(state: RetryCallState) -> None:
            nonlocal failures
            if locked(state):
                self._count("lock_waits")
                log.info(
                    "langgraph_memory: turn %s in %s waits for its scope's lock: %r",
                    item.turn.id,
                    item.scope.key,
                    state.outcome.exception() if state.outcome is not None else None,
                )
                return
            failures += 1
            log.warning(
                "langgraph_memory: background write of turn %s in %s failed (attempt %d of %d): %r",
                item.turn.id,
                item.scope.key,
                failures,
                self.max_attempts,
                state.outcome.exception() if state.outcome is not None else None,
            )

        def stop(state: RetryCallState) -> bool:
            if locked(state):
                if lock_lost == "give back":
                    return True
                with self._cond:
                    return self._closed  # closing: the journal keeps the turn
            return failures >= self.max_attempts

        def wait(state: RetryCallState) -> float:
            if locked(state):
                return min(
                    MAX_LOCK_WAIT_S, self.backoff_s * self.backoff_factor**state.attempt_number
                )
            return float(self.backoff_s * self.backoff_factor ** (failures - 1))

        retrying = Retrying(
            retry=retry_if_exception_type(Exception),  # retried, then recorded: never dropped
            stop=stop,
            wait=wait,
            after=failed,
            before_sleep=lambda state: None if locked(state) else self._count("retries"),
        )
        try:
            retrying(attempt)
        except RetryError as exc:
            error = exc.last_attempt.exception()
            if isinstance(error, ScopeLockError):
                if lock_lost == "give back":
                    return "kept"  # counted as a lock wait already; the queue keeps it
                why = f"was not written: its scope was still locked at close ({error!r})"
                self._keep_for_next_start(item, why)
                return "kept"
            return self._record_failure(item, error if isinstance(error, Exception) else None)
        self._count("applied")
        return "applied"

    def _keep_for_next_start(self, item: _Item, why: str) -> None:
        """A turn neither applied nor recorded as failed (``why`` says what stopped
        it): counted as unrecorded; the journal replays it on the next start."""
        self._count("unrecorded")
        log.error(
            "langgraph_memory: turn %s in %s %s; %s",
            item.turn.id,
            item.scope.key,
            why,
            f"it stays in {self._shared.queue.describe()} for any writer on it"
            if self._shared is not None
            else "it stays in the journal for the next start"
            if self._journal is not None
            else "it is lost (no journal)",
        )

    def _started(self, item: _Item) -> bool:
        """Whether the decision log already has decisions of this turn."""
        return bool(self.writer.store.decisions(item.scope, turn_id=item.turn.id))

    def _record_failure(self, item: _Item, error: Exception | None) -> Outcome:
        decision = Decision(
            op=DecisionOp.NOOP,
            fact=_said(item.turn),
            status=Status.FAILED,
            error=f"background write failed after {self.max_attempts} attempts: {error!r}",
            turn_id=item.turn.id,
        )
        try:
            stores.internals(self.writer.store).log(item.scope, decision, now=item.turn.when)
        except Exception as exc:
            self._keep_for_next_start(
                item, f"failed ({error!r}) and its failure could not be logged ({exc!r})"
            )
            return "kept"
        self._count("failed")
        log.error(
            "langgraph_memory: turn %s in %s failed after %d attempts, logged as failed: %r",
            item.turn.id,
            item.scope.key,
            self.max_attempts,
            error,
        )
        return "failed"

    # -- the store's companion: purges, exports, imports ---------------------------------------

    def pending_turns(self, scope: ScopeLike) -> list[dict[str, Any]]:
        """The turns of ``scope`` accepted and not applied yet (the one a worker
        is applying first), as journal records: what ``export`` keeps of them.

        Args:
            scope: a ``Scope``, ``"kind:id"`` or a namespace tuple.

        Returns:
            The journal records of those turns, oldest first.
        """
        scope = Scope.of(scope)
        with self._cond:
            inflight = self._inflight.get(scope.key)
            items = ([inflight] if inflight else []) + list(self._queues.get(scope.key, ()))
        return [JournalEntry.of(scope.key, item.turn).record() for item in items]

    def requeue(self, record: Mapping[str, Any]) -> str:
        """Accept a turn from a journal record (an export's ``pending_turns``)
        again, with its id and time; returns the turn id. Pass it as
        ``store.import_scope(data, requeue=background.requeue)``.

        Args:
            record: a journal record of a turn, as ``pending_turns`` gives it.

        Returns:
            The turn's id.

        Raises:
            JournalError: ``record`` cannot be read as a turn.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> from langgraph_memory.write import MemoryWriter, RulesModel
        >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as bg:
        ...     record = {"t": "turn", "v": 1, "id": "t1", "scope": "user:b",
        ...               "messages": [["user", "I'm vegan."]], "when": "2026-01-05T00:00:00+00:00"}
        ...     bg.requeue(record), bg.flush()
        ('t1', True)
        >>> [m.text for m in store.active("user:b", episodes=False)]
        ['User is vegan.']
        """
        entry = JournalEntry.from_record(record)
        return self.submit(entry.scope, entry.turn(), turn_id=entry.turn_id)

    def purged(self, scope: ScopeLike, memory_ids: list[str] | None) -> None:
        """Called by the store after a purge (see ``MemoryStore.attach``).

        A whole scope: its queued turns are dropped, and the journal forgets
        them. Any purge: the journal is rewritten to hold pending turns only,
        so the words of turns already applied leave its file.

        Args:
            scope: the purged scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_ids: the ids of the purged memories; None: the whole scope.
        """
        scope = Scope.of(scope)
        if memory_ids is None:
            with self._cond:
                queue = self._queues.get(scope.key)
                dropped = list(queue or ())
                if queue is not None:
                    queue.clear()
                    if scope.key not in self._busy:  # else its worker removes it
                        del self._queues[scope.key]
                        self._ready.remove(scope.key)
                for item in dropped:
                    self._unfinished.pop(item.seq, None)
                self._counts["purged"] += len(dropped)
                self._cond.notify_all()
            if dropped:
                log.warning(
                    "langgraph_memory: dropped %d queued turns of the purged scope %s",
                    len(dropped),
                    scope.key,
                )
        if self._journal is not None:
            self._journal.purged(scope, memory_ids)

    def _done(self, item: _Item) -> None:
        if self._journal is None:
            return
        try:
            self._journal.done(item.turn.id)
        except OSError as exc:  # harmless: a replay finds the turn in the decision log
            log.warning("langgraph_memory: could not mark turn %s done: %r", item.turn.id, exc)

    def _count(self, name: str) -> None:
        with self._cond:
            self._counts[name] += 1


def _said(turn: Turn) -> str:
    """The turn's words for a failed decision, so the failure can be acted on."""
    text = "\n".join(f"{m.role}: {m.content}" for m in turn.messages)
    return text[:MAX_TEXT_CHARS]


def _check_number(value: object, what: str, low: float, unit: str = "") -> None:
    """A finite number (not a bool) of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(
            f"{what} must be a number >= {low}{unit}, got {type(value).__name__}: {value!r}"
        )
    if not low <= value < 1e308:  # NaN, inf and ints too large for a float all fail
        raise InvalidArgumentError(f"{what} must be >= {low}{unit} and finite, got {value!r}")


def _check_journal(journal: object) -> None:
    """Refuse a ``journal=`` that is none of what ``BackgroundWriter`` takes, before
    anything opens it."""
    if not isinstance(journal, (Journal, str, os.PathLike, bool)) and journal is not None:
        raise InvalidTypeError(
            "journal must be True (the store's journal), False or None (none), a file "
            f"path or a Journal, got {type(journal).__name__}: {journal!r}"
        )


def _open_journal(
    journal: Journal | str | os.PathLike[str] | bool | None, store: MemoryStore
) -> Journal | None:
    """The journal a writer on ``store`` keeps (see ``BackgroundWriter``'s ``journal``)."""
    if journal is None or journal is False:
        return None
    if isinstance(journal, Journal):
        return journal
    if journal is not True:
        return Journal(journal)
    path = journal_path(store)
    if path is None:
        return None
    try:
        return Journal(path)
    except StoreLockedError:
        raise StoreLockedError(
            f"another BackgroundWriter on the store {store.path} holds its journal {path}: "
            "close it first (one background writer per store), or give this one "
            "journal=<another file> or journal=False"
        ) from None
