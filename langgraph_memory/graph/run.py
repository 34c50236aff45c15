"""What memory takes from a graph run: the graph's own store, and a writer on it.

Nodes, tools, hooks and middleware built without a store use the store the graph
was compiled with (``graph.compile(store=...)``, ``create_agent(store=...)``, or
the store LangGraph Platform gives every graph it serves), found through the
run's ``Runtime``. That store must be a ``MemoryStore``: memory needs its
scopes, versions and ranking, which a plain ``BaseStore`` does not have.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph.runtime import Runtime
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> memory = GraphMemory(who="memory_read_node")
>>> memory.store(Runtime(store=store)) is store
True
>>> memory.store(None)
Traceback (most recent call last):
...
langgraph_memory.errors.InvalidArgumentError: memory_read_node has no store: ...
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.runtime import Runtime, get_runtime

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.scope import Scope
from langgraph_memory.write import MemoryInstructions, MemoryModel, MemoryWriter
from langgraph_memory.write.app_instructions import check_instructions
from langgraph_memory.write.types import Turn
from langgraph_memory.write.writer import memory_model

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from langgraph_memory.store import MemoryStore


class Submitter(Protocol):
    """What a deferred write needs: a queue that takes turns (BackgroundWriter)."""

    def submit(self, scope: Scope, messages: Turn) -> str:
        """Accept a turn for writing later; returns its id."""
        ...


@runtime_checkable
class PendingWrites(Protocol):
    """What read-your-writes needs: a queue that can wait for a scope's turns
    (BackgroundWriter)."""

    def wait(self, scope: Scope, timeout: float | None = None) -> bool:
        """Wait until the scope's accepted turns are written; False on timeout."""
        ...


def current_runtime() -> Runtime[Any] | None:
    """The ``Runtime`` of the graph run this code runs in, or None outside one.

    >>> current_runtime() is None
    True
    """
    try:
        return get_runtime()
    except (RuntimeError, KeyError):  # not inside a runnable, or a config without a run
        return None


def current_config() -> RunnableConfig:
    """The ``RunnableConfig`` of the run this code runs in, or ``{}`` outside one.

    >>> current_config()
    {}
    """
    try:
        return get_config()
    except RuntimeError:  # not inside a runnable
        return {}


class GraphMemory:
    """The store and writer a node, tool or middleware uses: those it was given
    (a writer brings its store), else the graph's own store and a ``MemoryWriter``
    on it with ``model`` (a chat model, a ``MemoryModel`` or ``"provider:model"``;
    None: the environment's, else the offline rules model) and ``instructions`` (what
    the app wants remembered: see ``MemoryInstructions``), made once.

    ``who`` names the caller in errors.
    """

    def __init__(
        self,
        store: MemoryStore | None = None,
        writer: MemoryWriter | Submitter | None = None,
        *,
        who: str,
        model: MemoryModel | BaseChatModel | str | None = None,
        instructions: str | MemoryInstructions | None = None,
    ) -> None:
        if store is not None and not isinstance(store, stores.MemoryStore):
            hint = " (a writer goes in writer=)" if store_of(store) is not None else ""
            raise InvalidTypeError(
                f"{who} needs a langgraph_memory MemoryStore, got {type(store).__name__}"
                f"{hint}: pass store=MemoryStore(...), or store=None to use the graph's own"
            )
        if model is not None and writer is not None:
            raise InvalidArgumentError(
                f"{who} takes model= or writer=, not both: a writer writes with its own model "
                "(MemoryWriter(store, model=...))"
            )
        if instructions is not None and writer is not None:
            raise InvalidArgumentError(
                f"{who} takes instructions= or writer=, not both: a writer extracts with its "
                "own instructions (MemoryWriter(store, instructions=...))"
            )
        self._given = store if store is not None else store_of(writer)
        self._writer = writer
        # The write path's model, checked now: None is the environment's, at the first write.
        self._model = None if model is None else memory_model(model)
        # Checked now too, not at the first turn's write.
        self._instructions = check_instructions(instructions)
        self._who = who
        self._lock = threading.Lock()
        self._made: tuple[MemoryStore, MemoryWriter] | None = None

    def store(self, runtime: Runtime[Any] | None) -> MemoryStore:
        """The store given, else the graph's (``runtime.store``)."""
        if self._given is not None:
            return self._given
        found = runtime.store if runtime is not None else None
        if found is None:
            raise InvalidArgumentError(
                f"{self._who} has no store: the graph was compiled without one and none was "
                "passed. Compile with store=MemoryStore(...) (graph.compile(store=...), "
                "create_agent(..., store=...)), or pass store= to it"
            )
        if not isinstance(found, stores.MemoryStore):
            raise InvalidArgumentError(
                f"the graph's store is a {type(found).__name__}, not a langgraph_memory "
                f"MemoryStore, so {self._who} cannot use it: compile the graph with "
                "store=MemoryStore(...) (on LangGraph Platform, declare it in langgraph.json: "
                '"store": {"path": ...}, see graphs/), or pass store= to it'
            )
        return found

    def writer(self, runtime: Runtime[Any] | None) -> MemoryWriter | Submitter:
        """The writer given, else a ``MemoryWriter`` on the graph's store."""
        if self._writer is not None:
            return self._writer
        return self.inline_writer(runtime)

    def inline_writer(self, runtime: Runtime[Any] | None) -> MemoryWriter:
        """A writer that writes now: the one given (a BackgroundWriter's own), else
        one on the store (made once per store)."""
        given = self._writer
        if isinstance(given, MemoryWriter):
            return given
        inner = getattr(given, "writer", None)  # a BackgroundWriter's MemoryWriter
        if isinstance(inner, MemoryWriter):
            return inner
        store = self.store(runtime)
        with self._lock:
            if self._made is None or self._made[0] is not store:
                self._made = (
                    store,
                    MemoryWriter(store, model=self._model, instructions=self._instructions),
                )
            return self._made[1]


def store_of(writer: object) -> MemoryStore | None:
    """The store a MemoryWriter (or a BackgroundWriter's) writes to, else None.

    >>> store_of(None) is None
    True
    """
    inner = getattr(writer, "writer", writer)
    found = getattr(inner, "store", None)
    return found if isinstance(found, stores.MemoryStore) else None
