"""The Chroma-backed memory store.

Each name loads its module on first use (PEP 562): importing this package loads
neither Chroma nor the store, so a graph module may name it and pay for Chroma
only when a ``MemoryStore`` is built.

``MemoryStore`` is the store (and a LangGraph ``BaseStore``); its ``reviews`` and
``ttl`` are a ``Reviews`` and a ``TTL``; ``internals(store)`` is the ``Internals``
handle the read and write paths use beneath its face. ``Hit`` is what a search
returns, ``Candidates`` what a fused read compares; ``Budget`` what a store's
``cache_mb`` keeps per person (``CACHE_MB_ENV`` sets it too); ``compact_directory``
compacts an embedded store's files after a purge made through a Chroma client the
store could not close; ``load_export`` reads an export file's bytes for
``MemoryStore.import_scope`` within bounds (UTF-8, size, nesting);
``strip_controls`` makes any text storable (the store refuses control characters);
``tokenize`` and ``date_words`` show how the lexical index sees a text (the terms of its
lexical index) and a date (the words a memory's event date is indexed under).
``BUCKET_SCOPES`` is how many small scopes share one bucket's collections, and
``PROMOTE_AT`` the versions past which a scope moves to collections of its own.
``add_people(store, {scope: items})`` stores many people's memories at once (people new
to the store a bucket's worth at a time). ``InvalidStoreNamespaceError`` is what the
BaseStore face raises for a namespace
LangGraph's stores refuse: LangGraph's ``InvalidNamespaceError`` and the package's
``InvalidScopeError`` at once.

>>> from langgraph_memory.store import MemoryStore, strip_controls, tokenize
>>> strip_controls("pasted\\x0bfrom a terminal")
'pasted from a terminal'
>>> tokenize("Caroline's painting classes")
['carolin', 'paint', 'class']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph_memory.checks import strip_controls
    from langgraph_memory.store.basestore import TTL, InvalidStoreNamespaceError
    from langgraph_memory.store.chroma import FORMAT as FORMAT
    from langgraph_memory.store.chroma import JOURNAL_FILE as JOURNAL_FILE
    from langgraph_memory.store.chroma import RELEASES as RELEASES
    from langgraph_memory.store.chroma import (
        MissingCollectionError as MissingCollectionError,
    )
    from langgraph_memory.store.chroma import (
        RawClient as RawClient,
    )
    from langgraph_memory.store.chroma import (
        chroma_server as chroma_server,
    )
    from langgraph_memory.store.chroma import compact_directory
    from langgraph_memory.store.chroma import try_lock as try_lock
    from langgraph_memory.store.chroma.layout import BUCKET_SCOPES as BUCKET_SCOPES
    from langgraph_memory.store.chroma.layout import PROMOTE_AT as PROMOTE_AT
    from langgraph_memory.store.data import (
        MigrationReport as MigrationReport,
    )
    from langgraph_memory.store.data import load_export
    from langgraph_memory.store.data import (
        upgrade as upgrade,
    )
    from langgraph_memory.store.engine import Candidates
    from langgraph_memory.store.engine import SharedQueue as SharedQueue
    from langgraph_memory.store.engine.budget import CACHE_MB_ENV as CACHE_MB_ENV
    from langgraph_memory.store.engine.budget import Budget
    from langgraph_memory.store.engine.scope_locks import IN_PROCESS as IN_PROCESS
    from langgraph_memory.store.engine.shared_queue import QUEUE_URL_ENV as QUEUE_URL_ENV
    from langgraph_memory.store.internals_face import Internals
    from langgraph_memory.store.memory_store import DEFAULT_PATH as DEFAULT_PATH
    from langgraph_memory.store.memory_store import PATH_ENV as PATH_ENV
    from langgraph_memory.store.memory_store import (
        MemoryStore,
        add_people,
        check_store,
        internals,
    )
    from langgraph_memory.store.reviews import Reviews
    from langgraph_memory.store.version import Hit
    from langgraph_memory.text import date_words, tokenize

#: Where each name lives.
_LAZY = {
    "DEFAULT_PATH": "langgraph_memory.store.memory_store",
    "PATH_ENV": "langgraph_memory.store.memory_store",
    "JOURNAL_FILE": "langgraph_memory.store.chroma.layout",
    "BUCKET_SCOPES": "langgraph_memory.store.chroma.layout",
    "PROMOTE_AT": "langgraph_memory.store.chroma.layout",
    "FORMAT": "langgraph_memory.store.chroma.formats",
    "RELEASES": "langgraph_memory.store.chroma.formats",
    "MigrationReport": "langgraph_memory.store.data.upgrade",
    "upgrade": "langgraph_memory.store.data.upgrade",
    "SharedQueue": "langgraph_memory.store.engine.shared_queue",
    "QUEUE_URL_ENV": "langgraph_memory.store.engine.shared_queue",
    "IN_PROCESS": "langgraph_memory.store.engine.scope_locks",
    "try_lock": "langgraph_memory.store.chroma.directory_lock",
    "MissingCollectionError": "langgraph_memory.store.chroma.door",
    "RawClient": "langgraph_memory.store.chroma.door",
    "chroma_server": "langgraph_memory.store.chroma.door",
    "TTL": "langgraph_memory.store.basestore.ttl",
    "Candidates": "langgraph_memory.store.engine.searches",
    "Budget": "langgraph_memory.store.engine.budget",
    "CACHE_MB_ENV": "langgraph_memory.store.engine.budget",
    "Hit": "langgraph_memory.store.version",
    "Internals": "langgraph_memory.store.internals_face",
    "InvalidStoreNamespaceError": "langgraph_memory.store.basestore.namespaces",
    "MemoryStore": "langgraph_memory.store.memory_store",
    "Reviews": "langgraph_memory.store.reviews",
    "add_people": "langgraph_memory.store.memory_store",
    "check_store": "langgraph_memory.store.memory_store",
    "compact_directory": "langgraph_memory.store.chroma.compaction",
    "date_words": "langgraph_memory.text",
    "internals": "langgraph_memory.store.memory_store",
    "load_export": "langgraph_memory.store.data.export_format",
    "strip_controls": "langgraph_memory.checks",
    "tokenize": "langgraph_memory.text",
}

__all__ = [
    "BUCKET_SCOPES",
    "PROMOTE_AT",
    "TTL",
    "Budget",
    "Candidates",
    "Hit",
    "Internals",
    "InvalidStoreNamespaceError",
    "MemoryStore",
    "Reviews",
    "add_people",
    "check_store",
    "compact_directory",
    "date_words",
    "internals",
    "load_export",
    "strip_controls",
    "tokenize",
]


def __getattr__(name: str) -> object:
    """Load a name's module on first use, then keep the name here."""
    module = _LAZY.get(name)
    if module is None:
        from langgraph_memory.deprecation import renamed

        return renamed(__name__, name, {})  # AttributeError, as Python raises it
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
