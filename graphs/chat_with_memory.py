"""A complete chat agent with long-term memory: read -> model with memory tools -> write.

Run it with ``langgraph dev`` from this folder (see ``langgraph.json``), or from Python::

    from graphs.chat_with_memory import build_chat_graph, MemoryStore
    graph = build_chat_graph(MemoryStore())
    graph.invoke({"messages": [("user", "I live in Pune.")]},
                 {"configurable": {"user_id": "alice", "thread_id": "1"}})

The chat model comes from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` when set; else an
offline stand-in answers from memory, and the offline rules model writes it.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from langgraph_memory import MemoryStore
from langgraph_memory.graph.agent import build_chat_graph

__all__ = ["MemoryStore", "build_chat_graph", "make_graph"]


@functools.lru_cache(maxsize=1)
def _graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    # One store per server process: it locks its directory.
    return build_chat_graph(MemoryStore())


async def make_graph(config: RunnableConfig) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The factory ``langgraph dev`` calls: the store opens on first use, not at import,
    and in a worker thread (the server refuses blocking file I/O on its event loop)."""
    return await asyncio.to_thread(_graph)
