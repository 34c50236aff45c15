"""LangSmith tracing of the memory steps: one named run per step, small payloads.

With tracing on (``LANGSMITH_TRACING=true``, or ``langsmith.tracing_context``)
each step is a run of its own, nested under whatever run is current (a
LangGraph node, say):

- ``memory.retrieve`` (a retriever run): the memories found, as documents;
- ``memory.extract``: the facts of a turn, what was rejected, and why;
- ``memory.reconcile``: the validated decision(s), before they are applied;
- ``memory.apply``: the decision as logged.

Every run carries ``scope_kind`` in its metadata, never the scope's id (ids
are user ids, emails, thread ids: personal data that has no business in a
tracing backend). Inputs and outputs are small JSON-ready summaries: never the
store, the model or the writer.

With tracing off a traced step is the plain function, called directly; and
tracing never breaks a step: a failure of the tracing machinery is logged
(at debug level) and the step runs, or its result is returned, as if untraced.

>>> @traced("demo.double", inputs=dict, outputs=lambda n: {"n": n})
... def double(n: int) -> int:
...     return 2 * n
>>> double(21)
42
>>> double.__name__
'double'
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, ParamSpec, Protocol, TypeVar, cast

from langgraph_memory.records import Decision, Kind, Memory, Source, Trust
from langgraph_memory.scope import Scope, ScopeLike

# What the payload functions read of the steps' records. The step modules import
# this one, so it names their records by shape (Protocols), never by import.


class Fact(Protocol):
    """A fact as extracted (``langgraph_memory.write.types.Fact``)."""

    @property
    def text(self) -> str: ...
    @property
    def importance(self) -> float: ...
    @property
    def source(self) -> Source: ...
    @property
    def trust(self) -> Trust: ...
    @property
    def kind(self) -> Kind: ...


class Extraction(Protocol):
    """An extraction's outcome (``langgraph_memory.write.types.Extraction``)."""

    @property
    def facts(self) -> Sequence[Fact]: ...
    @property
    def rejected(self) -> Sequence[tuple[str, str]]: ...
    @property
    def error(self) -> str | None: ...


class Retrieved(Protocol):
    """A ranked memory (``langgraph_memory.read.retrieve.Retrieved``)."""

    @property
    def memory(self) -> Memory: ...
    @property
    def score(self) -> float: ...
    @property
    def recency(self) -> float: ...
    @property
    def relevance(self) -> float: ...
    @property
    def importance(self) -> float: ...
    @property
    def pinned(self) -> bool: ...


log = logging.getLogger("langgraph_memory")

P = ParamSpec("P")
R = TypeVar("R")
Payload = dict[str, Any]
RunType = Literal["chain", "retriever", "tool", "llm", "prompt", "embedding", "parser"]

#: Longest text put in a trace as is; longer ones are cut (a pasted document
#: is not worth shipping whole on every step that sees it).
MAX_TRACE_CHARS = 2_000

#: The scope kind of the write in progress, for steps that are not given a
#: scope (extraction reads a turn, not a scope). Set by ``trace_scope``.
_SCOPE_KIND: ContextVar[str | None] = ContextVar("langgraph_memory_scope_kind", default=None)


@dataclass
class _Outcome:
    """What the traced function did, so a tracing failure can be told from its own."""

    started: bool = False
    finished: bool = False
    result: Any = None
    error: BaseException | None = None


_OUTCOME: ContextVar[_Outcome | None] = ContextVar("langgraph_memory_trace_outcome", default=None)


def tracing_on() -> bool:
    """Whether a traced step would be recorded now (context, parent run or environment).

    >>> import langsmith
    >>> with langsmith.tracing_context(enabled=False):
    ...     tracing_on()
    False
    """
    # Imported here: LangSmith loads when a traced step first runs, not with the package.
    from langsmith.utils import tracing_is_enabled

    try:
        return bool(tracing_is_enabled())
    except Exception:  # a broken tracing setup means no tracing, not a broken step
        return False


def clip(text: str | None, limit: int = MAX_TRACE_CHARS) -> str | None:
    """``text``, cut to ``limit`` characters with a marker.

    >>> clip("abcdef", 3), clip(None)
    ('abc… (6 chars)', None)
    """
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} chars)"


def scope_kind(scope: ScopeLike) -> str:
    """The kind of a scope, the only part of it that goes into traces.

    >>> scope_kind("user:alice"), scope_kind(("org", "acme"))
    ('user', 'org')
    """
    return Scope.of(scope).kind


def traced(
    name: str,
    *,
    run_type: RunType = "chain",
    inputs: Callable[[dict[str, Any]], Payload],
    outputs: Callable[[Any], Payload],
    metadata: Callable[[Mapping[str, Any]], Payload] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Trace a function as the LangSmith run ``name``, keeping its signature.

    ``inputs`` gets the call's arguments by name (``self`` left out) and
    ``outputs`` the result; both return what is shown in the run instead.
    ``metadata`` gets the arguments too (``self`` included) and adds per-call
    metadata. None of them may be costly: they run only when tracing is on.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)

        @functools.wraps(func)
        def body(*args: P.args, **kwargs: P.kwargs) -> R:
            outcome = _OUTCOME.get()
            if outcome is not None:
                outcome.started = True
            try:
                result = func(*args, **kwargs)
            except BaseException as exc:
                if outcome is not None:
                    outcome.error = exc
                raise
            if outcome is not None:
                outcome.finished, outcome.result = True, result
            return result

        @functools.cache
        def run() -> Callable[..., R]:
            from langsmith import traceable

            return traceable(
                run_type=run_type,
                name=name,
                process_inputs=_guarded(inputs, name, "inputs"),
                process_outputs=_guarded(outputs, name, "outputs"),
            )(body)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            if not tracing_on():  # tracing off: the plain function, nothing else
                return func(*args, **kwargs)
            extra = _call_metadata(metadata, signature, args, kwargs)
            outcome = _Outcome()
            token = _OUTCOME.set(outcome)
            try:
                return run()(*args, langsmith_extra={"metadata": extra}, **kwargs)
            except Exception as exc:
                if not outcome.started:  # tracing failed first: run the step untraced
                    log.debug("tracing %s failed before the step ran: %r", name, exc)
                    return func(*args, **kwargs)
                if outcome.finished:  # tracing failed after the step: keep its result
                    log.debug("tracing %s failed after the step ran: %r", name, exc)
                    return cast(R, outcome.result)
                if outcome.error is None or exc is outcome.error:  # the step's own error
                    raise
                raise outcome.error from exc  # the step's error, not the tracer's
            finally:
                _OUTCOME.reset(token)

        return wrapper

    return decorate


def _guarded(hook: Callable[[Any], Payload], name: str, what: str) -> Callable[[Any], Payload]:
    # langsmith fails closed on a hook error in recent versions; older ones
    # raised it into the traced call. Either way a summary is not worth a step.
    def run(value: Any) -> Payload:
        try:
            return hook(value)
        except Exception as exc:
            log.debug("tracing %s: could not summarise %s: %r", name, what, exc)
            return {"trace_error": f"could not summarise {what}: {type(exc).__name__}"}

    return run


def _call_metadata(
    metadata: Callable[[Mapping[str, Any]], Payload] | None,
    signature: inspect.Signature,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
) -> Payload:
    if metadata is None:
        return {}
    try:
        return metadata(signature.bind_partial(*args, **kwargs).arguments)
    except Exception as exc:  # bad arguments: the step raises its own, clearer error
        log.debug("tracing: no metadata for this call: %r", exc)
        return {}


@contextmanager
def trace_scope(scope: ScopeLike) -> Iterator[None]:
    """Steps run inside carry ``scope``'s kind, even those not given the scope.

    >>> with trace_scope("user:alice"):
    ...     _SCOPE_KIND.get()
    'user'
    >>> _SCOPE_KIND.get() is None
    True
    """
    try:
        token = _SCOPE_KIND.set(scope_kind(scope))
    except Exception:  # an invalid scope fails in the step itself, not here
        yield
        return
    try:
        yield
    finally:
        _SCOPE_KIND.reset(token)


# -- the summaries of each step ---------------------------------------------------------


def scope_metadata(arguments: Mapping[str, Any]) -> Payload:
    """``scope_kind`` from a call's ``scope`` argument, else from ``trace_scope``.

    >>> scope_metadata({"scope": "user:alice"})
    {'scope_kind': 'user'}
    """
    if "scope" in arguments:
        return {"scope_kind": scope_kind(arguments["scope"])}
    kind = _SCOPE_KIND.get()
    return {} if kind is None else {"scope_kind": kind}


def decision_summary(decision: Decision) -> Payload:
    """The validated decision as a reconcile run shows it.

    >>> from langgraph_memory.records import DecisionOp
    >>> d = Decision(op=DecisionOp.ADD, fact="User is vegan.", text="User is vegan.")
    >>> decision_summary(d)["op"]
    'ADD'
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


def fact_summary(fact: Fact) -> Payload:
    """A fact as a trace shows it: its text, importance and provenance.

    >>> from langgraph_memory.write.types import Fact
    >>> fact_summary(Fact("User is vegan.", importance=0.8))  # doctest: +NORMALIZE_WHITESPACE
    {'text': 'User is vegan.', 'importance': 0.8, 'source': 'user', 'trust': 'high',
     'kind': 'semantic'}
    """
    return {
        "text": clip(fact.text),
        "importance": fact.importance,
        "source": fact.source.value,
        "trust": fact.trust.value,
        "kind": fact.kind.value,
    }


def retrieve_inputs(arguments: Mapping[str, Any]) -> Payload:
    """The query and the knobs of a retrieval; not the store, not the scope's id."""
    as_of = arguments.get("as_of")
    return {
        "query": clip(str(arguments.get("query"))),
        "k": arguments.get("k"),
        "as_of": None if as_of is None else as_of.isoformat(),
        "pinned_limit": arguments.get("pinned_limit"),
    }


def retrieve_outputs(results: Sequence[Retrieved]) -> Payload:
    """Retrieved memories as documents, LangSmith's retriever format.

    >>> from datetime import datetime, timezone
    >>> from langgraph_memory.records import Memory
    >>> from langgraph_memory.read.retrieve import Retrieved
    >>> m = Memory(id="0a1b2c3d", text="User lives in Pune.", scope="user:a",
    ...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    >>> doc = retrieve_outputs([Retrieved(m, 0.6, 1.0, 0.5, 0.3)])["documents"][0]
    >>> doc["page_content"], doc["type"], doc["metadata"]["id"]
    ('User lives in Pune.', 'Document', '0a1b2c3d')
    """
    return {
        "documents": [
            {
                "page_content": clip(r.memory.text),
                "type": "Document",
                "metadata": {
                    "id": r.memory.id,
                    "score": r.score,
                    "recency": r.recency,
                    "relevance": r.relevance,
                    "importance": r.importance,
                    "pinned": r.pinned,
                    "created_at": r.memory.created_at.isoformat(),
                },
            }
            for r in results
        ]
    }


def extract_inputs(arguments: Mapping[str, Any]) -> Payload:
    """The turn's messages (a list or a Turn; never an iterator, which would be used up)."""
    turn = arguments.get("turn")
    messages = getattr(turn, "messages", turn)
    out: Payload = {"roles": list(arguments.get("roles") or ())}
    if isinstance(messages, (list, tuple)):
        out["messages"] = [_message(m) for m in messages]
    if getattr(turn, "id", None) is not None:
        out["turn_id"] = turn.id  # type: ignore[union-attr]
    return out


def _message(message: Any) -> Payload:
    if isinstance(message, tuple) and len(message) == 2:
        return {"role": str(message[0]), "content": clip(str(message[1]))}
    if isinstance(message, Mapping):
        return {"role": str(message.get("role")), "content": clip(str(message.get("content")))}
    role = getattr(message, "role", None) or getattr(message, "type", None)
    return {"role": str(role), "content": clip(str(getattr(message, "content", message)))}


def extract_outputs(extraction: Extraction) -> Payload:
    """The facts kept, those rejected and why, and the error if the answer was unusable."""
    return {
        "facts": [fact_summary(f) for f in extraction.facts],
        "rejected": [{"text": clip(t), "reason": why} for t, why in extraction.rejected],
        "error": extraction.error,
    }


def extract_metadata(arguments: Mapping[str, Any]) -> Payload:
    """The scope kind of the write in progress and the ``MemoryModel``'s name
    (``rules``, or ``chat:`` and the chat model's)."""
    out = scope_metadata(arguments)
    name = getattr(arguments.get("model"), "name", None)
    if isinstance(name, str):
        out["memory_model"] = name
    return out


def reconcile_inputs(arguments: Mapping[str, Any]) -> Payload:
    """The fact(s) being reconciled and the turn's id."""
    out: Payload = {"turn_id": getattr(arguments.get("turn"), "id", None)}
    if "fact" in arguments:
        out["fact"] = fact_summary(arguments["fact"])
    if "facts" in arguments:
        out["facts"] = [fact_summary(f) for f in arguments["facts"]]
    return out


def reconcile_outputs(result: Decision | Sequence[Decision]) -> Payload:
    """One decision's fields, or ``decisions``: a list of them (``reconcile="batched"``)."""
    if isinstance(result, Decision):
        return decision_summary(result)
    return {"decisions": [decision_summary(d) for d in result]}


def reconcile_metadata(arguments: Mapping[str, Any]) -> Payload:
    """The scope kind, the writer's ``reconcile`` (``per_fact`` or ``batched``) as
    ``memory_reconcile``, and its memory model's name as ``memory_model``."""
    out = scope_metadata(arguments)
    writer = arguments.get("self")
    reconcile = getattr(writer, "reconcile", None)
    if isinstance(reconcile, str):
        out["memory_reconcile"] = reconcile
    name = getattr(getattr(writer, "model", None), "name", None)
    if isinstance(name, str):
        out["memory_model"] = name
    return out


def apply_inputs(arguments: Mapping[str, Any]) -> Payload:
    """The decision to carry out and the fact's text."""
    decision = arguments.get("decision")
    fact = arguments.get("fact")
    return {
        "decision": decision_summary(decision) if isinstance(decision, Decision) else None,
        "fact": clip(getattr(fact, "text", None)),
        "pinned": arguments.get("pinned"),
    }


def apply_outputs(decision: Decision) -> Payload:
    """The decision as logged (with its log id and the memory it made, if any)."""
    out = decision.to_dict()
    for key in ("fact", "text", "raw"):
        out[key] = clip(out[key])
    out["shown_texts"] = [clip(t) for t in out["shown_texts"]]
    return out


def trace_retrieve(func: Callable[P, R]) -> Callable[P, R]:
    """``memory.retrieve``, a retriever run."""
    return traced(
        "memory.retrieve",
        run_type="retriever",
        inputs=retrieve_inputs,
        outputs=retrieve_outputs,
        metadata=scope_metadata,
    )(func)


def trace_extract(func: Callable[P, R]) -> Callable[P, R]:
    """``memory.extract``."""
    return traced(
        "memory.extract", inputs=extract_inputs, outputs=extract_outputs, metadata=extract_metadata
    )(func)


def trace_reconcile(func: Callable[P, R]) -> Callable[P, R]:
    """``memory.reconcile``, for a ``MemoryWriter`` method returning validated decision(s)."""
    return traced(
        "memory.reconcile",
        inputs=reconcile_inputs,
        outputs=reconcile_outputs,
        metadata=reconcile_metadata,
    )(func)


def trace_apply(func: Callable[P, R]) -> Callable[P, R]:
    """``memory.apply``."""
    return traced(
        "memory.apply", inputs=apply_inputs, outputs=apply_outputs, metadata=scope_metadata
    )(func)
