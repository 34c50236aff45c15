"""How the offline embedder cuts texts into model batches: by length, so that
little is spent on padding (``plan_batches``).

A transformer pads every row of a batch to the batch's longest, and pays for
every padded token as for a real one; each call also costs about as much as 16
tokens of work. On 2 cores, ``all-MiniLM-L6-v2`` embedding 3,073 LoCoMo turns as
a store's 120 batches brought them (about 25 texts each) took 44.1 s with one
model call per batch, and 23.9 s with each batch cut by ``plan_batches``.

Calls from several threads are not merged into shared passes: tried, it made the
6,000-op BaseStore benchmark slower (MemoryStore 37.7 s against 35.0 s,
InMemoryStore 35.4 s against 28.0 s), since onnxruntime runs concurrent calls side
by side without the GIL, and it would make a lone query wait behind a bulk
import's pass.

>>> plan_batches([3, 4, 30, 31, 32], max_rows=32)
[(0, 2), (2, 5)]
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph_memory.errors import InvalidArgumentError

__all__ = ["ATTENTION_WIDTH", "CALL_COST_TOKENS", "plan_batches"]

#: What one model call costs beyond its rows, in tokens of work (measured on
#: all-MiniLM-L6-v2: about 2.5 ms a call against 0.16 ms a token, on 2 cores).
CALL_COST_TOKENS = 16
#: A row of ``w`` tokens costs ``w * (1 + w / ATTENTION_WIDTH)``: attention grows with
#: the square of the width (measured: a token in a 128-wide row costs 1.25x one in a
#: 32-wide row).
ATTENTION_WIDTH = 512


def _row_cost(width: int) -> float:
    return width * (1.0 + width / ATTENTION_WIDTH)


def plan_batches(lengths: Sequence[int], *, max_rows: int) -> list[tuple[int, int]]:
    """The cheapest cut of ``lengths`` (sorted, shortest first) into batches of at most
    ``max_rows`` rows, as ``(start, stop)`` slices in order. A batch costs
    :data:`CALL_COST_TOKENS` plus each of its rows padded to its longest; the cut is
    exact (dynamic programming over where each batch starts, ``len * max_rows`` steps).

    >>> plan_batches([10, 10, 10, 10], max_rows=2)
    [(0, 2), (2, 4)]
    >>> plan_batches([5, 6, 7, 100], max_rows=32)  # the long one alone: no 3 rows padded to 100
    [(0, 3), (3, 4)]
    >>> plan_batches([], max_rows=8)
    []
    """
    if max_rows < 1:
        raise InvalidArgumentError(f"max_rows must be at least 1, got {max_rows}")
    n = len(lengths)
    if any(lengths[i] > lengths[i + 1] for i in range(n - 1)):
        raise InvalidArgumentError("plan_batches() takes lengths sorted shortest first")
    best = [0.0] + [float("inf")] * n  # best[j]: the cheapest cut of the first j
    start = [0] * (n + 1)
    for stop in range(1, n + 1):
        row = _row_cost(lengths[stop - 1])  # the batch's longest is its last
        for first in range(max(0, stop - max_rows), stop):
            cost = best[first] + CALL_COST_TOKENS + (stop - first) * row
            if cost < best[stop]:
                best[stop], start[stop] = cost, first
    cuts: list[tuple[int, int]] = []
    stop = n
    while stop:
        cuts.append((start[stop], stop))
        stop = start[stop]
    return cuts[::-1]
