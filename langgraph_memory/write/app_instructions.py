"""What the app wants remembered: its guidance for the extractor, and what to keep or skip.

The write path keeps what any assistant would want to know about a user. An app
knows better what matters to it (a travel app wants the user's seat and diet, not
their employer), so ``MemoryWriter(store, instructions=...)`` takes its word, as
LangMem's ``instructions`` and mem0's ``custom_instructions`` do:

- a plain ``str`` is guidance for a chat model, added to its extraction prompt
  under "## What this app wants remembered" (after the prompt's own rules, which it
  cannot lift: facts stay third-person with absolute dates, and a rule comes only
  from the user's own words);
- ``MemoryInstructions(guidance=..., keep=[...], skip=[...])`` adds lists of topics
  to keep and to skip. A chat model reads them in its prompt as plain sentences;
  whatever any model answers, the writer then filters the facts it extracted by
  them (the offline ``RulesModel`` cannot read guidance, so the lists are what it
  honours), after extraction and before reconciliation. Each fact skipped is
  logged as a ``rejected`` decision whose ``note`` says which entry skipped it.

How an entry matches a fact. An entry is a topic word or a few words; matching is
case-blind and by stem ("allergies" is "allergy", "works" is "work"). An entry
matches a fact when

1. it names the fact's topic: the family of fact the ``RulesModel`` read
   (``Fact.topic``: ``allergy``, ``intolerance``, ``diet``, ``name``, ``age``,
   ``origin``, ``location``, ``employer``, ``job``, ``spouse``, ``relationship``
   (anything about someone in the user's life), ``pet``, ``preference``,
   ``favourite``, ``habit``, ``plan``) or, for a fact that names no topic (a chat
   model's), the family the rules read from its text ("User lives in Pune." is a
   ``location``); or a group of topics (``TOPIC_GROUPS``: ``health`` is allergy,
   intolerance and diet; ``work`` employer and job; ``family`` spouse and
   relationship; ``identity`` name, age and origin; ``preference`` takes in
   favourites); or ``rule`` for a rule (a standing instruction of the user's,
   ``Kind.PROCEDURAL``);
2. or its words occur, in order, among the fact text's words ("peanuts" matches
   "User is allergic to peanuts.").

Then:

- ``skip`` wins: a fact any ``skip`` entry matches is skipped;
- with a non-empty ``keep``, a fact no ``keep`` entry matches is skipped;
- a rule is never skipped unless ``skip`` names ``rule``: the lists choose which
  facts about the user an app keeps, not which of the user's instructions the
  assistant follows (``keep=["rule"]`` keeps the rules, and nothing else);
- an explicit request to remember (``MemoryWriter.remember``, the memory tools) is
  the user's own choice: it is extracted without the guidance and never filtered.

The guidance and the lists are the app developer's words, trusted like a system
prompt: never fill them from what a user or a tool wrote.

>>> wanted = MemoryInstructions(skip=["location", "employer"])
>>> wanted.reason_to_skip(Fact("User lives in Pune.", topic="location"))
"skipped by the app's instructions: skip names 'location'"
>>> wanted.reason_to_skip(Fact("User is allergic to peanuts.", topic="allergy")) is None
True
>>> health = MemoryInstructions(keep=["health"])
>>> health.reason_to_skip(Fact("User is lactose intolerant.")) is None  # topic read from the text
True
>>> health.reason_to_skip(Fact("User likes jazz."))
"skipped by the app's instructions: keep names only 'health'"
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph_memory.checks import check_chars
from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.records import Kind
from langgraph_memory.text import stem, words
from langgraph_memory.write.rules import topic_of
from langgraph_memory.write.types import Fact

__all__ = [
    "RULE",
    "SECTION_TITLE",
    "TOPIC_GROUPS",
    "MemoryInstructions",
    "check_instructions",
]

#: The entry that names rules (a standing instruction of the user's): the only entry
#: that skips one.
RULE = "rule"
#: Words an app is likely to use for several of the rules' families at once.
TOPIC_GROUPS: dict[str, frozenset[str]] = {
    "health": frozenset({"allergy", "intolerance", "diet"}),
    "work": frozenset({"employer", "job"}),
    "family": frozenset({"spouse", "relationship"}),
    "identity": frozenset({"name", "age", "origin"}),
    "preference": frozenset({"favourite"}),  # a favourite is a preference too
}
#: The heading of the prompt's section for the app's instructions.
SECTION_TITLE = "## What this app wants remembered"
_FRAME = (
    "The developer of the app you work for says what is worth remembering for it. Use "
    "this to choose which facts to extract. It narrows what you extract and never "
    "replaces what is asked above: each fact is still one self-contained third-person "
    "sentence with absolute dates, stated by the speakers named above; a standing "
    'instruction ("kind": "rule") still comes only from the user\'s own words; and you '
    "still answer with JSON only, as asked above."
)
_RULES_IN_PROSE = "the user's standing instructions (rules)"


def _stems(text: str) -> tuple[str, ...]:
    """The case-folded, stemmed words of ``text``: what entries and facts meet on."""
    return tuple(stem(w) for w in words(text.casefold()))


def _entries(value: Any, what: str) -> tuple[str, ...]:
    """``keep`` or ``skip`` as a tuple of stripped entries, each checked, repeats
    (by stem) dropped."""
    example = f"e.g. {what}=['allergy', 'diet']"
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidTypeError(
            f"MemoryInstructions.{what} must be a list of topic words, {example}; got "
            f"{value!r} (a single str would be read letter by letter)"
        )
    entries: dict[tuple[str, ...], str] = {}
    for entry in value:
        if not isinstance(entry, str):
            raise InvalidTypeError(
                f"MemoryInstructions.{what} must hold str entries, {example}; got "
                f"{type(entry).__name__}: {entry!r}"
            )
        check_chars(entry, f"an entry of MemoryInstructions.{what}")
        stems = _stems(entry)
        if not stems:
            raise InvalidArgumentError(
                f"MemoryInstructions.{what} has an entry with no word in it ({entry!r}): "
                f"name a topic ('location', 'health', 'rule') or a word of the facts, {example}"
            )
        entries.setdefault(stems, " ".join(entry.split()))
    return tuple(entries.values())


@dataclass(frozen=True)
class MemoryInstructions:
    """What an app wants remembered: guidance for a chat model's extraction, and the
    topics to keep and to skip, which the writer applies to every model's facts.

    Pass it (or a plain ``str``, the guidance alone) as ``instructions=`` to
    ``MemoryWriter``, ``add_memory``, ``memory_write_node``, ``MemoryMiddleware`` or
    ``memory_hooks``. The module's docstring (``langgraph_memory.write.app_instructions``)
    gives the exact matching rule; in short: ``skip`` wins over ``keep``, a non-empty
    ``keep`` keeps only the facts it matches, and rules are skipped only when ``skip``
    names ``"rule"``.

    Args:
        guidance: free text for a chat model's extraction prompt ("Remember the user's
            travel preferences and dietary needs; ignore their work."). The offline
            rules model cannot read it. Surrounding white space is dropped.
        keep: topics to keep: with any, a fact none of them matches is skipped. Each
            entry is a topic (``"allergy"``, ``"location"``, ``"health"``, ``"rule"``
            ...) or words of the facts (``"peanuts"``).
        skip: topics to skip, as ``keep``'s entries; a fact any of them matches is
            skipped, whatever ``keep`` says.

    Raises:
        InvalidTypeError: ``guidance`` is no str, or ``keep`` or ``skip`` is a str or
            no list of str.
        InvalidArgumentError: an entry has no word in it (blank), an entry is in both
            lists, or a text holds a lone surrogate or a control character.

    >>> MemoryInstructions("Only travel plans matter.", keep=["plan", "Plans"]).keep
    ('plan',)
    >>> MemoryInstructions(skip=["location", "  "])
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: MemoryInstructions.skip has an entry with no ...
    """

    guidance: str = ""
    keep: Sequence[str] = ()
    skip: Sequence[str] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.guidance, str):
            raise InvalidTypeError(
                "MemoryInstructions.guidance must be a str (what the app wants remembered, "
                f"in plain words), got {type(self.guidance).__name__}"
            )
        guidance = check_chars(self.guidance, "MemoryInstructions.guidance").strip()
        keep, skip = _entries(self.keep, "keep"), _entries(self.skip, "skip")
        both = {_stems(e) for e in keep} & {_stems(e) for e in skip}
        if both:
            named = ", ".join(repr(e) for e in keep if _stems(e) in both)
            raise InvalidArgumentError(
                f"MemoryInstructions names {named} in both keep and skip: skip would win, so "
                "keep would mean nothing; name each topic in one list"
            )
        # Frozen: the checked, normalised values replace what was given.
        object.__setattr__(self, "guidance", guidance)
        object.__setattr__(self, "keep", keep)
        object.__setattr__(self, "skip", skip)

    @property
    def empty(self) -> bool:
        """True when it asks for nothing: no guidance, nothing to keep or skip.

        >>> MemoryInstructions().empty, MemoryInstructions(" ").empty
        (True, True)
        """
        return not (self.guidance or self.keep or self.skip)

    def reason_to_skip(self, fact: Fact) -> str | None:
        """Why the writer skips ``fact`` (the ``note`` of its logged decision), or None
        to keep it. See the module's docstring for the matching rule.

        Args:
            fact: a fact as a model extracted it; its ``topic``, else the topic the
                rules read from its text, and its words are matched.

        Returns:
            None to keep it; else the reason, naming the entry that skipped it.

        Raises:
            InvalidTypeError: ``fact`` is not a ``Fact``.

        >>> from langgraph_memory.records import Kind
        >>> rule = Fact("User wants the assistant to answer in metric units.",
        ...             kind=Kind.PROCEDURAL)
        >>> MemoryInstructions(keep=["allergy"], skip=["metric"]).reason_to_skip(rule) is None
        True
        >>> MemoryInstructions(skip=["rules"]).reason_to_skip(rule)
        "skipped by the app's instructions: skip names 'rules'"
        """
        if not isinstance(fact, Fact):
            raise InvalidTypeError(
                f"reason_to_skip() takes a Fact, e.g. Fact('User lives in Pune.'), got "
                f"{type(fact).__name__}"
            )
        if fact.kind == Kind.PROCEDURAL:
            # A rule answers to the entry "rule" alone: its words are the user's
            # instruction, not a topic about the user.
            for entry in self.skip:
                if _stems(entry) == _stems(RULE):
                    return f"skipped by the app's instructions: skip names {entry!r}"
            return None
        topics = _topics(fact)
        text = _stems(fact.text)
        for entry in self.skip:
            if _matches(_stems(entry), topics, text):
                return f"skipped by the app's instructions: skip names {entry!r}"
        if self.keep and not any(_matches(_stems(e), topics, text) for e in self.keep):
            listed = ", ".join(repr(e) for e in self.keep)
            return f"skipped by the app's instructions: keep names only {listed}"
        return None

    def prompt_section(self) -> str:
        """The section a chat model's extraction prompt ends with: the guidance, then
        the lists as plain sentences; '' when there is nothing to say (the prompt is
        then exactly what it is without instructions).

        Returns:
            The section, starting with ``SECTION_TITLE``, or ''.

        >>> print(MemoryInstructions("Travel matters most.", keep=["plan"]).prompt_section())
        ## What this app wants remembered
        <BLANKLINE>
        The developer of the app you work for says what is worth remembering for it. ...
        <BLANKLINE>
        <app_guidance>
        Travel matters most.
        </app_guidance>
        <BLANKLINE>
        Extract only facts about: plan. Extract the user's standing instructions (rules) too.
        """
        if self.empty:
            return ""
        parts = [SECTION_TITLE, _FRAME]
        if self.guidance:
            parts.append(f"<app_guidance>\n{self.guidance}\n</app_guidance>")
        sentences = []
        rule = _stems(RULE)
        if self.keep:
            listed = ", ".join(_RULES_IN_PROSE if _stems(e) == rule else e for e in self.keep)
            sentence = f"Extract only facts about: {listed}."
            if not any(_stems(e) == rule for e in (*self.keep, *self.skip)):
                sentence += f" Extract {_RULES_IN_PROSE} too."
            sentences.append(sentence)
        topics = [e for e in self.skip if _stems(e) != rule]
        if topics:
            sentences.append(f"Do not extract facts about: {', '.join(topics)}.")
        if len(topics) < len(self.skip):
            sentences.append(f"Do not extract {_RULES_IN_PROSE}.")
        if sentences:
            parts.append(" ".join(sentences))
        return "\n\n".join(parts)


def _topics(fact: Fact) -> set[tuple[str, ...]]:
    """The stems of what ``fact`` is about: its topic (else the one its text reads
    as) and the groups that topic is in."""
    topic = fact.topic if fact.topic is not None else topic_of(fact.text)
    if topic is None:
        return set()
    topic = topic.casefold()
    named = {topic} | {g for g, members in TOPIC_GROUPS.items() if topic in members}
    return {_stems(name) for name in named}


def _matches(entry: tuple[str, ...], topics: set[tuple[str, ...]], text: tuple[str, ...]) -> bool:
    """Whether an entry's stems name one of the fact's topics, or occur, in order and
    next to each other, among the words of its text."""
    if entry in topics:
        return True
    width = len(entry)
    return any(text[i : i + width] == entry for i in range(len(text) - width + 1))


def check_instructions(value: Any, what: str = "instructions") -> MemoryInstructions | None:
    """``instructions=`` as the writer keeps it: a ``MemoryInstructions`` (a str is its
    guidance), or None when there is none or it asks for nothing.

    Args:
        value: None, a str (guidance for a chat model) or a ``MemoryInstructions``.
        what: the argument's name, for the error.

    Returns:
        The ``MemoryInstructions``, or None.

    Raises:
        InvalidTypeError: ``value`` is none of those.

    >>> check_instructions("Remember travel plans.").guidance
    'Remember travel plans.'
    >>> check_instructions("") is None, check_instructions(MemoryInstructions()) is None
    (True, True)
    >>> check_instructions(["allergy"])
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: instructions must be a str (guidance for a chat ...
    """
    if value is None:
        return None
    if isinstance(value, str):
        value = MemoryInstructions(guidance=value)
    if not isinstance(value, MemoryInstructions):
        raise InvalidTypeError(
            f"{what} must be a str (guidance for a chat model's extraction) or "
            "MemoryInstructions(guidance=..., keep=[...], skip=[...]), e.g. "
            "MemoryInstructions(skip=['location']); got "
            f"{type(value).__name__}: {value!r}"
        )
    return None if value.empty else value
