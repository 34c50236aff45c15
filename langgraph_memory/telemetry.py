"""OpenTelemetry: a span per memory step, and the kit's metrics (the ``otel`` extra).

With ``opentelemetry-api`` installed (``pip install "langgraph-memory-kit[otel]"``)
every step that is a LangSmith run (``tracing.traced``: ``memory.retrieve``,
``memory.extract``, ``memory.reconcile``, ``memory.apply``, ``memory.summarize``)
is also an OpenTelemetry span, as are a turn's write (``memory.write``, the
parent of its steps), ``memory.remember``, ``MemoryStore.purge``
(``memory.purge``) and the lifecycle jobs (``memory.decay``,
``memory.consolidate``, ``memory.reflect``, ``memory.maintain``). The spans go
where the application's tracer provider sends them: with none configured,
OpenTelemetry's own no-op applies and nothing is recorded. Without the package
the functions here do nothing, and it is imported on first use only.

Names follow the GenAI semantic conventions where they define one
(``gen_ai.operation.name``: ``search_memory``, ``create_memory``,
``update_memory``, ``delete_memory``; ``gen_ai.memory.record.count``,
``gen_ai.memory.id``; ``gen_ai.retrieval.query.text``); the rest are the
kit's (``gen_ai.memory.type``, ``gen_ai.memory.scope.kind`` and
``gen_ai.memory.scope.id`` in the conventions' spirit, ``langgraph_memory.*``).

``LANGGRAPH_MEMORY_OTEL=false`` turns the kit's telemetry off whatever the
providers. What leaves, as with LangSmith: the scope's kind, counts, decisions' ops and
statuses, never the scope's id nor a memory's text unless opted in:
``LANGGRAPH_MEMORY_OTEL_SCOPE_IDS=true`` adds the scope's id,
``LANGGRAPH_MEMORY_OTEL_CONTENT=true`` the query and the memories' texts (cut
to ``MAX_CONTENT_CHARS``). Telemetry never breaks a step: a failure of it is
logged at debug level and the step runs as if untraced.

Metrics (meter ``langgraph_memory``): ``langgraph_memory.writes`` (the write
path's logged decisions, by op and status), ``langgraph_memory.read.duration``
(seconds per ``retrieve``), ``langgraph_memory.queue.depth`` and
``langgraph_memory.queue.lag`` (the background writers' turns queued or in
flight, and the seconds the oldest has waited).

>>> @spanned("demo.double", StepSpec(operation=SEARCH_MEMORY))
... def double(scope: str, n: int) -> int:
...     return 2 * n
>>> double("user:alice", 21)
42
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ParamSpec, Protocol, TypeVar

from langgraph_memory.scope import Scope, ScopeLike

log = logging.getLogger("langgraph_memory")

P = ParamSpec("P")
R = TypeVar("R")
AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int] | Sequence[float]
Attributes = dict[str, AttributeValue]

# -- names ------------------------------------------------------------------------------
# From the GenAI semantic conventions (the memory operations' proposal, and the
# retrieval attributes of opentelemetry-semantic-conventions 0.66b2).
OPERATION = "gen_ai.operation.name"
SEARCH_MEMORY = "search_memory"
CREATE_MEMORY = "create_memory"
UPDATE_MEMORY = "update_memory"
DELETE_MEMORY = "delete_memory"
RECORD_COUNT = "gen_ai.memory.record.count"
MEMORY_ID = "gen_ai.memory.id"
QUERY_TEXT = "gen_ai.retrieval.query.text"
# The kit's, in the conventions' spirit: none defines them yet.
MEMORY_TYPE = "gen_ai.memory.type"
SCOPE_KIND = "gen_ai.memory.scope.kind"
SCOPE_ID = "gen_ai.memory.scope.id"
CONTENT = "gen_ai.memory.content"
DECISION_OP = "langgraph_memory.decision.op"
DECISION_STATUS = "langgraph_memory.decision.status"
DECISION_OPS = "langgraph_memory.decision.ops"

#: Opt-ins, read at each step: ``true``, ``1`` or ``yes``.
SCOPE_IDS_ENV = "LANGGRAPH_MEMORY_OTEL_SCOPE_IDS"
CONTENT_ENV = "LANGGRAPH_MEMORY_OTEL_CONTENT"
#: ``false``, ``0``, ``no`` or ``off``: the kit records nothing, whatever the providers
#: (an application that traces other things and not its memory). Read at each step.
OFF_ENV = "LANGGRAPH_MEMORY_OTEL"

#: Longest memory text put in a span as is; longer ones are cut.
MAX_CONTENT_CHARS = 2_000

_VERSION = "1"  # the instrumentation's own schema, not the kit's release

#: The scope of the write in progress, for steps not given one (see ``scope_context``).
_SCOPE: ContextVar[Scope | None] = ContextVar("langgraph_memory_otel_scope", default=None)


@dataclass(frozen=True)
class StepSpec:
    """What a step's span says besides its name and scope, each hook called only when
    the span records.

    ``operation``: its ``gen_ai.operation.name``; ``arguments``: attributes from the
    call's arguments by name; ``result``: attributes from what it returned;
    ``content``: texts from both (only with ``LANGGRAPH_MEMORY_OTEL_CONTENT``);
    ``writes``: the (op, status) of each decision the write path logged, counted in
    ``langgraph_memory.writes`` whenever OpenTelemetry is installed; ``read``: its
    duration goes to ``langgraph_memory.read.duration``.

    >>> StepSpec(operation=DELETE_MEMORY).operation
    'delete_memory'
    """

    operation: str | None = None
    arguments: Callable[[Mapping[str, Any]], Attributes] | None = None
    result: Callable[[Any], Attributes] | None = None
    content: Callable[[Mapping[str, Any], Any], Attributes] | None = None
    writes: Callable[[Any], Iterable[tuple[str, str]]] | None = None
    read: bool = False


class Queue(Protocol):
    """What the queue gauges read of a background writer."""

    @property
    def pending(self) -> int: ...  # turns queued or in flight

    @property
    def lag(self) -> float: ...  # seconds the oldest of them has waited


@functools.cache
def _api() -> tuple[ModuleType, ModuleType, ModuleType] | None:
    """OpenTelemetry's trace, metrics and context API, imported on first use; None
    without it."""
    try:
        from opentelemetry import context, metrics, trace
    except ImportError:
        return None
    return trace, metrics, context


def _opted_in(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


def _switched_off() -> bool:
    return os.environ.get(OFF_ENV, "").strip().lower() in ("0", "false", "no", "off")


def clip(text: str, limit: int = MAX_CONTENT_CHARS) -> str:
    """``text`` cut to ``limit`` characters with a marker.

    >>> clip("abcdef", 3)
    'abc… (6 chars)'
    """
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


def scope_attributes(scope: ScopeLike | None) -> Attributes:
    """A span's scope attributes: its kind, and its id only when opted in.

    >>> scope_attributes("user:alice")
    {'gen_ai.memory.scope.kind': 'user'}
    """
    if scope is None:
        return {}
    parsed = Scope.of(scope)
    out: Attributes = {SCOPE_KIND: parsed.kind}
    if _opted_in(SCOPE_IDS_ENV):
        out[SCOPE_ID] = parsed.id
    return out


@contextmanager
def scope_context(scope: ScopeLike) -> Iterator[None]:
    """Spans opened inside carry ``scope``'s attributes, even those not given it.

    >>> with scope_context("user:alice"):
    ...     _SCOPE.get().kind
    'user'
    """
    try:
        token = _SCOPE.set(Scope.of(scope))
    except Exception:  # an invalid scope fails in the step itself, not here
        yield
        return
    try:
        yield
    finally:
        _SCOPE.reset(token)


def spanned(name: str, spec: StepSpec | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run a function inside the span ``name`` (see ``StepSpec``), keeping its signature.

    The scope comes from a ``scope`` argument, else from ``scope_context``.

    >>> @spanned("demo.inc")
    ... def inc(n: int) -> int:
    ...     return n + 1
    >>> inc(1), inc.__name__
    (2, 'inc')
    """
    spec = spec or StepSpec()

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)
        names = list(signature.parameters)
        at = names.index("scope") if "scope" in names else None  # found without a bind

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            api = _api()
            if api is None or _switched_off():  # the plain function, nothing else
                return func(*args, **kwargs)
            call = _Call(signature, at, args, kwargs)
            started = time.perf_counter()
            opened = _open(api, name, _describe(spec, call))
            try:
                result = func(*args, **kwargs)
            except BaseException as exc:
                _close(api, opened, exc)
                raise
            if opened is not None and opened.recording:
                _conclude(opened.span, spec, call, result)
            _close(api, opened, None)
            if spec.read:
                _record_read(api, time.perf_counter() - started, call)
            if spec.writes is not None:
                _count_writes(api, spec.writes, result, call)
            return result

        return wrapper

    return decorate


class _Call:
    """A call's arguments by name and its scope, worked out once, when first asked."""

    def __init__(
        self, signature: inspect.Signature, at: int | None, args: Any, kwargs: Any
    ) -> None:
        self._signature, self._at, self._args, self._kwargs = signature, at, args, kwargs

    @functools.cached_property
    def arguments(self) -> Mapping[str, Any]:
        try:
            return self._signature.bind_partial(*self._args, **self._kwargs).arguments
        except TypeError:  # bad arguments: the step raises its own, clearer error
            return {}

    @functools.cached_property
    def scope(self) -> Scope | None:
        if "scope" in self._kwargs:
            given = self._kwargs["scope"]
        elif self._at is not None and self._at < len(self._args):
            given = self._args[self._at]
        else:
            given = _SCOPE.get()
        try:
            return None if given is None else Scope.of(given)
        except Exception:  # an invalid scope: the step says so itself
            return None

    def kind(self) -> Attributes:
        """The scope's kind alone: what a metric may carry."""
        return {} if self.scope is None else {SCOPE_KIND: self.scope.kind}


@dataclass(frozen=True)
class _Opened:
    span: Any
    token: object  # to make the span's parent current again
    recording: bool


def _open(api: tuple[ModuleType, ...], name: str, attributes: Attributes) -> _Opened | None:
    """The span ``name``, made current; None when the SDK fails, which never reaches
    the step. A span that does not record (no provider, sampled out) is current all the
    same: a child's sampler decides by its parent."""
    trace, context = api[0], api[2]
    try:
        span = _tracer(trace).start_span(name, attributes=attributes)
        token = context.attach(trace.set_span_in_context(span))
        return _Opened(span, token, span.is_recording())
    except Exception as exc:
        log.debug("telemetry: could not open the span %s: %r", name, exc)
        return None


def _close(
    api: tuple[ModuleType, ...], opened: _Opened | None, error: BaseException | None
) -> None:
    if opened is None:
        return
    trace, context = api[0], api[2]
    span = opened.span
    try:
        if error is not None and opened.recording:
            span.record_exception(error)
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(error).__name__))
    except Exception as exc:
        log.debug("telemetry: could not record an error on a span: %r", exc)
    try:
        context.detach(opened.token)
        span.end()
    except Exception as exc:
        log.debug("telemetry: could not close a span: %r", exc)


@functools.cache
def _tracer(trace: ModuleType) -> Any:
    # A ProxyTracer until the application sets a provider, which it then follows.
    return trace.get_tracer("langgraph_memory", _VERSION)


def _describe(spec: StepSpec, call: _Call) -> Attributes:
    """A span's attributes from the call, given when it starts (a sampler sees them)."""
    attributes: Attributes = {} if spec.operation is None else {OPERATION: spec.operation}
    try:
        attributes.update(scope_attributes(call.scope))
        if spec.arguments is not None:
            attributes.update(spec.arguments(call.arguments))
    except Exception as exc:
        log.debug("telemetry: could not describe a span: %r", exc)
    return attributes


def _conclude(span: Any, spec: StepSpec, call: _Call, result: Any) -> None:
    try:
        attributes = {} if spec.result is None else spec.result(result)
        if spec.content is not None and _opted_in(CONTENT_ENV):
            attributes.update(spec.content(call.arguments, result))
        if attributes:
            span.set_attributes(attributes)  # one call: the SDK checks each call's values
    except Exception as exc:
        log.debug("telemetry: could not summarise a span's result: %r", exc)


# -- metrics ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Instruments:
    writes: Any
    read: Any


@functools.cache
def _instruments(metrics: ModuleType) -> _Instruments:
    # On OpenTelemetry's proxy meter until the application sets a provider.
    meter = metrics.get_meter("langgraph_memory", _VERSION)
    meter.create_observable_gauge(
        "langgraph_memory.queue.depth",
        callbacks=[_observe(metrics, lambda q: float(q.pending), sum)],
        unit="{turn}",
        description="Turns queued or in flight in the background writers",
    )
    meter.create_observable_gauge(
        "langgraph_memory.queue.lag",
        callbacks=[_observe(metrics, lambda q: q.lag, max)],
        unit="s",
        description="Seconds the oldest turn queued or in flight has waited",
    )
    return _Instruments(
        writes=meter.create_counter(
            "langgraph_memory.writes",
            unit="{decision}",
            description="Decisions the write path logged, by op and status",
        ),
        read=meter.create_histogram(
            "langgraph_memory.read.duration",
            unit="s",
            description="Seconds per read (retrieve)",
        ),
    )


_QUEUES: weakref.WeakSet[Any] = weakref.WeakSet()


def _observe(
    metrics: ModuleType, read: Callable[[Queue], float], combine: Callable[[list[float]], float]
) -> Callable[[Any], list[Any]]:
    def callback(options: Any) -> list[Any]:
        if _switched_off():
            return []
        values = []
        for queue in list(_QUEUES):
            try:
                values.append(read(queue))
            except Exception as exc:  # a closed writer, a lost queue: no value, no error
                log.debug("telemetry: could not read a queue: %r", exc)
        return [metrics.Observation(combine(values))] if values else []

    return callback


def watch_queue(queue: Queue) -> None:
    """Report ``queue``'s depth and lag in the queue gauges while it lives.

    >>> class Idle:
    ...     pending, lag = 0, 0.0
    >>> watch_queue(Idle())
    """
    api = _api()
    if api is None:
        return
    try:
        _instruments(api[1])
        _QUEUES.add(queue)
    except Exception as exc:
        log.debug("telemetry: could not watch a queue: %r", exc)


def _record_read(api: tuple[ModuleType, ...], seconds: float, call: _Call) -> None:
    try:
        _instruments(api[1]).read.record(seconds, {OPERATION: SEARCH_MEMORY, **call.kind()})
    except Exception as exc:
        log.debug("telemetry: could not record a read: %r", exc)


def _count_writes(
    api: tuple[ModuleType, ...],
    writes: Callable[[Any], Iterable[tuple[str, str]]],
    result: Any,
    call: _Call,
) -> None:
    try:
        counter, scope = _instruments(api[1]).writes, call.kind()
        for op, status in writes(result):
            counter.add(1, {DECISION_OP: op, DECISION_STATUS: status, **scope})
    except Exception as exc:
        log.debug("telemetry: could not count writes: %r", exc)
