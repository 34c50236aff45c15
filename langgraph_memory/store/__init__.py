"""The Chroma-backed memory store.

>>> from langgraph_memory.store import MemoryStore, Hit
"""

from langgraph_memory.store.memory_store import Hit, MemoryStore

__all__ = ["Hit", "MemoryStore"]
