"""The predicate patterns: what one clause says about its subject, in canonical form.

A clause reaches these patterns without its subject and without its date ("I moved to
Pune last week" arrives as "moved to Pune"): each pattern matches the rest, and its
builder returns the canonical ``Predicate`` (its slot, its value, and the words of the
canonical text: "lives in Pune"). Negations ("no longer", "do not", "stopped ...") are
taken off first and reported beside the predicates.

>>> [(p.slot, p.value, p.verb, p.rest) for p in predicates_of("live in pune", "", None)[0]]
[('location', 'pune', 'lives', 'in Pune')]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from langgraph_memory.records import Kind
from langgraph_memory.write.rules.dates import FoundDate
from langgraph_memory.write.rules.grammar import (
    capitalised,
    clean_value,
    comparable,
    singular,
    with_article,
)
from langgraph_memory.write.rules.vocabulary import (
    DIETS,
    HABIT_GERUNDS,
    JOBS,
    NOT_NAMES,
    PET_SET,
    PETS,
    PLAN_GERUNDS,
    PLAN_NEEDS_DATE,
    PLAN_VERBS,
    RELATIONS,
    THIRD_PERSON,
    TOPICS,
    VAGUE,
)

__all__ = ["Predicate", "predicates_of"]


@dataclass(frozen=True)
class Predicate:
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


_Builder = Callable[[re.Match[str], str, FoundDate | None], list[Predicate]]
_BE = r"(?:am|is|are)"
_NAME = r"(?P<v>[A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
_TOPIC_RE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, TOPICS), key=len, reverse=True)) + r")\b", re.I
)


def _name(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    name = capitalised(clean_value(m["v"]))
    if not name or name.lower() in VAGUE:
        return []
    if rel in PET_SET:  # "my dog is called Rex" is the same fact as "I have a dog named Rex"
        return [
            Predicate(
                "pet",
                f"pet:{rel}",
                comparable(name),
                "has",
                "have",
                f"a {rel} named {name}",
                about="",
            )
        ]
    if not rel:
        return [Predicate("name", "name", comparable(name), possessive=f"name is {name}")]
    return [Predicate("relationship", "name", comparable(name), rest=f"called {name}")]


def _bare_name(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    if rel or m["v"].split()[0].lower() in NOT_NAMES or re.fullmatch(DIETS, m["v"], re.I):
        return []
    return _name(m, rel, when)


def _place(m: re.Match[str]) -> str | None:
    place = clean_value(m["v"], cut=True)
    if not place or re.match(r"(?:a|an|my|your|his|her|our|their|this|that)\b", place, re.I):
        return None
    if comparable(place) in VAGUE:
        return None
    return capitalised(place)


def _location(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    place = _place(m)
    if place is None:
        return []
    return [Predicate("location", "location", comparable(place), "lives", "live", f"in {place}")]


def _origin(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    place = _place(m)
    return (
        []
        if place is None
        else [Predicate("origin", "origin", comparable(place), rest=f"from {place}")]
    )


def _employer(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    org = clean_value(m["v"], cut=True)
    if not org or comparable(org) in VAGUE or re.match(r"(?:home|my|your)\b", org, re.I):
        return []
    org = org if re.match(r"(?:a|an|the)\s", org, re.I) else capitalised(org)
    return [Predicate("employer", "employer", comparable(org), "works", "work", f"at {org}")]


def _job(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    job = clean_value(m["v"], cut=True)
    if not job or comparable(job) in VAGUE:
        return []
    return [Predicate("job", "job", comparable(job), "works", "work", f"as {with_article(job)}")]


def _diet(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    diet = m["v"].lower().replace(" ", "-")
    return [Predicate("diet", "diet", diet, rest=diet)]


def _intolerance(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    what = m["v"].lower()
    return [Predicate("intolerance", f"intolerance:{what}", "yes", rest=f"{what} intolerant")]


_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*", re.I)


def _allergies(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    # "peanuts, shellfish and penicillin" is three facts: each can be dropped alone.
    out = []
    for item in _LIST_SPLIT.split(clean_value(m["v"], cut=True)):
        item = re.sub(r"^(?:the|all|most|some)\s+", "", item.strip(), flags=re.I)
        if item and comparable(item) not in VAGUE:
            slot = f"allergy:{singular(comparable(item))}"
            out.append(Predicate("allergy", slot, "yes", rest=f"allergic to {item}"))
    return out


def _allergy_noun(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    item = m["v"].lower()
    slot = f"allergy:{singular(comparable(item))}"
    return [Predicate("allergy", slot, "yes", "has", "have", f"{with_article(item)} allergy")]


def _habit(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    verb = m["verb"].lower().rstrip("s")
    third = THIRD_PERSON.get(verb, verb + "s")
    what = clean_value(m["v"] or "", cut=True)
    if what and comparable(what) in VAGUE:
        return []
    slot = f"{third}:{comparable(what)}" if what else third
    return [Predicate("habit", slot, "yes", third, verb, what)]


def _likes(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    what = clean_value(m["v"])
    if not what or comparable(what) in VAGUE:
        return []
    raw = m["verb"].lower()
    word = raw.split()[0]
    if word in {"am", "is", "are"}:  # "I'm into jazz", "I'm a big fan of jazz"
        verb, base, value = "likes", "like", "likes"
    elif word in {"hate", "hates", "dislike", "dislikes", "detest", "detests", "can"}:
        base = "dislike" if word == "can" else word.rstrip("s")
        verb, value = THIRD_PERSON[base], "dislikes"
    else:
        base = word[:-1] if word.endswith("s") else word
        verb, value = THIRD_PERSON[base], "likes"
    return [Predicate("preference", f"preference:{comparable(what)}", value, verb, base, what)]


def _prefers(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    what = clean_value(m["v"])
    if not what or comparable(what) in VAGUE:
        return []
    other = clean_value(m["other"]) if m["other"] else ""
    rest = f"{what} over {other}" if other else what
    topic = _TOPIC_RE.search(what)
    if topic:
        name, value = TOPICS[topic[1].lower()]
        return [Predicate("preference", f"preference:{name}", value, "prefers", "prefer", rest)]
    return [
        Predicate(
            "preference", f"preference:{comparable(what)}", "prefers", "prefers", "prefer", rest
        )
    ]


def _favourite(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    topic, what = comparable(m["t"]), clean_value(m["v"])
    if not what or comparable(what) in VAGUE:
        return []
    said = f"favourite {topic} {m['be'].lower()} {what}"
    return [Predicate("favourite", f"favourite:{topic}", comparable(what), possessive=said)]


def _age(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    years = int(m["v"])
    if not 0 < years < 130:
        return []
    return [Predicate("age", "age", str(years), rest=f"{years} years old")]


def _spouse(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    who = clean_value(m["v"], cut=True)
    if not who or comparable(who) in VAGUE:
        return []
    who = capitalised(who)
    return [Predicate("spouse", "spouse", comparable(who), rest=f"married to {who}")]


def _pet(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    pet = m["pet"].lower()
    if m["v"]:
        name = capitalised(m["v"])
        return [
            Predicate("pet", f"pet:{pet}", comparable(name), "has", "have", f"a {pet} named {name}")
        ]
    return [Predicate("pet", f"pet:{pet}", "yes", "has", "have", with_article(pet))]


def _relative(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    if rel:  # "my sister has a son named Tom": a relation of a relation is beyond these rules
        return []
    name = capitalised(m["v"])
    kin = m["rel"].lower()
    return [Predicate("relationship", "name", comparable(name), rest=f"called {name}", about=kin)]


def _plan(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    groups = m.groupdict()
    verb = (groups.get("verb") or "").lower() or PLAN_GERUNDS.get(m["g"].lower(), "")
    rest = clean_value(m["rest"] or "")
    if verb not in PLAN_VERBS or (verb in PLAN_NEEDS_DATE and when is None):
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
            Predicate(
                "plan",
                "plan:move",
                comparable(place + dated),
                "plans",
                "plan",
                phrase,
                kind=Kind.EPISODIC,
            )
        ]
    phrase = f"to {verb} {rest}".strip() + dated
    return [
        Predicate(
            "plan",
            f"plan:{verb} {comparable(rest)}".strip(),
            comparable(dated) or "someday",
            "plans",
            "plan",
            phrase,
            kind=Kind.EPISODIC,
        )
    ]


def _dated_plan(m: re.Match[str], rel: str, when: FoundDate | None) -> list[Predicate]:
    """A plan said in the present progressive, read only with its date: "I'm flying to
    Rome" alone may be happening now."""
    return _plan(m, rel, when) if when is not None else []


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
    (re.compile(rf"^{_BE} an? (?P<v>(?:[\w-]+ ){{0,2}}(?:{JOBS}))$", re.I), _job),
    (
        re.compile(
            rf"^(?:works?|{_BE} working|(?:{_BE} )?employed) (?:at|for|by) (?P<v>.+)$", re.I
        ),
        _employer,
    ),
    # A new employer said as a change: "I just started a new job at Globex", "I got a job
    # with Initech", "I joined Hooli": the employer slot's new value (it replaces the old).
    (
        re.compile(
            r"^(?:(?:have|has) )?(?:just |recently |finally |now )?(?:started|began)"
            r"(?: (?:a|my) new job| a job| working| work)? (?:at|for|with) (?P<v>.+)$",
            re.I,
        ),
        _employer,
    ),
    (
        re.compile(
            r"^(?:(?:have|has) )?(?:just |recently |finally )?(?:got|landed|accepted|took) "
            r"(?:a|an|the) (?:new )?(?:job|position|role)(?: as [\w -]+?)? (?:at|with) (?P<v>.+)$",
            re.I,
        ),
        _employer,
    ),
    (
        re.compile(
            r"^(?:(?:have|has) )?(?:just |recently )?joined "
            r"(?P<v>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*)$"
        ),
        _employer,
    ),
    (
        re.compile(
            rf"^(?:{_BE} (?:an? )?(?:strict )?|(?:follows?|eats?) an? |{_BE} on an? )"
            rf"(?P<v>{DIETS})(?: diet)?$",
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
            rf"^(?:have|has|(?:have|has) got) (?:an?|one) (?P<pet>{PETS})"
            rf"(?: (?:named|called) (?P<v>[A-Za-z][\w'-]*))?$",
            re.I,
        ),
        _pet,
    ),
    (
        re.compile(
            rf"^(?:have|has|(?:have|has) got) an? (?P<rel>{RELATIONS}) (?:named|called) {_NAME}$",
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
    # "I'm flying to Rome on Tuesday": of another plan's verb, with a date only.
    (re.compile(rf"^{_BE} (?P<g>[a-z]+ing) (?P<rest>.+)$", re.I), _dated_plan),
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


def predicates_of(rest: str, rel: str, when: FoundDate | None) -> tuple[list[Predicate], str]:
    """Canonical predicates of ``rest`` and the negation they are under ("" if none).

    ``rest`` is a clause without its subject; ``rel`` is whose it is ("" for the user,
    "sister" for "my sister ..."); ``when`` is the date cut out of the clause.

    >>> preds, negation = predicates_of("am allergic to peanuts and cats", "", None)
    >>> [(p.slot, p.rest) for p in preds], negation
    ([('allergy:peanut', 'allergic to peanuts'), ('allergy:cat', 'allergic to cats')], '')
    >>> [p.slot for p in predicates_of("do not live in Delhi anymore", "", None)[0]]
    ['location']
    >>> predicates_of("do not live in Delhi anymore", "", None)[1]
    'no longer'
    """
    negation = ""
    for pattern, mode in _NEGATIONS:
        match = pattern.match(rest)
        if not match:
            continue
        groups = match.groupdict()
        if groups.get("job"):  # "I quit my job at the bank"
            rest = f"work at {match['job']}"
        elif groups.get("g"):
            verb = HABIT_GERUNDS.get(match["g"].lower())
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
