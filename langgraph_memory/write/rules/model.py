"""``RulesModel``: the offline ``MemoryModel``, wiring the reading and the slots.

Each message is split into sentences and read by its speaker's person; each fact
found becomes a ``Fact`` with an importance by its kind, the speaker's source and
trust, and its date; choices are made by slot (see ``slots``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from langgraph_memory.records import Memory, Source, Trust
from langgraph_memory.write.rules import slots
from langgraph_memory.write.rules.facts import read_sentence
from langgraph_memory.write.rules.grammar import Person, sentences
from langgraph_memory.write.types import (
    SOURCE_OF_ROLE,
    TRUST_OF_ROLE,
    Choice,
    Extraction,
    Fact,
    Role,
    Turn,
    check_choose_args,
    check_extract_args,
)

__all__ = ["IMPORTANCE", "RulesModel"]

#: Importance by kind of fact: what hurts most to forget ranks highest.
IMPORTANCE: dict[str, float] = {
    "allergy": 0.9,
    "intolerance": 0.9,
    "name": 0.8,
    "location": 0.7,
    "origin": 0.5,
    "diet": 0.7,
    "remember": 0.7,
    "employer": 0.6,
    "job": 0.6,
    "age": 0.6,
    "spouse": 0.6,
    "pet": 0.6,
    "relationship": 0.6,
    "preference": 0.5,
    "favourite": 0.5,
    "habit": 0.5,
    "plan": 0.5,
    "rule": 0.7,
}


#: The most sentences and words of a message in which the user sets, changes or cancels
#: a standing instruction: longer ones are pasted documents and briefs for the task at
#: hand (on LongMemEval S user turns, most sentences the classifier of acts takes for
#: rules stand in them).
MAX_RULE_MESSAGE = (4, 80)


class RulesModel:
    """Deterministic extraction and slot-based reconciliation, no LLM.

    >>> from datetime import datetime, timezone
    >>> model = RulesModel()
    >>> t = Turn.of([("user", "I moved to Pune last week.")],
    ...             when=datetime(2026, 3, 2, tzinfo=timezone.utc))
    >>> fact = model.extract(t).facts[0]
    >>> fact.text, fact.importance, fact.event_time.date().isoformat()
    ('User lives in Pune.', 0.7, '2026-02-23')
    >>> old = Memory(id="0a1b2c3d", text="User lives in Delhi.", scope="user:a",
    ...              created_at=datetime(2026, 1, 5, tzinfo=timezone.utc))
    >>> c = model.choose(fact, [old], today=t.when)
    >>> c.op, c.index, c.text
    ('UPDATE', 0, 'User lives in Pune.')
    """

    name = "rules"

    def extract(self, turn: Turn, *, roles: Sequence[Role] = ("user",)) -> Extraction:
        """Facts stated in ``turn`` by the given roles, one per recognised statement.

        Questions, greetings, thanks and anything no rule reads are skipped.
        """
        roles = check_extract_args(turn, roles)
        today = turn.when.date()
        facts: list[Fact] = []
        matched: list[list[str]] = []
        skipped = 0
        seen: set[str] = set()
        for message in turn.by(roles):
            person: Person = "first" if message.role == "user" else "second"
            said = sentences(message.content)
            # A standing instruction is said in a short message of its own, not inside a
            # pasted document or a task's long brief (see ``standing``).
            most_sentences, most_words = MAX_RULE_MESSAGE
            brief = len(said) <= most_sentences and len(message.content.split()) <= most_words
            for sentence in said:
                reading = read_sentence(sentence, person, today, rules_too=brief)
                skipped += reading.skipped
                # "Remember that ..." is a request to remember only in the user's own words.
                explicit = reading.explicit and message.role == "user"
                for item in reading.found:
                    if item.text in seen:
                        continue
                    seen.add(item.text)
                    source = SOURCE_OF_ROLE[message.role]
                    importance = IMPORTANCE.get(item.family, 0.5)
                    if explicit:
                        source, importance = Source.EXPLICIT, max(importance, 0.7)
                    facts.append(
                        Fact(
                            text=item.text,
                            importance=importance,
                            source=source,
                            trust=TRUST_OF_ROLE[message.role] if not explicit else Trust.HIGH,
                            kind=item.kind,
                            event_time=item.at,
                            # "Remember that ..." read as free text names no family.
                            topic=item.family if item.family != "remember" else None,
                        )
                    )
                    matched.append([item.family, item.text])
        raw = json.dumps(
            {"model": "rules", "matched": matched, "skipped": skipped}, ensure_ascii=False
        )
        return Extraction(facts=tuple(facts), raw=raw)

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        """NOOP, UPDATE, DELETE or ADD for ``fact`` by its slot, else by its text
        (``slots.choose``); ``today`` is not needed by slots."""
        check_choose_args([fact], shown, today)
        return slots.choose(fact, shown)

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        """One choice per fact, in order, each seeing what the earlier ones did
        (``slots.choose_batch``)."""
        check_choose_args(facts, shown, today)
        return slots.choose_batch(facts, shown)
