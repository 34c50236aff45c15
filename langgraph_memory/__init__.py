"""Long-term memory for LangGraph agents, with a careful write path.

Importing the package loads nothing but its errors: each other name loads its
module (and Chroma, LangGraph, the embedder ...) when first used (PEP 562).

>>> from langgraph_memory import MemoryStore, Scope
>>> Scope.parse("user:alice").namespace
('user', 'alice')
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from langgraph_memory.errors import (
    AdminRequiredError,
    AmbiguousMemoryError,
    ChromaInternalsError,
    CompactionError,
    ConflictingPackageError,
    EmbedderError,
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidScopeError,
    InvalidTypeError,
    JournalError,
    LockConfigError,
    MemoryArchivedError,
    MemoryKitError,
    MemoryNotFoundError,
    MissingDependencyError,
    MissingScopeKeyError,
    MissingStateKeyError,
    ModelConfigError,
    ModelFileError,
    NestedPurgeError,
    QueueConfigError,
    QueueError,
    QueueFullError,
    ReviewDecidedError,
    ReviewInvalidError,
    ReviewNotFoundError,
    ScopeLockError,
    ScopeNotEmptyError,
    ScriptExhaustedError,
    StoreClosedError,
    StoreFormatError,
    StoreLockedError,
    WriterClosedError,
)
from langgraph_memory.install_check import check_install
from langgraph_memory.release import RELEASE

if TYPE_CHECKING:
    from langgraph_memory.graph.hooks import memory_hooks
    from langgraph_memory.graph.middleware import MemoryMiddleware
    from langgraph_memory.graph.nodes import memory_read_node, memory_write_node
    from langgraph_memory.graph.tools import memory_tools
    from langgraph_memory.graph.window import memory_window_node
    from langgraph_memory.graph.wiring import add_memory
    from langgraph_memory.read.async_reads import aretrieve
    from langgraph_memory.read.render import render
    from langgraph_memory.read.retrieve import Retrieved, retrieve
    from langgraph_memory.records import (
        Decision,
        DecisionOp,
        Kind,
        Memory,
        Review,
        ReviewStatus,
        Source,
        Status,
        Trust,
    )
    from langgraph_memory.scope import Scope, fill_namespace
    from langgraph_memory.store import Hit, InvalidStoreNamespaceError, MemoryStore
    from langgraph_memory.write.app_instructions import MemoryInstructions
    from langgraph_memory.write.background import BackgroundWriter
    from langgraph_memory.write.retention import Retention
    from langgraph_memory.write.types import Turn
    from langgraph_memory.write.writer import MemoryWriter

__version__ = RELEASE

# PyPI's `langgraph-memory` shares this import name: with both installed, fail here,
# saying what to run, rather than later on a name one of them lacks.
check_install()

#: Where each lazily loaded name lives.
_LAZY = {
    # the store and what it returns
    "MemoryStore": "langgraph_memory.store.memory_store",
    "Hit": "langgraph_memory.store.version",
    # also LangGraph's InvalidNamespaceError, so it lives beside LangGraph
    "InvalidStoreNamespaceError": "langgraph_memory.store.basestore.namespaces",
    # the write path
    "MemoryWriter": "langgraph_memory.write.writer",
    "MemoryInstructions": "langgraph_memory.write.app_instructions",
    "BackgroundWriter": "langgraph_memory.write.background",
    "Retention": "langgraph_memory.write.retention",
    "Turn": "langgraph_memory.write.types",
    # the read path
    "retrieve": "langgraph_memory.read.retrieve",
    "aretrieve": "langgraph_memory.read.async_reads",
    "Retrieved": "langgraph_memory.read.retrieve",
    "render": "langgraph_memory.read.render",
    # LangGraph
    "add_memory": "langgraph_memory.graph.wiring",
    "memory_read_node": "langgraph_memory.graph.nodes",
    "memory_write_node": "langgraph_memory.graph.nodes",
    "memory_tools": "langgraph_memory.graph.tools",
    "memory_window_node": "langgraph_memory.graph.window",
    "memory_hooks": "langgraph_memory.graph.hooks",
    "MemoryMiddleware": "langgraph_memory.graph.middleware",  # needs langchain
    # records
    "Scope": "langgraph_memory.scope",
    "fill_namespace": "langgraph_memory.scope",
    "Memory": "langgraph_memory.records",
    "Decision": "langgraph_memory.records",
    "DecisionOp": "langgraph_memory.records",
    "Review": "langgraph_memory.records",
    "ReviewStatus": "langgraph_memory.records",
    "Kind": "langgraph_memory.records",
    "Source": "langgraph_memory.records",
    "Status": "langgraph_memory.records",
    "Trust": "langgraph_memory.records",
}

__all__ = [
    "AdminRequiredError",
    "AmbiguousMemoryError",
    "BackgroundWriter",
    "ChromaInternalsError",
    "CompactionError",
    "ConflictingPackageError",
    "Decision",
    "DecisionOp",
    "EmbedderError",
    "EmbeddingMismatchError",
    "Hit",
    "InvalidArgumentError",
    "InvalidMemoryError",
    "InvalidScopeError",
    "InvalidStoreNamespaceError",
    "InvalidTypeError",
    "JournalError",
    "Kind",
    "LockConfigError",
    "Memory",
    "MemoryArchivedError",
    "MemoryInstructions",
    "MemoryKitError",
    "MemoryMiddleware",
    "MemoryNotFoundError",
    "MemoryStore",
    "MemoryWriter",
    "MissingDependencyError",
    "MissingScopeKeyError",
    "MissingStateKeyError",
    "ModelConfigError",
    "ModelFileError",
    "NestedPurgeError",
    "QueueConfigError",
    "QueueError",
    "QueueFullError",
    "Retention",
    "Retrieved",
    "Review",
    "ReviewDecidedError",
    "ReviewInvalidError",
    "ReviewNotFoundError",
    "ReviewStatus",
    "Scope",
    "ScopeLockError",
    "ScopeNotEmptyError",
    "ScriptExhaustedError",
    "Source",
    "Status",
    "StoreClosedError",
    "StoreFormatError",
    "StoreLockedError",
    "Trust",
    "Turn",
    "WriterClosedError",
    "__version__",
    "add_memory",
    "aretrieve",
    "fill_namespace",
    "memory_hooks",
    "memory_read_node",
    "memory_tools",
    "memory_window_node",
    "memory_write_node",
    "render",
    "retrieve",
]


#: Old names, answered with a DeprecationWarning until the release ``deprecation`` names.
_RENAMED = {"Op": ("langgraph_memory.records", "DecisionOp")}


def __getattr__(name: str) -> object:
    """Load a public name's module on first use, then keep the name here."""
    module = _LAZY.get(name)
    if module is None:
        from langgraph_memory.deprecation import renamed

        return renamed(__name__, name, _RENAMED)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
