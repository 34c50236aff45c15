"""OpenTelemetry: a read, a turn's write, a purge and a lifecycle job are spans named
and attributed per the GenAI memory conventions, nested under one trace; the scope's
id and the memories' texts leave only when opted in; the metrics count the writes by
decision, time the reads and watch the background writer's queue; without
OpenTelemetry nothing is recorded and nothing changes; a broken SDK never breaks a
step.

Read with the SDK's ``InMemorySpanExporter`` and ``InMemoryMetricReader`` on the
global providers (set once for the process: OpenTelemetry allows no second).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from conftest import slow_writer
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from langgraph_memory import MemoryStore, telemetry
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.lifecycle import forget_stale, maintain
from langgraph_memory.read.retrieve import retrieve
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
U = "user:alice"
SAID = "I live in Delhi and I work as a nurse."


class Otel:
    """The process's span exporter and metric reader."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.reader = InMemoryMetricReader()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.spans))
        trace.set_tracer_provider(provider)
        metrics.set_meter_provider(MeterProvider(metric_readers=[self.reader]))

    def finished(self, prefix: str = "memory.") -> list[ReadableSpan]:
        return [s for s in self.spans.get_finished_spans() if s.name.startswith(prefix)]

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.finished() if s.name == name]

    def points(self, metric: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        found += list(m.data.data_points)
        return found


_OTEL: list[Otel] = []


@pytest.fixture
def otel() -> Iterator[Otel]:
    if not _OTEL:
        _OTEL.append(Otel())
    found = _OTEL[0]
    found.spans.clear()
    found.reader.get_metrics_data()  # counters are cumulative: read the totals before
    yield found
    found.spans.clear()


def written(store: MemoryStore) -> list[Any]:
    return MemoryWriter(store, RulesModel()).write_turn(U, [("user", SAID)], now=T0)


def values(spans: list[ReadableSpan]) -> str:
    """Every attribute value of ``spans``, as one text to search."""
    return " ".join(str(v) for s in spans for v in (s.attributes or {}).values())


def counter_total(otel: Otel, **attributes: str) -> int:
    return sum(
        int(p.value)
        for p in otel.points("langgraph_memory.writes")
        if all(p.attributes.get(k) == v for k, v in attributes.items())
    )


def test_a_read_is_a_search_memory_span_with_its_count_and_latency(
    store: MemoryStore, otel: Otel
) -> None:
    written(store)
    otel.spans.clear()
    found = retrieve(store, U, "Where does the user live?", k=3, now=T0)
    (span,) = otel.named("memory.retrieve")
    attributes = dict(span.attributes or {})
    assert attributes[telemetry.OPERATION] == "search_memory"
    assert attributes[telemetry.SCOPE_KIND] == "user"
    assert attributes[telemetry.RECORD_COUNT] == len(found) > 0
    (read,) = [
        p
        for p in otel.points("langgraph_memory.read.duration")
        if p.attributes.get(telemetry.SCOPE_KIND) == "user"
    ]
    assert read.count >= 1 and read.sum > 0
    assert read.attributes[telemetry.OPERATION] == "search_memory"


def test_a_write_turn_nests_its_steps_under_one_trace(store: MemoryStore, otel: Otel) -> None:
    before = counter_total(otel, **{telemetry.DECISION_OP: "ADD"})
    decisions = written(store)
    (write,) = otel.named("memory.write")
    steps = [s for s in otel.finished() if s.name != "memory.write"]
    assert {s.name for s in steps} == {"memory.extract", "memory.reconcile", "memory.apply"}
    assert write.parent is None
    for step in steps:
        assert step.context.trace_id == write.context.trace_id
        assert step.parent is not None and step.parent.span_id == write.context.span_id
    added = [d for d in decisions if d.op.value == "ADD"]
    assert added, decisions
    applies = otel.named("memory.apply")
    assert len(applies) == len(decisions)
    first = dict(applies[0].attributes or {})
    assert first[telemetry.OPERATION] == "create_memory"
    assert first[telemetry.MEMORY_TYPE] == "semantic"
    assert first[telemetry.DECISION_OP] == "ADD"
    assert first[telemetry.DECISION_STATUS] == "applied"
    assert first[telemetry.MEMORY_ID] == added[0].result_id
    attributes = dict(write.attributes or {})
    assert attributes[telemetry.OPERATION] == "update_memory"
    assert attributes[telemetry.RECORD_COUNT] == len(decisions)
    assert list(attributes[telemetry.DECISION_OPS]) == [d.op.value for d in decisions]
    (extract,) = otel.named("memory.extract")
    assert (extract.attributes or {})[telemetry.SCOPE_KIND] == "user"  # from trace_scope
    after = counter_total(otel, **{telemetry.DECISION_OP: "ADD"})
    assert after - before == len(added)
    point = next(
        p for p in otel.points("langgraph_memory.writes") if p.attributes[telemetry.DECISION_OP]
    )
    assert set(point.attributes) == {
        telemetry.DECISION_OP,
        telemetry.DECISION_STATUS,
        telemetry.SCOPE_KIND,
    }


def test_no_scope_id_nor_memory_text_unless_opted_in(
    store: MemoryStore, otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    written(store)
    retrieve(store, U, "Where does the user live?", now=T0)
    quiet = values(otel.finished())
    assert "alice" not in quiet and "Delhi" not in quiet
    assert not any(
        key in (s.attributes or {})
        for s in otel.finished()
        for key in (telemetry.SCOPE_ID, telemetry.CONTENT, telemetry.QUERY_TEXT)
    )
    assert "alice" not in str([p.attributes for p in otel.points("langgraph_memory.writes")])

    otel.spans.clear()
    monkeypatch.setenv(telemetry.SCOPE_IDS_ENV, "true")
    monkeypatch.setenv(telemetry.CONTENT_ENV, "true")
    retrieve(store, U, "Where does the user live?", now=T0)
    (span,) = otel.named("memory.retrieve")
    attributes = dict(span.attributes or {})
    assert attributes[telemetry.SCOPE_ID] == "alice"
    assert attributes[telemetry.QUERY_TEXT] == "Where does the user live?"
    assert any("Delhi" in text for text in attributes[telemetry.CONTENT])
    # Metrics never carry the id: one series per user would leak it and cost.
    assert all(
        telemetry.SCOPE_ID not in p.attributes
        for p in otel.points("langgraph_memory.read.duration")
    )


def test_a_purge_is_a_delete_memory_span(store: MemoryStore, otel: Otel) -> None:
    written(store)
    otel.spans.clear()
    counts = store.purge(U)
    (span,) = otel.named("memory.purge")
    attributes = dict(span.attributes or {})
    assert attributes[telemetry.OPERATION] == "delete_memory"
    assert attributes[telemetry.SCOPE_KIND] == "user"
    assert attributes[telemetry.RECORD_COUNT] == counts["memories"] > 0
    assert attributes["langgraph_memory.purge.whole_scope"] is True
    assert "alice" not in values([span])


def test_lifecycle_jobs_are_spans_under_maintain(store: MemoryStore, otel: Otel) -> None:
    written(store)
    otel.spans.clear()
    later = T0 + timedelta(days=3650)
    decided = forget_stale(store, U, now=later, dry_run=True)
    (decay,) = otel.named("memory.decay")
    assert (decay.attributes or {})[telemetry.OPERATION] == "delete_memory"
    assert (decay.attributes or {})[telemetry.RECORD_COUNT] == len(decided)
    otel.spans.clear()
    maintain(store, U, now=later, steps=("decay",), dry_run=True)
    (job,) = otel.named("memory.maintain")
    (decay,) = otel.named("memory.decay")
    assert decay.parent is not None and decay.parent.span_id == job.context.span_id
    assert (job.attributes or {})["langgraph_memory.scopes"] == 1


def test_the_queue_gauges_read_depth_and_lag(store: MemoryStore, otel: Otel) -> None:
    release = threading.Event()
    bg = BackgroundWriter(slow_writer(store, release.wait), workers=1, journal=False)
    try:
        for i in range(3):
            bg.submit(U, [("user", f"I like tea number {i}.")], now=T0, turn_id=f"t{i}")
        threading.Event().wait(0.05)
        (depth,) = otel.points("langgraph_memory.queue.depth")
        (lag,) = otel.points("langgraph_memory.queue.lag")
        assert depth.value == 3
        assert lag.value >= 0.05
        release.set()
        assert bg.flush(timeout=60)
        (depth,) = otel.points("langgraph_memory.queue.depth")
        (lag,) = otel.points("langgraph_memory.queue.lag")
        assert (depth.value, lag.value) == (0, 0.0)
    finally:
        release.set()
        bg.close()


def test_a_failed_step_is_an_error_span_and_raises_its_own_error(
    store: MemoryStore, otel: Otel
) -> None:
    with pytest.raises(InvalidArgumentError):
        retrieve(store, U, "anything", k=0)
    (span,) = otel.named("memory.retrieve")
    assert span.status.status_code is StatusCode.ERROR
    assert [e.name for e in span.events] == ["exception"]


def test_without_opentelemetry_nothing_is_recorded_and_nothing_changes(
    store: MemoryStore, otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(telemetry, "_api", lambda: None)  # as if the package were absent
    before = counter_total(otel)
    decisions = written(store)
    found = retrieve(store, U, "Where does the user live?", now=T0)
    store.purge(U, [found[0].memory.id])
    assert decisions and found
    assert otel.finished() == []
    assert counter_total(otel) == before


def test_switched_off_the_kit_records_nothing_whatever_the_providers(
    store: MemoryStore, otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(telemetry.OFF_ENV, "false")
    before = counter_total(otel)
    assert written(store)
    assert retrieve(store, U, "Where does the user live?", now=T0)
    assert otel.finished() == []
    assert counter_total(otel) == before
    monkeypatch.setenv(telemetry.OFF_ENV, "true")  # anything else: on
    retrieve(store, U, "Where does the user live?", now=T0)
    assert [s.name for s in otel.finished()] == ["memory.retrieve"]


def test_a_broken_sdk_never_breaks_a_step(
    store: MemoryStore, otel: Otel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_: Any) -> Any:
        raise RuntimeError("exporter on fire")

    monkeypatch.setattr(telemetry, "_tracer", broken)
    monkeypatch.setattr(telemetry, "_instruments", broken)
    assert written(store)
    assert retrieve(store, U, "Where does the user live?", now=T0)
    assert otel.finished() == []
