"""The store's internals (``internals(store)``): what the package's own read and
write paths need of the engine under a ``MemoryStore``, and what the store's users
do not.

``MemoryStore`` is the user's face (add, get, retrieve through ``read.retrieve``,
archive, purge, export ...). Beneath it the read path needs candidates from the
dense and the lexical index, the records of the ones it keeps, and a write of when
they were read; the write path needs the scope's lock and generation, the memories
similar to a fact, the query vector computed once, and the decision log. They are
here, on the ``Internals`` that ``internals(store)`` returns, so that none of them widens
the store's face. Lifecycle jobs, the CLI and the benchmarks' ablations (dense
alone, BM25 alone) use it too; it follows the store's releases but promises less:
a method may change when the read or write path needs it to.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore, internals
>>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> _ = s.add("user:bob", "User is vegetarian.")
>>> [h.memory.text for h in internals(s).nearest("user:bob", "What does Bob eat?", k=1)]
['User is vegetarian.']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from langgraph_memory.checks import MAX_K, check_ids, check_k, check_seconds
from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.records import Decision, Memory, Scalar, check_metadata, now_utc, utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import lexical
from langgraph_memory.store.chroma import (
    NOT_EPISODE,
    USER_PREFIX,
    RawClient,
    all_of,
    fetch,
    metadata_clauses,
    query,
    similar,
    to_epoch,
)
from langgraph_memory.store.engine import (
    AccessLog,
    Candidates,
    Companion,
    ScopeLock,
    SharedQueue,
    StoreCore,
    every_version,
    fresh_method,
    gather,
    read_method,
    records,
)
from langgraph_memory.store.engine import rule_cache as rules
from langgraph_memory.store.version import Hit

__all__ = ["Internals"]


class Internals:
    """The internals of one ``MemoryStore`` (see the module's docstring);
    ``internals(store)`` gives it. It shares the store's core: closing the store
    closes it, and an admin view's handle writes as an admin.
    """

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    @property
    def embedder_name(self) -> str:
        """The name under which the store records its embedder (another is refused)."""
        return self._core.embedder_name

    @property
    def client(self) -> RawClient:
        """The Chroma client this store writes through (Chroma's own, not the door:
        for a caller that reaches its collections directly)."""
        return cast(RawClient, self._core.engine.client.raw)

    @property
    def data_name(self) -> str:
        """What other processes' stores on the same data share: a Chroma server's tenant
        and database (``"tenant/database"``), or ``""`` for an embedded store, which is
        one process's alone. Shared locks and queues key their entries by it.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> internals(MemoryStore(tempfile.mkdtemp(),
        ...                       embeddings=DeterministicFakeEmbedding(size=8))).data_name
        ''
        """
        return self._core.engine.scope_locks.where

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

    def embed_query(self, query: str | Sequence[float]) -> list[float]:
        """A query's vector from the store's embedder (a vector passes through,
        checked): compute it once to ask several questions of the store.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> len(internals(s).embed_query("Where do I live?"))
        8
        """
        return self._core.embed_query(query)

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

    @read_method
    def vectors(self, scope: ScopeLike, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of active memories by id, in one read (ids that name
        no active memory are left out): to compare memories with one another
        without embedding their texts again.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> [len(v) for v in internals(s).vectors("user:a", [m.id, "0a0a0a0a"]).values()]
        [8]
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        cols = self._core.collections(scope)
        if cols is None or not ids:
            return {}
        found = fetch(cols.active, scope, ids=ids, with_vector=True)
        return {v.memory.id: v.vector for v in found if v.vector is not None}

    @read_method
    def nearest(
        self,
        scope: ScopeLike,
        query_or_vector: str | Sequence[float],
        k: int = 5,
        *,
        as_of: datetime | None = None,
        ids: Sequence[str] | None = None,
        episodes: bool = True,
    ) -> list[Hit]:
        """The ``k`` memories most similar to a query text or vector, best first.

        Without ``as_of`` it searches the active memories; with it, the versions
        that were valid at that time (closed ones included). ``ids`` restricts
        the search to those active memories (to score known candidates).
        ``episodes=False`` leaves episodes out (see ``Memory.is_episode``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:a", "Likes tea.")
        >>> [round(h.score, 3) for h in internals(s).nearest("user:a", "Likes tea.", k=3)]
        [1.0]
        """
        scope = Scope.of(scope)
        check_k(k)
        vector = self.embed_query(query_or_vector)
        cols = self._core.collections(scope)
        if cols is None:
            return []
        if ids is not None:
            # Scored from the records themselves: an id archived or purged since
            # the caller found it is skipped (Chroma's query fails on it).
            wanted = check_ids(ids)
            found = similar(cols.active, scope, vector, len(wanted), wanted)
            return [h for h in found if episodes or not h.memory.is_episode][:k]
        kept = [] if episodes else [NOT_EPISODE]
        if as_of is None:
            return query(cols.active, scope, vector, k, where=all_of(kept))
        t = to_epoch(utc(as_of, "as_of"))
        opened = {"created_at": {"$lte": t}}
        hits = query(cols.active, scope, vector, k, where=all_of([opened, *kept]))
        valid = [opened, {"valid_until": {"$gt": t}}, *kept]
        hits += query(cols.history, scope, vector, k, where=all_of(valid))
        return sorted(hits, key=lambda h: -h.score)[:k]

    @read_method
    def keyword(
        self, scope: ScopeLike, terms: str | Sequence[str], k: int = 5, *, episodes: bool = True
    ) -> list[Hit]:
        """The ``k`` active memories that best match ``terms`` by BM25, best first.

        ``terms`` is a text or a list of terms. Both are tokenised as the scope's
        lexical index is (case-folded words, numbers and ids; common words out; light
        stemming), and a memory is indexed under its text and its event date (else
        its creation date) in words ("2023-05-08 8 May 2023"); an episode also under
        the texts of the facts that name it in ``sources``. An 8-hex-digit term finds
        the memory with that id, first. Scores lie in [0, 1]: BM25 divided by the
        most the query's terms could score (see ``store/lexical/index.py``).
        ``episodes=False`` leaves episodes out (see ``Memory.is_episode``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", ["Flight LH-761 leaves at 7.", "User likes Pune."])
        >>> [h.memory.text for h in internals(s).keyword("user:a", "When is LH-761?")]
        ['Flight LH-761 leaves at 7.']
        """
        check_k(k)
        scope = Scope.of(scope)
        if episodes:
            return lexical.search(self._core, scope, terms, k)
        # Episodes left out after the search: ask for more, so k facts remain.
        hits = lexical.search(self._core, scope, terms, min(MAX_K, 4 * k))
        return [h for h in hits if not h.memory.is_episode][:k]

    def candidates(
        self,
        scope: ScopeLike,
        query_or_vector: str | Sequence[float],
        terms: str,
        k: int = 50,
        *,
        lexical: bool = True,
        speakers: bool = True,
    ) -> Candidates:
        """What a fused ranking compares, by id: the ``k`` active memories nearest
        to the query (a text or its vector), the ``k`` best for ``terms`` by keyword
        (with ``lexical``), and the pinned ones; each with its cosine and, when the
        keyword search returned it, its keyword score; with ``speakers``, who said each
        (a ranking that boosts no one's words can skip that lookup). No record is
        read: read those a ranking keeps with ``get_memories`` (see
        ``store/engine/candidates.py``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> flight = s.add("user:a", "Flight LH-761 leaves at 7.")
        >>> _ = s.add("user:a", "User likes Pune.")
        >>> found = internals(s).candidates("user:a", "flight", "When is LH-761?", k=1)
        >>> list(found.lexical) == [flight.id], len(found.dense)
        (True, 2)
        """
        check_k(k)
        scope = Scope.of(scope)
        # Before the read (and its retry, see _fresh): the query is embedded once. Not
        # in a thread beside the lexical lookup: on 2 cores the two slowed each other
        # more than they overlapped (retrieve / (embed + nearest) at 10k real-text
        # turns 1.60x and 1.53x in a thread, 1.39x and 1.48x after, same runs).
        vector = self._core.embed_query(query_or_vector)
        return self._gather(scope, vector, terms, k, lexical, speakers)

    @read_method
    def _gather(
        self, scope: Scope, vector: list[float], terms: str, k: int, lexical: bool, speakers: bool
    ) -> Candidates:
        return gather(self._core, scope, vector, terms, k, lexical=lexical, speakers=speakers)

    @read_method
    def citing(self, scope: ScopeLike, memory_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The active memories whose ``sources`` name each of ``memory_ids`` (the facts
        taken from an episode, and those that carry it from the version they replaced),
        by id; an id nothing names is left out. One lookup in the scope's lexical index.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> said = s.add("user:a", "I moved to Pune.", kind="episodic", metadata={"episode": True})
        >>> fact = s.add("user:a", "User lives in Pune.", sources=[said.id])
        >>> internals(s).citing("user:a", [said.id, fact.id]) == {said.id: (fact.id,)}
        True
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        cols = self._core.collections(scope)
        if cols is None or not ids:
            return {}
        engine = self._core.live()
        with engine.lexicon.ready(cols, engine.registry) as index:
            return index.citing(ids)

    @read_method
    def rules(self, scope: ScopeLike) -> tuple[Memory, ...]:
        """The scope's active rules (procedural memories): pinned first, then the most
        recent first. Read from Chroma once per change of the scope, then kept
        (``store/engine/rule_cache.py``): what every read renders costs no query.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:a", "User wants answers in metric units.", kind="procedural")
        >>> _ = s.add("user:a", "User lives in Pune.")
        >>> [m.text for m in internals(s).rules("user:a")]
        ['User wants answers in metric units.']
        """
        scope = Scope.of(scope)
        cols = self._core.collections(scope)
        if cols is None:
            return ()
        engine = self._core.live()
        with engine.lexicon.ready(cols, engine.registry) as index:
            generation = index.generation
        cached = engine.rules.get(scope.key, generation)
        if cached is not None:
            return cached
        # Read after the generation: a write in between leaves a newer generation, so
        # the next read reads again; the cache never holds older rules than its key.
        found = rules.read_rules(cols, scope)
        engine.rules.put(scope.key, generation, found)
        return found

    @read_method
    def get_memories(self, scope: ScopeLike, memory_ids: Sequence[str]) -> dict[str, Memory]:
        """The active memories with these ids, by id in the order asked, in one read
        (an id that names no active memory is left out).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> [x.text for x in internals(s).get_memories("user:a", [m.id, "0a0a0a0a"]).values()]
        ['Likes tea.']
        """
        return records(self._core, Scope.of(scope), check_ids(memory_ids, "memory_ids"))

    @read_method
    def versions(self, scope: ScopeLike) -> list[Memory]:
        """Every version of the scope, active and closed, oldest first (what
        ``find(scope, archived=True)`` returns), read for a view of a whole person:
        the active ones from the scope's lexical index where this process keeps it in
        step alone (an embedded store), as a read's records are, the rest from Chroma.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> old = s.add("user:a", "Lives in Delhi.")
        >>> _ = s.update("user:a", old.id, "Lives in Pune.")
        >>> [(m.text, m.active) for m in internals(s).versions("user:a")]
        [('Lives in Delhi.', False), ('Lives in Pune.', True)]
        """
        return every_version(self._core, Scope.of(scope))

    @read_method
    def term_shares(self, scope: ScopeLike, words: Sequence[str]) -> dict[str, float]:
        """The share of the scope's active memories whose lexical document holds each
        word (a name in most of a conversation's turns has a share near 1).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", ["Ann likes tea.", "Ann has a cat.", "Bob sings."])
        >>> shares = internals(s).term_shares("user:a", ["Ann", "Bob", "Zed"])
        >>> {w: round(x, 2) for w, x in shares.items()}
        {'Ann': 0.67, 'Bob': 0.33, 'Zed': 0.0}
        """
        if isinstance(words, str) or not isinstance(words, Iterable):
            raise InvalidTypeError(
                f"words must be a list of str, e.g. ['Ann'], got {type(words).__name__}: {words!r}"
            )
        words = list(words)
        for word in words:
            if not isinstance(word, str):
                raise InvalidTypeError(f"words must be str, got {type(word).__name__}: {word!r}")
        return lexical.shares(self._core, Scope.of(scope), words)

    @read_method
    def find(
        self,
        scope: ScopeLike,
        *,
        metadata: Mapping[str, Scalar | Sequence[Scalar]] | None = None,
        created_before: datetime | None = None,
        created_after: datetime | None = None,
        archived: bool = False,
    ) -> list[Memory]:
        """The scope's active memories whose ``metadata`` holds all the given
        values (a list of values: any of them), oldest first (one read per
        collection); with ``created_before`` (``created_after``), only those created
        earlier (later); with ``archived=True``, closed versions too.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", [{"text": "Likes tea.", "metadata": {"topic": "food"}},
        ...                           {"text": "Has a cat.", "metadata": {"topic": "pets"}}])
        >>> [m.text for m in internals(s).find("user:a", metadata={"topic": "pets"})]
        ['Has a cat.']
        >>> len(internals(s).find("user:a", metadata={"topic": ["pets", "food"]}))
        2
        """
        scope = Scope.of(scope)
        clauses = metadata_clauses(metadata)
        if any(v == {"$in": []} for clause in clauses for v in clause.values()):
            return []  # any of no values: nothing (Chroma refuses an empty $in)
        if created_before is not None:
            before = to_epoch(utc(created_before, "created_before"))
            clauses.append({"created_at": {"$lt": before}})
        if created_after is not None:
            after = to_epoch(utc(created_after, "created_after"))
            clauses.append({"created_at": {"$gt": after}})
        cols = self._core.collections(scope)
        if cols is None:
            return []
        where = all_of(clauses)
        found = fetch(cols.active, scope, where=where)
        if archived:
            found += fetch(cols.history, scope, where=where)
        return sorted((v.memory for v in found), key=lambda m: (m.created_at, m.id))

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
