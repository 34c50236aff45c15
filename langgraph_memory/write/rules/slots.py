"""Slots: what a fact is about, and what a new fact does to the memories shown.

A slot names what a fact fills (``location``, ``sister.location``, ``allergy:peanut``,
``preference:units``), with the value it fills it with. Reconciliation compares by
slot, never by meaning: the same slot and value -> NOOP; a new value -> UPDATE; a
negation of the held value -> DELETE; a fact no rule reads is compared by its text
(the same text -> NOOP, else ADD). Each choice carries its rule in ``raw`` for the log.

>>> from datetime import datetime, timezone
>>> held = Memory(id="a1", text="User prefers metric units.", scope="user:a",
...               created_at=datetime(2026, 3, 2, tzinfo=timezone.utc))
>>> choose(Fact("User prefers imperial units."), [held]).op
'UPDATE'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from langgraph_memory.records import Memory
from langgraph_memory.write.rules.facts import read_clause
from langgraph_memory.write.rules.grammar import expand_contractions
from langgraph_memory.write.rules.instructions import (
    AMOUNT,
    CHANGE_SLOT,
    DROP_SLOT,
    content_stems,
    rule_slot,
)
from langgraph_memory.write.types import Choice, Fact

__all__ = ["choose", "choose_batch", "slot_of", "topic_of"]


def slot_of(text: str) -> tuple[str, str] | None:
    """The (slot, value) a canonical fact text is about, or None if no rule reads it.

    A negation's value starts with "!".

    >>> slot_of("User lives in Pune.")
    ('location', 'pune')
    >>> slot_of("User's sister lives in Delhi.")
    ('sister.location', 'delhi')
    >>> slot_of("User is allergic to peanuts.")
    ('allergy:peanut', 'yes')
    >>> slot_of("User prefers metric units.")
    ('preference:units', 'metric')
    >>> slot_of("User no longer lives in Delhi.")
    ('location', '!delhi')
    >>> slot_of("User plans to move to Pune in 2027.")
    ('plan:move', 'pune in 2027')
    >>> slot_of("The sky is blue.") is None
    True
    """
    rule = rule_slot(text)
    if rule is not None:
        return rule
    found = read_clause(expand_contractions(text), "canonical", date(2000, 1, 1))
    return (found[0].slot, found[0].value) if found else None


def topic_of(text: str) -> str | None:
    """The family of fact a canonical fact text is about, as the rules read it
    (``location``, ``allergy``, ``employer``, ``relationship`` ...; ``rule`` for a
    rule's text), or None if no rule reads it: what a fact from a model that names no
    topic is matched by in ``MemoryInstructions``.

    >>> topic_of("User lives in Pune."), topic_of("User is allergic to peanuts.")
    ('location', 'allergy')
    >>> topic_of("User's sister lives in Delhi."), topic_of("User works at Acme.")
    ('relationship', 'employer')
    >>> topic_of("User wants the assistant to always answer in metric units.")
    'rule'
    >>> topic_of("The sky is blue.") is None
    True
    """
    if rule_slot(text) is not None:
        return "rule"
    found = read_clause(expand_contractions(text), "canonical", date(2000, 1, 1))
    return found[0].family if found else None


# -- reconciliation --------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


@dataclass(frozen=True)
class _Entry:
    """A memory as reconciliation sees it: its shown index (None: added earlier in
    this batch), text and slot."""

    index: int | None
    text: str
    slot: tuple[str, str] | None


def _raw(rule: str, **extra: object) -> str:
    return json.dumps({"model": "rules", "rule": rule, **extra}, ensure_ascii=False)


def _decide(fact: Fact, entries: Sequence[_Entry]) -> Choice:
    """One choice for ``fact`` against ``entries``, by slot first, then by text."""
    slot = slot_of(fact.text)
    if slot is not None and slot[0] == DROP_SLOT:
        return _drop(slot[1][1:].split(), entries)
    if slot is not None and slot[0] == CHANGE_SLOT:
        return _change(fact.text, slot[1].split(), entries)
    if slot is not None:
        key, value = slot
        same = [e for e in entries if e.slot is not None and e.slot[0] == key]
        for e in same:
            if e.slot is not None and e.slot[1] == value:
                return Choice("NOOP", e.index, None, _raw("same slot, same value", slot=key))
        if value.startswith("!"):
            held = value[1:]
            for e in same:
                if e.slot is not None and (e.slot[1] == held or e.slot[1].startswith(held + " ")):
                    if e.index is None:  # said and unsaid in one batch: the ADD already stands
                        return Choice("NOOP", None, None, _raw("negates a fact of this batch"))
                    return Choice(
                        "DELETE", e.index, None, _raw("negation of the held value", slot=key)
                    )
            if same:  # "no longer in Delhi" while "in Pune" is held: nothing to change
                return Choice(
                    "NOOP", same[0].index, None, _raw("negates a value not held", slot=key)
                )
        else:
            for e in same:
                if e.index is not None:
                    return Choice(
                        "UPDATE", e.index, fact.text, _raw("same slot, new value", slot=key)
                    )
    for e in entries:
        if _norm(e.text) == _norm(fact.text):
            return Choice("NOOP", e.index, None, _raw("same text"))
    return Choice(
        "ADD",
        None,
        fact.text,
        _raw("new slot" if slot else "no slot, new text", slot=slot[0] if slot else None),
    )


def _rules(entries: Sequence[_Entry]) -> list[_Entry]:
    """The rules held among ``entries`` (shown, not added by this batch), in shown order."""
    return [
        e
        for e in entries
        if e.slot is not None
        and e.slot[0].startswith("rule:")
        and e.slot[0] not in (DROP_SLOT, CHANGE_SLOT)
        and e.index is not None
    ]


def _best(topic: list[str], rules: list[_Entry], *, least: int = 1) -> _Entry | None:
    """The rule whose words share most of ``topic`` (the first shown of those tied, the
    most similar), if it shares at least ``least`` of them and half of them."""
    words = set(topic)
    scored = [(len(words & set(e.slot[1].split() if e.slot else ())), e) for e in rules]
    best = max((n for n, _ in scored), default=0)
    if best < max(least, 1) or 2 * best < len(words):
        return None
    return next(e for n, e in scored if n == best)


def _drop(topic: list[str], entries: Sequence[_Entry]) -> Choice:
    """ "Forget the rule about X": DELETE the first rule shown (the most similar) whose
    words hold X's, else the one that shares most of them ("the no-emoji thing is
    over"); "forget that rule": the first rule shown. Never an ADD."""
    rules = _rules(entries)
    for e in rules:
        if e.slot is not None and all(word in e.slot[1].split() for word in topic):
            return Choice("DELETE", e.index, None, _raw("the rule asked to be dropped"))
    target = _best(topic, rules)
    if target is not None:
        return Choice("DELETE", target.index, None, _raw("the rule most like the one dropped"))
    return Choice("NOOP", None, None, _raw("no rule shown is the one asked to be dropped"))


#: Words of a change that say it changes, not what it is about.
_CHANGE_WORDS = frozenset(
    content_stems(
        "make change switch bump raise lower increase decrease reduce cut set move turn "
        "update push to that it this instead actually now up down from"
    )
)


def _change(text: str, words: list[str], entries: Sequence[_Entry]) -> Choice:
    """ "Make that 50 words": UPDATE the held rule the change shares words with (its
    number replaced, when each says one), else NOOP: a change of nothing held."""
    said = text.split(": ", 1)[-1].rstrip(".")
    topic = [w for w in words if w not in _CHANGE_WORDS and not AMOUNT.fullmatch(w)]
    amount = AMOUNT.findall(said)
    # A new amount needs one word in common with the rule ("make that 50 words"); any
    # other change two, and half of its words: it rewrites a rule every read shows.
    target = _best(topic, _rules(entries), least=1 if len(amount) == 1 else 2)
    if target is None:
        return Choice("NOOP", None, None, _raw("no rule shown is the one changed"))
    held = AMOUNT.findall(target.text)
    if len(amount) == 1 and len(held) == 1:
        changed = target.text.replace(held[0], amount[0].strip())
    else:
        changed = f"{target.text.rstrip('.')}; changed: {said}."
    return Choice("UPDATE", target.index, changed, _raw("a change of the rule held"))


def _shown(shown: Sequence[Memory]) -> list[_Entry]:
    # Closed versions are history, not something a new fact can change.
    return [_Entry(i, m.text, slot_of(m.text)) for i, m in enumerate(shown) if m.active]


def choose(fact: Fact, shown: Sequence[Memory]) -> Choice:
    """NOOP, UPDATE, DELETE or ADD for ``fact`` by its slot, else by its text.

    ``index`` in the choice is the position of a memory in ``shown``.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
    >>> shown = [Memory(id="a1", text="User is vegetarian.", scope="user:a", created_at=t)]
    >>> c = choose(Fact("User is no longer vegetarian."), shown)
    >>> c.op, c.index
    ('DELETE', 0)
    """
    return _decide(fact, _shown(shown))


def choose_batch(facts: Sequence[Fact], shown: Sequence[Memory]) -> list[Choice]:
    """One choice per fact, in order: each fact sees what the earlier ones did.

    A fact an earlier fact of the batch already says is a NOOP with index None.

    >>> same = [Fact("User likes jazz."), Fact("User likes jazz.")]
    >>> [(c.op, c.index) for c in choose_batch(same, [])]
    [('ADD', None), ('NOOP', None)]
    """
    entries = _shown(shown)
    choices = []
    for fact in facts:
        choice = _decide(fact, entries)
        choices.append(choice)
        if choice.op == "ADD":
            entries.append(_Entry(None, fact.text, slot_of(fact.text)))
        elif choice.op == "UPDATE":
            # The memory keeps its shown index: the writer follows it to the new version.
            entries = [
                _Entry(e.index, fact.text, slot_of(fact.text)) if e.index == choice.index else e
                for e in entries
            ]
        elif choice.op == "DELETE":
            entries = [e for e in entries if e.index != choice.index]
    return choices
