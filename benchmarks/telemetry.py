"""What OpenTelemetry costs a read: ``retrieve`` with the kit's spans and metrics recorded
by the SDK, against the same read with the kit's telemetry off, in one process.

One scope holds a LoCoMo conversation's turns (real chat, each turn a memory stored on its
session's date, the shipped MiniLM's vectors); the conversation's own questions are read
with shipped defaults, each question once a side in turn (off, on, off again, then the
same rotated for the next question), so that a drift of the machine or a neighbour's load
falls on every side alike; "off again" is the same as "off", and its ratio to it (A/A) is
the noise the ratio is read against. Every question is read once a side before the timing
(its vector cached, as a question asked again has it). Then the same again with every
question asked as for the first time (``first_ask``: the embedder's kept query vectors
cleared before each read, outside the timing, so that each read runs the model on its
question, as a new question does): the span's cost against a whole read.
"On" is an SDK ``TracerProvider`` with a ``SimpleSpanProcessor`` into an
``InMemorySpanExporter`` (each span exported as it ends, in the read's thread: the dearest
setup; a ``BatchSpanProcessor`` exports off it) and a ``MeterProvider`` with an
``InMemoryMetricReader``; "off" is
``LANGGRAPH_MEMORY_OTEL=false``, under which a step is the plain function, as without the
package. Reported: the median read of each, the ratio on / off (the issue's budget: <=
1.05), their difference in ms and the A/A ratio::

    python -m benchmarks telemetry --data ../shared/data --out docs/results/telemetry.json

Options: ``--conversation 0 --questions 100 --rounds 12`` (each question's reads a side).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from opentelemetry import metrics, trace
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


def _read(
    store: MemoryStore, question: str, now: Any, side: str, forget: Callable[[], None] | None = None
) -> float:
    """One read's seconds, the kit's telemetry on or off as ``side`` says; ``forget``
    (the embedder's ``clear_recent``) is called first, untimed: the question's vector is
    made again, as a question asked the first time."""
    os.environ[OFF] = "true" if side == "on" else "false"
    if forget is not None:
        forget()
    started = time.perf_counter()
    retrieve(store, SCOPE, question, now=now)
    return time.perf_counter() - started


def _sides(
    store: MemoryStore,
    asked: Sequence[str],
    now: Any,
    rounds: int,
    forget: Callable[[], None] | None = None,
) -> dict[str, list[float]]:
    """Each question read ``rounds`` times a side, the sides in turn (see the module
    docstring); the seconds of each read, by side."""
    sides = ["off", "on", "off_again"]
    timed: dict[str, list[float]] = {side: [] for side in sides}
    turn = 0
    for _ in range(rounds):
        for question in asked:
            for side in sides[turn % 3 :] + sides[: turn % 3]:
                timed[side].append(_read(store, question, now, side, forget))
            turn += 1
    return timed


def _compared(timed: dict[str, list[float]]) -> dict[str, float]:
    """The sides' medians and their ratios (see ``_sides``).

    >>> _compared({"off": [0.002], "on": [0.0021], "off_again": [0.002]})["ratio_on_off"]
    1.05
    """
    off, on, again = _ms(timed["off"]), _ms(timed["on"]), _ms(timed["off_again"])
    return {
        "reads_per_side": len(timed["on"]),
        "off_p50_ms": off,
        "on_p50_ms": on,
        "ratio_on_off": on / off,
        "overhead_ms": on - off,
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
            for question in asked:  # both paths warm, every question's vector cached
                for side in ("off", "on"):
                    _read(store, question, now, side)
            spans.clear()
            timed = _sides(store, asked, now, rounds)
            exported = [s for s in spans.get_finished_spans() if s.name == "memory.retrieve"]
            forget = getattr(embeddings, "clear_recent", None)
            first = _sides(store, asked, now, max(1, rounds // 4), forget)
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
    ...     "off_again_p50_ms": 2.01, "ratio_off_again_off": 1.005}).splitlines()[-1])
    | asked again, 2 reads a side | 2.000 | 2.050 | 1.025 | 0.050 | 1.005 |
    """
    rows = [("asked again", report)]
    if "first_ask" in report:
        rows.append(("asked the first time", report["first_ask"]))
    return "\n".join(
        [
            f"retrieve on LoCoMo {report['conversation']} ({report['memories']} memories):",
            "",
            "| questions | telemetry off p50 ms | on (SDK, in-memory export) p50 ms "
            "| ratio on / off | on - off ms | A/A ratio (noise) |",
            "| --- | --- | --- | --- | --- | --- |",
            *(
                f"| {name}, {row['reads_per_side']} reads a side | {row['off_p50_ms']:.3f} "
                f"| {row['on_p50_ms']:.3f} | {row['ratio_on_off']:.3f} "
                f"| {row['overhead_ms']:.3f} | {row['ratio_off_again_off']:.3f} |"
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
