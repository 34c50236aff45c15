"""Reads for an event loop (issue 41, point 4): ``aretrieve`` and the async read node give
what their sync twins give, on at most ``READ_THREADS`` threads, with the caller's context."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from langgraph_memory import MemoryStore, aretrieve, retrieve
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.graph import MemoryState, memory_read_node
from langgraph_memory.read.async_reads import READ_THREADS, run_read

FACTS = ["Alice is vegetarian.", "Alice lives in Pune.", "Alice has a cat named Miso."]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore(tmp_path, embeddings=DeterministicFakeEmbedding(size=16))
    s.add_many("user:alice", FACTS)
    yield s
    s.close()


def test_aretrieve_reads_what_retrieve_reads(store: MemoryStore) -> None:
    now = datetime.now(timezone.utc)  # recency is measured from it: one time for both
    ask: dict[str, Any] = {"k": 2, "touch": False, "now": now}
    sync = retrieve(store, "user:alice", "where does she live", **ask)
    on_loop = asyncio.run(aretrieve(store, "user:alice", "where does she live", **ask))
    assert [(r.memory.id, r.score) for r in on_loop] == [(r.memory.id, r.score) for r in sync]
    with pytest.raises(InvalidArgumentError):  # retrieve's errors, as retrieve raises them
        asyncio.run(aretrieve(store, "user:alice", "x", k=0))


def test_reads_at_once_use_the_read_threads_and_the_callers_context() -> None:
    asked: contextvars.ContextVar[str] = contextvars.ContextVar("asked", default="none")
    seen: list[tuple[str, str]] = []

    def read() -> None:
        seen.append((threading.current_thread().name, asked.get()))
        threading.Event().wait(0.02)

    async def many() -> None:
        asked.set("the caller's")
        await asyncio.gather(*(run_read(read) for _ in range(4 * READ_THREADS)))

    asyncio.run(many())
    threads = {name for name, _ in seen}
    assert len(seen) == 4 * READ_THREADS and len(threads) <= READ_THREADS
    assert all(name.startswith("langgraph_memory-read") for name in threads)
    assert {value for _, value in seen} == {"the caller's"}


def _graph(store: MemoryStore, run: str) -> object:
    builder = StateGraph(MemoryState)
    builder.add_node("read", memory_read_node(store, run=run))  # type: ignore[arg-type]
    builder.add_edge(START, "read")
    builder.add_edge("read", END)
    return builder.compile()


def test_the_async_read_node_gives_the_sync_nodes_block(store: MemoryStore) -> None:
    turn = {"messages": [HumanMessage("What pet does Alice have?")]}
    config = {"configurable": {"user_id": "alice"}}
    sync = _graph(store, "sync").invoke(turn, config)  # type: ignore[attr-defined]
    on_loop = asyncio.run(_graph(store, "async").ainvoke(turn, config))  # type: ignore[attr-defined]
    assert "Miso" in on_loop["memories"] and on_loop["memories"] == sync["memories"]


def test_a_read_node_run_it_cannot_be_is_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidArgumentError, match="run='threads'"):
        memory_read_node(store, run="threads")  # type: ignore[arg-type]
