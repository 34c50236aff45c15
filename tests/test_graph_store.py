"""Your own StateGraph: nodes and tools built without a store use the graph's own
(``compile(store=...)``); the scope comes from ``configurable`` or the runtime
context (``context_schema``), or fills a namespace template."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.store.memory import InMemoryStore

from langgraph_memory import (
    InvalidArgumentError,
    InvalidScopeError,
    MemoryStore,
    MissingScopeKeyError,
    Scope,
    fill_namespace,
)
from langgraph_memory.graph import MemoryState, add_memory, memory_read_node, memory_tools
from langgraph_memory.graph.agent import build_chat_graph
from langgraph_memory.graph.offline import OfflineChatModel
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import MemoryWriter, RulesModel


@dataclass
class Ctx:
    user_id: str


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No chat model in the environment: a writer made by the graph uses the rules model."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def storeless_graph(chat: ScriptedChatModel, seen: list[str], **memory: Any) -> Any:
    """agent <-> tools with memory, none of it given a store: compile(store=) decides."""
    tools = memory_tools()
    bound = chat.bind_tools(tools)

    def agent(state: MemoryState) -> dict[str, Any]:
        seen.append(state["memories"])
        return {"messages": [bound.invoke([SystemMessage(state["memories"]), *state["messages"]])]}

    builder = StateGraph(MemoryState, context_schema=Ctx)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return add_memory(builder, "agent", **memory)


def test_nodes_and_tools_use_the_graphs_store_and_the_runtime_context(
    store: MemoryStore,
) -> None:
    chat = ScriptedChatModel(
        script=[
            AIMessage(
                "", tool_calls=[{"name": "remember", "args": {"text": "I'm vegan"}, "id": "1"}]
            ),
            AIMessage("Noted."),
        ],
        default="Noted.",
    )
    seen: list[str] = []
    builder = storeless_graph(chat, seen, writer=MemoryWriter(store, model=RulesModel()))
    graph = builder.compile(store=store)
    graph.invoke({"messages": [("user", "I live in Pune. Note I'm vegan.")]}, context=Ctx("alice"))
    assert sorted(m.text for m in store.active("user:alice", episodes=False)) == [
        "User is vegan.",
        "User lives in Pune.",
    ], "the tool and the write node wrote to alice's scope of the graph's store"
    graph.invoke({"messages": [("user", "Where do I live?")]}, context=Ctx("alice"))
    assert "User lives in Pune." in seen[-1], "the read node read the graph's store"
    graph.invoke({"messages": [("user", "Where do I live?")]}, context=Ctx("bob"))
    assert "Pune" not in seen[-1]


def test_without_any_store_the_nodes_make_their_writer_on_the_graphs(
    store: MemoryStore, offline: None
) -> None:
    seen: list[str] = []
    graph = storeless_graph(ScriptedChatModel(default="Noted."), seen).compile(store=store)
    graph.invoke({"messages": [("user", "I live in Pune.")]}, context=Ctx("alice"))
    assert [m.text for m in store.active("user:alice", episodes=False)] == ["User lives in Pune."]


def test_a_graph_without_a_memory_store_gets_a_clear_error(store: MemoryStore) -> None:
    graph = storeless_graph(ScriptedChatModel(default="Noted."), []).compile()
    with pytest.raises(InvalidArgumentError, match=r"memory_read_node has no store.*compile"):
        graph.invoke({"messages": [("user", "Hi.")]}, context=Ctx("alice"))
    graph = storeless_graph(ScriptedChatModel(default="Noted."), []).compile(store=InMemoryStore())
    with pytest.raises(InvalidArgumentError, match="InMemoryStore, not a langgraph_memory"):
        graph.invoke({"messages": [("user", "Hi.")]}, context=Ctx("alice"))


def test_the_chat_graph_is_compiled_with_its_store(store: MemoryStore) -> None:
    graph = build_chat_graph(store, OfflineChatModel(), MemoryWriter(store, model=RulesModel()))
    assert graph.store is store, "LangGraph (and the Platform's store API) see the store"
    graph.invoke({"messages": [("user", "I live in Pune.")]}, {"configurable": {"user_id": "a"}})
    assert [m.text for m in store.active("user:a", episodes=False)] == ["User lives in Pune."]


def test_a_read_node_with_a_namespace_template(store: MemoryStore) -> None:
    store.add("org:acme", "The team ships on Fridays.")
    node = memory_read_node(store, scope=("org", "{org_id}"))
    state = {"messages": [HumanMessage("When do we ship?")]}
    out = node(state, {"configurable": {"org_id": "acme"}})
    assert "ships on Fridays" in out["memories"]


def test_scope_resolution_reads_configurable_and_context() -> None:
    config = {"configurable": {"user_id": "alice"}}
    assert Scope.from_config(config, "user") == Scope("user", "alice")
    assert Scope.from_config({}, "user", context=Ctx("alice")) == Scope("user", "alice")
    assert Scope.from_config(config, "user", context=Ctx("alice")) == Scope("user", "alice")
    with pytest.raises(InvalidScopeError, match="set it in one place"):
        Scope.from_config(config, "user", context=Ctx("bob"))
    with pytest.raises(MissingScopeKeyError, match=r"neither config.*nor the runtime context"):
        Scope.from_config({}, "user", context={"org_id": "acme"})


def test_fill_namespace_like_langmem() -> None:
    assert fill_namespace("memories") == ("memories",)
    assert fill_namespace(("memories", "{user_id}"), context=Ctx("al")) == ("memories", "al")
    with pytest.raises(MissingScopeKeyError, match="needs 'user_id'"):
        fill_namespace(("memories", "{user_id}"), {"configurable": {}})
    with pytest.raises(InvalidScopeError, match="one whole placeholder"):
        fill_namespace(("memories", "user-{user_id}"), {"configurable": {"user_id": "a"}})
    with pytest.raises(InvalidScopeError, match="must be a str or an int"):
        fill_namespace(("m", "{user_id}"), {"configurable": {"user_id": ["a"]}})


def test_the_writer_is_made_once_per_graph_store(store: MemoryStore, offline: None) -> None:
    from langgraph.runtime import Runtime

    from langgraph_memory.graph.run import GraphMemory

    memory = GraphMemory(who="test")
    first = memory.writer(Runtime(store=store))
    assert memory.writer(Runtime(store=store)) is first
    assert first.store is store  # type: ignore[union-attr]
