"""Reflection: higher-level conclusions drawn from a scope's memories, kept as inferred.

When the importance of the facts added to a scope since its last reflection sums
to ``threshold`` or more (``due``), ``reflect`` shows the scope's newest facts to a
model (as [0], [1] ..., never as ids) and asks what follows from them. Each
conclusion it can check is stored as a memory of kind ``reflection``, source
``reflection``, trust ``MEDIUM``, whose ``sources`` are the memories it rests on:

- a conclusion may cite only memories it was shown; one citing none is dropped,
  and so is one that repeats a reflection the scope holds;
- what is shown: active facts (no episodes: facts are what the agent believes),
  not ``LOW`` trust (an unverified note from a tool or a document must not turn
  into a conclusion trusted more than it), the newest ``max_shown``; reflections
  only while ``max_depth`` allows (by default none: no conclusion rests on another);
- trust ``MEDIUM``: a conclusion is the model's inference, not the user's word
  (``HIGH``), as what the assistant says is ``MEDIUM``; ``LOW`` is for content from
  outside, which the read path shows as unverified notes. It is rendered apart,
  as inferred (see ``read/render.py``);
- every stored reflection is a logged ``ADD`` decision; every pass also logs one
  ``NOOP`` decision with ``turn_id`` ``REFLECTION_PASS`` (what was shown, the raw
  answer, what was dropped and why). The newest such entry is the scope's last
  reflection: in the decision log it survives restarts, travels with ``export``
  and ``import_scope``, and goes with a purge of the scope, with no new place to
  keep. (The registry's entry for a scope is rewritten whenever the scope's
  collections are created, and is not exported.)

A reflection does not outlive what it rests on: archiving (or updating) a source
archives it, purging one purges it (see ``store/engine/core.py``).

>>> import tempfile
>>> from datetime import datetime, timezone
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write import RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> _ = store.add_many("user:a", [{"text": "User is vegetarian.", "importance": 0.7},
...                               {"text": "User is allergic to peanuts.", "importance": 0.9}],
...                    now=t)
>>> due(store, "user:a", threshold=1.5)
True
>>> done = reflect(store, "user:a", RulesModel(), now=t, threshold=1.5)
>>> [(d.op.value, d.fact) for d in done]  # doctest: +NORMALIZE_WHITESPACE
[('ADD', 'User has dietary needs to keep in mind when suggesting food or restaurants.'),
 ('NOOP', 'reflection over 2 memories')]
>>> r = store.get_memory("user:a", done[0].result_id)
>>> r.kind.value, r.trust.value, len(r.sources), due(store, "user:a", threshold=1.5)
('reflection', 'medium', 2, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel

from langgraph_memory import telemetry
from langgraph_memory.errors import InvalidArgumentError, InvalidMemoryError, MemoryNotFoundError
from langgraph_memory.lifecycle.prompts.reflect import ProposedConclusion
from langgraph_memory.lifecycle.reflectors import Proposals, Reflector, reflector
from langgraph_memory.records import (
    Decision,
    DecisionOp,
    Kind,
    Memory,
    Source,
    Status,
    Trust,
    check_text,
    now_utc,
    utc,
)
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import MemoryStore, check_store, internals
from langgraph_memory.write.reconcile import decision_attributes
from langgraph_memory.write.types import MemoryModel

__all__ = [
    "DEPTH",
    "MAX_CONCLUSIONS",
    "MAX_SHOWN",
    "REFLECTION_PASS",
    "THRESHOLD",
    "due",
    "last_reflection",
    "reflect",
]

#: Summed importance (each in [0, 1]) of new facts that makes a reflection due: about
#: fifteen to twenty facts of common importance. Generative Agents (Park et al., 2023)
#: reflected at 150 on a 1-10 scale, over raw observations; facts are already sifted.
THRESHOLD = 10.0
#: The newest facts shown to the model in one pass.
MAX_SHOWN = 50
#: Conclusions asked for in one pass.
MAX_CONCLUSIONS = 3
#: The ``turn_id`` of the decision every pass logs: the scope's reflection marker.
REFLECTION_PASS = "reflection-pass"
#: Metadata key of a reflection's depth: 1 when it rests on facts alone, one more
#: than the deepest reflection it rests on otherwise.
DEPTH = "reflection_depth"
#: A conclusion this close (cosine) to a reflection the scope holds repeats it.
DUPLICATE_COSINE = 0.9
#: Longest conclusion kept: one sentence, not an essay.
MAX_CONCLUSION_CHARS = 500

ModelLike = Reflector | MemoryModel | BaseChatModel | str | None


def last_reflection(store: MemoryStore, scope: ScopeLike) -> datetime | None:
    """When the scope's last reflection pass ran (its ``now``), or None if none has:
    the newest decision logged with ``turn_id`` ``REFLECTION_PASS`` (one indexed read).

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> last_reflection(s, "user:a") is None
    True
    """
    check_store(store)
    marks = store.decisions(scope, turn_id=REFLECTION_PASS)
    return max((d.created_at for d in marks if d.created_at is not None), default=None)


def _counts(memory: Memory) -> bool:
    """Whether a memory is one reflection may rest on and whose arrival makes it due."""
    return not memory.is_episode and memory.trust is not Trust.LOW


def _pending(store: MemoryStore, scope: Scope, since: datetime | None) -> float:
    added = internals(store).find(scope, created_after=since)  # active, created after the last pass
    return sum(m.importance for m in added if _counts(m) and m.kind is not Kind.REFLECTION)


def due(store: MemoryStore, scope: ScopeLike, threshold: float = THRESHOLD) -> bool:
    """Whether the facts added to ``scope`` since its last reflection (still active,
    not ``LOW`` trust, no episodes or reflections) weigh ``threshold`` or more by
    importance. Two reads: the pass markers, and the memories created since.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = s.add_many("user:a", [{"text": "Likes tea.", "importance": 0.6}] * 2)
    >>> due(s, "user:a", threshold=1.0), due(s, "user:a", threshold=1.5)
    (True, False)
    """
    check_store(store)
    scope = Scope.of(scope)
    _check_threshold(threshold)
    return _pending(store, scope, last_reflection(store, scope)) >= threshold


def depth(memory: Memory) -> int:
    """How many reflections deep a memory is: 0 for anything but a reflection.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> depth(Memory(id="r1", text="x", scope="user:a", created_at=t, kind=Kind.REFLECTION))
    1
    """
    if memory.kind is not Kind.REFLECTION:
        return 0
    value = memory.metadata.get(DEPTH, 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


@telemetry.spanned(  # a span with OpenTelemetry: the decisions it logged
    "memory.reflect",
    telemetry.StepSpec(operation=telemetry.CREATE_MEMORY, result=decision_attributes),
)
def reflect(
    store: MemoryStore,
    scope: ScopeLike,
    model: ModelLike = None,
    *,
    now: datetime | None = None,
    threshold: float = THRESHOLD,
    force: bool = False,
    max_depth: int = 1,
    max_shown: int = MAX_SHOWN,
    max_conclusions: int = MAX_CONCLUSIONS,
) -> list[Decision]:
    """Draw conclusions from the scope's newest facts when a reflection is ``due``
    (or with ``force``), store those that check out, and log the pass.

    ``model``: a LangChain chat model (or ``"provider:model"``, or None for the
    environment's), the offline ``RulesModel``, or a ``Reflector`` (see
    ``lifecycle.reflectors``). ``max_depth``: how deep a reflection may be; at 1 (the
    default) reflections are not shown to the model, at 2 a conclusion may rest on
    reflections of depth 1, and so on. Returns the logged decisions: one ``ADD`` per
    stored reflection, then the pass's own entry; [] when not due, when the scope
    holds nothing to reflect on, or when another pass ran meanwhile.

    The model is asked outside the scope's lock (writes go on meanwhile); what it
    answers is checked and stored under the lock, so a source archived in between is
    not cited. An exception from the model propagates and nothing is logged: the
    next call tries again. An answer that cannot be read is logged as a failed pass.
    """
    check_store(store)
    scope = Scope.of(scope)
    when = utc(now, "now") if now is not None else now_utc()
    _check_threshold(threshold)
    for name, value in (
        ("max_depth", max_depth),
        ("max_shown", max_shown),
        ("max_conclusions", max_conclusions),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgumentError(f"{name} must be an int >= 1, got {value!r}")
    drawer = reflector(model)
    last = last_reflection(store, scope)
    if not force and _pending(store, scope, last) < threshold:
        return []
    held = store.active(scope, episodes=False)
    shown = [m for m in held if _counts(m) and depth(m) < max_depth][-max_shown:]
    if not shown:
        return []
    proposals = drawer.conclude(shown, today=when, limit=max_conclusions)
    with internals(store).scope_lock(scope):
        if last_reflection(store, scope) != last:
            return []  # another pass stored its conclusions meanwhile
        existing = [m.id for m in held if m.kind is Kind.REFLECTION]
        return _store(store, scope, drawer.name, shown, existing, proposals, when, max_conclusions)


def _store(
    store: MemoryStore,
    scope: Scope,
    drawn_by: str,
    shown: list[Memory],
    existing: list[str],
    proposals: Proposals,
    when: datetime,
    limit: int,
) -> list[Decision]:
    items: list[dict[str, Any]] = []
    dropped: list[str] = []
    if len(proposals.conclusions) > limit:
        extra = len(proposals.conclusions) - limit
        dropped.append(f"{extra} more than the {limit} conclusions asked for, ignored")
    for n, proposal in enumerate(proposals.conclusions[:limit]):
        text, cited, problem = _check(proposal, shown)
        if problem is None and any(i["text"].casefold() == text.casefold() for i in items):
            problem = "repeats another conclusion of this pass"
        if problem is None and existing:
            near = internals(store).nearest(scope, text, k=1, ids=existing)
            if near and near[0].score >= DUPLICATE_COSINE:
                problem = f"repeats reflection {near[0].memory.id}"
        if problem is None:
            cited = [m for m in cited if _still_active(store, scope, m.id)]
            problem = None if cited else "every memory it cites was archived meanwhile"
        if problem is not None:
            dropped.append(f"conclusion {n}: {problem}")
            continue
        items.append(
            {
                "text": text,
                "kind": Kind.REFLECTION,
                "source": Source.REFLECTION,
                "trust": Trust.MEDIUM,
                "importance": max(m.importance for m in cited),
                "sources": [m.id for m in cited],
                "metadata": {DEPTH: 1 + max(depth(m) for m in cited)},
            }
        )
    stored = store.add_many(scope, items, now=when)
    decisions = [
        Decision(
            op=DecisionOp.ADD,
            fact=m.text,
            text=m.text,
            result_id=m.id,
            shown_ids=m.sources,
            shown_texts=tuple(_text_of(shown, s) for s in m.sources),
            note=f"reflection: inferred from {len(m.sources)} memories, not stated by the user",
        )
        for m in stored
    ]
    summary = f"reflection by {drawn_by}: {len(stored)} stored"
    marker = Decision(
        op=DecisionOp.NOOP,
        fact=f"reflection over {len(shown)} memories",
        shown_ids=tuple(m.id for m in shown),
        shown_texts=tuple(m.text for m in shown),
        raw=proposals.raw,
        turn_id=REFLECTION_PASS,
        status=Status.APPLIED if proposals.parsed else Status.FAILED,
        error=None if proposals.parsed else "the model's answer could not be read as conclusions",
        note="; ".join([summary, *dropped]),
    )
    return internals(store).log(scope, [*decisions, marker], now=when)


def _check(
    proposal: ProposedConclusion, shown: Sequence[Memory]
) -> tuple[str, list[Memory], str | None]:
    """A proposal's text and the shown memories it cites, or why it is dropped."""
    try:
        text = check_text(proposal.text)
    except InvalidMemoryError as exc:
        return "", [], f"unusable text ({exc})"
    if len(text) > MAX_CONCLUSION_CHARS:
        return text, [], f"longer than {MAX_CONCLUSION_CHARS} characters"
    cited = [shown[i] for i in _positions(proposal.sources, len(shown))]
    if not cited:
        return text, [], f"cites no memory it was shown (sources={proposal.sources!r})"
    return text, cited, None


def _positions(value: Any, count: int) -> list[int]:
    """The valid positions among what a model cited, each once, in order: whole
    numbers (3, 3.0, "3", "[3]") in ``range(count)``; anything else is ignored.

    >>> _positions([2, "0", 7, 2.0, True, "x", "[1]"], 3)
    [2, 0, 1]
    """
    values = value if isinstance(value, list) else [value]
    out: list[int] = []
    for v in values:
        if isinstance(v, str):
            v = v.strip().strip("[]")
            v = int(v) if v.isdigit() else None
        elif isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < count and v not in out:
            out.append(v)
    return out


def _still_active(store: MemoryStore, scope: Scope, memory_id: str) -> bool:
    try:
        return store.get_memory(scope, memory_id).active
    except MemoryNotFoundError:
        return False  # purged since it was shown


def _text_of(shown: Sequence[Memory], memory_id: str) -> str:
    return next(m.text for m in shown if m.id == memory_id)


def _check_threshold(threshold: Any) -> None:
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not threshold > 0
        or threshold == float("inf")
    ):
        raise InvalidArgumentError(
            f"threshold must be a positive number (summed importance, each in [0, 1]), "
            f"got {threshold!r}; pass force=True to reflect now"
        )
