"""Facts read out of what was said: a sentence into clauses, a clause into facts.

A clause is read when its subject is the user ("I ...", "my ...", "my sister ...") as
seen from its speaker: the user's "I", another speaker's "you", or "User" in the rules'
own canonical texts. Its date is cut out and resolved, its predicate read by the
patterns, and the result rendered as one canonical text per fact ("User lives in
Pune.") with the slot it fills. "Remember that ..." makes a sentence explicit.

>>> from datetime import date
>>> [(f.text, f.slot) for f in read_clause("my sister lives in Delhi", "first", date(2026, 3, 2))]
[("User's sister lives in Delhi.", 'sister.location')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from langgraph_memory.records import Kind
from langgraph_memory.write.rules.dates import find_date, without_date
from langgraph_memory.write.rules.found import Found
from langgraph_memory.write.rules.grammar import (
    SUBJECTS,
    Person,
    clauses,
    comparable,
    expand_contractions,
    is_question_or_hypothetical,
    third_person,
    without_lead_words,
)
from langgraph_memory.write.rules.predicates import Predicate, predicates_of
from langgraph_memory.write.rules.standing import read_rules

__all__ = ["Found", "Reading", "read_clause", "read_sentence"]


def _render(pred: Predicate, rel: str, negation: str) -> tuple[str, str] | None:
    """The canonical text and the full slot of a predicate said of ``rel``."""
    who = pred.about if pred.about is not None else rel
    subject = f"User's {who}" if who else "User"
    slot = f"{who}.{pred.slot}" if who else pred.slot
    if pred.possessive is not None:
        if negation:  # "my name is not Bob" says nothing to keep
            return None
        return f"{subject}'s {pred.possessive}.", slot
    rest = f" {pred.rest}" if pred.rest else ""
    if not negation:
        phrase = f"{pred.verb}{rest}"
    elif pred.verb == "is":
        phrase = f"is {negation}{rest}"
    elif negation == "no longer":
        phrase = f"no longer {pred.verb}{rest}"
    else:
        phrase = f"does not {pred.base}{rest}"
    return f"{subject} {phrase}.", slot


def read_clause(clause: str, person: Person, today: date) -> list[Found]:
    """The facts one clause states about the user or someone attached to them.

    A negation's value starts with "!"; a date in the clause is the facts' time.

    >>> (f,) = read_clause("I no longer live in Delhi", "first", date(2026, 3, 2))
    >>> f.text, f.slot, f.value
    ('User no longer lives in Delhi.', 'location', '!delhi')
    """
    clause = clause.strip(" ,.;:!")
    if person == "first":
        call = re.match(r"^(?:please )?call me (?P<v>.+?)(?: from now on| please)?$", clause, re.I)
        if call:
            clause = f"my name is {call['v']}"
    when = find_date(clause, today)
    plain = without_date(clause, when)
    me, mine = SUBJECTS[person]
    rel = ""
    match = mine.match(plain)
    owned = match is not None  # "my ...": a thing of the user's (or of their sister's)
    if match:
        rel = (match["rel"] or "").lower()
        rest = match["rest"]
    else:
        match = me.match(plain)
        if not match:
            return []
        rest = match["rest"]
    preds, negation = predicates_of(rest, rel, when)
    event = _EVENT.match(rest) if when is not None and owned else None
    if not preds and event and when is not None:  # "my dentist appointment is next Friday"
        thing = event["thing"].lower()
        owner = f"User's {rel}'s" if rel else "User's"
        slot = f"{rel}.event:{thing}" if rel else f"event:{thing}"
        return [Found(f"{owner} {thing} is {when.text}.", slot, comparable(when.text), "plan",
                      Kind.EPISODIC, when.at)]  # fmt: skip
    found = []
    for pred in preds:
        rendered = _render(pred, rel, negation)
        if rendered is None:
            continue
        text, slot = rendered
        value = f"!{pred.value}" if negation else pred.value
        family = "relationship" if (rel or pred.about) and pred.family != "allergy" else pred.family
        found.append(Found(text, slot, value, family, pred.kind, when.at if when else None))
    return found


#: What is said of a thing of the user's with a date ("my dentist appointment is next
#: Friday"): the thing, when its clause without the date says no more than that it is.
_EVENT = re.compile(
    r"^(?P<thing>[a-z][a-z' -]{2,40}?) (?:is|will be|was)(?: on| at)?(?: now| instead| again)?$",
    re.I,
)


_REMEMBER_USER = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:remember|note|keep in mind|do not forget|make a note|never forget)"
    r"(?:\s+that|\s*:)?\s+(?P<x>.+?)(?:,?\s+please)?[.!?]*$",
    re.I,
)
_REMEMBER_OTHER = re.compile(
    r"^(?:I(?: will| shall)?\s+)?(?:remember|note|noted|keep in mind|will keep in mind)"
    r"(?:\s+that|\s*:)?\s+(?P<x>.+)$",
    re.I,
)


@dataclass(frozen=True)
class Reading:
    """What one sentence gave: its facts, whether the user asked to remember them
    ("explicit"), and whether it was skipped as a question or a hypothetical."""

    found: list[Found]
    explicit: bool = False
    skipped: bool = False


def read_sentence(sentence: str, person: Person, today: date, *, rules_too: bool = True) -> Reading:
    """The facts of one sentence said by ``person``, read clause by clause; and, with
    ``rules_too`` (the sentence stands in a short message), the standing instructions the
    user's own sentence sets, changes or cancels.

    >>> read_sentence("Please remember that my PIN hint is my first cat.", "first",
    ...               date(2026, 3, 2)).found[0].text
    "User's PIN hint is User's first cat."
    >>> read_sentence("Where do I live?", "first", date(2026, 3, 2)).skipped
    True
    """
    text = without_lead_words(expand_contractions(sentence).strip())
    if not text:
        return Reading([])
    # The classifier of acts reads the sentence as it was said, less its lead words
    # ("No, ..."): it learnt from such, first words and contractions among what it weighs.
    rules = (
        read_rules(without_lead_words(sentence.strip()), today)
        if person == "first" and rules_too
        else None
    )
    if rules is not None and not rules.in_words:
        return Reading(rules.found)
    remember = (_REMEMBER_USER if person == "first" else _REMEMBER_OTHER).match(text)
    if remember and not re.match(r"(?:to|me|this|it|that)\b", remember["x"], re.I):
        inner = remember["x"]
        found = [f for c in clauses(inner, person) for f in read_clause(c, person, today)]
        if person != "first":  # the assistant saying it will remember is not a request
            return Reading(found)
        if not found and len(inner.split()) >= 3:
            when = find_date(inner, today)
            found = [
                Found(
                    third_person(inner, today),
                    "",
                    "",
                    "remember",
                    Kind.SEMANTIC,
                    when.at if when else None,
                )
            ]
        return Reading(found, explicit=True)
    if is_question_or_hypothetical(text):
        # "Could you always give me two options?" sets a rule, put politely (the classifier
        # and a lasting word said so); any other question sets nothing.
        return Reading(rules.found) if rules is not None else Reading([], skipped=True)
    found = [f for c in clauses(text, person) for f in read_clause(c, person, today)]
    if not found and rules is not None:  # a rule the grammar could not read: its words
        return Reading(rules.found)
    return Reading(found)
