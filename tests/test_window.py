"""Working memory: ``memory_window_node`` keeps a thread inside a token budget, folds
whole turns into one summary message, stubs bulky tool outputs, and never folds a
turn before the write path has written it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import slow_writer
from langchain_core.embeddings import Embeddings
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages

import langgraph_memory
from langgraph_memory import InvalidArgumentError, MemoryStore
from langgraph_memory.graph import MemoryState, add_memory, memory_window_node, memory_write_node
from langgraph_memory.graph.window import SUMMARY_ID
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel

CONFIG: RunnableConfig = {"configurable": {"user_id": "alice", "thread_id": "t1"}}

TOPICS = ["Pune", "chess", "ramen", "Berlin", "violin", "tennis", "Lisbon", "sourdough"]


def turn(i: int, words: int = 12) -> list[BaseMessage]:
    """One user turn and its answer, with ids, about topic ``i``."""
    topic = TOPICS[i % len(TOPICS)]
    filler = " ".join(["and some more detail"] * (words // 4))
    return [
        HumanMessage(f"Tell me about {topic} number {i}. I asked {filler}.", id=f"h{i}"),
        AIMessage(f"Here is what I know about {topic} {i}. It is {filler}.", id=f"a{i}"),
    ]


def thread_of(turns: int, **kw: Any) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    for i in range(turns):
        messages += turn(i, **kw)
    return [*messages, HumanMessage("What now?", id="latest")]


def apply(window: Any, messages: list[BaseMessage]) -> list[BaseMessage]:
    """The thread after the node's update, as add_messages (and a checkpointer) sees it."""
    update = window({"messages": messages}, CONFIG)
    if not update:
        return messages
    return list(add_messages(messages, update["messages"]))  # type: ignore[arg-type]


def tokens(messages: list[BaseMessage]) -> int:
    return count_tokens_approximately(messages)


def summaries(messages: list[BaseMessage]) -> list[BaseMessage]:
    return [m for m in messages if m.id == SUMMARY_ID]


# -- the budget ---------------------------------------------------------------------------------


def test_no_budget_changes_nothing() -> None:
    messages = thread_of(50)
    window = memory_window_node()
    assert window({"messages": messages}, CONFIG) == {}
    # a bulky tool output is left alone too: the window is off
    bulky = [HumanMessage("hi", id="h"), ToolMessage("x" * 10_000, tool_call_id="c", id="t")]
    assert window({"messages": [*bulky, HumanMessage("next", id="n")]}, CONFIG) == {}
    assert window.stats.folds == 0 and window.stats.stubbed == 0


def test_a_thread_within_budget_is_left_alone() -> None:
    messages = thread_of(3)
    window = memory_window_node(tokens(messages) + 1)
    assert window({"messages": messages}, CONFIG) == {}


@pytest.mark.parametrize("budget", [150, 300, 600, 1200])
def test_a_long_thread_is_folded_within_the_budget(budget: int) -> None:
    messages = thread_of(40)
    assert tokens(messages) > budget
    window = memory_window_node(budget)
    after = apply(window, messages)
    assert tokens(after) <= budget
    # the summary heads the thread, the latest user message ends it
    assert after[0].id == SUMMARY_ID and isinstance(after[0], SystemMessage)
    assert after[-1].id == "latest"
    # what is kept is the newest whole turns, in order, starting with a user message
    kept = after[1:]
    assert isinstance(kept[0], HumanMessage)
    assert [m.id for m in kept] == [m.id for m in messages[-len(kept) :]]
    assert window.stats.folds == 1 and window.stats.offline_summaries == 1
    assert window.stats.folded_messages == len(messages) - len(kept)
    # the offline summary carries the gist of the newest folded turn
    newest_folded = messages[len(messages) - len(kept) - 2]
    assert newest_folded.text.split(".")[0] in after[0].text


def test_the_app_system_prompt_stays_first() -> None:
    messages = [SystemMessage("You are terse.", id="sys"), *thread_of(30)]
    after = apply(memory_window_node(300), messages)
    assert [m.id for m in after[:2]] == ["sys", SUMMARY_ID]
    assert tokens(after) <= 300


def test_the_latest_human_message_stays_even_when_it_alone_is_over_budget() -> None:
    huge = HumanMessage("Please read this. " + "word " * 2_000, id="latest")
    messages = [*thread_of(10)[:-1], huge]
    after = apply(memory_window_node(200), messages)
    assert after[-1] is huge or after[-1].id == "latest"
    assert after[-1].text == huge.text
    assert [m.id for m in after] == [SUMMARY_ID, "latest"]  # every earlier turn was folded


def test_a_thread_of_one_user_message_is_never_folded() -> None:
    window = memory_window_node(64)
    assert window({"messages": [HumanMessage("hi " * 300, id="latest")]}, CONFIG) == {}
    # a greeting before it may go, the user's message may not
    messages = [AIMessage("Welcome! " * 300, id="greet"), HumanMessage("hi " * 300, id="latest")]
    assert [m.id for m in apply(window, messages)] == [SUMMARY_ID, "latest"]


# -- tool calls ---------------------------------------------------------------------------------


def tool_turn(i: int) -> list[BaseMessage]:
    call = {"name": "search", "args": {"q": f"topic {i}"}, "id": f"call{i}", "type": "tool_call"}
    other = {"name": "lookup", "args": {"q": f"{i}"}, "id": f"call{i}b", "type": "tool_call"}
    return [
        HumanMessage(f"Find topic {i} for me please, it matters.", id=f"h{i}"),
        AIMessage("", tool_calls=[call, other], id=f"a{i}"),
        ToolMessage(f"result for topic {i} " * 5, tool_call_id=f"call{i}", id=f"t{i}"),
        ToolMessage(f"lookup {i} " * 5, tool_call_id=f"call{i}b", id=f"t{i}b"),
        AIMessage(f"Topic {i} is found. Details follow.", id=f"z{i}"),
    ]


def assert_tool_pairs_whole(messages: list[BaseMessage]) -> None:
    calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    results = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    assert calls == results, f"split tool calls: {calls ^ results}"


@pytest.mark.parametrize("budget", range(120, 900, 45))
def test_a_tool_call_and_its_results_are_never_split(budget: int) -> None:
    messages: list[BaseMessage] = []
    for i in range(12):
        messages += tool_turn(i)
    # A user interjects while a tool runs: the cut before "h5x" would split call5's pair.
    call = {"name": "search", "args": {}, "id": "slow", "type": "tool_call"}
    messages[25:25] = [
        AIMessage("", tool_calls=[call], id="slow-call"),
        HumanMessage("Still there? Hurry up.", id="h5x"),
        ToolMessage("slow result", tool_call_id="slow", id="slow-result"),
    ]
    messages.append(HumanMessage("Thanks, next one.", id="latest"))
    after = apply(memory_window_node(budget), messages)
    assert_tool_pairs_whole(after)
    assert after[-1].id == "latest"
    assert after[1].id != "h5x"  # the cut there would have split the slow call from its result


# -- the summary --------------------------------------------------------------------------------


def test_the_summary_is_replaced_not_accumulated() -> None:
    window = memory_window_node(250)
    messages: list[BaseMessage] = []
    seen: list[str] = []
    for i in range(30):
        messages = apply(window, [*messages, *turn(i)[:1]])
        messages = list(add_messages(messages, turn(i)[1:]))  # type: ignore[arg-type]
        found = summaries(messages)
        assert len(found) <= 1
        assert len([m for m in messages if isinstance(m, SystemMessage)]) == len(found)
        if found:
            assert messages[0].id == SUMMARY_ID
            seen.append(found[0].text)
    assert window.stats.folds > 3
    assert len(set(seen)) > 3, "the summary changes as turns are folded into it"
    # the newest folded turn is in the summary (the oldest ones may have made room)
    first_kept = next(m for m in messages if isinstance(m, HumanMessage))
    newest_folded = int(str(first_kept.id).removeprefix("h")) - 1
    assert turn(newest_folded)[0].text.split(".")[0] in seen[-1]


def test_a_model_writes_the_summary_from_the_folded_turns_and_the_last_summary() -> None:
    model = ScriptedChatModel(
        script=["The user asked about Pune and chess.", "Topics so far: many."]
    )
    window = memory_window_node(200, model=model)
    messages = apply(window, thread_of(12))
    assert "The user asked about Pune and chess." in messages[0].text
    assert window.stats.summary_calls == 1 and model.calls == 1
    assert "Tell me about Pune number 0" in model.prompts[0][-1].text
    messages = apply(window, [*messages[:-1], *thread_of(12)[1:-1], HumanMessage("more", id="m")])
    assert window.stats.summary_calls == 2
    assert "The user asked about Pune and chess." in model.prompts[1][-1].text  # the last summary
    assert messages[0].text.endswith("Topics so far: many.") and len(summaries(messages)) == 1


def test_a_failing_summary_model_falls_back_to_the_extractive_summary(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedChatModel(script=[RuntimeError("provider down")])
    window = memory_window_node(200, model=model)
    with caplog.at_level(logging.WARNING, logger="langgraph_memory"):
        after = apply(window, thread_of(12))
    assert tokens(after) <= 200 and after[0].id == SUMMARY_ID
    assert window.stats.summary_calls == 1 and window.stats.offline_summaries == 1
    assert "summary model failed" in caplog.text


# -- bulky tool outputs -------------------------------------------------------------------------


def test_bulky_tool_outputs_of_past_turns_become_stubs() -> None:
    call = {"name": "fetch", "args": {}, "id": "c1", "type": "tool_call"}
    now = {"name": "fetch", "args": {}, "id": "c2", "type": "tool_call"}
    messages: list[BaseMessage] = [
        HumanMessage("Fetch the page.", id="h1"),
        AIMessage("", tool_calls=[call], id="a1"),
        ToolMessage("<html>" + "x" * 4_994, tool_call_id="c1", name="fetch", id="big"),
        AIMessage("Done.", id="a1b"),
        HumanMessage("And another?", id="h2"),
        AIMessage("", tool_calls=[now], id="a2"),
        ToolMessage("y" * 5_000, tool_call_id="c2", id="current"),  # this turn's: kept whole
    ]
    small = ToolMessage("short", tool_call_id="c0", id="small")
    messages.insert(3, small)
    window = memory_window_node(100_000, max_tool_chars=1_000)
    after = apply(window, messages)
    stub = next(m for m in after if m.id == "big")
    assert isinstance(stub, ToolMessage) and stub.tool_call_id == "c1" and stub.name == "fetch"
    assert "5,000 characters" in stub.text and "elided" in stub.text
    assert [m.id for m in after] == [m.id for m in messages]  # replaced in place
    assert next(m for m in after if m.id == "current").text == "y" * 5_000
    assert next(m for m in after if m.id == "small").text == "short"
    assert window.stats.stubbed == 1 and window.stats.folds == 0
    assert window({"messages": after}, CONFIG) == {}  # a stub is not stubbed again


# -- in a graph ---------------------------------------------------------------------------------


def chat_builder(state: type[Any], seen: list[list[BaseMessage]]) -> StateGraph[Any]:
    def agent(s: Any) -> dict[str, Any]:
        seen.append(list(s["messages"]))
        asked = s["messages"][-1].text
        return {"messages": [AIMessage(f"You said: {asked} That is noted. More to say.")]}

    builder = StateGraph(state)
    builder.add_node("agent", agent)  # type: ignore[call-overload]  # state is a type variable
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder


def test_a_checkpointed_graph_stays_bounded_over_many_turns() -> None:
    seen: list[list[BaseMessage]] = []
    builder = chat_builder(MessagesState, seen)
    window = memory_window_node(300)
    node: Any = window  # add_node's overloads do not describe a callable object
    builder.add_node("window", node)
    builder.edges.discard((START, "agent"))
    builder.add_edge(START, "window")
    builder.add_edge("window", "agent")
    graph = builder.compile(checkpointer=InMemorySaver())
    for i in range(60):
        human = turn(i)[0]
        graph.invoke({"messages": [HumanMessage(human.text)]}, CONFIG)
    assert all(tokens(messages) <= 300 for messages in seen), "the model saw over the budget"
    state = graph.get_state(CONFIG).values["messages"]
    assert len(summaries(state)) == 1 and state[0].id == SUMMARY_ID
    assert len(state) < 20 and window.stats.folds >= 10
    assert state[-2].text == turn(59)[0].text  # the last turn is whole


def test_add_memory_puts_the_window_before_the_read_node(
    tmp_path: Path, embedder: Embeddings
) -> None:
    seen: list[list[BaseMessage]] = []
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        builder = chat_builder(MemoryState, seen)
        add_memory(builder, writer=MemoryWriter(store, model=RulesModel()), max_tokens=250)
        assert (START, "memory_window") in builder.edges
        assert ("memory_window", "memory_read") in builder.edges
        assert (START, "memory_read") not in builder.edges
        graph = builder.compile(checkpointer=InMemorySaver(), store=store)
        graph.invoke({"messages": [("user", "I live in Hyderabad.")]}, CONFIG)
        for i in range(1, 25):
            graph.invoke({"messages": [("user", turn(i)[0].text)]}, CONFIG)
        out = graph.invoke({"messages": [("user", "Where do I live?")]}, CONFIG)
    assert all(tokens(messages) <= 250 for messages in seen)
    assert "Hyderabad" not in " ".join(m.text for m in out["messages"][1:])  # folded long ago
    assert "User lives in Hyderabad." in out["memories"]  # and still remembered


def test_add_memory_without_max_tokens_adds_no_window(tmp_path: Path, embedder: Embeddings) -> None:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        builder = chat_builder(MemoryState, [])
        add_memory(builder, writer=MemoryWriter(store, model=RulesModel()))
        assert "memory_window" not in builder.nodes and (START, "memory_read") in builder.edges


# -- never a turn unwritten -------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def deferred_graph(
    store: MemoryStore, background: BackgroundWriter, window: Any, unwritten: list[str]
) -> Any:
    """window -> agent -> deferred write; the window's every fold checks that each
    user message it removes has its episode in the store already."""

    def checked_window(state: Any, config: RunnableConfig) -> dict[str, Any]:
        update = window(state, config)
        if update:
            after = add_messages(state["messages"], update["messages"])
            kept = {getattr(m, "id", None) for m in after}
            episodes = {m.metadata.get("turn_id") for m in store.active("user:alice")}
            for message in state["messages"]:
                folded = isinstance(message, HumanMessage) and message.id not in kept
                if folded and message.id not in episodes:
                    unwritten.append(message.text)
        return dict(update)

    def agent(state: Any) -> dict[str, Any]:
        return {"messages": [AIMessage("Noted, that is good to know.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("window", checked_window)
    builder.add_node("agent", agent)
    builder.add_node("write", memory_write_node(background, write="deferred"))
    builder.add_edge(START, "window")
    builder.add_edge("window", "agent")
    builder.add_edge("agent", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=InMemorySaver())


def long_turns(n: int) -> list[str]:
    # Each turn alone is most of the budget, so every fold takes the turn just before.
    return [f"I visited {TOPICS[i % len(TOPICS)]} in year {2000 + i}. " * 14 for i in range(n)]


def test_a_turn_is_never_folded_before_the_deferred_writer_has_written_it(
    store: MemoryStore,
) -> None:
    unwritten: list[str] = []
    with BackgroundWriter(slow_writer(store, lambda: time.sleep(0.2)), workers=1) as background:
        window = memory_window_node(200, writes=background, wait_for_writes=10)
        graph = deferred_graph(store, background, window, unwritten)
        for text in long_turns(6):
            graph.invoke({"messages": [HumanMessage(text)]}, CONFIG)
    assert window.stats.folds >= 4, "the test must fold turns to prove anything"
    assert unwritten == []


def test_the_check_catches_a_window_that_does_not_wait(store: MemoryStore) -> None:
    # The same run with a window that is not told of the writer: it folds turns the
    # slow writer has not written yet, so the check above can fail.
    unwritten: list[str] = []
    with BackgroundWriter(slow_writer(store, lambda: time.sleep(0.3)), workers=1) as background:
        window = memory_window_node(200)
        graph = deferred_graph(store, background, window, unwritten)
        for text in long_turns(4):
            graph.invoke({"messages": [HumanMessage(text)]}, CONFIG)
    assert unwritten


def test_a_stuck_writer_postpones_the_fold_and_says_so(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    stuck = threading.Event()
    unwritten: list[str] = []
    with BackgroundWriter(slow_writer(store, lambda: stuck.wait(10)), workers=1) as background:
        window = memory_window_node(200, writes=background, wait_for_writes=0.1)
        graph = deferred_graph(store, background, window, unwritten)
        with caplog.at_level(logging.INFO, logger="langgraph_memory"):
            for text in long_turns(3):
                graph.invoke({"messages": [HumanMessage(text)]}, CONFIG)
        state = graph.get_state(CONFIG).values["messages"]
        assert window.stats.folds == 0 and window.stats.postponed >= 1
        assert len(state) == 6 and not summaries(state)  # every turn kept, over budget
        assert "still being written" in caplog.text
        stuck.set()
        background.flush(10)
        graph.invoke({"messages": [HumanMessage(long_turns(4)[3])]}, CONFIG)
        assert window.stats.folds == 1  # written now: the fold happens on the next turn
        state = graph.get_state(CONFIG).values["messages"]
        assert [type(m) for m in state] == [SystemMessage, HumanMessage, AIMessage]
    assert unwritten == []


def test_add_memory_gives_the_window_the_deferred_writer_to_wait_for(store: MemoryStore) -> None:
    stuck = threading.Event()
    with BackgroundWriter(slow_writer(store, lambda: stuck.wait(10)), workers=1) as background:
        builder = chat_builder(MemoryState, [])
        add_memory(
            builder,
            store=store,
            writer=background,
            write="deferred",
            max_tokens=200,
            wait_for_writes=0.05,
        )
        graph = builder.compile(checkpointer=InMemorySaver())
        for text in long_turns(3):
            graph.invoke({"messages": [HumanMessage(text)]}, CONFIG)
        state = graph.get_state(CONFIG).values["messages"]
        assert len(state) == 6 and not summaries(state)  # nothing folded: nothing written
        stuck.set()
        background.flush(10)
        graph.invoke({"messages": [HumanMessage(long_turns(4)[3])]}, CONFIG)
        assert summaries(graph.get_state(CONFIG).values["messages"])


# -- bad arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -5, 63, 1.5, "4000", True])
def test_a_bad_budget_is_refused_with_what_to_do(bad: Any) -> None:
    with pytest.raises(InvalidArgumentError, match=r"max_tokens.*e\.g\. max_tokens=4000"):
        memory_window_node(bad)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"max_tool_chars": 0}, "max_tool_chars must be >= 1"),
        ({"max_tool_chars": "big"}, "max_tool_chars must be an int"),
        ({"summary_tokens": 500}, "summary_tokens=500 leaves no room"),
        ({"summary_tokens": -1}, "summary_tokens must be >= 24"),
        ({"summary_tokens": 23}, "summary_tokens must be >= 24"),
        ({"wait_for_writes": -1}, "wait_for_writes must be a number"),
        ({"writes": object()}, "writes must be the BackgroundWriter"),
    ],
)
def test_bad_options_are_refused(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        memory_window_node(400, **kwargs)


def test_add_memory_refuses_a_bad_budget_before_changing_the_graph(
    tmp_path: Path, embedder: Embeddings
) -> None:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        builder = chat_builder(MemoryState, [])
        with pytest.raises(InvalidArgumentError, match="max_tokens"):
            add_memory(builder, store=store, max_tokens=0)
        assert set(builder.nodes) == {"agent"}


def test_the_smallest_budgets_hold_an_empty_summary_and_are_kept() -> None:
    from langgraph_memory.graph.window import MIN_MAX_TOKENS, MIN_SUMMARY_TOKENS, _summary_message

    assert tokens([_summary_message("")]) < MIN_SUMMARY_TOKENS
    for budget in range(MIN_MAX_TOKENS, MIN_MAX_TOKENS + 40, 3):
        after = apply(
            memory_window_node(budget), [*thread_of(10, words=0)[:-1], HumanMessage("ok")]
        )
        assert tokens(after) <= budget, budget


def test_it_is_exported_from_the_package() -> None:
    assert langgraph_memory.memory_window_node is memory_window_node


# -- the middleware and the hooks -------------------------------------------------------------


def test_memory_middleware_keeps_the_agent_thread_within_the_budget(
    tmp_path: Path, embedder: Embeddings
) -> None:
    from langchain.agents import create_agent

    from langgraph_memory.graph import MemoryMiddleware

    chat = ScriptedChatModel(default="Noted. That is good to know, thanks for sharing it.")
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        memory = MemoryMiddleware(writer=MemoryWriter(store, model=RulesModel()), max_tokens=250)
        agent = create_agent(chat, middleware=[memory], store=store, checkpointer=InMemorySaver())
        agent.invoke({"messages": [("user", "I live in Hyderabad.")]}, CONFIG)
        for i in range(1, 25):
            agent.invoke({"messages": [("user", turn(i)[0].text)]}, CONFIG)
        agent.invoke({"messages": [("user", "Where do I live?")]}, CONFIG)
        state = agent.get_state(CONFIG).values["messages"]
    assert memory._window.stats.folds > 3
    assert len(summaries(state)) == 1 and state[0].id == SUMMARY_ID
    assert tokens(state[:-1]) <= 250  # the thread the last answer was given on
    assert "Hyderabad" not in " ".join(m.text for m in state[1:])  # folded long ago
    assert "User lives in Hyderabad." in chat.prompts[-1][0].text  # and still remembered


def test_memory_hooks_keep_the_react_agent_thread_within_the_budget(
    tmp_path: Path, embedder: Embeddings
) -> None:
    import warnings

    from langgraph.prebuilt import create_react_agent

    from langgraph_memory.graph import memory_hooks

    chat = ScriptedChatModel(default="Noted. That is good to know, thanks for sharing it.")
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        hooks = memory_hooks(writer=MemoryWriter(store, model=RulesModel()), max_tokens=250)
        with warnings.catch_warnings():  # create_react_agent is deprecated for create_agent
            warnings.simplefilter("ignore")
            agent = create_react_agent(chat, [], **hooks, store=store, checkpointer=InMemorySaver())
        for i in range(25):
            agent.invoke({"messages": [("user", turn(i)[0].text)]}, CONFIG)
        state = agent.get_state(CONFIG).values["messages"]
    assert all(tokens(prompt[1:]) <= 250 for prompt in chat.prompts)  # [0]: the memories
    assert len(summaries(state)) == 1 and state[0].id == SUMMARY_ID
    assert len(state) < 15


def test_the_middleware_and_the_hooks_refuse_a_bad_budget() -> None:
    from langgraph_memory.graph import MemoryMiddleware, memory_hooks

    with pytest.raises(InvalidArgumentError, match="max_tokens"):
        MemoryMiddleware(max_tokens=-1)
    with pytest.raises(InvalidArgumentError, match="max_tokens"):
        memory_hooks(max_tokens="lots")  # type: ignore[arg-type]


def test_a_window_given_a_writer_needs_the_scope_on_every_turn(store: MemoryStore) -> None:
    from langgraph_memory import MissingScopeKeyError

    with BackgroundWriter(MemoryWriter(store, model=RulesModel()), journal=False) as background:
        window = memory_window_node(10_000, writes=background)
        # nothing to fold yet, and still the run without a user_id fails at once
        with pytest.raises(MissingScopeKeyError):
            window({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "t"}})


def test_the_summary_is_a_traced_step(monkeypatch: pytest.MonkeyPatch) -> None:
    from langsmith import Client, tracing_context
    from langsmith.utils import get_env_var
    from langsmith_stub import LangSmithStub

    with LangSmithStub() as stub:
        monkeypatch.setenv("LANGSMITH_DISABLE_RUN_COMPRESSION", "true")
        get_env_var.cache_clear()  # type: ignore[attr-defined]  # an lru_cache
        client = Client(api_url=stub.url, api_key="test")
        try:
            model = ScriptedChatModel(default="The user asked about many topics.")
            with tracing_context(enabled=True, client=client, project_name="window-tests"):
                apply(memory_window_node(200, model=model), thread_of(12))
            client.flush()
            assert stub.wait_for(lambda s: bool(s.named("memory.summarize")))
            [run] = stub.named("memory.summarize")
            assert run["outputs"]["summary"] == "The user asked about many topics."
            assert run["inputs"]["folded"] > 0
        finally:
            client.cleanup()
    get_env_var.cache_clear()  # type: ignore[attr-defined]  # an lru_cache
