"""Store latency: MemoryStore against raw Chroma baselines measured in the same run.

Full run (about 12 minutes on 2 cores, most of it building 200k memories)::

    python -m benchmarks.store_latency --out results.json

Fast sanity run (sizes 1k and 10k, 10 scopes x 500)::

    python -m benchmarks.store_latency --quick

Options: ``--sizes 1000,10000,100000 --scopes 100 --per-scope 1000 --queries 200
--real-size 10000 --out FILE --keep --quick``.

It reports medians and p90 over ``--queries`` queries, every path warmed up first, and
ratios against baselines timed in the same process on the same vectors (absolute times
depend on the machine; the ratios are the result):

1. ``MemoryStore.nearest`` (k=10, a query vector given, so no embedding time) on one scope
   holding N memories, against an unfiltered ``collection.query`` on a raw Chroma collection
   of the same N vectors. Target: scoped / unfiltered <= 2x.
2. One scope among S scopes x P memories, against the naive design: one raw collection
   holding all S*P memories with the scope as a metadata field, queried with
   ``where={"scope": ...}``. Target: naive filtered / ours >= 10x. The unfiltered query on
   that collection is shown as well.
   Beside ``nearest``, both parts time the whole read path, ``read.retrieve(store, scope,
   question, k=10)`` as the read node calls it: the question is embedded by the real
   LocalMiniLM (its vector is then swapped for a hashed one, so that it matches the hashed
   memories: the time is the model's, the ranking the store's), vector and keyword candidates
   are fetched, blended, ranked, and ``last_accessed`` is refreshed. With ``--skip-real`` the
   model is left out and the read path times retrieve + rank alone.
3. Insert throughput of ``add_many`` (1000 per batch; a cheap hashed embedder keeps model
   time out) against raw ``collection.add`` of the same batches.
4. For context: ``LocalMiniLM().embed_query`` on short questions, and ``nearest`` with a
   question text (embedding included) on a scope of 10k memories embedded by the real model.

Progress goes to stderr, the Markdown tables to stdout, everything raw to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings
from langchain_core.embeddings import Embeddings

from benchmarks.embedders import DIM, HashedUnitEmbeddings
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.read import Retrieved, retrieve
from langgraph_memory.store import MemoryStore, internals

K = 10
BATCH = 1000
WARMUP = 20
#: Timed queries are split into this many blocks and the paths take turns block by block.
ROUNDS = 4
SEED = 20240607
SINGLE_SCOPE = "agent:bench-single"
REAL_SCOPE = "agent:bench-real"
#: Same index settings as the store's own collections, so that a baseline
#: differs from ours only in what is being measured.
COSINE: dict[str, Any] = {"hnsw": {"space": "cosine"}}
FULL = {"sizes": "1000,10000,100000", "scopes": 100, "per_scope": 1000, "real_size": 10000}
QUICK = {"sizes": "1000,10000", "scopes": 10, "per_scope": 500, "real_size": 1000}

Stats = dict[str, float]
#: One query vector as ``collection.query(query_embeddings=...)`` takes it: a list of one.
OneQuery = list[Sequence[float] | Sequence[int]]


class ModelCostQueries(HashedUnitEmbeddings):
    """Hashed vectors, but every query also pays the real model's embedding time.

    The memories are hashed unit vectors (100k real embeddings would take the whole run), so
    a question's real vector would match none of them; this embedder runs ``model`` on the
    question (and drops its vector) before returning the hashed one. The read path's time is
    then the model's plus the store's, and its ranking is over the same vectors as ``nearest``.

    >>> e = ModelCostQueries(None)
    >>> e.embed_query("q") == HashedUnitEmbeddings().embed_query("q")
    True
    """

    def __init__(self, model: Embeddings | None, dim: int = DIM) -> None:
        super().__init__(dim)
        self.model = model

    def embed_query(self, text: str) -> list[float]:
        """The hashed vector of ``text``, after the model embedded it (when there is one)."""
        if self.model is not None:
            self.model.embed_query(text)
        return super().embed_query(text)


@dataclass(frozen=True)
class QueryPath:
    """One way of answering query ``i``: the call to time, and how to read its top texts."""

    call: Callable[[int], Any]
    texts: Callable[[Any], list[str]]


@dataclass
class Timed:
    """Per-query seconds and returned texts of one path."""

    seconds: list[float]
    texts: list[list[str]]

    def stats(self) -> Stats:
        """Median and p90 in ms."""
        return summarize(self.seconds)


def summarize(seconds: Sequence[float]) -> Stats:
    """Median, p90 and count of timings given in seconds, reported in milliseconds.

    >>> s = summarize([0.001, 0.002, 0.003])
    >>> round(s["p50_ms"], 6), s["n"]
    (2.0, 3)
    """
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {"p50_ms": float(np.median(ms)), "p90_ms": float(np.percentile(ms, 90)), "n": len(ms)}


def ratio(a: Stats, b: Stats) -> dict[str, float]:
    """``a / b`` for the median and for p90.

    >>> ratio({"p50_ms": 4.0, "p90_ms": 9.0}, {"p50_ms": 2.0, "p90_ms": 3.0})
    {'p50': 2.0, 'p90': 3.0}
    """
    return {"p50": a["p50_ms"] / b["p50_ms"], "p90": a["p90_ms"] / b["p90_ms"]}


def agreement(a: Timed, b: Timed) -> float:
    """Mean share of top-k texts two paths have in common (a sanity check, not a speed).

    >>> agreement(Timed([0.0], [["x", "y"]]), Timed([0.0], [["y", "z"]]))
    0.5
    """
    shares = [
        len(set(x) & set(y)) / max(len(x), len(y), 1) for x, y in zip(a.texts, b.texts, strict=True)
    ]
    return float(np.mean(shares)) if shares else 0.0


def time_paths(
    paths: Mapping[str, QueryPath],
    n_warmup: int,
    n_timed: int,
    *,
    settle: Callable[[], object] = lambda: None,
) -> dict[str, Timed]:
    """Time every path on the same queries: indices ``[0, n_warmup)`` warm up, the rest count.

    The timed queries are split into ``ROUNDS`` blocks and the paths take turns block by
    block (order reversed every other block), so slow drift (page cache, CPU clock,
    background work) lands on all paths alike instead of on whichever ran last.
    ``settle`` runs, untimed, before each path's block: e.g. draining a background
    writer, so that a path is not charged for the writes another path left behind.
    """
    for path in paths.values():
        for i in range(n_warmup):
            path.call(i)
    raw: dict[str, list[Any]] = {name: [None] * n_timed for name in paths}
    seconds: dict[str, list[float]] = {name: [0.0] * n_timed for name in paths}
    blocks = np.array_split(np.arange(n_timed), min(ROUNDS, max(n_timed, 1)))
    for b, block in enumerate(blocks):
        order = list(paths) if b % 2 == 0 else list(reversed(list(paths)))
        for name in order:
            settle()
            call = paths[name].call
            for j in block.tolist():
                start = time.perf_counter()
                got = call(n_warmup + j)
                seconds[name][j] = time.perf_counter() - start
                raw[name][j] = got
    # Reading the texts out happens after timing, so it is not part of any path's time.
    return {name: Timed(seconds[name], [paths[name].texts(r) for r in raw[name]]) for name in paths}


def hit_texts(hits: Any) -> list[str]:
    """Texts of ``MemoryStore.nearest`` hits."""
    return [h.memory.text for h in hits]


def read_path(store: MemoryStore, scope: str, asked: Sequence[str]) -> QueryPath:
    """The read node's call: ``retrieve`` of question ``i`` (embed, candidates, rank, touch)."""

    def call(i: int) -> list[Retrieved]:
        return retrieve(store, scope, asked[i], k=K)

    return QueryPath(call, lambda found: [r.memory.text for r in found])


def chroma_texts(result: Any) -> list[str]:
    """Texts of a raw ``collection.query`` result for one query vector."""
    return list((result["documents"] or [[]])[0])


def unit_vectors(rng: np.random.Generator, n: int) -> list[list[float]]:
    """``n`` random unit vectors of dimension ``DIM``."""
    m = rng.standard_normal((n, DIM)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    vectors: list[list[float]] = m.tolist()
    return vectors


def as_chroma_queries(vectors: Sequence[list[float]]) -> list[OneQuery]:
    """Each vector wrapped as ``[v]``, built once so no path pays for it while timed."""
    return [[v] for v in vectors]


def memory_text(i: int, scope: str) -> str:
    """The text of memory ``i`` of ``scope`` (also what its fake vector is seeded from)."""
    return f"memory {i} of {scope}"


def throughput(batches: Sequence[tuple[int, float]]) -> dict[str, float]:
    """Memories per second over all batches, and for the median batch.

    >>> throughput([(1000, 0.5), (1000, 1.0), (1000, 2.0)])
    {'overall_per_s': 857.1428571428571, 'median_batch_per_s': 1000.0, 'batches': 3}
    """
    items = sum(n for n, _ in batches)
    total = sum(s for _, s in batches)
    per_batch = [n / s for n, s in batches if s > 0]
    return {
        "overall_per_s": items / total if total > 0 else 0.0,
        "median_batch_per_s": float(np.median(per_batch)) if per_batch else 0.0,
        "batches": len(batches),
    }


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[store_latency] {message}", file=sys.stderr, flush=True)


def raw_collection(client: ClientAPI, name: str) -> Collection:
    """A raw collection set up like the store's active collections (cosine HNSW, no EF)."""
    return client.create_collection(
        name,
        embedding_function=None,
        configuration=COSINE,  # type: ignore[arg-type]
    )


def add_to_both(
    store: MemoryStore,
    raw: Collection,
    fake: HashedUnitEmbeddings,
    scope: str,
    texts: list[str],
    ids: list[str],
    ours_batches: list[tuple[int, float]],
    ours_embed: list[float],
    raw_batches: list[tuple[int, float]],
) -> None:
    """Add one batch to the store and to a raw collection, timing each."""
    n = len(texts)
    embed_before = fake.seconds
    start = time.perf_counter()
    store.add_many(scope, texts)
    ours_batches.append((n, time.perf_counter() - start))
    ours_embed.append(fake.seconds - embed_before)
    # The same vectors the store just got, computed outside the timed region.
    vectors = fake.embed_documents(texts)
    metadatas: list[Mapping[str, str | int | float | bool]] = [{"scope": scope}] * n
    start = time.perf_counter()
    raw.add(ids=ids, embeddings=vectors, documents=texts, metadatas=metadatas)  # type: ignore[arg-type]
    raw_batches.append((n, time.perf_counter() - start))


# -- 1 and 3: one scope grown to each size, next to a raw collection grown alike ----------------


def bench_single_scope(
    store: MemoryStore,
    client: ClientAPI,
    fake: HashedUnitEmbeddings,
    sizes: Sequence[int],
    queries: list[list[float]],
    asked: Sequence[str],
    n_timed: int,
) -> dict[str, Any]:
    """Grow one scope and a raw collection in lockstep; time queries at each size."""
    raw = raw_collection(client, "bench-raw-single")
    wrapped = as_chroma_queries(queries)
    ours_batches: list[tuple[int, float]] = []
    ours_embed: list[float] = []
    raw_batches: list[tuple[int, float]] = []
    by_size: list[dict[str, Any]] = []
    filled = 0
    for target in sorted(set(sizes)):
        started = time.perf_counter()
        while filled < target:
            n = min(BATCH, target - filled)
            texts = [memory_text(i, SINGLE_SCOPE) for i in range(filled, filled + n)]
            ids = [f"m{i}" for i in range(filled, filled + n)]
            add_to_both(
                store, raw, fake, SINGLE_SCOPE, texts, ids, ours_batches, ours_embed, raw_batches
            )
            filled += n
        log(f"single scope filled to {filled} ({time.perf_counter() - started:.0f}s); querying")
        timed = time_paths(
            {
                "ours": QueryPath(
                    lambda i: internals(store).nearest(SINGLE_SCOPE, queries[i], k=K), hit_texts
                ),
                "raw": QueryPath(
                    lambda i: raw.query(query_embeddings=wrapped[i], n_results=K), chroma_texts
                ),
                "read": read_path(store, SINGLE_SCOPE, asked),
            },
            WARMUP,
            n_timed,
        )
        ours, base, read = timed["ours"].stats(), timed["raw"].stats(), timed["read"].stats()
        by_size.append(
            {
                "size": target,
                "ours": ours,
                "raw_unfiltered": base,
                "read": read,
                "ratio_ours_over_raw": ratio(ours, base),
                "ratio_read_over_raw": ratio(read, base),
                "top10_agreement": agreement(timed["ours"], timed["raw"]),
            }
        )
    store_only = [(n, s - e) for (n, s), e in zip(ours_batches, ours_embed, strict=True)]
    return {
        "queries": by_size,
        "insert": {
            "ours_add_many": throughput(ours_batches),
            "ours_add_many_minus_embedder": throughput(store_only),
            "fake_embedder_share": sum(ours_embed) / sum(s for _, s in ours_batches),
            "raw_add": throughput(raw_batches),
        },
    }


# -- 2: one scope among many, against one big collection filtered by a metadata field ---------


def bench_many_scopes(
    store: MemoryStore,
    client: ClientAPI,
    fake: HashedUnitEmbeddings,
    n_scopes: int,
    per_scope: int,
    queries: list[list[float]],
    asked: Sequence[str],
    n_timed: int,
) -> dict[str, Any]:
    """Fill ``n_scopes`` scopes in the store and the naive collection; time one scope."""
    naive = raw_collection(client, "bench-naive-all")
    wrapped = as_chroma_queries(queries)
    scopes = [f"user:u{i}" for i in range(n_scopes)]
    ours_batches: list[tuple[int, float]] = []
    ours_embed: list[float] = []
    naive_batches: list[tuple[int, float]] = []
    started = time.perf_counter()
    for s, scope in enumerate(scopes):
        for first in range(0, per_scope, BATCH):
            n = min(BATCH, per_scope - first)
            texts = [memory_text(i, scope) for i in range(first, first + n)]
            ids = [f"{scope}/{i}" for i in range(first, first + n)]
            add_to_both(
                store, naive, fake, scope, texts, ids, ours_batches, ours_embed, naive_batches
            )
        if (s + 1) % max(1, n_scopes // 10) == 0:
            log(f"scopes filled: {s + 1}/{n_scopes} ({time.perf_counter() - started:.0f}s)")
    # u42 as in the design note; the middle scope when there are fewer.
    target = "user:u42" if n_scopes > 42 else scopes[n_scopes // 2]
    where = {"scope": target}
    timed = time_paths(
        {
            "ours": QueryPath(
                lambda i: internals(store).nearest(target, queries[i], k=K), hit_texts
            ),
            "naive_filtered": QueryPath(
                lambda i: naive.query(
                    query_embeddings=wrapped[i],
                    n_results=K,
                    where=where,  # type: ignore[arg-type]
                ),
                chroma_texts,
            ),
            "naive_unfiltered": QueryPath(
                lambda i: naive.query(query_embeddings=wrapped[i], n_results=K), chroma_texts
            ),
            "read": read_path(store, target, asked),
        },
        WARMUP,
        n_timed,
    )
    ours, read = timed["ours"].stats(), timed["read"].stats()
    filtered = timed["naive_filtered"].stats()
    unfiltered = timed["naive_unfiltered"].stats()
    store_only = [(n, s - e) for (n, s), e in zip(ours_batches, ours_embed, strict=True)]
    return {
        "scope": target,
        "scopes": n_scopes,
        "per_scope": per_scope,
        "total": n_scopes * per_scope,
        "ours": ours,
        "naive_filtered": filtered,
        "naive_unfiltered": unfiltered,
        "read": read,
        "ratio_naive_filtered_over_ours": ratio(filtered, ours),
        "ratio_naive_filtered_over_read": ratio(filtered, read),
        "ratio_ours_over_naive_unfiltered": ratio(ours, unfiltered),
        "top10_agreement_ours_vs_naive_filtered": agreement(timed["ours"], timed["naive_filtered"]),
        "naive_filtered_results_in_scope": float(
            np.mean(
                [
                    all(t.endswith(f" of {target}") for t in texts)
                    for texts in timed["naive_filtered"].texts
                ]
            )
        ),
        "insert": {
            "ours_add_many": throughput(ours_batches),
            "ours_add_many_minus_embedder": throughput(store_only),
            "fake_embedder_share": sum(ours_embed) / sum(s for _, s in ours_batches),
            "naive_add": throughput(naive_batches),
        },
    }


# -- 4: the real embedder, for context ----------------------------------------------------------

_SUBJECTS = [
    "my sister", "the project", "my diet", "the trip to Pune", "my manager", "the car",
    "my allergies", "the apartment", "my gym routine", "the book club",
]  # fmt: skip
_ASKS = [
    "What did I say about {}?", "When did we last talk about {}?", "Do you remember {}?",
    "What changed with {}?", "Any news on {}?", "Remind me what I decided about {}.",
    "How do I feel about {}?", "What is the plan for {}?", "Who is involved in {}?",
    "Summarise what you know about {}.", "Why did I mention {}?", "Where does {} stand?",
    "What was the problem with {}?", "Did I ever complain about {}?", "Tell me about {}.",
    "What should I remember about {}?", "Is there anything new about {} this week?",
    "What did I ask you to do about {}?", "Was {} important to me?", "Any reminders for {}?",
    "What was the budget for {}?", "How long ago did I mention {}?",
]  # fmt: skip


def questions(n: int) -> list[str]:
    """``n`` short, varied user questions (distinct up to len(_ASKS) * len(_SUBJECTS)).

    >>> questions(2)
    ['What did I say about my sister?', 'When did we last talk about the project?']
    """
    out = []
    for i in range(n):
        ask = _ASKS[i % len(_ASKS)]
        subject = _SUBJECTS[(i + i // len(_ASKS)) % len(_SUBJECTS)]
        out.append(ask.format(subject))
    return out


def bench_real_embedder(directory: Path, size: int, n_timed: int) -> dict[str, Any]:
    """embed_query latency, and nearest with text vs vector on a real-embedder scope."""
    emb = LocalMiniLM(recent_queries=0)  # the same questions recur: each pays the model
    asked = questions(WARMUP + n_timed)
    with MemoryStore(directory, embeddings=emb) as store:
        fill: list[tuple[int, float]] = []
        started = time.perf_counter()
        for first in range(0, size, BATCH):
            n = min(BATCH, size - first)
            texts = [memory_text(i, REAL_SCOPE) for i in range(first, first + n)]
            start = time.perf_counter()
            store.add_many(REAL_SCOPE, texts)
            fill.append((n, time.perf_counter() - start))
        log(f"real-embedder scope filled to {size} ({time.perf_counter() - started:.0f}s)")
        # The query vectors the text path computes inside nearest, made up front for the
        # vector path; the shared path of both is the store's own query.
        vectors = emb.embed_documents(asked)
        timed = time_paths(
            {
                "embed_query": QueryPath(lambda i: emb.embed_query(asked[i]), lambda _: []),
                "nearest_text": QueryPath(
                    lambda i: internals(store).nearest(REAL_SCOPE, asked[i], k=K), hit_texts
                ),
                "nearest_vector": QueryPath(
                    lambda i: internals(store).nearest(REAL_SCOPE, vectors[i], k=K), hit_texts
                ),
            },
            WARMUP,
            n_timed,
        )
    embed = timed["embed_query"].stats()
    text = timed["nearest_text"].stats()
    vector = timed["nearest_vector"].stats()
    return {
        "size": size,
        "embed_query": embed,
        "nearest_text": text,
        "nearest_vector": vector,
        "ratio_text_over_vector": ratio(text, vector),
        "embed_share_of_text_p50": embed["p50_ms"] / text["p50_ms"],
        "top10_agreement_text_vs_vector": agreement(timed["nearest_text"], timed["nearest_vector"]),
        "fill_add_many_real_embedder": throughput(fill),
    }


# -- report -------------------------------------------------------------------------------------


def _ms(s: Stats) -> str:
    return f"{s['p50_ms']:.2f} / {s['p90_ms']:.2f}"


def _x(r: float) -> str:
    return f"{r:.2f}x"


def _ok(passed: bool) -> str:
    return "yes" if passed else "**NO**"


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown tables (times are p50 / p90 in ms)."""
    lines = [
        "# langgraph_memory store latency",
        "",
        f"k={K}, {report['config']['queries']} timed queries per path after {WARMUP} warm-up, "
        f"dim {DIM}; times are **p50 / p90 ms**; ratios are p50 (p90 in JSON).",
        "",
    ]
    single = report.get("single")
    if single:
        lines += [
            "## 1. One scope vs an unfiltered raw collection of the same size (vector given)",
            "",
            "| memories in scope | ours `nearest` | raw unfiltered `query` | ours / raw p50 "
            "| ours / raw p90 | top-10 agreement | target <= 2x "
            "| read path: `retrieve` (embed + rank + touch) | read / raw p50 |",
            "|---:|---:|---:|---:|---:|---:|:---:|---:|---:|",
        ]
        for row in single["queries"]:
            r = row["ratio_ours_over_raw"]
            lines.append(
                f"| {row['size']:,} | {_ms(row['ours'])} | {_ms(row['raw_unfiltered'])} "
                f"| {_x(r['p50'])} | {_x(r['p90'])} | {row['top10_agreement']:.2f} "
                f"| {_ok(r['p50'] <= 2.0)} | {_ms(row['read'])} "
                f"| {_x(row['ratio_read_over_raw']['p50'])} |"
            )
        lines += [
            "",
            f"The read path embeds the question with {report['config']['query_model']}.",
            "",
        ]
    many = report.get("many")
    if many:
        r = many["ratio_naive_filtered_over_ours"]["p50"]
        ours_p50 = many["ours"]["p50_ms"]
        lines += [
            f"## 2. Scope `{many['scope']}` among {many['scopes']} scopes x "
            f"{many['per_scope']:,} ({many['total']:,} memories)",
            "",
            "| path | p50 / p90 ms | p50 relative to ours |",
            "|---|---:|---:|",
            f"| ours: `nearest` on the scope's own collection | {_ms(many['ours'])} | 1.00x |",
            f'| naive: one collection, `where={{"scope": ...}}` | {_ms(many["naive_filtered"])} '
            f"| {_x(many['naive_filtered']['p50_ms'] / ours_p50)} |",
            f"| naive: one collection, unfiltered | {_ms(many['naive_unfiltered'])} "
            f"| {_x(many['naive_unfiltered']['p50_ms'] / ours_p50)} |",
            f"| ours: read path, `retrieve` (embed + rank + touch) | {_ms(many['read'])} "
            f"| {_x(many['read']['p50_ms'] / ours_p50)} |",
            "",
            f"naive filtered / ours = **{_x(r)}** (target >= 10x: {_ok(r >= 10.0)}); "
            f"top-10 agreement ours vs naive filtered: "
            f"{many['top10_agreement_ours_vs_naive_filtered']:.2f}; naive filtered results all "
            f"in scope: {many['naive_filtered_results_in_scope']:.0%} of queries.",
            "",
        ]
    if single or many:
        lines += [
            f"## 3. Insert throughput ({BATCH} memories per call, hashed fake embedder)",
            "",
            "| build | ours `add_many` /s | ours minus embedder /s | embedder share "
            "| raw `add` /s | ours / raw (overall) | ours minus embedder / raw |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        builds = []
        if single:
            top = max(row["size"] for row in single["queries"])
            label = f"one scope to {top:,} vs one raw collection"
            builds.append((label, single["insert"], "raw_add"))
        if many:
            builds.append(
                (
                    f"{many['scopes']} scopes x {many['per_scope']:,} vs naive one collection",
                    many["insert"],
                    "naive_add",
                )
            )
        for label, ins, base_key in builds:
            ours = ins["ours_add_many"]["overall_per_s"]
            net = ins["ours_add_many_minus_embedder"]["overall_per_s"]
            base = ins[base_key]["overall_per_s"]
            lines.append(
                f"| {label} | {ours:,.0f} | {net:,.0f} | {ins['fake_embedder_share']:.1%} "
                f"| {base:,.0f} | {_x(ours / base)} | {_x(net / base)} |"
            )
        lines += [
            "",
            "(overall = all memories / all time; median-batch figures are in the JSON.)",
            "",
        ]
    real = report.get("real")
    if real:
        lines += [
            f"## 4. Query embedding (LocalMiniLM) and end-to-end `nearest`, "
            f"scope of {real['size']:,}",
            "",
            "| path | p50 / p90 ms |",
            "|---|---:|",
            f"| `LocalMiniLM().embed_query(question)` | {_ms(real['embed_query'])} |",
            f"| `nearest(scope, question, k=10)` (embeds) | {_ms(real['nearest_text'])} |",
            f"| `nearest(scope, vector, k=10)` same store | {_ms(real['nearest_vector'])} |",
            "",
            f"text / vector = {_x(real['ratio_text_over_vector']['p50'])}; embedding is "
            f"{real['embed_share_of_text_p50']:.0%} of the end-to-end p50. Filling the scope "
            f"with the real embedder: "
            f"{real['fill_add_many_real_embedder']['overall_per_s']:,.0f} memories/s.",
            "",
        ]
    env = report["environment"]
    lines += [
        f"Total runtime {report['total_seconds']:.0f}s; chromadb {env['chromadb']}, numpy "
        f"{env['numpy']}, Python {env['python']}, {env['cpus']} CPUs, {env['platform']}.",
    ]
    return "\n".join(lines)


# -- main ---------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options; unset ones take the full (or ``--quick``) defaults."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.store_latency",
        description="MemoryStore query/insert latency against raw Chroma baselines.",
    )
    p.add_argument("--sizes", help=f"memories in the single scope (default {FULL['sizes']})")
    p.add_argument("--scopes", type=int, help="scopes for the many-scope test (default 100)")
    p.add_argument("--per-scope", type=int, help="memories per scope there (default 1000)")
    p.add_argument("--queries", type=int, default=200, help="timed queries per path")
    p.add_argument(
        "--real-size", type=int, help="memories in the real-embedder scope (default 10000)"
    )
    p.add_argument("--skip-real", action="store_true", help="leave out part 4 (no model)")
    p.add_argument("--out", help="write all raw numbers as JSON here")
    p.add_argument("--keep", action="store_true", help="keep the store directories")
    p.add_argument("--quick", action="store_true", help="small sizes for a fast sanity run")
    args = p.parse_args(argv)
    defaults = QUICK if args.quick else FULL
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.size_list = sorted({int(s) for s in str(args.sizes).split(",") if s.strip()})
    if not args.size_list or min(args.size_list) < K:
        p.error(f"--sizes must be integers >= {K}")
    if args.per_scope < K or args.scopes < 1 or args.queries < 1 or args.real_size < K:
        p.error(f"--per-scope and --real-size must be >= {K}; --scopes, --queries >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the tables, write the JSON; return the exit status."""
    args = parse_args(argv)
    began = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="lgm-bench-"))
    log(f"working in {root}")
    # Fixed seed: every run asks the same query vectors; warm-up ones come first.
    queries = unit_vectors(np.random.default_rng(SEED), WARMUP + args.queries)
    asked = questions(WARMUP + args.queries)
    report: dict[str, Any] = {
        "config": {
            "sizes": args.size_list,
            "scopes": args.scopes,
            "per_scope": args.per_scope,
            "queries": args.queries,
            "warmup": WARMUP,
            "k": K,
            "batch": BATCH,
            "dim": DIM,
            "seed": SEED,
            "real_size": None if args.skip_real else args.real_size,
            "query_model": "no model (--skip-real)" if args.skip_real else LocalMiniLM.name,
            "quick": args.quick,
        },
        "environment": {
            "chromadb": chromadb.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
    }
    try:
        # The same questions are asked of every size and path: each pays the model.
        fake = ModelCostQueries(None if args.skip_real else LocalMiniLM(recent_queries=0))
        # Baselines live in their own directory and client: the store locks its directory.
        client = chromadb.PersistentClient(
            path=str(root / "raw"), settings=Settings(anonymized_telemetry=False)
        )
        try:
            with MemoryStore(root / "ours", embeddings=fake) as store:
                report["single"] = bench_single_scope(
                    store, client, fake, args.size_list, queries, asked, args.queries
                )
                report["many"] = bench_many_scopes(
                    store, client, fake, args.scopes, args.per_scope, queries, asked, args.queries
                )
        finally:
            # close() exists on chromadb 1.5's clients but not on the ClientAPI protocol.
            client.close()  # type: ignore[attr-defined]
        if not args.skip_real:
            # A store records its embedder and refuses another, hence its own directory.
            report["real"] = bench_real_embedder(root / "real", args.real_size, args.queries)
    finally:
        if args.keep:
            log(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    report["total_seconds"] = time.perf_counter() - began
    print(render_markdown(report))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
