"""What episodes cost: bytes on disk and time per turn, with episodes on against off.

Run it on the benchmark data folder (nothing is downloaded, no model is called)::

    python -m benchmarks episodes --data ../shared/data --out episodes.json
    python -m benchmarks episodes --data ../shared/data --quick

1. ``inline``: the first ``--turns`` LoCoMo turns (each conversation its own scope, each turn
   with its session's date, sent as a user of the library sends it: the words, with the
   speaker as the message's name) through ``MemoryWriter.write_turn`` with the offline
   ``RulesModel``, once into a store with episodes (the default) and once into one with
   ``episodes=False``. The two take turns block by block (order reversed every other block).
   Per-turn medians and their ratio; embedder and model calls per turn; bytes on disk per
   turn once both stores are closed.
2. ``deferred``: ``graph.invoke`` of a one-node chat graph (a zero-latency scripted agent)
   with ``add_memory(..., write="deferred")``, the ``BackgroundWriter`` of one graph keeping
   episodes and the other's not, and a graph without memory for the baseline; both scopes are
   pre-filled with the same ``--prefill`` raw turns. Timed twice, the paths taking turns
   block by block: ``back_to_back`` (``store_latency.time_paths``: each invoke starts as
   the last returns, so the background write of turn n runs beside the read of turn n + 1,
   the worst case) and ``idle`` (the queues drained, untimed, before each invoke: a user who
   takes longer to answer than a write takes). The target is at most 5 ms p50 added by
   episodes.

The embedder is the real LocalMiniLM unless ``--fake-embedder``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings, forget_queries
from benchmarks.graph_overhead import agent_builder
from benchmarks.reports import publish
from benchmarks.store_latency import WARMUP, QueryPath, ratio, summarize, time_paths
from benchmarks.write_cost import LocomoTurn, load_locomo
from langgraph_memory import BackgroundWriter, Memory, MemoryStore, MemoryWriter, Turn
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.graph import MemoryState, add_memory, memory_write_node
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import Choice, Extraction, Fact, RulesModel

BLOCKS = 20
USER = "bench"
CONFIG: Any = {"configurable": {"user_id": USER, "thread_id": "bench-thread"}}
VARIANTS = {"episodes_on": True, "episodes_off": False}


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[episodes] {message}", file=sys.stderr, flush=True)


def locomo_turns(path: Path, limit: int) -> list[LocomoTurn]:
    """The first ``limit`` turns of LoCoMo, conversation by conversation, in order."""
    return [t for conv in load_locomo(path) for t in conv.turns][:limit]


def said(turn: LocomoTurn) -> HumanMessage:
    """A turn as a user of the library sends it: the words, the speaker as the name."""
    return HumanMessage(turn.text, name=turn.speaker)


class CountingEmbeddings(Embeddings):
    """An embedder shared by several stores, with each store's calls counted."""

    name: ClassVar[str] = LocalMiniLM.name

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The inner embedder's vectors, counted."""
        self.calls += 1
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """The inner embedder's vector, counted."""
        self.calls += 1
        return self.inner.embed_query(text)


class CountingModel:
    """A ``MemoryModel`` (the offline rules model inside), with its calls counted."""

    def __init__(self) -> None:
        self.inner = RulesModel()
        self.name = self.inner.name
        self.calls = 0

    def extract(self, turn: Turn, *, roles: Sequence[Any]) -> Extraction:
        """As the rules model, counted."""
        self.calls += 1
        return self.inner.extract(turn, roles=roles)

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        """As the rules model, counted."""
        self.calls += 1
        return self.inner.choose(fact, shown, today=today)

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        """As the rules model, counted."""
        self.calls += 1
        return self.inner.choose_batch(facts, shown, today=today)


def directory_bytes(root: Path) -> int:
    """The size of every file under ``root``."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def bench_inline(root: Path, emb: Embeddings, turns: Sequence[LocomoTurn]) -> dict[str, Any]:
    """Part 1: write_turn per turn with episodes on and off, blocks interleaved."""
    seconds: dict[str, list[float]] = {name: [0.0] * len(turns) for name in VARIANTS}
    counts: dict[str, dict[str, int]] = {}
    stores, writers, embedders, models = {}, {}, {}, {}
    for name, keep in VARIANTS.items():
        embedders[name] = CountingEmbeddings(emb)
        models[name] = CountingModel()
        stores[name] = MemoryStore(root / name, embeddings=embedders[name])
        writers[name] = MemoryWriter(stores[name], model=models[name], episodes=keep)
    blocks = np.array_split(np.arange(len(turns)), BLOCKS)
    for b, block in enumerate(blocks):
        order = list(VARIANTS) if b % 2 == 0 else list(reversed(VARIANTS))
        for name in order:
            for i in block:
                t, scope = turns[i], f"user:{turns[i].sample_id}"
                start = time.perf_counter()
                writers[name].write_turn(scope, [said(t)], now=t.when, turn_id=t.dia_id)
                seconds[name][i] = time.perf_counter() - start
        log(f"inline block {b + 1}/{BLOCKS}")
    scopes = sorted({f"user:{t.sample_id}" for t in turns})
    for name, store in stores.items():
        memories = [m for s in scopes for m in store.active(s)]
        counts[name] = {
            "episodes": sum(m.is_episode for m in memories),
            "facts": sum(not m.is_episode for m in memories),
            "embedder_calls": embedders[name].calls,
            "model_calls": models[name].calls,
        }
        store.close()
    disk = {name: directory_bytes(root / name) for name in VARIANTS}
    stats = {name: summarize(seconds[name]) for name in VARIANTS}
    on, off = seconds["episodes_on"], seconds["episodes_off"]
    n = len(turns)
    return {
        "turns": n,
        "write_turn": stats,
        "ratio_on_over_off": ratio(stats["episodes_on"], stats["episodes_off"]),
        "added_ms_p50": stats["episodes_on"]["p50_ms"] - stats["episodes_off"]["p50_ms"],
        "paired_added_ms_median": float(np.median(np.subtract(on, off)) * 1000.0),
        "counts": counts,
        "per_turn": {
            name: {
                "bytes_on_disk": disk[name] / n,
                "embedder_calls": counts[name]["embedder_calls"] / n,
                "model_calls": counts[name]["model_calls"] / n,
            }
            for name in VARIANTS
        },
        "bytes_on_disk": disk,
        "bytes_per_turn_added": (disk["episodes_on"] - disk["episodes_off"]) / n,
        "bytes_ratio_on_over_off": disk["episodes_on"] / max(disk["episodes_off"], 1),
    }


#: Deferred graphs: (episodes kept, read node too). ``write_*`` have the write node only, so
#: their difference is what an episode adds by being written; ``memory_*`` read as well, so
#: theirs adds what reading a scope that also holds episodes costs.
GRAPHS = {
    "write_on": (True, False),
    "write_off": (False, False),
    "memory_on": (True, True),
    "memory_off": (False, True),
}


def write_only_graph(chat: ScriptedChatModel, background: BackgroundWriter) -> Any:
    """START -> agent -> memory_write (deferred) -> END."""
    builder = agent_builder(chat)
    graph: Any = StateGraph(MemoryState)  # the node is taken from a built graph, untyped
    graph.add_node("agent", builder.nodes["agent"].runnable)
    graph.add_node("memory_write", memory_write_node(background, write="deferred"))
    graph.add_edge(START, "agent")
    graph.add_edge("agent", "memory_write")
    graph.add_edge("memory_write", END)
    return graph.compile()


def bench_deferred(
    root: Path, emb: Embeddings, turns: Sequence[str], prefill: Sequence[str], n_timed: int
) -> dict[str, Any]:
    """Part 2: invoke medians without memory, and deferred memory with episodes on and off."""
    chat = ScriptedChatModel(default="Noted.")
    graphs: dict[str, Any] = {"no_memory": agent_builder(chat).compile()}
    backgrounds: dict[str, BackgroundWriter] = {}
    stores: dict[str, MemoryStore] = {}
    try:
        for name, (keep, read) in GRAPHS.items():
            store = stores[name] = MemoryStore(root / f"graph-{name}", embeddings=emb)
            for first in range(0, len(prefill), 500):
                store.add_many(f"user:{USER}", list(prefill[first : first + 500]))
            writer = MemoryWriter(store, model=RulesModel(), episodes=keep)
            background = backgrounds[name] = BackgroundWriter(writer)
            if read:
                builder = agent_builder(chat)
                add_memory(builder, "agent", store=store, writer=background, write="deferred")
                graphs[name] = builder.compile()
            else:
                graphs[name] = write_only_graph(chat, background)

        def call(graph: Any) -> QueryPath:
            return QueryPath(
                lambda i: graph.invoke({"messages": [("user", turns[i])]}, CONFIG), lambda _: []
            )

        warmup = min(WARMUP, len(turns) - n_timed)
        # The graphs share one embedder: no path's block may reuse the query vectors
        # another path's block kept for the same turns.
        timed = time_paths(
            {n: call(g) for n, g in graphs.items()},
            warmup,
            n_timed,
            settle=lambda: forget_queries(emb),
        )
        drain = {}
        for name, background in backgrounds.items():
            start = time.perf_counter()
            background.flush()
            drain[name] = time.perf_counter() - start
        idle = time_idle(graphs, list(backgrounds.values()), turns[warmup : warmup + n_timed], emb)
        held = {name: store.count(f"user:{USER}") for name, store in stores.items()}
    finally:
        for background in backgrounds.values():
            background.close()
        for store in stores.values():
            store.close()
    out: dict[str, Any] = {
        "prefill": len(prefill),
        "drain_after_back_to_back_s": drain,
        "memories_at_end": held,
    }
    for mode, stats in (
        ("back_to_back", {name: t.stats() for name, t in timed.items()}),
        ("idle", {name: summarize(s) for name, s in idle.items()}),
    ):
        out[mode] = {
            **stats,
            "added_ms_p50_write": stats["write_on"]["p50_ms"] - stats["write_off"]["p50_ms"],
            "added_ms_p50_memory": stats["memory_on"]["p50_ms"] - stats["memory_off"]["p50_ms"],
            "ratio_write_on_over_off": ratio(stats["write_on"], stats["write_off"]),
            "ratio_memory_on_over_off": ratio(stats["memory_on"], stats["memory_off"]),
        }
    return out


def time_idle(
    graphs: dict[str, Any],
    backgrounds: Sequence[BackgroundWriter],
    turns: Sequence[str],
    embeddings: Embeddings,
) -> dict[str, list[float]]:
    """Seconds per invoke of each graph, every queue drained (untimed) before each one
    and no query vector kept; the graphs take turns block by block, order reversed
    every other block."""
    seconds: dict[str, list[float]] = {name: [] for name in graphs}
    for b, block in enumerate(np.array_split(np.arange(len(turns)), 4)):
        order = list(graphs) if b % 2 == 0 else list(reversed(graphs))
        for name in order:
            for i in block:
                for background in backgrounds:
                    background.flush()
                forget_queries(embeddings)
                start = time.perf_counter()
                graphs[name].invoke({"messages": [("user", turns[i])]}, CONFIG)
                seconds[name].append(time.perf_counter() - start)
    return seconds


def render_markdown(report: dict[str, Any]) -> str:
    """The two parts as Markdown tables."""
    c, inline, deferred = report["config"], report["inline"], report["deferred"]
    lines = [
        "# Episodes: what they cost a turn",
        "",
        f"Embedder {c['embedder']}, rules model, {c['cpus']} CPUs.",
        "",
        f"## Inline `write_turn`, {inline['turns']:,} LoCoMo turns, blocks interleaved",
        "",
        "| | p50 ms | p90 ms | bytes on disk / turn | embedder calls / turn | model calls / turn |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in VARIANTS:
        s, per = inline["write_turn"][name], inline["per_turn"][name]
        lines.append(
            f"| {name} | {s['p50_ms']:.2f} | {s['p90_ms']:.2f} | {per['bytes_on_disk']:,.0f} "
            f"| {per['embedder_calls']:.2f} | {per['model_calls']:.2f} |"
        )
    lines += [
        "",
        f"on / off p50 {inline['ratio_on_over_off']['p50']:.2f}x "
        f"(added {inline['added_ms_p50']:.2f} ms; "
        f"paired median {inline['paired_added_ms_median']:.2f} ms); "
        f"{inline['bytes_per_turn_added']:,.0f} bytes per turn added on disk "
        f"({inline['bytes_ratio_on_over_off']:.2f}x); stored: {inline['counts']}.",
        "",
        f"## Deferred `graph.invoke`, {c['graph_turns']} timed turns, scope pre-filled with "
        f"{deferred['prefill']:,} turns",
        "",
        "| graph | back to back p50 ms | p90 ms | idle p50 ms | p90 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    back, idle = deferred["back_to_back"], deferred["idle"]
    for name in ("no_memory", *GRAPHS):
        b, i = back[name], idle[name]
        lines.append(
            f"| {name} | {b['p50_ms']:.2f} | {b['p90_ms']:.2f} | {i['p50_ms']:.2f} "
            f"| {i['p90_ms']:.2f} |"
        )
    for what in ("write", "memory"):
        lines += [
            "",
            f"`{what}_on` - `{what}_off`: {back[f'added_ms_p50_{what}']:.2f} ms p50 back to back "
            f"({back[f'ratio_{what}_on_over_off']['p50']:.2f}x), "
            f"{idle[f'added_ms_p50_{what}']:.2f} ms idle "
            f"({idle[f'ratio_{what}_on_over_off']['p50']:.2f}x).",
        ]
    lines += [
        "",
        f"Memories in each scope at the end: {deferred['memories_at_end']}.",
        "",
        f"Total runtime {report['total_seconds']:.0f}s.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run both parts, print the tables, write the JSON; return the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks episodes",
        description="Bytes on disk and time per turn with episodes on against off.",
    )
    p.add_argument("--data", type=Path, required=True, help="the benchmark data folder")
    p.add_argument("--turns", type=int, default=1000, help="LoCoMo turns for the inline part")
    p.add_argument("--graph-turns", type=int, default=300, help="timed invokes per graph")
    p.add_argument("--prefill", type=int, default=1000, help="raw turns in the graph's scope")
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    p.add_argument("--quick", action="store_true", help="200 turns, 60 invokes, prefill 300")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    if args.quick:
        args.turns, args.graph_turns, args.prefill = 200, 60, 300
    missing = missing_data(args.data, DATASETS["locomo"])
    if missing:
        print(missing, file=sys.stderr)
        return 2
    began = time.perf_counter()
    emb: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    emb.embed_query("warm up")
    turns = locomo_turns(args.data / DATASETS["locomo"], args.turns + args.prefill)
    inline_turns = turns[: args.turns]
    texts = [t.text for t in turns]
    prefill = texts[: args.prefill]
    graph_texts = (texts[args.prefill :] + texts)[: args.graph_turns + WARMUP]
    root = Path(tempfile.mkdtemp(prefix="lgm-episodes-"))
    try:
        report: dict[str, Any] = {"inline": bench_inline(root, emb, inline_turns)}
        log("inline done")
        report["deferred"] = bench_deferred(root, emb, graph_texts, prefill, args.graph_turns)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report["config"] = {
        "turns": len(inline_turns),
        "graph_turns": args.graph_turns,
        "embedder": "hashed-fake" if args.fake_embedder else LocalMiniLM.name,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
