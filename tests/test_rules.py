"""The offline rules model: extraction patterns, dates, slots and reconciliation.

No store and no model: each test reads a turn or compares a fact with memories.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from langgraph_memory.model import Kind, Memory, Source, Trust
from langgraph_memory.write.rules import RulesModel, resolve_date, slot_of, third_person
from langgraph_memory.write.types import Fact, MemoryModel, Turn

#: A Monday, so that "next Friday" is 2026-03-06.
WHEN = datetime(2026, 3, 2, 15, 30, tzinfo=timezone.utc)


def texts(*messages: tuple[str, str], roles: tuple[str, ...] = ("user",)) -> list[str]:
    turn = Turn.of(list(messages), when=WHEN)
    return [f.text for f in RulesModel().extract(turn, roles=roles).facts]  # type: ignore[arg-type]


def said(text: str) -> list[str]:
    return texts(("user", text))


def memory(text: str, i: int = 0, **kw: object) -> Memory:
    return Memory(id=f"m{i:07d}", text=text, scope="user:t", created_at=WHEN, **kw)  # type: ignore[arg-type]


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


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("today", "on 2026-03-02"),
        ("tonight", "on 2026-03-02"),
        ("tomorrow", "on 2026-03-03"),
        ("yesterday", "on 2026-03-01"),
        ("the day after tomorrow", "on 2026-03-04"),
        ("next Friday", "on 2026-03-06"),
        ("next Monday", "on 2026-03-09"),
        ("last Friday", "on 2026-02-27"),
        ("last Monday", "on 2026-02-23"),
        ("next week", "in the week of 2026-03-09"),
        ("last week", "in the week of 2026-02-23"),
        ("next month", "in April 2026"),
        ("last month", "in February 2026"),
        ("next year", "in 2027"),
        ("last year", "in 2025"),
        ("in 3 days", "on 2026-03-05"),
        ("in two weeks", "on 2026-03-16"),
        ("in 11 months", "in February 2027"),
        ("3 days ago", "on 2026-02-27"),
    ],
)
def test_relative_dates(phrase: str, expected: str) -> None:
    assert resolve_date(f"I fly to Oslo {phrase}", WHEN) == f"I fly to Oslo {expected}"


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


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("User lives in Pune.", ("location", "pune")),
        ("User's sister lives in Delhi.", ("sister.location", "delhi")),
        ("User is allergic to peanuts.", ("allergy:peanut", "yes")),
        ("User has a peanut allergy.", ("allergy:peanut", "yes")),
        ("User prefers metric units.", ("preference:units", "metric")),
        ("User prefers imperial units.", ("preference:units", "imperial")),
        ("User prefers Fahrenheit.", ("preference:temperature", "fahrenheit")),
        ("User prefers window seats.", ("preference:seat", "window")),
        ("User likes jazz.", ("preference:jazz", "likes")),
        ("User hates jazz.", ("preference:jazz", "dislikes")),
        ("User's name is Alice.", ("name", "alice")),
        ("User's wife is called Maria.", ("wife.name", "maria")),
        ("User has a dog named Rex.", ("pet:dog", "rex")),
        ("User works at Acme.", ("employer", "acme")),
        ("User works as a nurse.", ("job", "nurse")),
        ("User is a nurse.", ("job", "nurse")),
        ("User is vegan.", ("diet", "vegan")),
        ("User's favourite food is sushi.", ("favourite:food", "sushi")),
        ("User no longer lives in Delhi.", ("location", "!delhi")),
        ("User is no longer vegetarian.", ("diet", "!vegetarian")),
        ("User plans to move to Pune in 2027.", ("plan:move", "pune in 2027")),
        ("The sky is blue.", None),
    ],
)
def test_slot_of(text: str, slot: tuple[str, str] | None) -> None:
    assert slot_of(text) == slot


def choose(fact: str, *shown: str) -> tuple[object, object, object]:
    c = RulesModel().choose(Fact(fact), [memory(t, i) for i, t in enumerate(shown)], today=WHEN)
    assert json.loads(c.raw or "")["model"] == "rules"
    return c.op, c.index, c.text


def test_same_slot_new_value_updates_the_right_memory() -> None:
    shown = ("User likes jazz.", "User's sister lives in Delhi.", "User lives in Delhi.")
    assert choose("User lives in Pune.", *shown) == ("UPDATE", 2, "User lives in Pune.")
    assert choose("User is vegan.", "User is vegetarian.") == ("UPDATE", 0, "User is vegan.")
    assert choose(
        "User prefers imperial units.", "User likes tea.", "User prefers metric units."
    ) == (
        "UPDATE",
        1,
        "User prefers imperial units.",
    )


def test_same_value_is_noop() -> None:
    assert choose("User lives in Pune.", "User likes jazz.", "User lives in pune.") == (
        "NOOP",
        1,
        None,
    )
    assert choose("User is allergic to peanuts.", "User has a peanut allergy.")[:2] == ("NOOP", 0)


def test_negation_deletes() -> None:
    shown = ("User likes jazz.", "User is vegetarian.")
    assert choose("User is no longer vegetarian.", *shown) == ("DELETE", 1, None)
    assert choose("User no longer lives in Delhi.", "User lives in Delhi.")[:2] == ("DELETE", 0)
    assert choose("User does not like jazz.", *shown)[:2] == ("DELETE", 0)
    # negating a value that is not held changes nothing
    assert choose("User no longer lives in Delhi.", "User lives in Pune.")[:2] == ("NOOP", 0)
    assert choose("User no longer plans to move to Pune.", "User plans to move to Pune in 2027.")[
        :2
    ] == ("DELETE", 0)


def test_unrelated_is_added_and_same_text_is_noop() -> None:
    shown = ("User likes jazz.", "User lives in Pune.")
    assert choose("User is allergic to peanuts.", *shown) == (
        "ADD",
        None,
        "User is allergic to peanuts.",
    )
    assert choose("User's wifi password is hunter2.", *shown)[0] == "ADD"
    assert choose("User's wifi password is hunter2", "User's Wifi password is hunter2.")[:2] == (
        "NOOP",
        0,
    )


def test_other_people_and_plans_never_change_the_user() -> None:
    assert choose("User's sister lives in Delhi.", "User lives in Pune.")[0] == "ADD"
    assert choose("User plans to move to Delhi in 2027.", "User lives in Pune.")[0] == "ADD"
    assert choose("User lives in Delhi.", "User's sister lives in Pune.")[0] == "ADD"


def test_closed_memories_are_not_targets() -> None:
    closed = memory("User lives in Delhi.", valid_until=WHEN)
    c = RulesModel().choose(Fact("User lives in Pune."), [closed], today=WHEN)
    assert c.op == "ADD"


def test_batch_in_order() -> None:
    model = RulesModel()
    shown = [memory("User lives in Delhi.", 0), memory("User is vegetarian.", 1)]
    facts = [
        Fact("User likes jazz."),
        Fact("User likes jazz."),
        Fact("User lives in Pune."),
        Fact("User lives in Pune."),
        Fact("User is no longer vegetarian."),
        Fact("User is vegan."),
    ]
    got = [(c.op, c.index) for c in model.choose_batch(facts, shown, today=WHEN)]
    assert got == [
        ("ADD", None),
        ("NOOP", None),  # said earlier in this batch
        ("UPDATE", 0),
        ("NOOP", 0),  # memory 0 now says Pune
        ("DELETE", 1),
        ("ADD", None),  # the diet slot was emptied by the DELETE
    ]
    singles = [model.choose(f, shown, today=WHEN) for f in facts[:1]]
    assert [(c.op, c.index) for c in singles] == got[:1]


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


def test_third_person() -> None:
    assert third_person("I have two cats and my wife hates them") == (
        "User has two cats and User's wife hates them."
    )
    assert third_person("I study at night") == "User studies at night."
