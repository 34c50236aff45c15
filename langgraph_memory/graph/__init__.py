"""LangGraph integration: read and write nodes, memory tools, ``add_memory``, the
``create_react_agent`` hooks, (with langchain installed) ``MemoryMiddleware``, and
``build_chat_graph``, a complete chat agent with memory.

>>> from langgraph_memory.graph import MemoryState, add_memory, memory_read_node, memory_tools
>>> from langgraph_memory.graph import MemoryMiddleware, memory_hooks
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from langgraph_memory.graph.agent import build_chat_graph
from langgraph_memory.graph.hooks import memory_hooks
from langgraph_memory.graph.nodes import memory_read_node, memory_write_node
from langgraph_memory.graph.offline import OfflineChatModel
from langgraph_memory.graph.state import MemoryState
from langgraph_memory.graph.tools import memory_tools
from langgraph_memory.graph.wiring import add_memory

if TYPE_CHECKING:
    from langgraph_memory.graph.middleware import MemoryMiddleware

__all__ = [
    "MemoryMiddleware",
    "MemoryState",
    "OfflineChatModel",
    "add_memory",
    "build_chat_graph",
    "memory_hooks",
    "memory_read_node",
    "memory_tools",
    "memory_write_node",
]


def __getattr__(name: str) -> object:
    """``MemoryMiddleware`` loads langchain, which this package does not depend on:
    only on first use."""
    if name != "MemoryMiddleware":
        raise AttributeError(f"module 'langgraph_memory.graph' has no attribute {name!r}")
    value = importlib.import_module("langgraph_memory.graph.middleware").MemoryMiddleware
    globals()[name] = value
    return value
