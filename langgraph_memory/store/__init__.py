"""The Chroma-backed memory store.

``MemoryStore`` is the store (and a LangGraph ``BaseStore``); ``Hit`` is what
its searches return; ``compact_directory`` compacts an embedded store's files
after a purge made through a Chroma client the store could not close;
``strip_controls`` makes any text storable (the store refuses control characters).

>>> from langgraph_memory.store import MemoryStore, Hit, compact_directory
>>> strip_controls("pasted\\x0bfrom a terminal")
'pasted from a terminal'
"""

from langgraph_memory.checks import strip_controls
from langgraph_memory.store.compaction import compact_directory
from langgraph_memory.store.memory_store import MemoryStore
from langgraph_memory.store.version import Hit

__all__ = ["Hit", "MemoryStore", "compact_directory", "strip_controls"]
