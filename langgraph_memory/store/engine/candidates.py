"""A read's candidates: what the dense and the lexical index find for one query, each
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from langgraph_memory.records import ASKS, Memory
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import (
    USER_PREFIX,
    cosines,
    fetch,
    layout,
    nearest_ids,
    stored_vectors,
    version_from_record,
)
from langgraph_memory.store.engine.core import StoreCore
from langgraph_memory.store.lexical import LexicalIndex, query_of

__all__ = ["Candidates", "gather", "records"]


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
    dense = nearest_ids(cols.active, vector, k)
    # One ``ready`` for the whole read: on a server each one reads the scope's
    # registry record to see whether other processes wrote.
    with core.live().lexicon.ready(cols, core.engine.registry) as index:
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
        ids, vectors = _vectors(cols, index, wanted, local=not core.live().lexicon.shared)
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
