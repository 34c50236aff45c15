"""The Chroma-backed memory store.

``MemoryStore`` is the store (and a LangGraph ``BaseStore``); ``Hit`` is what
its searches return, ``Candidates`` what a fused read compares; ``compact_directory``
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
from langgraph_memory.store.memory_store import MemoryStore
from langgraph_memory.store.namespaces import InvalidStoreNamespaceError
from langgraph_memory.store.version import Hit
from langgraph_memory.text import date_words, tokenize

__all__ = [
    "Candidates",
    "Hit",
    "InvalidStoreNamespaceError",
    "MemoryStore",
    "compact_directory",
    "date_words",
    "load_export",
    "strip_controls",
    "tokenize",
]
