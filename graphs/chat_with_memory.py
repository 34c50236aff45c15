"""A complete chat agent with long-term memory: read -> model with memory tools -> write.

Serve it with ``langgraph dev`` from this folder (``pip install "langgraph-cli[inmem]"``):
``langgraph.json`` declares the graph (``make_graph``) and the store (``make_store``),
so the Platform gives the graph this package's ``MemoryStore`` (at
``$LANGGRAPH_MEMORY_PATH``, else ``./.langgraph_memory``) and its store API
(``client.store.search_items(("user", "alice"))``) reads the same memories. The
graph has no store of its own: its nodes and tools use the one it runs with.

From Python::

    from graphs.chat_with_memory import build_chat_graph, MemoryStore
    graph = build_chat_graph(MemoryStore())
    graph.invoke({"messages": [("user", "I live in Pune.")]},
                 {"configurable": {"user_id": "alice", "thread_id": "1"}})

The chat model comes from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` when set; else an
offline stand-in answers from memory, and the offline rules model writes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from langgraph_memory import MemoryStore
from langgraph_memory.graph.agent import build_chat_graph

__all__ = ["MemoryStore", "build_chat_graph", "make_graph", "make_store"]


@functools.lru_cache(maxsize=1)
def _graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    return build_chat_graph()  # no store: the one the Platform runs it with


async def make_graph(config: RunnableConfig) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph factory ``langgraph dev`` calls, built in a worker thread (the server
    refuses blocking file I/O, imports included, on its event loop)."""
    return await asyncio.to_thread(_graph)


@contextlib.asynccontextmanager
async def make_store() -> AsyncIterator[MemoryStore]:
    """The custom store ``langgraph.json`` declares: opened once when the server starts
    (it locks its directory for this process), closed when it stops."""
    store = await asyncio.to_thread(MemoryStore)
    try:
        yield store
    finally:
        await asyncio.to_thread(store.close)
