"""What the read path asks of a scope, under ``internals(store)``: the query's
vector, nearest and keyword searches, a fused read's candidates and the records
it keeps, the scope's rules, the facts that cite an episode, term shares.

``Internals`` (``store/internals_face.py``) is a ``Searches`` and a
``Coordination``; this holds the first.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore, internals
>>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> isinstance(internals(s), Searches)
True

**A read's candidates**: what the dense and the lexical index find for one query, each
with both scores, read without their records.

A fused ranking compares every candidate on both sides, so a memory that only the
lexical index found needs its cosine too, and the pinned memories come along. Their
records (text and metadata, most of what a read costs) are not needed to fuse the
scores: the ranking reads them afterwards for the few candidates that can still make
its first places (``records``). Here it takes one Chroma query for the nearest ids and
their distances, one lookup in the scope's lexical index (scores, and the pinned ids it
keeps), the stored vectors of the candidates the Chroma query did not return (from the
index's copy of its records on an embedded store, from Chroma on a server), and, when
the ranking boosts what a named person said, a last lookup in the index for the
candidates' speakers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from langgraph_memory.checks import MAX_K, check_ids, check_k
from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.records import ASKS, Memory, Scalar, utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import lexical
from langgraph_memory.store.chroma import (
    NOT_EPISODE,
    USER_PREFIX,
    all_of,
    cosines,
    fetch,
    layout,
    metadata_clauses,
    nearest_ids,
    query,
    similar,
    stored_vectors,
    to_epoch,
    version_from_record,
)
from langgraph_memory.store.engine import rule_cache as rules
from langgraph_memory.store.engine.core import StoreCore, read_method
from langgraph_memory.store.lexical import LexicalIndex, query_of
from langgraph_memory.store.version import Hit

__all__ = ["Candidates", "Searches", "every_version", "gather", "records"]


class Searches:
    """What the read path asks of a scope (see the module's docstring)."""

    _core: StoreCore

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
        ``gather``).

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


# -- a read's candidates -----------------------------------------------------------------


@dataclass(frozen=True)
class Candidates:
    """The memories a read may rank, by id: ``dense`` holds every candidate's cosine
    to the query (the dense finds first, best first), ``lexical`` the keyword score
    (BM25 in [0, 1], see ``MemoryStore.keyword``) of those the lexical index returned
    among the best, ``pinned`` the scope's pinned memories (all candidates), and
    ``speakers`` who said each candidate that has a speaker (``metadata["speaker"]``;
    empty unless asked for), and ``asks`` the candidates that are episodes of a turn
    which only asked or made small talk (``records.ASKS``), with their words."""

    dense: dict[str, float] = field(default_factory=dict)
    lexical: dict[str, float] = field(default_factory=dict)
    pinned: tuple[str, ...] = ()
    speakers: dict[str, str] = field(default_factory=dict)
    asks: dict[str, str] = field(default_factory=dict)


def gather(
    core: StoreCore,
    scope: Scope,
    vector: list[float],
    terms: str,
    k: int,
    *,
    lexical: bool,
    speakers: bool,
) -> Candidates:
    """The ``k`` nearest to ``vector``, the ``k`` best for ``terms`` (when ``lexical``)
    and every pinned memory of ``scope``, each once, with their scores (and their
    speakers, when ``speakers``)."""
    cols = core.collections(scope)
    if cols is None:
        core.live().lexicon.forget(scope)  # purged by another process: let go of its index
        return Candidates()
    ranked: dict[str, float] = {}
    local = not core.live().lexicon.shared
    # One ``ready`` for the whole read: on a server each one reads the scope's
    # registry record to see whether other processes wrote.
    with core.live().lexicon.ready(cols, core.engine.registry) as index:
        dense = _nearest(cols, index, vector, k, local=local)
        if lexical:
            words, named = query_of(terms)
            ranked = dict.fromkeys(named, 1.0)  # a memory named by its id, first
            for record_id, score in index.search(words, k):
                ranked.setdefault(record_id, score)
        pinned = index.pinned()
        # The others' cosines from their stored vectors (the nearest have theirs): an
        # id archived or purged since the index named it (or a word that only looked
        # like an id) has none and is no candidate.
        wanted = [i for i in dict.fromkeys([*ranked, *pinned]) if i not in dense]
        ids, vectors = _vectors(cols, index, wanted, local=local)
        dense.update(cosines(ids, vectors, vector))
        said = index.speakers(list(dense)) if speakers else {}
        asks = index.marked(list(dense), USER_PREFIX + ASKS)
    return Candidates(
        dense=dense,
        lexical={i: s for i, s in ranked.items() if i in dense},
        pinned=tuple(i for i in pinned if i in dense),
        speakers=said,
        asks=asks,
    )


#: A scope of its own with at most this many active memories is ranked exactly from the
#: vectors its index file holds, where this process keeps it in step alone (see
#: ``_nearest``). Measured here (384 dimensions, top 10, warm): from the file 0.11 /
#: 0.23 / 0.43 / 2.7 ms at 64 / 200 / 500 / 1,000 memories, against Chroma's vector
#: index 0.77 / 0.70 / 0.92 / 1.5 ms; and Chroma's first query of a scope in a process
#: loads that index from disk (34 ms p50 at 100,000 people, 4.8 at 1,000).
EXACT_AT = 512


def _nearest(
    cols: layout.ScopeCollections, index: LexicalIndex, vector: list[float], k: int, *, local: bool
) -> dict[str, float]:
    """The ``k`` active memories nearest to ``vector`` and their cosines, best first.

    A scope in a bucket is ranked exactly, from every vector it holds (see
    ``ScopedCollection.nearest``): where this process keeps the scope's index in step
    alone, the index holds those vectors, and ranking them here spares the read of
    the scope's records that Chroma would answer (the largest part of a warm read in
    a bucket). The same ranking: cosine, ties in the order held. So is a scope of its
    own up to ``EXACT_AT`` memories, from its index file: Chroma's approximate index
    pays off only above that."""
    exact = local and (cols.bucket is not None or len(index) <= EXACT_AT)
    held = index.all_vectors() if exact else None
    if held is None:
        return nearest_ids(cols.active, vector, k)
    ids, rows = held
    scores = cosines(ids, rows, vector)
    best = sorted(scores.items(), key=lambda item: -item[1])[: max(0, k)]
    return dict(best)


def _vectors(
    cols: layout.ScopeCollections, index: LexicalIndex, ids: list[str], *, local: bool
) -> tuple[list[str], Any]:
    """The ids among ``ids`` that are active, and their vectors: from the index when
    this process keeps it in step alone (a store with a directory), from Chroma on a
    server (another process may have archived one since this one last looked) and for
    an entry that lacks its vector."""
    if not local:
        return stored_vectors(cols.active, ids)
    found, rows = index.vectors(ids)
    if len(found) == len(ids):
        return found, rows
    held = set(found)
    more, more_rows = stored_vectors(cols.active, [i for i in ids if i not in held])
    if not found:
        return more, more_rows
    if not more:
        return found, rows
    return found + more, np.vstack([rows, more_rows])


def every_version(core: StoreCore, scope: Scope) -> list[Memory]:
    """Every version of the scope, active and closed, oldest first: the active ones
    from the scope's index where it holds them and this process keeps it in step
    alone (as :func:`records`), the rest from Chroma. A page that shows a whole person
    reads 5,000 active records from the index in a tenth of Chroma's time."""
    cols = core.collections(scope)
    if cols is None:
        return []
    lexicon = core.live().lexicon
    active: list[Memory] = []
    missing: list[str] | None = None  # None: every active record comes from Chroma
    if not lexicon.shared:
        with lexicon.ready(cols, core.engine.registry) as index:
            held, missing = index.all_records()
        active = [version_from_record(i, d, json.loads(m), scope.key).memory for i, d, m in held]
    if missing is None:
        found = fetch(cols.active, scope)
    else:
        found = fetch(cols.active, scope, ids=missing) if missing else []
    found += fetch(cols.history, scope)
    versions = active + [v.memory for v in found]
    return sorted(versions, key=lambda m: (m.created_at, m.id))


def records(core: StoreCore, scope: Scope, ids: Sequence[str]) -> dict[str, Memory]:
    """The active memories with these ids, by id in the order asked (an id that names
    no active memory is left out): from the scope's index where it holds them and
    this process keeps it in step alone (see ``_vectors``), else from Chroma."""
    cols = core.collections(scope)
    if cols is None or not ids:
        return {}
    found: dict[str, Memory] = {}
    lexicon = core.live().lexicon
    if not lexicon.shared:
        with lexicon.ready(cols, core.engine.registry) as index:
            for i, document, meta in index.records(ids):
                found[i] = version_from_record(i, document, json.loads(meta), scope.key).memory
    rest = [i for i in ids if i not in found]
    if rest:
        found.update({v.memory.id: v.memory for v in fetch(cols.active, scope, ids=rest)})
    return {i: found[i] for i in ids if i in found}
