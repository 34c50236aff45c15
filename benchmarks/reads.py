"""Reads that answer: what is true now comes first, and asking again never pushes it out.

Two measurements of the product read, offline: ``retrieve`` as the read node calls it
(its defaults, ``k=5``) and the block ``render`` puts before the model, over scopes
written through the write path with the offline rules model (``ingest``'s ``product``
mode), with the shipped embedder.

1. **Current first.** A change sequence states a value, then (one or two sessions later)
   a new one, and the question asks for it. The read passes when the first line of the
   rendered block that holds the current value (a line of a memory taken from the turn
   that said it) comes before every line holding an outdated one that is not marked
   earlier. Two sources of sequences:

   - LongMemEval's knowledge-update questions (the oracle split while developing; S is
     the held-out set): the ``has_answer`` turns of the latest answer session hold the
     current value, those of the earlier ones the outdated value (a question whose
     evidence sits in one session only is no change sequence, and is counted apart);
   - scripted sequences inside LoCoMo's conversations (:data:`ATTRIBUTES`): one of the
     two people says where they live, where they work, what they drive ... in one
     session and says it changed in later ones, in phrasings people use (some the rules
     model reads as a change, some it does not), amid the conversation's real turns.

   Each question is asked three times, each asking written as a turn (as the read and
   write nodes do), and scored at the first and the last asking.

2. **Asked again.** Every LoCoMo question is asked three times over its conversation,
   each asking written as a turn before the next: evidence recall at 10 on the first
   and on the last asking (the items' shown memories count: a fact with the turn that
   said it is one item).

Run it::

    python -m benchmarks reads --data ../shared/data --out results.json
    python -m benchmarks reads --data ../shared/data --quick   # 1 conversation, a few questions

LoCoMo product R@10 and LongMemEval session NDCG@5 are ``benchmarks.retrieval``'s.

>>> [a.name for a in ATTRIBUTES][:3]
['home', 'employer', 'car']
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from benchmarks.datasets import (
    DATASETS,
    Conversation,
    LmeQuestion,
    iter_longmemeval,
    load_locomo,
    missing_data,
)
from benchmarks.ingest import (
    CachedEmbeddings,
    lme_turn_id,
    lme_turns,
    locomo_turns,
    product_units,
)
from benchmarks.metrics import mean, recall_fraction
from benchmarks.reports import publish
from langgraph_memory import Memory, MemoryStore, MemoryWriter, Scope
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.read import Retrieved, render, retrieve, rules_of
from langgraph_memory.text import for_prompt, said_form
from langgraph_memory.write import (
    Choice,
    Extraction,
    Fact,
    MemoryModel,
    RulesModel,
    Turn,
)

#: How many times each question is asked (each asking written as a turn).
ASKINGS = 3
#: The read node's default number of results, and the repeat test's recall depth.
READ_K = 5
RECALL_K = 10
#: An asking is written this long after the one before (and after the conversation).
ASK_GAP = timedelta(minutes=2)
#: The stand-in's reply written with each asking (assistant words are no episode by
#: default: it only makes the turn look like one).
REPLY = "Let me check what I remember."


# -- what a rendered block shows ---------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A line of a rendered block that shows a memory: its place among the block's
    lines, the memory, and whether the block marks it as earlier (outdated)."""

    place: int
    memory: Memory
    earlier: bool


def shown_lines(results: Sequence[Retrieved], block: str) -> list[Line]:
    """Where each memory the results show sits in ``block`` (``render``'s output),
    in the block's order. A memory's line is the first that quotes its text."""
    lines = block.split("\n")
    found: list[Line] = []
    for r in results:
        marked = {m.id for m in r.earlier} | ({r.memory.id} if r.outdated else set())
        for m in r.shown:
            quoted = for_prompt(m.text)
            place = next((n for n, line in enumerate(lines) if quoted in line), None)
            if place is not None:
                found.append(Line(place, m, m.id in marked))
    return sorted(found, key=lambda x: x.place)


class TurnMap:
    """Which replayed turns each memory of a scope stands for (``ingest.product_units``:
    an episode its turn and the later turns that said the same words, a fact the turns
    of its sources), and which a fact states: those of the episodes it was taken from
    (``Memory.said_in``), not of those it replaced."""

    def __init__(self, store: MemoryStore, scope: str, turns: Sequence[Turn]) -> None:
        self.units = product_units(store, scope, turns)

    def stated(self, memory: Memory) -> set[str]:
        """The turns whose words ``memory`` states: an episode's own, a fact's turns."""
        if memory.is_episode:
            return self.named(memory)
        return {t for e in memory.said_in for t in self.units.get(e, ())}

    def named(self, memory: Memory) -> set[str]:
        """Every turn ``memory`` stands for."""
        return set(self.units.get(memory.id, ()))


def recorded(store: MemoryStore, scope: str, turns: TurnMap, change: Change) -> bool:
    """Whether the write path recorded the change: an active fact states the current
    value (``said_in``) and carries the outdated one in its sources (it replaced it)."""
    return any(
        turns.stated(m) & change.current and turns.named(m) & change.old
        for m in store.active(scope, episodes=False)
    )


def current_first(
    lines: Sequence[Line], turns: TurnMap, current: set[str], old: set[str]
) -> dict[str, bool]:
    """Whether the block shows the current value, and shows it before every outdated
    value it does not mark earlier; and whether it shows an outdated value unmarked."""
    now = [x.place for x in lines if not x.earlier and turns.stated(x.memory) & current]
    stale = [
        x.place
        for x in lines
        if not x.earlier and turns.stated(x.memory) & old and not turns.stated(x.memory) & current
    ]
    shown = bool(now)
    return {
        "current_shown": shown,
        "current_first": shown and all(p > min(now) for p in stale),
        "outdated_unmarked": bool(stale),
    }


# -- the write path over a conversation --------------------------------------------------


def _writer(store: MemoryStore, model: MemoryModel | None = None) -> MemoryWriter:
    return MemoryWriter(store, model=model or RulesModel())


@contextmanager
def replayed(
    name: str,
    turns: Sequence[Turn],
    embeddings: Embeddings,
    workdir: Path | None = None,
    model: MemoryModel | None = None,
) -> Iterator[tuple[MemoryStore, str]]:
    """A store of its own (in a folder removed afterwards) with ``turns`` written
    through the write path (``model``: the offline rules model unless given) into
    ``user:<name>``: the store and the scope."""
    folder = Path(tempfile.mkdtemp(prefix="lgm-reads-", dir=workdir))
    try:
        with MemoryStore(folder / "store", embeddings=embeddings) as store:
            scope = Scope("user", name).key
            if isinstance(embeddings, CachedEmbeddings):  # one batch for the whole history
                embeddings.prefetch(m.content.strip() for t in turns for m in t.by(("user",)))
            _writer(store, model).write_turns(scope, turns)
            yield store, scope
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _asked(
    writer: MemoryWriter, scope: str, question: str, when: datetime, k: int, asked: list[Turn]
) -> tuple[list[Retrieved], str]:
    """Ask ``question`` as the read node does (no access written: a benchmark's reads
    must not change each other's ranking), then write the asking as a turn, as the
    write node does, and add it to ``asked``."""
    store = writer.store
    found = retrieve(store, scope, question, k=k, now=when, touch=False)
    block = render(found, rules=rules_of(store, scope))
    turn = Turn.of(
        [("user", question), ("assistant", REPLY)], when=when, turn_id=f"ask-{len(asked)}"
    )
    writer.write_turns(scope, [turn])
    asked.append(turn)
    return found, block


# -- scripted change sequences in LoCoMo's conversations ---------------------------------


@dataclass(frozen=True)
class Attribute:
    """Something about a person that changes: how its first value and its changes are
    said, the values it takes, and the question that asks for it now."""

    name: str
    question: str  # "{name}": the person
    first: tuple[str, ...]  # "{v}": the value
    change: tuple[str, ...]
    values: tuple[str, ...]
    fact: str  # the fact a write path that understands the sayings takes: "{name}", "{v}"


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "home",
        "Where does {name} live now?",
        ("I live in {v}.", "My apartment is in {v}.", "I've been living in {v} for two years."),
        (
            "I moved to {v} last month.",
            "Big news: we relocated to {v}!",
            "I live in {v} now.",
            "Finally unpacked the last boxes in our new place in {v}.",
        ),
        ("Boston", "Denver", "Lisbon", "Toronto", "Austin", "Madrid", "Seattle", "Dublin"),
        "{name} lives in {v}.",
    ),
    Attribute(
        "employer",
        "Where does {name} work?",
        ("I work at {v}.", "I've had a job at {v} for a while."),
        (
            "I started a new job at {v} this week.",
            "I quit my old job and now I work at {v}.",
            "These days I'm working at {v}.",
        ),
        (
            "Google",
            "a children's hospital",
            "Spotify",
            "a law firm",
            "a bakery",
            "the city library",
        ),
        "{name} works at {v}.",
    ),
    Attribute(
        "car",
        "What car does {name} drive?",
        ("I drive a {v}.", "My car is a {v}."),
        (
            "I sold my old car and bought a {v}.",
            "I drive a {v} now.",
            "Picked up my new {v} from the dealer today!",
        ),
        ("Toyota Corolla", "Honda Civic", "Subaru Outback", "Tesla Model 3", "Ford Mustang"),
        "{name} drives a {v}.",
    ),
    Attribute(
        "sport",
        "What sport does {name} play these days?",
        ("I play {v} every weekend.", "I'm on a {v} team."),
        (
            "I gave up my old sport, I play {v} now.",
            "I've switched to {v}.",
            "{v} is my sport now.",
        ),
        ("tennis", "volleyball", "basketball", "badminton", "squash", "soccer"),
        "{name} plays {v}.",
    ),
    Attribute(
        "instrument",
        "What instrument is {name} learning?",
        ("I'm learning to play the {v}.", "I take {v} lessons on Tuesdays."),
        ("I switched instruments, I'm learning the {v} now.", "I've started {v} lessons instead."),
        ("guitar", "piano", "violin", "cello", "drums", "ukulele"),
        "{name} is learning the {v}.",
    ),
    Attribute(
        "language",
        "Which language is {name} studying?",
        ("I'm studying {v}.", "I practice {v} every evening."),
        ("I've moved on to studying {v}.", "Now I'm learning {v} instead."),
        ("Spanish", "Japanese", "German", "Italian", "Korean", "Portuguese"),
        "{name} is studying {v}.",
    ),
    Attribute(
        "cats",
        "How many cats does {name} have?",
        ("I have {v} cats.", "We've got {v} cats at home."),
        ("We adopted another kitten, so now we have {v} cats.", "I have {v} cats now."),
        ("two", "three", "four", "five"),
        "{name} has {v} cats.",
    ),
    Attribute(
        "drink",
        "What is {name}'s favorite drink?",
        ("My favorite drink is {v}.", "I can't start the day without {v}."),
        ("These days my favorite drink is {v}.", "I've switched to {v}, I love it."),
        ("black coffee", "green tea", "oat latte", "mango lassi", "sparkling water"),
        "{name}'s favorite drink is {v}.",
    ),
    Attribute(
        "run",
        "What is {name}'s best 5K time?",
        ("My best 5K time is {v}.", "I ran a 5K in {v}, my best so far."),
        ("New personal best in the 5K today: {v}!", "I beat my record, my best 5K is {v} now."),
        ("27:12", "25:50", "24:31", "23:58"),
        "{name}'s best 5K time is {v}.",
    ),
    Attribute(
        "partner",
        "Who is {name} dating?",
        ("I'm dating {v}.", "{v} and I have been together for a few months."),
        ("I broke up with my ex, and now I'm seeing {v}.", "I'm dating {v} now."),
        ("Alex", "Jordan", "Priya", "Marco", "Lena"),
        "{name} is dating {v}.",
    ),
    Attribute(
        "book",
        "What book is {name} reading?",
        ("I'm reading {v}.", "I just started {v}."),
        ("Finished my last book, now I'm reading {v}.", "I'm reading {v} now."),
        ("Dune", "Beloved", "The Hobbit", "Educated", "Circe", "Middlemarch"),
        "{name} is reading {v}.",
    ),
    Attribute(
        "diet",
        "What diet does {name} follow?",
        ("I'm {v}.", "I've been {v} for years."),
        ("I'm {v} now.", "I changed my diet, I'm {v} these days."),
        ("vegetarian", "vegan", "pescatarian", "keto"),
        "{name} is {v}.",
    ),
)


@dataclass(frozen=True)
class Change:
    """One change sequence in a scope: its question, when it is first asked, and the
    turns that hold its current and its outdated values."""

    source: str  # "lme" or "scripted"
    name: str
    question: str
    current: frozenset[str]
    old: frozenset[str]


@dataclass
class Scripted:
    """A LoCoMo conversation with change sequences woven into it: its turns, in order,
    the sequences, and the fact each saying states (its words -> the fact's text and
    the words before its value, which a later value's fact shares)."""

    turns: list[Turn] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    facts: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass  # not frozen: MemoryModel's name is an attribute
class ScriptModel:
    """The write path's model when it reads every scripted saying, as a chat model
    would: a saying is the fact it states, and it updates the fact an earlier value
    was stated in; every other turn goes to the offline rules model. What the read
    does when the write path records each change.

    >>> from datetime import datetime, timezone
    >>> model = ScriptModel({"I moved to Oslo.": ("Ana lives in Oslo.", "Ana lives in ")})
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> [fact] = model.extract(Turn.of([("user", "I moved to Oslo.")], when=t), roles=()).facts
    >>> rome = Memory(id="0a1b2c3d", text="Ana lives in Rome.", scope="user:a", created_at=t)
    >>> model.choose(fact, [rome], today=t)
    Choice(op='UPDATE', index=0, text='Ana lives in Oslo.', raw=None)
    """

    facts: Mapping[str, tuple[str, str]]
    name: str = "rules, and the scripted sayings read as a chat model reads them"
    rules: RulesModel = field(default_factory=RulesModel)

    def extract(self, turn: Turn, *, roles: Sequence[Any]) -> Extraction:
        """The fact a scripted saying states, else what the rules model extracts."""
        found = self.facts.get(turn.user_text().strip())
        if found is None:
            return self.rules.extract(turn, roles=roles)
        return Extraction((Fact(found[0], importance=0.6),))

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        """UPDATE the fact of the same thing with another value, NOOP the same fact,
        else ADD; a fact no saying states goes to the rules model."""
        prefix = next((p for text, p in self.facts.values() if text == fact.text), None)
        if prefix is None:
            return self.rules.choose(fact, shown, today=today)
        for i, m in enumerate(shown):
            if m.text == fact.text:
                return Choice("NOOP", i)
            if m.text.startswith(prefix):
                return Choice("UPDATE", i, fact.text)
        return Choice("ADD")

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        """``choose`` for each fact."""
        return [self.choose(f, shown, today=today) for f in facts]


def scripted(conv: Conversation, attributes: Sequence[Attribute], seed: int) -> Scripted:
    """``conv``'s turns as the product replays them, with each attribute said by one
    of its two people (in turn) and changed once or twice, each saying appended to a
    session: the first in the first third of the sessions, the changes later."""
    rng = random.Random(f"{conv.sample_id}:{seed}")
    extra: dict[int, list[tuple[str, str, str]]] = {}  # session index -> (id, speaker, text)
    changes: list[Change] = []
    facts: dict[str, tuple[str, str]] = {}
    sessions = [s.index for s in conv.sessions]
    if len(sessions) < 3:
        raise ValueError(f"{conv.sample_id} has {len(sessions)} sessions; a change needs 3")
    for n, attr in enumerate(attributes):
        speaker = conv.speakers[n % 2]
        values = rng.sample(attr.values, 3 if rng.random() < 0.4 else 2)
        third = max(1, len(sessions) // 3)
        at = sorted([rng.choice(sessions[:third]), *rng.sample(sessions[third:], len(values) - 1)])
        ids = [f"X{attr.name}:{i}" for i in range(len(values))]
        for i, (value, session) in enumerate(zip(values, at, strict=True)):
            said = rng.choice(attr.first if i == 0 else attr.change).format(v=value)
            said = said[0].upper() + said[1:]
            extra.setdefault(session, []).append((ids[i], speaker, said))
            fact = attr.fact.format(name=speaker, v=value)
            facts[said] = (fact, attr.fact.format(name=speaker, v="\0").split("\0")[0])
        changes.append(
            Change(
                "scripted",
                f"{conv.sample_id}/{attr.name}",
                attr.question.format(name=speaker),
                frozenset(ids[-1:]),
                frozenset(ids[:-1]),
            )
        )
    return Scripted(locomo_turns(conv, extra), changes, facts)


# -- LongMemEval's knowledge updates --------------------------------------------------


def lme_change(q: LmeQuestion) -> Change | None:
    """The change sequence of a knowledge-update question: the evidence turns of its
    latest answer session hold the current value, the others the outdated one; None
    when its evidence sits in one session."""
    evidence: dict[str, tuple[datetime, set[str]]] = {}
    for s in q.sessions:
        ids = {
            lme_turn_id(s.session_id, i)
            for i, t in enumerate(s.turns)
            if t.has_answer and t.role == "user"
        }
        if ids:
            evidence[s.session_id] = (s.date, ids)
    if len(evidence) < 2:
        return None
    latest = max(evidence, key=lambda sid: evidence[sid][0])
    old = {t for sid, (_, ids) in evidence.items() if sid != latest for t in ids}
    return Change("lme", q.question_id, q.question, frozenset(evidence[latest][1]), frozenset(old))


# -- the runs ---------------------------------------------------------------------------


def _ask_changes(
    store: MemoryStore,
    scope: str,
    changes: Sequence[Change],
    turns: Sequence[Turn],
    start: datetime,
    model: MemoryModel | None = None,
) -> list[dict[str, Any]]:
    """Ask each change's question ``ASKINGS`` times (each asking written, by ``model``),
    in turn; score the first and the last asking."""
    writer = _writer(store, model)
    rows: list[dict[str, Any]] = []
    when = start
    asked: list[Turn] = []
    # The turns each memory stands for, as the replay left them: an asking adds no
    # memory that holds a value.
    held = TurnMap(store, scope, turns)
    for c in changes:
        row: dict[str, Any] = {"source": c.source, "name": c.name, "question": c.question}
        for n in range(1, ASKINGS + 1):
            when += ASK_GAP
            found, block = _asked(writer, scope, c.question, when, READ_K, asked)
            if n in (1, ASKINGS):
                lines = shown_lines(found, block)
                scores = current_first(lines, held, set(c.current), set(c.old))
                row |= {f"{key}@{n}": value for key, value in scores.items()}
                row[f"lines@{n}"] = len(lines)
                row["recorded"] = recorded(store, scope, held, c)
        rows.append(row)
    return rows


def run_scripted(
    conversations: Iterable[Conversation],
    *,
    embeddings: Embeddings,
    attributes: Sequence[Attribute] = ATTRIBUTES,
    seed: int = 0,
    understood: bool = False,
    workdir: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> list[dict[str, Any]]:
    """Current first for scripted change sequences in LoCoMo's conversations, written
    by the offline rules model, or, ``understood``, by a write path that reads every
    scripted saying (``ScriptModel``)."""
    rows: list[dict[str, Any]] = []
    for conv in conversations:
        plan = scripted(conv, attributes, seed)
        model = ScriptModel(plan.facts) if understood else None
        with replayed(conv.sample_id, plan.turns, embeddings, workdir, model) as (store, scope):
            end = max(t.when for t in plan.turns)
            rows += _ask_changes(store, scope, plan.changes, plan.turns, end, model)
        log(f"{conv.sample_id}: {len(plan.changes)} scripted changes")
    return rows


def run_lme(
    questions: Iterable[LmeQuestion],
    *,
    embeddings: Embeddings,
    limit: int | None = None,
    workdir: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> tuple[list[dict[str, Any]], int]:
    """Current first for LongMemEval's knowledge-update questions; also returns how
    many had their evidence in one session (no change sequence)."""
    rows: list[dict[str, Any]] = []
    single = 0
    for q in questions:
        if q.type != "knowledge-update" or q.abstention:
            continue
        if limit is not None and len(rows) + single >= limit:
            break
        change = lme_change(q)
        if change is None:
            single += 1
            continue
        turns = lme_turns(q)
        with replayed(q.question_id, turns, embeddings, workdir) as (store, scope):
            start = max([q.question_date - ASK_GAP * ASKINGS, *(t.when for t in turns)])
            rows += _ask_changes(store, scope, [change], turns, start)
    log(f"longmemeval: {len(rows)} knowledge updates, {single} with one evidence session")
    return rows, single


def run_repeats(
    conversations: Iterable[Conversation],
    *,
    embeddings: Embeddings,
    questions: int | None = None,
    workdir: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> list[dict[str, Any]]:
    """Every question of each conversation asked ``ASKINGS`` times, each asking written:
    evidence recall at ``RECALL_K`` on each asking (the items' shown memories count)."""
    rows: list[dict[str, Any]] = []
    for conv in conversations:
        turns = locomo_turns(conv)  # the conversation as it is, no change woven in
        with replayed(conv.sample_id, turns, embeddings, workdir) as (store, scope):
            writer = _writer(store)
            when = max(t.when for t in turns)
            asked: list[Turn] = []
            held = TurnMap(store, scope, turns)  # an asking adds no evidence
            wanted = [q for q in conv.questions if q.evidence][:questions]
            for q in wanted:
                row: dict[str, Any] = {"sample_id": conv.sample_id, "category": q.category}
                for n in range(1, ASKINGS + 1):
                    when += ASK_GAP
                    found, _ = _asked(writer, scope, q.question, when, RECALL_K, asked)
                    shown = [m for r in found[:RECALL_K] for m in r.shown]
                    units = {t for m in shown for t in held.named(m)}
                    row[f"r@{n}"] = recall_fraction(q.evidence, units)
                    row[f"asks_shown@{n}"] = sum(m.text == q.question for m in shown)
                rows.append(row)
            rows[-1]["duplicate_episodes"] = duplicate_episodes(store, scope)
        log(f"{conv.sample_id}: {len(wanted)} questions asked {ASKINGS} times")
    return rows


def duplicate_episodes(store: MemoryStore, scope: str) -> int:
    """How many of a scope's active episodes repeat words one before them holds: the
    same speaker, the same words once case, spacing and closing punctuation are set
    aside (``text.said_form``)."""
    seen: set[tuple[str, str, str]] = set()
    repeats = 0
    for m in store.active(scope):
        if m.is_episode:
            words = (m.source.value, str(m.metadata.get("speaker", "")), said_form(m.text))
            repeats += words in seen
            seen.add(words)
    return repeats


# -- the report -------------------------------------------------------------------------


def summarize(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> dict[str, Any]:
    """The mean of each key over ``rows`` (booleans as shares), and their count.

    >>> summarize([{"a@1": True}, {"a@1": False}], ["a@1"])
    {'n': 2, 'a@1': 0.5}
    """
    return {"n": len(rows)} | {k: mean(float(r[k]) for r in rows if k in r) for k in keys}


CHANGE_KEYS = tuple(
    f"{k}@{n}"
    for n in (1, ASKINGS)
    for k in ("current_first", "current_shown", "outdated_unmarked")
)
REPEAT_KEYS = tuple(f"r@{n}" for n in range(1, ASKINGS + 1)) + tuple(
    f"asks_shown@{n}" for n in range(1, ASKINGS + 1)
)


def report(result: Mapping[str, Any]) -> str:
    """The Markdown tables of a run."""
    out = ["## Current first (share of change sequences; first and third asking)", ""]
    out.append(
        "| sequences | n | current first @1 | @3 | current shown @1 | @3 "
        "| outdated unmarked @1 | @3 |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, s in result["current"].items():
        cells = [
            _cell(s.get(f"{k}@{n}"))
            for k in ("current_first", "current_shown", "outdated_unmarked")
            for n in (1, ASKINGS)
        ]
        out.append(f"| {name} | {s['n']} | " + " | ".join(cells) + " |")
    if "repeats" in result:
        s = result["repeats"]
        out += ["", f"## Asked again (LoCoMo, R@{RECALL_K}, {s['n']} questions)", ""]
        out.append(
            f"Duplicate episode records in the conversations' scopes after every asking: "
            f"{s['duplicate_episodes']}."
        )
        out.append("")
        out.append("| asking | R@10 | the question's own words among the results |")
        out.append("|---|---:|---:|")
        for n in range(1, ASKINGS + 1):
            out.append(f"| {n} | {_cell(s.get(f'r@{n}'))} | {_cell(s.get(f'asks_shown@{n}'))} |")
    return "\n".join(out)


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks reads",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="folder with locomo/ and longmemeval/"
    )
    parser.add_argument(
        "--lme",
        choices=("longmemeval-oracle", "longmemeval-s"),
        default="longmemeval-oracle",
        help="the knowledge-update questions' file: the oracle split while developing, S "
        "(held out) to measure at the end",
    )
    parser.add_argument(
        "--quick", action="store_true", help="1 conversation, 10 LongMemEval questions, 40 repeats"
    )
    parser.add_argument("--skip-repeats", action="store_true", help="the current-first part only")
    parser.add_argument("--seed", type=int, default=0, help="the scripted sequences' seed")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args(argv)
    problem = missing_data(args.data, DATASETS["locomo"], DATASETS[args.lme])
    if problem:
        print(problem, file=sys.stderr)
        return 2

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    began = time.perf_counter()
    embeddings = CachedEmbeddings(LocalMiniLM())
    convs = load_locomo(args.data / DATASETS["locomo"])
    if args.quick:
        convs = convs[:1]
    lme_rows, single = run_lme(
        iter_longmemeval(args.data / DATASETS[args.lme]),
        embeddings=embeddings,
        limit=10 if args.quick else None,
        log=log,
    )
    script_rows = run_scripted(convs, embeddings=embeddings, seed=args.seed, log=log)
    understood = run_scripted(
        convs, embeddings=embeddings, seed=args.seed, understood=True, log=log
    )
    every = [*lme_rows, *script_rows]
    result: dict[str, Any] = {
        "current": {
            f"{args.lme} knowledge updates": summarize(lme_rows, CHANGE_KEYS),
            "LoCoMo scripted changes": summarize(script_rows, CHANGE_KEYS),
            "all": summarize(every, CHANGE_KEYS),
            "all, the write path recorded the change": summarize(
                [r for r in every if r["recorded"]], CHANGE_KEYS
            ),
            "all, it did not (the episodes alone)": summarize(
                [r for r in every if not r["recorded"]], CHANGE_KEYS
            ),
            "LoCoMo scripted changes, a write path that reads every saying": summarize(
                understood, CHANGE_KEYS
            ),
        },
        "lme_single_session": single,
        "rows": {"lme": lme_rows, "scripted": script_rows, "understood": understood},
        "meta": {"lme": args.lme, "quick": args.quick, "seed": args.seed, "k": READ_K},
    }
    if not args.skip_repeats:
        repeat_rows = run_repeats(
            convs, embeddings=embeddings, questions=40 if args.quick else None, log=log
        )
        result["repeats"] = summarize(repeat_rows, REPEAT_KEYS) | {
            "duplicate_episodes": sum(r.get("duplicate_episodes", 0) for r in repeat_rows)
        }
        result["rows"]["repeats"] = repeat_rows
    return publish(result, began=began, out=args.out, render=report)


if __name__ == "__main__":
    raise SystemExit(main())
