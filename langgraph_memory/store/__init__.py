"""The Chroma-backed memory store.

``MemoryStore`` is the store (and a LangGraph ``BaseStore``); ``Hit`` is what
its searches return; ``compact_directory`` compacts an embedded store's files
after a purge made through a Chroma client the store could not close.

>>> from langgraph_memory.store import MemoryStore, Hit, compact_directory
"""

from langgraph_memory.store.compaction import compact_directory
from langgraph_memory.store.memory_store import MemoryStore
from langgraph_memory.store.version import Hit

__all__ = ["Hit", "MemoryStore", "compact_directory"]
