"""What writers coordinate with, under ``internals(store)``: the scope's lock and
generation (a purge since?), the shared queue and the cross-process lock, marks
and touches written in place, the access log, the decision log, and the
companions (a background writer) a purge must reach.

``Internals`` (``store/internals_face.py``) is a ``Searches`` and a
``Coordination``; this holds the second.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore, internals
>>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> isinstance(internals(s), Coordination)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from langgraph_memory.checks import check_ids, check_seconds
from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.records import Decision, Scalar, check_metadata, now_utc, utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store.chroma import (
    USER_PREFIX,
)
from langgraph_memory.store.engine.access_log import AccessLog
from langgraph_memory.store.engine.core import StoreCore, fresh_method, read_method
from langgraph_memory.store.engine.engine import Companion
from langgraph_memory.store.engine.scope_locks import ScopeLock
from langgraph_memory.store.engine.shared_queue import SharedQueue

__all__ = ["Coordination"]


class Coordination:
    """What writers coordinate with (see the module's docstring)."""

    _core: StoreCore

    @property
    def cross_process_lock(self) -> str | None:
        """What serialises a scope's writes across processes (for messages), or None
        when only this process's own lock does (no ``lock=`` URL).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> print(internals(MemoryStore(tempfile.mkdtemp(),
        ...                 embeddings=DeterministicFakeEmbedding(size=8))).cross_process_lock)
        None
        """
        locks = self._core.engine.scope_locks
        return None if locks.cross is None else locks.describe()

    @property
    def shared_queue(self) -> SharedQueue | None:
        """Where deferred turns of this store wait when processes share them
        (``MemoryStore(queue=...)``, ``$LANGGRAPH_MEMORY_QUEUE_URL``); None: each
        background writer keeps its own queue and journal.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> print(internals(MemoryStore(tempfile.mkdtemp(),
        ...                 embeddings=DeterministicFakeEmbedding(size=8))).shared_queue)
        None
        """
        return self._core.engine.shared_queue

    def scope_lock(self, scope: ScopeLike) -> ScopeLock:
        """The lock that serialises writes to one scope: within this process, and
        across processes when the store has a lock URL (``MemoryStore(lock=...)``,
        ``$LANGGRAPH_MEMORY_LOCK_URL``; see ``store/engine/scope_locks.py``).

        Hold it to make a read-decide-write sequence atomic (the write path
        does: two turns stating the same new fact at once make one memory).
        Re-entrant, so store methods called while holding it still work. Every
        ``MemoryStore`` on the same directory in a process shares it.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> with internals(s).scope_lock("user:a"):
        ...     _ = s.add("user:a", "Likes tea.")
        """
        return self._core.live().scope_lock(Scope.of(scope))

    @read_method
    def scope_generation(self, scope: ScopeLike) -> str:
        """A value that changes whenever the whole scope is purged: by this process,
        or, on a Chroma server that other processes share, by another one (its
        registry entry goes, and the next write makes a new one). A write that read
        it before its work and finds it changed under ``scope_lock`` began before a
        purge, and must not bring the purged person back: the write path drops it.
        Compare two values for equality only.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:a", "Likes tea.")
        >>> before = internals(s).scope_generation("user:a")
        >>> _ = s.purge("user:a")
        >>> internals(s).scope_generation("user:a") == before
        False
        """
        scope = Scope.of(scope)
        live = self._core.live()
        purged_here = live.erasures(scope)
        if self._core.engine.path is not None:
            # An embedded store (or a persistent client's directory) is locked to
            # this process: no other can purge it.
            return str(purged_here)
        return f"{purged_here}:{live.registered_at(scope)}"

    def purged_since(self, scope: ScopeLike, generation: str) -> bool:
        """Whether the whole scope was purged since ``scope_generation`` gave
        ``generation`` (call it holding ``scope_lock``). A scope that had no registry
        entry then and has one now was made meanwhile, by another process, not purged:
        what is left unseen is another process making it, purging it and making it
        again within one write's work.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> before = internals(s).scope_generation("user:a")
        >>> _ = s.add("user:a", "Likes tea.")
        >>> internals(s).purged_since("user:a", before)
        False
        >>> _ = s.purge("user:a")
        >>> internals(s).purged_since("user:a", before)
        True
        """
        if not isinstance(generation, str):
            raise InvalidTypeError(
                "generation must be what scope_generation returned (a str), got "
                f"{type(generation).__name__}"
            )
        now = self.scope_generation(scope)
        if now == generation:
            return False
        here_then, _, registered_then = generation.partition(":")
        here_now, _, _ = now.partition(":")
        return here_then != here_now or registered_then != "None"

    @fresh_method
    def touch(
        self, scope: ScopeLike, memory_ids: Iterable[str], *, now: datetime | None = None
    ) -> None:
        """Set ``last_accessed`` of active memories in one write (unknown ids are skipped).

        >>> import tempfile
        >>> from datetime import datetime, timezone
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> internals(s).touch("user:a", [m.id], now=datetime(2030, 1, 1, tzinfo=timezone.utc))
        >>> s.get_memory("user:a", m.id).last_accessed.year
        2030
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        when = utc(now, "now") if now is not None else now_utc()
        if ids:
            self._core.live().touch(scope, ids, when)

    def note_access(
        self, scope: ScopeLike, memory_ids: Iterable[str], *, now: datetime | None = None
    ) -> None:
        """Note that memories were read at ``now``: ``touch`` done after the read, by a
        thread of the store, within a second (``store/engine/access_log.py``); returns at once.
        A noted time is lost only if the process dies before it is written.

        >>> import tempfile
        >>> from datetime import datetime, timezone
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> later = datetime(2030, 1, 1, tzinfo=timezone.utc)
        >>> internals(s).note_access("user:a", [m.id], now=later)
        >>> internals(s).flush_access("user:a")
        True
        >>> s.get_memory("user:a", m.id).last_accessed.year
        2030
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        self._core.live().access.note(scope, ids, utc(now, "now") if now is not None else now_utc())

    def mark(self, scope: ScopeLike, marks: Mapping[str, Mapping[str, Scalar]]) -> None:
        """Merge bookkeeping into the metadata of active memories, in place and in one
        write (ids of no active memory are skipped): what the write path keeps up to
        date on an episode (how many times it was said and when last, when a fact taken
        from it was retracted; see ``records``), which is no new version, since neither
        its text nor what it says changes.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Where do I live?", metadata={"episode": True})
        >>> internals(s).mark("user:a", {m.id: {"said_count": 2}})
        >>> sorted(s.get_memory("user:a", m.id).metadata.items())
        [('episode', True), ('said_count', 2)]
        """
        scope = Scope.of(scope)
        if not isinstance(marks, Mapping):
            raise InvalidTypeError(
                f"marks must be a dict of memory id -> metadata, got {type(marks).__name__}"
            )
        ids = check_ids(list(marks), "marks")
        changes = {
            i: {USER_PREFIX + k: v for k, v in check_metadata(marks[i]).items()} for i in ids
        }
        self._core.live().patch(scope, changes)

    @property
    def access_log(self) -> AccessLog:
        """The access times reads noted and a thread writes (``store/engine/access_log.py``)."""
        return self._core.live().access

    def flush_access(self, scope: ScopeLike | None = None, timeout: float | None = 10.0) -> bool:
        """Write the access times noted so far (of ``scope`` only, if given) now; False
        if that took past ``timeout`` seconds. Decay and export call it first."""
        wanted = None if scope is None else Scope.of(scope)
        return self._core.live().access.flush(wanted, check_seconds(timeout))

    @fresh_method
    def log(
        self,
        scope: ScopeLike,
        decisions: Decision | Sequence[Decision],
        *,
        now: datetime | None = None,
    ) -> list[Decision]:
        """Append decisions to the scope's decision log, in one write.

        Each logged decision gets an ``id`` and, unless it has one, ``created_at = now``.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> from langgraph_memory.records import DecisionOp
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> noted = Decision(op=DecisionOp.NOOP, fact="User likes tea.")
        >>> [d.op for d in internals(s).log("user:a", noted)]
        [<DecisionOp.NOOP: 'NOOP'>]
        """
        scope = Scope.of(scope)
        batch = [decisions] if isinstance(decisions, Decision) else list(decisions)
        if not batch:
            return []
        for d in batch:
            if not isinstance(d, Decision):
                raise InvalidTypeError(
                    f"log() takes Decision objects, e.g. Decision(op=DecisionOp.NOOP, fact=...), "
                    f"got {type(d).__name__}"
                )
        when = utc(now, "now") if now is not None else now_utc()
        return self._core.append_log(scope, batch, when)

    def attach(self, companion: Companion) -> None:
        """Keep ``companion`` informed of this store's location (held weakly):
        ``companion.purged(scope, memory_ids)`` after every purge (``memory_ids``
        None for a whole scope), and ``companion.pending_turns(scope)`` asked by
        ``export``. A ``BackgroundWriter`` attaches itself, so that a purge
        reaches its queue and journal and an export holds its queued turns.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> class Echo:
        ...     def purged(self, scope, memory_ids):
        ...         print(scope, memory_ids)
        ...     def pending_turns(self, scope):
        ...         return []
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> echo = Echo()
        >>> internals(s).attach(echo)
        >>> _ = s.purge("user:a")
        user:a None
        """
        if not all(callable(getattr(companion, m, None)) for m in ("purged", "pending_turns")):
            raise InvalidTypeError(
                "attach() takes a companion with purged(scope, memory_ids) and "
                f"pending_turns(scope) methods (a BackgroundWriter), got {type(companion).__name__}"
            )
        self._core.live().attach(companion)

    def pending_turns(self, scope: ScopeLike) -> list[dict[str, Any]]:
        """Turns of the scope that a background writer on this store accepted and
        has not applied yet, oldest first, as journal records.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> internals(s).pending_turns("user:a")
        []
        """
        scope = Scope.of(scope)
        return [t for c in self._core.live().companions() for t in c.pending_turns(scope)]
