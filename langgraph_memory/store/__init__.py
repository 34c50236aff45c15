"""The Chroma-backed memory store.

>>> from langgraph_memory.store import MemoryStore, Hit
"""

from langgraph_memory.store.memory_store import MemoryStore
from langgraph_memory.store.version import Hit

__all__ = ["Hit", "MemoryStore"]
