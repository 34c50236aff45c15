"""Reconciliation: which memories a fact is compared with, and what the model's
answer may do.

The model sees the similar memories as [0], [1] ...; ``validate`` maps its answer back to
real ids under fixed rules, so no model output can touch a memory it was not
shown:

- an unknown op becomes NOOP;
- UPDATE of an unknown or unshown index becomes ADD; DELETE of one becomes NOOP;
- UPDATE or DELETE of a memory the fact may not close (``guards.refusal``: one
  unrelated to the fact, one more trusted than the fact, a safety-relevant one
  the user's own words do not name) becomes ADD, or NOOP;
- a missing text falls back to the fact; a text too long to be a fact too, and
  a text the fact does not support (``guards.supported``: for an UPDATE, the
  fact and its target);
- an ADD whose text a shown memory already holds becomes NOOP.

A fact the scope holds nothing to compare with (no similar memory at all) is not
shown to the model: ``unopposed`` adds it, and its note says why (see
``MemoryWriter(always_reconcile=...)``).

Such a fix is part of the rules, not a failure: the decision is applied as
fixed, and its ``note`` says what changed. Only an answer with no op at all
fails (``Status.FAILED``, the reason in ``error``).

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory
>>> m = Memory(id="0a1b2c3d", text="User lives in Delhi.", scope="user:a",
...            created_at=datetime(2026, 1, 5, tzinfo=timezone.utc))
>>> d = validate(Choice("UPDATE", 0, "User lives in Pune."), Fact("User lives in Pune."), [m])
>>> d.op, d.target_id, d.text
(<DecisionOp.UPDATE: 'UPDATE'>, '0a1b2c3d', 'User lives in Pune.')
>>> validate(Choice("UPDATE", 7, None), Fact("User lives in Pune."), [m]).op
<DecisionOp.ADD: 'ADD'>
>>> validate(Choice("DELETE", "0a1b2c3d"), Fact("x"), [m]).op
<DecisionOp.NOOP: 'NOOP'>
>>> d = validate(Choice("ADD", None, "User is an admin."), Fact("User likes tea."), [m])
>>> d.text, d.note
('User likes tea.', "text not supported by the fact -> the fact's text")
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from langchain_core.embeddings import Embeddings

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory import telemetry
from langgraph_memory.records import Decision, DecisionOp, Memory, Status
from langgraph_memory.scope import ScopeLike
from langgraph_memory.tracing import Payload, clip, scope_metadata, traced
from langgraph_memory.write.extract import MAX_FACT_CHARS
from langgraph_memory.write.guards import embedding_similarity, refusal, supported
from langgraph_memory.write.rules.instructions import CHANGE_SLOT, DROP_SLOT, rule_slot
from langgraph_memory.write.types import Choice, Fact

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

#: How many memories a fact is compared with: vector neighbours plus keyword
#: hits (names, numbers), which embed badly.
VECTOR_K = 5
KEYWORD_K = 3
MAX_SHOWN = 8
_INDEX = re.compile(r"^\s*\[?\s*(\d{1,3})\s*\]?\s*$")
#: The note of a fact added without a model call (``why`` shows it).
NOTHING_SIMILAR = "no similar memory in the scope: added without a model call"
#: The note of a change or a cancel of a rule in a scope that holds nothing like it.
NO_RULE_HELD = "no rule in the scope to change or drop: nothing to do"


def similar(
    store: MemoryStore,
    scope: ScopeLike,
    fact: Fact,
    *,
    k: int = VECTOR_K,
    vector: Sequence[float] | None = None,
) -> list[Memory]:
    """Active memories of the scope most likely to be about the same thing as ``fact``.

    Vector neighbours first, then keyword hits not already among them, at most
    ``MAX_SHOWN`` in all. Episodes are not among them: what was said is evidence,
    never a belief a fact could update or delete. ``vector`` is the fact text's,
    when the caller has it.
    """
    shown: dict[str, Memory] = {}
    query = fact.text if vector is None else vector
    for hit in stores.internals(store).nearest(scope, query, k=k, episodes=False):
        shown[hit.memory.id] = hit.memory
    for hit in stores.internals(store).keyword(scope, fact.text, k=KEYWORD_K, episodes=False):
        shown.setdefault(hit.memory.id, hit.memory)
    return list(shown.values())[:MAX_SHOWN]


def unopposed(fact: Fact) -> Decision:
    """The decision for a fact that no memory of its scope resembles: ADD, without
    asking the model, which would be shown nothing to update, delete or repeat.

    A change or a cancel of a standing instruction ("User wants the assistant to drop the
    rule about emojis.") acts on a rule held and is never stored itself: with nothing held,
    it is a NOOP.

    >>> d = unopposed(Fact("User is vegan."))
    >>> d.op.value, d.text, d.shown_ids, d.note
    ('ADD', 'User is vegan.', (), 'no similar memory in the scope: added without a model call')
    >>> unopposed(Fact("User wants the assistant to change a rule: make that 50 words.")).op.value
    'NOOP'
    """
    slot = rule_slot(fact.text)
    if slot is not None and slot[0] in (DROP_SLOT, CHANGE_SLOT):
        return Decision(op=DecisionOp.NOOP, fact=fact.text, note=NO_RULE_HELD)
    return Decision(op=DecisionOp.ADD, fact=fact.text, text=fact.text, note=NOTHING_SIMILAR)


def merge_similar(lists: Sequence[Sequence[Memory]], limit: int = 3 * MAX_SHOWN) -> list[Memory]:
    """The union of several lists of similar memories, first seen first, at most ``limit``."""
    merged: dict[str, Memory] = {}
    for memories in lists:
        for m in memories:
            merged.setdefault(m.id, m)
    return list(merged.values())[:limit]


def _index(value: Any, size: int) -> int | None:
    """A shown index from whatever the model gave (7, "7", "[7]"), if in range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and (match := _INDEX.match(value)):
        number = int(match.group(1))
    else:
        return None
    return number if 0 <= number < size else None


def _op(value: Any) -> DecisionOp | None:
    if isinstance(value, str):
        try:
            return DecisionOp(value.strip().upper())
        except ValueError:
            return None
    return None


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def validate(
    choice: Choice,
    fact: Fact,
    shown: Sequence[Memory],
    *,
    embeddings: Embeddings | None = None,
) -> Decision:
    """The decision a model's choice stands for, under the rules above.

    The decision records what was shown; ``note`` says what validation had
    to correct, if anything. ``embeddings`` (the store's) measure how related a
    target with no word in common with the fact is; without them such a target
    counts as unrelated.

    >>> validate(Choice("MERGE", 0), Fact("x"), []).note
    "unknown op 'MERGE' -> NOOP"
    """
    base = Decision(
        op=DecisionOp.NOOP,
        fact=fact.text,
        shown_ids=tuple(m.id for m in shown),
        shown_texts=tuple(m.text for m in shown),
        raw=choice.raw,
    )
    op = _op(choice.op)
    index = _index(choice.index, len(shown))
    target = shown[index] if index is not None else None
    text = choice.text.strip() if isinstance(choice.text, str) and choice.text.strip() else None
    notes = []
    if text is not None and len(text) > MAX_FACT_CHARS:
        notes.append(f"text of {len(text):,} characters replaced by the fact")
        text = None
    if op is None:
        if choice.op is None:
            return base.with_(status=Status.FAILED, error="no usable answer from the model")
        return base.with_(note=f"unknown op {choice.op!r} -> NOOP")
    if op is DecisionOp.UPDATE and target is None:
        notes.append(f"UPDATE of unshown id {choice.index!r} -> ADD")
        op = DecisionOp.ADD
    if op is DecisionOp.DELETE and target is None:
        return base.with_(note=f"DELETE of unshown id {choice.index!r} -> NOOP")
    if op in (DecisionOp.UPDATE, DecisionOp.DELETE) and target is not None:
        similarity = embedding_similarity(embeddings) if embeddings is not None else None
        refused = refusal(fact, target, similarity)
        if refused is not None:
            note = f"{op.value} of [{index}] refused: {refused}"
            if op is DecisionOp.DELETE:
                return base.with_(note=f"{note} -> NOOP")
            notes.append(f"{note} -> ADD")
            op, target = DecisionOp.ADD, None
    if op in (DecisionOp.ADD, DecisionOp.UPDATE):
        also = (target.text,) if op is DecisionOp.UPDATE and target is not None else ()
        if text is not None and not supported(text, fact.text, *also):
            notes.append("text not supported by the fact -> the fact's text")
            text = None
        text = text or fact.text
        if op is DecisionOp.ADD and any(_norm(m.text) == _norm(text) for m in shown):
            notes.append("ADD of a text a shown memory holds -> NOOP")
            op, text = DecisionOp.NOOP, None
    decision = base.with_(
        op=op,
        text=text if op in (DecisionOp.ADD, DecisionOp.UPDATE) else None,
        target_id=target.id if target is not None and op is not DecisionOp.ADD else None,
    )
    return decision.with_(note="; ".join(notes) or None)


# -- the `memory.reconcile` run ----------------------------------------------------------------

P = ParamSpec("P")
R = TypeVar("R")


def decision_summary(decision: Decision) -> Payload:
    """A validated decision as a trace shows it (a ``memory.reconcile`` run's output, a
    ``memory.apply`` run's input).

    >>> d = Decision(op=DecisionOp.ADD, fact="User is vegan.", text="User is vegan.")
    >>> decision_summary(d)["op"], decision_summary(d)["status"]
    ('ADD', 'applied')
    """
    return {
        "op": decision.op.value,
        "fact": clip(decision.fact),
        "text": clip(decision.text),
        "target_id": decision.target_id,
        "shown_ids": list(decision.shown_ids),
        "status": decision.status.value,
        "note": decision.note,
        "error": decision.error,
    }


def decision_attributes(result: Decision | Sequence[Decision]) -> telemetry.Attributes:
    """An OpenTelemetry span's summary of decision(s): how many, and their ops in order.

    >>> decision_attributes(Decision(op=DecisionOp.ADD, fact="User is vegan."))
    {'gen_ai.memory.record.count': 1, 'langgraph_memory.decision.ops': ['ADD']}
    """
    decisions = [result] if isinstance(result, Decision) else list(result)
    return {
        telemetry.RECORD_COUNT: len(decisions),
        telemetry.DECISION_OPS: [d.op.value for d in decisions],
    }


def decision_writes(decisions: Sequence[Decision]) -> list[tuple[str, str]]:
    """Each logged decision's (op, status), for the ``langgraph_memory.writes`` counter.

    >>> decision_writes([Decision(op=DecisionOp.NOOP, fact="x", status=Status.REJECTED)])
    [('NOOP', 'rejected')]
    """
    return [(d.op.value, d.status.value) for d in decisions]


def _reconcile_inputs(arguments: Mapping[str, Any]) -> Payload:
    """The fact(s) being reconciled and the turn's id.

    >>> _reconcile_inputs({"fact": Fact("User is vegan.")})["fact"]["text"]
    'User is vegan.'
    """
    out: Payload = {"turn_id": getattr(arguments.get("turn"), "id", None)}
    if "fact" in arguments:
        out["fact"] = arguments["fact"].trace_summary()
    if "facts" in arguments:
        out["facts"] = [f.trace_summary() for f in arguments["facts"]]
    return out


def _reconcile_outputs(result: Decision | Sequence[Decision]) -> Payload:
    """One decision's fields, or ``decisions``: a list of them (``reconcile="batched"``).

    >>> _reconcile_outputs([unopposed(Fact("User is vegan."))])["decisions"][0]["op"]
    'ADD'
    """
    if isinstance(result, Decision):
        return decision_summary(result)
    return {"decisions": [decision_summary(d) for d in result]}


def _reconcile_metadata(arguments: Mapping[str, Any]) -> Payload:
    """The scope kind, the writer's ``reconcile`` (``per_fact`` or ``batched``) as
    ``memory_reconcile``, and its memory model's name as ``memory_model``.

    >>> _reconcile_metadata({"scope": "user:alice"})
    {'scope_kind': 'user'}
    """
    out = scope_metadata(arguments)
    writer = arguments.get("self")
    reconcile = getattr(writer, "reconcile", None)
    if isinstance(reconcile, str):
        out["memory_reconcile"] = reconcile
    name = getattr(getattr(writer, "model", None), "name", None)
    if isinstance(name, str):
        out["memory_model"] = name
    return out


def trace_reconcile(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` (a ``MemoryWriter`` method returning validated decision(s)) as the
    ``memory.reconcile`` run when tracing is on.

    >>> @trace_reconcile
    ... def decide(scope: str, fact: Fact) -> Decision:
    ...     return unopposed(fact)
    >>> decide("user:alice", Fact("User is vegan.")).op.value
    'ADD'
    """
    return traced(
        "memory.reconcile",
        inputs=_reconcile_inputs,
        outputs=_reconcile_outputs,
        metadata=_reconcile_metadata,
        otel=telemetry.StepSpec(result=decision_attributes),
    )(func)
