"""Read latency and LoCoMo recall@10 of our read path next to three peers, same run, same data.

Run it on the benchmark data folder (nothing is downloaded except, once, the peer package)::

    python -m benchmarks.peers --data ../shared/data --out peers.json
    python -m benchmarks.peers --data ../shared/data --quick --skip-peer-package

The systems, all fed the same memories and the same vectors (LocalMiniLM, computed once):

a. ours: ``MemoryStore`` + ``read.retrieve`` (k=10: vector + keyword candidates, blended
   rank, ``touch`` as the read node does), and ``MemoryStore.nearest`` (vector search alone);
b. naive: one raw Chroma collection (cosine HNSW) for all scopes, scope as ``where``;
c. LangGraph's ``InMemoryStore(index={"embed": ..., "dims": 384})``,
   ``search(namespace, query=..., limit=10)``;
d. the PyPI engine ``langgraph-memory==0.1.0`` (``MemoryEngine.recall(limit=10)`` over an
   ``InMemoryStore``). It shares our import name, so it runs in its own virtualenv (created
   on demand by ``venv.py``, ``--peer-venv``), where ``engine_runner.py`` runs as a script;
   files carry the data and results. Its store embeds live questions with our own
   ``LocalMiniLM``, loaded from this checkout before the peer is imported, and checked
   against this process's on probe texts (``embedder_max_abs_diff``).

Data: every LoCoMo turn is one memory (``"<speaker>: <text>"``), one scope per conversation;
every QA item whose evidence cites turns is one query into its conversation's scope; recall@10
is the mean share of a question's evidence turns among the 10 results (hit@10: at least one).
And one synthetic scope of ``--synthetic`` memories (hashed unit vectors, latency only).

Two latency modes per system, medians over the same ``--queries`` questions after warm-up:
"vector given" (the embedder answers from a table, so the time is retrieve + rank only) and
"embed" (the question is embedded by the model inside the call). In-process systems take turns
block by block (``store_latency.time_paths``); the peer engine is timed in its own process on
the same machine right after. Ratios are p50 against ours (``retrieve``) in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.config import Settings
from langchain_core.embeddings import Embeddings
from langgraph.store.memory import InMemoryStore

from benchmarks import write_cost
from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import DIM, HashedUnitEmbeddings, TableEmbeddings
from benchmarks.peers.venv import DEFAULT_PEER_VENV, PEER_SPEC, ensure_peer_venv, run_peer
from benchmarks.store_latency import (
    COSINE,
    WARMUP,
    QueryPath,
    Stats,
    ratio,
    summarize,
    time_paths,
)
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.read import retrieve
from langgraph_memory.store import MemoryStore, internals

K = 10
SYNTHETIC_SCOPE = "user:bench-synthetic"
SEED = 20240607
#: All memories are written at this time and read "now" at it too, so recency is equal for
#: every memory and ``touch`` cannot reorder later queries: recall measures relevance.
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
PROBES = ["I moved to Pune last week.", "What is my sister's name?", "ok", "x " * 300]
_DIA_ID = re.compile(r"D\d+:\d+")

SYSTEMS = ("ours_retrieve", "ours_nearest", "naive_chroma", "lg_inmemory", "peer_engine")
LABELS = {
    "ours_retrieve": "a. ours: `retrieve(k=10)`",
    "ours_nearest": "a. ours: `MemoryStore.nearest(k=10)`",
    "naive_chroma": 'b. naive Chroma, one collection, `where={"scope"}`',
    "lg_inmemory": "c. LangGraph `InMemoryStore.search(limit=10)`",
    "peer_engine": f"d. `{PEER_SPEC}` `MemoryEngine.recall(limit=10)`",
}


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[peers] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Question:
    """One LoCoMo QA item with turn evidence, asked in its conversation's scope."""

    sample_id: str
    text: str
    evidence: frozenset[str]


@dataclass(frozen=True)
class Doc:
    """One memory: its scope's id, text and LoCoMo turn id ("" for synthetic ones)."""

    sample_id: str
    text: str
    dia_id: str


def load_data(
    data: Path, convs: int | None, turns_per_conv: int | None
) -> tuple[list[Doc], list[Question]]:
    """LoCoMo turns as memories and QA items (evidence within the kept turns) as queries."""
    path = data / DATASETS["locomo"]
    with path.open(encoding="utf-8") as f:
        samples: list[dict[str, Any]] = json.load(f)
    docs: list[Doc] = []
    questions: list[Question] = []
    for sample, conv in zip(samples, write_cost.load_locomo(path, convs), strict=False):
        turns = conv.turns[:turns_per_conv] if turns_per_conv else conv.turns
        kept = {t.dia_id for t in turns}
        docs += [Doc(conv.sample_id, f"{t.speaker}: {t.text}", t.dia_id) for t in turns]
        for qa in sample["qa"]:
            cited = {i for e in qa["evidence"] for i in _DIA_ID.findall(str(e))} & kept
            if cited and str(qa["question"]).strip():
                questions.append(Question(conv.sample_id, str(qa["question"]), frozenset(cited)))
    return docs, questions


def scope_of(sample_id: str) -> str:
    """Our scope for a conversation (the synthetic scope passes through)."""
    return sample_id if ":" in sample_id else f"user:{sample_id}"


def namespace_of(sample_id: str) -> tuple[str, str]:
    """The BaseStore namespace for a conversation."""
    return ("memories", scope_of(sample_id).replace(":", "-"))


def recall_at_k(found: Sequence[Sequence[str]], questions: Sequence[Question]) -> dict[str, float]:
    """Mean share of evidence turns in the results, and share of questions with any.

    >>> q = [Question("c", "?", frozenset({"D1:1", "D1:2"}))]
    >>> recall_at_k([["D1:1", "D9:9"]], q)
    {'recall': 0.5, 'hit': 1.0, 'n': 1}
    """
    shares = [
        len(set(f) & q.evidence) / len(q.evidence) for f, q in zip(found, questions, strict=True)
    ]
    hits = [float(bool(set(f) & q.evidence)) for f, q in zip(found, questions, strict=True)]
    return {
        "recall": float(np.mean(shares)) if shares else 0.0,
        "hit": float(np.mean(hits)) if hits else 0.0,
        "n": len(shares),
    }


# -- d. the PyPI peer, in its own virtualenv (see venv.py and engine_runner.py) -------------


def peer_request(
    workdir: Path,
    docs: Sequence[Doc],
    doc_vectors: np.ndarray,
    query_texts: Sequence[str],
    query_vectors: np.ndarray,
    jobs: list[dict[str, Any]],
    embedder: str,
) -> dict[str, Any]:
    """The peer runner's request: the memories, their vectors (saved beside it), the
    questions' vectors, the jobs, and which live embedder to use (``minilm`` or ``hashed``)."""
    np.save(workdir / "docs.npy", doc_vectors)
    np.save(workdir / "queries.npy", query_vectors)
    return {
        "embedder": embedder,
        "doc_vectors": str(workdir / "docs.npy"),
        "query_vectors": str(workdir / "queries.npy"),
        "docs": [
            {"ns": list(namespace_of(d.sample_id)), "text": d.text, "dia_id": d.dia_id}
            for d in docs
        ],
        "query_texts": list(query_texts),
        "probes": PROBES,
        "jobs": jobs,
    }


# -- a, b, c in this process --------------------------------------------------------------------


class InProcess:
    """Systems a, b and c loaded with the same memories and vectors."""

    def __init__(self, root: Path, emb: TableEmbeddings, docs: Sequence[Doc]) -> None:
        self.emb = emb
        self.store = MemoryStore(root / "ours", embeddings=emb)
        self.client = chromadb.PersistentClient(
            path=str(root / "naive"), settings=Settings(anonymized_telemetry=False)
        )
        self.naive = self.client.create_collection(
            "naive",
            embedding_function=None,
            configuration=COSINE,  # type: ignore[arg-type]
        )
        self.lg = InMemoryStore(index={"embed": emb, "dims": DIM, "fields": ["text"]})
        self.dia: dict[str, str] = {}
        self.load_seconds: dict[str, float] = {}
        by_scope: dict[str, list[Doc]] = {}
        for d in docs:
            by_scope.setdefault(d.sample_id, []).append(d)
        t_ours = t_naive = t_lg = 0.0
        for sample_id, group in by_scope.items():
            scope = scope_of(sample_id)
            for first in range(0, len(group), 1000):
                batch = group[first : first + 1000]
                texts = [d.text for d in batch]
                start = time.perf_counter()
                added = self.store.add_many(scope, texts, now=NOW)
                t_ours += time.perf_counter() - start
                self.dia.update(
                    (m.id + "@" + scope, d.dia_id) for m, d in zip(added, batch, strict=True)
                )
                vectors = emb.embed_documents(texts)
                start = time.perf_counter()
                self.naive.add(
                    ids=[f"{scope}/{first + i}" for i in range(len(batch))],
                    embeddings=vectors,  # type: ignore[arg-type]
                    documents=texts,
                    metadatas=[{"scope": scope, "dia_id": d.dia_id} for d in batch],
                )
                t_naive += time.perf_counter() - start
                start = time.perf_counter()
                ns = namespace_of(sample_id)
                for i, d in enumerate(batch):
                    self.lg.put(ns, f"{first + i}", {"text": d.text, "dia_id": d.dia_id})
                t_lg += time.perf_counter() - start
        self.load_seconds = {"ours_add_many": t_ours, "naive_add": t_naive, "lg_put": t_lg}

    def close(self) -> None:
        """Release the store and the Chroma client."""
        self.store.close()
        self.client.close()  # type: ignore[attr-defined]

    def paths(self, sample_ids: Sequence[str], texts: Sequence[str]) -> dict[str, QueryPath]:
        """One QueryPath per in-process system; query ``i`` is ``texts[i]`` in its scope."""
        scopes = [scope_of(s) for s in sample_ids]
        spaces = [namespace_of(s) for s in sample_ids]

        def ours(i: int) -> Any:
            return retrieve(self.store, scopes[i], texts[i], k=K, now=NOW)

        def nearest(i: int) -> Any:
            return internals(self.store).nearest(scopes[i], texts[i], k=K)

        def naive(i: int) -> Any:
            vector = self.emb.embed_query(texts[i])
            return self.naive.query(
                query_embeddings=[vector],  # type: ignore[arg-type]
                n_results=K,
                where={"scope": scopes[i]},
            )

        def lg(i: int) -> Any:
            return self.lg.search(spaces[i], query=texts[i], limit=K)

        def ours_ids(found: Any) -> list[str]:
            return [self.dia.get(r.memory.id + "@" + r.memory.scope, "") for r in found]

        def nearest_ids(found: Any) -> list[str]:
            return [self.dia.get(h.memory.id + "@" + h.memory.scope, "") for h in found]

        def naive_ids(found: Any) -> list[str]:
            return [str(m["dia_id"]) for m in (found["metadatas"] or [[]])[0]]

        def lg_ids(found: Any) -> list[str]:
            return [str(item.value.get("dia_id", "")) for item in found]

        return {
            "ours_retrieve": QueryPath(ours, ours_ids),
            "ours_nearest": QueryPath(nearest, nearest_ids),
            "naive_chroma": QueryPath(naive, naive_ids),
            "lg_inmemory": QueryPath(lg, lg_ids),
        }


def _stats_by_system(timed: dict[str, Any]) -> dict[str, Stats]:
    return {name: t.stats() for name, t in timed.items()}


def _with_ratios(stats: dict[str, Stats]) -> dict[str, Any]:
    base = stats.get("ours_retrieve")
    return {
        name: {**s, "ratio_over_ours_retrieve": ratio(s, base) if base else None}
        for name, s in stats.items()
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The whole benchmark; the report as a JSON-ready dict."""
    began = time.perf_counter()
    docs, questions = load_data(args.data, args.convs, args.turns_per_conv)
    log(f"{len(docs)} LoCoMo turns as memories, {len(questions)} questions with evidence")
    rng = random.Random(SEED)
    n_timed = min(args.queries, max(len(questions) - WARMUP, 1))
    picked = rng.sample(range(len(questions)), min(len(questions), WARMUP + n_timed))
    timed_q = [questions[i] for i in picked]
    n_warm = len(timed_q) - n_timed
    synthetic = [
        Doc(SYNTHETIC_SCOPE, f"memory {i} of {SYNTHETIC_SCOPE}", f"s{i}")
        for i in range(args.synthetic)
    ]

    live: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    started = time.perf_counter()
    doc_vectors = np.asarray(live.embed_documents([d.text for d in docs]), dtype=np.float32)
    query_texts = sorted({q.text for q in questions})
    query_vectors = np.asarray(live.embed_documents(query_texts), dtype=np.float32)
    embed_s = time.perf_counter() - started
    log(f"embedded {len(docs)} turns and {len(query_texts)} questions once ({embed_s:.0f}s)")
    syn_vectors = np.asarray(
        HashedUnitEmbeddings().embed_documents([d.text for d in synthetic]), dtype=np.float32
    ).reshape(len(synthetic), DIM)
    table: dict[str, list[float]] = dict(
        zip([d.text for d in docs], doc_vectors.tolist(), strict=True)
    )
    table.update(zip(query_texts, query_vectors.tolist(), strict=True))
    table.update(zip([d.text for d in synthetic], syn_vectors.tolist(), strict=True))
    emb = TableEmbeddings(live, table)

    report: dict[str, Any] = {
        "config": {
            "convs": args.convs,
            "turns_per_conv": args.turns_per_conv,
            "memories": len(docs),
            "scopes": len({d.sample_id for d in docs}),
            "questions": len(questions),
            "timed_queries": n_timed,
            "warmup": n_warm,
            "synthetic": args.synthetic,
            "k": K,
            "embedder": "hashed-fake" if args.fake_embedder else LocalMiniLM.name,
        },
        "embed_once_seconds": embed_s,
    }
    root = Path(tempfile.mkdtemp(prefix="lgm-peers-"))
    try:
        systems = InProcess(root, emb, [*docs, *synthetic])
        report["load_seconds"] = systems.load_seconds
        try:
            # Recall on every question, vector given.
            paths = systems.paths([q.sample_id for q in questions], [q.text for q in questions])
            recall: dict[str, Any] = {}
            for name, path in paths.items():
                recall[name] = recall_at_k(
                    [path.texts(path.call(i)) for i in range(len(questions))], questions
                )
            log("recall done; timing")
            latency: dict[str, dict[str, Any]] = {}
            sets = {
                "locomo": ([q.sample_id for q in timed_q], [q.text for q in timed_q]),
                "synthetic": ([SYNTHETIC_SCOPE] * len(timed_q), [q.text for q in timed_q]),
            }
            for set_name, (sample_ids, texts) in sets.items():
                for mode, is_live in (("vector", False), ("embed", True)):
                    emb.live = is_live
                    timed = time_paths(systems.paths(sample_ids, texts), n_warm, n_timed)
                    latency[f"{set_name}/{mode}"] = _stats_by_system(timed)
                    log(f"timed {set_name}/{mode}")
            emb.live = False
        finally:
            systems.close()

        if args.skip_peer_package:
            report["peer"] = {"status": "skipped (--skip-peer-package)"}
        else:
            python, status = ensure_peer_venv(args.peer_venv, log)
            report["peer"] = {"status": status, "venv": str(args.peer_venv)}
            if python is not None:
                jobs = [
                    {
                        "name": "recall",
                        "live": False,
                        "warmup": 0,
                        "k": K,
                        "queries": [[list(namespace_of(q.sample_id)), q.text] for q in questions],
                    }
                ]
                for set_name, (sample_ids, texts) in sets.items():
                    for mode, is_live in (("vector", False), ("embed", True)):
                        jobs.append(
                            {
                                "name": f"{set_name}/{mode}",
                                "live": is_live,
                                "warmup": n_warm,
                                "k": K,
                                "queries": [
                                    [list(namespace_of(s)), t]
                                    for s, t in zip(sample_ids, texts, strict=True)
                                ],
                            }
                        )
                log("running the peer engine in its virtualenv")
                request = peer_request(
                    root,
                    [*docs, *synthetic],
                    np.concatenate([doc_vectors.reshape(-1, DIM), syn_vectors]),
                    query_texts,
                    query_vectors.reshape(-1, DIM),
                    jobs,
                    "hashed" if args.fake_embedder else "minilm",
                )
                got = run_peer(python, root, request)
                recall["peer_engine"] = recall_at_k(got["jobs"]["recall"]["keys"], questions)
                for name, job in got["jobs"].items():
                    if name != "recall":
                        latency[name]["peer_engine"] = summarize(job["seconds"])
                ours_probe = np.asarray(live.embed_documents(PROBES))
                report["peer"].update(
                    {
                        "load_seconds": got["load_seconds"],
                        "versions": got["versions"],
                        "embedder_max_abs_diff": float(
                            np.max(np.abs(ours_probe - np.asarray(got["probes"])))
                        ),
                    }
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report["recall_at_10"] = recall
    report["latency"] = {key: _with_ratios(stats) for key, stats in latency.items()}
    report["environment"] = {
        "chromadb": chromadb.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    report["total_seconds"] = time.perf_counter() - began
    return report


def render_markdown(report: dict[str, Any]) -> str:
    """Recall and latency tables (times p50 / p90 ms; ratios p50 against ours retrieve)."""
    c = report["config"]
    lines = [
        "# Read path next to peers",
        "",
        f"{c['memories']:,} LoCoMo turns in {c['scopes']} scopes (one per conversation), "
        f"{c['questions']:,} questions with evidence; synthetic scope of {c['synthetic']:,}; "
        f"embedder {c['embedder']}; k={c['k']}. Peer package: {report['peer']['status']}.",
        "",
        "## Recall of LoCoMo evidence turns @10 (all questions)",
        "",
        "| system | recall@10 | hit@10 | recall / ours retrieve |",
        "|---|---:|---:|---:|",
    ]
    recall = report["recall_at_10"]
    base = recall.get("ours_retrieve", {}).get("recall") or 0.0
    for name in SYSTEMS:
        if name in recall:
            r = recall[name]
            rel = f"{r['recall'] / base:.2f}x" if base else "n/a"
            lines.append(f"| {LABELS[name]} | {r['recall']:.3f} | {r['hit']:.3f} | {rel} |")
    if "peer_engine" not in recall:
        lines.append(f"| {LABELS['peer_engine']} | not available | | |")
    lines += [
        "",
        f"## Read latency, p50 / p90 ms over {c['timed_queries']} questions "
        f"({c['warmup']} warm-up); ratio = p50 / ours `retrieve` p50",
        "",
    ]
    keys = list(report["latency"])
    lines.append("| system | " + " | ".join(f"{k} | ratio" for k in keys) + " |")
    lines.append("|---|" + "---:|---:|" * len(keys))
    for name in SYSTEMS:
        cells = []
        for key in keys:
            s = report["latency"][key].get(name)
            if s is None:
                cells += ["n/a", ""]
            else:
                r = s["ratio_over_ours_retrieve"]
                cells += [
                    f"{s['p50_ms']:.2f} / {s['p90_ms']:.2f}",
                    f"{r['p50']:.2f}x" if r else "",
                ]
        lines.append(f"| {LABELS[name]} | " + " | ".join(cells) + " |")
    peer = report["peer"]
    lines += [
        "",
        "vector = query vector given (embedder answers from a table): retrieve + rank only; "
        "embed = the model embeds the question inside the call. locomo = the question's "
        f"conversation scope (~{c['memories'] // max(c['scopes'], 1)} memories); synthetic = "
        f"one scope of {c['synthetic']:,}.",
    ]
    if "embedder_max_abs_diff" in peer:
        lines.append(
            f"Peer runner's LocalMiniLM vs this process's: max |diff| "
            f"{peer['embedder_max_abs_diff']:.2e} on {len(PROBES)} probes; peer versions "
            f"{peer['versions']}; the peer is timed in its own process after the others."
        )
    env = report["environment"]
    lines.append(
        f"Total runtime {report['total_seconds']:.0f}s (embedding all texts once: "
        f"{report['embed_once_seconds']:.0f}s); chromadb {env['chromadb']}, Python "
        f"{env['python']}, {env['cpus']} CPUs."
    )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.peers",
        description="Read latency and LoCoMo recall@10: ours vs naive Chroma, InMemoryStore, "
        f"and {PEER_SPEC}.",
    )
    p.add_argument(
        "--data", type=Path, required=True, help="benchmark data folder (locomo/locomo10.json)"
    )
    p.add_argument("--convs", type=int, default=None, help="first N LoCoMo conversations")
    p.add_argument("--turns-per-conv", type=int, default=None, help="first N turns of each")
    p.add_argument("--queries", type=int, default=200, help="timed questions per path")
    p.add_argument("--synthetic", type=int, default=10000, help="memories in the synthetic scope")
    p.add_argument("--skip-peer-package", action="store_true", help=f"leave out {PEER_SPEC}")
    p.add_argument("--peer-venv", type=Path, default=DEFAULT_PEER_VENV, help="its virtualenv")
    p.add_argument(
        "--fake-embedder", action="store_true", help="hashed vectors instead of MiniLM (tests)"
    )
    p.add_argument("--quick", action="store_true", help="2 conversations, 50 queries, 1k synthetic")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    if args.quick:
        args.convs = args.convs or 2
        args.queries = min(args.queries, 50)
        args.synthetic = min(args.synthetic, 1000)
    if args.queries < 1 or args.synthetic < K:
        p.error(f"--queries must be >= 1 and --synthetic >= {K}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run, print the tables, write the JSON; return the exit status."""
    args = parse_args(argv)
    problem = missing_data(args.data, DATASETS["locomo"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    report = run(args)
    print(render_markdown(report))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
