"""The whole agent graph through ChatOpenAI and real HTTP: the agent model (with memory
tools), the write path's extraction and reconciliation, all served by the scripted
OpenAI-compatible server on 127.0.0.1 (tests/openai_stub.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from openai_stub import OpenAIStub

from langgraph_memory import DecisionOp, MemoryStore
from langgraph_memory.graph.agent import build_chat_graph

ALICE = {"configurable": {"user_id": "alice", "thread_id": "t1"}}


def kind(body: dict[str, Any]) -> str:
    """Which part of the system sent a request: extract, reconcile or the agent."""
    choice = body.get("tool_choice")
    forced = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    return {"ExtractionOutput": "extract", "ReconcileOutput": "reconcile"}.get(
        forced or "", "agent"
    )


class Script:
    """Answers by kind of request, each kind from its own queue."""

    def __init__(self, **queues: list[Any]) -> None:
        self.queues = {k: list(v) for k, v in queues.items()}
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        k = kind(body)
        self.seen.append((k, body))
        return self.queues[k].pop(0)


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        yield s


def test_agent_calls_remember_and_the_next_turn_reads_it(
    stub: OpenAIStub, store: MemoryStore
) -> None:
    fact = {"facts": [{"text": "User prefers metric units.", "importance": 6, "speaker": "user"}]}
    script = Script(
        agent=[
            {"text": "I prefer metric units"},  # offered tools: the stub calls the first, remember
            "Done, I will use metric units.",
            "You prefer metric units.",
        ],
        extract=[fact, fact],
        # The tool's remember finds an empty scope: added without a reconcile call.
        reconcile=[{"op": "NOOP", "id": 0, "text": None}],  # the write node sees the same fact
    )
    stub.default = script
    graph = build_chat_graph(store)  # agent model and writer both from the environment
    out = graph.invoke({"messages": [("user", "Please remember I prefer metric units.")]}, ALICE)
    [memory] = store.active("user:alice", episodes=False)
    tool_reply = out["messages"][2]
    assert tool_reply.type == "tool" and tool_reply.content == (
        f"Remembered [{memory.id}]: User prefers metric units."
    )
    assert memory.source.value == "explicit"
    assert [d.op for d in store.decisions("user:alice")] == [DecisionOp.ADD, DecisionOp.NOOP]
    agent_requests = [b for k, b in script.seen if k == "agent"]
    assert {t["function"]["name"] for t in agent_requests[0]["tools"]} == {
        "remember",
        "forget",
        "recall",
    }
    assert all(
        "scope" not in t["function"]["parameters"]["properties"] for t in agent_requests[0]["tools"]
    )

    before = len(script.seen)
    out = graph.invoke({"messages": [("user", "What units do I like?")]}, ALICE)
    assert [k for k, _ in script.seen[before:]] == ["agent"], "a plain question costs no write call"
    assert out["messages"][-1].content == "You prefer metric units."
    system = [b for k, b in script.seen if k == "agent"][-1]["messages"][0]["content"]
    assert "User prefers metric units." in system and "may be outdated" in system
    assert all(not q for q in script.queues.values()), "every scripted answer was used"
    assert {b["model"] for _, b in script.seen} == {"stub-model"}
