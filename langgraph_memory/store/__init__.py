"""The Chroma-backed memory store.

``MemoryStore`` is the store (and a LangGraph ``BaseStore``); its ``reviews`` and
``ttl`` are a ``Reviews`` and a ``TTL``; ``internals(store)`` is the ``Internals``
handle the read and write paths use beneath its face. ``Hit`` is what a search
returns, ``Candidates`` what a fused read compares; ``compact_directory``
compacts an embedded store's files after a purge made through a Chroma client the
store could not close; ``load_export`` reads an export file's bytes for
``MemoryStore.import_scope`` within bounds (UTF-8, size, nesting);
``strip_controls`` makes any text storable (the store refuses control characters);
``tokenize`` and ``date_words`` show how ``keyword`` sees a text (the terms of its
lexical index) and a date (the words a memory's event date is indexed under).
``InvalidStoreNamespaceError`` is what the BaseStore face raises for a namespace
LangGraph's stores refuse: LangGraph's ``InvalidNamespaceError`` and the package's
``InvalidScopeError`` at once.

>>> from langgraph_memory.store import MemoryStore, Hit, compact_directory
>>> strip_controls("pasted\\x0bfrom a terminal")
'pasted from a terminal'
>>> tokenize("Caroline's painting classes")
['carolin', 'paint', 'class']
"""

from langgraph_memory.checks import strip_controls
from langgraph_memory.store.candidates import Candidates
from langgraph_memory.store.compaction import compact_directory
from langgraph_memory.store.export_format import load_export
from langgraph_memory.store.internals import Internals
from langgraph_memory.store.memory_store import MemoryStore, internals
from langgraph_memory.store.namespaces import InvalidStoreNamespaceError
from langgraph_memory.store.reviews import Reviews
from langgraph_memory.store.terms import date_words, tokenize
from langgraph_memory.store.ttl import TTL
from langgraph_memory.store.version import Hit

__all__ = [
    "TTL",
    "Candidates",
    "Hit",
    "Internals",
    "InvalidStoreNamespaceError",
    "MemoryStore",
    "Reviews",
    "compact_directory",
    "date_words",
    "internals",
    "load_export",
    "strip_controls",
    "tokenize",
]
