"""``add_memory``: wire the read node before, and the write node after, a node
of an existing ``StateGraph`` builder (and, with ``max_tokens``, the window node
that keeps the thread inside a token budget before the read node).

Edges that enter the node from outside its loop (from START, or from a node it
cannot reach) now pass through the read node; edges and conditional routes that
leave it for END now pass through the write node. A tool loop (agent -> tools ->
agent) is left alone, so memories are read once per turn and the turn is
written once, when it ends.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph.graph import END, START, StateGraph
>>> from langgraph_memory.graph.state import MemoryState
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write import MemoryWriter, RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> builder = StateGraph(MemoryState)
>>> _ = builder.add_node("agent", lambda state: {"messages": [("ai", "Noted.")]})
>>> _ = builder.add_edge(START, "agent")
>>> _ = builder.add_edge("agent", END)
>>> _ = add_memory(builder, writer=MemoryWriter(store, model=RulesModel()))
>>> graph = builder.compile(store=store)
>>> config = {"configurable": {"user_id": "a"}}
>>> _ = graph.invoke({"messages": [("user", "I live in Pune.")]}, config)
>>> [m.text for m in store.active("user:a", episodes=False)]
['User lives in Pune.']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from langgraph_memory.checks import check_instance
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.graph.nodes import (
    WAIT_FOR_WRITES_S,
    PendingWrites,
    Submitter,
    WriteTiming,
    memory_read_node,
    memory_write_node,
)
from langgraph_memory.graph.window import memory_window_node
from langgraph_memory.scope import ScopeSpec
from langgraph_memory.write import MemoryInstructions, MemoryModel, MemoryWriter

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore


def _reachable(builder: StateGraph[Any], start: str) -> set[str]:
    """Nodes reachable from ``start`` by edges and conditional routes.

    A route whose destinations are unknown (no path map) may go anywhere.
    """
    seen: set[str] = set()
    todo = [start]
    while todo:
        node = todo.pop()
        nexts = {b for a, b in builder.edges if a == node}
        for spec in builder.branches.get(node, {}).values():
            nexts |= set(spec.ends.values()) if spec.ends else set(builder.nodes) | {END}
        for n in nexts - seen:
            seen.add(n)
            todo.append(n)
    return seen


def add_memory(
    builder: StateGraph[Any],
    around: str = "agent",
    *,
    store: MemoryStore | None = None,
    writer: MemoryWriter | Submitter | None = None,
    model: MemoryModel | BaseChatModel | str | None = None,
    instructions: str | MemoryInstructions | None = None,
    scope: ScopeSpec = "user",
    k: int = 5,
    write: WriteTiming = "inline",
    into: str = "memories",
    read_name: str = "memory_read",
    write_name: str = "memory_write",
    wait_for_writes: float = WAIT_FOR_WRITES_S,
    max_tokens: int | None = None,
    summary_model: BaseChatModel | str | None = None,
    window_name: str = "memory_window",
) -> StateGraph[Any]:
    """Add memory around node ``around`` of ``builder`` (before ``compile``); returns it.

    The state schema needs a ``str`` key ``into`` for the rendered memories
    (``MemoryState`` has one) and ``messages``. ``store`` defaults to the store the
    graph is compiled with (``builder.compile(store=...)``); ``writer`` to a
    ``MemoryWriter`` on the store with ``model`` (any LangChain chat model, a
    ``MemoryModel`` or ``"provider:model"``; None: the environment's, else the offline
    rules model; a writer you pass brings its own) and ``instructions`` (what the app
    wants remembered: ``MemoryInstructions``). ``write`` says when
    the turn is written: ``"inline"`` (a MemoryWriter, before the graph returns) or
    ``"deferred"`` (a ``BackgroundWriter`` you pass, flush and close). With a
    ``BackgroundWriter``, the read node first waits up to ``wait_for_writes``
    seconds for the scope's queued turns (see ``memory_read_node``).

    ``max_tokens`` (None: off) adds ``memory_window_node`` before the read node: it
    folds the oldest turns into a summary (written by ``summary_model``, else
    extractive) to keep the thread within the budget, and, with a
    ``BackgroundWriter``, never folds a turn still being written.

    Args:
        builder: the ``StateGraph`` to add memory to, before ``compile``; its state
            needs ``messages`` and a ``str`` key ``into``.
        around: the node to wrap: the read node goes before it, the write node after
            it (when it ends the turn).
        store: where memories are read; None: the store the graph is compiled with.
        writer: a ``MemoryWriter`` (``write="inline"``) or a ``BackgroundWriter``
            (``write="deferred"``; you flush and close it). None: a ``MemoryWriter``
            with ``model`` on ``store``, else on the graph's store.
        model: the write path's model, for the writer made here: a LangChain chat
            model, a ``MemoryModel`` or ``"provider:model"``; None: the
            environment's, else the offline rules model. Not with ``writer``.
        instructions: what the app wants remembered, for the writer made here: a
            str of guidance for a chat model, or ``MemoryInstructions`` (guidance,
            topics to keep and to skip, applied to any model's facts); None: none.
            Not with ``writer`` (pass ``MemoryWriter(store, instructions=...)``).
        scope: whose memory a run reads and writes: a scope kind, whose id the run
            names in ``configurable`` or its context (``"user"``: ``user_id``;
            ``"session"``: ``thread_id``; ``"agent"``: ``agent_id``), or a
            namespace template like ``("memories", "{user_id}")``.
        k: how many memories a read returns besides the pinned ones, 1 to 10,000.
        write: when the turn is written: ``"inline"`` (before the graph returns)
            or ``"deferred"`` (queued on the ``BackgroundWriter``).
        into: the state key the read node writes the memories to, as a prompt
            block (see ``render``).
        read_name: the read node's name; it must be new to the graph.
        write_name: the write node's name; it must be new to the graph.
        wait_for_writes: the most seconds a read (and the window) waits for the
            scope's turns still queued on a ``BackgroundWriter`` (0: no wait).
        max_tokens: the thread's budget in tokens, at least 64: adds the window
            node; None: no window.
        summary_model: the chat model (or ``"provider:model"``) that writes the
            window's summary; None: an extractive summary, offline.
        window_name: the window node's name (with ``max_tokens``); it must be new
            to the graph.

    Returns:
        ``builder`` itself, changed in place: compile it.

    Raises:
        InvalidArgumentError: ``around`` is no node of the graph, the state has no
            ``into`` key, a node name is taken, ``writer`` is given with ``model``
            or ``instructions``, a conditional edge out of ``around`` has no path
            map, or a number is out of range.
        InvalidTypeError: ``builder`` is not a ``StateGraph``, ``writer`` cannot
            do ``write``, or ``instructions`` is neither a str nor
            ``MemoryInstructions``.
    """
    check_instance(builder, StateGraph, "builder", "pass the StateGraph before compile()")
    if around not in builder.nodes:
        raise InvalidArgumentError(
            f"the graph has no node {around!r}; nodes: {sorted(builder.nodes)}"
        )
    if into not in builder.channels:
        raise InvalidArgumentError(
            f"the graph's state has no {into!r} key for the memories: add `{into}: str` to "
            "your state schema, or build the graph on langgraph_memory.graph.MemoryState"
        )
    window: Any = memory_window_node(
        max_tokens,
        model=summary_model,
        writes=writer if isinstance(writer, PendingWrites) else None,
        scope=scope,
        wait_for_writes=wait_for_writes,
    )  # built (and its arguments checked) before the builder changes
    names = (
        (read_name, write_name, window_name) if max_tokens is not None else (read_name, write_name)
    )
    for name in names:
        if name in builder.nodes:
            raise InvalidArgumentError(f"the graph already has a node {name!r}; pass another name")
    if model is not None and writer is not None:
        raise InvalidArgumentError(
            "add_memory takes model= or writer=, not both: a writer writes with its own model "
            "(MemoryWriter(store, model=...))"
        )
    if instructions is not None and writer is not None:
        raise InvalidArgumentError(
            "add_memory takes instructions= or writer=, not both: a writer extracts with its "
            "own instructions (MemoryWriter(store, instructions=...))"
        )
    if writer is None and store is not None:
        writer = MemoryWriter(store, model=model, instructions=instructions)
        model, instructions = None, None
    # LangGraph's add_node overloads describe node protocols mypy cannot match to a
    # plain (state, config) function; at run time it inspects the signature.
    writes = writer if isinstance(writer, PendingWrites) else None
    read: Any = memory_read_node(
        store, scope=scope, k=k, into=into, writes=writes, wait_for_writes=wait_for_writes
    )
    write_node: Any = memory_write_node(
        writer, scope=scope, write=write, model=model, instructions=instructions
    )
    builder.add_node(read_name, read)
    builder.add_node(write_name, write_node)
    # The turn enters through the window (when there is one), then the read node.
    entry = read_name
    if max_tokens is not None:
        builder.add_node(window_name, window)
        builder.add_edge(window_name, read_name)
        entry = window_name

    in_loop = _reachable(builder, around)
    for a, b in list(builder.edges):
        if b == around and (a == START or a not in in_loop):
            builder.edges.discard((a, b))
            builder.edges.add((a, entry))
        if a == around and b == END:
            builder.edges.discard((a, b))
            builder.edges.add((around, write_name))
    builder.add_edge(read_name, around)
    builder.add_edge(write_name, END)

    branches = builder.branches.get(around, {})
    for name, spec in list(branches.items()):
        if spec.ends is None:
            raise InvalidArgumentError(
                f"the conditional edge {name!r} out of {around!r} has no path map, so it is "
                f"unknown where the turn ends; pass path_map= to add_conditional_edges"
            )
        ends = {key: (write_name if dest == END else dest) for key, dest in spec.ends.items()}
        branches[name] = spec._replace(ends=ends)
    return builder
