"""The offline rules model reads facts: its patterns, clauses, negations, plans and speakers.

No store and no model: each test reads a turn with ``RulesModel.extract``.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from langgraph_memory.records import Kind, Source, Trust
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.rules.slots import slot_of
from langgraph_memory.write.types import MemoryModel, Turn

#: A Monday, so that "next Friday" is 2026-03-06.
WHEN = datetime(2026, 3, 2, 15, 30, tzinfo=timezone.utc)


def texts(*messages: tuple[str, str], roles: tuple[str, ...] = ("user",)) -> list[str]:
    turn = Turn.of(list(messages), when=WHEN)
    return [f.text for f in RulesModel().extract(turn, roles=roles).facts]  # type: ignore[arg-type]


def said(text: str) -> list[str]:
    return texts(("user", text))


def test_is_a_memory_model() -> None:
    model = RulesModel()
    assert isinstance(model, MemoryModel)
    assert model.name == RulesModel.name == "rules"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My name is Alice.", ["User's name is Alice."]),
        ("I'm called Alice", ["User's name is Alice."]),
        ("Call me Alice.", ["User's name is Alice."]),
        ("Hi, I'm Alice!", ["User's name is Alice."]),
        ("I live in Pune.", ["User lives in Pune."]),
        ("I moved to Pune.", ["User lives in Pune."]),
        ("I've just moved to Pune.", ["User lives in Pune."]),
        ("I'm based in Pune.", ["User lives in Pune."]),
        ("i live in new york now", ["User lives in New York."]),
        ("I'm from Pune.", ["User is from Pune."]),
        ("I work at Acme.", ["User works at Acme."]),
        ("I work for Acme.", ["User works at Acme."]),
        ("I work as a nurse.", ["User works as a nurse."]),
        ("I work as engineer.", ["User works as an engineer."]),
        ("I'm a software engineer.", ["User works as a software engineer."]),
        ("I'm a big fan of jazz.", ["User likes jazz."]),
        ("Please call me Sam from now on.", ["User's name is Sam."]),
        ("I'm vegetarian.", ["User is vegetarian."]),
        ("I am a vegan.", ["User is vegan."]),
        ("I'm allergic to peanuts.", ["User is allergic to peanuts."]),
        ("I have a peanut allergy.", ["User has a peanut allergy."]),
        ("I'm lactose intolerant.", ["User is lactose intolerant."]),
        ("I prefer metric units.", ["User prefers metric units."]),
        ("I like jazz.", ["User likes jazz."]),
        ("I love hiking.", ["User loves hiking."]),
        ("I can't stand country music.", ["User dislikes country music."]),
        ("My favourite food is sushi.", ["User's favourite food is sushi."]),
        ("My favorite food is sushi.", ["User's favourite food is sushi."]),
        ("My sister lives in Delhi.", ["User's sister lives in Delhi."]),
        ("My wife is called Maria.", ["User's wife is called Maria."]),
        ("My wife's name is Maria.", ["User's wife is called Maria."]),
        ("I have a sister named Priya.", ["User's sister is called Priya."]),
        ("I have a dog named Rex.", ["User has a dog named Rex."]),
        ("My dog is called Rex.", ["User has a dog named Rex."]),
        ("I'm 34.", ["User is 34 years old."]),
        ("I'm married to Maria.", ["User is married to Maria."]),
    ],
)
def test_first_person_patterns(text: str, expected: list[str]) -> None:
    assert said(text) == expected


def test_allergy_lists_become_one_fact_each() -> None:
    assert said("I'm allergic to peanuts, shellfish and penicillin.") == [
        "User is allergic to peanuts.",
        "User is allergic to shellfish.",
        "User is allergic to penicillin.",
    ]


def test_and_splits_clauses_but_not_objects() -> None:
    assert said("I live in Pune and work at Acme.") == [
        "User lives in Pune.",
        "User works at Acme.",
    ]
    assert said("I like rock and roll.") == ["User likes rock and roll."]
    assert said("I'm vegan and my sister lives in Delhi.") == [
        "User is vegan.",
        "User's sister lives in Delhi.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I no longer eat meat.", "User no longer eats meat."),
        ("I stopped eating meat.", "User no longer eats meat."),
        ("I don't live in Delhi anymore.", "User no longer lives in Delhi."),
        ("I'm not vegetarian anymore.", "User is no longer vegetarian."),
        ("I don't work at Acme anymore.", "User no longer works at Acme."),
        ("I quit my job at the bank last week.", "User no longer works at the bank."),
        ("I'm no longer allergic to cats.", "User is no longer allergic to cats."),
        ("I don't eat pork.", "User does not eat pork."),
        ("I don't like jazz.", "User does not like jazz."),
    ],
)
def test_negations(text: str, expected: str) -> None:
    assert said(text) == [expected]


def test_remember_that_is_explicit_and_third_person() -> None:
    turn = Turn.of([("user", "Remember that my wifi password is hunter2.")], when=WHEN)
    (fact,) = RulesModel().extract(turn).facts
    assert fact.text == "User's wifi password is hunter2."
    assert fact.source is Source.EXPLICIT and fact.importance == 0.7
    # a known pattern inside "remember that" keeps its canonical form and its importance
    turn = Turn.of([("user", "Please remember that I'm allergic to cats.")], when=WHEN)
    (fact,) = RulesModel().extract(turn).facts
    assert (fact.text, fact.importance, fact.source) == (
        "User is allergic to cats.",
        0.9,
        Source.EXPLICIT,
    )
    assert said("Can you remember that I'm vegan?") == ["User is vegan."]
    assert said("Remember to call mom.") == []


def test_plans_are_plans_with_their_date() -> None:
    for text in (
        "I might move to Pune next year.",
        "I may move to Pune next year.",
        "I plan to move to Pune next year.",
        "I'm going to move to Pune next year.",
        "I'm planning to move to Pune in 2027.",
    ):
        turn = Turn.of([("user", text)], when=WHEN)
        (fact,) = RulesModel().extract(turn).facts
        assert fact.text == "User plans to move to Pune in 2027.", text
        assert fact.kind is Kind.EPISODIC
        assert fact.event_time == datetime(2027, 1, 1, tzinfo=timezone.utc)
        assert slot_of(fact.text) != slot_of("User lives in Pune.")
    assert said("I'm going to visit Japan next month.") == [
        "User plans to visit Japan in April 2026."
    ]
    assert said("I'm thinking of moving to Lisbon.") == ["User plans to move to Lisbon."]
    assert said("I might be late tomorrow.") == []  # not a plan verb


def test_dates_in_facts() -> None:
    turn = Turn.of([("user", "I'm moving to Oslo next Friday.")], when=WHEN)
    (fact,) = RulesModel().extract(turn).facts
    assert fact.text == "User plans to move to Oslo on 2026-03-06."
    assert fact.event_time == datetime(2026, 3, 6, tzinfo=timezone.utc)
    turn = Turn.of([("user", "I moved to Pune last week.")], when=WHEN)
    (fact,) = RulesModel().extract(turn).facts
    assert fact.text == "User lives in Pune."  # a move is a change; its date is the event time
    assert fact.event_time == datetime(2026, 2, 23, tzinfo=timezone.utc)
    assert said("Remember that I'm seeing the dentist next Friday.") == [
        "User is seeing the dentist on 2026-03-06."
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Hi!",
        "Hello, how are you?",
        "Thanks, that's great.",
        "Good morning",
        "Do you know where I live?",
        "Where do I live?",
        "What's the weather in Pune?",
        "Can you recommend a restaurant?",
        "If I lived in Pune I would be happy.",
        "I'm tired.",
        "I used to live in Delhi.",
        "lol ok",
    ],
)
def test_skips_small_talk_questions_and_hypotheticals(text: str) -> None:
    assert said(text) == []


def test_facts_about_other_people_stay_attached() -> None:
    facts = said("My sister lives in Delhi. My son is allergic to eggs. My boss works at Acme.")
    assert facts == [
        "User's sister lives in Delhi.",
        "User's son is allergic to eggs.",
        "User's boss works at Acme.",
    ]
    assert slot_of(facts[0]) == ("sister.location", "delhi")
    assert not any(f.startswith("User ") for f in facts)


def test_importance_by_slot() -> None:
    turn = Turn.of(
        [
            (
                "user",
                "I'm allergic to peanuts. My name is Alice. I live in Pune. I work at Acme. "
                "I like jazz. My sister lives in Delhi. I might move to Oslo next year.",
            )
        ],
        when=WHEN,
    )
    extraction = RulesModel().extract(turn)
    assert [f.importance for f in extraction.facts] == [0.9, 0.8, 0.7, 0.6, 0.5, 0.6, 0.5]
    raw = json.loads(extraction.raw or "")
    assert raw["model"] == "rules" and len(raw["matched"]) == 7


def test_assistant_facts_only_when_asked_and_with_lower_trust() -> None:
    messages = [("user", "Where should I eat?"), ("assistant", "You are vegan, so try Leaf.")]
    assert texts(*messages) == []
    turn = Turn.of(messages, when=WHEN)
    (fact,) = RulesModel().extract(turn, roles=("user", "assistant")).facts
    assert fact.text == "User is vegan."
    assert (fact.source, fact.trust) == (Source.ASSISTANT, Trust.MEDIUM)
    # the assistant's "I" is the assistant, never the user
    assert texts(("assistant", "I live in the cloud. I like jazz."), roles=("assistant",)) == []
    assert texts(("user", "I live in Pune."), roles=("assistant",)) == []


def test_deterministic() -> None:
    text = (
        "Hi! I'm Alice and I live in Pune. I'm allergic to peanuts and shellfish. "
        "My sister lives in Delhi. I might move to Oslo next year. Remember that my PIN hint is "
        "my first cat. How are you?"
    )
    runs = [RulesModel().extract(Turn.of([("user", text)], when=WHEN)) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0].facts) == 7
    assert json.loads(runs[0].raw or "")["skipped"] == 1
