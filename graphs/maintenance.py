"""Memory maintenance as a graph, for a LangGraph Platform cron.

``langgraph.json`` declares it as ``maintenance``, beside the chat graph and on the
same store (``make_store`` in ``chat_with_memory.py``): one node runs
``lifecycle.maintain`` (decay, consolidation of near-duplicates, reflection) over every
scope, or over ``input["scope"]``, and returns the report. Schedule it with the SDK::

    from langgraph_sdk import get_sync_client

    client = get_sync_client(url="http://127.0.0.1:2024")
    client.crons.create("maintenance", schedule="0 3 * * *", input={})   # 03:00 UTC daily

``input={"dry_run": True}`` reports what it would change and changes nothing. The
model that merges and reflects comes from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``,
else the offline rules merge exact duplicates only.

From Python, on any store::

    from graphs.maintenance import build_maintenance_graph
    build_maintenance_graph().invoke({}, ...)   # compiled with store=MemoryStore(...)
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from langgraph_memory.graph.run import GraphMemory
from langgraph_memory.lifecycle import maintain

__all__ = ["MaintenanceInput", "build_maintenance_graph", "make_graph"]


class MaintenanceInput(TypedDict, total=False):
    """What a run may say: one scope (``"user:alice"``; default every scope), a dry run."""

    scope: str
    dry_run: bool


class MaintenanceState(MaintenanceInput, total=False):
    """The input, and the report the run returns (``MaintenanceReport.to_dict()``)."""

    report: dict[str, Any]


_MEMORY = GraphMemory(who="the maintenance graph")


def run_maintenance(state: MaintenanceState, runtime: Runtime[Any]) -> dict[str, Any]:
    """Maintain the graph's store: the scope asked for, or every scope."""
    report = maintain(
        _MEMORY.store(runtime), state.get("scope"), dry_run=bool(state.get("dry_run", False))
    )
    return {"report": report.to_dict()}


def build_maintenance_graph(**compile_kwargs: Any) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The one-node graph; ``compile_kwargs`` go to ``compile`` (``store=``)."""
    builder = StateGraph(MaintenanceState, input_schema=MaintenanceInput)
    builder.add_node("maintain", run_maintenance)
    builder.add_edge(START, "maintain")
    builder.add_edge("maintain", END)
    return builder.compile(**compile_kwargs)


@functools.lru_cache(maxsize=1)
def _graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    return build_maintenance_graph()  # no store: the one the Platform runs it with


async def make_graph(config: RunnableConfig) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph factory ``langgraph dev`` calls, built in a worker thread."""
    return await asyncio.to_thread(_graph)
