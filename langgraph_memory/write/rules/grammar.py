"""The English the offline rules need: one spelling, clean values, clauses, persons.

Before a pattern reads a sentence, contractions are expanded ("I'm" -> "I am");
a sentence is split into clauses that each carry their subject; a captured value
loses trailing adverbs and clauses; and a first-person sentence no pattern reads
can be rewritten to the third person ("my" -> "User's").

>>> clauses(expand_contractions("I'm vegan and live in Pune"), "first")
['I am vegan', 'I live in Pune']
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Literal

from langgraph_memory.text import sentences as split_sentences
from langgraph_memory.write.rules.dates import resolve_date
from langgraph_memory.write.rules.vocabulary import PETS, RELATIONS

__all__ = [
    "SUBJECTS",
    "Person",
    "capitalised",
    "clauses",
    "clean_value",
    "comparable",
    "expand_contractions",
    "is_question_or_hypothetical",
    "sentences",
    "singular",
    "third_person",
    "with_article",
    "without_contrast",
    "without_lead_words",
]

#: Who "I" and "my" are: the user's own words ("first"), another speaker's words about
#: the user ("second": "you"), and the rules' own canonical texts ("canonical": "User").
Person = Literal["first", "second", "canonical"]

# -- one spelling ----------------------------------------------------------------------------

_CONTRACTIONS = [
    (r"\b(?:i'm|im)\b", "I am"),
    (r"\b(?:i've|ive)\b", "I have"),
    (r"\bi'll\b", "I will"),
    (r"\bi'd\b", "I would"),
    (r"\byou're\b", "you are"),
    (r"\byou've\b", "you have"),
    (r"\byou'll\b", "you will"),
    (r"\b(do|does|did|is|are|was|were|have|has|would|should|could)n't\b", r"\1 not"),
    (r"\b(do|does|did)nt\b", r"\1 not"),
    (r"\bcan't\b|\bcannot\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"\bname's\b", "name is"),
    (r"\bi\b", "I"),
]
_CONTRACTION_RES = [(re.compile(p, re.I), r) for p, r in _CONTRACTIONS]


def expand_contractions(text: str) -> str:
    """Straight quotes and expanded contractions, so patterns see one spelling.

    >>> expand_contractions("i\u2019m sure you're right, I don't know")
    'I am sure you are right, I do not know'
    """
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    for pattern, repl in _CONTRACTION_RES:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


# -- values ----------------------------------------------------------------------------------


def comparable(value: str) -> str:
    """A value as a slot compares it: lower case, no article, single spaces.

    >>> comparable("The  Bank of India.")
    'bank of india'
    """
    value = " ".join(value.lower().replace("\u2019", "'").split()).strip(" .,;:!?\"'")
    return re.sub(r"^(?:the|a|an)\s+", "", value)


def singular(word: str) -> str:
    """A crude singular, so that "peanut" and "peanuts" are one allergen.

    >>> [singular(w) for w in ("peanuts", "berries", "tomatoes", "glass", "fish")]
    ['peanut', 'berry', 'tomato', 'glass', 'fish']
    """
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("oes") and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def capitalised(value: str) -> str:
    """Capitalise an all-lower-case name ("new york" -> "New York"); else keep it.

    >>> capitalised("isle of man"), capitalised("iPhone")
    ('Isle of Man', 'iPhone')
    """
    if value != value.lower():
        return value
    small = {"of", "the", "and", "de", "la", "del", "upon", "on"}
    words = value.split()
    return " ".join(w if (i and w in small) else w[:1].upper() + w[1:] for i, w in enumerate(words))


_TRAILING = re.compile(
    r"(?:\s+|,\s*)(?:now|nowadays|these days|at the moment|currently|anymore|any more|"
    r"any longer|too|as well|though|a lot|very much|so much|really|right now|for now|"
    r"from now on|"
    r"full[- ]time|part[- ]time|lol|haha)$",
    re.I,
)
_CUT = re.compile(
    r",?\s+(?:with|since|because|but|so|for|where|which|who|while|when|until|near|close to|"
    r"as|if|after|before|from)\b.*$",
    re.I,
)


def clean_value(value: str, *, cut: bool = False) -> str:
    """A captured value without trailing adverbs (and, if ``cut``, trailing clauses).

    >>> clean_value("Pune now"), clean_value("Pune with my wife since May", cut=True)
    ('Pune', 'Pune')
    """
    value = value.strip(" ,.;:!")
    if cut:
        value = _CUT.sub("", value)
    previous = None
    while previous != value:
        previous = value
        value = _TRAILING.sub("", value).strip(" ,.;:!")
    return value


def with_article(noun: str) -> str:
    """``noun`` after "a" or "an".

    >>> with_article("engineer"), with_article("nurse")
    ('an engineer', 'a nurse')
    """
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


# -- sentences and clauses -------------------------------------------------------------------

_PERSONS: dict[Person, tuple[str, str]] = {
    "first": (r"I", r"my"),
    "second": (r"you", r"your"),
    "canonical": (r"user", r"user's"),
}
#: By person: the pattern of a clause about the user ("I ...") and of one about what is
#: theirs ("my ...", "my sister ...", "my dog's ..."); both capture the ``rest``.
SUBJECTS: dict[Person, tuple[re.Pattern[str], re.Pattern[str]]] = {
    person: (
        re.compile(rf"^{me}\s+(?P<rest>.+)$", re.I if person != "first" else 0),
        re.compile(
            rf"^{mine}\s+(?:(?P<rel>{RELATIONS}|{PETS})(?:'s)?\s+)?(?P<rest>.+)$",
            re.I,
        ),
    )
    for person, (me, mine) in _PERSONS.items()
}
_LEAD = re.compile(
    r"^(?:(?:hi|hello|hey|thanks|thank you|ok|okay|so|well|oh|btw|by the way|fyi|anyway|"
    r"actually|also|and|but|yes|yeah|yep|um|uh|hmm|honestly|just so you know|"
    r"for the record|now|currently|these days|nowadays|oh and|guess what|good news|"
    # A correction's lead: what follows is said again, right this time.
    r"correction|to correct myself|sorry|oops|my bad|my mistake|i mean|i meant to say)\b"
    # Words that lead a sentence of their own as well ("No more emojis", "No need to ...",
    # "Wait for my go-ahead"): a lead only with a stop after them ("No, I live in Pune").
    r"|(?:no|nope|wait)(?=\s*[,!.:;\u2013\u2014-]))[\s,!.:;\u2013\u2014-]*",
    re.I,
)
#: A clause's contrast with what it corrects: "I live in Mumbai, not Pune", "I drink tea
#: instead of coffee". The clause without it says the fact; "not" needs the comma, since
#: "I do not eat meat" is a negation, and "not anymore" is one too.
_CONTRAST = re.compile(
    r"(?:,\s*not\s+(?!any\s*more\b|really\b|at all\b|yet\b)|\s*,?\s+(?:rather than|instead of)\s+)"
    r"[^,;]+$",
    re.I,
)
_QUESTION = re.compile(
    r"^(?:what|where|when|why|how|who|whom|which|whose|do|does|did|can|could|would|will|"
    r"should|shall|is|are|am|was|were|have|has|may|might|must)\b",
    re.I,
)
_IF = re.compile(r"^(?:if|suppose|supposing|imagine|what if|assuming|unless|when)\b", re.I)
_SPLIT = re.compile(
    r"((?:,\s*|\s+)(?:and|but|so|because|although|though|while|whereas)\s+|"
    r",\s+(?=(?:I|my|you|your)\s))",
    re.I,
)
_VERB_START = re.compile(
    r"^(?:am|is|are|have|has|had|live|lives|moved|relocated|work|works|like|likes|love|loves|"
    r"enjoy|enjoys|adore|adores|hate|hates|dislike|dislikes|prefer|prefers|eat|eats|drink|"
    r"drinks|smoke|smokes|plan|plans|might|may|will|no longer|do|does|can not|just|recently|"
    r"also|really|got|come|comes|intend|intends|hope|hopes|follow|follows|go|goes|stopped|"
    r"quit)\b",
    re.I,
)
#: A negation said twice ("I don't live in Pune, not anymore"): the tail goes when the
#: clause before it is negated already.
_NOT_AGAIN = re.compile(r",\s*not\s+(?:any\s*more|at all)[\s.!]*$", re.I)
_NEGATED = re.compile(r"\b(?:not|no longer|never|don't|doesn't|didn't)\b", re.I)


def without_contrast(clause: str) -> str:
    """``clause`` without what it contrasts itself with (a correction's old value) or
    a negation said again.

    >>> without_contrast("I live in Mumbai, not Pune")
    'I live in Mumbai'
    >>> without_contrast("I do not live in Pune, not anymore.")
    'I do not live in Pune anymore'
    >>> without_contrast("I do not eat meat")
    'I do not eat meat'
    """
    tail = _NOT_AGAIN.search(clause)
    if tail and _NEGATED.search(clause[: tail.start()]):
        again = " anymore" if "more" in tail.group().lower() else ""
        return clause[: tail.start()] + again
    return _CONTRAST.sub("", clause)


def sentences(text: str) -> list[str]:
    """The sentences of a message: split after ".", "!", "?" and ";" (not after "Dr."),
    and at line breaks.

    >>> sentences("Hi! I live in Pune; I work at Acme.\\nThanks, Dr. Lee")
    ['Hi!', 'I live in Pune;', 'I work at Acme.', 'Thanks, Dr. Lee']
    """
    return split_sentences(text, ".!?;")


def is_question_or_hypothetical(sentence: str) -> bool:
    """Whether a sentence asks or supposes rather than states: no fact is read from it.

    >>> [is_question_or_hypothetical(s) for s in ("Where do I live", "If I lived in Pune",
    ...                                           "I live in Pune?", "I live in Pune.")]
    [True, True, True, False]
    """
    return bool(sentence.endswith("?") or _QUESTION.match(sentence) or _IF.match(sentence))


def without_lead_words(text: str) -> str:
    """``text`` without the greetings and fillers it starts with.

    >>> without_lead_words("Oh and by the way, actually I live in Pune")
    'I live in Pune'
    >>> without_lead_words("No, I live in Pune"), without_lead_words("No more emojis")
    ('I live in Pune', 'No more emojis')
    """
    previous = None
    while previous != text:
        previous = text
        text = _LEAD.sub("", text, count=1).strip()
    return text


def clauses(sentence: str, person: Person) -> list[str]:
    """Clauses of a sentence; a clause without a subject borrows the previous one's
    ("I live in Pune and work at Acme"), and one without a verb rejoins it
    ("rock and roll", "peanuts and shellfish"); after "so", "but" or "because" it is
    dropped ("you are vegan, so try Leaf").

    >>> clauses("you are vegan, so try Leaf", "second")
    ['you are vegan']
    >>> clauses("I like rock and roll and my sister likes jazz", "first")
    ['I like rock and roll', 'my sister likes jazz']
    >>> clauses("Correction: I live in Mumbai, not Pune", "first")
    ['I live in Mumbai']
    """
    me, mine = SUBJECTS[person]
    parts = _SPLIT.split(sentence)
    found: list[str] = []
    subject = ""
    for i in range(0, len(parts), 2):
        piece = without_contrast(without_lead_words(parts[i].strip()))
        own = mine.match(piece) or me.match(piece)
        if own:
            subject = piece[: own.start("rest")].strip()
            found.append(piece)
        elif found and subject and _VERB_START.match(piece):
            found.append(f"{subject} {piece}")
        elif found and parts[i - 1].strip(" ,").lower() == "and":
            found[-1] += parts[i - 1] + parts[i].strip()
        elif found:  # "..., so try Leaf": a clause no rule reads; keep the first one whole
            continue
        else:
            found.append(piece)
    return found


# -- the third person ------------------------------------------------------------------------

_ADVERBS = "usually|always|never|often|sometimes|also|really|just|still|only|rarely|already"
_MODALS = frozenset({
    "will", "would", "can", "could", "should", "must", "might", "may", "did", "had", "was",
    "shall", "not",
})  # fmt: skip


def _conjugate(verb: str) -> str:
    if verb in _MODALS or verb != verb.lower():
        return verb
    if verb == "have":
        return "has"
    if verb == "do":
        return "does"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


def third_person(text: str, today: datetime | date | None = None) -> str:
    """A first-person sentence rewritten to the third person where that is simple.

    Dates are resolved when ``today`` is given. No grammar beyond I/me/my/mine
    and the verb right after "I".

    >>> third_person("my PIN hint is my first cat")
    "User's PIN hint is User's first cat."
    >>> third_person("I usually go to the gym on Mondays")
    'User usually goes to the gym on Mondays.'
    >>> third_person("I'm seeing the dentist next Friday", datetime(2026, 3, 2))
    'User is seeing the dentist on 2026-03-06.'
    """
    text = expand_contractions(text).strip(" .!?")
    if today is not None:
        text = resolve_date(text, today)
    text = re.sub(r"\bI am\b", "User is", text)
    text = re.sub(r"\bI was\b", "User was", text)
    text = re.sub(r"\bI do not\b", "User does not", text)
    text = re.sub(
        rf"\bI((?:\s+(?:{_ADVERBS}))*)\s+([A-Za-z]+)",
        lambda m: f"User{m[1]} {_conjugate(m[2])}",
        text,
    )
    text = re.sub(r"\bI\b", "User", text)
    text = re.sub(r"\b(?:my|mine)\b", "User's", text, flags=re.I)
    text = re.sub(r"\b(?:me|myself)\b", "User", text, flags=re.I)
    text = text[:1].upper() + text[1:]
    return text + "."
