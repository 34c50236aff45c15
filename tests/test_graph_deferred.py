"""Deferred writes in a graph: the next turn reads the last one (read-your-writes), a bound
on that wait, and nodes that leave the event loop free under ``ainvoke``."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import slow_writer
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage

from langgraph_memory import InvalidArgumentError, MemoryStore
from langgraph_memory.graph import MemoryState, add_memory, memory_read_node
from langgraph_memory.graph.agent import build_chat_graph
from langgraph_memory.graph.stand_in import StandInChatModel
from langgraph_memory.write import BackgroundWriter

ALICE = {"configurable": {"user_id": "alice", "thread_id": "t1"}}


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def chat_graph(store: MemoryStore, background: BackgroundWriter, **kw: Any) -> Any:
    from langgraph.graph import END, START, StateGraph

    seen: list[str] = []

    def agent(state: MemoryState) -> dict[str, Any]:
        seen.append(state.get("memories", ""))
        return {"messages": [AIMessage("Noted.")]}

    builder = StateGraph(MemoryState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    add_memory(builder, store=store, writer=background, write="deferred", **kw)
    graph = builder.compile()
    graph.seen = seen  # type: ignore[attr-defined]
    return graph


def test_the_next_turn_reads_what_the_last_deferred_turn_said(store: MemoryStore) -> None:
    # Each turn takes 0.3 s to write: without the wait, the next turn would read nothing.
    writer = slow_writer(store, lambda: time.sleep(0.3))
    with BackgroundWriter(writer, workers=1) as background:
        graph = chat_graph(store, background)
        graph.invoke({"messages": [("user", "I live in Pune.")]}, ALICE)
        graph.invoke({"messages": [("user", "Where do I live?")]}, ALICE)
        assert "User lives in Pune." in graph.seen[-1]


def test_the_chat_graph_reads_its_deferred_writes_under_ainvoke(store: MemoryStore) -> None:
    writer = slow_writer(store, lambda: time.sleep(0.3))

    async def two_turns(graph: Any) -> dict[str, Any]:
        await graph.ainvoke({"messages": [("user", "I'm vegan.")]}, ALICE)
        return await graph.ainvoke({"messages": [("user", "What do I eat?")]}, ALICE)

    with BackgroundWriter(writer, workers=1) as background:
        graph = build_chat_graph(store, StandInChatModel(), background, write="deferred")
        out = asyncio.run(two_turns(graph))
    assert "User is vegan." in out["memories"]


def test_the_wait_is_bounded_and_says_so(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    stuck = threading.Event()
    writer = slow_writer(store, lambda: stuck.wait(10))  # a model that does not answer
    with BackgroundWriter(writer, workers=1) as background:
        graph = chat_graph(store, background, wait_for_writes=0.2)
        graph.invoke({"messages": [("user", "I live in Pune.")]}, ALICE)
        started = time.monotonic()
        with caplog.at_level(logging.INFO, logger="langgraph_memory"):
            graph.invoke({"messages": [("user", "Where do I live?")]}, ALICE)
        assert 0.2 <= time.monotonic() - started < 5
        assert "User lives in Pune." not in graph.seen[-1]
        assert "still being written after 0.2 s" in caplog.text
        stuck.set()
    # wait_for_writes=0: no wait at all
    stuck.clear()
    with BackgroundWriter(writer, workers=1) as background:
        graph = chat_graph(store, background, wait_for_writes=0)
        graph.invoke({"messages": [("user", "I'm vegan.")]}, ALICE)
        started = time.monotonic()
        graph.invoke({"messages": [("user", "What do I eat?")]}, ALICE)
        assert time.monotonic() - started < 0.2 and "User is vegan." not in graph.seen[-1]
        stuck.set()


def test_middleware_and_hooks_read_their_deferred_writes_too(store: MemoryStore) -> None:
    from langchain_core.messages import HumanMessage

    from langgraph_memory.graph.read_write import reader_and_writer

    writer = slow_writer(store, lambda: time.sleep(0.3))
    with BackgroundWriter(writer, workers=1) as background:
        read, write = reader_and_writer(
            None, background, write="deferred", scope="user", k=5, who="test"
        )
        write([HumanMessage("I live in Pune."), AIMessage("Noted.")], ALICE, None)
        block = read({"messages": [HumanMessage("Where do I live?")]}, ALICE, None)
    assert "User lives in Pune." in block


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "2", True])
def test_wait_for_writes_is_checked(store: MemoryStore, bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="wait_for_writes must be a number"):
        memory_read_node(store, wait_for_writes=bad)


def test_memory_nodes_leave_the_event_loop_free_under_ainvoke(store: MemoryStore) -> None:
    """A read that blocks for 0.3 s (a slow store) does not stop the loop: a ticker
    on the same loop keeps ticking, and the node ran in a worker thread."""
    threads: list[int] = []

    def slow_query(state: Any) -> str:
        threads.append(threading.get_ident())
        time.sleep(0.3)
        return "Where do I live?"

    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(MemoryState)
    builder.add_node("agent", lambda state: {"messages": [AIMessage("Noted.")]})
    builder.add_node("memory_read", memory_read_node(store, query=slow_query))
    builder.add_edge(START, "memory_read")
    builder.add_edge("memory_read", "agent")
    builder.add_edge("agent", END)
    graph = builder.compile()

    async def run() -> tuple[float, int]:
        gaps: list[float] = []
        done = asyncio.Event()

        async def tick() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        ticker = asyncio.create_task(tick())
        await graph.ainvoke({"messages": [("user", "hi")]}, ALICE)
        done.set()
        await ticker
        return max(gaps), threading.get_ident()

    # A collection of a long test session's heap can itself stall the loop for longer than
    # the read; it is not what this test is about.
    gc.disable()
    try:
        longest, loop_thread = asyncio.run(run())
    finally:
        gc.enable()
    assert threads and threads[0] != loop_thread, "the node ran on the loop's thread"
    assert longest < 0.2, f"the loop stalled {longest * 1000:.0f} ms (the read blocks 300 ms)"
