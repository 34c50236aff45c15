"""The offline rules model: a deterministic extractor and reconciler, no LLM.

Used by the demo and the tests when no chat model is configured. It is a
fallback, not the quality path: it reads plain first-person statements with
regular expressions and reconciles them by *slot* (what a fact is about, such
as ``location`` or ``sister.location``) instead of by meaning.

What it understands (in the user's messages; in assistant, tool or document
messages "you"/"your" stand for the user and "I" is the speaker, not the user):

- name: "my name is Alice", "I'm called Alice", "call me Alice", "I'm Alice";
- where the user lives: "I live in / I'm based in / I (have just) moved to Pune",
  and where they are from ("I'm from Pune");
- work: "I work at/for Acme", "I work as a nurse", "I'm employed by Acme", "I'm a
  teacher" (for a short list of job nouns only), "I quit my job at Acme";
- diet and health: "I'm vegetarian/vegan/...", "I'm allergic to peanuts and
  shellfish" (one fact per allergen), "I have a peanut allergy", "I'm lactose
  intolerant", "I eat/drink/smoke ...";
- preferences: "I prefer metric units" (units, temperature, distance, time
  format, theme, seat, hot drink, answer length and contact are recognised
  topics), "I like/love/enjoy/hate jazz", "my favourite food is sushi";
- age ("I'm 34"), marriage ("I'm married to Maria");
- other people and pets, kept attached to them: "my sister lives in Delhi",
  "my wife is called Maria", "I have a sister named Priya", "I have a dog
  named Rex", "my dog's name is Rex";
- "remember that ...": the rest is read by the rules above, or else rewritten
  to the third person where that is simple (I -> User, my -> User's);
- negations: "I no longer ...", "I don't ... anymore", "I'm not ... (anymore)",
  "I don't eat meat", "I stopped eating meat";
- plans, stored as plans with their date, never as changes: "I might / may /
  will / plan to / am going to / am thinking of moving ... move to Pune next
  year" -> "User plans to move to Pune in 2027.";
- relative dates against the turn's date: today, tonight, tomorrow, yesterday,
  the day after tomorrow, next/last/this/coming/on <weekday>, next/last/this
  week, month and year, in N days/weeks/months/years, N ... ago.

Reconciliation: a fact and a shown memory with the same slot and the same value
-> NOOP; a new value -> UPDATE; a negation of the held value -> DELETE;
otherwise an identical text -> NOOP, else ADD.

What it does not understand:

- anything said about the user in the third person ("Alice lives in Pune"), or by
  "we" ("we moved to Pune");
- pronouns across sentences ("My sister moved. She lives in Delhi now." gives
  nothing about the sister), and ellipsis ("Pune, actually.");
- sarcasm, jokes, hypotheticals and conditionals ("if I lived in Pune ..."),
  wishes ("I want to ..."), past states ("I used to live in Delhi");
- plans other than the listed modal patterns with a short list of verbs
  (move, visit, travel, learn, buy, retire ...);
- non-English text;
- compound sentences beyond splitting on "and", "but", "so", "because" and
  comma splices before "I"/"my"; lists are split only for allergies;
- corrections such as "actually it's Mumbai" unless they repeat a full pattern
  ("actually I live in Mumbai");
- a bare weekday with "on" is always taken to be the next one, even in the past
  tense ("I moved on Friday");
- one value per slot: a second sister's name or a second dog of the same
  species replaces the first, and a move does not close an older plan to move;
- two facts of one batch about the same slot when the first is new: the second
  is added too, since a choice can only point at memories that were shown;
- jobs outside that short list ("I'm a sommelier"), "I work in marketing", quantities
  ("I have two kids"), birthdays and most other facts.

>>> from datetime import datetime, timezone
>>> turn = Turn.of([("user", "Hi! I'm Alice and I live in Pune. What's the weather?")],
...                when=datetime(2026, 3, 2, tzinfo=timezone.utc))
>>> [f.text for f in RulesModel().extract(turn).facts]
["User's name is Alice.", 'User lives in Pune.']
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from langgraph_memory.model import Kind, Memory, Source, Trust
from langgraph_memory.write.types import (
    SOURCE_OF_ROLE,
    TRUST_OF_ROLE,
    Choice,
    Extraction,
    Fact,
    Role,
    Turn,
)

__all__ = ["IMPORTANCE", "RulesModel", "resolve_date", "slot_of", "third_person"]

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
}

# -- vocabulary ------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|girlfriend|"
    "fiance|fiancee|son|daughter|friend|best friend|boss|manager|colleague|coworker|cousin|"
    "aunt|uncle|grandmother|grandfather|grandma|grandpa|niece|nephew|roommate|flatmate|"
    "neighbour|neighbor|stepmother|stepfather|stepson|stepdaughter"
)
_PETS = "dog|cat|puppy|kitten|parrot|rabbit|hamster|guinea pig|horse|bird|turtle|tortoise|fish"
_PET_SET = frozenset(_PETS.split("|"))
#: "I'm a teacher" is read as a job only for these nouns: "I'm a big fan" is not one.
_JOBS = (
    "teacher|nurse|doctor|physician|surgeon|engineer|developer|programmer|lawyer|accountant|"
    "chef|cook|designer|pharmacist|dentist|architect|scientist|researcher|professor|manager|"
    "writer|journalist|farmer|pilot|electrician|plumber|mechanic|consultant|analyst|"
    "firefighter|police officer|paramedic|therapist|psychologist|photographer|artist|"
    "musician|actor|actress|cashier|waiter|waitress|driver|carpenter|veterinarian|vet|"
    "librarian|translator|economist|banker|editor|entrepreneur"
)
_DIETS = (
    "vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten-free|gluten free|dairy-free|"
    "dairy free|lacto-vegetarian|ovo-vegetarian|flexitarian|teetotal|teetotaler|teetotaller"
)
_MONTHS = _words(
    "January February March April May June July August September October November December"
)
_WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_NUM = r"\d{1,3}|" + "|".join(_NUMBERS)
#: "I prefer X": words that name a known topic, so that a new choice on the same
#: topic replaces the old one ("metric" then "imperial" is one preference).
_TOPICS: dict[str, tuple[str, str]] = {
    "metric": ("units", "metric"),
    "imperial": ("units", "imperial"),
    "celsius": ("temperature", "celsius"),
    "centigrade": ("temperature", "celsius"),
    "fahrenheit": ("temperature", "fahrenheit"),
    "kilometres": ("distance", "km"),
    "kilometers": ("distance", "km"),
    "km": ("distance", "km"),
    "miles": ("distance", "miles"),
    "24-hour": ("time format", "24-hour"),
    "24 hour": ("time format", "24-hour"),
    "12-hour": ("time format", "12-hour"),
    "12 hour": ("time format", "12-hour"),
    "dark mode": ("theme", "dark"),
    "dark theme": ("theme", "dark"),
    "light mode": ("theme", "light"),
    "light theme": ("theme", "light"),
    "window seat": ("seat", "window"),
    "window seats": ("seat", "window"),
    "aisle seat": ("seat", "aisle"),
    "aisle seats": ("seat", "aisle"),
    "tea": ("hot drink", "tea"),
    "coffee": ("hot drink", "coffee"),
    "short answers": ("answer length", "short"),
    "brief answers": ("answer length", "short"),
    "concise answers": ("answer length", "short"),
    "detailed answers": ("answer length", "detailed"),
    "long answers": ("answer length", "detailed"),
    "email": ("contact", "email"),
    "phone calls": ("contact", "phone"),
    "text messages": ("contact", "text"),
}
_TOPIC_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _TOPICS), key=len, reverse=True)) + r")\b", re.I
)
#: Verbs a plan may have, by gerund. Others ("I might be late") are not plans.
_PLAN_GERUNDS = {
    "moving": "move", "relocating": "relocate", "visiting": "visit", "travelling": "travel",
    "traveling": "travel", "flying": "fly", "going": "go", "starting": "start",
    "quitting": "quit", "leaving": "leave", "joining": "join", "learning": "learn",
    "studying": "study", "buying": "buy", "selling": "sell", "retiring": "retire",
    "adopting": "adopt", "changing": "change", "switching": "switch", "marrying": "marry",
    "running": "run", "taking": "take", "opening": "open", "launching": "launch",
    "applying": "apply", "getting": "get",
}  # fmt: skip
_PLAN_VERBS = frozenset(_PLAN_GERUNDS.values())
#: Verbs too vague to be a plan without a date ("I'm going to go" is not one).
_PLAN_NEEDS_DATE = frozenset({"go", "take", "start", "run", "get", "open", "change", "switch"})
_HABIT_GERUNDS = {"eating": "eat", "drinking": "drink", "smoking": "smoke"}
_THIRD = {
    "eat": "eats",
    "drink": "drinks",
    "smoke": "smokes",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
}
#: Values that are not a place, an employer or a liked thing but a pronoun.
_VAGUE = frozenset(
    _words("it that this them those these there here him her you me so too to one what")
)

# -- text helpers ----------------------------------------------------------------------------

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


def _expand(text: str) -> str:
    """Straight quotes and expanded contractions, so patterns see one spelling."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    for pattern, repl in _CONTRACTION_RES:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def _key(value: str) -> str:
    """A value as a slot compares it: lower case, no article, single spaces."""
    value = " ".join(value.lower().replace("\u2019", "'").split()).strip(" .,;:!?\"'")
    return re.sub(r"^(?:the|a|an)\s+", "", value)


def _singular(word: str) -> str:
    """A crude singular, so that "peanut" and "peanuts" are one allergen."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("oes") and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _proper(value: str) -> str:
    """Capitalise an all-lower-case name ("new york" -> "New York"); else keep it."""
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


def _clean(value: str, *, cut: bool = False) -> str:
    """A captured value without trailing adverbs (and, if ``cut``, trailing clauses)."""
    value = value.strip(" ,.;:!")
    if cut:
        value = _CUT.sub("", value)
    previous = None
    while previous != value:
        previous = value
        value = _TRAILING.sub("", value).strip(" ,.;:!")
    return value


# -- dates -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _When:
    """A date found in a clause: where it was, how to write it, and when it is."""

    start: int
    end: int
    text: str  # "on 2026-03-06", "in the week of 2026-03-09", "in April 2026", "in 2027"
    at: datetime


def _on(day: date) -> tuple[str, datetime]:
    return f"on {day.isoformat()}", datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def _in_month(year: int, month: int) -> tuple[str, datetime]:
    return f"in {_MONTHS[month - 1]} {year}", datetime(year, month, 1, tzinfo=timezone.utc)


def _in_year(year: int) -> tuple[str, datetime]:
    return f"in {year}", datetime(year, 1, 1, tzinfo=timezone.utc)


def _week_of(day: date) -> tuple[str, datetime]:
    monday = day - timedelta(days=day.weekday())
    return f"in the week of {monday.isoformat()}", datetime(
        monday.year, monday.month, monday.day, tzinfo=timezone.utc
    )


def _add_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def _shift(day: date, n: int, unit: str) -> tuple[str, datetime]:
    unit = unit.lower()
    if unit == "day":
        return _on(day + timedelta(days=n))
    if unit == "week":
        return _on(day + timedelta(weeks=n))
    if unit == "month":
        return _in_month(*_add_months(day, n))
    return _in_year(day.year + n)


_WD = "|".join(_WEEKDAYS)
_MON = "|".join(_MONTHS)
_DATE_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str], date], tuple[str, datetime]]]] = [
    (re.compile(r"\bon (\d{4}-\d{2}-\d{2})\b"), lambda m, d: _on(date.fromisoformat(m[1]))),
    (
        re.compile(r"\bin the week of (\d{4}-\d{2}-\d{2})\b", re.I),
        lambda m, d: _week_of(date.fromisoformat(m[1])),
    ),
    (
        re.compile(rf"\bin ({_MON}) (\d{{4}})\b", re.I),
        lambda m, d: _in_month(int(m[2]), _MONTHS.index(m[1].capitalize()) + 1),
    ),
    (re.compile(r"\bin (\d{4})\b"), lambda m, d: _in_year(int(m[1]))),
    (
        re.compile(r"\b(?:the )?day after tomorrow\b", re.I),
        lambda m, d: _on(d + timedelta(days=2)),
    ),
    (
        re.compile(r"\b(?:the )?day before yesterday\b", re.I),
        lambda m, d: _on(d - timedelta(days=2)),
    ),
    (
        re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I),
        lambda m, d: _on(d),
    ),
    (re.compile(r"\btomorrow\b", re.I), lambda m, d: _on(d + timedelta(days=1))),
    (re.compile(r"\byesterday\b", re.I), lambda m, d: _on(d - timedelta(days=1))),
    (
        re.compile(rf"\blast ({_WD})\b", re.I),
        lambda m, d: _on(
            d - timedelta(days=(d.weekday() - _WEEKDAYS.index(m[1].lower())) % 7 or 7)
        ),
    ),
    (
        # "next Friday" is the first Friday after today: on Monday 2026-03-02, 2026-03-06.
        re.compile(rf"\b(?:next|this|coming|this coming|on) ({_WD})\b", re.I),
        lambda m, d: _on(
            d + timedelta(days=(_WEEKDAYS.index(m[1].lower()) - d.weekday()) % 7 or 7)
        ),
    ),
    (re.compile(r"\bnext week\b", re.I), lambda m, d: _week_of(d + timedelta(weeks=1))),
    (re.compile(r"\blast week\b", re.I), lambda m, d: _week_of(d - timedelta(weeks=1))),
    (re.compile(r"\bthis week\b", re.I), lambda m, d: _week_of(d)),
    (re.compile(r"\bnext month\b", re.I), lambda m, d: _in_month(*_add_months(d, 1))),
    (re.compile(r"\blast month\b", re.I), lambda m, d: _in_month(*_add_months(d, -1))),
    (re.compile(r"\bthis month\b", re.I), lambda m, d: _in_month(d.year, d.month)),
    (re.compile(r"\bnext year\b", re.I), lambda m, d: _in_year(d.year + 1)),
    (re.compile(r"\blast year\b", re.I), lambda m, d: _in_year(d.year - 1)),
    (re.compile(r"\bthis year\b", re.I), lambda m, d: _in_year(d.year)),
    (
        re.compile(rf"\bin ({_NUM}) (day|week|month|year)s?(?: time)?\b", re.I),
        lambda m, d: _shift(d, _number(m[1]), m[2]),
    ),
    (
        re.compile(rf"\b({_NUM}) (day|week|month|year)s? ago\b", re.I),
        lambda m, d: _shift(d, -_number(m[1]), m[2]),
    ),
]


def _find_date(text: str, today: date) -> _When | None:
    """The first date expression of ``text`` (in rule order), resolved against ``today``."""
    for pattern, resolve in _DATE_RULES:
        match = pattern.search(text)
        if match:
            written, at = resolve(match, today)
            return _When(match.start(), match.end(), written, at)
    return None


def resolve_date(text: str, today: datetime | date) -> str:
    """``text`` with its first relative date written as an absolute one.

    >>> resolve_date("I'm flying to Oslo next Friday", datetime(2026, 3, 2))
    "I'm flying to Oslo on 2026-03-06"
    >>> resolve_date("we met last year", date(2026, 3, 2))
    'we met in 2025'
    """
    day = today.date() if isinstance(today, datetime) else today
    found = _find_date(text, day)
    if found is None:
        return text
    return text[: found.start] + found.text + text[found.end :]


def _without(text: str, found: _When | None) -> str:
    if found is None:
        return text
    return " ".join((text[: found.start] + " " + text[found.end :]).split()).strip(" ,")


# -- predicates ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pred:
    """What a clause says about its subject, in canonical form.

    The text is ``<subject> <verb> <rest>`` ("User lives in Pune"), or
    ``<subject>'s <possessive>`` ("User's name is Alice"). ``about`` moves the
    fact to another subject ("I have a sister named Priya" is about the sister;
    "my dog is called Rex" is the user's: "User has a dog named Rex").
    """

    family: str
    slot: str
    value: str
    verb: str = "is"
    base: str = "be"
    rest: str = ""
    possessive: str | None = None
    about: str | None = None
    kind: Kind = Kind.SEMANTIC


_Builder = Callable[[re.Match[str], str, _When | None], list[_Pred]]
_BE = r"(?:am|is|are)"
_NAME = r"(?P<v>[A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"


def _name(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    name = _proper(_clean(m["v"]))
    if not name or name.lower() in _VAGUE:
        return []
    if rel in _PET_SET:  # "my dog is called Rex" is the same fact as "I have a dog named Rex"
        return [
            _Pred("pet", f"pet:{rel}", _key(name), "has", "have", f"a {rel} named {name}", about="")
        ]
    if not rel:
        return [_Pred("name", "name", _key(name), possessive=f"name is {name}")]
    return [_Pred("relationship", "name", _key(name), rest=f"called {name}")]


_NOT_NAMES = frozenset(
    _words(
        "fine good ok okay sure sorry back here ready tired happy glad hungry busy new sick "
        "home done lost bored curious confused interested excited worried not just also so"
    )
)


def _bare_name(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    if rel or m["v"].split()[0].lower() in _NOT_NAMES or re.fullmatch(_DIETS, m["v"], re.I):
        return []
    return _name(m, rel, when)


def _place(m: re.Match[str]) -> str | None:
    place = _clean(m["v"], cut=True)
    if not place or re.match(r"(?:a|an|my|your|his|her|our|their|this|that)\b", place, re.I):
        return None
    if _key(place) in _VAGUE:
        return None
    return _proper(place)


def _location(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    place = _place(m)
    if place is None:
        return []
    return [_Pred("location", "location", _key(place), "lives", "live", f"in {place}")]


def _origin(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    place = _place(m)
    return [] if place is None else [_Pred("origin", "origin", _key(place), rest=f"from {place}")]


def _employer(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    org = _clean(m["v"], cut=True)
    if not org or _key(org) in _VAGUE or re.match(r"(?:home|my|your)\b", org, re.I):
        return []
    org = org if re.match(r"(?:a|an|the)\s", org, re.I) else _proper(org)
    return [_Pred("employer", "employer", _key(org), "works", "work", f"at {org}")]


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _job(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    job = _clean(m["v"], cut=True)
    if not job or _key(job) in _VAGUE:
        return []
    return [_Pred("job", "job", _key(job), "works", "work", f"as {_article(job)}")]


def _diet(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    diet = m["v"].lower().replace(" ", "-")
    return [_Pred("diet", "diet", diet, rest=diet)]


def _intolerance(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    what = m["v"].lower()
    return [_Pred("intolerance", f"intolerance:{what}", "yes", rest=f"{what} intolerant")]


_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*", re.I)


def _allergies(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    # "peanuts, shellfish and penicillin" is three facts: each can be dropped alone.
    out = []
    for item in _LIST_SPLIT.split(_clean(m["v"], cut=True)):
        item = re.sub(r"^(?:the|all|most|some)\s+", "", item.strip(), flags=re.I)
        if item and _key(item) not in _VAGUE:
            slot = f"allergy:{_singular(_key(item))}"
            out.append(_Pred("allergy", slot, "yes", rest=f"allergic to {item}"))
    return out


def _allergy_noun(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    item = m["v"].lower()
    slot = f"allergy:{_singular(_key(item))}"
    return [_Pred("allergy", slot, "yes", "has", "have", f"{_article(item)} allergy")]


def _habit(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    verb = m["verb"].lower().rstrip("s")
    third = _THIRD.get(verb, verb + "s")
    what = _clean(m["v"] or "", cut=True)
    if what and _key(what) in _VAGUE:
        return []
    slot = f"{third}:{_key(what)}" if what else third
    return [_Pred("habit", slot, "yes", third, verb, what)]


def _likes(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    what = _clean(m["v"])
    if not what or _key(what) in _VAGUE:
        return []
    raw = m["verb"].lower()
    word = raw.split()[0]
    if word in {"am", "is", "are"}:  # "I'm into jazz", "I'm a big fan of jazz"
        verb, base, value = "likes", "like", "likes"
    elif word in {"hate", "hates", "dislike", "dislikes", "detest", "detests", "can"}:
        base = "dislike" if word == "can" else word.rstrip("s")
        verb, value = _THIRD[base], "dislikes"
    else:
        base = word[:-1] if word.endswith("s") else word
        verb, value = _THIRD[base], "likes"
    return [_Pred("preference", f"preference:{_key(what)}", value, verb, base, what)]


def _prefers(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    what = _clean(m["v"])
    if not what or _key(what) in _VAGUE:
        return []
    other = _clean(m["other"]) if m["other"] else ""
    rest = f"{what} over {other}" if other else what
    topic = _TOPIC_RE.search(what)
    if topic:
        name, value = _TOPICS[topic[1].lower()]
        return [_Pred("preference", f"preference:{name}", value, "prefers", "prefer", rest)]
    return [_Pred("preference", f"preference:{_key(what)}", "prefers", "prefers", "prefer", rest)]


def _favourite(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    topic, what = _key(m["t"]), _clean(m["v"])
    if not what or _key(what) in _VAGUE:
        return []
    said = f"favourite {topic} {m['be'].lower()} {what}"
    return [_Pred("favourite", f"favourite:{topic}", _key(what), possessive=said)]


def _age(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    years = int(m["v"])
    if not 0 < years < 130:
        return []
    return [_Pred("age", "age", str(years), rest=f"{years} years old")]


def _spouse(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    who = _clean(m["v"], cut=True)
    if not who or _key(who) in _VAGUE:
        return []
    who = _proper(who)
    return [_Pred("spouse", "spouse", _key(who), rest=f"married to {who}")]


def _pet(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    pet = m["pet"].lower()
    if m["v"]:
        name = _proper(m["v"])
        return [_Pred("pet", f"pet:{pet}", _key(name), "has", "have", f"a {pet} named {name}")]
    return [_Pred("pet", f"pet:{pet}", "yes", "has", "have", _article(pet))]


def _relative(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    if rel:  # "my sister has a son named Tom": a relation of a relation is beyond these rules
        return []
    name = _proper(m["v"])
    kin = m["rel"].lower()
    return [_Pred("relationship", "name", _key(name), rest=f"called {name}", about=kin)]


def _plan(m: re.Match[str], rel: str, when: _When | None) -> list[_Pred]:
    groups = m.groupdict()
    verb = (groups.get("verb") or "").lower() or _PLAN_GERUNDS.get(m["g"].lower(), "")
    rest = _clean(m["rest"] or "")
    if verb not in _PLAN_VERBS or (verb in _PLAN_NEEDS_DATE and when is None):
        return []
    if not rest and verb not in {"retire", "marry"}:
        return []
    dated = f" {when.text}" if when else ""
    if verb in {"move", "relocate"}:
        target = re.match(r"(?:back\s+)?to\s+(?P<v>.+)$", rest, re.I)
        place = _place(target) if target else None
        if place is None:
            return []
        phrase = f"to move to {place}{dated}"
        return [
            _Pred(
                "plan",
                "plan:move",
                _key(place + dated),
                "plans",
                "plan",
                phrase,
                kind=Kind.EPISODIC,
            )
        ]
    phrase = f"to {verb} {rest}".strip() + dated
    return [
        _Pred(
            "plan",
            f"plan:{verb} {_key(rest)}".strip(),
            _key(dated) or "someday",
            "plans",
            "plan",
            phrase,
            kind=Kind.EPISODIC,
        )
    ]


_MODAL = (
    r"(?:might|may|will|shall|(?:am|is|are) (?:planning|going|hoping) to|plans? to|"
    r"intends? to|hopes? to)"
)
_PREDICATES: list[tuple[re.Pattern[str], _Builder]] = [
    (re.compile(rf"^name is {_NAME}$", re.I), _name),
    (re.compile(rf"^{_BE} (?:called|named) {_NAME}$", re.I), _name),
    (re.compile(rf"^go(?:es)? by {_NAME}$", re.I), _name),
    # "I am Alice": only a capitalised word that is not a common adjective.
    (re.compile(r"^(?i:am) (?P<v>[A-Z][a-z]+(?: [A-Z][a-z]+)?)$"), _bare_name),
    (re.compile(r"^(?:job is|(?:am|is|are) employed as) (?:an? )?(?P<v>.+)$", re.I), _job),
    (
        re.compile(
            r"^(?:favou?rite) (?P<t>[\w -]+?) (?P<be>is|are) (?P<v>.+)$",
            re.I,
        ),
        _favourite,
    ),
    (
        re.compile(
            rf"^(?:lives?|{_BE} (?:living|based|settled|staying))"
            r" (?:here )?(?:in|at) (?P<v>.+)$",
            re.I,
        ),
        _location,
    ),
    (
        re.compile(
            r"^(?:(?:have|has|had) )?(?:just |recently |finally |now |already )?"
            r"(?:moved|relocated)(?: back)? to (?P<v>.+)$",
            re.I,
        ),
        _location,
    ),
    (re.compile(rf"^(?:{_BE} (?:originally )?from|comes? from) (?P<v>.+)$", re.I), _origin),
    (
        re.compile(rf"^(?:works?|{_BE} working) as (?:an? )?(?P<v>.+)$", re.I),
        _job,
    ),
    (re.compile(rf"^{_BE} (?:an? )?(?P<v>[\w -]+?) by (?:profession|trade)$", re.I), _job),
    (re.compile(rf"^{_BE} an? (?P<v>(?:[\w-]+ ){{0,2}}(?:{_JOBS}))$", re.I), _job),
    (
        re.compile(
            rf"^(?:works?|{_BE} working|(?:{_BE} )?employed) (?:at|for|by) (?P<v>.+)$", re.I
        ),
        _employer,
    ),
    (
        re.compile(
            rf"^(?:{_BE} (?:an? )?(?:strict )?|(?:follows?|eats?) an? |{_BE} on an? )"
            rf"(?P<v>{_DIETS})(?: diet)?$",
            re.I,
        ),
        _diet,
    ),
    (re.compile(rf"^{_BE} (?P<v>lactose|gluten|fructose) intolerant$", re.I), _intolerance),
    (
        re.compile(
            rf"^{_BE} (?:very |severely |highly |mildly |deathly )?allergic to (?P<v>.+)$", re.I
        ),
        _allergies,
    ),
    (re.compile(r"^(?:have|has) an allergy to (?P<v>.+)$", re.I), _allergies),
    (
        re.compile(r"^(?:have|has) an? (?:severe |bad |mild )?(?P<v>[\w-]+) allergy$", re.I),
        _allergy_noun,
    ),
    (re.compile(rf"^{_BE} (?P<v>\d{{1,3}})(?: years? old| y/?o)?$", re.I), _age),
    (re.compile(rf"^{_BE} married to (?P<v>.+)$", re.I), _spouse),
    (
        re.compile(
            rf"^(?:have|has|(?:have|has) got) (?:an?|one) (?P<pet>{_PETS})"
            rf"(?: (?:named|called) (?P<v>[A-Za-z][\w'-]*))?$",
            re.I,
        ),
        _pet,
    ),
    (
        re.compile(
            rf"^(?:have|has|(?:have|has) got) an? (?P<rel>{_RELATIONS}) (?:named|called) {_NAME}$",
            re.I,
        ),
        _relative,
    ),
    (
        re.compile(
            rf"^{_MODAL} (?:probably |maybe |eventually |soon |finally )?"
            r"(?P<verb>[a-z]+)\b ?(?P<rest>.*)$",
            re.I,
        ),
        _plan,
    ),
    (
        re.compile(
            rf"^(?:{_BE} )?(?:thinking (?:of|about)|considering|planning on) "
            r"(?P<g>[a-z]+ing)\b ?(?P<rest>.*)$",
            re.I,
        ),
        _plan,
    ),
    # "I'm moving to Pune next year": the present progressive of a move is a plan.
    (re.compile(rf"^{_BE} (?P<g>moving|relocating) (?P<rest>.+)$", re.I), _plan),
    (
        re.compile(
            r"^(?P<verb>likes?|loves?|enjoys?|adores?|hates?|dislikes?|detests?|can not stand|"
            rf"{_BE} (?:really |totally )?into|{_BE} an? (?:big |huge )?fan of) (?P<v>.+)$",
            re.I,
        ),
        _likes,
    ),
    (
        re.compile(
            r"^(?:prefers?|would rather have) (?P<v>.+?)"
            r"(?: (?:over|to|rather than|instead of) (?P<other>.+))?$",
            re.I,
        ),
        _prefers,
    ),
    (re.compile(r"^(?P<verb>eats?|drinks?|smokes?)(?: (?P<v>.+))?$", re.I), _habit),
]

_NEGATIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^no longer (?P<p>.+?)(?: (?:anymore|any more|any longer))?$", re.I), "no longer"),
    (
        re.compile(r"^(?:do|does) not (?P<p>.+?) (?:anymore|any more|any longer)$", re.I),
        "no longer",
    ),
    (re.compile(r"^(?:do|does) not (?P<p>.+)$", re.I), "not"),
    (
        re.compile(
            rf"^(?P<be>{_BE}) no longer (?P<p>.+?)(?: (?:anymore|any more|any longer))?$", re.I
        ),
        "no longer",
    ),
    (
        re.compile(rf"^(?P<be>{_BE}) not (?P<p>.+?) (?:anymore|any more|any longer)$", re.I),
        "no longer",
    ),
    (re.compile(rf"^(?P<be>{_BE}) not (?P<p>.+)$", re.I), "not"),
    (
        re.compile(
            r"^(?:(?:have|has) )?(?:just )?(?:quit|left) (?:my|your|his|her|the) job "
            r"(?:at|with) (?P<job>.+)$",
            re.I,
        ),
        "no longer",
    ),
    (
        re.compile(
            r"^(?:(?:have|has) )?(?:stopped|quit|given up) (?P<g>\w+ing)\b ?(?P<p>.*)$", re.I
        ),
        "no longer",
    ),
]


def _predicate(rest: str, rel: str, when: _When | None) -> tuple[list[_Pred], str]:
    """Canonical predicates of ``rest`` and the negation they are under ("" if none)."""
    negation = ""
    for pattern, mode in _NEGATIONS:
        match = pattern.match(rest)
        if not match:
            continue
        groups = match.groupdict()
        if groups.get("job"):  # "I quit my job at the bank"
            rest = f"work at {match['job']}"
        elif groups.get("g"):
            verb = _HABIT_GERUNDS.get(match["g"].lower())
            if verb is None:
                continue
            rest = f"{verb} {match['p']}".strip()
        elif groups.get("be"):
            rest = f"{match['be']} {match['p']}"
        else:
            rest = match["p"]
        negation = mode
        break
    for pattern, build in _PREDICATES:
        match = pattern.match(rest)
        if match:
            preds = build(match, rel, when)
            if preds:
                return preds, negation
    return [], negation


# -- clauses ---------------------------------------------------------------------------------

#: Who "I" and "my" are, by speaker: the user's own words, another speaker's
#: words about the user ("you"), and this model's own canonical texts.
_PERSONS = {
    "first": (r"I", r"my"),
    "second": (r"you", r"your"),
    "canonical": (r"user", r"user's"),
}
_SUBJECT_RES = {
    person: (
        re.compile(rf"^{me}\s+(?P<rest>.+)$", re.I if person != "first" else 0),
        re.compile(
            rf"^{mine}\s+(?:(?P<rel>{_RELATIONS}|{_PETS})(?:'s)?\s+)?(?P<rest>.+)$",
            re.I,
        ),
    )
    for person, (me, mine) in _PERSONS.items()
}


@dataclass(frozen=True)
class _Found:
    """One fact read from one clause, before it becomes a ``Fact``."""

    text: str
    slot: str
    value: str
    family: str
    kind: Kind
    at: datetime | None


def _render(pred: _Pred, rel: str, negation: str) -> tuple[str, str] | None:
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


def _read(clause: str, person: str, today: date) -> list[_Found]:
    """The facts one clause states about the user or someone attached to them."""
    clause = clause.strip(" ,.;:!")
    if person == "first":
        call = re.match(r"^(?:please )?call me (?P<v>.+?)(?: from now on| please)?$", clause, re.I)
        if call:
            clause = f"my name is {call['v']}"
    when = _find_date(clause, today)
    plain = _without(clause, when)
    me, mine = _SUBJECT_RES[person]
    rel = ""
    match = mine.match(plain)
    if match:
        rel = (match["rel"] or "").lower()
        rest = match["rest"]
    else:
        match = me.match(plain)
        if not match:
            return []
        rest = match["rest"]
    preds, negation = _predicate(rest, rel, when)
    found = []
    for pred in preds:
        rendered = _render(pred, rel, negation)
        if rendered is None:
            continue
        text, slot = rendered
        value = f"!{pred.value}" if negation else pred.value
        family = "relationship" if (rel or pred.about) and pred.family != "allergy" else pred.family
        found.append(_Found(text, slot, value, family, pred.kind, when.at if when else None))
    return found


_LEAD = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you|ok|okay|so|well|oh|btw|by the way|fyi|anyway|"
    r"actually|also|and|but|yes|yeah|yep|nope|no|um|uh|hmm|honestly|just so you know|"
    r"for the record|now|currently|these days|nowadays|oh and|guess what|good news)\b[\s,!.:-]*",
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
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


def _lead_trimmed(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = _LEAD.sub("", text, count=1).strip()
    return text


def _clauses(sentence: str, person: str) -> list[str]:
    """Clauses of a sentence; a clause without a subject borrows the previous one's
    ("I live in Pune and work at Acme"), and one without a verb rejoins it
    ("rock and roll", "peanuts and shellfish"); after "so", "but" or "because" it is
    dropped ("you are vegan, so try Leaf")."""
    me, mine = _SUBJECT_RES[person]
    parts = _SPLIT.split(sentence)
    clauses: list[str] = []
    subject = ""
    for i in range(0, len(parts), 2):
        piece = _lead_trimmed(parts[i].strip())
        own = mine.match(piece) or me.match(piece)
        if own:
            subject = piece[: own.start("rest")].strip()
            clauses.append(piece)
        elif clauses and subject and _VERB_START.match(piece):
            clauses.append(f"{subject} {piece}")
        elif clauses and parts[i - 1].strip(" ,").lower() == "and":
            clauses[-1] += parts[i - 1] + parts[i].strip()
        elif clauses:  # "..., so try Leaf": a clause no rule reads; keep the first one whole
            continue
        else:
            clauses.append(piece)
    return clauses


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
_ADVERBS = "usually|always|never|often|sometimes|also|really|just|still|only|rarely|already"
_MODALS = frozenset(_words("will would can could should must might may did had was shall not"))


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
    text = _expand(text).strip(" .!?")
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


# -- slots -----------------------------------------------------------------------------------


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
    found = _read(_expand(text), "canonical", date(2000, 1, 1))
    return (found[0].slot, found[0].value) if found else None


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


def _shown(shown: Sequence[Memory]) -> list[_Entry]:
    # Closed versions are history, not something a new fact can change.
    return [_Entry(i, m.text, slot_of(m.text)) for i, m in enumerate(shown) if m.active]


# -- the model -------------------------------------------------------------------------------


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
        today = turn.when.date()
        facts: list[Fact] = []
        matched: list[list[str]] = []
        skipped = 0
        seen: set[str] = set()
        for message in turn.by(roles):
            person = "first" if message.role == "user" else "second"
            for sentence in _SENTENCES.split(message.content):
                found, explicit, was_skipped = self._sentence(sentence, person, today)
                skipped += was_skipped
                for item in found:
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
                        )
                    )
                    matched.append([item.family, item.text])
        raw = json.dumps(
            {"model": "rules", "matched": matched, "skipped": skipped}, ensure_ascii=False
        )
        return Extraction(facts=tuple(facts), raw=raw)

    def _sentence(self, sentence: str, person: str, today: date) -> tuple[list[_Found], bool, int]:
        """Facts of one sentence, whether the user asked to remember them, and 1 if the
        sentence was skipped as a question or hypothetical."""
        text = _lead_trimmed(_expand(sentence).strip())
        if not text:
            return [], False, 0
        remember = (_REMEMBER_USER if person == "first" else _REMEMBER_OTHER).match(text)
        if remember and not re.match(r"(?:to|me|this|it|that)\b", remember["x"], re.I):
            inner = remember["x"]
            found = [f for c in _clauses(inner, person) for f in _read(c, person, today)]
            if person != "first":  # the assistant saying it will remember is not a request
                return found, False, 0
            if not found and len(inner.split()) >= 3:
                when = _find_date(inner, today)
                found = [
                    _Found(
                        third_person(inner, today),
                        "",
                        "",
                        "remember",
                        Kind.SEMANTIC,
                        when.at if when else None,
                    )
                ]
            return found, True, 0
        if text.endswith("?") or _QUESTION.match(text) or _IF.match(text):
            return [], False, 1
        found = [f for c in _clauses(text, person) for f in _read(c, person, today)]
        return found, False, 0

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        """NOOP, UPDATE, DELETE or ADD for ``fact`` by its slot, else by its text.

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
        >>> shown = [Memory(id="a1", text="User is vegetarian.", scope="user:a", created_at=t)]
        >>> RulesModel().choose(Fact("User is no longer vegetarian."), shown, today=t).op
        'DELETE'
        """
        return _decide(fact, _shown(shown))

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        """One choice per fact, in order: each fact sees what the earlier ones did.

        A fact an earlier fact of the batch already says is a NOOP with index None.

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
        >>> same = [Fact("User likes jazz."), Fact("User likes jazz.")]
        >>> [(c.op, c.index) for c in RulesModel().choose_batch(same, [], today=t)]
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
