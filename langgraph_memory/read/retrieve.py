"""Retrieval: the memories of a scope worth putting in front of the model.

Candidates are the scope's vector neighbours of the query plus its keyword
hits (names, numbers and ids embed badly). Each is scored by recency,
relevance and importance (see ``scoring``); pinned memories always come first,
in a short bounded list. Reading a memory refreshes its ``last_accessed``, in
one batched write.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> _ = store.add("user:a", "User is allergic to peanuts.", importance=0.9, pinned=True)
>>> _ = store.add("user:a", "User lives in Pune.")
>>> [r.memory.text for r in retrieve(store, "user:a", "Where do I live?", k=1)]
['User is allergic to peanuts.', 'User lives in Pune.']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from langgraph_memory.checks import MAX_K, check_k, check_query
from langgraph_memory.model import Memory, now_utc, utc
from langgraph_memory.read.scoring import blend, check_half_life, check_weights, recency
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import MemoryStore
from langgraph_memory.tracing import trace_retrieve

#: Vector candidates fetched per result wanted, before blending reorders them.
CANDIDATES_PER_RESULT = 4
MIN_CANDIDATES = 20
KEYWORD_CANDIDATES = 5
#: At most this many pinned memories go first, however many are pinned.
PINNED_LIMIT = 5
#: ``last_accessed`` is refreshed once it is older than this share of the half-life.
REFRESH_SHARE = 0.01


@dataclass(frozen=True)
class Retrieved:
    """A retrieved memory and why it ranks where it does."""

    memory: Memory
    score: float
    recency: float
    relevance: float
    importance: float
    pinned: bool = False

    def explain(self) -> str:
        """The three components and the blend, in one line.

        >>> from datetime import timezone
        >>> m = Memory(id="0a1b2c3d", text="x", scope="user:a",
        ...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
        >>> Retrieved(m, 0.6, 1.0, 0.5, 0.3).explain()
        'score 0.600 = recency 1.000, relevance 0.500, importance 0.300'
        """
        head = "pinned; " if self.pinned else ""
        return (
            f"{head}score {self.score:.3f} = recency {self.recency:.3f}, "
            f"relevance {self.relevance:.3f}, importance {self.importance:.3f}"
        )


@trace_retrieve  # a `memory.retrieve` retriever run when LangSmith tracing is on
def retrieve(
    store: MemoryStore,
    scope: ScopeLike,
    query: str,
    *,
    k: int = 5,
    now: datetime | None = None,
    as_of: datetime | None = None,
    half_life_h: float = 72.0,
    weights: Sequence[float] = (1.0, 1.0, 1.0),
    pinned_limit: int = PINNED_LIMIT,
    touch: bool = True,
    keyword_candidates: int = KEYWORD_CANDIDATES,
) -> list[Retrieved]:
    """Pinned memories first, then the ``k`` best by blended score.

    With ``touch`` the results' ``last_accessed`` becomes ``now`` (in one write, and only for
    those not seen within 1% of the half-life). With ``as_of`` it reads what was valid at
    that time (and refreshes nothing). ``now`` and ``as_of`` must be timezone-aware.
    ``keyword_candidates`` keyword hits join the vector candidates; 0 ranks the vector
    candidates alone (what the keyword index adds can then be measured).

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = store.add_many("user:a", [f"User likes hobby {i}." for i in range(60)])
    >>> code = store.add("user:a", "Locker code is ZX-4471.", importance=1.0)
    >>> def first(n: int) -> str:  # ranked by importance alone: any candidate code comes first
    ...     hits = retrieve(store, "user:a", "What is the ZX-4471 code?", k=1, weights=(0, 0, 1),
    ...                     keyword_candidates=n, touch=False)
    ...     return hits[0].memory.text
    >>> first(KEYWORD_CANDIDATES), first(0)
    ('Locker code is ZX-4471.', 'User likes hobby ...')
    """
    scope = Scope.of(scope)
    check_k(k)
    check_query(query)
    check_k(pinned_limit, "pinned_limit", low=0)
    check_k(keyword_candidates, "keyword_candidates", low=0)
    weights = check_weights(weights)
    check_half_life(half_life_h)
    if as_of is not None:
        when = utc(as_of, "as_of")
    else:
        when = utc(now, "now") if now is not None else now_utc()
    n = min(MAX_K, max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * k))
    relevance: dict[str, float] = {}
    found: dict[str, Memory] = {}
    vector = store.embed_query(query)
    for hit in store.nearest(scope, vector, k=n, as_of=as_of):
        found[hit.memory.id] = hit.memory
        relevance[hit.memory.id] = max(0.0, hit.score)
    if as_of is None and keyword_candidates > 0:  # keyword search sees active memories only
        # Keyword hits (names, numbers, ids) widen the candidates; they are scored
        # by the same cosine as the rest. Scoring them by keyword match instead
        # put every turn naming a person at relevance 1.0 and cut LoCoMo R@5
        # from 0.33 (cosine) to 0.11.
        extra = [
            h.memory.id
            for h in store.keyword(scope, query, k=keyword_candidates)
            if h.memory.id not in found
        ]
        for hit in store.nearest(scope, vector, k=max(1, len(extra)), ids=extra):
            found[hit.memory.id] = hit.memory
            relevance[hit.memory.id] = max(0.0, hit.score)
    pinned = store.pinned(scope, pinned_limit) if as_of is None and pinned_limit > 0 else []
    for m in pinned:
        found.setdefault(m.id, m)
    scored = [
        _score(m, relevance.get(m.id, 0.0), when, half_life_h, weights) for m in found.values()
    ]
    first = sorted((r for r in scored if r.pinned), key=lambda r: (-r.importance, -r.score))
    first = first[:pinned_limit]
    rest = sorted((r for r in scored if not r.pinned), key=lambda r: (-r.score, r.memory.id))[:k]
    results = first + rest
    if touch and as_of is None:
        # A write costs more than the rest of the read; a memory seen within 1% of the
        # half-life (43 minutes by default) keeps its time, which moves recency by < 1%.
        fresh_for = timedelta(hours=half_life_h * REFRESH_SHARE)
        stale = [r.memory.id for r in results if when - _seen(r.memory) >= fresh_for]
        if stale:
            store.touch(scope, stale, now=when)
    return results


def _seen(memory: Memory) -> datetime:
    return memory.last_accessed or memory.created_at


def _score(
    memory: Memory, relevance: float, when: datetime, half_life_h: float, weights: Sequence[float]
) -> Retrieved:
    rec = recency(hours=(when - _seen(memory)).total_seconds() / 3600.0, half_life_h=half_life_h)
    rel = min(1.0, relevance)
    return Retrieved(
        memory=memory,
        score=blend(rec, rel, memory.importance, weights=weights),
        recency=rec,
        relevance=rel,
        importance=memory.importance,
        pinned=memory.pinned,
    )
