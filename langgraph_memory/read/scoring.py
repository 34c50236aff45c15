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


def recency(*, hours: float, half_life_h: float) -> float:
    """``0.5 ** (hours / half_life_h)``; a future time counts as now."""
    if half_life_h <= 0:
        raise ValueError(f"half_life_h must be > 0, got {half_life_h!r}")
    return math.pow(0.5, max(0.0, hours) / half_life_h)


def check_weights(weights: Sequence[float]) -> tuple[float, float, float]:
    """Three non-negative weights (recency, relevance, importance), not all zero.

    >>> check_weights((1, 2, 0))
    (1.0, 2.0, 0.0)
    """
    values = tuple(float(w) for w in weights)
    if len(values) != 3 or any(w < 0 or math.isnan(w) for w in values) or sum(values) == 0:
        raise ValueError(
            "weights must be three non-negative numbers (recency, relevance, importance), "
            f"not all zero; got {tuple(weights)!r}"
        )
    return (values[0], values[1], values[2])


def blend(rec: float, rel: float, imp: float, *, weights: Sequence[float]) -> float:
    """The weighted mean of the three components."""
    w = check_weights(weights)
    return (w[0] * rec + w[1] * rel + w[2] * imp) / sum(w)
