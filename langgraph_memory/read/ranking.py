"""The fused ranking: every weight and term of it, with their bounds, in one place.

``retrieve`` ranks a scope's candidates by dense (cosine) and lexical (BM25)
evidence fused by z-score (:func:`fuse`), less :data:`ASKED_PENALTY` for a turn
that only asked, plus what each memory's record adds (:func:`record_terms`): a
boost for memories that carry a time when the question asks about time, one for
a memory whose speaker the question names, recency on a scale of months, and
importance. :func:`record_bounds` is the least and the most those can add: what
``retrieve`` reads records by (a candidate that cannot make the first results
even with the most is never read). A new term goes in both, and a test holds
every record's terms within the bounds. Nothing here knows a dataset.

>>> fused = fuse({"a": 0.9, "b": 0.5, "c": 0.1}, {"b": 7.0, "c": 1.0})
>>> sorted(fused, key=fused.get, reverse=True)
['b', 'a', 'c']
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from langgraph_memory.records import Memory
from langgraph_memory.text import MONTH_ABBREVIATIONS, MONTHS, WEEKDAYS

__all__ = [
    "ASKED_PENALTY",
    "DENSE_WEIGHT",
    "HALF_LIFE_DAYS",
    "IMPORTANCE_WEIGHT",
    "RECENCY_WEIGHT",
    "SPEAKER_BOOST",
    "TIME_BOOST",
    "RecordTerms",
    "asks_about_time",
    "fuse",
    "mentions_time",
    "months_recency",
    "record_bounds",
    "record_terms",
    "zscores",
]

#: Share of the fused score that comes from the dense side (the lexical side has the rest).
DENSE_WEIGHT = 0.5
#: Added, in standard deviations of the fused scores, to a memory that carries a time
#: when the question asks about time ("when", "how long", "before", "after").
TIME_BOOST = 0.3
#: Added, in standard deviations of the fused scores, to a memory whose speaker
#: (``metadata["speaker"]``) the question names. Measured on LoCoMo (R@10 over categories
#: 1-4, and over its adversarial questions, which credit one person with what another
#: said): 1.0 -> 0.802 / 0.896; 2.0 -> 0.809 / 0.841; 3.0 -> 0.810 / 0.643. More than 1
#: buys multi-hop and open-domain questions a few points by hiding the evidence from a
#: question that names the wrong person.
SPEAKER_BOOST = 1.0
#: Taken, in standard deviations of the fused scores, from a turn that only asked or
#: made small talk (``records.ASKS``; the question asked again is no candidate at all):
#: it shows that the user wondered, not what is so. Measured with questions asked again
#: (``benchmarks reads``: every LoCoMo question asked three times, each asking written;
#: R@10 on the first / third asking) and on the LongMemEval oracle split with 40
#: distractor sessions a question (``benchmarks retrieval --distractors 40 --every 4``,
#: session NDCG@5; 0.715 with questions ranked as statements): 1 -> 0.812 / 0.814,
#: 0.713; 2 -> 0.818 / 0.820, 0.710; 4 -> 0.821 / 0.821, 0.704; no question a candidate
#: -> 0.828 / 0.828, 0.698 (-0.018 +- 0.007 paired against questions as statements;
#: 1: -0.002 +- 0.002).
ASKED_PENALTY = 1.0
#: Recency and importance: small terms, in standard deviations of the fused scores.
RECENCY_WEIGHT = 0.1
IMPORTANCE_WEIGHT = 0.1
#: Recency's half-life: months, not hours (a fact does not fade over a weekend).
HALF_LIFE_DAYS = 180.0

_TIME_QUESTION = re.compile(
    r"\b(when|how long|how many (?:days|weeks|months|years|hours|minutes)|what (?:year|month|"
    r"day|date|time)|which (?:year|month|day|date)|before|after|since|until|ago|first|last)\b",
    re.IGNORECASE,
)
_MONTHS = "|".join([*MONTHS, *MONTH_ABBREVIATIONS])
_WEEKDAYS = "|".join(WEEKDAYS)
_TIME_EXPRESSION = re.compile(
    r"\b(\d{4}-\d{2}-\d{2}|(?:19|20)\d{2}|"
    rf"(?:{_MONTHS})|"
    rf"(?:{_WEEKDAYS})|weekend|"
    r"yesterday|today|tonight|tomorrow|ago|"
    r"(?:last|next|this|past|coming) (?:week|month|year|night|morning|evening|summer|winter|"
    r"spring|fall|autumn)|"
    r"\d+ (?:days?|weeks?|months?|years?))\b",
    re.IGNORECASE,
)


def zscores(
    scores: Mapping[str, float], ids: Sequence[str], *, missing: float | None = None
) -> dict[str, float]:
    """Each id's score in standard deviations from the mean over ``ids``; an id
    ``scores`` lacks scores ``missing``, by default the lowest score given (it was
    not among the best).

    >>> zscores({"a": 3.0, "b": 1.0}, ["a", "b", "c"])
    {'a': 1.4142..., 'b': -0.7071..., 'c': -0.7071...}
    """
    if not ids:
        return {}
    floor = min(scores.values(), default=0.0) if missing is None else missing
    values = [scores.get(i, floor) for i in ids]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if sd == 0.0:
        return dict.fromkeys(ids, 0.0)
    return {i: (v - mean) / sd for i, v in zip(ids, values, strict=True)}


def fuse(
    dense: Mapping[str, float],
    lexical: Mapping[str, float],
    *,
    dense_weight: float = DENSE_WEIGHT,
    lexical_missing: float | None = 0.0,
) -> dict[str, float]:
    """Dense and lexical scores of the candidates (the union of both), fused:
    ``dense_weight * z(dense) + (1 - dense_weight) * z(lexical)``. Z-scores put a
    cosine and a BM25 score on one scale without tuning either. A candidate the
    lexical side did not return scores ``lexical_missing``: 0 when that side returned
    every match, None (its lowest score) when it stopped at its limit.

    >>> {i: round(s, 3) for i, s in fuse({"a": 0.8, "b": 0.2}, {}).items()}
    {'a': 0.5, 'b': -0.5}
    """
    ids = list(dict.fromkeys([*dense, *lexical]))
    zd, zl = zscores(dense, ids), zscores(lexical, ids, missing=lexical_missing)
    return {i: dense_weight * zd[i] + (1.0 - dense_weight) * zl[i] for i in ids}


def asks_about_time(question: str) -> bool:
    """Whether a question asks when something happened or how long it took.

    >>> asks_about_time("When did Ann move to Pune?"), asks_about_time("Where does Ann live?")
    (True, False)
    """
    return bool(_TIME_QUESTION.search(question))


def mentions_time(text: str) -> bool:
    """Whether a text carries a time: a date, a year, a month, a weekday, a relative time.

    >>> mentions_time("We went hiking last week."), mentions_time("I like hiking.")
    (True, False)
    """
    return bool(_TIME_EXPRESSION.search(text))


def months_recency(age_days: float, half_life_days: float) -> float:
    """``0.5 ** (age / half-life)``, in [0, 1]: 1 for now, 0.5 a half-life ago.

    >>> months_recency(0, 180), months_recency(180, 180)
    (1.0, 0.5)
    """
    return math.pow(0.5, max(0.0, age_days) / half_life_days)


@dataclass(frozen=True)
class RecordTerms:
    """What a memory's record adds to its fused score: ``boost`` (the time and speaker
    boosts) and ``total`` (everything: the boosts, recency and importance), both in
    standard deviations of the fused scores; ``recency`` in [0, 1]."""

    boost: float
    recency: float
    total: float


def record_terms(
    memory: Memory,
    *,
    about_time: bool,
    named: Collection[str],
    when: datetime,
    half_life_days: float = HALF_LIFE_DAYS,
) -> RecordTerms:
    """What ``memory``'s record adds to its fused score for a question that asks about
    time (``about_time``) and names the people in ``named`` (case-folded), read at
    ``when``. Words said again are as recent as their last saying.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> m = Memory(id="a1", text="Ann moved in May.", scope="user:a", created_at=t)
    >>> record_terms(m, about_time=True, named=set(), when=t)
    RecordTerms(boost=0.3, recency=1.0, total=0.4)
    """
    boost = 0.0
    if about_time and mentions_time(memory.text):
        boost += TIME_BOOST
    speaker = memory.metadata.get("speaker")
    if isinstance(speaker, str) and speaker.casefold() in named:
        boost += SPEAKER_BOOST
    at = memory.last_said if memory.is_episode else memory.event_time or memory.created_at
    recency = months_recency((when - at).total_seconds() / 86400.0, half_life_days)
    total = boost + RECENCY_WEIGHT * recency + IMPORTANCE_WEIGHT * (memory.importance - 0.5)
    return RecordTerms(boost, recency, total)


def record_bounds(*, about_time: bool, speaker_named: bool) -> tuple[float, float]:
    """The least and the most :func:`record_terms` can add (``total``) to a memory's
    fused score, for a question that asks about time or not, and a memory whose
    speaker the question names or not.

    >>> record_bounds(about_time=False, speaker_named=False)
    (-0.05, 0.15000000000000002)
    """
    most = RECENCY_WEIGHT + IMPORTANCE_WEIGHT * 0.5
    if about_time:
        most += TIME_BOOST
    if speaker_named:
        most += SPEAKER_BOOST
    return -IMPORTANCE_WEIGHT * 0.5, most
