"""Applying a validated decision through the store, and logging it.

Nothing is overwritten: UPDATE closes the old version and opens a new one
(history kept, importance = max, pinned carried), DELETE closes, NOOP changes
nothing. A fact taken from a turn names the turn's episode in ``sources``: an
ADD gets it, an UPDATE adds it to what the old version named; ``said_in`` names
the turn's episode alone (``records.SAID_IN``: the words it states, where the
older sources said what it replaced). A DELETE marks the episodes the closed
fact stated as retracted (``records.RETRACTED``): what they said no longer holds. Every decision,
applied or not, goes to the scope's decision log with what the model was shown
and what it said. A store error (the target was closed meanwhile, say) is
recorded as a failed decision (``Status.FAILED``, the reason in ``error``),
never raised, so one bad fact cannot lose the rest of a turn.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.records import DecisionOp
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> vegan = Decision(op=DecisionOp.ADD, fact="User is vegan.", text="User is vegan.")
>>> d = apply(store, "user:a", vegan,
...           Fact("User is vegan.", importance=0.8))
>>> d.status.value, store.get_memory("user:a", d.result_id).importance
('applied', 0.8)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory import telemetry
from langgraph_memory.errors import MemoryKitError
from langgraph_memory.records import (
    RETRACTED,
    SAID_IN,
    Decision,
    DecisionOp,
    Status,
    now_utc,
    utc,
)
from langgraph_memory.scope import ScopeLike
from langgraph_memory.tracing import Payload, clip, scope_metadata, traced
from langgraph_memory.write.episodes import linked
from langgraph_memory.write.reconcile import decision_summary
from langgraph_memory.write.types import Fact

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore


def _apply_inputs(arguments: Mapping[str, Any]) -> Payload:
    """A ``memory.apply`` run's inputs: the decision to carry out and the fact's text.

    >>> _apply_inputs({"fact": Fact("User is vegan.")})
    {'decision': None, 'fact': 'User is vegan.', 'pinned': None}
    """
    decision = arguments.get("decision")
    fact = arguments.get("fact")
    return {
        "decision": decision_summary(decision) if isinstance(decision, Decision) else None,
        "fact": clip(getattr(fact, "text", None)),
        "pinned": arguments.get("pinned"),
    }


def _apply_outputs(decision: Decision) -> Payload:
    """A ``memory.apply`` run's outputs: the decision as logged (with its log id and the
    memory it made, if any), long texts cut.

    >>> d = Decision(op=DecisionOp.ADD, fact="User is vegan.", text="User is vegan.")
    >>> _apply_outputs(d)["op"]
    'ADD'
    """
    out = decision.to_dict()
    for key in ("fact", "text", "raw"):
        out[key] = clip(out[key])
    out["shown_texts"] = [clip(t) for t in out["shown_texts"]]
    return out


#: The GenAI conventions' operation of each decision a step applies.
OPERATIONS = {
    DecisionOp.ADD: telemetry.CREATE_MEMORY,
    DecisionOp.UPDATE: telemetry.UPDATE_MEMORY,
    DecisionOp.DELETE: telemetry.DELETE_MEMORY,
}


def _apply_span(arguments: Mapping[str, Any]) -> telemetry.Attributes:
    """A ``memory.apply`` span's operation (none for a NOOP) and the fact's memory type.

    >>> d = Decision(op=DecisionOp.ADD, fact="User is vegan.", text="User is vegan.")
    >>> _apply_span({"decision": d, "fact": Fact("User is vegan.")})
    {'gen_ai.operation.name': 'create_memory', 'gen_ai.memory.type': 'semantic'}
    """
    out: telemetry.Attributes = {}
    decision, fact = arguments.get("decision"), arguments.get("fact")
    if isinstance(decision, Decision) and decision.op in OPERATIONS:
        out[telemetry.OPERATION] = OPERATIONS[decision.op]
    if isinstance(fact, Fact):
        out[telemetry.MEMORY_TYPE] = fact.kind.value
    return out


def _applied(decision: Decision) -> telemetry.Attributes:
    """A ``memory.apply`` span's outcome: the op and status as logged, the memory made.

    >>> _applied(Decision(op=DecisionOp.NOOP, fact="x"))
    {'langgraph_memory.decision.op': 'NOOP', 'langgraph_memory.decision.status': 'applied'}
    """
    out: telemetry.Attributes = {
        telemetry.DECISION_OP: decision.op.value,
        telemetry.DECISION_STATUS: decision.status.value,
    }
    if decision.result_id:
        out[telemetry.MEMORY_ID] = decision.result_id
    return out


@traced(  # a `memory.apply` run when LangSmith tracing is on, and a span with OpenTelemetry
    "memory.apply",
    inputs=_apply_inputs,
    outputs=_apply_outputs,
    metadata=scope_metadata,
    otel=telemetry.StepSpec(
        arguments=_apply_span,
        result=_applied,
        content=lambda _, d: {} if d.text is None else {telemetry.CONTENT: telemetry.clip(d.text)},
    ),
)
def apply(
    store: MemoryStore,
    scope: ScopeLike,
    decision: Decision,
    fact: Fact,
    *,
    now: datetime | None = None,
    turn_id: str | None = None,
    pinned: bool | None = None,
    episode_id: str | None = None,
    vector: Sequence[float] | None = None,
) -> Decision:
    """Carry out ``decision`` for ``fact`` and log it; returns the logged decision.

    ``episode_id`` is the episode the fact was taken from (linked in ``sources``);
    ``vector`` is the fact text's vector when the caller has it (the write path
    embeds a turn's texts in one call): an ADD of that very text reuses it.
    """
    when = utc(now) if now is not None else now_utc()
    result_id = None
    said_in = {SAID_IN: episode_id or ""}
    try:
        old = None
        if decision.op in (DecisionOp.UPDATE, DecisionOp.DELETE) and decision.target_id:
            old = store.get_memory(scope, decision.target_id)
            # The turn's time was taken before its write waited for the scope's lock;
            # another process may have made this version since. A version cannot close
            # before it opens: the change applies when the version opened, in the order
            # the lock gave (the timeline never runs backwards).
            when = max(when, old.created_at)
        if decision.op is DecisionOp.ADD and decision.text:
            item = {
                "text": decision.text,
                "importance": fact.importance,
                "kind": fact.kind,
                "pinned": bool(pinned),
                "source": fact.source,
                "trust": fact.trust,
                "event_time": fact.event_time,
                "sources": () if episode_id is None else (episode_id,),
                "metadata": said_in,
            }
            same_text = vector is not None and decision.text == fact.text
            vectors = [vector] if same_text and vector is not None else None
            [added] = store.add_many(scope, [item], now=when, vectors=vectors)
            result_id = added.id
        elif decision.op is DecisionOp.UPDATE and decision.text and decision.target_id:
            extra: dict[str, object] = {"metadata": said_in}
            if pinned is not None:
                extra["pinned"] = pinned
            if episode_id is not None and old is not None:
                extra["sources"] = linked(old.sources, episode_id)
            result_id = store.update(
                scope,
                decision.target_id,
                decision.text,
                importance=fact.importance,
                source=fact.source,
                trust=fact.trust,
                now=when,
                **extra,
            ).id
        elif decision.op is DecisionOp.DELETE and decision.target_id:
            closed = store.archive(scope, decision.target_id, now=when)
            # What its episodes said no longer holds; nothing replaces it.
            retracted = {RETRACTED: when.isoformat()}
            stores.internals(store).mark(scope, dict.fromkeys(closed.said_in, retracted))
    except MemoryKitError as exc:
        decision = decision.with_(status=Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    logged = decision.with_(result_id=result_id, turn_id=turn_id or decision.turn_id)
    return stores.internals(store).log(scope, logged, now=when)[0]
