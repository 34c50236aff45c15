"""Standing instructions as the user sets, changes and cancels them: the classifier of
acts tells what a sentence does, the grammar reads what it says.

The classifier (``act_head``, trained on the acts corpus) is the gate: a sentence it does
not take for a rule sets, changes and cancels none, however it is worded, and one it does
may be worded any way (a polite request, a "when you ..., please ..." clause, a cancel
that says neither "stop" nor "forget"). What it cannot tell is whether a request lasts:
"Write each row as a comma-separated sentence." is a rule in one chat and a one-off
request in most. On real chat it takes 2.1 % of the user's sentences for rules
(LongMemEval S, 2,688 of 128,222 sentences in 50,000 turns: requests for the task at
hand, and pasted documents; through the model, 780 new rules against 85 with the words
below: docs/results/acts.md), so a new rule also needs words that say it lasts
(``LASTING``: "always", "from now on", "every ...", "by default", "anymore", or what
lasts by itself: "call me ...", "per reply") or the grammar's own marks. A change or a
cancel needs none: it only acts on a rule held, and only on one it shares words with
(``slots``).

What the grammar reads is kept: the rule's canonical text, its slot and its value, so
that a restatement is a NOOP and a new value replaces the old one. What it cannot read is
kept in the user's words (``rule_in_words``); a change that names no new action ("make
that 50 words") is decided against the held rules (``change_in_words``); a cancel
retires the held rule it names (``cancel_in_words``). A sentence that cancels one rule
and sets another does both.

>>> from datetime import date
>>> [f.text for f in read_rules("Please keep every answer under 100 words, always.",
...                             date(2026, 3, 2)).found]
['User wants the assistant to keep every answer under 100 words.']
>>> [f.slot for f in read_rules("Make that 50 words.", date(2026, 3, 2)).found]
['rule:change']
>>> read_rules("Write each row as a comma-separated sentence.", date(2026, 3, 2)) is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from langgraph_memory.text import WEEKDAYS
from langgraph_memory.write.rules.act_head import shipped_head
from langgraph_memory.write.rules.found import Found
from langgraph_memory.write.rules.grammar import without_lead_words
from langgraph_memory.write.rules.instructions import (
    AMOUNT,
    DROP_SLOT,
    cancel_in_words,
    change_in_words,
    content_stems,
    read_instruction,
    rule_in_words,
)

__all__ = ["LASTING", "RuleReading", "may_touch_rules", "read_rules"]

#: Words that say a request lasts beyond this answer: how long, how often, or for all of
#: what kind. A closed class, unlike the actions a rule asks for (those the classifier
#: reads, in any words).
LASTING = re.compile(
    r"\b(?:from now(?: on)?|going forward|moving forward|in (?:the )?future|from here on|"
    r"from today|starting (?:today|now|tomorrow|next \w+)|always|never|ever|every ?time|"
    r"each time|whenever|any ?time|by default|default to|as a rule|standing|habit|"
    r"remember to|all (?:my|of my|future|the time)|for all|in all|throughout|everything|"
    r"(?:every|each|all|any) (?:\w+ )?(?:answers?|repl(?:y|ies)|responses?|messages?|emails?|"
    r"summar(?:y|ies)|lists?|plans?|recipes?|docs?|documents?|drafts?|letters?|posts?|"
    r"code|times?|days?|mornings?|evenings?|weeks?|chats?|conversations?)|"
    r"daily|weekly|any ?more|no more|no longer|stop|until I (?:say|tell)|"
    r"unless I (?:say|ask|tell)|for the rest|permanently|in general|no matter what|"
    r"in our chats|as a general thing|make a point of|"
    r"per (?:reply|answer|message|response|post|email)|"
    rf"every (?:other |second |single )?(?:{'|'.join(WEEKDAYS)}|weekday|weekend|night)|"
    # How to address the user or someone: said once, it holds.
    r"(?:call|address) me\b|refer to (?:me|him|her|them) as)\b",
    re.I,
)
#: Where a cancel's reason starts, after the rule it names.
_REASON = re.compile(
    r"\s*(?:[,;:]|\s[-\u2013\u2014]\s|\s(?:because|since|as|so|now that)\s)\s*", re.I
)
#: A request put to the assistant as such: "I want you to ...", "I'd like you to ...".
_ADDRESSED = re.compile(
    r"^(?:please\s*,?\s+)?I (?:want|need|would like|would prefer|expect) you to\b", re.I
)
#: Where a sentence that does two things to the rules ("stop using bullet points and use
#: numbered lists instead") is cut into its parts.
_PARTS = re.compile(r"\s*(?:;|,?\s+(?:and|but)\s+|,\s+(?:then|instead)\s*,?\s*|\s+-+\s+)\s*", re.I)
#: A change that names no action of its own: it refers to a rule held.
_REFERS = re.compile(
    r"^(?:(?:please|actually|ok(?:ay)?|so|now)\s*,?\s+)*(?:make|change|switch|bump|raise|"
    r"lower|increase|decrease|reduce|cut|set|move|turn|update|push|drop)\b|\b(?:that|it|this)\b",
    re.I,
)
_TRAILING = re.compile(r"(?:\s*,?\s+(?:instead|then|too|as well))+[.!]*$", re.I)
#: Words of a cancel that say what it does, not which rule it is about.
_CANCEL_WORDS = frozenset(
    content_stems(
        "stop forget drop cancel scrap ditch lose remove ignore delete quit skip mind never no "
        "more any anymore longer need rule instruction that it this thing stuff those these "
        "over done don't do not can you we thank thanks ok okay now from on go going forward "
        "again actually want like would needn't bother with about the to of for is are be was "
        "has have had i me u ur fine let let's"
    )
)


@dataclass(frozen=True)
class RuleReading:
    """What a sentence of the user's does to the rules. ``in_words``: the grammar read
    none of it (a rule kept in the user's words), so facts read from the sentence come
    first."""

    found: list[Found]
    in_words: bool = False


def read_rules(sentence: str, today: date) -> RuleReading | None:
    """The rules a sentence of the user's sets, changes or cancels; None when the
    classifier of acts takes it for no rule, or a new rule has no word that it lasts."""
    if not _rule_shaped(sentence):
        return None
    acts = shipped_head().acts(sentence)
    if "rule" not in acts:
        # A rule asked of the assistant in so many words, with the grammar's marks that it
        # lasts ("I want you to always reply in French."), stands where the classifier
        # misses it: its corpus holds few of these. No other reading of the grammar does:
        # on real chat most are requests of the moment (LongMemEval S user turns).
        marked = read_instruction(sentence, today) if _ADDRESSED.match(sentence) else None
        return RuleReading([marked]) if marked is not None else None
    lasting = bool(LASTING.search(sentence))
    parts = [p for p in _PARTS.split(sentence) if p.strip()]
    if len(parts) > 1:  # a cancel and a new rule, each read alone
        read = [_part(p, lasting, today) for p in parts]
        if any(r is not None and _cancels(r) for r in read):  # the new rule replaces it
            read = [
                r if r is not None else _part(p, True, today)
                for p, r in zip(parts, read, strict=True)
            ]
        if all(r is not None for r in read) and any(r for r in read):
            found = [f for r in read if r is not None for f in r.found]
            return RuleReading(found, all(r.in_words for r in read if r is not None))
    return _read(sentence, _act(acts), lasting, today)


def may_touch_rules(sentence: str) -> bool:
    """Whether a sentence may set, change or cancel a standing instruction: the write
    gate's question (``write/gate``), which passes a turn to the model when it may.
    Lopsided as the gate is, but not for every request: a new rule needs a word that it
    lasts, a change an amount ("make that 50 words"); a cancel passes as it is.

    >>> may_touch_rules("Make that 50 words."), may_touch_rules("Ok, summarise this for me.")
    (True, False)
    """
    if not _rule_shaped(sentence):
        return False
    acts = shipped_head().acts(sentence)
    if "rule" not in acts:
        return False
    if LASTING.search(sentence) or "rule_cancel" in acts:
        return True
    return "rule_change" in acts and bool(AMOUNT.search(sentence))


#: The most words of a sentence that sets, changes or cancels a rule: longer ones are
#: prose (a document's, a brief's) that only mentions what a rule would.
MAX_RULE_WORDS = 30
#: The most words a cancel names its rule by ("the no-emoji thing").
MAX_CANCEL_TOPIC = 5


def _rule_shaped(sentence: str) -> bool:
    """Whether a sentence is shaped as one said to the assistant: short, not an item of a
    pasted list, holding no quotation."""
    text = sentence.strip()
    return (
        2 <= len(text.split()) <= MAX_RULE_WORDS
        and not re.match(r"^(?:[-*•>#]|\d+[.)])", text)
        and not re.search(r"[\"“”]", text)
    )


def _cancels(reading: RuleReading) -> bool:
    return any(f.slot == DROP_SLOT or f.value.startswith("!") for f in reading.found)


def _act(acts: frozenset[str]) -> str:
    for act in ("rule_cancel", "rule_change", "rule_set"):
        if act in acts:
            return act
    return "rule_set"


def _part(part: str, lasting: bool, today: date) -> RuleReading | None:
    """A part of a sentence that does two things: read if the classifier takes it for a
    rule act, else if the grammar reads a rule in it with its own marks ("stop ...")."""
    acts = shipped_head().acts(part)
    if "rule" in acts:
        return _read(part, _act(acts), lasting, today)
    found = read_instruction(_TRAILING.sub("", part), today)
    return RuleReading([found]) if found is not None else None


def _read(sentence: str, act: str, lasting: bool, today: date) -> RuleReading | None:
    text = _TRAILING.sub("", without_lead_words(sentence.strip())).rstrip(" .!")
    marked = read_instruction(text, today)  # the grammar's own marks of a rule
    found = marked or read_instruction(text, today, admitted=True)
    if act == "rule_cancel":
        if found is not None and (found.slot == DROP_SLOT or found.value.startswith("!")):
            return RuleReading([found])
        # The rule is named first; a reason may follow ("..., the team voted against it").
        named = _REASON.split(text, maxsplit=1)[0]
        topic = [w for w in content_stems(named) if w not in _CANCEL_WORDS and not w.isdigit()]
        if len(topic) > MAX_CANCEL_TOPIC:
            return None  # prose, not the name of a rule
        if not topic and not re.search(r"\b(?:rule|instruction)s?\b", text, re.I):
            return None  # "never mind that": of this moment, or of nothing held
        return RuleReading([cancel_in_words(topic)])
    if act == "rule_change" and (found is None or _REFERS.search(text)):
        return RuleReading([change_in_words(text, today)])
    if not (lasting or marked):
        return None  # a request for this answer, as far as anything says
    if found is not None:
        return RuleReading([found])
    return RuleReading([rule_in_words(text, today)], in_words=True)
