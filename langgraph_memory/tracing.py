"""LangSmith tracing: opening a named run around a step, with small payloads.

With tracing on (``LANGSMITH_TRACING=true``, or ``langsmith.tracing_context``)
a function wrapped by ``traced`` is a run of its own, nested under whatever run
is current (a LangGraph node, say). This module knows no step: each step
declares its run where it is defined, with the summaries of its own inputs and
outputs (the records summarise themselves, ``Fact.trace_summary`` say):

- ``memory.retrieve`` (a retriever run, ``read.retrieve``): the memories found,
  as documents;
- ``memory.extract`` (``write.extract``): the facts of a turn, what was
  rejected, and why;
- ``memory.reconcile`` (``write.reconcile``): the validated decision(s), before
  they are applied;
- ``memory.apply`` (``write.apply``): the decision as logged.

What is here is what every run shares: the payload limits (``clip``: a long
text is cut to ``MAX_TRACE_CHARS``), and the scope rule. Every run carries
``scope_kind`` in its metadata (``scope_metadata``, or ``trace_scope`` for a
step not given the scope), never the scope's id (ids are user ids, emails,
thread ids: personal data that has no business in a tracing backend). Inputs
and outputs are small JSON-ready summaries: never the store, the model or the
writer.

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
from typing import Any, Literal, ParamSpec, TypeVar, cast

from langgraph_memory import telemetry
from langgraph_memory.scope import Scope, ScopeLike

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
    return None if text is None else telemetry.clip(text, limit)  # one cut, both backends


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
    otel: telemetry.StepSpec | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Trace a function as the LangSmith run ``name``, keeping its signature; with
    OpenTelemetry installed, also the span ``name`` (``telemetry.spanned``, ``otel``
    says what it carries), around the run.

    ``inputs`` gets the call's arguments by name (``self`` left out) and
    ``outputs`` the result; both return what is shown in the run instead.
    ``metadata`` gets the arguments too (``self`` included) and adds per-call
    metadata. None of them may be costly: they run only when tracing is on.

    >>> @traced("demo.inc", inputs=dict, outputs=lambda n: {"n": n}, metadata=scope_metadata)
    ... def inc(scope: str, n: int) -> int:
    ...     return n + 1
    >>> inc("user:alice", 1)
    2
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

        return telemetry.spanned(name, otel)(wrapper)

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
    """Steps run inside carry ``scope``'s kind, even those not given the scope (and
    their OpenTelemetry spans its attributes: ``telemetry.scope_context``).

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
        with telemetry.scope_context(scope):
            yield
    finally:
        _SCOPE_KIND.reset(token)


def scope_metadata(arguments: Mapping[str, Any]) -> Payload:
    """``scope_kind`` from a call's ``scope`` argument, else from ``trace_scope``.

    >>> scope_metadata({"scope": "user:alice"})
    {'scope_kind': 'user'}
    """
    if "scope" in arguments:
        return {"scope_kind": scope_kind(arguments["scope"])}
    kind = _SCOPE_KIND.get()
    return {} if kind is None else {"scope_kind": kind}
