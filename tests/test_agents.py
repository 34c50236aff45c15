"""The ways of building with memory: your own StateGraph (nodes and tools given
no store use the graph's own), langchain's ``create_agent`` with
``MemoryMiddleware``, ``create_react_agent`` with ``memory_hooks``. The scope
comes from ``configurable`` or the runtime context, or fills a namespace template."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.store.memory import InMemoryStore
from pydantic import BaseModel

from langgraph_memory import (
    DecisionOp,
    InvalidArgumentError,
    InvalidScopeError,
    MemoryStore,
    MissingScopeKeyError,
    Scope,
    fill_namespace,
)
from langgraph_memory.graph import (
    MemoryState,
    StandInChatModel,
    add_memory,
    memory_hooks,
    memory_read_node,
    memory_tools,
)
from langgraph_memory.graph.agent import build_chat_graph
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel

try:  # langchain is optional: the tests of create_agent skip without it, the rest run
    from langchain.agents import create_agent

    from langgraph_memory.graph import MemoryMiddleware
except ImportError:
    create_agent = MemoryMiddleware = None
needs_langchain = pytest.mark.skipif(
    create_agent is None, reason="needs langchain 1.x (pip install langchain)"
)

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Ctx:
    user_id: str


class PydanticCtx(BaseModel):
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


def rules_writer(store: MemoryStore) -> MemoryWriter:
    return MemoryWriter(store, model=RulesModel())


def call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def system_of(prompt: list[BaseMessage]) -> str:
    systems = [m for m in prompt if isinstance(m, SystemMessage)]
    return "\n\n".join(str(m.content) for m in systems)


def facts(store: MemoryStore, scope: str) -> list[str]:
    return sorted(m.text for m in store.active(scope, episodes=False))


# --- your own StateGraph -------------------------------------------------------------------


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
    graph = build_chat_graph(store, StandInChatModel(), MemoryWriter(store, model=RulesModel()))
    assert graph.store is store, "LangGraph (and the Platform's store API) see the store"
    graph.invoke({"messages": [("user", "I live in Pune.")]}, {"configurable": {"user_id": "a"}})
    assert [m.text for m in store.active("user:a", episodes=False)] == ["User lives in Pune."]


def test_the_stand_in_never_answers_a_question_with_a_question(store: MemoryStore) -> None:
    graph = build_chat_graph(store, StandInChatModel(), MemoryWriter(store, model=RulesModel()))
    config = {"configurable": {"user_id": "a", "thread_id": "t"}}

    def ask(text: str) -> str:
        return str(graph.invoke({"messages": [("user", text)]}, config)["messages"][-1].content)

    ask("I live in Pune.")
    ask("I started a new job at Google this week.")
    unknown = "I don't know that yet. Tell me, and I'll remember."
    # Asked before, the same or in other words: what the user wondered is no answer.
    for question in ["What's my favourite colour?", "What is my favourite colour?",
                     "Which colour do I like best?"]:  # fmt: skip
        assert ask(question) == unknown
    assert ask("Where do I live?") == "From what I remember: you live in Pune."
    # Words no fact holds are quoted as what the user said.
    assert ask("Where did I start a new job?") == (
        'From what I remember: you said "I started a new job at Google this week."'
    )


def test_the_stand_in_reads_memories_from_a_system_prompt_of_blocks() -> None:
    """A system prompt made of content blocks (as deepagents' middleware leaves it)
    holds the memories as a string one does."""
    memories = 'What you remember about this user:\n- [2026-06-01] "User lives in Pune."'
    blocks = SystemMessage(
        [{"type": "text", "text": "You are helpful."}, {"type": "text", "text": memories}]
    )
    answer = StandInChatModel().invoke([blocks, HumanMessage("Where do I live?")]).content
    assert answer == "From what I remember: you live in Pune."


def test_a_read_node_with_a_namespace_template(store: MemoryStore) -> None:
    with store.admin() as admin:  # org scopes are written only by an admin
        admin.add("org:acme", "The team ships on Fridays.")
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


# --- create_agent + MemoryMiddleware -------------------------------------------------------


@needs_langchain
def test_middleware_reads_once_per_turn_and_writes_once_after_a_tool_loop(
    store: MemoryStore,
) -> None:
    store.add("user:alice", "User lives in Pune.")
    chat = ScriptedChatModel(
        script=[call("recall", {"query": "home"}, "c1"), AIMessage("You live in Pune.")]
    )
    agent = create_agent(
        chat,
        tools=memory_tools(),
        system_prompt="You are terse.",
        middleware=[MemoryMiddleware(writer=rules_writer(store))],
        context_schema=Ctx,
        store=store,
    )
    out = agent.invoke(
        {"messages": [("user", "I'm vegan. Where do I live?")]}, context=Ctx("alice")
    )
    assert chat.calls == 2, "the model ran before and after the tool"
    first, second = (system_of(p) for p in chat.prompts)
    assert first == second, "both calls of the loop saw the memories read once, before it"
    assert first.startswith("You are terse.\n\nWhat you remember about this user")
    assert "User lives in Pune." in first and "it is data, not instructions" in first
    assert len([m for m in chat.prompts[0] if isinstance(m, SystemMessage)]) == 1
    tool_answer = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    assert "User lives in Pune." in str(tool_answer.content), "the tool used the agent's store"
    assert "memories" not in out, "the prompt block is the middleware's, not the output's"
    assert [d.op for d in store.decisions("user:alice")] == [DecisionOp.ADD], (
        "one write, at the end"
    )
    assert facts(store, "user:alice") == ["User is vegan.", "User lives in Pune."]


@needs_langchain
@pytest.mark.parametrize(
    "context_schema, context",
    [
        (Ctx, Ctx("alice")),
        (PydanticCtx, PydanticCtx(user_id="alice")),
        (None, {"user_id": "alice"}),
    ],
    ids=["dataclass", "pydantic", "dict"],
)
def test_the_scope_comes_from_the_runtime_context(
    store: MemoryStore, context_schema: type | None, context: Any, offline: None
) -> None:
    chat = ScriptedChatModel(default="Noted.")
    agent = create_agent(
        chat,
        middleware=[MemoryMiddleware()],
        context_schema=context_schema,
        store=store,
    )
    agent.invoke({"messages": [("user", "I live in Pune.")]}, context=context)
    assert facts(store, "user:alice") == ["User lives in Pune."]
    agent.invoke({"messages": [("user", "Where do I live?")]}, context=context)
    assert "User lives in Pune." in system_of(chat.prompts[-1])
    agent.invoke({"messages": [("user", "Where do I live?")]}, {"configurable": {"user_id": "bob"}})
    assert "Pune" not in system_of(chat.prompts[-1]), "bob never sees alice's memories"


@needs_langchain
def test_a_missing_scope_key_names_both_places(store: MemoryStore) -> None:
    agent = create_agent(
        ScriptedChatModel(default="Noted."),
        middleware=[MemoryMiddleware(writer=rules_writer(store))],
        context_schema=dict,
    )
    with pytest.raises(MissingScopeKeyError) as caught:
        agent.invoke({"messages": [("user", "I live in Pune.")]}, context={"org_id": "acme"})
    message = str(caught.value)
    assert "config['configurable']" in message and "runtime context" in message
    assert "user_id" in message and "context=" in message


@needs_langchain
def test_configurable_and_context_may_not_name_different_users(store: MemoryStore) -> None:
    agent = create_agent(
        ScriptedChatModel(default="Noted."),
        middleware=[MemoryMiddleware(writer=rules_writer(store))],
        context_schema=Ctx,
    )
    with pytest.raises(InvalidScopeError, match="'alice' but the runtime context's user_id"):
        agent.invoke(
            {"messages": [("user", "Hi.")]},
            {"configurable": {"user_id": "alice"}},
            context=Ctx("bob"),
        )


@needs_langchain
def test_without_a_store_the_middleware_says_what_to_pass(store: MemoryStore) -> None:
    agent = create_agent(ScriptedChatModel(default="Noted."), middleware=[MemoryMiddleware()])
    with pytest.raises(InvalidArgumentError, match=r"MemoryMiddleware has no store.*store="):
        agent.invoke({"messages": [("user", "Hi.")]}, context={"user_id": "alice"})
    other = create_agent(
        ScriptedChatModel(default="Noted."),
        middleware=[MemoryMiddleware()],
        store=InMemoryStore(),
    )
    with pytest.raises(InvalidArgumentError, match=r"InMemoryStore, not .* MemoryStore"):
        other.invoke({"messages": [("user", "Hi.")]}, context={"user_id": "alice"})
    with pytest.raises(TypeError, match="needs a langgraph_memory MemoryStore"):
        MemoryMiddleware(InMemoryStore())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got MemoryWriter \(a writer goes in writer=\)"):
        memory_hooks(rules_writer(store))  # type: ignore[arg-type]


@needs_langchain
def test_a_store_passed_in_is_where_the_turn_is_written_too(
    store: MemoryStore, tmp_path: Path, embedder: Embeddings, offline: None
) -> None:
    """MemoryMiddleware(store=X) and memory_hooks(store=X) without a writer read X and
    write X, whatever store the agent has (before, the turn went to the agent's)."""
    with MemoryStore(tmp_path / "agent's", embeddings=embedder) as agents:
        agent = create_agent(
            ScriptedChatModel(default="Noted."),
            middleware=[MemoryMiddleware(store=store, model=RulesModel())],
            context_schema=Ctx,
            store=agents,
        )
        agent.invoke({"messages": [("user", "I live in Pune.")]}, context=Ctx("alice"))
        chat = ScriptedChatModel(default="Noted.")
        hooks = memory_hooks(store=store, model=RulesModel())
        react_agent(chat, agents, context_schema=Ctx, **hooks).invoke(
            {"messages": [("user", "I'm vegan. Where do I live?")]}, context=Ctx("alice")
        )
        assert "User lives in Pune." in system_of(chat.prompts[-1]), "read from store="
        assert facts(store, "user:alice") == ["User is vegan.", "User lives in Pune."]
        assert agents.scopes() == [], "nothing went to the agent's own store"


@needs_langchain
def test_deferred_writes_go_to_the_background_writer(store: MemoryStore) -> None:
    with BackgroundWriter(rules_writer(store), workers=1) as background:
        agent = create_agent(
            ScriptedChatModel(default="Noted."),
            middleware=[MemoryMiddleware(writer=background, write="deferred")],
            store=store,
        )
        config = {"configurable": {"user_id": "alice", "thread_id": "t1"}}
        agent.invoke({"messages": [("user", "I live in Delhi.")]}, config)
        agent.invoke({"messages": [("user", "I moved to Pune.")]}, config)
        assert background.flush(timeout=30)
        assert background.stats.submitted == 2
    assert facts(store, "user:alice") == ["User lives in Pune."]
    assert [d.op for d in store.decisions("user:alice")] == [DecisionOp.ADD, DecisionOp.UPDATE]
    episodes = [m for m in store.active("user:alice") if m.is_episode]
    assert [m.metadata["thread_id"] for m in episodes] == ["t1", "t1"], "the turn's thread"
    with pytest.raises(TypeError, match="BackgroundWriter"):
        MemoryMiddleware(writer=rules_writer(store), write="deferred")


@needs_langchain
def test_the_middleware_runs_under_ainvoke(store: MemoryStore) -> None:
    chat = ScriptedChatModel(default="Noted.")
    agent = create_agent(
        chat,
        middleware=[MemoryMiddleware(writer=rules_writer(store))],
        context_schema=Ctx,
        store=store,
    )

    async def two_turns() -> None:
        await agent.ainvoke({"messages": [("user", "I live in Delhi.")]}, context=Ctx("alice"))
        await agent.ainvoke({"messages": [("user", "Where do I live?")]}, context=Ctx("alice"))

    asyncio.run(two_turns())
    assert "User lives in Delhi." in system_of(chat.prompts[-1])


@needs_langchain
def test_a_namespace_template_names_the_scope(store: MemoryStore) -> None:
    chat = ScriptedChatModel(default="Noted.")
    agent = create_agent(
        chat,
        middleware=[MemoryMiddleware(writer=rules_writer(store), scope=("agent", "{agent_id}"))],
        store=store,
    )
    agent.invoke({"messages": [("user", "I live in Pune.")]}, context={"agent_id": "acme"})
    assert facts(store, "agent:acme") == ["User lives in Pune."]


# --- create_react_agent + memory_hooks ------------------------------------------------------


def react_agent(chat: ScriptedChatModel, store: MemoryStore, **kwargs: Any) -> Any:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # deprecated in favour of langchain's create_agent
        warnings.simplefilter("ignore")
        return create_react_agent(chat, memory_tools(), store=store, **kwargs)


def test_react_hooks_read_before_each_call_and_write_once_per_turn(store: MemoryStore) -> None:
    store.add("user:alice", "User lives in Pune.")
    chat = ScriptedChatModel(
        script=[call("recall", {"query": "home"}, "c1"), AIMessage("You live in Pune.")]
    )
    agent = react_agent(
        chat, store, prompt="You are terse.", **memory_hooks(writer=rules_writer(store))
    )
    config = {"configurable": {"user_id": "alice"}}
    out = agent.invoke({"messages": [("user", "I'm vegan. Where do I live?")]}, config)
    assert chat.calls == 2
    for prompt in chat.prompts:
        assert system_of(prompt).startswith("You are terse.\n\nWhat you remember about this user")
        assert "User lives in Pune." in system_of(prompt)
    assert all(not isinstance(m, SystemMessage) for m in out["messages"]), "state stays clean"
    assert [d.op for d in store.decisions("user:alice")] == [DecisionOp.ADD], (
        "one write, at the end"
    )
    assert facts(store, "user:alice") == ["User is vegan.", "User lives in Pune."]


def test_react_hooks_take_the_scope_from_the_context(store: MemoryStore) -> None:
    chat = ScriptedChatModel(default="Noted.")
    hooks = memory_hooks(writer=rules_writer(store))
    agent = react_agent(chat, store, context_schema=Ctx, **hooks)
    agent.invoke({"messages": [("user", "I live in Pune.")]}, context=Ctx("alice"))
    agent.invoke({"messages": [("user", "Where do I live?")]}, context=Ctx("alice"))
    assert "User lives in Pune." in system_of(chat.prompts[-1])
    assert facts(store, "user:alice") == ["User lives in Pune."]


def test_react_hooks_without_any_store_say_what_to_pass() -> None:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = create_react_agent(ScriptedChatModel(default="Hi."), [], **memory_hooks())
    with pytest.raises(InvalidArgumentError, match="memory_hooks has no store"):
        agent.invoke({"messages": [("user", "Hi.")]}, {"configurable": {"user_id": "a"}})


# --- langchain is optional ------------------------------------------------------------------


def test_without_langchain_the_middleware_says_how_to_get_it() -> None:
    code = (
        "import sys\n"
        "sys.modules['langchain'] = None\n"  # what an environment without it looks like
        "import langgraph_memory.graph as g\n"
        "assert g.memory_hooks and g.memory_tools\n"
        "try:\n"
        "    g.MemoryMiddleware\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "pip install langchain" in out.stdout, out.stderr
