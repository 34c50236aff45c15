"""LangGraph integration: read and write nodes, memory tools, and ``add_memory``.

>>> from langgraph_memory.graph import MemoryState, add_memory, memory_read_node, memory_tools
"""

from langgraph_memory.graph.nodes import memory_read_node, memory_write_node
from langgraph_memory.graph.offline import OfflineChatModel
from langgraph_memory.graph.state import MemoryState
from langgraph_memory.graph.tools import memory_tools
from langgraph_memory.graph.wiring import add_memory

__all__ = [
    "MemoryState",
    "OfflineChatModel",
    "add_memory",
    "memory_read_node",
    "memory_tools",
    "memory_write_node",
]
