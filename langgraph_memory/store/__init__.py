"""The Chroma-backed memory store.

>>> from langgraph_memory.store import MemoryStore, Hit
>>> strip_controls("pasted\\x0bfrom a terminal")
'pasted from a terminal'
"""

from langgraph_memory.checks import strip_controls
from langgraph_memory.store.memory_store import MemoryStore
from langgraph_memory.store.version import Hit

__all__ = ["Hit", "MemoryStore", "strip_controls"]
