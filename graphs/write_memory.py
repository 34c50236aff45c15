"""The deferred write as a LangGraph Platform background run, queued per scope.

``langgraph.json`` declares it as ``write_memory``, on the same store as the chat
graph (``make_store`` in ``chat_with_memory.py``): one node runs the write path
(``MemoryWriter.write_turn``) for one turn and returns the decisions. The app answers
first, then hands the turn to the server's own run queue::

    from langgraph_sdk import get_sync_client
    from graphs.write_memory import write_later

    client = get_sync_client(url="http://127.0.0.1:2024")
    write_later(client, "user:alice", [{"role": "user", "content": "I moved to Pune."}])

``write_later`` creates a background run on the scope's own thread (``uuid5`` of the
scope key) with ``multitask_strategy="enqueue"``: the server starts a thread's runs one
at a time, oldest first, so one scope's turns apply in the order they were sent, while
other scopes' threads run beside it: up to ``N_JOBS_PER_WORKER`` runs at once, chat runs
included (``langgraph dev`` runs one unless given ``--n-jobs-per-worker``), and a scope
with a long backlog can hold the others back. What it rests on, what it does not give:
``docs/platform.md``.

The model that writes comes from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``, else the
offline rules model (as in the chat graph).
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.channels import EphemeralValue
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from typing_extensions import NotRequired

from langgraph_memory.graph.run import GraphMemory
from langgraph_memory.scope import Scope, ScopeLike

if TYPE_CHECKING:  # the SDK is the app's, not the server's, dependency
    from langgraph_sdk.client import SyncLangGraphClient

__all__ = ["WriteInput", "build_write_graph", "make_graph", "scope_thread_id", "write_later"]


class WriteInput(TypedDict):
    """One turn to learn from: its scope (``"user:alice"``), its messages (dicts with
    ``role`` and ``content``), and optionally its id (a run retried with the same id
    applies nothing twice) and its time (ISO 8601 with a zone; default: when the run
    starts, which may be later than the turn).

    Each key is an ``EphemeralValue``: a thread keeps its state from run to run, and
    a plain key left out of one run's input would still hold the previous turn's
    value (its ``turn_id`` would make this turn look written already).
    """

    scope: Annotated[str, EphemeralValue(str)]
    messages: Annotated[list[dict[str, Any]], EphemeralValue(list)]
    turn_id: NotRequired[Annotated[str, EphemeralValue(str)]]
    when: NotRequired[Annotated[str, EphemeralValue(str)]]


class WriteState(WriteInput, total=False):
    """The input, and what the run returns: the turn's id and its decisions
    (``Decision.to_dict()``, in order)."""

    decisions: list[dict[str, Any]]


_MEMORY = GraphMemory(who="the write_memory graph")


def write_turn(state: WriteState, runtime: Runtime[Any]) -> dict[str, Any]:
    """Learn from the turn on the graph's store (the Platform's, from langgraph.json)."""
    when = datetime.fromisoformat(state["when"]) if "when" in state else None
    decisions = _MEMORY.inline_writer(runtime).write_turn(
        state["scope"], state["messages"], now=when, turn_id=state.get("turn_id")
    )
    return {"decisions": [d.to_dict() for d in decisions]}


def build_write_graph(**compile_kwargs: Any) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The one-node graph; ``compile_kwargs`` go to ``compile`` (``store=``)."""
    builder = StateGraph(WriteState, input_schema=WriteInput)
    builder.add_node("write", write_turn)
    builder.add_edge(START, "write")
    builder.add_edge("write", END)
    return builder.compile(**compile_kwargs)


@functools.lru_cache(maxsize=1)
def _graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    return build_write_graph()  # no store: the one the Platform runs it with


async def make_graph(config: RunnableConfig) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph factory ``langgraph dev`` calls, built in a worker thread."""
    return await asyncio.to_thread(_graph)


def scope_thread_id(scope: ScopeLike) -> str:
    """The thread a scope's writes queue on: the same for every process and every
    restart (a name-based uuid5 of the scope's key), so all of them queue one scope's
    turns together."""
    # The name must never change: a scope's next turn would queue on a new thread,
    # beside (not behind) the turns still queued on the old one.
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"langgraph-memory:{Scope.of(scope).key}"))


def write_later(
    client: SyncLangGraphClient,
    scope: ScopeLike,
    messages: list[dict[str, Any]],
    *,
    turn_id: str | None = None,
    when: datetime | None = None,
) -> dict[str, Any]:
    """Queue one turn's write as a background run on the scope's thread and return
    the run (``run_id``, ``thread_id``, ``status``) without waiting for it.

    ``if_not_exists="create"`` makes the thread with the scope's first turn;
    ``multitask_strategy="enqueue"`` queues the run behind the scope's running and
    pending ones (said outright: the SDK's own default is the server's, and "reject"
    would refuse it). ``when`` defaults to now: the turn's time, not the (later) time
    the run starts. ``turn_id`` defaults to a new id, fixed here rather than in the
    run: a run the server starts again (after a crash) then writes nothing twice.
    """
    turn: dict[str, Any] = {
        "scope": Scope.of(scope).key,
        "messages": messages,
        "turn_id": turn_id or uuid.uuid4().hex,
        "when": (when or datetime.now(timezone.utc)).isoformat(),
    }
    run: dict[str, Any] = dict(
        client.runs.create(
            scope_thread_id(scope),
            "write_memory",
            input=turn,
            multitask_strategy="enqueue",
            if_not_exists="create",
        )
    )
    return run
