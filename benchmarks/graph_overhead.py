"""What memory adds to a LangGraph chat turn, and what the write path costs beside the model.

Run it on the benchmark data folder (nothing is downloaded, no model is called)::

    python -m benchmarks.graph_overhead --data ../shared/data --out graph.json
    python -m benchmarks.graph_overhead --data ../shared/data --quick

1. ``graph.invoke`` of a one-node chat graph (agent = a zero-latency ``ScriptedChatModel``
   that always answers "Noted."), four ways, same model, same turns, taking turns block by
   block (``store_latency.time_paths``): without memory (the baseline); with the read node
   only; and with ``add_memory(..., write="deferred")``: read node + write node handing the turn
   to a ``BackgroundWriter`` (``RulesModel`` writer) whose workers write while later invokes
   run, once as it comes (each read waits for the scope's queued turns, ``wait_for_writes``;
   the turns come back to back, so that is the previous turn's write) and once with
   ``wait_for_writes=0``. Before each path's block the queue is drained, untimed, so no path
   pays for the writes another left queued. The scope is pre-filled with ``--prefill`` LoCoMo
   turns. Medians and the ratio to the baseline; the time to drain the queue afterwards is
   reported for context.
2. ``MemoryWriter.write_turn`` per LoCoMo turn with a zero-latency scripted chat model that
   returns LoCoMo's observation facts (``write_cost.OracleAnswers``) and ADD: the time spent
   in the chat model (prompt token counting of the fake included) and in the embedder are
   measured and subtracted, leaving the write path's own work (gate, prompts, parsing, store
   reads and writes, decision log). Its baseline: ``add_many`` of the same facts into a bare
   scope of the same store, minus embedding (the least any write path must do).
3. The event loop under ``graph.ainvoke`` with ``--users`` (8) users at once, each sending
   ``--user-turns`` turns one after another to the graph of part 1 with memory (read node +
   deferred write), each user in a scope of their own pre-filled with ``--user-prefill``
   LoCoMo turns. A ticker task on the same loop sleeps 1 ms at a time and records the gap
   between its wake-ups: the longest gap is the longest the loop could not run anything (a
   stall). Baseline: the same users and turns on the graph without memory, in the same run.
   With memory twice: on an embedded store, and on a Chroma server (``chroma run``, started
   here when the CLI is installed; ``--no-server`` skips it). A probe says why they differ:
   how long another Python thread waits while a store write runs (Chroma's embedded client
   holds the GIL while it writes; over HTTP the wait is a socket's, which frees it). The
   longest garbage collection in each run is reported too (it holds the GIL as well), and
   the server run is repeated after ``gc.freeze()``, as a server does once it has loaded.
   Target: the longest stall with memory <= 20 ms.

Medians are over turns; the embedder is the real LocalMiniLM unless ``--fake-embedder``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar
from uuid import UUID

import chromadb
import numpy as np
from chromadb.config import Settings
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.outputs import LLMResult
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from benchmarks import write_cost
from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings, forget_queries
from benchmarks.reports import publish
from benchmarks.store_latency import (
    WARMUP,
    QueryPath,
    Stats,
    ratio,
    summarize,
    time_paths,
)
from langgraph_memory import BackgroundWriter
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.graph import MemoryState, add_memory, memory_read_node
from langgraph_memory.store import MemoryStore
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import MemoryWriter
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.steps import may_hold_fact

USER = "bench"
SCOPE = f"user:{USER}"
CONFIG: Any = {"configurable": {"user_id": USER}}
SYSTEM = "You are a helpful assistant.\n\n{memories}"


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[graph_overhead] {message}", file=sys.stderr, flush=True)


class ChatTimer(BaseCallbackHandler):
    """Adds up the seconds chat models spend between the start and the end of their runs.

    Given as a callback of the scripted model (``ScriptedChatModel(callbacks=[timer])``), it
    times every call, those of its bound copies (structured output) included.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started: dict[UUID, float] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        """Note when the call began."""
        self._started[run_id] = time.perf_counter()

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Add the call's time."""
        self._stop(run_id)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A failed call took time too."""
        self._stop(run_id)

    def _stop(self, run_id: UUID) -> None:
        began = self._started.pop(run_id, None)
        if began is not None:
            self.seconds += time.perf_counter() - began


class TimedEmbeddings(Embeddings):
    """Wraps an embedder and adds up the seconds spent in it."""

    name: ClassVar[str] = LocalMiniLM.name

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.seconds = 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The inner embedder's vectors, timed."""
        start = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start

    def embed_query(self, text: str) -> list[float]:
        """The inner embedder's vector, timed."""
        start = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self.seconds += time.perf_counter() - start


def agent_node(chat: ScriptedChatModel) -> Any:  # a node (LangGraph types them narrowly)
    """The agent: the memories (if any) in its system prompt, then the model's answer."""

    def agent(state: MemoryState) -> dict[str, Any]:
        system = SystemMessage(SYSTEM.format(memories=state.get("memories", "")))
        return {"messages": [chat.invoke([system, *state["messages"]])]}

    return agent


def agent_builder(chat: ScriptedChatModel) -> StateGraph[Any]:
    """START -> agent -> END (``agent_node``)."""
    builder = StateGraph(MemoryState)
    builder.add_node("agent", agent_node(chat))
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder


def read_only_graph(chat: ScriptedChatModel, store: MemoryStore) -> CompiledStateGraph[Any]:
    """START -> memory_read -> agent -> END."""
    builder = StateGraph(MemoryState)
    read: Any = memory_read_node(store)
    builder.add_node("memory_read", read)
    builder.add_node("agent", agent_node(chat))
    builder.add_edge(START, "memory_read")
    builder.add_edge("memory_read", "agent")
    builder.add_edge("agent", END)
    return builder.compile()


def bench_invoke(
    root: Path, emb: Embeddings, turns: Sequence[str], prefill: Sequence[str], n_timed: int
) -> dict[str, Any]:
    """Part 1: invoke medians without memory, read only, and read + deferred write."""
    chat = ScriptedChatModel(default="Noted.")
    with MemoryStore(root / "graph", embeddings=emb) as store:
        for first in range(0, len(prefill), 500):
            store.add_many(SCOPE, list(prefill[first : first + 500]))
        background = BackgroundWriter(MemoryWriter(store, model=RulesModel()))
        try:
            plain = agent_builder(chat).compile()
            read_only = read_only_graph(chat, store)
            builder = agent_builder(chat)
            add_memory(builder, "agent", store=store, writer=background, write="deferred")
            deferred = builder.compile()
            builder = agent_builder(chat)
            add_memory(
                builder,
                "agent",
                store=store,
                writer=background,
                write="deferred",
                wait_for_writes=0,
            )
            no_wait = builder.compile()

            def settle() -> None:
                # Each path's block starts with no queued write (the deferred paths'
                # writes stay in their own times, not the read-only path's) and with no
                # query vector kept from another path's block on the same turns.
                background.flush()
                forget_queries(emb)

            def call(graph: CompiledStateGraph[Any]) -> QueryPath:
                return QueryPath(
                    lambda i: graph.invoke({"messages": [("user", turns[i])]}, CONFIG),
                    lambda _: [],
                )

            timed = time_paths(
                {
                    "no_memory": call(plain),
                    "read_only": call(read_only),
                    "deferred_memory": call(deferred),
                    "deferred_no_wait": call(no_wait),
                },
                min(WARMUP, len(turns) - n_timed),
                n_timed,
                settle=settle,
            )
            start = time.perf_counter()
            background.flush()
            drain = time.perf_counter() - start
            stats = background.stats
        finally:
            background.close()
        active = len(store.active(SCOPE))
    out = {name: t.stats() for name, t in timed.items()}
    base = out["no_memory"]
    return {
        **out,
        "ratio_read_only_over_no_memory": ratio(out["read_only"], base),
        "ratio_deferred_over_no_memory": ratio(out["deferred_memory"], base),
        "ratio_deferred_no_wait_over_no_memory": ratio(out["deferred_no_wait"], base),
        "added_ms_deferred_p50": out["deferred_memory"]["p50_ms"] - base["p50_ms"],
        "background": {
            "drain_after_timing_s": drain,
            "submitted": stats.submitted,
            "applied": stats.applied,
            "failed": stats.failed,
            "active_memories_after": active,
        },
        "prefill": len(prefill),
    }


def bench_write_path(
    root: Path, emb: TimedEmbeddings, conv: write_cost.Conversation, limit: int | None
) -> dict[str, Any]:
    """Part 2: write_turn minus chat-model and embedder time, against bare add_many."""
    oracle = write_cost.OracleAnswers()
    timer = ChatTimer()
    model = ScriptedChatModel(default=oracle, callbacks=[timer])
    rows: list[dict[str, Any]] = []
    turns = conv.turns[:limit] if limit else conv.turns
    with MemoryStore(root / "write", embeddings=emb) as store:
        writer = MemoryWriter(store, model=model)
        for turn in turns:
            oracle.expect(turn.text, turn.facts)
            m0, e0 = timer.seconds, emb.seconds
            start = time.perf_counter()
            decisions = writer.write_turn(
                turn.scope, [("user", turn.text)], now=turn.when, turn_id=turn.dia_id
            )
            total = time.perf_counter() - start
            model_s, embed_s = timer.seconds - m0, emb.seconds - e0
            facts = [d.fact for d in decisions if d.fact and d.status != "failed"]
            bare = bare_embed = 0.0
            if facts:
                e0 = emb.seconds
                start = time.perf_counter()
                store.add_many(f"user:bare-{conv.sample_id}", facts, now=turn.when)
                bare = time.perf_counter() - start
                bare_embed = emb.seconds - e0
            rows.append(
                {
                    "skipped": not may_hold_fact(turn.text),
                    "facts": len(facts),
                    "total_s": total,
                    "model_s": model_s,
                    "embed_s": embed_s,
                    "own_s": total - model_s - embed_s,
                    "bare_add_s": bare,
                    "bare_add_minus_embed_s": bare - bare_embed,
                }
            )

    def pick(key: str, kind: str) -> list[float]:
        sel: Callable[[dict[str, Any]], bool] = {
            "all": lambda r: True,
            "extracted": lambda r: not r["skipped"],
            "with_facts": lambda r: r["facts"] > 0,
        }[kind]
        return [float(r[key]) for r in rows if sel(r)]

    out: dict[str, Any] = {"turns": len(rows), "facts": sum(r["facts"] for r in rows)}
    for kind in ("all", "extracted", "with_facts"):
        out[kind] = {
            "n": len(pick("total_s", kind)),
            **{
                key: summarize(pick(key, kind)) if pick(key, kind) else None
                for key in ("total_s", "model_s", "embed_s", "own_s")
            },
        }
    with_facts = [r for r in rows if r["facts"]]
    if with_facts:
        own = summarize([r["own_s"] for r in with_facts])
        bare_stats = summarize([r["bare_add_minus_embed_s"] for r in with_facts])
        out["bare_add_minus_embed_with_facts"] = bare_stats
        out["ratio_own_over_bare_add"] = ratio(own, bare_stats)
        out["own_ms_per_fact_p50"] = float(
            np.median([r["own_s"] * 1000 / r["facts"] for r in with_facts])
        )
        out["bare_ms_per_fact_p50"] = float(
            np.median([r["bare_add_minus_embed_s"] * 1000 / r["facts"] for r in with_facts])
        )
    return out


#: The ticker's sleep: a gap between its wake-ups longer than this is time the loop was busy.
TICK_S = 0.001


class GcPauses:
    """The longest garbage collection of each generation while installed (a collection
    holds the GIL, so it stalls the loop whichever thread triggered it)."""

    def __init__(self) -> None:
        self.longest: dict[int, float] = {}
        self._began = 0.0

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._note)

    def _note(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        gen = int(info["generation"])
        self.longest[gen] = max(self.longest.get(gen, 0.0), time.perf_counter() - self._began)


async def loop_gaps(
    graph: CompiledStateGraph[Any], turns: Sequence[str], users: int, per: int
) -> dict[str, Any]:
    """Run ``users`` users at once on ``graph.ainvoke``, ``per`` turns each, one after
    another, while a ticker records the gaps between its 1 ms sleeps; the stall stats."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    async def user(i: int) -> None:
        config: Any = {"configurable": {"user_id": f"{USER}-{i}"}}
        for j in range(per):
            text = turns[(i * per + j) % len(turns)]
            await graph.ainvoke({"messages": [("user", text)]}, config)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)  # the ticker runs before the users start
    with GcPauses() as pauses:
        start = time.perf_counter()
        await asyncio.gather(*(user(i) for i in range(users)))
        elapsed = time.perf_counter() - start
    done.set()
    await ticking
    stalls = np.maximum(np.asarray(gaps) - TICK_S, 0.0) * 1000.0
    return {
        "max_stall_ms": float(stalls.max()),
        "p99_stall_ms": float(np.percentile(stalls, 99)),
        "p50_stall_ms": float(np.median(stalls)),
        "stalls_over_20_ms": int((stalls > 20).sum()),
        "longest_gc_ms": max(pauses.longest.values(), default=0.0) * 1000,
        "ticks": len(gaps),
        "turns": users * per,
        "turns_per_s": users * per / elapsed,
    }


def gil_probe(store: MemoryStore, vector: Sequence[float], n: int = 30) -> dict[str, float]:
    """How long one store write holds every other Python thread: ``n`` one-memory
    ``add_many`` calls in a thread while this one sleeps 1 ms at a time; the write's
    median time and this thread's longest gap (Chroma's embedded client holds the GIL
    while it writes, so the gap follows the write)."""
    durations: list[float] = []

    def write() -> None:
        for i in range(n):
            start = time.perf_counter()
            store.add_many(f"user:{USER}-probe", [f"probe {i}"], vectors=[list(vector)])
            durations.append(time.perf_counter() - start)

    worker = threading.Thread(target=write)
    gaps: list[float] = []
    worker.start()
    last = time.perf_counter()
    while worker.is_alive():
        time.sleep(TICK_S)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    return {
        "add_p50_ms": float(np.median(durations)) * 1000,
        "add_max_ms": max(durations) * 1000,
        "other_thread_max_gap_ms": max(gaps) * 1000 - TICK_S * 1000,
    }


@contextmanager
def chroma_server(root: Path) -> Iterator[Any]:
    """A ``chroma run`` server on a free port (the CLI beside this Python), as a client;
    None when the CLI is missing or the server does not start in 60 s."""
    binary = Path(sys.executable).with_name("chroma")
    if not binary.exists():
        yield None
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    settings = Settings(anonymized_telemetry=False)
    command = [str(binary), "run", "--path", str(root / "server"), "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                client = chromadb.HttpClient(host="127.0.0.1", port=port, settings=settings)
                client.heartbeat()
                break
            except Exception:
                if server.poll() is not None or time.monotonic() > deadline:
                    log("chroma run did not start: the server variant is skipped")
                    client = None
                    break
                time.sleep(0.2)
        yield client
    finally:
        server.terminate()
        server.wait(30)


def stall_with_memory(
    store: MemoryStore,
    chat: ScriptedChatModel,
    turns: Sequence[str],
    users: int,
    per: int,
    *,
    freeze: bool = False,
) -> dict[str, Any]:
    """Part 3 on one store: the deferred-memory graph, warmed, then timed; ``freeze``
    moves what the process holds after the warm-up out of the garbage collector's
    reach (``gc.freeze()``, as servers do after loading), so collections scan only
    what the turns allocate."""
    with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as background:
        builder = agent_builder(chat)
        add_memory(builder, "agent", store=store, writer=background, write="deferred")
        graph = builder.compile()
        asyncio.run(loop_gaps(graph, turns, 1, 2))  # imports, first queries
        background.flush()
        forget_queries(store.embeddings)  # no vector kept from the warm-up or an earlier run
        if freeze:
            gc.collect()
            gc.freeze()
        try:
            out = asyncio.run(loop_gaps(graph, turns, users, per))
        finally:
            gc.unfreeze()
        background.flush()
        stats = background.stats
    out["background"] = {"applied": stats.applied, "failed": stats.failed}
    return out


def bench_loop_stall(
    root: Path,
    emb: Embeddings,
    turns: Sequence[str],
    prefill: Sequence[str],
    users: int,
    per: int,
    *,
    server: bool = True,
) -> dict[str, Any]:
    """Part 3: the longest event-loop stalls with ``users`` concurrent users, without
    memory, with memory on an embedded store and on a Chroma server (see the module
    docstring)."""
    chat = ScriptedChatModel(default="Noted.")
    plain = agent_builder(chat).compile()
    asyncio.run(loop_gaps(plain, turns, 1, 2))
    out: dict[str, Any] = {"no_memory": asyncio.run(loop_gaps(plain, turns, users, per))}
    with MemoryStore(root / "stall", embeddings=emb) as store:
        for i in range(users):
            store.add_many(f"user:{USER}-{i}", list(prefill))
        out["memory_embedded"] = stall_with_memory(store, chat, turns, users, per)
        out["gil_probe_embedded"] = gil_probe(store, emb.embed_query("probe"))
    if server:
        with chroma_server(root) as client:
            if client is not None:
                with MemoryStore(client=client, embeddings=emb) as store:
                    for i in range(users):
                        store.add_many(f"user:{USER}-{i}", list(prefill))
                    out["memory_server"] = stall_with_memory(store, chat, turns, users, per)
                    out["memory_server_gc_frozen"] = stall_with_memory(
                        store, chat, turns, users, per, freeze=True
                    )
                    out["gil_probe_server"] = gil_probe(store, emb.embed_query("probe"))
    return {
        **out,
        "users": users,
        "turns_per_user": per,
        "prefill_per_user": len(prefill),
        "target_max_stall_ms": 20.0,
    }


def _ms(s: Stats | None) -> str:
    return "n/a" if s is None else f"{s['p50_ms']:.2f} / {s['p90_ms']:.2f}"


def render_stall(s: dict[str, Any]) -> list[str]:
    """Part 3 as Markdown lines."""
    lines = [
        f"## 3. The event loop under `ainvoke`: {s['users']} users at once, "
        f"{s['turns_per_user']} turns each ({s['prefill_per_user']} memories per user)",
        "",
        "| graph | longest stall ms | p99 ms | p50 ms | stalls > 20 ms | longest GC ms | turns/s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = (
        ("no_memory", "no memory (baseline)"),
        ("memory_embedded", "read + deferred write, embedded store"),
        ("memory_server", "read + deferred write, Chroma server"),
        ("memory_server_gc_frozen", "the same after `gc.freeze()`"),
    )
    for key, label in rows:
        if key not in s:
            continue
        r = s[key]
        lines.append(
            f"| {label} | {r['max_stall_ms']:.1f} | {r['p99_stall_ms']:.2f} | "
            f"{r['p50_stall_ms']:.2f} | {r['stalls_over_20_ms']} | {r['longest_gc_ms']:.1f} "
            f"| {r['turns_per_s']:.1f} |"
        )
    lines.append("")
    for key, label in (("gil_probe_embedded", "embedded"), ("gil_probe_server", "server")):
        if key in s:
            g = s[key]
            lines.append(
                f"One-memory `add_many` on the {label} store: p50 {g['add_p50_ms']:.1f} ms "
                f"(max {g['add_max_ms']:.1f}); another Python thread's longest wait meanwhile "
                f"{g['other_thread_max_gap_ms']:.1f} ms."
            )
    for key in ("memory_embedded", "memory_server", "memory_server_gc_frozen"):
        if key in s:
            worst = s[key]["max_stall_ms"]
            verdict = "met" if worst <= s["target_max_stall_ms"] else "MISSED"
            lines.append(f"Target ({key}): longest stall <= 20 ms: {verdict} ({worst:.1f} ms).")
    return [*lines, ""]


def render_markdown(report: dict[str, Any]) -> str:
    """The parts as Markdown tables (p50 / p90 ms)."""
    env = report["environment"]
    footer = [
        f"Total runtime {report['total_seconds']:.0f}s; Python {env['python']}, "
        f"{env['cpus']} CPUs.",
    ]
    if "invoke" not in report:  # --stall-only
        return "\n".join(
            ["# Graph overhead of memory", "", *render_stall(report["loop_stall"]), *footer]
        )
    g = report["invoke"]
    bg = g["background"]
    lines = [
        "# Graph overhead of memory",
        "",
        f"## 1. `graph.invoke` per turn, p50 / p90 ms ({g['no_memory']['n']} turns; "
        f"scope pre-filled with {g['prefill']:,} memories; embedder {report['embedder']})",
        "",
        "| graph | p50 / p90 ms | p50 / no memory | p90 / no memory |",
        "|---|---:|---:|---:|",
        f"| no memory (baseline) | {_ms(g['no_memory'])} | 1.00x | 1.00x |",
        f"| read node only | {_ms(g['read_only'])} "
        f"| {g['ratio_read_only_over_no_memory']['p50']:.2f}x "
        f"| {g['ratio_read_only_over_no_memory']['p90']:.2f}x |",
        f"| read + deferred write (`BackgroundWriter`, RulesModel) | {_ms(g['deferred_memory'])} "
        f"| {g['ratio_deferred_over_no_memory']['p50']:.2f}x "
        f"| {g['ratio_deferred_over_no_memory']['p90']:.2f}x |",
        f"| the same, `wait_for_writes=0` | {_ms(g['deferred_no_wait'])} "
        f"| {g['ratio_deferred_no_wait_over_no_memory']['p50']:.2f}x "
        f"| {g['ratio_deferred_no_wait_over_no_memory']['p90']:.2f}x |",
        "",
        f"Memory adds {g['added_ms_deferred_p50']:.2f} ms to the median turn (turns back to "
        "back, no time between them: each read waits for the previous turn's write, "
        "`wait_for_writes`; without the wait it reads what is there). Background "
        f"queue: {bg['submitted']} submitted, {bg['applied']} applied, {bg['failed']} failed; "
        f"drained {bg['drain_after_timing_s'] * 1000:.0f} ms after the last invoke.",
        "",
    ]
    w = report["write_path"]
    lines += [
        f"## 2. `MemoryWriter.write_turn` without model time ({w['turns']} LoCoMo turns, "
        f"{w['facts']} facts; zero-latency scripted model), p50 / p90 ms",
        "",
        "| turns | n | total | in chat model | in embedder | **write path's own** |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, label in (
        ("all", "all"),
        ("extracted", "passed the gate"),
        ("with_facts", "with facts"),
    ):
        s = w[kind]
        lines.append(
            f"| {label} | {s['n']} | {_ms(s['total_s'])} | {_ms(s['model_s'])} "
            f"| {_ms(s['embed_s'])} | {_ms(s['own_s'])} |"
        )
    if "ratio_own_over_bare_add" in w:
        lines += [
            "",
            f"Baseline, same turns with facts: bare `add_many` of the same facts minus "
            f"embedding {_ms(w['bare_add_minus_embed_with_facts'])} ms; write path's own / "
            f"bare = **{w['ratio_own_over_bare_add']['p50']:.1f}x** (p50); per fact "
            f"{w['own_ms_per_fact_p50']:.2f} vs {w['bare_ms_per_fact_p50']:.2f} ms.",
        ]
    lines += ["", *render_stall(report["loop_stall"]), *footer]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run both parts, print the tables, write the JSON; return the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.graph_overhead",
        description="invoke time with/without memory; write-path cost beside the model.",
    )
    p.add_argument(
        "--data", type=Path, required=True, help="benchmark data folder (locomo/locomo10.json)"
    )
    p.add_argument("--turns", type=int, default=200, help="timed invokes per graph")
    p.add_argument("--prefill", type=int, default=1000, help="memories in the scope first")
    p.add_argument("--write-turns", type=int, default=None, help="LoCoMo turns for part 2")
    p.add_argument("--users", type=int, default=8, help="concurrent users for part 3")
    p.add_argument("--user-turns", type=int, default=25, help="turns per user in part 3")
    p.add_argument("--user-prefill", type=int, default=200, help="memories per user, part 3")
    p.add_argument("--stall-only", action="store_true", help="part 3 only (the event loop)")
    p.add_argument("--no-server", action="store_true", help="part 3 without a Chroma server")
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    p.add_argument("--quick", action="store_true", help="50 invokes, 200 prefill, 150 turns")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    if args.quick:
        args.turns, args.prefill = min(args.turns, 50), min(args.prefill, 200)
        args.write_turns = args.write_turns or 150
    problem = missing_data(args.data, DATASETS["locomo"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    path = args.data / DATASETS["locomo"]
    began = time.perf_counter()
    convs = write_cost.load_locomo(path)
    texts = [t.text for c in convs for t in c.turns]
    # Timed turns come from the last conversations, prefill from the first ones.
    n_timed = max(1, min(args.turns, len(texts) // 2))
    turns = texts[-(n_timed + WARMUP) :]
    prefill = texts[: min(args.prefill, len(texts) - len(turns))]
    inner: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    emb = TimedEmbeddings(inner)
    emb.embed_query("warm up")
    root = Path(tempfile.mkdtemp(prefix="lgm-graph-"))
    report: dict[str, Any] = {"embedder": "hashed-fake" if args.fake_embedder else LocalMiniLM.name}
    try:
        if not args.stall_only:
            log(f"invoke: {n_timed} turns per graph, prefill {len(prefill)}")
            report["invoke"] = bench_invoke(root, emb, turns, prefill, n_timed)
            log("write path")
            report["write_path"] = bench_write_path(root, emb, convs[0], args.write_turns)
        log(f"event loop: {args.users} users x {args.user_turns} turns under ainvoke")
        report["loop_stall"] = bench_loop_stall(
            root,
            emb,
            turns,
            texts[: args.user_prefill],
            args.users,
            args.user_turns,
            server=not args.no_server,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report["environment"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
