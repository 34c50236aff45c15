"""LoCoMo recall@10 and read latency on real-text scopes of 1k/10k/100k: ours next to peers.

One run, the same memories, the same vectors (LocalMiniLM) and the same questions in every
system. Run it on the benchmark data folder (nothing is downloaded at run time except, once,
the ``langgraph-memory==0.1.0`` peer into its own virtualenv)::

    pip install mem0ai   # benchmark-only, like langmem (in the dev extra); left out if missing
    python -m benchmarks.peers --data ../shared/data --out peers.json
    python -m benchmarks.peers --data ../shared/data --quick --skip-peer-package

The systems:

a. ours: ``MemoryStore`` + ``read.retrieve`` (k=10), the product read: vector + keyword
   candidates, blended rank, ``touch`` as the read node does; and ``MemoryStore.nearest``
   (vector search alone);
b. naive: one raw Chroma collection (cosine HNSW) for all scopes, scope as ``where``;
c. LangGraph's ``InMemoryStore(index={"embed": ..., "dims": 384})``,
   ``search(namespace, query=..., limit=10)``;
d. the PyPI engine ``langgraph-memory==0.1.0`` (``MemoryEngine.recall(limit=10)`` over an
   ``InMemoryStore``). It shares our import name, so it runs in its own virtualenv (created
   on demand by ``venv.py``, ``--peer-venv``), where ``engine_runner.py`` runs as a script;
   files carry the data and results. Its store embeds live questions with our own
   ``LocalMiniLM``, loaded from this checkout before the peer is imported, and checked
   against this process's on probe texts (``embedder_max_abs_diff``);
e. LangMem's search tool, ``create_search_memory_tool(namespace=("memories",
   "{langgraph_user_id}"), store=...)`` over c's ``InMemoryStore`` (the same store: its
   results are c's), called as an agent's ``ToolNode`` calls it: ``tool.invoke(tool_call,
   config)`` with the user in ``config["configurable"]``, the answer a ``ToolMessage`` of
   JSON; the time is the search plus the tool layer;
f. mem0 OSS (``mem0ai``, ``Memory.from_config`` on its Chroma backend, our embedder through
   its ``langchain`` provider, ``add(..., infer=False)`` so that no LLM is ever called,
   ``MEM0_TELEMETRY=False``), ``search(question, filters={"user_id": ...}, top_k=10)``; see
   ``mem0_system.py``. Left out, with the reason, when ``mem0ai`` is not installed
   (``--skip-mem0`` leaves it out by choice).

Data: every LoCoMo turn is one memory (``"<speaker>: <text>"``), one scope per conversation;
every QA item whose evidence cites turns is one query into its conversation's scope; recall@10
is the mean share of a question's evidence turns among the 10 results (hit@10: at least one).
Then one real-text scope grows through ``--sizes`` (default 1k, 10k, 100k): the first N
distinct real turns of LongMemEval-S (``benchmarks.real_text``: chat turns, never generated
strings), asked LongMemEval-S's own real questions (latency only: there is no evidence to
score there). Their vectors come from ``real_text.VectorCache`` in ``--cache`` (embedded once,
kept between runs; LoCoMo's turns and all questions are cached beside them, in a file of
their own), so every system is loaded from the same table of model vectors.

Ingest: every system is topped up to each size before that size is timed. A peer whose
measured ingest rate (all its memories so far) would need more than ``--ingest-budget``
seconds (default 600) to reach the next size stops there: it is measured at the sizes it
reached and the report gives the rate as the reason (mem0 adds one memory per call, with a
Chroma write and a history row each).

Two latency modes per system, medians over the same ``--queries`` questions after warm-up:
"vector" (the embedder answers from the table, so the time is retrieve + rank only) and
"embed" (the question is embedded by the model inside the call; the model's kept query vectors
are forgotten before each system's block, so none reuses another's). In-process systems take
turns block by block (``store_latency.time_paths``); the peer engine is timed in its own process
on the same machine right after. Ratios are p50 against ours (``retrieve``) in the same run.
A system whose read is too slow to answer a set's questions within ``--read-budget`` seconds
(default 60; judged by one probe call: ``InMemoryStore`` scans its whole namespace, seconds a
question at 100k) is timed on the first 20 or more of the same timed questions, after 2 warm-up
calls; the report gives each p50's ``n``.

Outputs: the Markdown tables on stdout (first a summary per mode: system, LoCoMo R@10, p50 at
each size and its ratio to ours), everything raw in ``--out`` (JSON, also written after every
timed set while the run goes, with ``"partial"`` saying how far it got). ``--quick``: 2
conversations, 50 questions, the 1k scope only.
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
from collections.abc import Callable, Sequence
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
from benchmarks.embedders import (
    DIM,
    HashedUnitEmbeddings,
    TableEmbeddings,
    VectorTable,
    forget_queries,
)
from benchmarks.peers.mem0_system import MEM0_SPEC, Mem0Peer, mem0_version
from benchmarks.peers.mem0_system import dia_ids as mem0_dia_ids
from benchmarks.peers.venv import DEFAULT_PEER_VENV, PEER_SPEC, ensure_peer_venv, run_peer
from benchmarks.real_text import VectorCache, default_cache, load_corpus
from benchmarks.store_latency import (
    COSINE,
    WARMUP,
    QueryPath,
    Stats,
    Timed,
    ratio,
    summarize,
    time_paths,
)
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.read import retrieve
from langgraph_memory.store import MemoryStore, internals

K = 10
#: The real-text scope (its sample id passes through ``scope_of``).
REAL_SCOPE = "user:real-text"
SIZES = (1000, 10000, 100000)
SEED = 20240607
#: All memories are written at this time and read "now" at it too, so recency is equal for
#: every memory and ``touch`` cannot reorder later queries: recall measures relevance.
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
PROBES = ["I moved to Pune last week.", "What is my sister's name?", "ok", "x " * 300]
_DIA_ID = re.compile(r"D\d+:\d+")

SYSTEMS = (
    "ours_retrieve",
    "ours_nearest",
    "naive_chroma",
    "lg_inmemory",
    "peer_engine",
    "langmem_tool",
    "mem0",
)
#: A system too slow to answer every timed question of a set within ``--read-budget`` is
#: timed on the first of them only (never fewer than this), after fewer warm-up calls.
MIN_TIMED_SLOW = 20
SLOW_WARMUP = 2
LABELS = {
    "ours_retrieve": "a. ours: `retrieve(k=10)` (product read)",
    "ours_nearest": "a. ours: `MemoryStore.nearest(k=10)`",
    "naive_chroma": 'b. naive Chroma, one collection, `where={"scope"}`',
    "lg_inmemory": "c. LangGraph `InMemoryStore.search(limit=10)`",
    "peer_engine": f"d. `{PEER_SPEC}` `MemoryEngine.recall(limit=10)`",
    "langmem_tool": "e. LangMem `create_search_memory_tool` (tool call over c)",
    "mem0": "f. mem0 OSS `Memory.search(top_k=10)` (Chroma, `infer=False`)",
}
#: The loaded system behind each path: ingest, and its cap, are per loaded system.
LOADER = {
    "ours_retrieve": "ours",
    "ours_nearest": "ours",
    "naive_chroma": "naive",
    "lg_inmemory": "lg",
    "langmem_tool": "lg",
    "mem0": "mem0",
    "peer_engine": "peer_engine",
}


def size_label(n: int) -> str:
    """``1000`` -> ``"1k"``, ``2500`` -> ``"2500"``.

    >>> size_label(100000), size_label(40)
    ('100k', '40')
    """
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def ingest_cap(loaded: int, seconds: float, more: int, budget_s: float) -> dict[str, Any] | None:
    """None when a system that loaded ``loaded`` memories in ``seconds`` can load ``more``
    within ``budget_s`` at that rate; else why not (the rate and the projected time).

    >>> ingest_cap(1000, 10.0, 9000, 600.0) is None
    True
    >>> ingest_cap(1000, 10.0, 99000, 600.0)
    {'rate_per_s': 100.0, 'projected_s': 990.0, 'budget_s': 600.0}
    """
    rate = loaded / seconds if seconds > 0 else float("inf")
    projected = more / rate
    if projected <= budget_s:
        return None
    return {"rate_per_s": rate, "projected_s": projected, "budget_s": budget_s}


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
    stages: list[dict[str, Any]],
    embedder: str,
    ingest_budget_s: float,
    read_budget_s: float,
) -> dict[str, Any]:
    """The peer runner's request: the memories, their vectors (saved beside it), the
    questions' vectors, the stages (load the memories up to ``upto``, then run the ``jobs``),
    and which live embedder to use (``minilm`` or ``hashed``)."""
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
        "stages": stages,
        "ingest_budget_s": ingest_budget_s,
        "read_budget_s": read_budget_s,
        "min_timed_slow": MIN_TIMED_SLOW,
        "slow_warmup": SLOW_WARMUP,
    }


def peer_job(
    name: str, live: bool, warmup: int, sample_ids: Sequence[str], texts: Sequence[str]
) -> dict[str, Any]:
    """One job of the peer runner: every query ``(namespace, text)`` asked in order."""
    return {
        "name": name,
        "live": live,
        "warmup": warmup,
        "k": K,
        "queries": [[list(namespace_of(s)), t] for s, t in zip(sample_ids, texts, strict=True)],
    }


# -- a, b, c, e, f in this process --------------------------------------------------------------


def _langmem_tool(store: InMemoryStore) -> Any:
    """LangMem's search tool over ``store``, the user's namespace from the call's config."""
    from langmem import create_search_memory_tool

    return create_search_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)


class InProcess:
    """Systems a, b, c, e (over c's store) and f, loaded with the same memories and vectors."""

    def __init__(self, root: Path, emb: TableEmbeddings, *, mem0: bool, langmem: bool) -> None:
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
        self.tool = _langmem_tool(self.lg) if langmem else None
        self.mem0 = Mem0Peer(root / "mem0", emb) if mem0 else None
        self.dia: dict[str, str] = {}
        self._next = 0

    @property
    def loaders(self) -> list[str]:
        """The loaded systems: ``ours``, ``naive``, ``lg`` and ``mem0`` when it is here."""
        return ["ours", "naive", "lg", *(["mem0"] if self.mem0 else [])]

    def add(self, docs: Sequence[Doc], loaders: Sequence[str]) -> dict[str, float]:
        """Load ``docs`` into the ``loaders`` named; seconds each took (model time excluded:
        the embedder answers from the table)."""
        seconds = dict.fromkeys(loaders, 0.0)
        by_scope: dict[str, list[Doc]] = {}
        for d in docs:
            by_scope.setdefault(d.sample_id, []).append(d)
        for sample_id, group in by_scope.items():
            scope = scope_of(sample_id)
            ns = namespace_of(sample_id)
            for first in range(0, len(group), 1000):
                batch = group[first : first + 1000]
                texts = [d.text for d in batch]
                keys = [str(self._next + i) for i in range(len(batch))]
                self._next += len(batch)
                if "ours" in seconds:
                    start = time.perf_counter()
                    added = self.store.add_many(scope, texts, now=NOW)
                    seconds["ours"] += time.perf_counter() - start
                    self.dia.update(
                        (m.id + "@" + scope, d.dia_id) for m, d in zip(added, batch, strict=True)
                    )
                if "naive" in seconds:
                    vectors = self.emb.embed_documents(texts)
                    start = time.perf_counter()
                    self.naive.add(
                        ids=keys,
                        embeddings=vectors,  # type: ignore[arg-type]
                        documents=texts,
                        metadatas=[{"scope": scope, "dia_id": d.dia_id} for d in batch],
                    )
                    seconds["naive"] += time.perf_counter() - start
                if "lg" in seconds:
                    # One put each: InMemoryStore.batch of puts fails on a text twice in one
                    # batch (it embeds each text once, then expects a vector per put).
                    start = time.perf_counter()
                    for key, d in zip(keys, batch, strict=True):
                        self.lg.put(ns, key, {"text": d.text, "dia_id": d.dia_id})
                    seconds["lg"] += time.perf_counter() - start
                if "mem0" in seconds and self.mem0 is not None:
                    start = time.perf_counter()
                    self.mem0.add(ns[1], texts, [d.dia_id for d in batch])
                    seconds["mem0"] += time.perf_counter() - start
        return seconds

    def close(self) -> None:
        """Release the stores and the Chroma clients."""
        self.store.close()
        self.client.close()  # type: ignore[attr-defined]
        if self.mem0 is not None:
            self.mem0.close()

    def paths(
        self, sample_ids: Sequence[str], texts: Sequence[str], loaders: Sequence[str]
    ) -> dict[str, QueryPath]:
        """One QueryPath per in-process system whose loader is in ``loaders``; query ``i`` is
        ``texts[i]`` in its scope."""
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

        paths = {
            "ours_retrieve": QueryPath(ours, ours_ids),
            "ours_nearest": QueryPath(nearest, nearest_ids),
            "naive_chroma": QueryPath(naive, naive_ids),
            "lg_inmemory": QueryPath(lg, lg_ids),
        }
        if self.tool is not None:
            tool = self.tool

            def langmem(i: int) -> Any:
                call = {
                    "type": "tool_call",
                    "name": tool.name,
                    "id": f"call-{i}",
                    "args": {"query": texts[i], "limit": K},
                }
                return tool.invoke(call, {"configurable": {"langgraph_user_id": spaces[i][1]}})

            def langmem_ids(found: Any) -> list[str]:
                return [str(item["value"].get("dia_id", "")) for item in json.loads(found.content)]

            paths["langmem_tool"] = QueryPath(langmem, langmem_ids)
        if self.mem0 is not None:
            mem0 = self.mem0

            def mem0_search(i: int) -> Any:
                return mem0.search(spaces[i][1], texts[i], K)

            paths["mem0"] = QueryPath(mem0_search, mem0_dia_ids)
        return {name: p for name, p in paths.items() if LOADER[name] in loaders}


def _shifted(path: QueryPath, shift: int) -> QueryPath:
    """``path`` asked query ``i + shift`` when asked ``i``."""
    return QueryPath(lambda i: path.call(i + shift), path.texts)


def time_within(
    paths: dict[str, QueryPath],
    warm: int,
    n: int,
    budget_s: float,
    settle: Callable[[], object],
) -> dict[str, Timed]:
    """``time_paths`` over the paths that can answer ``warm + n`` questions within
    ``budget_s`` (judged by one probe call each); the others are timed apart, on the first
    ``budget_s / probe`` timed questions (at least ``MIN_TIMED_SLOW``) after ``SLOW_WARMUP``
    warm-up calls. Every path's timed questions are the same ones, or the first of them."""
    probe: dict[str, float] = {}
    for name, path in paths.items():
        start = time.perf_counter()
        path.call(0)
        probe[name] = time.perf_counter() - start
    fast = {k: p for k, p in paths.items() if probe[k] * (warm + n) <= budget_s}
    timed = time_paths(fast, warm, n, settle=settle) if fast else {}
    slow = [k for k in paths if k not in fast]
    if slow:
        m = min(n, max(MIN_TIMED_SLOW, int(budget_s / max(probe[k] for k in slow))))
        w = min(SLOW_WARMUP, warm)
        log(f"{', '.join(slow)}: {max(probe.values()):.1f}s a question; timing {m} of {n}")
        shifted = {k: _shifted(paths[k], warm - w) for k in slow}
        timed.update(time_paths(shifted, w, m, settle=settle))
    return timed


def _with_ratios(stats: dict[str, Stats]) -> dict[str, Any]:
    base = stats.get("ours_retrieve")
    return {
        name: {**s, "ratio_over_ours_retrieve": ratio(s, base) if base else None}
        for name, s in stats.items()
    }


@dataclass
class Vectors:
    """The live embedder and the table every system is loaded from, with how long it took.
    The real-text turns' rows are added stage by stage (``add_real``)."""

    live: Embeddings
    emb: TableEmbeddings
    matrix: np.ndarray
    texts: list[str]
    seconds: float
    source: str

    def add_real(self, args: argparse.Namespace, texts: Sequence[str]) -> None:
        """Rows for more real-text turns: hashed for the fake embedder, else from the real
        text's vector cache (``--real-cache``), embedding what it lacks, or, with
        ``--wait-for-cache``, waiting (reading only) until another process cached them."""
        if not texts:
            return
        started = time.perf_counter()
        if isinstance(self.live, HashedUnitEmbeddings):
            rows = np.asarray(self.live.embed_documents(list(texts)), dtype=np.float32)
        else:
            rows = real_vectors(args, self.live, texts)
        self.texts += texts
        self.matrix = np.concatenate([self.matrix, rows.reshape(-1, DIM).astype(np.float32)])
        self.emb.table = VectorTable(self.texts, self.matrix)
        self.seconds += time.perf_counter() - started


def real_vectors(args: argparse.Namespace, live: Embeddings, texts: Sequence[str]) -> np.ndarray:
    """The cached vectors of real-text turns (see ``Vectors.add_real``)."""
    name = embedder_name(live)
    if args.wait_for_cache <= 0:
        cache = VectorCache(args.real_cache, live, name)
        return cache.vectors(texts, log=lambda m: log(f"real-text vector cache: {m}"))
    deadline = time.monotonic() + args.wait_for_cache
    while True:
        try:  # model None: never writes to a cache another process is filling
            return VectorCache(args.real_cache, None, name).vectors(texts)
        except (LookupError, ValueError, OSError) as exc:
            if time.monotonic() > deadline:
                raise LookupError(f"{args.real_cache} still lacks real-text vectors") from exc
            log(f"waiting for the real-text vector cache ({exc})")
            time.sleep(30)


def embed_all(args: argparse.Namespace, small: Sequence[str]) -> Vectors:
    """Model vectors of ``small`` (LoCoMo turns, all questions), from the vector cache in
    ``--cache`` (a file of its own: this never rewrites real_text's) unless the embedder is the
    hashed fake; the real-text turns come later, stage by stage."""
    started = time.perf_counter()
    live: Embeddings
    if args.fake_embedder:
        live = HashedUnitEmbeddings()
        matrix = np.asarray(live.embed_documents(list(small)), dtype=np.float32)
        source = "hashed fake (no cache)"
    else:
        live = LocalMiniLM()
        cache = VectorCache(args.cache, live, f"{embedder_name(live)}+peers")
        matrix = cache.vectors(small, log=lambda m: log(f"vector cache: {m}"))
        source = f"VectorCache in {args.cache}, real text in {args.real_cache}"
    matrix = matrix.reshape(-1, DIM).astype(np.float32, copy=False)
    table = VectorTable(small, matrix)
    return Vectors(
        live,
        TableEmbeddings(live, table),
        matrix,
        list(small),
        time.perf_counter() - started,
        source,
    )


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

    sizes: list[int] = sorted(set(args.sizes))
    real_docs: list[Doc] = []
    real_q: list[str] = []
    real_timed = 0
    if sizes:
        corpus = load_corpus(args.data)
        if len(corpus.turns) < sizes[-1]:
            raise ValueError(f"--sizes up to {sizes[-1]:,}: the stream has {len(corpus.turns):,}")
        real_docs = [
            Doc(REAL_SCOPE, t.text, f"r{i}") for i, t in enumerate(corpus.turns[: sizes[-1]])
        ]
        real_rng = random.Random(SEED + 1)
        n_real = len(corpus.questions)
        real_timed = min(args.queries, max(n_real - WARMUP, 1))
        real_q = [
            corpus.questions[i]
            for i in real_rng.sample(range(n_real), min(n_real, WARMUP + real_timed))
        ]
        log(f"real-text scope: {sizes[-1]:,} distinct turns, {len(real_q)} real questions")
    real_warm = len(real_q) - real_timed

    query_texts = sorted({q.text for q in questions} | set(real_q))
    small = [*(d.text for d in docs), *query_texts]
    vec = embed_all(args, small)
    emb = vec.emb
    plan = Plan(
        docs,
        questions,
        query_texts,
        [q.sample_id for q in timed_q],
        [q.text for q in timed_q],
        n_warm,
        n_timed,
        sizes,
        real_docs,
        real_q,
        real_warm,
    )
    log(f"vectors of {len(vec.texts):,} texts ready ({vec.seconds:.0f}s, {vec.source})")

    mem0_status = "skipped (--skip-mem0)" if args.skip_mem0 else None
    if mem0_status is None:
        version = mem0_version()
        mem0_status = f"mem0ai {version}" if version else f"not installed (pip install {MEM0_SPEC})"
    use_mem0 = mem0_status.startswith("mem0ai")
    try:
        import langmem  # noqa: F401

        langmem_status = "langmem " + importlib_version("langmem")
    except ImportError:
        langmem_status = "not installed (pip install langmem)"
    use_langmem = langmem_status.startswith("langmem ")

    report: dict[str, Any] = {
        "config": {
            "convs": args.convs,
            "turns_per_conv": args.turns_per_conv,
            "memories": len(docs),
            "scopes": len({d.sample_id for d in docs}),
            "questions": len(questions),
            "timed_queries": n_timed,
            "warmup": n_warm,
            "sizes": sizes,
            "real_questions": len(real_q),
            "real_timed_queries": real_timed,
            "k": K,
            "ingest_budget_s": args.ingest_budget,
            "read_budget_s": args.read_budget,
            "embedder": "hashed-fake" if args.fake_embedder else LocalMiniLM.name,
            "vectors": vec.source,
        },
        "embed_once_seconds": None,  # set at the end: the real text's rows come per stage
        "systems": {"mem0": mem0_status, "langmem_tool": langmem_status},
    }
    recall: dict[str, Any] = {}
    latency: dict[str, dict[str, Any]] = {}
    load: dict[str, dict[str, Any]] = {}
    capped: dict[str, dict[str, Any]] = {}
    settle: Callable[[], None] = lambda: forget_queries(emb)  # noqa: E731
    root = Path(tempfile.mkdtemp(prefix="lgm-peers-"))
    try:
        systems = InProcess(root, emb, mem0=use_mem0, langmem=use_langmem)
        loaded = dict.fromkeys(systems.loaders, 0)
        spent = dict.fromkeys(systems.loaders, 0.0)

        def top_up(stage: str, new: Sequence[Doc], loaders: list[str]) -> None:
            took = systems.add(new, loaders)
            for name, seconds in took.items():
                loaded[name] += len(new)
                spent[name] += seconds
                load.setdefault(name, {})[stage] = {
                    "memories": len(new),
                    "seconds": seconds,
                    "per_s": len(new) / seconds if seconds > 0 else None,
                    "total": loaded[name],
                }
            log(
                f"loaded {stage} ({len(new):,}): "
                + ", ".join(f"{k} {v:.1f}s" for k, v in took.items())
            )

        def time_set(key: str, ids: list[str], texts: list[str], warm: int, n: int) -> None:
            for mode, is_live in (("vector", False), ("embed", True)):
                emb.live = is_live
                paths = systems.paths(ids, texts, active)
                timed = time_within(paths, warm, n, args.read_budget, settle)
                latency[f"{key}/{mode}"] = {name: t.stats() for name, t in timed.items()}
                log(f"timed {key}/{mode}")
            emb.live = False
            if args.out:  # what is done so far, should the run be stopped
                partial = {**report, "partial": f"after {key}", "recall_at_10": recall}
                partial |= {"load": load, "capped": capped}
                partial["latency"] = {k: _with_ratios(v) for k, v in latency.items()}
                args.out.write_text(json.dumps(partial, indent=2) + "\n", encoding="utf-8")

        active = list(systems.loaders)
        top_up("locomo", docs, active)
        try:
            # Recall on every question, vector given.
            paths = systems.paths(
                [q.sample_id for q in questions], [q.text for q in questions], active
            )
            for name, path in paths.items():
                recall[name] = recall_at_k(
                    [path.texts(path.call(i)) for i in range(len(questions))], questions
                )
            log("recall done; timing")
            time_set("locomo", plan.timed_ids, plan.timed_texts, n_warm, n_timed)
            previous = 0
            for size in sizes:
                for name in [n for n in active if n != "ours"]:
                    cap = ingest_cap(loaded[name], spent[name], size - previous, args.ingest_budget)
                    if cap is not None:
                        capped[name] = {"stopped_at": previous, "next_size": size, **cap}
                        active.remove(name)
                        log(
                            f"{name}: {cap['rate_per_s']:.0f} memories/s, {size:,} would take "
                            f"~{cap['projected_s'] / 60:.0f} min more: measured up to {previous:,}"
                        )
                label = f"real-{size_label(size)}"
                vec.add_real(args, [d.text for d in real_docs[previous:size]])
                top_up(label, real_docs[previous:size], active)
                previous = size
                time_set(label, [REAL_SCOPE] * len(real_q), real_q, real_warm, real_timed)
        finally:
            systems.close()

        if args.skip_peer_package:
            report["peer"] = {"status": "skipped (--skip-peer-package)"}
        else:
            python, status = ensure_peer_venv(args.peer_venv, log)
            report["peer"] = {"status": status, "venv": str(args.peer_venv)}
            got: dict[str, Any] | None = None
            if python is not None:
                try:
                    got = run_peer_engine(python, root, plan, vec, args)
                except RuntimeError as exc:  # the runner failed: the others' results stand
                    report["peer"]["status"] = f"failed: {str(exc)[-300:]}"
                    log(report["peer"]["status"])
            if got is not None:
                recall["peer_engine"] = recall_at_k(got["jobs"]["recall"]["keys"], questions)
                for name, job in got["jobs"].items():
                    if name != "recall":
                        latency[name]["peer_engine"] = summarize(job["seconds"])
                load["peer_engine"] = got["load"]
                if got["capped"]:
                    capped["peer_engine"] = got["capped"]
                report["peer"].update(
                    {
                        "versions": got["versions"],
                        "embedder_max_abs_diff": got["embedder_max_abs_diff"],
                    }
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report["embed_once_seconds"] = vec.seconds
    report["recall_at_10"] = recall
    report["latency"] = {key: _with_ratios(stats) for key, stats in latency.items()}
    report["load"] = load
    report["capped"] = capped
    report["environment"] = {
        "chromadb": chromadb.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    report["total_seconds"] = time.perf_counter() - began
    return report


def importlib_version(package: str) -> str:
    """An installed distribution's version ("?" when its metadata is missing)."""
    import importlib.metadata

    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def run_peer_engine(
    python: Path, root: Path, plan: Plan, vec: Vectors, args: argparse.Namespace
) -> dict[str, Any]:
    """Load and time the PyPI peer in its virtualenv, stage by stage like the others."""
    n_docs, n_small = len(plan.docs), len(plan.docs) + len(plan.query_texts)
    questions = plan.questions
    stages: list[dict[str, Any]] = [
        {
            "name": "locomo",
            "upto": n_docs,
            "jobs": [
                peer_job(
                    "recall",
                    False,
                    0,
                    [q.sample_id for q in questions],
                    [q.text for q in questions],
                ),
                *(
                    peer_job(f"locomo/{mode}", live, plan.warm, plan.timed_ids, plan.timed_texts)
                    for mode, live in (("vector", False), ("embed", True))
                ),
            ],
        }
    ]
    for size in plan.sizes:
        label = f"real-{size_label(size)}"
        ids = [REAL_SCOPE] * len(plan.real_q)
        stages.append(
            {
                "name": label,
                "upto": n_docs + size,
                "jobs": [
                    peer_job(f"{label}/{mode}", live, plan.real_warm, ids, plan.real_q)
                    for mode, live in (("vector", False), ("embed", True))
                ],
            }
        )
    log("running the peer engine in its virtualenv")
    request = peer_request(
        root,
        [*plan.docs, *plan.real_docs],
        np.concatenate([vec.matrix[:n_docs], vec.matrix[n_small:]]),
        plan.query_texts,
        vec.matrix[n_docs:n_small],
        stages,
        "hashed" if isinstance(vec.live, HashedUnitEmbeddings) else "minilm",
        args.ingest_budget,
        args.read_budget,
    )
    got = run_peer(python, root, request)
    ours_probe = np.asarray(vec.live.embed_documents(PROBES))
    got["embedder_max_abs_diff"] = float(np.max(np.abs(ours_probe - np.asarray(got["probes"]))))
    return got


@dataclass(frozen=True)
class Plan:
    """What every system is loaded with and asked."""

    docs: list[Doc]
    questions: list[Question]
    query_texts: list[str]
    timed_ids: list[str]
    timed_texts: list[str]
    warm: int
    n_timed: int
    sizes: list[int]
    real_docs: list[Doc]
    real_q: list[str]
    real_warm: int


def _cell(report: dict[str, Any], key: str, system: str) -> tuple[str, str]:
    """A p50 and its ratio for the summary, or why there is none."""
    s = report["latency"].get(key, {}).get(system)
    if s is not None:
        r = s["ratio_over_ours_retrieve"]
        fewer = f" (n={s['n']})" if s["n"] < report["config"]["timed_queries"] else ""
        return f"{s['p50_ms']:.1f} ms{fewer}", f"{r['p50']:.2f}x" if r else ""
    cap = report["capped"].get(LOADER[system])
    if cap is not None and key.startswith("real-"):
        return (
            f"not run: ingest {cap['rate_per_s']:.0f}/s, "
            f"~{cap['projected_s'] / 60:.0f} min more to {size_label(cap['next_size'])}",
            "",
        )
    return "n/a", ""


def render_markdown(report: dict[str, Any]) -> str:
    """The summary (recall@10, p50 per real-text size, ratios to ours), then the details."""
    c = report["config"]
    recall = report["recall_at_10"]
    present = [s for s in SYSTEMS if s in recall or any(s in v for v in report["latency"].values())]
    sizes = [f"real-{size_label(n)}" for n in c["sizes"]]
    lines = [
        "# Read path next to peers",
        "",
        f"{c['memories']:,} LoCoMo turns in {c['scopes']} scopes (one per conversation), "
        f"{c['questions']:,} questions with evidence; one real-text scope grown to "
        + (", ".join(f"{n:,}" for n in c["sizes"]) or "(none)")
        + f" distinct LongMemEval-S turns, asked {c['real_questions']} real questions; "
        f"embedder {c['embedder']}; k={c['k']}. Peer package: {report['peer']['status']}; "
        f"mem0: {report['systems']['mem0']}; LangMem: {report['systems']['langmem_tool']}.",
    ]
    for mode, what in (
        ("vector", "query vector given: retrieve + rank only"),
        ("embed", "the question embedded by the model inside the call"),
    ):
        lines += [
            "",
            f"## Summary, {mode}: {what}",
            "",
            f"p50 over {c['timed_queries']} questions ({c['warmup']} warm-up); ratio = p50 / "
            "ours `retrieve` p50 in the same run.",
            "",
            "| system | LoCoMo R@10 | " + " | ".join(f"p50 {k[5:]} | ratio" for k in sizes) + " |",
            "|---|---:|" + "---:|---:|" * len(sizes),
        ]
        for name in present:
            r = recall.get(name)
            cells = [f"{r['recall']:.3f}" if r else "n/a"]
            for key in sizes:
                cells += list(_cell(report, f"{key}/{mode}", name))
            lines.append(f"| {LABELS[name]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Recall of LoCoMo evidence turns @10 (all questions)",
        "",
        "| system | recall@10 | hit@10 | recall / ours retrieve |",
        "|---|---:|---:|---:|",
    ]
    base = recall.get("ours_retrieve", {}).get("recall") or 0.0
    for name in SYSTEMS:
        if name in recall:
            r = recall[name]
            rel = f"{r['recall'] / base:.2f}x" if base else "n/a"
            lines.append(f"| {LABELS[name]} | {r['recall']:.3f} | {r['hit']:.3f} | {rel} |")
        else:
            lines.append(f"| {LABELS[name]} | not available | | |")
    lines += [
        "",
        f"## Read latency, p50 / p90 ms over {c['timed_queries']} questions "
        f"({c['warmup']} warm-up); ratio = p50 / ours `retrieve` p50",
        "",
    ]
    keys = list(report["latency"])
    lines.append("| system | " + " | ".join(f"{k} | ratio" for k in keys) + " |")
    lines.append("|---|" + "---:|---:|" * len(keys))
    for name in present:
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
    stages = list(dict.fromkeys(st for per in report["load"].values() for st in per))
    lines += [
        "",
        "## Ingest, memories/s (the vectors given: no model time)",
        "",
        "| loaded system | " + " | ".join(stages) + " |",
        "|---|" + "---:|" * len(stages),
    ]
    for name, per in report["load"].items():
        cells = []
        for st in stages:
            row = per.get(st)
            cells.append(f"{row['per_s']:,.0f}" if row and row["per_s"] else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for name, cap in report["capped"].items():
        lines.append(
            f"\n{name} stopped at {cap['stopped_at']:,} real-text memories: at its measured "
            f"{cap['rate_per_s']:.0f} memories/s, {cap['next_size']:,} needs "
            f"~{cap['projected_s'] / 60:.0f} min more (budget {cap['budget_s'] / 60:.0f} min)."
        )
    peer = report["peer"]
    lines += [
        "",
        "vector = query vector given (embedder answers from a table): retrieve + rank only; "
        "embed = the model embeds the question inside the call. locomo = the question's "
        f"conversation scope (~{c['memories'] // max(c['scopes'], 1)} memories); real-N = one "
        "scope of the first N real turns. LangMem's tool searches c's store (same results as "
        "c); mem0's Chroma backend has no keyword search, so its search is semantic only.",
    ]
    if "embedder_max_abs_diff" in peer:
        lines.append(
            f"Peer runner's LocalMiniLM vs this process's: max |diff| "
            f"{peer['embedder_max_abs_diff']:.2e} on {len(PROBES)} probes; peer versions "
            f"{peer['versions']}; the peer is timed in its own process after the others."
        )
    env = report["environment"]
    lines.append(
        f"Total runtime {report['total_seconds']:.0f}s (vectors: "
        f"{report['embed_once_seconds']:.0f}s, {c['vectors']}); chromadb {env['chromadb']}, "
        f"Python {env['python']}, {env['cpus']} CPUs, load average {env['load_average']}."
    )
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    """``"1000,10000"`` -> ``[1000, 10000]``; ``""`` -> ``[]``.

    >>> _sizes("1000, 10000"), _sizes("")
    ([1000, 10000], [])
    """
    return [int(part) for part in text.split(",") if part.strip()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.peers",
        description="LoCoMo recall@10 and read latency at 1k/10k/100k real turns: ours vs "
        f"naive Chroma, InMemoryStore, LangMem's search tool, mem0 and {PEER_SPEC}.",
    )
    p.add_argument(
        "--data",
        type=Path,
        required=True,
        help="benchmark data folder (locomo/locomo10.json, longmemeval/ for the real text)",
    )
    p.add_argument("--convs", type=int, default=None, help="first N LoCoMo conversations")
    p.add_argument("--turns-per-conv", type=int, default=None, help="first N turns of each")
    p.add_argument("--queries", type=int, default=200, help="timed questions per path")
    p.add_argument(
        "--sizes",
        type=_sizes,
        default=list(SIZES),
        help="real-text scope sizes, comma-separated (default 1000,10000,100000; '' for none)",
    )
    p.add_argument(
        "--cache", type=Path, default=default_cache(), help="vector cache folder (real_text)"
    )
    p.add_argument(
        "--real-cache",
        type=Path,
        default=None,
        help="vector cache folder of the real-text turns (default: --cache)",
    )
    p.add_argument(
        "--wait-for-cache",
        type=float,
        default=0.0,
        help="wait up to this many seconds for another process to cache the real-text "
        "vectors, reading only (default 0: embed what the cache lacks, and save it)",
    )
    p.add_argument(
        "--ingest-budget",
        type=float,
        default=600.0,
        help="seconds a system may take to reach the next size at its measured rate (600)",
    )
    p.add_argument(
        "--read-budget",
        type=float,
        default=60.0,
        help="seconds a system may take for one set's questions; a slower one is timed on "
        f"fewer (>= {MIN_TIMED_SLOW}) (60)",
    )
    p.add_argument("--skip-peer-package", action="store_true", help=f"leave out {PEER_SPEC}")
    p.add_argument("--skip-mem0", action="store_true", help="leave out mem0 even if installed")
    p.add_argument("--peer-venv", type=Path, default=DEFAULT_PEER_VENV, help="its virtualenv")
    p.add_argument(
        "--fake-embedder", action="store_true", help="hashed vectors instead of MiniLM (tests)"
    )
    p.add_argument(
        "--quick", action="store_true", help="2 conversations, 50 queries, the 1k scope only"
    )
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    args.real_cache = args.real_cache or args.cache
    if args.quick:
        args.convs = args.convs or 2
        args.queries = min(args.queries, 50)
        args.sizes = [n for n in args.sizes if n <= 1000] or [1000]
    if args.queries < 1 or any(n < K for n in args.sizes):
        p.error(f"--queries must be >= 1 and every size >= {K}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run, print the tables, write the JSON; return the exit status."""
    args = parse_args(argv)
    needed = [DATASETS["locomo"], *([DATASETS["longmemeval-s"]] if args.sizes else [])]
    for dataset in needed:
        problem = missing_data(args.data, dataset)
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
