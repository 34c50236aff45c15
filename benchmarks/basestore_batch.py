"""Large concurrent BaseStore batches: MemoryStore against LangGraph's InMemoryStore.

``--tasks`` (10) asyncio tasks at once, each sending its share of ``--ops`` (6,000) mixed
ops through ``abatch`` in batches of ``--batch`` (50), on its own namespace
(``("bench", "u<t>")``): puts with an index (``{"text": <a LoCoMo turn>, "n": i}``, the
store's ``fields=["text"]``), gets of keys put before, searches with a query (a LoCoMo
turn, ``limit=10``) and deletes of keys put before, in the proportions of :data:`MIX`.
Each put's text is a LoCoMo turn (real chat text, as users store) made unique by its key,
since InMemoryStore fails on a batch that puts one text twice.

The same ops, in the same batches, run on a fresh ``MemoryStore`` (in a temporary folder)
and on ``InMemoryStore(index={"embed": <the same embedder>, "dims": ..., "fields":
["text"]})``, taking turns, ``--repeats`` (3) times each; reported: the median wall time
of all tasks together, ops per second, the ratio MemoryStore / InMemoryStore, and the
embedder calls each store made per batch (each embeds a batch's put texts in one call,
and each query on its own), and, for scale, the seconds the embedder alone takes for the
same texts, called one batch and one query at a time. The embedder is the shipped
``LocalMiniLM`` (offline, 384 dimensions) unless ``--fake-embedder``.

Full run (about seven minutes on 2 shared cores: each store's run is about a minute,
most of it the embedder's)::

    python -m benchmarks basestore-batch --data ../shared/data --out basestore_batch.json

``--single-calls`` sends each batch's ops instead as single async calls made at once
(``aput``, ``aget``, ``asearch``, ``adelete``, as graph nodes and LangMem's tools make
them), and adds a third row: ``MemoryStore`` with each call sent as a batch of its own
(``abatch([op])``), what it did before it gathered such calls into batches::

    python -m benchmarks basestore-batch --data ../shared/data --single-calls \
        --fake-embedder --ops 1200 --out basestore_calls.json

Quick run: ``--ops 600 --repeats 1``. ``--namespaces N`` spreads each task's ops over N
namespaces of its own (a batch then writes several scopes), and ``--embed-latency-ms M``
makes every embedder call wait M ms first, as a remote embedder's round trip does: where
one call per batch (rather than per scope, or per query one after another) pays off.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore, GetOp, Op, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.reports import machine, publish
from benchmarks.write_cost import load_locomo
from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM, embedder_name

__all__ = ["MIX", "CountedEmbeddings", "main", "render_markdown", "workload"]

#: The share of each kind of op (puts first: gets and deletes need keys put before).
MIX = {"put": 0.5, "get": 0.2, "search": 0.2, "delete": 0.1}


class CountedEmbeddings(Embeddings):
    """An embedder that counts its calls and texts, under the inner one's name.

    ``latency`` seconds are waited on every call, as a remote embedder's round trip
    (an API): the thread waits without the GIL, as on a socket.

    >>> e = CountedEmbeddings(HashedUnitEmbeddings())
    >>> _ = e.embed_documents(["a", "b"]); _ = e.embed_query("c")
    >>> e.document_calls, e.document_texts, e.query_calls
    (1, 2, 1)
    """

    name: ClassVar[str] = "counted"

    def __init__(self, inner: Embeddings, latency: float = 0.0) -> None:
        self.inner = inner
        self.latency = latency
        self.name = embedder_name(inner)  # type: ignore[misc]
        self.reset()

    def reset(self) -> None:
        """Start counting again."""
        self.document_calls = self.document_texts = self.query_calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The inner embedder's vectors, counted."""
        self.document_calls += 1
        self.document_texts += len(texts)
        if self.latency:
            time.sleep(self.latency)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """The inner embedder's query vector, counted."""
        self.query_calls += 1
        if self.latency:
            time.sleep(self.latency)
        return self.inner.embed_query(text)


def workload(
    texts: Sequence[str],
    *,
    ops: int,
    tasks: int,
    batch: int,
    namespaces: int = 1,
    seed: int = 7,
) -> list[list[list[Op]]]:
    """Each task's batches of ops (see the module docstring); each op goes to one of
    the task's ``namespaces`` namespaces (``("bench", "u<t>", "n<j>")``; 1: ``("bench",
    "u<t>")``), and a search reads one of them.

    >>> plan = workload(["Hi there.", "How was the hike?"], ops=40, tasks=2, batch=5)
    >>> len(plan), [len(b) for b in plan[0]]
    (2, [5, 5, 5, 5])
    >>> isinstance(plan[0][0][0], PutOp)
    True
    """
    rng = random.Random(seed)
    kinds = list(MIX)
    plans: list[list[list[Op]]] = []
    for t in range(tasks):
        spaces: list[tuple[str, ...]] = [("bench", f"u{t}")]
        if namespaces > 1:
            spaces = [("bench", f"u{t}", f"n{j}") for j in range(namespaces)]
        put: list[tuple[tuple[str, ...], str]] = []
        flat: list[Op] = []
        for i in range(ops // tasks):
            kind = "put" if len(put) < 2 else rng.choices(kinds, [MIX[k] for k in kinds])[0]
            text = texts[rng.randrange(len(texts))]
            if kind == "put":
                namespace, key = rng.choice(spaces), f"k{i}"
                put.append((namespace, key))
                flat.append(PutOp(namespace, key, {"text": f"{text} ({t}-{i})", "n": i}))
            elif kind == "get":
                flat.append(GetOp(*rng.choice(put)))
            elif kind == "search":
                flat.append(SearchOp(rng.choice(spaces), query=text, limit=10))
            else:
                flat.append(PutOp(*rng.choice(put), None))
        plans.append([flat[i : i + batch] for i in range(0, len(flat), batch)])
    return plans


@dataclass
class _Run:
    seconds: float
    document_calls: int
    document_texts: int
    query_calls: int


#: How a task sends a batch's ops: as one ``abatch``, as single calls made at once, or
#: as one ``abatch([op])`` per op, made at once.
SENDS = ("batch", "single", "per-call")


async def _call(store: BaseStore, op: Op) -> Any:
    """``op`` as the single async call that makes it."""
    if isinstance(op, GetOp):
        return await store.aget(op.namespace, op.key)
    if isinstance(op, SearchOp):
        return await store.asearch(op.namespace_prefix, query=op.query, limit=op.limit)
    assert isinstance(op, PutOp)
    if op.value is None:
        return await store.adelete(op.namespace, op.key)
    return await store.aput(op.namespace, op.key, op.value)


async def _drive(store: BaseStore, plans: list[list[list[Op]]], send: str = "batch") -> None:
    async def one(batches: list[list[Op]]) -> None:
        for ops in batches:
            if send == "batch":
                await store.abatch(ops)
            elif send == "single":
                await asyncio.gather(*(_call(store, op) for op in ops))
            else:
                await asyncio.gather(*(store.abatch([op]) for op in ops))

    await asyncio.gather(*(one(batches) for batches in plans))


def _time(
    store: BaseStore,
    plans: list[list[list[Op]]],
    embedder: CountedEmbeddings,
    send: str = "batch",
) -> _Run:
    embedder.reset()
    start = time.perf_counter()
    asyncio.run(_drive(store, plans, send))
    seconds = time.perf_counter() - start
    return _Run(seconds, embedder.document_calls, embedder.document_texts, embedder.query_calls)


def embedder_alone(embedder: Embeddings, plans: list[list[list[Op]]]) -> float:
    """Seconds the embedder alone takes for the workload's texts, as the stores ask
    for them: each batch's put texts in one call, each query on its own, one after
    another (the least any store that embeds them must spend)."""
    start = time.perf_counter()
    for plan in plans:
        for ops in plan:
            texts = [op.value["text"] for op in ops if isinstance(op, PutOp) and op.value]
            if texts:
                embedder.embed_documents(texts)
            for op in ops:
                if isinstance(op, SearchOp) and op.query:
                    embedder.embed_query(op.query)
    return time.perf_counter() - start


def run(
    texts: Sequence[str],
    embedder: Embeddings,
    *,
    ops: int,
    tasks: int,
    batch: int,
    repeats: int,
    namespaces: int = 1,
    latency: float = 0.0,
    single_calls: bool = False,
) -> dict[str, Any]:
    """Time the workload on both stores, taking turns; the report (see ``main``)."""
    counted = CountedEmbeddings(embedder, latency)
    dims = len(counted.embed_query("dimension probe"))
    plans = workload(texts, ops=ops, tasks=tasks, batch=batch, namespaces=namespaces)
    n_ops = sum(len(b) for plan in plans for b in plan)
    n_batches = sum(len(plan) for plan in plans)
    # name -> (store, how ops are sent)
    variants = {"memorystore": ("memorystore", "batch"), "inmemory": ("inmemory", "batch")}
    if single_calls:
        variants = {
            "memorystore": ("memorystore", "single"),
            "inmemory": ("inmemory", "single"),
            "memorystore_per_call": ("memorystore", "per-call"),
        }
    runs: dict[str, list[_Run]] = {name: [] for name in variants}
    alone = embedder_alone(CountedEmbeddings(embedder, latency), plans)
    for r in range(repeats):
        order = list(variants) if r % 2 == 0 else list(variants)[::-1]
        for name in order:
            kind, send = variants[name]
            if kind == "inmemory":
                store: BaseStore = InMemoryStore(
                    index={"embed": counted, "dims": dims, "fields": ["text"]}
                )
                runs[name].append(_time(store, plans, counted, send))
                continue
            folder = Path(tempfile.mkdtemp(prefix="lgm-batch-"))
            try:
                with MemoryStore(folder, index={"embed": counted, "fields": ["text"]}) as ours:
                    runs[name].append(_time(ours, plans, counted, send))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    report: dict[str, Any] = {
        **machine(embedder_name(embedder)),
        "ops": n_ops,
        "tasks": tasks,
        "batch": batch,
        "namespaces_per_task": namespaces,
        "embed_latency_ms": latency * 1000,
        "batches": n_batches,
        "repeats": repeats,
        "mix": MIX,
        "sent_as": "single calls" if single_calls else "batches",
        "embedder_alone_seconds": round(alone, 3),
    }
    for name, found in runs.items():
        median = statistics.median(x.seconds for x in found)
        report[name] = {
            "seconds": [round(x.seconds, 3) for x in found],
            "median_seconds": round(median, 3),
            "ops_per_second": round(n_ops / median, 1),
            "embed_documents_calls_per_batch": round(found[-1].document_calls / n_batches, 2),
            "texts_embedded": found[-1].document_texts,
            "query_embeddings": found[-1].query_calls,
        }
    report["ratio"] = round(
        report["memorystore"]["median_seconds"] / report["inmemory"]["median_seconds"], 2
    )
    if single_calls:
        report["gathered_speedup"] = round(
            report["memorystore_per_call"]["median_seconds"]
            / report["memorystore"]["median_seconds"],
            1,
        )
    return report


def render_markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown table.

    >>> row = {"median_seconds": 1.0, "ops_per_second": 600.0,
    ...        "embed_documents_calls_per_batch": 1.0, "texts_embedded": 300}
    >>> print(render_markdown({"ops": 600, "tasks": 10, "batch": 50, "embedder": "e",
    ...     "cpus": 2, "memorystore": row, "inmemory": row, "ratio": 1.0}).splitlines()[-1])
    | ratio MemoryStore / InMemoryStore | 1.0 | | | |
    """
    extra = ""
    if report.get("namespaces_per_task", 1) > 1:
        extra += f", {report['namespaces_per_task']} namespaces per task"
    if report.get("embed_latency_ms"):
        extra += f", {report['embed_latency_ms']:g} ms per embedder call"
    if report.get("sent_as") == "single calls":
        extra += ", sent as single async calls made at once"
    lines = [
        f"{report['ops']} mixed ops from {report['tasks']} concurrent tasks, batches of "
        f"{report['batch']}{extra} (embedder {report['embedder']}, {report['cpus']} CPUs)",
        "",
        "| store | median s | ops/s | embedder calls per batch (puts) | texts embedded |",
        "| --- | --- | --- | --- | --- |",
    ]
    labels = [("memorystore", "MemoryStore"), ("inmemory", "InMemoryStore")]
    if "memorystore_per_call" in report:
        labels.append(("memorystore_per_call", "MemoryStore, a batch per call"))
    for name, label in labels:
        row = report[name]
        lines.append(
            f"| {label} | {row['median_seconds']} | {row['ops_per_second']} | "
            f"{row['embed_documents_calls_per_batch']} | {row['texts_embedded']} |"
        )
    if "embedder_alone_seconds" in report:
        lines.append(
            f"| the embedder alone, one call at a time | {report['embedder_alone_seconds']} | | | |"
        )
    lines.append(f"| ratio MemoryStore / InMemoryStore | {report['ratio']} | | | |")
    if "gathered_speedup" in report:
        lines.append(
            f"| MemoryStore, a batch per call / gathered | {report['gathered_speedup']} | | | |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table, write the JSON; the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks basestore-batch",
        description="concurrent mixed BaseStore batches: MemoryStore vs InMemoryStore.",
    )
    p.add_argument(
        "--data", type=Path, required=True, help="benchmark data folder (locomo/locomo10.json)"
    )
    p.add_argument("--ops", type=int, default=6000, help="ops in all, across the tasks")
    p.add_argument("--tasks", type=int, default=10, help="concurrent asyncio tasks")
    p.add_argument("--batch", type=int, default=50, help="ops per abatch call")
    p.add_argument("--repeats", type=int, default=3, help="runs per store (medians)")
    p.add_argument("--namespaces", type=int, default=1, help="namespaces per task")
    p.add_argument(
        "--embed-latency-ms", type=float, default=0.0, help="wait per embedder call (an API)"
    )
    p.add_argument(
        "--single-calls",
        action="store_true",
        help="send each batch's ops as single async calls made at once (aput, aget ...)",
    )
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    problem = missing_data(args.data, DATASETS["locomo"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    texts = [t.text for c in load_locomo(args.data / DATASETS["locomo"]) for t in c.turns]
    embedder: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    report = run(
        texts,
        embedder,
        ops=args.ops,
        tasks=args.tasks,
        batch=args.batch,
        repeats=max(1, args.repeats),
        namespaces=max(1, args.namespaces),
        latency=max(0.0, args.embed_latency_ms) / 1000,
        single_calls=args.single_calls,
    )
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
