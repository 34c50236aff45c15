"""The product read at scale, on real text: scopes of 1k, 10k and 100k real chat turns.

Full run (sizes 1k, 10k and 100k, 100 scopes x 50 beside them, 200 questions: 4 to 6
minutes on 2 cores once the vector cache holds the stream's vectors, 2 to 3 of them growing
the scope from 10k to 100k; filling the cache takes 20 to 45 minutes on 2 cores, once, and
the run does it itself, or ahead with ``python -m benchmarks.real_text``)::

    python -m benchmarks scale --out scale.json

Quick run (sizes 1k and 10k, 100 scopes x 5 beside them, 50 questions: about 35 s with the
vectors cached; from an empty cache it first embeds 10,500 texts: 3.7 minutes in all on 2
idle-ish cores, 6.5 when other work shared them)::

    python -m benchmarks scale --quick

Options: ``--sizes 1000,10000,100000 --scopes 100 --per-scope 50 --questions 200
--warmup 20 --data ../shared/data --cache DIR --out FILE --keep --fake-embedder``.

What is stored. The memories are LongMemEval-S's distinct chat turns, in the fixed order of
``benchmarks.real_text`` (no ``"memory {i}"`` strings, no text twice). The scope measured,
``user:big``, holds the first N turns of that stream; 100 other scopes
(``user:other-<i>``, ``--per-scope`` turns each, taken from after the largest N) sit in the
same store, one Chroma directory. Each turn is stored as the write path stores what was
said: an episode with the fields of ``write/episodes.py`` (its thread is the session, so
the lexical index sees threads; its role sets source and trust), created at its session's
date, with its event time a few seconds per turn later. The vectors come from the vector
cache (the shipped LocalMiniLM's, computed once: ``add_many(..., vectors=...)``), so that
100k turns take minutes, not an hour. One store grows: 1k turns are measured, then it grows
to 10k and is measured again, then to 100k.

What is asked. LongMemEval-S's own questions (``--questions``, after ``--warmup`` more),
embedded live by the store's LocalMiniLM on every read. The read is the product's, as it
ships: ``read.retrieve(store, "user:big", question, now=...)`` with its defaults (k=5,
``touch=True``: results not read within a day get their ``last_accessed`` written by the
store's thread, off the read), and the read node in a LangGraph graph (``memory_read_node``
before a zero-latency scripted chat model, ``graph_overhead.read_only_graph``) against the
same graph without memory. Every path takes turns block by block
(``store_latency.time_paths``); before each block the queued access times are written, the
embedder's recent-query vectors are forgotten (no path is timed on a vector another paid
for), and the clock (``now``, the graph's ``memory_now``) moves one day forward, so each
block touches what it reads as a user asking once a day would.

The components, each timed alone on the same questions, as the read does them:

- ``embed``: the store's embedder on the question (``internals(store).embed_query``);
- ``nearest``: the Chroma query of the scope's active collection for the read's candidate
  count (50 for k=5), ids and distances only (the call of ``collection_io.nearest_ids``);
- ``lexical``: the scope's BM25 lookup for the same 50, with the pinned ids (the lexical
  index's ``search`` and ``pinned``, as ``store/engine/candidates.py`` calls them);
- ``lexical vectors``: the read of those candidates' stored vectors (scored against the
  query without a second index query; from the lexical index's copy on an embedded store);
- ``records``: ``get_memories`` of the contenders, the ids the read itself asked for (found
  by an untimed read with ``touch=False`` beforehand);
- ``retrieve``: the whole read; ``read node``: the graph with the read node minus the graph
  without memory (p50s of the same run).

Two diagnostics, in no target, say where the rest goes. ``embed, then nearest``: the two
floor calls back to back, as every read makes them (each alone, in a loop of its own, runs
from warm caches; after the model's pass over its weights Chroma's query does not). ``graph
with an embed-only node``: a graph whose first node only embeds the question; minus the
graph without memory, it is what embedding alone costs inside a graph (LangGraph's own
steps then run from cold caches too), and the read node minus it is what the rest of the
read adds there.

Reported per size: p50 and p95 of each (ms), the process's RSS and the store's disk use (as
``du`` counts it), each also per memory stored and per memory added since the last size
(which leaves out the fixed costs: the model, Chroma, 300 small collections); and the
targets, each a ratio of p50s of the same run with the absolute p50s beside it:

1. ``retrieve / (embed + nearest)`` at 10k and at 100k: <= 1.5x;
2. growth of ``retrieve`` from 10k to 100k: <= 1.3x;
3. read node overhead in a graph at 10k, ``(graph with read node - graph without memory) /
   (embed + nearest)``: <= 1.5x.

A target whose size was not run (100k in ``--quick``) is reported as not measured. The
Markdown goes to stdout, progress to stderr, everything to ``--out``; ``python -m
benchmarks plots scale.json`` draws the growth curves (p50 of each component against the
scope size). RSS includes what the process holds besides the store (the corpus, the vector
cache, the model): the growth is counted from just before the store was opened.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from unittest import mock

import chromadb
import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings, forget_queries
from benchmarks.graph_overhead import agent_builder, agent_node, read_only_graph
from benchmarks.ingest import TURN_GAP
from benchmarks.real_text import RealCorpus, RealTurn, VectorCache, default_cache, load_corpus
from benchmarks.reports import machine, publish
from benchmarks.store_latency import QueryPath, Stats, summarize, time_paths
from langgraph_memory import Kind, Scope, Source, Trust
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.graph import MemoryState
from langgraph_memory.read import retrieve
from langgraph_memory.store import Internals, MemoryStore, internals, tokenize
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import asks_only, said_key

__all__ = [
    "BIG",
    "COMPONENTS",
    "FULL",
    "QUICK",
    "Plan",
    "evaluate_targets",
    "main",
    "render_markdown",
    "run",
    "size_row",
]

#: The scope measured, and the graph's ``user_id`` that names it.
USER = "big"
BIG = f"user:{USER}"
#: retrieve's default k, and the candidates it takes from each index for it.
K = 5
CANDIDATES = 50  # read/retrieve.py: max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * k); a test checks
#: Memories per ``add_many`` while the store grows.
BATCH = 1000
#: The targets: ratios of p50s (see the module docstring).
READ_TARGET = 1.5
GROWTH_TARGET = 1.3
NODE_TARGET = 1.5
MID, TOP = 10_000, 100_000
#: The timed paths, in report order, with their labels.
COMPONENTS: dict[str, str] = {
    "embed": "embed (the question)",
    "nearest": "nearest (Chroma, 50 ids)",
    "lexical": "lexical (BM25, 50 ids)",
    "lexical_vectors": "lexical candidates' vectors",
    "records": "records (contenders)",
    "retrieve": "`retrieve` (k=5, touch)",
    "graph_plain": "graph without memory",
    "graph_read": "graph with read node",
    # Diagnostics, in no target: the floor as a read meets it (the query embedded, then
    # Chroma asked, one after the other), and what embedding alone costs in a graph.
    "embed_nearest": "embed, then nearest (back to back)",
    "graph_embed": "graph with an embed-only node",
}


@dataclass(frozen=True)
class Plan:
    """What one run builds and asks: the sizes of the big scope, the other scopes, the
    questions (timed, and warm-up before them)."""

    sizes: tuple[int, ...]
    scopes: int
    per_scope: int
    questions: int
    warmup: int


FULL = Plan(sizes=(1_000, 10_000, 100_000), scopes=100, per_scope=50, questions=200, warmup=20)
QUICK = Plan(sizes=(1_000, 10_000), scopes=100, per_scope=5, questions=50, warmup=10)


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[scale] {message}", file=sys.stderr, flush=True)


def stats(seconds: Sequence[float]) -> Stats:
    """``store_latency.summarize`` (p50, p90, n in ms) with the p95 beside them.

    >>> s = stats([0.001 * i for i in range(1, 101)])
    >>> round(s["p50_ms"], 2), round(s["p95_ms"], 2), s["n"]
    (50.5, 95.05, 100)
    """
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {**summarize(seconds), "p95_ms": float(np.percentile(ms, 95))}


def rss_bytes(field: str = "VmRSS") -> int:
    """This process's resident set size now (Linux ``/proc``; else its peak, from
    ``getrusage``); ``field="VmHWM"``: its peak.

    >>> rss_bytes() > 0, rss_bytes("VmHWM") >= rss_bytes() // 2
    (True, True)
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def disk_bytes(folder: Path, *, logs: bool = True) -> int:
    """The space the files under ``folder`` take on disk, as ``du`` counts it; without
    SQLite's write-ahead logs (``-wal``, ``-shm``) when not ``logs``.

    >>> disk_bytes(Path(tempfile.mkdtemp()))
    0
    """
    total = 0
    for base, _, files in os.walk(folder):
        for name in files:
            if not logs and name.endswith(("-wal", "-shm")):
                continue
            try:
                st = os.lstat(os.path.join(base, name))
            except OSError:  # a file Chroma replaced meanwhile
                continue
            total += getattr(st, "st_blocks", 0) * 512 or st.st_size
    return total


def episode_items(turns: Sequence[RealTurn]) -> list[dict[str, Any]]:
    """``add_many`` items for turns, as the write path stores what was said (the fields of
    ``write/episodes.py``'s ``episode_fields``; a test holds them equal): an episode of the
    turn's role (its source and trust), in its session's thread, created at the session's
    date (``now``) and happening ``TURN_GAP`` per turn after it.

    >>> t = RealTurn("I moved to Pune.", "user", "s1", 2, 1_700_000_000.0)
    >>> item = episode_items([t])[0]
    >>> item["text"], item["metadata"]["thread_id"], item["metadata"]["turn_id"]
    ('I moved to Pune.', 's1', 's1-2')
    >>> (item["event_time"] - item["now"]).total_seconds()
    10.0
    """
    out = []
    for t in turns:
        date = datetime.fromtimestamp(t.at, timezone.utc)
        source = Source.USER if t.role == "user" else Source.ASSISTANT
        metadata: dict[str, Any] = {
            "episode": True,
            "turn_id": f"{t.session}-{t.index}",
            "thread_id": t.session,
            "said": said_key(t.text, source=source),
        }
        if asks_only(t.text):
            metadata["asks"] = True
        out.append(
            {
                "text": t.text,
                "kind": Kind.EPISODIC,
                "source": source,
                "trust": Trust.HIGH if source is Source.USER else Trust.MEDIUM,
                "event_time": date + TURN_GAP * t.index,
                "metadata": metadata,
                "now": date,
            }
        )
    return out


def add_turns(store: MemoryStore, scope: str, turns: Sequence[RealTurn], vectors: Any) -> float:
    """Add turns (with their cached vectors, one row each) to ``scope`` in batches of
    ``BATCH``; the seconds it took."""
    started = time.perf_counter()
    for first in range(0, len(turns), BATCH):
        part = turns[first : first + BATCH]
        rows = np.asarray(vectors[first : first + len(part)], dtype=np.float32).tolist()
        store.add_many(scope, episode_items(part), vectors=rows)
    return time.perf_counter() - started


class Clock:
    """The read's ``now``: starts after every stored turn, moves a day per ``tick``."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def tick(self) -> None:
        """One day later."""
        self.now += timedelta(days=1)


@dataclass(frozen=True)
class Prepared:
    """Per question, computed untimed before a size is timed: its vector, the ids its
    lexical lookup finds, and the contenders whose records the read asks for."""

    vectors: list[list[float]]
    lexical_ids: list[list[str]]
    contenders: list[list[str]]


def _lexical_ids(store: MemoryStore, scope: Scope, question: str) -> list[str]:
    """The candidate ids the read's lexical side finds (lookup + pinned), as
    ``store/engine/candidates.py`` does it (the question's terms as ``lexical.query_of`` makes
    them; real questions name no memory id). ``internals(store)`` has no lookup that
    skips the records (``keyword`` reads them), so this reaches the read's own index
    through the store's core: the one private reach of this benchmark."""
    core = internals(store)._core
    cols = core.collections(scope)
    if cols is None:
        return []
    words = list(dict.fromkeys(tokenize(question)))
    with core.live().lexicon.ready(cols, core.engine.registry) as index:
        ranked: dict[str, float] = {}
        for record_id, score in index.search(words, CANDIDATES):
            ranked.setdefault(record_id, score)
        pinned = index.pinned()
    return list(dict.fromkeys([*ranked, *pinned]))


def _index_vectors(store: MemoryStore, scope: Scope, ids: list[str]) -> Any:
    """The stored vectors of ``ids`` as an embedded store's read takes them: from the
    scope's lexical index (``store/engine/candidates.py``; same private reach as above)."""
    core = internals(store)._core
    cols = core.collections(scope)
    if cols is None or not ids:
        return np.zeros((0, 0))
    with core.live().lexicon.ready(cols, core.engine.registry) as index:
        return index.vectors(ids)[1]


def wait_for_postings(store: MemoryStore, scope: str, timeout: float = 600.0) -> float | None:
    """Seconds from the scope's first search to its postings in memory being ready (a
    big scope's first search builds them in a thread, see ``store/lexical/postings.py``;
    FTS5 ranks meanwhile); None when the scope is too small to have them. Measured
    before the timed reads, which then see the steady state a running app sees."""
    core = internals(store)._core
    cols = core.collections(Scope.of(scope))
    if cols is None:
        return None
    started = time.perf_counter()
    with core.live().lexicon.ready(cols, core.engine.registry) as index:
        index.search(["the"], 1)  # any term: the first search starts the build
        if len(index) < index.postings_from:
            return None
    while time.perf_counter() - started < timeout:
        with index.lock:
            postings = index._postings
            if postings is not None and index._backlog is None:
                return time.perf_counter() - started
        time.sleep(0.05)
    raise TimeoutError(f"the postings of {scope} were not built in {timeout:.0f} s")


def prepare(store: MemoryStore, scope: str, questions: Sequence[str], now: datetime) -> Prepared:
    """Vectors, lexical candidates and contenders of every question (untimed). The
    contenders are the ids ``retrieve`` itself passes to ``get_memories`` (a read with
    ``touch=False``, so nothing is written); the results' ids if it reads none."""
    handle = internals(store)
    vectors = [handle.embed_query(q) for q in questions]
    lexical = [_lexical_ids(store, Scope.of(scope), q) for q in questions]
    contenders: list[list[str]] = []
    original = Internals.get_memories
    with mock.patch.object(Internals, "get_memories", autospec=True, side_effect=original) as spy:
        for q in questions:
            spy.reset_mock()
            found = retrieve(store, scope, q, now=now, touch=False)
            asked = [list(c.args[2]) for c in spy.call_args_list]
            contenders.append(asked[-1] if asked else [r.memory.id for r in found])
    forget_queries(store.embeddings)
    return Prepared(vectors, lexical, contenders)


def active_collection(store: MemoryStore, scope: Scope) -> Any:
    """The Chroma collection of the scope's active memories, found by the scope and role
    the store stamps on its collections' metadata."""
    client = internals(store).client
    for col in client.list_collections():
        meta = col.metadata or {}
        if meta.get("lgm_scope") == scope.key and meta.get("lgm_role") == "mem":
            return client.get_collection(col.name, embedding_function=None)  # as the store
    raise LookupError(f"no active collection for {scope.key}")


def embed_only_graph(chat: ScriptedChatModel, store: MemoryStore) -> CompiledStateGraph[Any]:
    """START -> embed -> agent -> END: a first node that embeds the last message with the
    store's embedder and writes nothing. Beside the graph without memory it shows what
    the embedder alone costs inside a graph, where the model's pass through its weights
    leaves LangGraph's own code to run from cold caches."""
    handle = internals(store)

    def embed(state: Any) -> dict[str, Any]:
        handle.embed_query(str(state["messages"][-1].content))
        return {}

    builder = StateGraph(MemoryState)
    builder.add_node("embed", embed)
    builder.add_node("agent", agent_node(chat))
    builder.add_edge(START, "embed")
    builder.add_edge("embed", "agent")
    builder.add_edge("agent", END)
    return builder.compile()


def graph_config(clock: Clock) -> Any:
    """The run config of a graph invoke: the big scope's user, the clock's time."""
    return {"configurable": {"user_id": USER, "memory_now": clock.now}}


def component_paths(
    store: MemoryStore,
    questions: Sequence[str],
    ready: Prepared,
    clock: Clock,
    graphs: Mapping[str, CompiledStateGraph[Any]],
) -> dict[str, QueryPath]:
    """One path per component of ``COMPONENTS``, answering question ``i``."""
    handle = internals(store)
    scope = Scope.of(BIG)
    active = active_collection(store, scope)

    def nearest_of(vector: list[float]) -> Any:  # collection_io.nearest_ids: no record
        matrix = np.asarray([vector], dtype=np.float32)
        return active.query(query_embeddings=matrix, n_results=CANDIDATES, include=["distances"])

    def nearest(i: int) -> Any:
        return nearest_of(ready.vectors[i])

    def lexical_vectors(i: int) -> Any:  # candidates._vectors: the index's copy, embedded
        return _index_vectors(store, scope, ready.lexical_ids[i])

    def lexical(i: int) -> list[str]:
        return _lexical_ids(store, scope, questions[i])

    def invoke(graph: CompiledStateGraph[Any]) -> Callable[[int], Any]:
        return lambda i: graph.invoke({"messages": [("user", questions[i])]}, graph_config(clock))

    calls: dict[str, Callable[[int], Any]] = {
        "embed": lambda i: handle.embed_query(questions[i]),
        "nearest": nearest,
        "lexical": lexical,
        "lexical_vectors": lexical_vectors,
        "records": lambda i: handle.get_memories(BIG, ready.contenders[i]),
        "retrieve": lambda i: retrieve(store, BIG, questions[i], now=clock.now),
        "graph_plain": invoke(graphs["plain"]),
        "graph_read": invoke(graphs["read"]),
        "embed_nearest": lambda i: nearest_of(handle.embed_query(questions[i])),
        "graph_embed": invoke(graphs["embed"]),
    }
    return {name: QueryPath(calls[name], lambda _: []) for name in COMPONENTS}


def size_row(
    size: int, components: Mapping[str, Stats], memory: Mapping[str, float | None]
) -> dict[str, Any]:
    """One size's report: the components' stats, the ratios the targets read (p50s of
    this run), and RSS and disk.

    >>> s = lambda p50: {"p50_ms": p50, "p95_ms": 2 * p50}
    >>> row = size_row(10, {"embed": s(8.0), "nearest": s(2.0), "retrieve": s(15.0),
    ...                     "graph_plain": s(1.0), "graph_read": s(17.0)}, {})
    >>> row["ratios"]["retrieve_over_embed_nearest"], row["ratios"]["read_node_ms"]
    (1.5, 16.0)
    """
    c = components
    base = c["embed"]["p50_ms"] + c["nearest"]["p50_ms"]
    base95 = c["embed"]["p95_ms"] + c["nearest"]["p95_ms"]
    node = c["graph_read"]["p50_ms"] - c["graph_plain"]["p50_ms"]
    ratios = {
        "embed_plus_nearest_ms": base,
        "retrieve_over_embed_nearest": c["retrieve"]["p50_ms"] / base,
        "retrieve_over_embed_nearest_p95": c["retrieve"]["p95_ms"] / base95,
        "read_node_ms": node,
        "read_node_over_embed_nearest": node / base,
    }
    if "embed_nearest" in c and "graph_embed" in c:  # the diagnostics (see COMPONENTS)
        back_to_back = c["embed_nearest"]["p50_ms"]
        embed_node = c["graph_embed"]["p50_ms"] - c["graph_plain"]["p50_ms"]
        ratios |= {
            "retrieve_over_back_to_back": c["retrieve"]["p50_ms"] / back_to_back,
            "embed_node_ms": embed_node,
            "embed_node_over_embed": embed_node / c["embed"]["p50_ms"],
            "read_node_beyond_embed_node_ms": node - embed_node,
        }
    return {"size": size, "components": dict(c), "ratios": ratios, "memory": dict(memory)}


def _row(rows: Sequence[Mapping[str, Any]], size: int) -> Mapping[str, Any] | None:
    return next((r for r in rows if r["size"] == size), None)


def evaluate_targets(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The targets (see the module docstring), each with its value, its limit, whether it
    passed (None: its size was not run) and the absolute p50s it is made of.

    >>> s = lambda p50: {"p50_ms": p50, "p95_ms": p50}
    >>> rows = [size_row(10_000, {"embed": s(8.0), "nearest": s(2.0), "retrieve": s(30.0),
    ...                           "graph_plain": s(1.0), "graph_read": s(13.0)}, {})]
    >>> for t in evaluate_targets(rows):
    ...     print(t["name"], t["passed"])
    retrieve / (embed + nearest) at 10k False
    retrieve / (embed + nearest) at 100k None
    retrieve growth 10k -> 100k None
    read node / (embed + nearest) at 10k True
    """
    out: list[dict[str, Any]] = []

    def add(name: str, value: float | None, limit: float, detail: str) -> None:
        passed = None if value is None else value <= limit
        out.append({"name": name, "value": value, "target": limit, "passed": passed,
                    "detail": detail})  # fmt: skip

    def p50(row: Mapping[str, Any], key: str) -> float:
        return float(row["components"][key]["p50_ms"])

    for size in (MID, TOP):
        row = _row(rows, size)
        name = f"retrieve / (embed + nearest) at {size // 1000}k"
        if row is None:
            add(name, None, READ_TARGET, f"size {size:,} not run")
            continue
        add(
            name,
            row["ratios"]["retrieve_over_embed_nearest"],
            READ_TARGET,
            f"retrieve {p50(row, 'retrieve'):.2f} ms; embed {p50(row, 'embed'):.2f} + "
            f"nearest {p50(row, 'nearest'):.2f} ms",
        )
    mid, top = _row(rows, MID), _row(rows, TOP)
    name = "retrieve growth 10k -> 100k"
    if mid is None or top is None:
        add(name, None, GROWTH_TARGET, "needs sizes 10,000 and 100,000")
    else:
        add(
            name,
            p50(top, "retrieve") / p50(mid, "retrieve"),
            GROWTH_TARGET,
            f"retrieve {p50(mid, 'retrieve'):.2f} ms -> {p50(top, 'retrieve'):.2f} ms",
        )
    name = "read node / (embed + nearest) at 10k"
    if mid is None:
        add(name, None, NODE_TARGET, "size 10,000 not run")
    else:
        add(
            name,
            mid["ratios"]["read_node_over_embed_nearest"],
            NODE_TARGET,
            f"graph with read node {p50(mid, 'graph_read'):.2f} - without memory "
            f"{p50(mid, 'graph_plain'):.2f} = {mid['ratios']['read_node_ms']:.2f} ms; "
            f"embed + nearest {mid['ratios']['embed_plus_nearest_ms']:.2f} ms",
        )
    return out


def run(
    corpus: RealCorpus,
    plan: Plan,
    embeddings: Embeddings,
    cache: VectorCache,
    root: Path,
) -> dict[str, Any]:
    """Build the store under ``root`` and measure every size of ``plan``; the report
    without its total time."""
    sizes = sorted(set(plan.sizes))
    top = sizes[-1]
    others = plan.scopes * plan.per_scope
    if top + others > len(corpus.turns):
        raise ValueError(
            f"{top:,} turns + {plan.scopes} x {plan.per_scope} others need "
            f"{top + others:,} turns; the stream has {len(corpus.turns):,}"
        )
    n_asked = plan.warmup + plan.questions
    if n_asked > len(corpus.questions):
        raise ValueError(f"{n_asked} questions asked; the data has {len(corpus.questions)}")
    questions = list(corpus.questions[:n_asked])
    turns = corpus.turns[: top + others]
    started = time.perf_counter()
    vectors = cache.vectors([t.text for t in turns], log=log)
    embedded = time.perf_counter() - started
    log(f"{len(turns):,} vectors ready ({embedded:.0f} s)")
    # After every stored turn: each read is a later day than anything it finds.
    clock = Clock(datetime.fromtimestamp(max(t.at for t in turns), timezone.utc) + timedelta(1))
    chat = ScriptedChatModel(default="Noted.")
    rows: list[dict[str, Any]] = []
    ingest: list[dict[str, Any]] = []
    embeddings.embed_query("warm up")  # the model is loaded before RSS is first read
    forget_queries(embeddings)
    rss_before = rss_bytes()
    last: tuple[int, int, int] | None = None  # memories, RSS, disk at the last size
    with MemoryStore(root / "store", embeddings=embeddings) as store:
        handle = internals(store)
        seconds = 0.0
        for s in range(plan.scopes):
            first = top + s * plan.per_scope
            part = turns[first : first + plan.per_scope]
            seconds += add_turns(store, f"user:other-{s}", part, vectors[first : first + len(part)])
        ingest.append({"what": f"{plan.scopes} other scopes", "memories": others, "s": seconds})
        log(f"{plan.scopes} other scopes x {plan.per_scope} ({seconds:.0f} s)")
        graphs = {
            "plain": agent_builder(chat).compile(),
            "read": read_only_graph(chat, store),
            "embed": embed_only_graph(chat, store),
        }
        filled = 0
        for size in sizes:
            seconds = add_turns(store, BIG, turns[filled:size], vectors[filled:size])
            ingest.append({"what": f"{BIG} {filled:,} -> {size:,}", "memories": size - filled,
                           "s": seconds})  # fmt: skip
            filled = size
            built = wait_for_postings(store, BIG)
            log(f"{BIG} holds {size:,} ({seconds:.0f} s); postings {built}; preparing")
            ready = prepare(store, BIG, questions, clock.now)

            def settle() -> None:
                handle.flush_access()
                forget_queries(store.embeddings)
                clock.tick()

            timed = time_paths(
                component_paths(store, questions, ready, clock, graphs),
                plan.warmup,
                plan.questions,
                settle=settle,
            )
            handle.flush_access()
            memories = size + others
            rss, disk = rss_bytes(), disk_bytes(root / "store")
            added = None if last is None else (memories - last[0], rss - last[1], disk - last[2])
            last = (memories, rss, disk)
            memory: dict[str, float | None] = {
                "memories_in_store": memories,
                "rss_mb": rss / 2**20,
                "rss_growth_mb": (rss - rss_before) / 2**20,
                "rss_growth_kb_per_memory": (rss - rss_before) / 1024 / memories,
                "disk_mb": disk / 2**20,
                "disk_kb_per_memory": disk / 1024 / memories,
                # Since the last size: what each memory added costs, without fixed costs.
                "rss_added_kb_per_memory": None if added is None else added[1] / 1024 / added[0],
                "disk_added_kb_per_memory": None if added is None else added[2] / 1024 / added[0],
            }
            row = size_row(size, {n: stats(t.seconds) for n, t in timed.items()}, memory)
            row["postings_build_s"] = built
            row["read_shape"] = {  # what the records and lexical vectors paths read, per read
                "contenders_mean": float(np.mean([len(c) for c in ready.contenders])),
                "lexical_candidates_mean": float(np.mean([len(c) for c in ready.lexical_ids])),
            }
            rows.append(row)
            log(
                f"{size:,}: retrieve p50 {row['components']['retrieve']['p50_ms']:.1f} ms, "
                f"embed + nearest {row['ratios']['embed_plus_nearest_ms']:.1f} ms, "
                f"ratio {row['ratios']['retrieve_over_embed_nearest']:.2f}x"
            )
    return {
        "config": {
            "sizes": sizes,
            "scopes": plan.scopes,
            "per_scope": plan.per_scope,
            "questions": plan.questions,
            "warmup": plan.warmup,
            "k": K,
            "candidates": CANDIDATES,
            "scope": BIG,
            "embedder": embedder_name(embeddings),
            "corpus_turns": len(corpus.turns),
        },
        "environment": {
            **machine(embedder_name(embeddings)),
            "chromadb": chromadb.__version__,
            "platform": platform.platform(),
        },
        "vectors": {"texts": len(turns), "seconds": embedded},
        "ingest": ingest,
        "rows": rows,
        "growth": [
            {
                "from": a["size"],
                "to": b["size"],
                "retrieve_p50": b["components"]["retrieve"]["p50_ms"]
                / a["components"]["retrieve"]["p50_ms"],
            }
            for a, b in itertools.pairwise(rows)
        ],
        "targets": evaluate_targets(rows),
    }


def _ms(s: Mapping[str, float]) -> str:
    return f"{s['p50_ms']:.2f} / {s['p95_ms']:.2f}"


def _verdict(t: Mapping[str, Any]) -> str:
    if t["passed"] is None:
        return "not measured"
    return "PASS" if t["passed"] else "**FAIL**"


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown: one table of components per size (p50 / p95 ms), the
    ratios, RSS and disk, and the targets with pass or fail."""
    cfg = report["config"]
    lines = [
        "# The product read at scale, on real text",
        "",
        f"Scope `{cfg['scope']}` of N LongMemEval-S turns beside {cfg['scopes']} other scopes "
        f"x {cfg['per_scope']:,} in one store; {cfg['questions']} real questions after "
        f"{cfg['warmup']} warm-up, embedded live by {cfg['embedder']}; `retrieve` as it "
        f"ships (k={cfg['k']}, touch), the clock a day later every block.",
        "",
    ]
    rows = report["rows"]
    header = "| component, p50 / p95 ms | " + " | ".join(f"{r['size']:,}" for r in rows) + " |"
    lines += [header, "|---|" + "---:|" * len(rows)]
    for key, label in COMPONENTS.items():
        if all(key in r["components"] for r in rows):  # reports of older runs lack some
            cells = " | ".join(_ms(r["components"][key]) for r in rows)
            lines.append(f"| {label} | {cells} |")
    ratios = (
        ("embed + nearest, p50 ms", "embed_plus_nearest_ms", "{:.2f}"),
        ("read node (graph with - without), p50 ms", "read_node_ms", "{:.2f}"),
        ("`retrieve` / (embed + nearest), p50", "retrieve_over_embed_nearest", "{:.2f}x"),
        ("`retrieve` / (embed + nearest), p95", "retrieve_over_embed_nearest_p95", "{:.2f}x"),
        ("read node / (embed + nearest), p50", "read_node_over_embed_nearest", "{:.2f}x"),
    )
    diagnostics = (
        ("`retrieve` / (embed, then nearest: back to back), p50", "retrieve_over_back_to_back",
         "{:.2f}x"),
        ("embed-only node (graph with - without), p50 ms", "embed_node_ms", "{:.2f}"),
        ("embed-only node / embed, p50", "embed_node_over_embed", "{:.2f}x"),
        ("read node - embed-only node, p50 ms", "read_node_beyond_embed_node_ms", "{:.2f}"),
    )  # fmt: skip
    for label, key, fmt in ratios + diagnostics:
        if all(key in r["ratios"] for r in rows):
            cells = " | ".join(fmt.format(r["ratios"][key]) for r in rows)
            lines.append(f"| {label} | {cells} |")
    memory = (
        ("memories in the store", "memories_in_store", "{:,.0f}"),
        ("RSS, MB (growth since the store opened)", "rss_mb", "{:,.0f}"),
        ("RSS growth per memory, KB", "rss_growth_kb_per_memory", "{:.2f}"),
        ("disk, MB", "disk_mb", "{:,.1f}"),
        ("disk per memory, KB", "disk_kb_per_memory", "{:.2f}"),
        ("RSS per memory added since the last size, KB", "rss_added_kb_per_memory", "{:.2f}"),
        ("disk per memory added since the last size, KB", "disk_added_kb_per_memory", "{:.2f}"),
    )
    for label, key, fmt in memory:
        shown = []
        for r in rows:
            value = r["memory"].get(key)
            cell = "-" if value is None else fmt.format(value)
            if key == "rss_mb":
                cell += f" (+{r['memory']['rss_growth_mb']:,.0f})"
            shown.append(cell)
        lines.append(f"| {label} | " + " | ".join(shown) + " |")
    shape = ", ".join(
        f"{r['size']:,}: {r['read_shape']['contenders_mean']:.1f} contenders, "
        f"{r['read_shape']['lexical_candidates_mean']:.1f} lexical candidates"
        for r in rows
        if "read_shape" in r
    )
    lines += [
        "",
        f"Records read per question (mean): {shape}.",
        "",
        "| target | value | limit | result | p50s (same run) |",
        "|---|---:|---:|:---:|---|",
    ]
    for t in report["targets"]:
        value = "n/a" if t["value"] is None else f"{t['value']:.2f}x"
        lines.append(
            f"| {t['name']} | {value} | <= {t['target']:.1f}x | {_verdict(t)} | {t['detail']} |"
        )
    growth = ", ".join(
        f"{g['from']:,} -> {g['to']:,}: {g['retrieve_p50']:.2f}x" for g in report["growth"]
    )
    ingest = ", ".join(
        f"{i['what']}: {i['memories'] / max(i['s'], 1e-9):,.0f}/s" for i in report["ingest"]
    )
    env = report["environment"]
    lines += [
        "",
        f"`retrieve` p50 growth: {growth or 'one size only'}. Ingest (`add_many` with cached "
        f"vectors): {ingest}. Vectors: {report['vectors']['texts']:,} texts ready in "
        f"{report['vectors']['seconds']:.0f} s.",
        "",
        f"Total runtime {report.get('total_seconds', 0.0):.0f} s; chromadb {env['chromadb']}, "
        f"Python {env['python']}, {env['cpus']} CPUs, {env['platform']}.",
    ]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options; those not given take the full (or ``--quick``) plan's."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks scale",
        description="The product read at scale on real LongMemEval-S turns.",
    )
    p.add_argument("--sizes", help="turns in the big scope (default 1000,10000,100000)")
    p.add_argument("--scopes", type=int, help="other scopes in the store (default 100)")
    p.add_argument("--per-scope", type=int, help="turns per other scope (default 50)")
    p.add_argument("--questions", type=int, help="timed questions per path (default 200)")
    p.add_argument("--warmup", type=int, help="warm-up questions first (default 20)")
    p.add_argument("--data", type=Path, default=Path("../shared/data"), help="data folder")
    p.add_argument("--cache", type=Path, default=default_cache(), help="vector cache folder")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    p.add_argument("--keep", action="store_true", help="keep the store's directory")
    p.add_argument("--quick", action="store_true", help="sizes 1k and 10k, 50 questions")
    p.add_argument(
        "--fake-embedder", action="store_true", help="hashed vectors, no model (tests only)"
    )
    args = p.parse_args(argv)
    base = QUICK if args.quick else FULL
    sizes = (
        tuple(int(s) for s in str(args.sizes).split(",") if s.strip()) if args.sizes else base.sizes
    )
    args.plan = Plan(
        sizes=sizes,
        scopes=base.scopes if args.scopes is None else args.scopes,
        per_scope=base.per_scope if args.per_scope is None else args.per_scope,
        questions=base.questions if args.questions is None else args.questions,
        warmup=base.warmup if args.warmup is None else args.warmup,
    )
    plan = args.plan
    if not sizes or min(sizes) < CANDIDATES:
        p.error(f"--sizes must be integers >= {CANDIDATES}")
    if plan.scopes < 0 or plan.per_scope < 1 or plan.questions < 1 or plan.warmup < 0:
        p.error("--scopes and --warmup must be >= 0; --per-scope and --questions >= 1")
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
    log(f"{len(corpus.turns):,} distinct turns, {len(corpus.questions)} questions")
    embeddings: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    cache = VectorCache(args.cache, embeddings, embedder_name(embeddings))
    root = Path(tempfile.mkdtemp(prefix="lgm-scale-"))
    try:
        report = run(corpus, args.plan, embeddings, cache, root)
    finally:
        if args.keep:
            log(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    report["config"]["quick"] = bool(args.quick)
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
