"""A read's candidates: what the dense and the lexical index find for one query, each
with both scores, in the fewest reads.

A fused ranking compares every candidate on both sides, so a memory that only the
lexical index found needs its cosine too, and the pinned memories come along. Asked
one by one (a dense query, a keyword search that reads its records, a second read for
the vectors of the lexical finds, a metadata scan for the pinned ones) that took four
Chroma calls; here it takes one Chroma query (the dense side, records included), one
lookup in the scope's lexical index (scores, and the pinned ids it keeps), and at most
one Chroma read: the records the dense side did not return, with their vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph_memory.model import Memory
from langgraph_memory.scope import Scope
from langgraph_memory.store.collection_io import query, similar
from langgraph_memory.store.core import StoreCore
from langgraph_memory.store.keyword import query_of

__all__ = ["Candidate", "gather"]


@dataclass(frozen=True)
class Candidate:
    """A memory a read may rank: its cosine to the query, and its keyword score
    (BM25 in [0, 1], see ``MemoryStore.keyword``) when the lexical index returned
    it among the best, else None."""

    memory: Memory
    dense: float
    lexical: float | None = None


def gather(
    core: StoreCore, scope: Scope, vector: list[float], terms: str, k: int, *, lexical: bool
) -> list[Candidate]:
    """The ``k`` nearest to ``vector``, the ``k`` best for ``terms`` (when
    ``lexical``) and every pinned memory of ``scope``, each once, dense first."""
    cols = core.collections(scope)
    if cols is None:
        core.live().lexicon.forget(scope)  # purged by another process: let go of its index
        return []
    nearest = query(cols.active, scope, vector, k, where=None)
    found = {h.memory.id: Candidate(h.memory, h.score) for h in nearest}
    ranked: dict[str, float] = {}
    with core.live().lexicon.ready(cols, core.engine.registry) as index:
        if lexical:
            words, named = query_of(terms)
            ranked = dict.fromkeys(named, 1.0)  # a memory named by its id, first
            for record_id, score in index.search(words, k):
                ranked.setdefault(record_id, score)
        pinned = index.pinned()
    missing = [i for i in dict.fromkeys([*ranked, *pinned]) if i not in found]
    # Scored from the records themselves: an id archived or purged since the index
    # named it is skipped.
    for hit in similar(cols.active, scope, vector, len(missing), missing) if missing else []:
        found[hit.memory.id] = Candidate(hit.memory, hit.score)
    return [Candidate(c.memory, c.dense, ranked[i]) if i in ranked else c for i, c in found.items()]
