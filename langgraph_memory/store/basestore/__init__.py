"""LangGraph's ``BaseStore`` on a MemoryStore.

``ops`` runs ``batch``'s ops (get, put, search, delete, list namespaces);
``namespaces`` holds the namespace checks and error; ``indexing`` reads
``IndexConfig``; ``ttl`` is LangGraph's TTL (the ``store.ttl`` sub-object);
``face`` is the BaseStore methods ``MemoryStore`` inherits, single async calls
gathered into one batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_memory.lazy import faces

if TYPE_CHECKING:
    from langgraph_memory.store.basestore.face import OpGatherer as OpGatherer
    from langgraph_memory.store.basestore.indexing import check_paths as check_paths
    from langgraph_memory.store.basestore.indexing import field_texts as field_texts
    from langgraph_memory.store.basestore.indexing import read_index as read_index
    from langgraph_memory.store.basestore.namespaces import (
        InvalidStoreNamespaceError as InvalidStoreNamespaceError,
    )
    from langgraph_memory.store.basestore.namespaces import (
        langgraph_namespace_errors as langgraph_namespace_errors,
    )
    from langgraph_memory.store.basestore.namespaces import namespace_tuple as namespace_tuple
    from langgraph_memory.store.basestore.ttl import TTL as TTL
    from langgraph_memory.store.basestore.ttl import check_minutes as check_minutes
    from langgraph_memory.store.basestore.ttl import check_ttl_config as check_ttl_config

#: Where each name the other rooms use lives: loaded on first use (PEP 562), so that
#: importing one module of the room loads no other.
_LAZY = {
    "InvalidStoreNamespaceError": "langgraph_memory.store.basestore.namespaces",
    "OpGatherer": "langgraph_memory.store.basestore.face",
    "TTL": "langgraph_memory.store.basestore.ttl",
    "check_minutes": "langgraph_memory.store.basestore.ttl",
    "check_paths": "langgraph_memory.store.basestore.indexing",
    "check_ttl_config": "langgraph_memory.store.basestore.ttl",
    "field_texts": "langgraph_memory.store.basestore.indexing",
    "langgraph_namespace_errors": "langgraph_memory.store.basestore.namespaces",
    "namespace_tuple": "langgraph_memory.store.basestore.namespaces",
    "read_index": "langgraph_memory.store.basestore.indexing",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = faces(__name__, _LAZY, globals())
