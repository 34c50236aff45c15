"""Slots and reconciliation in the offline rules model: what a fact is about, and what
it does to the memories shown (NOOP, UPDATE, DELETE, ADD).

No store and no model: each test compares a fact with memories.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from langgraph_memory.records import Memory
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.rules.slots import slot_of
from langgraph_memory.write.types import Fact, Turn

#: A Monday, so that "next Friday" is 2026-03-06.
WHEN = datetime(2026, 3, 2, 15, 30, tzinfo=timezone.utc)


def memory(text: str, i: int = 0, **kw: object) -> Memory:
    return Memory(id=f"m{i:07d}", text=text, scope="user:t", created_at=WHEN, **kw)  # type: ignore[arg-type]


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


@pytest.mark.parametrize(
    ("held", "said", "op", "text"),
    [
        # a new employer said as a change replaces the old one
        ("User works at Acme.", "I just started a new job at Globex.", "UPDATE",
         "User works at Globex."),
        ("User works at Acme.", "I got a new job as a designer at Initech.", "UPDATE",
         "User works at Initech."),
        ("User works at Acme.", "I joined Hooli last month.", "UPDATE", "User works at Hooli."),
        # a correction: its lead words go, and so does the old value it names
        ("User lives in Pune.", "Correction: I live in Mumbai, not Pune.", "UPDATE",
         "User lives in Mumbai."),
        ("User works at Initech.", "Oops, I work at Globex, not Initech.", "UPDATE",
         "User works at Globex."),
        # a thing of the user's with a relative date, resolved on the turn's day, then moved
        ("User's dentist appointment is on 2026-03-06.",
         "My dentist appointment is next Monday now.", "UPDATE",
         "User's dentist appointment is on 2026-03-09."),
    ],
)  # fmt: skip
def test_a_changed_fact_replaces_the_held_one(held: str, said: str, op: str, text: str) -> None:
    model = RulesModel()
    turn_facts = model.extract(Turn.of([("user", said)], when=WHEN)).facts
    assert [f.text for f in turn_facts] == [text]
    choice = model.choose(turn_facts[0], [memory(held)], today=WHEN)
    assert (choice.op, choice.index, choice.text) == (op, 0, text)


def test_a_negation_said_twice_retires_the_held_fact() -> None:
    model = RulesModel()
    said = "I don't live in Pune, not anymore."
    [fact] = model.extract(Turn.of([("user", said)], when=WHEN)).facts
    assert fact.text == "User no longer lives in Pune."  # not "..., not."
    choice = model.choose(fact, [memory("User lives in Pune.")], today=WHEN)
    assert (choice.op, choice.index) == ("DELETE", 0)


def test_dated_events_and_plans_resolve_against_the_turns_day() -> None:
    said = "My dentist appointment is next Friday. I'm flying to Rome on Tuesday. I joined a gym."
    facts = RulesModel().extract(Turn.of([("user", said)], when=WHEN)).facts
    assert [f.text for f in facts] == [
        "User's dentist appointment is on 2026-03-06.",
        "User plans to fly to Rome on 2026-03-03.",
    ]
