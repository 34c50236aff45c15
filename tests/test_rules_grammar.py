"""The English of the offline rules: a first-person sentence in the third person."""

from __future__ import annotations

from langgraph_memory.write.rules.grammar import third_person


def test_third_person() -> None:
    assert third_person("I have two cats and my wife hates them") == (
        "User has two cats and User's wife hates them."
    )
    assert third_person("I study at night") == "User studies at night."
