"""Standing instructions through the product path, offline: a graph with the read node
before the agent and the write node after it (``add_memory``, the rules model), a rule
set in the user's own words, twenty unrelated turns, then a change or a cancel in other
words, and an unrelated question: what the agent is shown then."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph

from langgraph_memory import MemoryStore
from langgraph_memory.graph import MemoryState, add_memory
from langgraph_memory.read import rules_of
from langgraph_memory.write import RulesModel

ANN = {"configurable": {"user_id": "ann", "thread_id": "t1"}}
#: Unrelated turns between the rule and the question: facts, questions, small talk.
CHATTER = [
    "I adopted a cat called Miso last spring.",
    "What's a good stretch for a stiff neck?",
    "My sister lives in Lisbon.",
    "Thanks, that helped!",
    "I started learning the cello in January.",
    "How long should I boil an egg?",
    "We're repainting the kitchen this weekend.",
    "Any tips for sleeping on a plane?",
    "I work as a nurse at the city hospital.",
    "lol that's funny",
    "What's the capital of Australia?",
    "I'm allergic to shellfish.",
    "Can you recommend a podcast about history?",
    "My dad turns 70 in May.",
    "How do I descale a kettle?",
    "I prefer trains to planes.",
    "What rhymes with orange?",
    "I ran my first 10k last month.",
    "Is it going to rain in Paris tomorrow?",
    "Good morning!",
]


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def chat_graph(store: MemoryStore, seen: list[str]) -> Any:
    def agent(state: MemoryState) -> dict[str, Any]:
        seen.append(state.get("memories", ""))
        return {"messages": [AIMessage("Sure.")]}

    builder = StateGraph(MemoryState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    add_memory(builder, "agent", store=store, model=RulesModel())
    return builder.compile()


def talk(graph: Any, *texts: str) -> None:
    for text in texts:
        graph.invoke({"messages": [("user", text)]}, ANN)


def test_a_rule_in_other_words_is_shown_after_twenty_unrelated_turns(store: MemoryStore) -> None:
    seen: list[str] = []
    graph = chat_graph(store, seen)
    talk(graph, "Please keep every answer under 100 words from now on.", *CHATTER)
    talk(graph, "What should I cook tonight?")
    assert "keep every answer under 100 words" in seen[-1]


def test_a_limit_changed_by_make_that_replaces_the_rule_with_its_history(
    store: MemoryStore,
) -> None:
    seen: list[str] = []
    graph = chat_graph(store, seen)
    talk(graph, "Please keep every answer under 100 words from now on.", *CHATTER)
    talk(graph, "Make that 50 words.", "What should I cook tonight?")
    assert "keep every answer under 50 words" in seen[-1] and "100 words" not in seen[-1]
    (rule,) = rules_of(store, "user:ann")
    assert [m.text.split(" under ")[1] for m in store.history("user:ann", rule.id)] == [
        "100 words.",
        "50 words.",
    ]


def test_a_cancel_in_other_words_retires_the_rule(store: MemoryStore) -> None:
    seen: list[str] = []
    graph = chat_graph(store, seen)
    talk(graph, "Always reply in Spanish, please.", *CHATTER)
    assert rules_of(store, "user:ann")
    talk(graph, "The Spanish thing is over, English is fine.", "What rhymes with purple?")
    assert rules_of(store, "user:ann") == () and "Spanish" not in seen[-1]


def test_a_cancel_and_a_new_rule_in_one_sentence_do_both(store: MemoryStore) -> None:
    seen: list[str] = []
    graph = chat_graph(store, seen)
    talk(graph, "From now on, use bullet points.", *CHATTER[:5])
    talk(graph, "Stop using bullet points and use numbered lists instead.", "Hi again!")
    assert [m.text for m in rules_of(store, "user:ann")] == [
        "User wants the assistant to use numbered lists."
    ]
    # The rule is gone; what the user said stays, shown as said earlier.
    assert "numbered lists" in seen[-1] and "assistant to use bullet points" not in seen[-1]


def test_requests_of_the_moment_and_chatter_set_no_rule(store: MemoryStore) -> None:
    graph = chat_graph(store, [])
    talk(graph, "Write each row as a comma-separated sentence.", "Ok, now summarise this for me.")
    talk(graph, *CHATTER)
    assert rules_of(store, "user:ann") == ()


@pytest.mark.parametrize(
    ("rule", "cancel"),
    [
        (
            "From now on, end every reply with a motivational quote.",
            "no more motivational quotes, I get my own",
        ),
        (
            "Always finish with a summary of the day's tasks, every evening.",
            "No more daily summaries, I've stopped reading them.",
        ),
    ],
)
def test_a_cancel_that_starts_with_no_retires_the_rule(
    store: MemoryStore, rule: str, cancel: str
) -> None:
    # "No" leads "No, I live in Pune" (a correction); leading "No more ..." or "No need
    # to ..." it is the cancel itself.
    seen: list[str] = []
    graph = chat_graph(store, seen)
    talk(graph, rule, *CHATTER[:5])
    assert rules_of(store, "user:ann")
    talk(graph, cancel, "What rhymes with purple?")
    assert rules_of(store, "user:ann") == ()


def test_a_rule_that_starts_with_wait_is_kept_whole(store: MemoryStore) -> None:
    graph = chat_graph(store, [])
    talk(graph, "Wait for my go-ahead before you book anything, always.")
    (kept,) = rules_of(store, "user:ann")
    assert "Wait for User's go-ahead before you book anything" in kept.text


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("Call me Sam, please.", "Call User Sam"),
        ("Please address me as Professor Lee.", "address User as Professor Lee"),
        ("Keep it to one joke per reply.", "one joke per reply"),
    ],
)
def test_a_rule_that_lasts_by_what_it_asks_is_kept_without_always(
    store: MemoryStore, said: str, shown: str
) -> None:
    # How to address the user holds once said, as does a limit per reply: no "always"
    # or "from now on" is needed to make them last.
    seen: list[str] = []
    graph = chat_graph(store, seen)
    talk(graph, said, *CHATTER, "What should I cook tonight?")
    assert shown in seen[-1]
