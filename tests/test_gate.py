"""The extraction gate: what it must pass, what it may skip, and its recall on real data."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.gate_recall import ORACLE, GateCase, longmemeval_oracle, measure
from langgraph_memory.write.gate import may_hold_fact

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

MUST_PASS = [
    # Plain first-person statements, anywhere in the message and in any case or apostrophe.
    "I moved to Pune last week.",
    "i\u2019m allergic to peanuts",
    "ive been running every morning",
    "I have two cats.",
    "We just adopted a puppy!",
    "Thanks! By the way, my sister is getting married in June.",
    "Sarah gave me a watch for our anniversary.",
    # Questions that also carry a statement about the user.
    "I'm vegetarian, what should I cook?",
    "My daughter turns 5 next week \u2014 any party ideas?",
    "What should I get for my wife?",
    "Where can we eat near the hotel, since I'm gluten-free?",
    "Do you know if I need a permit to camp there?",
    # Explicit memory requests.
    "Remember that Tom's birthday is on March 3.",
    "Please don't forget: no calls before 9.",
    "Call me Sam.",
    # Statements without a first-person word: answers to the assistant's questions, fragments.
    "Around $500.",
    "She moved to Chicago.",
    "Allergic to shellfish.",
    "Going to Paris in May!",
    "It's Shia LaBeouf!",
    # A long request that embeds personal facts (the common LongMemEval evidence shape).
    "Can you suggest some jogging routes? Oh, and by the way, I'm planning to play tennis "
    "with my friends at the local park this Sunday, like we do every other week.",
]

MAY_SKIP = [
    "ok",
    "cool",
    "lol",
    "thanks!",
    "Thank you so much!",
    "Hi there",
    "Hey Caroline! Good to see you!",
    "Good morning!",
    "Bye, see you later!",
    "Sounds great, thanks a lot!",
    "Got it, thanks.",
    "I see.",
    "Okay, I agree!",
    "What's the weather?",
    "Can you help me write a poem?",
    "How do I reverse a list in Python?",
    "Tell me a joke.",
    "Ok, now summarize this article for me.",
    "Is there a vegan place near the station?",
    "You're right.",
    # Look-alikes of first-person contractions without the apostrophe, and inverted "I".
    "Well, thanks!",
    "Were you able to fix it?",
    "Do I have to pay for parking?",
    "",
]


@pytest.mark.parametrize("text", MUST_PASS)
def test_passes_turns_that_may_hold_a_fact(text: str) -> None:
    assert may_hold_fact(text)


@pytest.mark.parametrize("text", MAY_SKIP)
def test_skips_questions_greetings_and_small_talk(text: str) -> None:
    assert not may_hold_fact(text)


def test_recall_and_skip_share_on_an_inline_fixture() -> None:
    turns = [GateCase(t, True) for t in MUST_PASS] + [GateCase(t, False) for t in MAY_SKIP]
    result = measure("fixture", turns)
    assert result.recall == 1.0
    assert result.skip_share == len(MAY_SKIP) / len(turns)
    assert result.misses == []


@pytest.mark.skipif(not (DATA / ORACLE).exists(), reason=f"no benchmark data at {DATA}")
def test_recall_on_longmemeval_oracle_is_at_least_098() -> None:
    result = measure("oracle", longmemeval_oracle(DATA / ORACLE))
    assert result.evidence > 800, "the oracle file has 834 evidence user turns"
    assert result.recall >= 0.98, result.misses[:10]
