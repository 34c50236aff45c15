"""Standing instructions: what the user says about how the assistant should work.

"From now on, always answer in metric units." is no fact about the user and no one-off
request: it is a rule (``Kind.PROCEDURAL``), which every read renders. It is read only
in the user's own words, and only with a mark that it stands beyond this turn ("from
now on", "going forward", "in future", "always", "never", "do not ever", "stop ...",
"every time", "whenever"): a plain "answer in metric units" asks for this answer alone.

Its canonical text is "User wants the assistant to <action>." (the action as said, in
the third person: "never message User before 9am", "stop summarising at the end").
Its slot comes from the action, stemmed: its first verb and its last word
(``rule:answer:unit``), and its value is the action ("never" before a prohibition, "!"
before what the user asks to stop). So restating a rule is a NOOP; "always answer in
imperial units" replaces "always answer in metric units", and "never use emojis"
replaces "always use emojis" (UPDATE: a new value of the slot); "stop summarising at
the end" retires "always summarise at the end" (DELETE: the held value negated).

>>> from datetime import date
>>> found = read_instruction("From now on, always answer in metric units.", date(2026, 3, 2))
>>> found.text
'User wants the assistant to always answer in metric units.'
>>> found.slot, found.value
('rule:answer:unit', 'answer in metric unit')
>>> read_instruction("Answer in metric units.", date(2026, 3, 2)) is None  # this answer only
True
>>> rule_slot("User wants the assistant to stop answering in metric units.")
('rule:answer:unit', '!answer in metric unit')
"""

from __future__ import annotations

import re
from datetime import date

from langgraph_memory.records import Kind
from langgraph_memory.text import stem, words
from langgraph_memory.write.rules.found import Found
from langgraph_memory.write.rules.grammar import expand_contractions, third_person

__all__ = [
    "AMOUNT",
    "CHANGE_SLOT",
    "DROP_SLOT",
    "cancel_in_words",
    "change_in_words",
    "content_stems",
    "read_instruction",
    "rule_in_words",
    "rule_slot",
]

#: What marks an instruction as standing beyond this turn, around it.
_LEAD = re.compile(
    r"^(?:(?:please|ok(?:ay)?|also|and)\s*,?\s+)*"
    r"(?:(?:from now on|going forward|moving forward|in (?:the )?future|for future reference)"
    r"\s*,?\s+)?(?:(?:please)\s+)?",
    re.I,
)
_STANDING = re.compile(
    r"\b(?:from now on|going forward|moving forward|in (?:the )?future|from here on)\b", re.I
)
_TAIL = re.compile(
    r"(?:\s*,?\s+(?:from now on|going forward|moving forward|in (?:the )?future|please"
    r"|from here on|always))+$",
    re.I,
)
#: "I want you to ...", "I would like you to ...", "can you ...": the action follows.
_ASK = re.compile(
    r"^(?:I (?:want|need|would like|would prefer|expect) you to|"
    r"(?:can|could|will|would) you(?: please)?|make sure (?:that )?you|be sure to)\s+",
    re.I,
)
_POLARITY = re.compile(r"^(?P<p>always|never|do not ever|do not|stop)\s+", re.I)
#: "Every time you write code, add tests": a condition first, the action after it.
_WHEN = re.compile(
    r"^(?P<cond>(?:every time|each time|whenever|when(?:ever)? (?:you|I)) [^,]+),"
    r"\s*(?:please\s+)?",
    re.I,
)
#: What a "do not" is said of that sets no rule: "do not worry", "do not forget the milk".
_ONE_OFF = frozenset(
    ["worry", "mind", "bother", "forget", "panic", "be", "give", "know", "feel", "think",
     "miss", "let", "get", "say", "quit"]
)  # fmt: skip
#: Verbs that end like adverbs.
_LY_VERBS = frozenset(["apply", "reply", "supply", "rely", "multiply", "comply", "imply", "fly"])
#: Words of an action about the one spoken to: encouragement between friends.
_YOU = frozenset(["you", "your", "yourself", "yours", "yourselves"])
_DEICTIC = frozenset(["that", "this", "it", "them", "those", "these", "so"])
#: An action starts with a verb: never with a pronoun, an article or a filler.
_NOT_A_VERB = frozenset(
    (
        "i",
        "me",
        "my",
        "you",
        "your",
        "we",
        "our",
        "it",
        "its",
        "this",
        "that",
        "the",
        "a",
        "an",
        "he",
        "she",
        "they",
        "there",
        "here",
        "what",
        "who",
        "why",
        "how",
        "when",
        "where",
        "which",
        "is",
        "am",
        "are",
        "was",
        "were",
        "been",
        "thanks",
        "thank",
        "sorry",
        "hi",
        "hello",
        "yes",
        "no",
        "ok",
        "okay",
        "sure",
        "up",
        "by",
        "on",
        "happy",
        "good",
        "great",
        "fun",
        "just",
        "so",
        "very",
        "really",
        "saw",
        "had",
        "done",
    )
)


def _stem(word: str) -> str:
    """A word's stem (the package's one stemmer), so that "answers", "answering" and
    "answer" fill one slot."""
    return stem(re.sub(r"[^a-z0-9]", "", word.lower()))


#: Words that change no rule: "keep every answer short" restates "keep answers short".
_FILLERS = frozenset(
    ["the", "a", "an", "every", "each", "all", "any", "my", "your", "please", "just",
     "really", "kindly", "user", "s"]
)  # fmt: skip


def content_stems(text: str) -> list[str]:
    """The stems of ``text``'s words that say what a rule is about (no fillers).

    >>> content_stems("Keep every answer under 100 words, please.")
    ['keep', 'answer', 'under', '100', 'word']
    """
    kept = [w for w in words(text.lower()) if w not in _FILLERS]
    return [s for w in kept if (s := _stem(w))]


def _slot(action: str, mark: str) -> tuple[str, str] | None:
    """The slot and value of an action said with ``mark`` ("", "always", "never",
    "stop"): a prohibition is another value of the same slot (it replaces "always
    X"); "stop" negates the held value (it retires "always X")."""
    words = content_stems(action)
    if len(words) < 2:
        return None
    value = " ".join(words)
    if mark == "stop":
        value = "!" + value
    elif mark == "never":
        value = "never " + value
    return f"rule:{words[0]}:{words[-1]}", value


def _is_action(words: list[str], *, stopping: bool) -> bool:
    """Whether ``words`` read as an action for the assistant: a verb first (not a
    pronoun, an adjective or a past form: "never had a chance", "always happy to
    help"), one clause (no comma: "never give up, buddy"), and not about "you" (what
    the user tells a friend: "do not limit yourself").

    >>> _is_action("answer in metric units".split(), stopping=False)
    True
    >>> _is_action("happy to help".split(), stopping=False)
    False
    """
    if not words or not words[0].isalpha() or words[0] in _NOT_A_VERB:
        return False
    if words[0].endswith("ed") or (words[0].endswith("ing") and not stopping):
        return False
    if words[0].endswith("ly") and words[0] not in _LY_VERBS:  # "hopefully it will ..."
        return False
    if {"yet", "either"}.intersection(w.strip(".,!;:") for w in words):
        return False  # "do not write the outline yet": this conversation's, not a rule
    return not any(w.endswith(",") for w in words) and not _YOU.intersection(
        w.strip(".,!;:") for w in words
    )


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def read_instruction(sentence: str, today: date, *, admitted: bool = False) -> Found | None:
    """The rule a sentence of the user's sets, or None when it sets none.

    ``admitted``: the classifier of acts already took the sentence for a standing
    instruction (see ``standing``), so no mark that it stands is needed here.

    >>> read_instruction("Don't message me before 9am.", date(2026, 3, 2)).text
    'User wants the assistant to never message User before 9am.'
    >>> read_instruction("Never use emojis.", date(2026, 3, 2)).value
    'never use emoji'
    >>> read_instruction("Stop summarising at the end.", date(2026, 3, 2)).value
    '!summaris at end'
    >>> read_instruction("I always run on Sundays.", date(2026, 3, 2)) is None
    True
    """
    text = expand_contractions(sentence.strip()).rstrip(" .!")
    if admitted:  # "Could you always give me two options?": a request, put politely
        text = text.rstrip(" ?")
    if not text or text.endswith("?"):
        return None
    drop = _DROP.match(text)
    if drop:  # "forget that rule": retire a held rule (never stored itself, see slots)
        topic = (
            _lower_first(third_person(drop["topic"], today).rstrip(".")) if drop["topic"] else ""
        )
        said = f"drop the rule about {topic}" if topic else "drop the rule"
        return Found(f"User wants the assistant to {said}.", *_drop_slot(topic), "rule",
                     Kind.PROCEDURAL, None)  # fmt: skip
    # A standing mark counts where a rule puts it: first or last, not mid-sentence
    # ("here's hoping for more events like this in the future" sets nothing).
    lead = _LEAD.match(text)
    head = lead.group(0) if lead else ""
    body = text[len(head) :]
    tail = _TAIL.search(body)
    if tail:
        body = body[: tail.start()]
    standing = bool(_STANDING.search(f"{head} {tail.group(0) if tail else ''}"))
    text = body.strip(" ,")
    text = _ASK.sub("", text)
    when = _WHEN.match(text)
    cond = ""
    if when:
        cond = " " + _lower_first(third_person(when["cond"], today).rstrip("."))
        text = text[when.end() :]
    marked = _POLARITY.match(text)
    if not (marked or standing or when or admitted):
        return None
    negative = False
    keep = ""
    if marked:
        word = marked["p"].lower()
        negative = word in ("never", "do not ever", "do not", "stop")
        text = text[marked.end() :]
        keep = {"do not ever": "never", "do not": "never"}.get(word, word)
    words = text.lower().split()
    if not _is_action(words, stopping=keep == "stop"):
        return None
    if not negative and words[:2] == ["call", "me"]:
        return None  # "call me Sam from now on": the user's name, a fact (``facts``)
    if all(w in _DEICTIC for w in words[1:]) or (negative and words[0] in _ONE_OFF):
        return None  # "never do that", "do not worry": said of this moment, not a rule
    action = _lower_first(third_person(text, today).rstrip("."))
    slot = _slot(action, keep if keep in ("never", "stop") else "")
    if slot is None:
        return None
    said = f"{keep} {action}{cond}" if keep else f"{action}{cond}"
    return Found(
        f"User wants the assistant to {said}.", slot[0], slot[1], "rule", Kind.PROCEDURAL, None
    )


_DROP = re.compile(
    r"^(?:please\s+)?(?:forget|drop|cancel|remove|scrap|ignore|delete)\s+(?:that|the|this|my)"
    r"\s+rule(?:\s+(?:about|on|for)\s+(?P<topic>.+))?$",
    re.I,
)
_CANONICAL_DROP = re.compile(
    r"^User wants the assistant to drop the rule(?: about (?P<topic>.+?))?\.?$"
)
#: The slot of "drop the rule (about X)": its value names X's words ("!" and nothing:
#: the rule most like it among those shown).
DROP_SLOT = "rule:drop"


def _drop_slot(topic: str) -> tuple[str, str]:
    return DROP_SLOT, "!" + " ".join(w for w in map(_stem, topic.split()) if w)


#: A rule in the user's words, where the grammar cannot read its action ("I'd like
#: answers as bullet points"), and a change of a held rule ("make that 50 words"): see
#: ``rule_in_words`` and ``change_in_words``.
_FOLLOW = "follow this rule: "
_CHANGE = "change a rule: "
#: An amount a rule may hold and a change may replace: "100 words", "9am", "five".
AMOUNT = re.compile(
    r"\b(?:\d+(?:[.:,]\d+)?(?:\s*(?:am|pm|%))?|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred)\b",
    re.I,
)
#: The slot of a change of a held rule; its value holds the change's words.
CHANGE_SLOT = "rule:change"
_CANONICAL_WORDS = re.compile(
    rf"^User wants the assistant to (?P<how>{_FOLLOW}|{_CHANGE})(?P<said>.+?)\.?$"
)


def rule_in_words(sentence: str, today: date) -> Found:
    """A standing instruction kept in the user's words, in the third person.

    >>> found = rule_in_words("I'd like answers as bullet points.", date(2026, 3, 2))
    >>> found.text
    'User wants the assistant to follow this rule: User would like answers as bullet points.'
    >>> found.slot
    'rule:would:point'
    """
    body = sentence.strip().rstrip(" .!?")
    lead = _LEAD.match(body)
    body = _ASK.sub("", body[lead.end() :] if lead else body)
    tail = _TAIL.search(body)
    said = third_person(body[: tail.start()] if tail else body, today)
    text = f"User wants the assistant to {_FOLLOW}{said}"
    slot = rule_slot(text) or (f"rule:{_stem(said)}", _stem(said))
    return Found(text, slot[0], slot[1], "rule", Kind.PROCEDURAL, None)


def change_in_words(sentence: str, today: date) -> Found:
    """A change of a rule held ("make that 50 words"): which rule, and how, is decided
    against the rules held (``slots``).

    >>> change_in_words("Make that 50 words.", date(2026, 3, 2)).value
    'make that 50 word'
    """
    said = _lower_first(third_person(sentence, today))
    text = f"User wants the assistant to {_CHANGE}{said}"
    return Found(text, CHANGE_SLOT, " ".join(content_stems(said)), "rule", Kind.PROCEDURAL, None)


def cancel_in_words(topic: list[str]) -> Found:
    """A cancel of the held rule about ``topic`` (stems), however it was said.

    >>> cancel_in_words(["emoji"]).text
    'User wants the assistant to drop the rule about emoji.'
    """
    said = f"drop the rule about {' '.join(topic)}" if topic else "drop the rule"
    return Found(f"User wants the assistant to {said}.", DROP_SLOT, "!" + " ".join(topic), "rule",
                 Kind.PROCEDURAL, None)  # fmt: skip


_CANONICAL = re.compile(
    r"^User wants the assistant to (?:(?P<p>always|never|stop|every time|whenever [^,]+)\s+)?"
    r"(?P<action>.+?)\.?$"
)


def rule_slot(text: str) -> tuple[str, str] | None:
    """The (slot, value) of a rule's canonical text, or None for any other text."""
    drop = _CANONICAL_DROP.match(text.strip())
    if drop:
        return _drop_slot(drop["topic"] or "")
    in_words = _CANONICAL_WORDS.match(text.strip())
    if in_words:
        stems = content_stems(in_words["said"])
        if in_words["how"] == _CHANGE:
            return CHANGE_SLOT, " ".join(stems)
        return (f"rule:{stems[0]}:{stems[-1]}", " ".join(stems)) if stems else None
    match = _CANONICAL.match(text.strip())
    if not match:
        return None
    mark = match["p"] or ""
    return _slot(match["action"], mark if mark in ("never", "stop") else "")
