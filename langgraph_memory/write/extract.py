"""Extraction: from a turn to candidate facts, whatever the model said.

``facts_from_output`` turns a model's parsed answer into ``Fact`` objects:
texts are stripped and bounded, importance (1..10 from the model) is clamped
and stored as 0..1, and facts from speakers that were not asked for are
dropped (by default only the user's own words become memories; assistant,
tool and document content is opt-in and carries lower trust).

>>> from datetime import datetime, timezone
>>> from langgraph_memory.write.offline import RulesModel
>>> when = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> turn = Turn.of([("user", "I'm allergic to peanuts.")], when=when)
>>> [f.text for f in extract(turn, model=RulesModel()).facts]
['User is allergic to peanuts.']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage

from langgraph_memory.tracing import trace_extract
from langgraph_memory.write.prompts.extract import ExtractionOutput
from langgraph_memory.write.types import (
    ROLE_OF_TYPE,
    SOURCE_OF_ROLE,
    TRUST_OF_ROLE,
    Extraction,
    Fact,
    MemoryModel,
    Role,
    Turn,
)

#: A fact is a sentence or two. Anything longer is not one fact: it is rejected
#: (and logged) rather than stored.
MAX_FACT_CHARS = 1_000
#: Speaker names a model may use, mapped to roles.
_ROLE_NAMES: dict[str, Role] = {**ROLE_OF_TYPE, "human": "user", "ai": "assistant"}
DEFAULT_IMPORTANCE = 5


def clamp_importance(value: Any) -> float:
    """A model's 1..10 importance, clamped, as 0..1; unreadable values count as 5.

    >>> clamp_importance(7), clamp_importance(42), clamp_importance("3"), clamp_importance(None)
    (0.7, 1.0, 0.3, 0.5)
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = DEFAULT_IMPORTANCE
    if math.isnan(number):
        number = DEFAULT_IMPORTANCE
    return min(10.0, max(1.0, number)) / 10.0


def facts_from_output(
    output: ExtractionOutput | None, raw: str, *, roles: Sequence[Role]
) -> Extraction:
    """Validate a parsed extraction answer into facts; ``None`` means unparseable."""
    if output is None:
        return Extraction((), raw, error="the model's answer is not the JSON asked for")
    facts: list[Fact] = []
    rejected: list[tuple[str, str]] = []
    for item in output.facts:
        text = item.text.strip() if isinstance(item.text, str) else ""
        speaker = str(item.speaker or "user").strip().lower()
        role = _ROLE_NAMES.get(speaker)
        if not text:
            rejected.append(("", "empty fact"))
        elif len(text) > MAX_FACT_CHARS:
            rejected.append((text[:200], f"fact of {len(text):,} characters: not one fact"))
        elif role is None or role not in roles:
            rejected.append((text, f"stated by {speaker!r}, not by {', '.join(roles)}"))
        else:
            facts.append(
                Fact(
                    text=text,
                    importance=clamp_importance(item.importance),
                    source=SOURCE_OF_ROLE[role],
                    trust=TRUST_OF_ROLE[role],
                )
            )
    return Extraction(tuple(facts), raw, tuple(rejected))


@trace_extract  # a `memory.extract` run when LangSmith tracing is on
def extract(
    turn: Turn | Iterable[BaseMessage | tuple[str, str] | dict[str, Any]],
    *,
    model: MemoryModel,
    today: datetime | None = None,
    roles: Sequence[Role] = ("user",),
) -> Extraction:
    """Candidate facts of one turn, with importance in 0..1.

    ``today`` (default: the turn's time) is the date relative dates resolve
    against. Facts repeated within the turn are kept once.
    """
    turn = Turn.of(turn, when=today)
    result = model.extract(turn, roles=tuple(roles))
    seen: set[str] = set()
    unique = []
    for fact in result.facts:
        key = " ".join(fact.text.lower().split()).rstrip(".")
        if key not in seen:
            seen.add(key)
            unique.append(fact)
    return Extraction(tuple(unique), result.raw, result.rejected, result.error)
