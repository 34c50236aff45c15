"""Retrieval: the memories of a scope worth putting in front of the model.

Facts and episodes are ranked together, then made into items (``read.evidence``): a
fact with the turns that said it, and under it the earlier turns whose words it
replaced, is one item, where the better ranked of them would be; an episode whose
fact was deleted is marked outdated. A turn that only asked ranks as the evidence it is
(``ASKED_PENALTY``), and the question asked again is no candidate at all.
Candidates come from the dense index
(cosine to the query, with names that most of the scope shares left out of the
query, so they cannot decide the match) and from the lexical index (BM25 over
each memory's words and dates, an episode's also over the facts taken from it).
Their scores are fused by z-score; small measured terms follow: a boost for
memories that carry a time when the question asks about time, one for memories
whose speaker the question names, recency on a scale of months, and importance.
Pinned memories always come first, in a short bounded list. Reading a memory
refreshes its ``last_accessed``: noted by the read, written after it by the store's
thread, batched per scope (``store/engine/access_log.py``).

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> _ = store.add("user:a", "User is allergic to peanuts.", importance=0.9, pinned=True)
>>> _ = store.add("user:a", "User lives in Pune.")
>>> [r.memory.text for r in retrieve(store, "user:a", "Where do I live?", k=1)]
['User is allergic to peanuts.', 'User lives in Pune.']

With the write path, what was said comes with the fact taken from it, and an earlier
saying the fact replaced comes under it:

>>> from datetime import datetime, timezone
>>> from langgraph_memory.write import MemoryWriter, RulesModel
>>> writer = MemoryWriter(store, model=RulesModel())
>>> for day, said in ((1, "I live in Berlin."), (2, "I live in Madrid now.")):
...     when = datetime(2026, 3, day, tzinfo=timezone.utc)
...     _ = writer.write_turn("user:b", [("user", said)], now=when)
>>> [top] = retrieve(store, "user:b", "Where do I live?", k=1)
>>> top.memory.text, [m.text for m in top.said], [m.text for m in top.earlier]
('User lives in Madrid.', ['I live in Madrid now.'], ['I live in Berlin.'])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory import telemetry
from langgraph_memory.checks import MAX_K, check_k, check_query
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.read.evidence import Group, citing_of, group
from langgraph_memory.read.ranking import (
    ASKED_PENALTY,
    DENSE_WEIGHT,
    HALF_LIFE_DAYS,
    asks_about_time,
    fuse,
    record_bounds,
    record_terms,
)
from langgraph_memory.records import Memory, now_utc, utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.text import names_in, said_form
from langgraph_memory.tracing import Payload, clip, scope_metadata, traced

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["Retrieved", "retrieve", "rules_of"]

#: Candidates taken from each index per result wanted, and at least this many.
CANDIDATES_PER_RESULT = 5
MIN_CANDIDATES = 50
#: At most this many pinned memories go first, however many are pinned.
PINNED_LIMIT = 5
#: A name found in more than this share of a scope's memories is left out of the dense
#: query: in a conversation stored turn by turn, every turn addressing "Caroline" looks
#: like an answer to a question about her.
COMMON_NAME_SHARE = 0.1
#: The longest half-life a read takes (a thousand years: recency then plays no part).
MAX_HALF_LIFE_DAYS = 1000 * 365.0
#: ``last_accessed`` is refreshed once it is older than this.
REFRESH_DAYS = 1.0


@dataclass(frozen=True)
class Retrieved:
    """A retrieved memory and why it ranks where it does: one item of a read.

    ``dense`` is the cosine to the query and ``lexical`` the BM25 score (0 to 1);
    ``relevance`` is their z-score fusion; ``boost`` the time and speaker terms;
    ``recency`` and ``importance`` are in [0, 1]; ``score`` is what orders them.

    A fact comes with the episodes that said it (``said``) and the earlier ones whose
    words it replaced (``earlier``), shown with it (``read.evidence``). The item ranks
    where its best member does: when that is one of them, ``score`` is theirs and
    ``via`` names it, ``own_score`` is what the fact scored itself (None when only its
    episodes were found), and the components are the fact's own when it scored (else
    those of ``via``). ``render`` orders facts by what they scored themselves.
    ``outdated`` marks an episode whose fact was deleted with nothing in its place.

    Args:
        memory: the memory found: a fact, an episode or a reflection.
        score: what orders the items, highest first.
        recency: from the memory's age (halved every ``half_life_days``), in [0, 1].
        relevance: the z-score fusion of ``dense`` and ``lexical``.
        importance: the memory's importance, in [0, 1].
        pinned: whether it is pinned (pinned memories come first).
        dense: the cosine of the memory to the query.
        lexical: the memory's BM25 score for the query, from 0 to 1.
        boost: the time and speaker terms.
        said: the episodes that said the fact.
        earlier: the earlier episodes whose words the fact replaced.
        outdated: True for an episode whose fact was deleted with nothing in its
            place.
        via: the id of the member whose score the item has, when it is not the
            memory itself; None otherwise.
        own_score: what the memory scored itself; None when only its episodes
            were found.
    """

    memory: Memory
    score: float
    recency: float
    relevance: float
    importance: float
    pinned: bool = False
    dense: float = 0.0
    lexical: float = 0.0
    boost: float = 0.0
    said: tuple[Memory, ...] = ()
    earlier: tuple[Memory, ...] = ()
    outdated: bool = False
    via: str | None = None
    own_score: float | None = None

    @property
    def shown(self) -> tuple[Memory, ...]:
        """Every memory the item puts before the model: its own, then ``said`` and
        ``earlier``."""
        return (self.memory, *self.said, *self.earlier)

    def explain(self) -> str:
        """Every component of the score, in one line.

        Returns:
            The score, the fused relevance with its dense and lexical parts, the
            boost, recency and importance, and the ids of ``said`` and
            ``earlier``.

        >>> from datetime import timezone
        >>> m = Memory(id="0a1b2c3d", text="x", scope="user:a",
        ...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
        >>> r = Retrieved(m, 1.2, 0.9, 1.0, 0.5, dense=0.61, lexical=0.4, boost=0.1)
        >>> for part in r.explain().split(" + "):
        ...     print(part)
        score 1.200 = fused 1.000 (dense 0.610, lexical 0.400)
        boost 0.100, recency 0.900, importance 0.500
        """
        head = "pinned; " if self.pinned else ""
        via = f" via {self.via}" if self.via else ""
        if self.via and self.own_score is not None:
            via += f" (itself {self.own_score:.3f})"
        tail = "".join(
            f"; {label} {', '.join(m.id for m in found)}"
            for label, found in (("said in", self.said), ("earlier", self.earlier))
            if found
        )
        return (
            f"{head}score {self.score:.3f}{via} = fused {self.relevance:.3f} (dense "
            f"{self.dense:.3f}, lexical {self.lexical:.3f}) + boost {self.boost:.3f}, recency "
            f"{self.recency:.3f}, importance {self.importance:.3f}{tail}"
        )

    def trace_summary(self) -> Payload:
        """The memory as a trace shows it: a document, LangSmith's retriever format.

        Returns:
            A dict with ``page_content`` (the text, clipped), ``type``
            (``"Document"``) and ``metadata`` (the id, the score's components, the
            ids of ``said`` and ``earlier``).

        >>> from datetime import timezone
        >>> m = Memory(id="0a1b2c3d", text="User lives in Pune.", scope="user:a",
        ...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
        >>> doc = Retrieved(m, 0.6, 1.0, 0.5, 0.3).trace_summary()
        >>> doc["page_content"], doc["type"], doc["metadata"]["id"]
        ('User lives in Pune.', 'Document', '0a1b2c3d')
        """
        return {
            "page_content": clip(self.memory.text),
            "type": "Document",
            "metadata": {
                "id": self.memory.id,
                "score": self.score,
                "recency": self.recency,
                "relevance": self.relevance,
                "importance": self.importance,
                "pinned": self.pinned,
                "created_at": self.memory.created_at.isoformat(),
                "said_in": [m.id for m in self.said],
                "earlier": [m.id for m in self.earlier],
                "outdated": self.outdated,
            },
        }


def _retrieve_inputs(arguments: Mapping[str, Any]) -> Payload:
    """The query and the knobs of a retrieval; not the store, not the scope's id.

    >>> _retrieve_inputs({"query": "Where do I live?", "k": 3})
    {'query': 'Where do I live?', 'k': 3, 'as_of': None, 'pinned_limit': None}
    """
    as_of = arguments.get("as_of")
    return {
        "query": clip(str(arguments.get("query"))),
        "k": arguments.get("k"),
        "as_of": None if as_of is None else as_of.isoformat(),
        "pinned_limit": arguments.get("pinned_limit"),
    }


def _retrieve_outputs(results: list[Retrieved]) -> Payload:
    """The memories found, as documents (``Retrieved.trace_summary``)."""
    return {"documents": [r.trace_summary() for r in results]}


def _retrieve_content(
    arguments: Mapping[str, Any], results: list[Retrieved]
) -> telemetry.Attributes:
    """A ``memory.retrieve`` span's texts (opt-in): the query and the memories found.

    >>> _retrieve_content({"query": "Where do I live?"}, [])
    {'gen_ai.retrieval.query.text': 'Where do I live?', 'gen_ai.memory.content': []}
    """
    return {
        telemetry.QUERY_TEXT: telemetry.clip(str(arguments.get("query"))),
        telemetry.CONTENT: [telemetry.clip(r.memory.text) for r in results],
    }


@traced(  # a `memory.retrieve` retriever run when LangSmith tracing is on
    "memory.retrieve",
    run_type="retriever",
    inputs=_retrieve_inputs,
    outputs=_retrieve_outputs,
    metadata=scope_metadata,
    otel=telemetry.StepSpec(  # and a `search_memory` span with OpenTelemetry
        operation=telemetry.SEARCH_MEMORY,
        result=lambda results: {telemetry.RECORD_COUNT: len(results)},
        content=_retrieve_content,
        read=True,
    ),
)
def retrieve(
    store: MemoryStore,
    scope: ScopeLike,
    query: str,
    *,
    k: int = 5,
    now: datetime | None = None,
    as_of: datetime | None = None,
    pinned_limit: int = PINNED_LIMIT,
    touch: bool = True,
    dense_weight: float = DENSE_WEIGHT,
    half_life_days: float = HALF_LIFE_DAYS,
) -> list[Retrieved]:
    """Pinned memories first, then the ``k`` best facts and episodes by fused score.

    With ``touch`` the results' ``last_accessed`` becomes ``now`` (for those not read
    within a day), written after the read by a thread of the store, within a second,
    in one write per scope (``internals(store).flush_access()`` writes it at once).
    With ``as_of`` it reads what was valid at that time by the dense index alone (the
    lexical index holds the active memories) and refreshes nothing. ``now`` and
    ``as_of`` must be timezone-aware. ``dense_weight`` is the dense side's share of the
    fusion (0: lexical alone, 1: dense alone).

    Args:
        store: the ``MemoryStore`` to read.
        scope: the scope to read: a ``Scope``, ``"kind:id"`` (``"user:alice"``) or a
            namespace tuple.
        query: what to look for: the user's question or message.
        k: how many facts and episodes to return besides the pinned ones, 1 to
            10,000.
        now: the time of the read (timezone-aware): recency is measured from it,
            and it becomes the results' ``last_accessed``; None: the clock.
        as_of: read what was valid at this time (timezone-aware); None: what is
            active now.
        pinned_limit: the most pinned memories that go first, 0 to 10,000.
        touch: False leaves ``last_accessed`` as it is (a read that changes
            nothing).
        dense_weight: the dense index's share of the fusion, from 0 to 1.
        half_life_days: the days in which a memory's recency halves, above 0 and at
            most 365,000.

    Returns:
        The pinned memories first (most important first), then the ``k`` best
        items by score, each a ``Retrieved`` with its components and the episodes
        that said it.

    Raises:
        InvalidTypeError: ``store`` is not a ``MemoryStore``.
        InvalidArgumentError: ``query`` is not a str, a number is out of range, or
            ``now`` or ``as_of`` is naive.
        InvalidScopeError: ``scope`` names no scope.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = store.add_many("user:a", [f"User likes hobby {i}." for i in range(60)])
    >>> _ = store.add("user:a", "Locker code is ZX-4471.")
    >>> retrieve(store, "user:a", "What is the ZX-4471 code?", k=1)[0].memory.text
    'Locker code is ZX-4471.'
    """
    stores.check_store(store)
    scope = Scope.of(scope)
    check_k(k)
    check_query(query)
    check_k(pinned_limit, "pinned_limit", low=0)
    dense_weight = _share(dense_weight, "dense_weight")
    if (
        isinstance(half_life_days, bool)
        or not isinstance(half_life_days, (int, float))
        or not 0 < half_life_days <= MAX_HALF_LIFE_DAYS
    ):
        raise InvalidArgumentError(
            "half_life_days must be a number of days > 0 and at most "
            f"{MAX_HALF_LIFE_DAYS:,.0f} (a thousand years), got {half_life_days!r}"
        )
    when = utc(as_of, "as_of") if as_of is not None else (utc(now, "now") if now else now_utc())
    n = min(MAX_K, max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * k))
    dense_query = _dense_query(store, scope, query)
    # What the question asks, once per read: the time and speaker terms and their bounds.
    about_time = asks_about_time(query)
    named = frozenset(n.casefold() for n in names_in(query))
    if as_of is None:
        found = stores.internals(store).candidates(
            scope,
            dense_query,
            query,
            k=n,
            lexical=dense_weight < 1.0,
            speakers=bool(named),  # the speaker boost needs a named person
        )
        # The question asked again is no candidate: it would match itself first.
        asked = said_form(query)
        same = {i for i, words in found.asks.items() if said_form(words) == asked}
        dense = {i: s for i, s in found.dense.items() if i not in same}
        lexical = {i: s for i, s in found.lexical.items() if i not in same}
        # Fewer lexical hits than asked for: those are all the matches, and the rest score 0.
        missing = None if len(found.lexical) >= n else 0.0
        fused = fuse(dense, lexical, dense_weight=dense_weight, lexical_missing=missing)
        sd = _spread(fused)
        for i in found.asks:  # another question: evidence that the user wondered, no more
            if i in fused:
                fused[i] -= ASKED_PENALTY * sd
        pinned = tuple(i for i in found.pinned if i in fused)
        scoring = _Scoring(fused, sd, dense, lexical, about_time, named, when, half_life_days)
        speakers = found.speakers

        def contenders(depth: int) -> list[str]:
            return _contenders(fused, sd, pinned, speakers, depth, about_time, named)

        ranked = _settled(store, scope, scoring, contenders, k)
    else:
        hits = stores.internals(store).nearest(scope, dense_query, k=n, as_of=as_of)
        dense, lexical = {h.memory.id: h.score for h in hits}, {}
        fused = fuse(dense, lexical, dense_weight=dense_weight, lexical_missing=0.0)
        sd = _spread(fused)
        scoring = _Scoring(fused, sd, dense, lexical, about_time, named, when, half_life_days)
        memories = {h.memory.id: h.memory for h in hits}
        # The facts an episode follows: those valid then.
        ranked = scoring.rank(memories, memories, citing_of(memories.values()))
    by_id = {r.memory.id: r for r in ranked.memories}
    pinned_items = [_item(g, by_id) for g in ranked.items if g.head.pinned]
    first = sorted(pinned_items, key=lambda r: (-r.importance, -r.score))
    # Best first (an item is where its best member is): only the first k are made.
    rest = [_item(g, by_id) for g in [g for g in ranked.items if not g.head.pinned][:k]]
    results = first[:pinned_limit] + rest
    if touch and as_of is None:
        # A write costs more than the rest of the read: a memory read within a day
        # keeps its time (recency moves by well under 1% on a scale of months).
        shown = [m for r in results for m in r.shown]
        stale = [m.id for m in shown if (when - _seen(m)).days >= REFRESH_DAYS]
        if stale:  # written after the read, off its latency (``store/engine/access_log.py``)
            stores.internals(store).note_access(scope, stale, now=when)
    return results


@dataclass(frozen=True)
class _Ranked:
    """Memories whose records were read, scored, best first, and the items they make."""

    memories: list[Retrieved]
    items: list[Group]


@dataclass(frozen=True)
class _Scoring:
    """What a read scores its memories by: the candidates' fused scores and their
    spread, their dense and lexical scores, whether the question asks about time and
    whom it names (case-folded), and the read's time."""

    fused: dict[str, float]
    sd: float
    dense: dict[str, float]
    lexical: dict[str, float]
    about_time: bool
    named: frozenset[str]
    when: datetime
    half_life_days: float

    def rank(
        self,
        memories: dict[str, Memory],
        facts: Mapping[str, Memory],
        cited: Mapping[str, Sequence[str]],
    ) -> _Ranked:
        """``memories`` scored, best first, and grouped into items (see ``group``)."""
        scored = _scored(
            memories,
            self.fused,
            self.sd,
            self.dense,
            self.lexical,
            self.about_time,
            self.named,
            self.when,
            self.half_life_days,
        )
        ranked = sorted(scored, key=lambda r: (-r.score, r.memory.id))
        return _Ranked(ranked, group([r.memory for r in ranked], facts, cited))


def _settled(
    store: MemoryStore,
    scope: Scope,
    scoring: _Scoring,
    contenders: Callable[[int], list[str]],
    k: int,
) -> _Ranked:
    """The read's memories and items, reading records until the first ``k`` items
    are what every record read would make: those of ``contenders(depth)`` (the
    candidates that can make the ``depth`` best memories) from ``depth = k``, deeper
    by as many as the first memories folded into fewer items; and, for the first
    ``k`` items' facts, their sources that are candidates (the words said under them).
    Most reads read the contenders of ``k`` once, as a read that made no items did."""
    memories: dict[str, Memory] = {}
    facts: dict[str, Memory] = {}
    cited: dict[str, tuple[str, ...]] = {}
    asked: set[str] = set()
    depth = k
    wanted = contenders(depth)
    ranked = _Ranked([], [])
    while new := [i for i in dict.fromkeys(wanted) if i not in asked]:
        asked.update(new)
        got = stores.internals(store).get_memories(scope, new)
        memories.update(got)
        more, more_cited = _facts_of_episodes(store, scope, got)
        facts.update(more)
        cited.update(more_cited)
        ranked = scoring.rank(memories, facts, cited)
        plain = [g for g in ranked.items if not g.head.pinned]
        # The words said under the first k items' facts, where they are candidates.
        wanted = [
            i
            for g in plain[:k]
            if not g.head.is_episode
            for i in g.head.sources
            if i in scoring.fused
        ]
        # The depth best memories are exact, and so are the items they are the best of:
        # where they made fewer than k, the contenders of a deeper depth are read too.
        best = [r.memory.id for r in ranked.memories if not r.memory.pinned]
        heads = {g.members[0] for g in plain}
        while depth < len(scoring.fused):
            made = sum(1 for i in best[:depth] if i in heads)
            if made >= k:
                break
            depth += k - made
            deeper = [i for i in contenders(depth) if i not in asked]
            if deeper:
                wanted += deeper
                break
    return ranked


def _facts_of_episodes(
    store: MemoryStore, scope: Scope, memories: dict[str, Memory]
) -> tuple[dict[str, Memory], dict[str, tuple[str, ...]]]:
    """``memories`` with the active memories whose sources name one of its episodes
    (the facts taken from them, and those that carry them from what they replaced),
    read too: an episode's item is its fact, whether or not the fact ranked; and,
    per episode, the ids of those memories."""
    episodes = [i for i, m in memories.items() if m.is_episode]
    if not episodes:
        return memories, {}
    cited = stores.internals(store).citing(scope, episodes)
    more = list(dict.fromkeys(i for ids in cited.values() for i in ids if i not in memories))
    if not more:
        return memories, cited
    return {**memories, **stores.internals(store).get_memories(scope, more)}, cited


def _item(found: Group, scored: Mapping[str, Retrieved]) -> Retrieved:
    """A read's result for one item: the score of its best ranked member (``via``
    names it when it is not the head), with the head's own score and components
    where the head itself ranked."""
    best = min((scored[i] for i in found.members if i in scored), key=lambda r: -r.score)
    own = scored.get(found.head.id)
    return replace(
        own or best,
        memory=found.head,
        score=best.score,
        pinned=found.head.pinned,
        said=tuple(found.said),
        earlier=tuple(found.earlier),
        outdated=found.outdated,
        via=None if best.memory.id == found.head.id else best.memory.id,
        own_score=None if own is None else own.score,
    )


def rules_of(store: MemoryStore, scope: ScopeLike) -> tuple[Memory, ...]:
    """The scope's rules (procedural memories), pinned first, then the most recent:
    not ranked against the question, every read renders them
    (``render(found, rules=rules_of(store, scope))``). Kept per scope between writes,
    so a read pays no query for them.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = store.add("user:a", "User wants PRs opened as drafts.", kind="procedural")
    >>> [m.text for m in rules_of(store, "user:a")]
    ['User wants PRs opened as drafts.']
    """
    stores.check_store(store)
    return stores.internals(store).rules(Scope.of(scope))


def _share(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidArgumentError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)


def _dense_query(store: MemoryStore, scope: Scope, query: str) -> str:
    """The query without the names most of the scope shares (see COMMON_NAME_SHARE)."""
    names = names_in(query)
    if not names:
        return query
    shares = stores.internals(store).term_shares(scope, names)
    common = [n for n in names if shares.get(n, 0.0) > COMMON_NAME_SHARE]
    kept = " ".join(
        w for w in query.split() if w.strip("?,.!:;'\"").removesuffix("'s") not in common
    )
    return kept if kept.strip() else query


def _spread(fused: dict[str, float]) -> float:
    """The standard deviation of the fused scores (1 when they do not spread): the
    unit of the terms added to them."""
    values = list(fused.values())
    if not values:
        return 1.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) or 1.0


def _contenders(
    fused: dict[str, float],
    sd: float,
    pinned: tuple[str, ...],
    speakers: dict[str, str],
    k: int,
    about_time: bool,
    named: frozenset[str],
) -> list[str]:
    """The candidates whose records are worth reading: the pinned ones, and those
    whose score can still make the first ``k``, for a question that asks about time
    (``about_time``) and names the people in ``named`` (case-folded).

    What a record adds to the fused score is bounded (the time boost when the
    question asks about time, the speaker boost when it names the candidate's
    speaker, recency, importance), so a candidate whose fused score plus the most
    it can gain stays below the ``k``-th best fused score plus the least is out
    whatever its record says. Reading only the rest keeps the ranking exact and a
    read's cost off the candidates it would drop.

    >>> fused = {"a": 2.0, "b": 1.9, "c": 0.9}
    >>> ann = frozenset({"ann"})  # "Where does Ann live?"
    >>> _contenders(fused, 1.0, (), {}, 2, False, ann)
    ['a', 'b']
    >>> _contenders(fused, 1.0, ("c",), {}, 2, False, ann)
    ['c', 'a', 'b']
    >>> _contenders(fused, 1.0, (), {"c": "Ann"}, 2, False, ann)
    ['a', 'b', 'c']
    """
    least, most = record_bounds(about_time=about_time, speaker_named=False)
    _, most_named = record_bounds(about_time=about_time, speaker_named=True)
    held = set(pinned)
    rest = [i for i in fused if i not in held]
    floors = sorted((fused[i] + least * sd for i in rest), reverse=True)
    # A hair below the bar, so rounding in the sums can never drop a tie.
    bar = floors[k - 1] - 1e-9 * sd if len(floors) >= k else -math.inf

    def gain(i: str) -> float:
        return most_named if speakers.get(i, "").casefold() in named else most

    return [*pinned, *(i for i in rest if fused[i] + gain(i) * sd >= bar)]


def _scored(
    memories: dict[str, Memory],
    fused: dict[str, float],
    sd: float,
    dense: dict[str, float],
    lexical: dict[str, float],
    about_time: bool,
    named: frozenset[str],
    when: datetime,
    half_life_days: float,
) -> list[Retrieved]:
    out = []
    for i, memory in memories.items():
        terms = record_terms(
            memory, about_time=about_time, named=named, when=when, half_life_days=half_life_days
        )
        relevance = fused.get(i, 0.0)
        score = relevance + terms.total * sd
        out.append(
            Retrieved(
                memory=memory,
                score=score,
                recency=terms.recency,
                relevance=relevance,
                importance=memory.importance,
                pinned=memory.pinned,
                dense=max(0.0, dense.get(i, 0.0)),
                lexical=lexical.get(i, 0.0),
                boost=terms.boost * sd,
            )
        )
    return out


def _seen(memory: Memory) -> datetime:
    return memory.last_accessed or memory.created_at
