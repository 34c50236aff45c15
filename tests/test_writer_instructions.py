"""What the app wants remembered (issue 43, point 4): ``MemoryWriter(instructions=...)``.

A chat model reads the app's guidance and lists at the end of its extraction prompt,
after the prompt's own rules; the prompt is unchanged without them. Whatever a model
answers (the offline rules model reads no prompt at all), the writer keeps and skips
its facts by the lists, before reconciliation, and logs each skip as a rejected
decision that says which entry skipped it. The graph wirings take the same argument.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from langgraph_memory import (
    InvalidArgumentError,
    InvalidTypeError,
    Kind,
    MemoryInstructions,
    MemoryStore,
    MemoryWriter,
    Status,
    add_memory,
    memory_hooks,
    memory_write_node,
)
from langgraph_memory.graph import MemoryState
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import ChatMemoryModel, Fact, Prompts, RulesModel, Turn
from langgraph_memory.write.app_instructions import SECTION_TITLE

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)  # a Monday
U = "user:alice"
PUNE_AND_PEANUTS = "I live in Pune and I'm allergic to peanuts."
RUN = {"configurable": {"user_id": "alice", "thread_id": "t1"}}


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def facts(*texts: str) -> dict[str, Any]:
    return {"facts": [{"text": t, "importance": 6, "speaker": "user"} for t in texts]}


def chat_answering(*texts: str) -> ScriptedChatModel:
    """A chat model that extracts ``texts`` from any turn, whatever its prompt asks, and
    adds whatever it is asked to reconcile."""

    def answer(messages: list[BaseMessage]) -> dict[str, Any]:
        system = str(messages[0].content)
        return facts(*texts) if system.startswith("You write a user's long-term") else {"op": "ADD"}

    return ScriptedChatModel(default=answer)


def extraction_prompt(chat: ScriptedChatModel) -> str:
    """The system prompt of the chat model's first call: the extraction."""
    return str(chat.prompts[0][0].content)


def default_prompt(speakers: str = "user") -> str:
    """The extraction prompt as it is without instructions, for a turn of ``T0``."""
    today = T0.date()
    return Prompts().extract_system.format(
        today=today.isoformat(), weekday=today.strftime("%A"), speakers=speakers
    )


def texts(store: MemoryStore, scope: str = U) -> list[str]:
    return sorted(m.text for m in store.active(scope, episodes=False))


def rejected(store: MemoryStore, scope: str = U) -> dict[str, str | None]:
    """The facts refused before reconciliation, and why."""
    return {d.fact: d.note for d in store.decisions(scope) if d.status is Status.REJECTED}


# -- a chat model's prompt ----------------------------------------------------------------------


def test_the_extraction_prompt_ends_with_the_apps_guidance_and_lists(store: MemoryStore) -> None:
    chat = chat_answering()
    wanted = MemoryInstructions(
        "Remember travel plans and dietary needs; ignore the user's job.",
        keep=["plan", "diet"],
        skip=["employer"],
    )
    MemoryWriter(store, chat, instructions=wanted).write_turn(
        U, [("user", "I'm moving to Lisbon next year and I work at Acme.")], now=T0
    )
    prompt = extraction_prompt(chat)
    # The prompt's own rules come first, byte for byte, the app's section after them:
    # third person, absolute dates and rules only from the user stay what they were.
    assert prompt.startswith(default_prompt() + "\n\n" + SECTION_TITLE + "\n\n")
    section = prompt[len(default_prompt()) :]
    assert "never replaces what is asked above" in section
    assert (
        "<app_guidance>\nRemember travel plans and dietary needs; ignore the user's job.\n"
        "</app_guidance>"
    ) in section
    assert "Extract only facts about: plan, diet." in section
    assert "Extract the user's standing instructions (rules) too." in section
    assert "Do not extract facts about: employer." in section


def test_guidance_alone_is_a_str_and_adds_no_list(store: MemoryStore) -> None:
    chat = chat_answering("User works at Acme.")
    writer = MemoryWriter(store, chat, instructions="Work matters most here.")
    writer.write_turn(U, [("user", "I work at Acme.")], now=T0)
    section = extraction_prompt(chat)[len(default_prompt()) :]
    assert "<app_guidance>\nWork matters most here.\n</app_guidance>" in section
    assert "Extract only" not in section and "Do not extract" not in section
    assert texts(store) == ["User works at Acme."], "guidance alone filters nothing"


@pytest.mark.parametrize("instructions", [None, "", "   ", MemoryInstructions()])
def test_without_instructions_the_prompt_is_unchanged(
    store: MemoryStore, instructions: str | MemoryInstructions | None
) -> None:
    chat = chat_answering()
    MemoryWriter(store, chat, instructions=instructions).write_turn(
        U, [("user", "I work at Acme.")], now=T0
    )
    assert extraction_prompt(chat) == default_prompt()
    alone = ScriptedChatModel(default=facts())
    turn = Turn.of([("user", "I work at Acme.")], when=T0)
    ChatMemoryModel(alone, instructions=instructions).extract(turn, roles=("user",))
    assert extraction_prompt(alone) == default_prompt()


def test_a_chat_model_that_ignores_the_prompt_is_filtered_all_the_same(
    store: MemoryStore,
) -> None:
    # The model answers with the employer it was told to skip: its fact names no topic,
    # so the writer reads "employer" from the text, skips it and says so in the log.
    chat = chat_answering("User works at Acme.", "User plans to move to Lisbon in 2027.")
    writer = MemoryWriter(store, chat, instructions=MemoryInstructions(skip=["employer"]))
    decisions = writer.write_turn(
        U, [("user", "I work at Acme and I plan to move to Lisbon next year.")], now=T0
    )
    assert texts(store) == ["User plans to move to Lisbon in 2027."]
    assert rejected(store) == {
        "User works at Acme.": "skipped by the app's instructions: skip names 'employer'"
    }
    skipped = [d for d in decisions if d.status is Status.REJECTED]
    assert [d.fact for d in skipped] == ["User works at Acme."], "write_turn returns it too"


def test_a_chat_models_own_instructions_are_the_writers(store: MemoryStore) -> None:
    chat = chat_answering("User works at Acme.")
    model = ChatMemoryModel(chat, instructions=MemoryInstructions(skip=["work"]))
    writer = MemoryWriter(store, model)
    assert writer.instructions == MemoryInstructions(skip=["work"])
    writer.write_turn(U, [("user", "I work at Acme.")], now=T0)
    assert texts(store) == []
    assert "Do not extract facts about: work." in extraction_prompt(chat)
    # Given to the writer, its own replace the model's (the model it was given is unchanged).
    MemoryWriter(store, model, instructions=MemoryInstructions(keep=["employer"])).write_turn(
        "user:bob", [("user", "I work at Acme.")], now=T0
    )
    assert texts(store, "user:bob") == ["User works at Acme."]
    assert model.instructions == MemoryInstructions(skip=["work"])


# -- offline: the rules model ----------------------------------------------------------------


def test_skip_a_topic_offline_and_the_log_says_why(store: MemoryStore) -> None:
    writer = MemoryWriter(store, RulesModel(), instructions=MemoryInstructions(skip=["location"]))
    decisions = writer.write_turn(U, [("user", PUNE_AND_PEANUTS)], now=T0)
    assert texts(store) == ["User is allergic to peanuts."]
    assert rejected(store) == {
        "User lives in Pune.": "skipped by the app's instructions: skip names 'location'"
    }
    assert [(d.op.value, d.status.value) for d in decisions] == [
        ("NOOP", "rejected"),
        ("ADD", "applied"),
    ]
    # The episode keeps what was said: only the fact was not kept.
    assert [m.text for m in store.active(U) if m.is_episode] == [PUNE_AND_PEANUTS]


def test_keep_only_a_topic_offline(store: MemoryStore) -> None:
    writer = MemoryWriter(store, RulesModel(), instructions=MemoryInstructions(keep=["allergy"]))
    writer.write_turn(U, [("user", PUNE_AND_PEANUTS)], now=T0)
    assert texts(store) == ["User is allergic to peanuts."]
    assert rejected(store) == {
        "User lives in Pune.": "skipped by the app's instructions: keep names only 'allergy'"
    }


def test_a_rule_is_kept_unless_skip_names_rules(store: MemoryStore) -> None:
    said = [("user", "From now on, always answer in metric units. I live in Pune.")]
    keep = MemoryWriter(store, RulesModel(), instructions=MemoryInstructions(keep=["allergy"]))
    keep.write_turn(U, said, now=T0)
    [rule] = store.active(U, episodes=False)
    assert rule.kind is Kind.PROCEDURAL
    assert rule.text == "User wants the assistant to always answer in metric units."
    skip = MemoryWriter(store, RulesModel(), instructions=MemoryInstructions(skip=["rules"]))
    skip.write_turn("user:bob", said, now=T0)
    assert texts(store, "user:bob") == ["User lives in Pune."]
    assert rejected(store, "user:bob") == {
        rule.text: "skipped by the app's instructions: skip names 'rules'"
    }


def test_skip_wins_and_entries_match_groups_and_words() -> None:
    allergy = Fact("User is allergic to peanuts.", topic="allergy")
    assert MemoryInstructions(keep=["allergy"], skip=["peanuts"]).reason_to_skip(allergy) == (
        "skipped by the app's instructions: skip names 'peanuts'"
    )
    assert MemoryInstructions(keep=["Health"]).reason_to_skip(allergy) is None
    assert MemoryInstructions(keep=["allergies"]).reason_to_skip(allergy) is None
    assert MemoryInstructions(skip=["ice cream"]).reason_to_skip(Fact("User likes ice cream."))
    assert MemoryInstructions(skip=["cream ice"]).reason_to_skip(Fact("User likes ice cream.")) is (
        None
    ), "a few words match in their order"
    # A fact that names no topic (a chat model's) is read for one: "moved" is a location.
    assert MemoryInstructions(skip=["location"]).reason_to_skip(Fact("User moved to Lisbon."))
    assert MemoryInstructions(keep=["work"]).reason_to_skip(Fact("User works as a nurse.")) is None


def test_an_explicit_request_is_neither_guided_nor_filtered(store: MemoryStore) -> None:
    offline = MemoryWriter(store, RulesModel(), instructions=MemoryInstructions(skip=["location"]))
    offline.remember(U, "I live in Pune.", now=T0)
    assert texts(store) == ["User lives in Pune."]
    chat = chat_answering("User lives in Pune.")
    writer = MemoryWriter(store, chat, instructions=MemoryInstructions(skip=["location"]))
    writer.remember("user:bob", "I live in Pune.", now=T0)
    assert extraction_prompt(chat) == default_prompt()
    assert texts(store, "user:bob") == ["User lives in Pune."]


# -- the graph wirings ---------------------------------------------------------------------------


def graph_with_memory(**memory: Any) -> StateGraph[Any]:
    builder = StateGraph(MemoryState)
    builder.add_node("agent", lambda s: {"messages": [AIMessage("Noted.")]})
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return add_memory(builder, "agent", **memory)


@pytest.mark.parametrize("own_store", [True, False], ids=["store", "graphs-store"])
def test_add_memory_hands_the_instructions_to_its_writer(
    store: MemoryStore, own_store: bool
) -> None:
    wanted = MemoryInstructions(skip=["location"])
    memory: dict[str, Any] = {"model": RulesModel(), "instructions": wanted}
    if own_store:
        memory["store"] = store
    graph = graph_with_memory(**memory).compile(store=store, checkpointer=InMemorySaver())
    graph.invoke({"messages": [("user", PUNE_AND_PEANUTS)]}, RUN)
    assert texts(store) == ["User is allergic to peanuts."]
    assert "User lives in Pune." in rejected(store)


def test_the_middleware_and_the_hooks_hand_the_instructions_to_their_writer(
    store: MemoryStore,
) -> None:
    from langchain.agents import create_agent
    from langgraph.prebuilt import create_react_agent

    from langgraph_memory import MemoryMiddleware

    wanted = MemoryInstructions(keep=["allergy"])

    @dataclass
    class Ctx:
        user_id: str

    middleware = MemoryMiddleware(store, model=RulesModel(), instructions=wanted)
    agent = create_agent(
        ScriptedChatModel(default="Noted."), middleware=[middleware], context_schema=Ctx
    )
    agent.invoke({"messages": [("user", PUNE_AND_PEANUTS)]}, context=Ctx("alice"))
    assert texts(store) == ["User is allergic to peanuts."]
    with warnings.catch_warnings():  # create_react_agent is deprecated for create_agent
        warnings.simplefilter("ignore")
        react = create_react_agent(
            ScriptedChatModel(default="Noted."),
            [],
            **memory_hooks(model=RulesModel(), instructions=wanted),
            store=store,
        )
    react.invoke({"messages": [("user", PUNE_AND_PEANUTS)]}, {"configurable": {"user_id": "bob"}})
    assert texts(store, "user:bob") == ["User is allergic to peanuts."]


def test_a_writer_brings_its_own_instructions(store: MemoryStore) -> None:
    writer = MemoryWriter(store, RulesModel())
    both = "takes instructions= or writer=, not both"
    with pytest.raises(InvalidArgumentError, match=f"add_memory {both}"):
        graph_with_memory(writer=writer, instructions="Travel only.")
    with pytest.raises(InvalidArgumentError, match=f"memory_write_node {both}"):
        memory_write_node(writer, instructions="Travel only.")
    with pytest.raises(InvalidArgumentError, match=f"memory_hooks {both}"):
        memory_hooks(writer=writer, instructions=MemoryInstructions(skip=["pet"]))
    from langgraph_memory import MemoryMiddleware

    with pytest.raises(InvalidArgumentError, match=f"MemoryMiddleware {both}"):
        MemoryMiddleware(writer=writer, instructions="Travel only.")


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "error", "says"),
    [
        (lambda: MemoryInstructions(keep="allergy"), InvalidTypeError, r"keep=\['allergy'"),
        (lambda: MemoryInstructions(skip=[5]), InvalidTypeError, "must hold str entries"),
        (lambda: MemoryInstructions(skip=["location", " "]), InvalidArgumentError, "no word"),
        (lambda: MemoryInstructions(keep=["?!"]), InvalidArgumentError, "no word"),
        (lambda: MemoryInstructions(guidance=5), InvalidTypeError, "guidance must be a str"),
        (
            lambda: MemoryInstructions(keep=["pets"], skip=["pet"]),
            InvalidArgumentError,
            "in both keep and skip",
        ),
        (
            lambda: MemoryInstructions().reason_to_skip("User lives in Pune."),
            InvalidTypeError,
            "takes a Fact",
        ),
    ],
)
def test_bad_instructions_say_what_to_pass(make: Any, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=says):
        make()


def test_the_writer_refuses_what_is_not_instructions(store: MemoryStore) -> None:
    for bad in (5, ["location"], {"skip": ["location"]}):
        with pytest.raises(InvalidTypeError, match=r"MemoryInstructions\(skip=\['location'\]\)"):
            MemoryWriter(store, RulesModel(), instructions=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        ChatMemoryModel(ScriptedChatModel(), instructions=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        graph_with_memory(model=RulesModel(), instructions=5)
