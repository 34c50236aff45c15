"""Bulk ingest throughput of ``MemoryStore.add_many`` with the real offline embedder, and what
makes it faster.

Run it on the benchmark data folder (nothing is downloaded)::

    python -m benchmarks.ingest_speed --data ../shared/data --out ingest.json
    python -m benchmarks.ingest_speed --data ../shared/data --quick

The same ``--n`` LoCoMo turns are ingested into a fresh store once per variant and repeat;
variants take turns within each repeat (order reversed every other repeat), and each
variant's turns/s is the median over repeats, reported as a ratio to the default measured in
the same run. The default is what a user gets: ``LocalMiniLM()`` (onnxruntime's default
threads, at most 32 texts per model call, sorted by length and cut where padding costs
least, idle threads not spinning: a setting this benchmark measured at 1.25x and the
embedder adopted) and ``add_many`` of 1000 turns.

Variants (none edits the package; those that need another code path wrap ``LocalMiniLM``
here):

- model batch size 8 / 16 / 64 / 128; intra-op threads 1 / 2;
- no global sort by length (texts embedded in arrival order, 32 at a time): what the sort buys;
- ``add_many`` of 100 and of 10 turns per call instead of 1000;
- pipelined: a thread embeds chunk i+1 while ``add_many`` writes chunk i (vectors handed over);
- two processes with one intra-op thread each embed alternate chunks, pipelined with writes;
- the write path with episodes on (``MemoryWriter`` with the offline rules model):
  ``write_turns`` over the history (an import), and ``write_turn`` on each turn;
- for context: embedding alone (no store), so the store's share of the time is known.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from multiprocessing import get_context
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks import write_cost
from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.reports import publish
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.store import MemoryStore
from langgraph_memory.write import MemoryWriter, RulesModel, Turn

SCOPE = "user:bench-ingest"
DEFAULT_CALL = 1000
PIPELINE_CHUNK = 100


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[ingest_speed] {message}", file=sys.stderr, flush=True)


class UnsortedEmbeddings(Embeddings):
    """Embeds in arrival order, ``chunk`` texts per call: no global sort by length."""

    name: ClassVar[str] = LocalMiniLM.name

    def __init__(self, inner: Embeddings, chunk: int = 32) -> None:
        self.inner, self.chunk = inner, chunk

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Chunk by chunk, in order."""
        out: list[list[float]] = []
        for first in range(0, len(texts), self.chunk):
            out += self.inner.embed_documents(texts[first : first + self.chunk])
        return out

    def embed_query(self, text: str) -> list[float]:
        """The inner embedder's vector."""
        return self.inner.embed_query(text)


class HandedVectors(Embeddings):
    """Returns vectors computed elsewhere (the pipeline's embedding worker), in order."""

    name: ClassVar[str] = LocalMiniLM.name

    def __init__(self) -> None:
        self.next: list[list[float]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The vectors handed over for exactly these texts."""
        vectors, self.next = self.next, []
        if len(vectors) != len(texts):
            raise RuntimeError("pipeline out of step")
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Not used while ingesting."""
        raise NotImplementedError


_worker_embedder: Embeddings | None = None


def _worker_init(fake: bool) -> None:
    global _worker_embedder
    _worker_embedder = HashedUnitEmbeddings() if fake else LocalMiniLM(threads=1)
    _worker_embedder.embed_query("warm up")


def _worker_embed(texts: list[str]) -> list[list[float]]:
    assert _worker_embedder is not None
    return _worker_embedder.embed_documents(texts)


def _chunks(texts: Sequence[str], size: int) -> Iterator[list[str]]:
    for first in range(0, len(texts), size):
        yield list(texts[first : first + size])


Variant = Callable[[Path, Sequence[str]], float]


def plain(emb: Embeddings, per_call: int = DEFAULT_CALL) -> Variant:
    """``add_many`` of ``per_call`` turns at a time with ``emb``; returns seconds."""
    emb.embed_query("warm up")  # model loaded before the clock starts

    def run(root: Path, texts: Sequence[str]) -> float:
        with MemoryStore(root, embeddings=emb) as store:
            start = time.perf_counter()
            for chunk in _chunks(texts, per_call):
                store.add_many(SCOPE, chunk)
            return time.perf_counter() - start

    return run


def written(emb: Embeddings, batched: bool) -> Variant:
    """The write path with episodes on (``MemoryWriter``, the offline rules model): each
    turn kept as an episode, its facts extracted and reconciled; ``write_turns`` over the
    whole history when ``batched``, else ``write_turn`` on each turn."""
    emb.embed_query("warm up")
    start_time = datetime(2023, 5, 8, tzinfo=timezone.utc)

    def run(root: Path, texts: Sequence[str]) -> float:
        turns = [
            Turn.of([("user", t)], when=start_time + timedelta(minutes=i), turn_id=f"t{i}")
            for i, t in enumerate(texts)
        ]
        with MemoryStore(root, embeddings=emb) as store:
            writer = MemoryWriter(store, model=RulesModel())
            start = time.perf_counter()
            if batched:
                writer.write_turns(SCOPE, turns)
            else:
                for turn in turns:
                    writer.write_turn(SCOPE, turn)
            return time.perf_counter() - start

    return run


def embed_only(emb: Embeddings) -> Variant:
    """Embedding alone, same texts, no store."""
    emb.embed_query("warm up")

    def run(root: Path, texts: Sequence[str]) -> float:
        start = time.perf_counter()
        for chunk in _chunks(texts, DEFAULT_CALL):
            emb.embed_documents(chunk)
        return time.perf_counter() - start

    return run


def pipelined(make_pool: Callable[[], Executor], embed: Callable[[list[str]], Any]) -> Variant:
    """Embed chunk i+1 (in ``pool``) while ``add_many`` writes chunk i; returns seconds.

    The pool is built and warmed before the clock starts (a process pool loads the model in
    each process once).
    """
    pool = make_pool()
    list(pool.map(embed, [["warm up"]] * 4))

    def run(root: Path, texts: Sequence[str]) -> float:
        handed = HandedVectors()
        with MemoryStore(root, embeddings=handed) as store:
            start = time.perf_counter()
            chunks = list(_chunks(texts, PIPELINE_CHUNK))
            ahead = 2  # chunks in flight: one per process of a two-process pool
            futures: list[Future[Any]] = [pool.submit(embed, c) for c in chunks[:ahead]]
            for i, chunk in enumerate(chunks):
                vectors = futures[i].result()
                if i + ahead < len(chunks):
                    futures.append(pool.submit(embed, chunks[i + ahead]))
                handed.next = vectors
                store.add_many(SCOPE, chunk)
            return time.perf_counter() - start

    run.pool = pool  # type: ignore[attr-defined]  # shut down by the caller
    return run


def variants(fake: bool) -> dict[str, tuple[str, Callable[[], Variant]]]:
    """Name -> (description, runner factory); built (models loaded) before any timing."""

    def mini(**kw: Any) -> Embeddings:
        return HashedUnitEmbeddings() if fake else LocalMiniLM(**kw)

    shared: list[Embeddings] = []

    def default() -> Embeddings:
        # One default embedder, shared by the variants that differ only in how it is used.
        if not shared:
            shared.append(mini())
        return shared[0]

    def process_pool() -> Executor:
        return ProcessPoolExecutor(
            2, mp_context=get_context("spawn"), initializer=_worker_init, initargs=(fake,)
        )

    out: dict[str, tuple[str, Callable[[], Variant]]] = {
        "default": ("LocalMiniLM(), add_many of 1000", lambda: plain(default())),
        "batch_8": ("model batch_size=8", lambda: plain(mini(batch_size=8))),
        "batch_16": ("model batch_size=16", lambda: plain(mini(batch_size=16))),
        "batch_64": ("model batch_size=64", lambda: plain(mini(batch_size=64))),
        "batch_128": ("model batch_size=128", lambda: plain(mini(batch_size=128))),
        "threads_1": ("intra-op threads=1", lambda: plain(mini(threads=1))),
        "threads_2": ("intra-op threads=2", lambda: plain(mini(threads=2))),
        "unsorted": (
            "no global sort by length (32 in arrival order)",
            lambda: plain(UnsortedEmbeddings(mini())),
        ),
        "add_many_100": ("add_many of 100 per call", lambda: plain(default(), 100)),
        "add_many_10": ("add_many of 10 per call", lambda: plain(default(), 10)),
        "pipelined_thread": (
            f"embed in a thread, pipelined with add_many ({PIPELINE_CHUNK}/chunk)",
            lambda: pipelined(lambda: ThreadPoolExecutor(1), default().embed_documents),
        ),
        "two_processes": (
            f"2 processes x 1 thread embed, pipelined with add_many ({PIPELINE_CHUNK}/chunk)",
            lambda: pipelined(process_pool, _worker_embed),
        ),
        "write_turns": (
            "the write path, episodes on: MemoryWriter.write_turns (rules model)",
            lambda: written(default(), batched=True),
        ),
        "write_turn_each": (
            "the write path, episodes on: write_turn on each turn (rules model)",
            lambda: written(default(), batched=False),
        ),
        "embed_only": (
            "context: embedding alone, no store (default embedder)",
            lambda: embed_only(default()),
        ),
    }
    return out


def run(
    texts: Sequence[str], repeats: int, fake: bool, only: Sequence[str] | None
) -> dict[str, Any]:
    """All variants, ``repeats`` times each, interleaved; the report as a dict."""
    table = variants(fake)
    names = [n for n in table if not only or n in only or n == "default"]
    built = {n: table[n][1]() for n in names}
    seconds: dict[str, list[float]] = {n: [] for n in names}
    root = Path(tempfile.mkdtemp(prefix="lgm-ingest-"))
    try:
        for r in range(repeats):
            order = names if r % 2 == 0 else list(reversed(names))
            for name in order:
                s = built[name](root / f"{name}-{r}", texts)
                seconds[name].append(s)
                log(f"repeat {r + 1}/{repeats} {name}: {len(texts) / s:.1f} turns/s")
    finally:
        shutil.rmtree(root, ignore_errors=True)
        for runner in built.values():
            pool = getattr(runner, "pool", None)
            if pool is not None:
                pool.shutdown()
    per_s = {n: [len(texts) / s for s in seconds[n]] for n in names}
    base = float(np.median(per_s["default"]))
    results: dict[str, dict[str, Any]] = {
        n: {
            "description": table[n][0],
            "turns_per_s_median": float(np.median(per_s[n])),
            "turns_per_s_runs": per_s[n],
            "ratio_vs_default": float(np.median(per_s[n])) / base,
        }
        for n in names
    }
    out: dict[str, Any] = {"results": results}
    if "embed_only" in results:
        out["store_share_of_default"] = 1.0 - base / results["embed_only"]["turns_per_s_median"]
    return out


def render_markdown(report: dict[str, Any]) -> str:
    """The variants as a Markdown table."""
    c = report["config"]
    lines = [
        "# Ingest throughput, `MemoryStore.add_many` with the offline embedder",
        "",
        f"{c['n']:,} LoCoMo turns (mean {c['mean_chars']:.0f} chars) per run, fresh store, "
        f"median of {c['repeats']} interleaved repeats; embedder {c['embedder']}; "
        f"{c['cpus']} CPUs.",
        "",
        "| variant | turns/s (median) | ratio vs default | runs |",
        "|---|---:|---:|---|",
    ]
    for name, r in report["results"].items():
        runs = ", ".join(f"{x:.1f}" for x in r["turns_per_s_runs"])
        lines.append(
            f"| `{name}`: {r['description']} | {r['turns_per_s_median']:.1f} "
            f"| {r['ratio_vs_default']:.2f}x | {runs} |"
        )
    if "store_share_of_default" in report:
        lines += [
            "",
            f"The store's share of the default ingest time (1 - default / embed-only): "
            f"{report['store_share_of_default']:.1%}: the rest is the model.",
        ]
    lines += ["", f"Total runtime {report['total_seconds']:.0f}s."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run, print the table, write the JSON; return the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.ingest_speed",
        description="add_many throughput with LocalMiniLM, and variants that may speed it up.",
    )
    p.add_argument(
        "--data", type=Path, required=True, help="benchmark data folder (locomo/locomo10.json)"
    )
    p.add_argument("--n", type=int, default=1000, help="turns ingested per run")
    p.add_argument("--repeats", type=int, default=2, help="runs per variant")
    p.add_argument("--only", help="comma-separated variant names (default: all)")
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    p.add_argument("--quick", action="store_true", help="300 turns, 1 repeat")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.repeats = min(args.n, 300), 1
    problem = missing_data(args.data, DATASETS["locomo"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    path = args.data / DATASETS["locomo"]
    began = time.perf_counter()
    texts = [t.text for c in write_cost.load_locomo(path) for t in c.turns][: args.n]
    only = [s.strip() for s in args.only.split(",")] if args.only else None
    report = run(texts, args.repeats, args.fake_embedder, only)
    report["config"] = {
        "n": len(texts),
        "mean_chars": float(np.mean([len(t) for t in texts])),
        "repeats": args.repeats,
        "embedder": "hashed-fake" if args.fake_embedder else LocalMiniLM.name,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
