"""Loaders for the LoCoMo and LongMemEval benchmark files, into typed records.

The files themselves are not shipped: every runner takes the folder holding them as
``--data`` (:data:`DATASETS` is its layout, :data:`SOURCES` says where each file comes
from), and :func:`missing_data` words what to put there when a file is absent.

- LoCoMo (``locomo10.json``): :func:`load_locomo` returns one
  :class:`Conversation` per sample, with the official category numbers
  (:data:`LOCOMO_CATEGORIES`). Evidence ids that name no turn of their
  conversation are dropped and counted in ``Conversation.bad_evidence``.
- LongMemEval: :func:`iter_longmemeval` yields one :class:`LmeQuestion` at a
  time from the upstream list layout (the oracle file) or from the dedup layout
  ``{"questions": [...], "sessions": {id: turns}}`` (the S file), so a haystack
  is only built for the question in hand.

>>> parse_locomo_date("1:56 pm on 8 May, 2023").isoformat()
'2023-05-08T13:56:00+00:00'
>>> parse_lme_date("2023/05/30 (Tue) 23:40").isoformat()
'2023-05-30T23:40:00+00:00'
>>> assume_utc(datetime(2023, 5, 8, 13, 56)).isoformat()
'2023-05-08T13:56:00+00:00'
"""

from __future__ import annotations

import json
import lzma
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langgraph_memory.store import strip_controls

#: LoCoMo's ``category`` numbers, as the official ``evaluation.py`` reads them
#: (not the paper's column order, and not Mem0's remapping).
LOCOMO_CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
#: Dataset name -> its file under the benchmark data folder (``--data``).
DATASETS: dict[str, str] = {
    "locomo": "locomo/locomo10.json",
    "longmemeval-oracle": "longmemeval/longmemeval_oracle.json.xz",
    "longmemeval-s": "longmemeval/longmemeval_s_cleaned.dedup.json.xz",
}
#: File under the data folder -> where it comes from (for the message a missing one gets).
SOURCES: dict[str, str] = {
    DATASETS["locomo"]: "LoCoMo-10, a byte-exact copy of data/locomo10.json in "
    "github.com/snap-research/locomo (CC BY-NC 4.0: non-commercial use only)",
    DATASETS["longmemeval-oracle"]: "LongMemEval oracle (github.com/xiaowu0162/LongMemEval, "
    "data on HuggingFace: xiaowu0162/longmemeval-cleaned), the upstream JSON list "
    "compressed with xz",
    DATASETS["longmemeval-s"]: "LongMemEval S (cleaned), same source, in the dedup layout "
    '{"questions": [...], "sessions": {id: turns}} (the upstream list works too), '
    "compressed with xz",
}
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_OBSERVATION_KEY = re.compile(r"^session_(\d+)_observation$")


def parse_locomo_date(text: str) -> datetime:
    """A LoCoMo session date such as ``"1:56 pm on 8 May, 2023"``, as UTC.

    The data has no time zone; UTC keeps every date comparable.

    >>> parse_locomo_date("10:04 am on 19 January, 2023").isoformat()
    '2023-01-19T10:04:00+00:00'
    """
    cleaned = " ".join(text.split()).upper()
    return datetime.strptime(cleaned, "%I:%M %p ON %d %B, %Y").replace(tzinfo=timezone.utc)


def parse_lme_date(text: str) -> datetime:
    """A LongMemEval date such as ``"2023/05/30 (Tue) 23:40"``, as UTC.

    >>> parse_lme_date("2023/01/19 (Thu) 09:05").isoformat()
    '2023-01-19T09:05:00+00:00'
    """
    return datetime.strptime(text.strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=timezone.utc)


def assume_utc(value: datetime) -> datetime:
    """A naive datetime read as UTC, on purpose: dates in datasets and fixtures carry no zone
    (the public API refuses naive datetimes); an aware one is converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def missing_data(folder: Path, *files: str) -> str | None:
    """None when ``folder`` holds every file of ``files``; else a message that says what to
    put there and where it comes from (a runner prints it and exits with status 2).

    >>> print(missing_data(Path("/nowhere"), DATASETS["locomo"]))
    benchmark data folder /nowhere not found: --data must name a folder holding
      locomo/locomo10.json: LoCoMo-10, a byte-exact copy of data/locomo10.json in ...
    The folder is not in the repository: the project's copy sits at ../shared/data beside
    the checkout, and its README.md lists the files, their sources and licences.
    """
    absent = [f for f in files if not (folder / f).is_file()]
    if not absent:
        return None
    head = (
        f"benchmark data folder {folder} not found: --data must name a folder holding"
        if not folder.is_dir()
        else f"benchmark data folder {folder} lacks what this run reads; put there"
    )
    lines = [head] + [f"  {f}: {SOURCES.get(f, 'a file this runner reads')}" for f in absent]
    lines.append(
        "The folder is not in the repository: the project's copy sits at ../shared/data beside\n"
        "the checkout, and its README.md lists the files, their sources and licences."
    )
    return "\n".join(lines)


def _open_json(path: str | Path) -> Any:
    path = Path(path)
    if path.suffix == ".xz":
        with lzma.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    with path.open(encoding="utf-8") as f:
        return json.load(f)


# -- LoCoMo ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DialogTurn:
    """One LoCoMo turn; ``caption`` is the BLIP caption of a shared image, if any."""

    dia_id: str
    speaker: str
    text: str
    caption: str | None = None


@dataclass(frozen=True)
class Session:
    """One LoCoMo session: its number, its date and its turns in order."""

    index: int
    date: datetime
    turns: tuple[DialogTurn, ...]


@dataclass(frozen=True)
class Question:
    """One LoCoMo QA item; ``evidence`` holds only dia_ids that exist."""

    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]

    @property
    def category_name(self) -> str:
        """The category's name, e.g. ``"multi-hop"``.

        >>> Question("q", "a", 1, ()).category_name
        'multi-hop'
        """
        return LOCOMO_CATEGORIES.get(self.category, str(self.category))


@dataclass(frozen=True)
class Observation:
    """A LoCoMo ``observation`` fact (generated by gpt-3.5) and the turns it cites."""

    session: int
    speaker: str
    text: str
    dia_ids: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo sample: two speakers, dated sessions, questions, observations."""

    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    observations: tuple[Observation, ...] = ()
    #: Evidence strings that named no turn of this conversation (dropped).
    bad_evidence: int = 0

    @property
    def dia_ids(self) -> frozenset[str]:
        """Every turn id of the conversation."""
        return frozenset(t.dia_id for s in self.sessions for t in s.turns)

    def observations_by_dia_id(self) -> dict[str, list[Observation]]:
        """The observations that cite each turn."""
        out: dict[str, list[Observation]] = {}
        for o in self.observations:
            for d in o.dia_ids:
                out.setdefault(d, []).append(o)
        return out


def _locomo_sessions(conv: Mapping[str, Any]) -> list[Session]:
    sessions = []
    for key, turns in conv.items():
        match = _SESSION_KEY.match(key)
        # conv-26 dates 35 sessions but holds turns for 19: dateless or empty ones are skipped.
        if not match or not isinstance(turns, list) or not turns:
            continue
        n = int(match.group(1))
        date = parse_locomo_date(conv[f"session_{n}_date_time"])
        sessions.append(
            Session(
                index=n,
                date=date,
                turns=tuple(
                    DialogTurn(
                        dia_id=str(t["dia_id"]),
                        speaker=str(t["speaker"]),
                        text=strip_controls(str(t["text"])),
                        caption=t.get("blip_caption") or None,
                    )
                    for t in turns
                ),
            )
        )
    return sorted(sessions, key=lambda s: s.index)


def _locomo_observations(raw: Mapping[str, Any]) -> list[Observation]:
    out = []
    for key, by_speaker in raw.items():
        match = _OBSERVATION_KEY.match(key)
        if not match or not isinstance(by_speaker, Mapping):
            continue
        for speaker, facts in by_speaker.items():
            for fact in facts:
                text, cited = fact[0], fact[1]
                ids = (cited,) if isinstance(cited, str) else tuple(str(c) for c in cited)
                out.append(
                    Observation(int(match.group(1)), str(speaker), strip_controls(str(text)), ids)
                )
    return sorted(out, key=lambda o: o.session)


def locomo_conversation(sample: Mapping[str, Any]) -> Conversation:
    """One LoCoMo sample (a dict of the file's list) as a :class:`Conversation`.

    >>> c = locomo_conversation({"sample_id": "s", "conversation": {
    ...     "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
    ...     "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "Hi"}]},
    ...     "qa": [{"question": "q", "answer": 7, "evidence": ["D1:1", "D:1"], "category": 4}]})
    >>> c.questions[0].evidence, c.questions[0].answer, c.bad_evidence
    (('D1:1',), '7', 1)
    """
    conv = sample["conversation"]
    sessions = _locomo_sessions(conv)
    known = {t.dia_id for s in sessions for t in s.turns}
    questions, bad = [], 0
    for qa in sample.get("qa", []):
        evidence = []
        for e in qa.get("evidence", []):
            # Upstream has 9 broken ids ("D8:6; D9:17", "D", "D30:05", ...): guessing what they
            # meant would be inventing gold labels, so they are dropped and counted.
            if isinstance(e, str) and e in known:
                evidence.append(e)
            else:
                bad += 1
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        questions.append(
            Question(
                question=str(qa["question"]),
                answer=str(answer),
                category=int(qa["category"]),
                evidence=tuple(evidence),
            )
        )
    return Conversation(
        sample_id=str(sample["sample_id"]),
        speakers=(str(conv["speaker_a"]), str(conv["speaker_b"])),
        sessions=tuple(sessions),
        questions=tuple(questions),
        observations=tuple(_locomo_observations(sample.get("observation", {}))),
        bad_evidence=bad,
    )


def load_locomo(path: str | Path) -> list[Conversation]:
    """Every conversation of a LoCoMo file (``locomo10.json``, optionally ``.xz``).

    >>> fixture = Path(__file__).resolve().parents[1] / "tests/fixtures/eval/locomo_mini.json"
    >>> [c.sample_id for c in load_locomo(fixture)]
    ['conv-mini']
    """
    return [locomo_conversation(s) for s in _open_json(path)]


# -- LongMemEval ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LmeTurn:
    """One LongMemEval message; ``has_answer`` marks an evidence turn."""

    role: str
    content: str
    has_answer: bool = False


@dataclass(frozen=True)
class LmeSession:
    """One haystack session: its id, its date and its messages."""

    session_id: str
    date: datetime
    turns: tuple[LmeTurn, ...]


@dataclass(frozen=True)
class LmeQuestion:
    """One LongMemEval instance with its haystack, in haystack order."""

    question_id: str
    type: str
    question: str
    answer: str
    question_date: datetime
    sessions: tuple[LmeSession, ...]
    answer_session_ids: tuple[str, ...]
    abstention: bool = field(default=False)


def lme_question(
    raw: Mapping[str, Any], sessions: Sequence[Sequence[Mapping[str, Any]]]
) -> LmeQuestion:
    """One upstream instance (``raw``) with its haystack's sessions, as a record.

    >>> q = lme_question({"question_id": "x_abs", "question_type": "multi-session",
    ...     "question": "q", "answer": 3, "question_date": "2023/05/30 (Tue) 23:40",
    ...     "haystack_session_ids": ["s1"], "haystack_dates": ["2023/05/29 (Mon) 10:00"],
    ...     "answer_session_ids": ["s1"]},
    ...     [[{"role": "user", "content": "hi", "has_answer": True}]])
    >>> q.abstention, q.answer, q.sessions[0].turns[0].has_answer
    (True, '3', True)
    """
    ids, dates = raw["haystack_session_ids"], raw["haystack_dates"]
    if not len(ids) == len(dates) == len(sessions):
        raise ValueError(f"question {raw['question_id']}: haystack lists differ in length")
    return LmeQuestion(
        question_id=str(raw["question_id"]),
        type=str(raw["question_type"]),
        question=str(raw["question"]),
        answer=str(raw["answer"]),
        question_date=parse_lme_date(raw["question_date"]),
        sessions=tuple(
            LmeSession(
                session_id=str(sid),
                date=parse_lme_date(date),
                turns=tuple(
                    # A few turns of the S file hold control characters, which the store refuses.
                    LmeTurn(
                        str(t["role"]),
                        strip_controls(str(t["content"])),
                        bool(t.get("has_answer", False)),
                    )
                    for t in turns
                ),
            )
            for sid, date, turns in zip(ids, dates, sessions, strict=True)
        ),
        answer_session_ids=tuple(str(s) for s in raw.get("answer_session_ids", [])),
        abstention="_abs" in str(raw["question_id"]),
    )


def iter_longmemeval(path: str | Path) -> Iterator[LmeQuestion]:
    """The questions of a LongMemEval file, one at a time, in file order.

    Reads the upstream list layout (each instance carries ``haystack_sessions``)
    and the dedup layout (sessions stored once, referenced by id).

    >>> fixture = Path(__file__).resolve().parents[1] / "tests/fixtures/eval/lme_mini.json"
    >>> [q.abstention for q in iter_longmemeval(fixture)]
    [False, True]
    """
    data = _open_json(path)
    if isinstance(data, list):
        for raw in data:
            yield lme_question(raw, raw["haystack_sessions"])
    elif isinstance(data, Mapping) and "questions" in data and "sessions" in data:
        pool = data["sessions"]
        for raw in data["questions"]:
            yield lme_question(raw, [pool[s] for s in raw["haystack_session_ids"]])
    else:
        raise ValueError(f"{path}: neither the upstream list nor the dedup layout")
