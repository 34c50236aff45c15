"""A LangGraph agent with the memory as MCP tools, loaded by ``langchain-mcp-adapters``
from ``langgraph-memory mcp`` over stdio (a subprocess per run, as a LangGraph app
configures it): it remembers in one run and recalls in the next. The chat model is the
kit's scripted model (its tool calls) and stand-in (its answer from what the tool
returned): offline. In the slow tier: each run starts the command."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

from langgraph_memory.graph.stand_in import StandInChatModel
from langgraph_memory.graph.turns import message_text
from langgraph_memory.testing import ScriptedChatModel

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def answer_from_tool(messages: list[BaseMessage]) -> str:
    """The stand-in's answer to the user's question from what the last tool returned."""
    question = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
    found = next(m for m in reversed(messages) if isinstance(m, ToolMessage))
    reply = StandInChatModel().invoke([SystemMessage(message_text(found)), question])
    return str(reply.content)


def test_an_agent_remembers_in_one_run_and_recalls_in_the_next(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    client = MultiServerMCPClient(
        {
            "memory": {
                "transport": "stdio",
                "command": sys.executable,
                "args": [
                    "-m",
                    "langgraph_memory.cli",
                    "mcp",
                    "--path",
                    str(tmp_path / "m"),
                    "--user",
                    "alice",
                ],
                "env": {**env, "PYTHONPATH": str(ROOT)},
            }
        }
    )

    async def run(model: ScriptedChatModel, said: str) -> list[BaseMessage]:
        async with client.session("memory") as session:  # one server process per run
            tools = await load_mcp_tools(session)
            assert {t.name for t in tools} >= {"remember", "search_memories", "forget"}
            agent = create_agent(model, tools)
            out = await agent.ainvoke({"messages": [HumanMessage(said)]})
            return list(out["messages"])

    remembering = ScriptedChatModel(
        script=[
            AIMessage(
                "",
                tool_calls=[
                    {"name": "remember", "args": {"text": "I'm allergic to peanuts."}, "id": "c1"}
                ],
            ),
            "Noted.",
        ]
    )
    recalling = ScriptedChatModel(
        script=[
            AIMessage(
                "",
                tool_calls=[{"name": "search_memories", "args": {"query": "allergic"}, "id": "c2"}],
            ),
            answer_from_tool,
        ]
    )

    async def main() -> tuple[list[BaseMessage], list[BaseMessage]]:
        first = await run(remembering, "Remember that I'm allergic to peanuts.")
        second = await run(recalling, "What am I allergic to?")
        return first, second

    first, second = anyio.run(main)
    [queued] = [m for m in first if isinstance(m, ToolMessage)]
    assert message_text(queued).startswith("Queued to remember")
    [found] = [m for m in second if isinstance(m, ToolMessage)]
    assert '"User is allergic to peanuts."' in message_text(found)
    assert second[-1].content == "From what I remember: you are allergic to peanuts."
