"""What OpenTelemetry costs a read: ``retrieve`` with the kit's spans and metrics recorded
by the SDK, against the same read with the kit's telemetry off, in one process.

One scope holds a LoCoMo conversation's turns (real chat, each turn a memory stored on its
session's date, the shipped MiniLM's vectors); the conversation's own questions are read
with shipped defaults, each question once a side in turn (``SIDES``: off, on, the SDK
alone, off again, then the same rotated for the next question), so that a drift of the
machine or a neighbour's load falls on every side alike; "off again" is the same as
"off", and its ratio to it (A/A) is the noise the ratio is read against. Each question is
first read as asked again: its vector made just before the read, untimed, so that the
embedder keeps it (the cheapest read, the strictest ratio). Then the same with every
question asked as for the first time (``first_ask``: the embedder's kept query vectors
cleared before each read, untimed, so that each read runs the model on its question, as a
new question does): the span's cost against a whole read.
"On" is an SDK ``TracerProvider`` with a ``SimpleSpanProcessor`` into an
``InMemorySpanExporter`` (each span exported as it ends, in the read's thread: the dearest
setup; a ``BatchSpanProcessor`` exports off it) and a ``MeterProvider`` with an
``InMemoryMetricReader``; "off" is
``LANGGRAPH_MEMORY_OTEL=false``, under which a step is the plain function, as without the
package. "SDK alone" is "off" with one span and one latency point made by hand around the
read, the least an instrumentation can do: its ratio to "off" is the SDK's floor, and "on"
against it is what the kit's own wrapper adds. Reported: the median read of each, the
ratios to "off" (the issue's budget for "on": <= 1.05), "on" over "SDK alone", the
difference on - off in ms and the A/A ratio::

    python -m benchmarks telemetry --data ../shared/data --out docs/results/telemetry.json

Options: ``--conversation 0 --questions 100 --rounds 12`` (each question's reads a side).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from opentelemetry import context, metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from benchmarks.datasets import DATASETS, load_locomo, missing_data
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.reports import machine, publish
from langgraph_memory import retrieve
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.store import MemoryStore

__all__ = ["main", "render_markdown", "run"]

SCOPE = "user:locomo"
#: The variable that turns the kit's telemetry off (``langgraph_memory.telemetry``).
OFF = "LANGGRAPH_MEMORY_OTEL"


def _ms(seconds: Sequence[float]) -> float:
    return statistics.median(seconds) * 1000.0


def _providers() -> tuple[InMemorySpanExporter, InMemoryMetricReader]:
    """The SDK's providers, set globally (once per process), exporting to memory."""
    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    return spans, reader


#: The sides, each a read of the same question: the kit's telemetry off; on; off with a
#: span and a latency point made by hand around the read (the SDK's own cost, the floor
#: any instrumentation pays); off again (the noise).
SIDES = ("off", "on", "sdk_alone", "off_again")


def _read(store: MemoryStore, question: str, now: Any, side: str) -> float:
    """One read's seconds on ``side`` (see ``SIDES``)."""
    os.environ[OFF] = "true" if side == "on" else "false"
    started = time.perf_counter()
    if side == "sdk_alone":
        tracer, duration = _by_hand()
        span = tracer.start_span("search_memory", attributes=_BY_HAND)
        token = context.attach(trace.set_span_in_context(span))
        found = retrieve(store, SCOPE, question, now=now)
        span.set_attributes({"gen_ai.memory.record.count": len(found)})
        context.detach(token)
        span.end()
        duration.record(time.perf_counter() - started, _BY_HAND)
    else:
        retrieve(store, SCOPE, question, now=now)
    return time.perf_counter() - started


#: What the ``sdk_alone`` side's span and latency point carry: what the kit's do.
_BY_HAND = {"gen_ai.operation.name": "search_memory", "gen_ai.memory.scope.kind": "user"}


@functools.cache
def _by_hand() -> tuple[Any, Any]:
    """The ``sdk_alone`` side's tracer and histogram, made once the providers are set."""
    meter = metrics.get_meter("benchmarks.telemetry")
    return trace.get_tracer("benchmarks.telemetry"), meter.create_histogram("read.duration")


def _sides(
    store: MemoryStore,
    asked: Sequence[str],
    now: Any,
    rounds: int,
    before: Callable[[str], object],
) -> dict[str, list[float]]:
    """Each question read ``rounds`` times a side, the sides in turn (see the module
    docstring), ``before(question)`` called untimed before each read; the seconds of
    each read, by side."""
    timed: dict[str, list[float]] = {side: [] for side in SIDES}
    turn = 0
    for _ in range(rounds):
        for question in asked:
            at = turn % len(SIDES)
            for side in SIDES[at:] + SIDES[:at]:
                before(question)
                timed[side].append(_read(store, question, now, side))
            turn += 1
    return timed


def _compared(timed: dict[str, list[float]]) -> dict[str, float]:
    """The sides' medians and their ratios to "off" (see ``_sides``).

    >>> row = _compared({"off": [0.002], "on": [0.0021], "sdk_alone": [0.00205],
    ...     "off_again": [0.002]})
    >>> round(row["ratio_on_off"], 3), round(row["ratio_on_sdk_alone"], 3)
    (1.05, 1.024)
    """
    off, on, again = _ms(timed["off"]), _ms(timed["on"]), _ms(timed["off_again"])
    alone = _ms(timed["sdk_alone"])
    return {
        "reads_per_side": len(timed["on"]),
        "off_p50_ms": off,
        "on_p50_ms": on,
        "ratio_on_off": on / off,
        "overhead_ms": on - off,
        "sdk_alone_p50_ms": alone,
        "ratio_sdk_alone_off": alone / off,
        "ratio_on_sdk_alone": on / alone,
        "off_again_p50_ms": again,
        "ratio_off_again_off": again / off,
    }


def run(
    data: Path,
    embeddings: Embeddings,
    *,
    conversation: int,
    questions: int,
    rounds: int,
) -> dict[str, Any]:
    """Fill the scope, then time the reads off and on; the report without its total time."""
    chat = load_locomo(data / DATASETS["locomo"])[conversation]
    asked = [q.question for q in chat.questions[:questions]]
    spans, reader = _providers()
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore(folder, embeddings=embeddings)
        try:
            for session in chat.sessions:
                texts = [f"{t.speaker}: {t.text}" for t in session.turns if t.text.strip()]
                store.add_many(SCOPE, texts, now=session.date)
            now = chat.sessions[-1].date
            for question in asked:  # every side warm
                for side in SIDES:
                    _read(store, question, now, side)
            spans.clear()
            # Asked again: the question's vector made just before, untimed, so that it is
            # kept whatever the number of questions (the embedder keeps the last 64).
            timed = _sides(store, asked, now, rounds, before=embeddings.embed_query)
            exported = [s for s in spans.get_finished_spans() if s.name == "memory.retrieve"]
            forget: Callable[[], None] = getattr(embeddings, "clear_recent", lambda: None)
            first = _sides(store, asked, now, max(1, rounds // 4), before=lambda _: forget())
            memories = len(store.active(SCOPE))
        finally:
            os.environ.pop(OFF, None)
            store.close()
    collected = reader.get_metrics_data()
    points: list[Any] = [
        p
        for rm in (collected.resource_metrics if collected else ())
        for sm in rm.scope_metrics
        for m in sm.metrics
        if m.name == "langgraph_memory.read.duration"
        for p in m.data.data_points
    ]
    return {
        "conversation": chat.sample_id,
        "memories": memories,
        "questions": len(asked),
        "rounds": rounds,
        **_compared(timed),
        "spans_per_read_on": len(exported) / len(timed["on"]),
        "read_duration_points": sum(p.count for p in points),
        "first_ask": _compared(first),
        **machine(embedder_name(embeddings)),
    }


def render_markdown(report: dict[str, Any]) -> str:
    """The report as a small Markdown table: a row for questions asked again (their
    vectors kept) and, when measured, one for questions asked the first time.

    >>> print(render_markdown({"conversation": "c", "memories": 3, "reads_per_side": 2,
    ...     "off_p50_ms": 2.0, "on_p50_ms": 2.05, "ratio_on_off": 1.025, "overhead_ms": 0.05,
    ...     "sdk_alone_p50_ms": 2.04, "ratio_sdk_alone_off": 1.02, "ratio_on_sdk_alone": 1.005,
    ...     "off_again_p50_ms": 2.01, "ratio_off_again_off": 1.005}).splitlines()[-1])
    | asked again, 2 reads a side | 2.000 | 2.050 | 1.025 | 0.050 | 1.020 | 1.005 | 1.005 |
    """
    rows = [("asked again", report)]
    if "first_ask" in report:
        rows.append(("asked the first time", report["first_ask"]))
    return "\n".join(
        [
            f"retrieve on LoCoMo {report['conversation']} ({report['memories']} memories):",
            "",
            "| questions | telemetry off p50 ms | on (SDK, in-memory export) p50 ms "
            "| ratio on / off | on - off ms | SDK alone / off | on / SDK alone "
            "| A/A ratio (noise) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
            *(
                f"| {name}, {row['reads_per_side']} reads a side | {row['off_p50_ms']:.3f} "
                f"| {row['on_p50_ms']:.3f} | {row['ratio_on_off']:.3f} "
                f"| {row['overhead_ms']:.3f} | {row['ratio_sdk_alone_off']:.3f} "
                f"| {row['ratio_on_sdk_alone']:.3f} | {row['ratio_off_again_off']:.3f} |"
                for name, row in rows
            ),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks telemetry``; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks telemetry", description=__doc__)
    p.add_argument("--data", type=Path, required=True, help="the datasets' folder")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    p.add_argument("--conversation", type=int, default=0, help="which LoCoMo conversation")
    p.add_argument("--questions", type=int, default=100)
    p.add_argument("--rounds", type=int, default=12, help="reads of each question a side")
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    args = p.parse_args(argv)
    if problem := missing_data(args.data, DATASETS["locomo"]):
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    embeddings: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    report = run(
        args.data,
        embeddings,
        conversation=args.conversation,
        questions=args.questions,
        rounds=args.rounds,
    )
    return publish(report, began=began, out=args.out, render=render_markdown)
