"""The store's lexical index: keyword query speed by scope size, among many scopes, and
what it adds to a write, each against a baseline timed in the same run.

Run (about 10 minutes on 2 cores, most of it writing 200k records into Chroma)::

    python -m benchmarks.lexical_speed --data ../shared/data --out lexical_speed.json
    python -m benchmarks.lexical_speed --data ../shared/data --quick   # 1k and 10k, 10 scopes

Records are LoCoMo turns (cycled to reach the sizes) with their session's date as
``event_time``; queries are LoCoMo questions passed as text to ``MemoryStore.keyword``
(k=10). Vectors are cheap hashed ones of 8 dimensions: the lexical index's cost is
measured, not the embedder's or the vector index's. Parts:

1. ``keyword`` p50/p90 on one scope of 1k, 10k and 100k records, against ``nearest``
   (k=10, the query vector given) on the same scope.
2. One 1k scope among ``--scopes`` x 1k scopes, against the same scope in a store alone
   (the old ``$contains`` path took 124 vs 13 ms: the target is within 1.3x).
3. One ``add`` (a single record, as the write path stores a turn) against raw Chroma's
   ``collection.add`` of the same record on the same client (the store's whole write:
   id choice, the Chroma write, the lexical index); blocks alternate. The index's own
   share cannot be switched off through the public API: the issue-11 report gives it
   from an instrumented run (0.32 ms p50, 2% of an embedded add).
4. How long a purge of one id takes at each size (Chroma's rebuild and compaction,
   then the scope's index rebuilt and VACUUMed).
5. With ``--server``, parts 1 (1k only) and 3 on a ``chroma run`` server, where each write
   also stamps the scope's registry record (one more HTTP call).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.datasets import load_locomo
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.store_latency import summarize
from langgraph_memory.store import MemoryStore, internals

K = 10
DIM = 8
WARMUP = 20
BATCH = 1000
FULL = {"sizes": "1000,10000,100000", "scopes": 100, "queries": 300, "adds": 400}
QUICK = {"sizes": "1000,10000", "scopes": 10, "queries": 100, "adds": 100}


def corpus(data: Path) -> tuple[list[tuple[str, datetime]], list[str]]:
    """LoCoMo turns with their session dates, and LoCoMo questions."""
    convs = load_locomo(data / "locomo" / "locomo10.json")
    turns = [
        (t.text + (f" [shares a photo: {t.caption}]" if t.caption else ""), s.date)
        for c in convs
        for s in c.sessions
        for t in s.turns
    ]
    return turns, [q.question for c in convs for q in c.questions]


def fill(store: MemoryStore, scope: str, turns: Sequence[tuple[str, datetime]], n: int) -> None:
    start = (hash(scope) % len(turns)) if n < len(turns) else 0
    items = [
        {
            "text": turns[(start + i) % len(turns)][0],
            "event_time": turns[(start + i) % len(turns)][1],
        }
        for i in range(n)
    ]
    for lo in range(0, n, BATCH):
        store.add_many(scope, items[lo : lo + BATCH])


def time_alternating(paths: dict[str, Callable[[int], Any]], n: int) -> dict[str, list[float]]:
    """Each path on calls ``[WARMUP, WARMUP + n)`` after a warm-up, in 4 alternating blocks."""
    for call in paths.values():
        for i in range(WARMUP):
            call(i)
    seconds: dict[str, list[float]] = {name: [] for name in paths}
    for b, block in enumerate(np.array_split(np.arange(WARMUP, WARMUP + n), 4)):
        names = list(paths) if b % 2 == 0 else list(reversed(list(paths)))
        for name in names:
            for i in block.tolist():
                start = time.perf_counter()
                paths[name](i)
                seconds[name].append(time.perf_counter() - start)
    return seconds


def query_paths(store: MemoryStore, scope: str, questions: Sequence[str]) -> dict[str, Any]:
    vectors = [internals(store).embed_query(q) for q in questions]
    return {
        "keyword": lambda i: internals(store).keyword(scope, questions[i % len(questions)], k=K),
        "nearest": lambda i: internals(store).nearest(scope, vectors[i % len(vectors)], k=K),
    }


def time_adds(
    store: MemoryStore, scope: str, turns: Sequence[tuple[str, datetime]], n: int
) -> dict[str, Any]:
    """``store.add`` of one record against raw Chroma's ``collection.add`` of the same
    record (its vector, document and a metadata dict) into a collection of its own on
    the same client: what the store adds to a write, the lexical index among it."""
    raw = internals(store).client.get_or_create_collection(
        "bench-raw-adds", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
    )
    embeddings = store.embeddings

    def record(i: int) -> tuple[str, datetime]:
        text, when = turns[(7919 * i) % len(turns)]
        return f"{text} #{i}", when

    def add(i: int) -> None:
        text, when = record(i)
        store.add(scope, text, event_time=when)

    def raw_add(i: int) -> None:
        text, when = record(1_000_000 + i)
        raw.add(
            ids=[f"raw{i:08d}"],
            embeddings=np.asarray([embeddings.embed_query(text)], dtype=np.float32),
            documents=[text],
            metadatas=[{"event_time": when.timestamp(), "kind": "semantic"}],
        )

    seconds = time_alternating({"store_add": add, "raw_chroma_add": raw_add}, n)
    out: dict[str, Any] = {name: summarize(s) for name, s in seconds.items()}
    out["store_over_raw_p50"] = out["store_add"]["p50_ms"] / out["raw_chroma_add"]["p50_ms"]
    return out


def time_queries(
    store: MemoryStore, scope: str, questions: Sequence[str], n: int
) -> dict[str, Any]:
    seconds = time_alternating(query_paths(store, scope, questions), n)
    out: dict[str, Any] = {name: summarize(s) for name, s in seconds.items()}
    out["keyword_over_nearest_p50"] = out["keyword"]["p50_ms"] / out["nearest"]["p50_ms"]
    return out


def embedded(args: argparse.Namespace, turns: Any, questions: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"sizes": {}, "purge_s": {}}
    embeddings = HashedUnitEmbeddings(DIM)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for size in [int(s) for s in args.sizes.split(",")]:
            print(f"one scope of {size} ...", file=sys.stderr)
            directory = root / f"single-{size}"
            store = MemoryStore(directory, embeddings=embeddings)
            fill(store, "user:single", turns, size)
            out["sizes"][size] = time_queries(store, "user:single", questions, args.queries)
            if size == min(int(s) for s in args.sizes.split(",")):
                print("adds ...", file=sys.stderr)
                out["adds"] = time_adds(store, "user:adds", turns, args.adds)
            victim = internals(store).keyword("user:single", questions[0], k=1)[0].memory.id
            start = time.perf_counter()
            store.purge("user:single", [victim])
            out["purge_s"][size] = time.perf_counter() - start
            store.close()
            shutil.rmtree(directory)
        print(f"1k scope alone and among {args.scopes} x 1k ...", file=sys.stderr)
        alone = MemoryStore(root / "alone", embeddings=embeddings)
        fill(alone, "user:u0", turns, 1000)
        many = MemoryStore(root / "many", embeddings=embeddings)
        for s in range(args.scopes):
            fill(many, f"user:u{s}", turns, 1000)
        paths = {
            "alone": lambda i: internals(alone).keyword(
                "user:u0", questions[i % len(questions)], k=K
            ),
            "among": lambda i: internals(many).keyword(
                "user:u0", questions[i % len(questions)], k=K
            ),
        }
        seconds = time_alternating(paths, args.queries)
        out["many"] = {name: summarize(s) for name, s in seconds.items()}
        out["many"]["among_over_alone_p50"] = (
            out["many"]["among"]["p50_ms"] / out["many"]["alone"]["p50_ms"]
        )
        alone.close()
        many.close()
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def chroma_server(path: Path) -> Iterator[int]:
    """A ``chroma run`` on a free loopback port, stopped after."""
    import chromadb
    from chromadb.config import Settings

    port = _free_port()
    chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    proc = subprocess.Popen(
        [chroma, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                chromadb.HttpClient(
                    host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False)
                ).heartbeat()
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("`chroma run` did not start") from None
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def server(args: argparse.Namespace, turns: Any, questions: Sequence[str]) -> dict[str, Any]:
    import chromadb
    from chromadb.config import Settings

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, chroma_server(Path(tmp)) as port:
        client = chromadb.HttpClient(
            host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False)
        )
        store = MemoryStore(client=client, embeddings=HashedUnitEmbeddings(DIM))
        print("server: a 1k scope ...", file=sys.stderr)
        fill(store, "user:single", turns, 1000)
        out["queries_1k"] = time_queries(store, "user:single", questions, args.queries)
        print("server: adds ...", file=sys.stderr)
        out["adds"] = time_adds(store, "user:adds", turns, args.adds)
        store.close()
    return out


def report(results: dict[str, Any]) -> str:
    e = results["embedded"]
    lines = [
        "| scope size | keyword p50 ms | p90 ms | nearest p50 ms | keyword / nearest | "
        "purge one id s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for size, r in e["sizes"].items():
        lines.append(
            f"| {size} | {r['keyword']['p50_ms']:.2f} | {r['keyword']['p90_ms']:.2f} | "
            f"{r['nearest']['p50_ms']:.2f} | {r['keyword_over_nearest_p50']:.2f} | "
            f"{e['purge_s'][size]:.3f} |"
        )
    m, a = e["many"], e["adds"]
    lines += [
        "",
        f"1k scope among {results['scopes']} x 1k: keyword p50 {m['among']['p50_ms']:.2f} ms, "
        f"alone {m['alone']['p50_ms']:.2f} ms, ratio {m['among_over_alone_p50']:.2f}",
        f"add (one record): store p50 {a['store_add']['p50_ms']:.2f} ms, raw Chroma "
        f"{a['raw_chroma_add']['p50_ms']:.2f} ms: ratio {a['store_over_raw_p50']:.2f}",
    ]
    if "server" in results:
        s = results["server"]
        lines.append(
            f"server: keyword p50 {s['queries_1k']['keyword']['p50_ms']:.2f} ms on 1k "
            f"(nearest {s['queries_1k']['nearest']['p50_ms']:.2f} ms); add p50 "
            f"{s['adds']['store_add']['p50_ms']:.2f} ms, raw Chroma "
            f"{s['adds']['raw_chroma_add']['p50_ms']:.2f} ms: ratio "
            f"{s['adds']['store_over_raw_p50']:.2f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, help="write the raw results here as JSON")
    parser.add_argument("--sizes", help=f"records in one scope (default {FULL['sizes']})")
    parser.add_argument("--scopes", type=int, help="scopes of 1k for part 2 (default 100)")
    parser.add_argument("--queries", type=int, help="timed queries per path (default 300)")
    parser.add_argument("--adds", type=int, help="timed adds per path (default 400)")
    parser.add_argument("--server", action="store_true", help="also measure on `chroma run`")
    parser.add_argument("--quick", action="store_true", help="small sizes for a sanity run")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    vars(args).update({k: v for k, v in preset.items() if getattr(args, k) is None})
    turns, questions = corpus(args.data)
    results: dict[str, Any] = {
        "meta": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version},
        "scopes": args.scopes,
        "embedded": embedded(args, turns, questions),
    }
    if args.server:
        results["server"] = server(args, turns, questions)
    print(report(results))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
