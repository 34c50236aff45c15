"""Many users at once in one async app (issue 41, point 4).

A service built on LangGraph runs one event loop and many conversations on it. This
benchmark sends turns of ``--users`` people at once through one compiled graph with
``ainvoke`` (the memory read node, a reply, the memory write node deferred to a
``BackgroundWriter``), and the same turns of one person alone, in one run::

    python -m benchmarks concurrency --data ../shared/data --out docs/results/concurrency.json
    python -m benchmarks concurrency --quick --data ../shared/data     # 50 people, 2 turns, fast

**The store**, embedded and on ``chroma run`` (``--modes``; the server keeps
``users.SERVER_CACHE_INDEXES`` indexes in memory). Once the graph is warm the process's
objects are frozen out of the garbage collector (``gc.freeze()``), as a started server does:
a collection of a loaded process's objects alone stalls a loop for tens of ms
(docs/performance.md).

**The people.** ``--users`` user scopes, each holding memories of real LongMemEval-S user
turns (``benchmarks/users.py``'s long-tailed counts, median 12), stored with hashed vectors;
their turns are the next real user turns of the stream. A read embeds its question with the
shipped model, as a service does. Each person sends ``--turns`` turns, one after the other,
waiting a think time between them (exponential, mean ``--think`` seconds, seeded): a chat's
pace, not a load test's. The reply node answers at once, so what a turn costs is memory's.

**Measured**, for the read node as LangGraph runs a sync one (``run="sync"``: in its
executor's threads) and as an async one (``run="async"``: on the kit's read threads,
``read.async_reads``). ``turn``: a turn's ``ainvoke``, from call to return (p50/p95, ms);
alone (one person's turns, a quarter of the think time) and at once (every person).
``throughput``: turns done per second while everyone talks. ``stall``: how late the
event loop ran a task that asked to wake every 10 ms (p50/p99/max, ms): what every other
request on the loop waits for.
``drain_s``: how long the background writer took to finish the turns queued at the end.

**Targets** (issue 41): the loop's stall p99 <= 20 ms, and a turn's p95 among everyone <= 2x
a turn's p95 alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.real_text import load_corpus
from benchmarks.reports import machine, publish
from benchmarks.scale import stats
from benchmarks.servers import running_chroma
from benchmarks.users import SERVER_CACHE_INDEXES, ReadEmbeddings, Texts, memory_counts, user
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.graph import MemoryState, memory_read_node, memory_write_node
from langgraph_memory.store import MemoryStore
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel

#: How often the loop's watcher asks to wake, in seconds.
TICK_S = 0.01
#: The read node's ``run``s compared: LangGraph's thread for a sync node, and the async
#: node on the kit's read threads.
READS: tuple[Literal["sync", "async"], ...] = ("sync", "async")


@dataclass(frozen=True)
class Plan:
    """How many people, how many turns each, and their think time."""

    users: int
    turns: int
    think_s: float


#: 200 people at a chat's pace: a turn every 20 s each, 10 turns a second offered in all.
FULL = Plan(users=200, turns=3, think_s=20.0)
#: 50 people a turn every 2 s each (25 a second): a short run past what 2 cores serve.
QUICK = Plan(users=50, turns=2, think_s=2.0)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def reply(state: MemoryState) -> dict[str, Any]:
    """The model's place in the graph: an answer at once, so a turn costs memory's."""
    return {"messages": [AIMessage("Noted.")]}


def chat_graph(
    store: MemoryStore, writes: BackgroundWriter, read: Literal["sync", "async"] = "sync"
) -> Any:
    """read memory (``read``: the node's ``run``) -> reply -> write memory (deferred),
    compiled."""
    builder = StateGraph(MemoryState)
    builder.add_node("read", memory_read_node(store, k=5, writes=writes, run=read))
    builder.add_node("reply", reply)
    builder.add_node("write", memory_write_node(writes, write="deferred"))
    builder.add_edge(START, "read")
    builder.add_edge("read", "reply")
    builder.add_edge("reply", "write")
    builder.add_edge("write", END)
    return builder.compile()


class LoopWatch:
    """How late the event loop wakes a task that sleeps ``TICK_S`` at a time."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(TICK_S)
            self.late.append(max(0.0, loop.time() - asked - TICK_S))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch())

    async def stop(self) -> dict[str, float]:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        ms = sorted(x * 1000.0 for x in self.late) or [0.0]
        return {
            "p50_ms": statistics.median(ms),
            "p99_ms": ms[min(len(ms) - 1, int(0.99 * len(ms)))],
            "max_ms": ms[-1],
            "n": len(ms),
        }


async def talk(
    graph: Any, person: int, texts: list[str], think: list[float], took: list[float]
) -> None:
    """One person's turns, a think time before each."""
    config = {"configurable": {"user_id": user(person).split(":", 1)[1], "thread_id": f"t{person}"}}
    for text, pause in zip(texts, think, strict=True):
        await asyncio.sleep(pause)
        began = time.perf_counter()
        await graph.ainvoke({"messages": [HumanMessage(text)]}, config)
        took.append(time.perf_counter() - began)


async def phase(graph: Any, people: Sequence[int], plan: Plan, texts: Texts) -> dict[str, Any]:
    """Every person of ``people`` talking at once; the turns' times, the loop's stall."""
    rng = random.Random(5)
    turns = {p: texts.take(plan.turns) for p in people}
    pauses = {p: [rng.expovariate(1.0 / plan.think_s) for _ in range(plan.turns)] for p in people}
    took: list[float] = []
    watch = LoopWatch()
    watch.start()
    began = time.perf_counter()
    await asyncio.gather(*(talk(graph, p, turns[p], pauses[p], took) for p in people))
    wall = time.perf_counter() - began
    stall = await watch.stop()
    return {
        "people": len(people),
        "turns": len(took),
        "turn": stats(took),
        "throughput_per_s": len(took) / wall,
        "stall": stall,
        "wall_s": wall,
    }


def targets(alone: dict[str, Any], together: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 41's targets for one read node's phases."""
    ratio = together["turn"]["p95_ms"] / alone["turn"]["p95_ms"]
    return [
        {
            "name": "event-loop stall p99, ms",
            "value": together["stall"]["p99_ms"],
            "limit": 20.0,
            "passed": together["stall"]["p99_ms"] <= 20.0,
        },
        {
            "name": f"turn p95 with {together['people']} people / alone",
            "value": ratio,
            "limit": 2.0,
            "passed": ratio <= 2.0,
        },
    ]


async def run(mode: str, plan: Plan, pool: list[str], root: Path) -> dict[str, Any]:
    """Load the people on a store of ``mode``, then one person alone and everyone at once,
    with each read node."""
    with ExitStack() as stack:
        embeddings = ReadEmbeddings(HashedUnitEmbeddings(), LocalMiniLM())
        if mode == "embedded":
            store = MemoryStore(root / mode, embeddings=embeddings)
        else:
            server = stack.enter_context(
                running_chroma(root / mode, cache_indexes=SERVER_CACHE_INDEXES)
            )
            store = MemoryStore(client=server.client(), embeddings=embeddings, lock="in-process")
        return {"mode": mode, **await talks(store, plan, pool)}


async def talks(store: MemoryStore, plan: Plan, pool: list[str]) -> dict[str, Any]:
    """The phases on ``store`` (closed at the end)."""
    texts = Texts(pool)
    counts = memory_counts(plan.users)
    log(f"loading {plan.users} people")
    for p in range(plan.users):
        store.add_many(user(p), texts.take(counts[p]))
    writes = BackgroundWriter(MemoryWriter(store, model=RulesModel()), journal=False)
    graphs = {read: chat_graph(store, writes, read) for read in READS}
    for graph in graphs.values():  # the model and the graph warm, as in a running service
        await graph.ainvoke(
            {"messages": [HumanMessage("Hello there.")]}, {"configurable": {"user_id": "warmup"}}
        )
    gc.collect()
    gc.freeze()  # what a started server does: its loaded objects out of the collector's way
    out: dict[str, Any] = {}
    drain = 0.0
    for read, graph in graphs.items():
        log(f"read node run={read!r}: one person alone")
        alone = await phase(graph, [0], Plan(1, max(plan.turns, 10), plan.think_s / 4), texts)
        log(f"read node run={read!r}: {plan.users} people at once")
        together = await phase(graph, list(range(plan.users)), plan, texts)
        began = time.perf_counter()
        writes.flush()  # the next phase starts with no turn queued
        drain = max(drain, time.perf_counter() - began)
        out[read] = {"alone": alone, "together": together}
    writes.close()
    store.close()
    gc.unfreeze()
    return {"reads": out, "drain_s": drain}


def render_markdown(report: dict[str, Any]) -> str:
    """The report's table and targets."""
    cfg = report["config"]
    lines = ["# Many users at once in one async app", ""]
    for mode in report["modes"]:
        lines += [f"## {mode['mode']}", "", *render_mode(mode), ""]
    lines += [
        f"{cfg['users']} people, {cfg['turns']} turns each, think time {cfg['think_s']:g} s "
        f"(mean); total runtime {report.get('total_seconds', 0):.0f} s; {cfg['cpus']} CPUs, "
        f"Python {cfg['python']}.",
    ]
    return "\n".join(lines)


def render_mode(report: dict[str, Any]) -> list[str]:
    """One mode's table and targets."""
    lines = [
        "| read node | phase | people | turns | turn p50 / p95 ms | throughput turns/s "
        "| loop stall p50 / p99 / max ms |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for read, phases in report["reads"].items():
        for name in ("alone", "together"):
            r = phases[name]
            lines.append(
                f"| run={read!r} | {name} | {r['people']} | {r['turns']} "
                f"| {r['turn']['p50_ms']:.1f} / {r['turn']['p95_ms']:.1f} "
                f"| {r['throughput_per_s']:.1f} "
                f"| {r['stall']['p50_ms']:.1f} / {r['stall']['p99_ms']:.1f} / "
                f"{r['stall']['max_ms']:.1f} |"
            )
    lines += [
        "",
        f"The background writer drained a phase's last queued turns in at most "
        f"{report['drain_s']:.1f} s.",
        "",
        "| read node | target | value | limit | result |",
        "|---|---|---:|---:|:---:|",
    ]
    for read, found in report["targets"].items():
        for t in found:
            lines.append(
                f"| run={read!r} | {t['name']} | {t['value']:.2f} | {t['limit']:g} "
                f"| {'PASS' if t['passed'] else '**FAIL**'} |"
            )
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; ``plan`` is the run's ``Plan``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks concurrency", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--quick", action="store_true", help="50 people, 2 turns each")
    parser.add_argument("--users", type=int, help="people talking at once")
    parser.add_argument("--turns", type=int, help="turns per person")
    parser.add_argument("--think", type=float, help="mean seconds between a person's turns")
    parser.add_argument("--modes", default="embedded,server", help="embedded, server or both")
    parser.add_argument("--out", type=Path, help="write the JSON report here")
    args = parser.parse_args(argv)
    args.modes = tuple(args.modes.split(","))
    if not args.modes or not set(args.modes) <= {"embedded", "server"}:
        parser.error(f"--modes takes embedded and/or server; got {','.join(args.modes)!r}")
    plan = QUICK if args.quick else FULL
    users = plan.users if args.users is None else args.users
    turns = plan.turns if args.turns is None else args.turns
    think = plan.think_s if args.think is None else args.think
    if users < 1 or turns < 1 or not think >= 0:
        parser.error("--users and --turns take counts >= 1, --think seconds >= 0")
    args.plan = Plan(users, turns, think)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the Markdown, write the JSON; 2 when the data is missing."""
    args = parse_args(argv)
    problem = missing_data(args.data, DATASETS["longmemeval-s"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    corpus = load_corpus(args.data)
    pool = [t.text for t in corpus.turns if t.role == "user"]
    root = Path(tempfile.mkdtemp(prefix="lgm-concurrency-"))
    try:
        modes = [asyncio.run(run(mode, args.plan, pool, root)) for mode in args.modes]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    plan: Plan = args.plan
    for mode in modes:
        mode["targets"] = {
            read: targets(phases["alone"], phases["together"])
            for read, phases in mode["reads"].items()
        }
    report: dict[str, Any] = {
        "config": {
            **machine(ReadEmbeddings.name),
            "users": plan.users,
            "turns": plan.turns,
            "think_s": plan.think_s,
            "modes": list(args.modes),
        },
        "modes": modes,
    }
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
