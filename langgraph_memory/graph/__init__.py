"""LangGraph integration: read and write nodes, the working-memory window node,
memory tools, ``add_memory``, the ``create_react_agent`` hooks, (with langchain
installed) ``MemoryMiddleware``, and ``build_chat_graph``, a complete chat agent
with memory.

>>> from langgraph_memory.graph import MemoryState, add_memory, memory_read_node, memory_tools
>>> from langgraph_memory.graph import memory_window_node
>>> from langgraph_memory.graph import MemoryMiddleware, memory_hooks
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph_memory.graph.agent import build_chat_graph
    from langgraph_memory.graph.hooks import memory_hooks
    from langgraph_memory.graph.middleware import MemoryMiddleware
    from langgraph_memory.graph.nodes import memory_read_node, memory_write_node
    from langgraph_memory.graph.stand_in import StandInChatModel
    from langgraph_memory.graph.state import MemoryState
    from langgraph_memory.graph.tools import memory_tools
    from langgraph_memory.graph.window import memory_window_node
    from langgraph_memory.graph.wiring import add_memory

#: Where each name lives: loaded on first use (PEP 562), so that importing one of
#: them does not load the others (``MemoryMiddleware`` needs langchain, which this
#: package does not depend on; ``build_chat_graph`` builds a store).
_LAZY = {
    "MemoryMiddleware": "langgraph_memory.graph.middleware",
    "MemoryState": "langgraph_memory.graph.state",
    "StandInChatModel": "langgraph_memory.graph.stand_in",
    "add_memory": "langgraph_memory.graph.wiring",
    "build_chat_graph": "langgraph_memory.graph.agent",
    "memory_hooks": "langgraph_memory.graph.hooks",
    "memory_read_node": "langgraph_memory.graph.nodes",
    "memory_tools": "langgraph_memory.graph.tools",
    "memory_window_node": "langgraph_memory.graph.window",
    "memory_write_node": "langgraph_memory.graph.nodes",
}

#: Old names, answered with a DeprecationWarning until the release ``deprecation`` names.
_RENAMED = {"OfflineChatModel": ("langgraph_memory.graph.stand_in", "StandInChatModel")}

__all__ = [
    "MemoryMiddleware",
    "MemoryState",
    "StandInChatModel",
    "add_memory",
    "build_chat_graph",
    "memory_hooks",
    "memory_read_node",
    "memory_tools",
    "memory_window_node",
    "memory_write_node",
]


def __getattr__(name: str) -> object:
    """Load a public name's module on first use, then keep the name here."""
    module = _LAZY.get(name)
    if module is None:
        from langgraph_memory.deprecation import renamed

        return renamed(__name__, name, _RENAMED)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
