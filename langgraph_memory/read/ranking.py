"""The pieces of the fused ranking, as plain functions of scores and texts.

``retrieve`` ranks a scope's candidates by dense (cosine) and lexical (BM25)
evidence fused by z-score, plus small measured terms: a boost for memories that
carry a time when the question asks about time, recency on a scale of months,
and importance. Nothing here knows a dataset.

>>> fused = fuse({"a": 0.9, "b": 0.5, "c": 0.1}, {"b": 7.0, "c": 1.0})
>>> sorted(fused, key=fused.get, reverse=True)
['b', 'a', 'c']
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from langgraph_memory.text import MONTH_ABBREVIATIONS, MONTHS, WEEKDAYS

__all__ = [
    "DENSE_WEIGHT",
    "TIME_BOOST",
    "asks_about_time",
    "fuse",
    "mentions_time",
    "months_recency",
    "zscores",
]

#: Share of the fused score that comes from the dense side (the lexical side has the rest).
DENSE_WEIGHT = 0.5
#: Added, in standard deviations of the fused scores, to a memory that carries a time
#: when the question asks about time ("when", "how long", "before", "after").
TIME_BOOST = 0.3

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
