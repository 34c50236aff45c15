"""Blended scoring: recency, relevance and importance, each in [0, 1].

- recency: exponential decay since the memory was last read (or written), with
  a half-life in hours: 1.0 just now, 0.5 one half-life ago;
- relevance: cosine similarity to the query, clipped at 0; for a memory found
  only by keyword (an exact name, number or id), the share of the query's
  keyword weight it matched;
- importance: as stored (0..1).

The score is their weighted mean, so it stays in [0, 1] for any weights.

>>> round(recency(hours=72, half_life_h=72), 3)
0.5
>>> blend(1.0, 0.5, 0.0, weights=(1, 1, 1))
0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from langgraph_memory.errors import InvalidArgumentError

#: Largest weight accepted: weights are relative, and huge ones overflow the blend to NaN.
MAX_WEIGHT = 1e6
#: Longest half-life accepted: a thousand years, in hours (longer is "never decays",
#: which weights=(0, 1, 1) says, and overflows the time arithmetic).
MAX_HALF_LIFE_H = 1000 * 365 * 24.0


def check_half_life(half_life_h: Any) -> float:
    """A half-life in hours: a number > 0, at most MAX_HALF_LIFE_H.

    >>> check_half_life(72)
    72.0
    """
    if (
        isinstance(half_life_h, bool)
        or not isinstance(half_life_h, (int, float))
        or not 0 < half_life_h <= MAX_HALF_LIFE_H
    ):
        raise InvalidArgumentError(
            f"half_life_h must be a number of hours > 0 and at most {MAX_HALF_LIFE_H:,.0f} "
            f"(a thousand years), got {half_life_h!r}"
        )
    return float(half_life_h)


def recency(*, hours: float, half_life_h: float) -> float:
    """``0.5 ** (hours / half_life_h)``; a future time counts as now."""
    return math.pow(0.5, max(0.0, hours) / check_half_life(half_life_h))


def check_weights(weights: Sequence[float]) -> tuple[float, float, float]:
    """Three non-negative weights (recency, relevance, importance), not all zero.

    >>> check_weights((1, 2, 0))
    (1.0, 2.0, 0.0)
    """
    numbers = isinstance(weights, (list, tuple)) and all(
        isinstance(w, (int, float)) and not isinstance(w, bool) and 0 <= w <= MAX_WEIGHT
        for w in weights
    )
    values = tuple(float(w) for w in weights) if numbers else ()
    if len(values) != 3 or sum(values) == 0:
        raise InvalidArgumentError(
            "weights must be three numbers from 0 to 1e6 (recency, relevance, importance), "
            f"not all zero; got {weights!r}"
        )
    return (values[0], values[1], values[2])


def blend(rec: float, rel: float, imp: float, *, weights: Sequence[float]) -> float:
    """The weighted mean of the three components."""
    w = check_weights(weights)
    return (w[0] * rec + w[1] * rel + w[2] * imp) / sum(w)
