"""Long-term memory for LangGraph agents, with a careful write path.

Importing the package does no work: models and stores load when first used.

>>> from langgraph_memory import MemoryStore, Scope
>>> Scope.parse("user:alice").namespace
('user', 'alice')
"""

from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.errors import (
    AmbiguousMemoryError,
    CompactionError,
    EmbedderError,
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidScopeError,
    MemoryArchivedError,
    MemoryKitError,
    MemoryNotFoundError,
    MissingScopeKeyError,
    ModelConfigError,
    ScopeNotEmptyError,
    StoreClosedError,
    StoreLockedError,
)
from langgraph_memory.model import Decision, Kind, Memory, Op, Source, Status, Trust
from langgraph_memory.scope import Scope
from langgraph_memory.store import Hit, MemoryStore
from langgraph_memory.write import BackgroundWriter, MemoryWriter

__version__ = "0.1.0"

__all__ = [
    "AmbiguousMemoryError",
    "BackgroundWriter",
    "CompactionError",
    "Decision",
    "EmbedderError",
    "EmbeddingMismatchError",
    "Hit",
    "InvalidArgumentError",
    "InvalidMemoryError",
    "InvalidScopeError",
    "Kind",
    "LocalMiniLM",
    "Memory",
    "MemoryArchivedError",
    "MemoryKitError",
    "MemoryNotFoundError",
    "MemoryStore",
    "MemoryWriter",
    "MissingScopeKeyError",
    "ModelConfigError",
    "Op",
    "Scope",
    "ScopeNotEmptyError",
    "Source",
    "Status",
    "StoreClosedError",
    "StoreLockedError",
    "Trust",
    "__version__",
]
