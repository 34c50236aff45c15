"""LangGraph integration: nodes, add_memory around an agent with a tool loop,
memory tools in a ToolNode loop, scope from the run's config."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from langgraph_memory import (
    DecisionOp,
    InvalidArgumentError,
    MemoryStore,
    MissingScopeKeyError,
    Source,
    Trust,
)
from langgraph_memory.graph import (
    MemoryState,
    add_memory,
    memory_hooks,
    memory_read_node,
    memory_tools,
)
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import Extraction, Fact, MemoryWriter, RulesModel, Turn

ALICE = {"configurable": {"user_id": "alice", "thread_id": "t1"}}
BOB = {"configurable": {"user_id": "bob", "thread_id": "t2"}}


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def agent_graph(store: MemoryStore, chat: ScriptedChatModel, seen: list[str]) -> Any:
    """An existing ReAct-style graph (agent <-> tools), then memory added in one call."""
    tools = memory_tools(MemoryWriter(store, model=RulesModel()))
    bound = chat.bind_tools(tools)

    def agent(state: MemoryState) -> dict[str, Any]:
        seen.append(state.get("memories", ""))
        system = SystemMessage("You are helpful.\n\n" + state.get("memories", ""))
        return {"messages": [bound.invoke([system, *state["messages"]])]}

    builder = StateGraph(MemoryState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    add_memory(builder, "agent", store=store, writer=MemoryWriter(store, model=RulesModel()))
    return builder.compile()


def test_memory_crosses_sessions_and_stays_with_its_user(store: MemoryStore) -> None:
    chat = ScriptedChatModel(script=[], default="Noted.")
    seen: list[str] = []
    graph = agent_graph(store, chat, seen)
    graph.invoke({"messages": [("user", "I live in Delhi.")]}, ALICE)
    graph.invoke({"messages": [("user", "I moved to Pune.")]}, ALICE)
    graph.invoke({"messages": [("user", "Where do I live?")]}, ALICE)
    assert "User lives in Pune." in seen[-1] and "may be outdated" in seen[-1]
    assert "User lives in Delhi." not in seen[-1], "the replaced fact is not read"
    graph.invoke({"messages": [("user", "Where do I live?")]}, BOB)
    assert "Pune" not in seen[-1], "bob never sees alice's memories"
    assert [m.text for m in store.active("user:alice", episodes=False)] == ["User lives in Pune."]


def test_a_tool_loop_reads_once_and_writes_once_per_turn(store: MemoryStore) -> None:
    chat = ScriptedChatModel(
        script=[
            AIMessage("", tool_calls=[{"name": "recall", "args": {"query": "home"}, "id": "c1"}]),
            AIMessage("You live in Pune."),
        ]
    )
    store.add("user:alice", "User lives in Pune.")
    seen: list[str] = []
    graph = agent_graph(store, chat, seen)
    out = graph.invoke({"messages": [("user", "I'm vegan. Where do I live?")]}, ALICE)
    assert len(seen) == 2, "the agent ran twice (before and after the tool)"
    assert seen[0] == seen[1], "memories were read once, before the loop"
    assert "[" in out["messages"][2].content and "User lives in Pune." in out["messages"][2].content
    decisions = store.decisions("user:alice")
    assert [d.op for d in decisions] == [DecisionOp.ADD], "the turn was written once, when it ended"
    assert sorted(m.text for m in store.active("user:alice", episodes=False)) == [
        "User is vegan.",
        "User lives in Pune.",
    ]


def test_remember_and_forget_tools_use_the_configs_scope(store: MemoryStore) -> None:
    chat = ScriptedChatModel(
        script=[
            AIMessage(
                "",
                tool_calls=[
                    {"name": "remember", "args": {"text": "I prefer metric units"}, "id": "c1"}
                ],
            ),
            AIMessage("Got it."),
            AIMessage(
                "", tool_calls=[{"name": "forget", "args": {"memory": "metric units"}, "id": "c2"}]
            ),
            AIMessage("Forgotten."),
        ]
    )
    seen: list[str] = []
    graph = agent_graph(store, chat, seen)
    out = graph.invoke({"messages": [("user", "Note that I prefer metric units.")]}, ALICE)
    confirmation = out["messages"][2].content
    [memory] = store.active("user:alice", episodes=False)
    assert confirmation == f"Remembered [{memory.id}]: User prefers metric units."
    assert (memory.source, memory.trust) == (Source.EXPLICIT, Trust.HIGH)
    assert store.active("user:bob", episodes=False) == []
    out = graph.invoke({"messages": [("user", "Forget that.")]}, ALICE)
    assert out["messages"][-2].content == f"Forgot [{memory.id}]: User prefers metric units."
    assert store.active("user:alice", episodes=False) == []


def test_tools_expose_no_scope_argument(store: MemoryStore) -> None:
    for t in memory_tools(MemoryWriter(store, model=RulesModel())):
        assert not {"scope", "user_id", "user", "namespace"} & set(t.args), t.args


def test_a_missing_user_id_is_a_clear_error(store: MemoryStore) -> None:
    chat = ScriptedChatModel(script=[], default="Noted.")
    graph = agent_graph(store, chat, [])
    with pytest.raises(MissingScopeKeyError, match="user_id"):
        graph.invoke({"messages": [("user", "I live in Pune.")]}, {"configurable": {}})


def test_async_invocation_runs_the_same_nodes(store: MemoryStore) -> None:
    chat = ScriptedChatModel(script=[], default="Noted.")
    seen: list[str] = []
    graph = agent_graph(store, chat, seen)
    asyncio.run(graph.ainvoke({"messages": [("user", "I live in Delhi.")]}, ALICE))
    asyncio.run(graph.ainvoke({"messages": [("user", "Where do I live?")]}, ALICE))
    assert "User lives in Delhi." in seen[-1]


def test_add_memory_explains_what_it_needs(store: MemoryStore) -> None:
    from langgraph.graph import MessagesState

    plain = StateGraph(MessagesState)
    plain.add_node("agent", lambda s: {})
    plain.add_edge(START, "agent")
    with pytest.raises(ValueError, match="memories: str"):
        add_memory(plain, store=store, writer=MemoryWriter(store, model=RulesModel()))
    with pytest.raises(ValueError, match="no node 'bot'"):
        add_memory(StateGraph(MemoryState), "bot", store=store)
    unmapped = StateGraph(MemoryState)
    unmapped.add_node("agent", lambda s: {})
    unmapped.add_edge(START, "agent")
    unmapped.add_conditional_edges("agent", lambda s: END)
    with pytest.raises(ValueError, match="path_map"):
        add_memory(unmapped, store=store, writer=MemoryWriter(store, model=RulesModel()))


class NamingModel(RulesModel):
    """A write path's model of the user's own: every turn says the user is Ana."""

    name = "naming"

    def extract(self, turn: Turn, *, roles: Sequence[Any]) -> Extraction:
        return Extraction((Fact("User's name is Ana."),))


def plain_graph(**memory: Any) -> StateGraph[Any]:
    builder = StateGraph(MemoryState)
    builder.add_node("agent", lambda s: {"messages": [AIMessage("Noted.")]})
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return add_memory(builder, "agent", **memory)


def test_the_write_paths_model_goes_where_the_offline_notice_says(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    # add_memory(model=...) writes with it on the graph's own store, and says nothing of
    # an offline model; a writer brings its own model, so both at once is refused.
    graph = plain_graph(model=NamingModel()).compile(store=store)
    with caplog.at_level(logging.WARNING, logger="langgraph_memory"):
        graph.invoke({"messages": [("user", "Ana here, my flight just landed.")]}, ALICE)
    assert [m.text for m in store.active("user:alice", episodes=False)] == ["User's name is Ana."]
    assert "no chat model configured" not in caplog.text
    with pytest.raises(InvalidArgumentError, match="model= or writer=, not both"):
        plain_graph(model=NamingModel(), writer=MemoryWriter(store, model=RulesModel()))
    hooks = memory_hooks(model=NamingModel())
    assert sorted(hooks) == ["post_model_hook", "pre_model_hook"]
    with pytest.raises(InvalidArgumentError, match="memory_hooks takes model= or writer="):
        memory_hooks(writer=MemoryWriter(store, model=RulesModel()), model=NamingModel())
    # Offline and given nothing, the notice names where a model goes.
    with caplog.at_level(logging.WARNING, logger="langgraph_memory"):
        plain_graph().compile(store=store).invoke({"messages": [("user", "Hi.")]}, BOB)
    assert "pass model= to MemoryWriter, memory_write_node, add_memory" in caplog.text


def test_read_node_with_a_custom_query_and_key(store: MemoryStore) -> None:
    store.add("session:t1", "The user is debugging a flaky test.")
    node = memory_read_node(store, scope="session", query=lambda s: s["topic"], into="notes")
    out = node({"messages": [], "topic": "flaky test"}, ALICE)
    assert "debugging a flaky test" in out["notes"]


def test_deferred_writes_go_through_the_background_writer(store: MemoryStore) -> None:
    from langgraph_memory.write import BackgroundWriter

    background = BackgroundWriter(MemoryWriter(store, model=RulesModel()), workers=1)
    builder = StateGraph(MemoryState)
    builder.add_node("agent", lambda s: {"messages": [AIMessage("Noted.")]})
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    add_memory(builder, store=store, writer=background, write="deferred")
    graph = builder.compile()
    graph.invoke({"messages": [("user", "I live in Delhi.")]}, ALICE)
    graph.invoke({"messages": [("user", "I moved to Pune.")]}, ALICE)
    assert background.flush(timeout=30)
    background.close()
    assert [m.text for m in store.active("user:alice", episodes=False)] == ["User lives in Pune."]
    assert [d.op for d in store.decisions("user:alice")] == [DecisionOp.ADD, DecisionOp.UPDATE]
    from langgraph_memory.graph import memory_write_node

    with pytest.raises(TypeError, match="BackgroundWriter"):
        memory_write_node(MemoryWriter(store, model=RulesModel()), write="deferred")
    with pytest.raises(TypeError, match="write='inline' needs a MemoryWriter"):
        memory_write_node(background, write="inline")
    with pytest.raises(InvalidArgumentError, match="write must be 'inline' or 'deferred'"):
        memory_write_node(background, write="later")  # type: ignore[arg-type]


def test_the_chat_graph_defers_its_writes_to_a_background_writer(store: MemoryStore) -> None:
    from langgraph_memory.graph.agent import build_chat_graph
    from langgraph_memory.graph.stand_in import StandInChatModel
    from langgraph_memory.write import BackgroundWriter

    writer = MemoryWriter(store, model=RulesModel())
    with BackgroundWriter(writer, workers=1) as background:
        graph = build_chat_graph(store, StandInChatModel(), background, write="deferred")
        graph.invoke({"messages": [("user", "I live in Delhi.")]}, ALICE)
        graph.invoke({"messages": [("user", "I moved to Pune.")]}, ALICE)
        assert background.flush(timeout=30)
        assert background.stats.submitted == 2, "both turns went through the queue"
    assert [m.text for m in store.active("user:alice", episodes=False)] == ["User lives in Pune."]
    with pytest.raises(TypeError, match="needs a BackgroundWriter"):
        build_chat_graph(store, StandInChatModel(), writer, write="deferred")
