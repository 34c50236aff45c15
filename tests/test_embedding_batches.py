"""How the offline embedder cuts a call's texts into model batches (``plan_batches``)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np
import pytest

from langgraph_memory.embedding_batches import CALL_COST_TOKENS, _row_cost, plan_batches
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.errors import InvalidArgumentError


def _cost(lengths: list[int], cuts: list[tuple[int, int]]) -> float:
    return sum(
        CALL_COST_TOKENS + (stop - start) * _row_cost(lengths[stop - 1]) for start, stop in cuts
    )


def _every_cut(n: int, max_rows: int) -> list[list[tuple[int, int]]]:
    """Every cut of ``n`` rows into consecutive batches of at most ``max_rows``."""
    cuts = []
    for marks in itertools.product([False, True], repeat=n - 1):
        bounds = [0, *(i + 1 for i, m in enumerate(marks) if m), n]
        parts = list(itertools.pairwise(bounds))
        if all(stop - start <= max_rows for start, stop in parts):
            cuts.append(parts)
    return cuts


def test_the_plan_covers_every_text_once_in_order_within_the_row_cap() -> None:
    rng = random.Random(3)
    for _ in range(200):
        lengths = sorted(rng.randint(3, 256) for _ in range(rng.randint(1, 120)))
        max_rows = rng.choice([1, 2, 8, 32])
        cuts = plan_batches(lengths, max_rows=max_rows)
        assert [i for start, stop in cuts for i in range(start, stop)] == list(range(len(lengths)))
        assert all(0 < stop - start <= max_rows for start, stop in cuts)


def test_the_plan_is_the_cheapest_cut() -> None:
    rng = random.Random(5)
    for _ in range(60):
        lengths = sorted(rng.choice([4, 9, 12, 30, 31, 60, 200]) for _ in range(rng.randint(1, 9)))
        max_rows = rng.choice([2, 3, 32])
        best = min(_cost(lengths, cut) for cut in _every_cut(len(lengths), max_rows))
        assert _cost(lengths, plan_batches(lengths, max_rows=max_rows)) == pytest.approx(best)


def test_a_long_text_does_not_pad_the_short_ones() -> None:
    lengths = [12] * 24 + [250]
    assert plan_batches(lengths, max_rows=32) == [(0, 24), (24, 25)]
    # Texts of one length take as few calls as the cap allows.
    assert len(plan_batches([20] * 70, max_rows=32)) == 3


def test_bad_input_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="sorted"):
        plan_batches([5, 3], max_rows=4)
    with pytest.raises(InvalidArgumentError, match="max_rows"):
        plan_batches([5], max_rows=0)


class _Recording:
    """An onnxruntime session that records the shape of every call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.shapes: list[tuple[int, int]] = []

    def run(self, names: list[str], feeds: dict[str, np.ndarray]) -> Any:
        self.shapes.append(feeds["input_ids"].shape)
        return self.inner.run(names, feeds)


def test_the_model_sees_little_padding_and_the_vectors_match_one_at_a_time() -> None:
    short = [f"Caroline went to the LGBTQ support group on day {i}." for i in range(20)]
    long = " ".join(
        f"Melanie talked about her pottery class and the bowl she painted in week {i}."
        for i in range(12)
    )
    texts = [*short[:10], long, *short[10:]]
    emb = LocalMiniLM(recent_queries=0)
    singles = [emb.embed_documents([t])[0] for t in texts]
    session, tokenizer = emb._load()
    recording = _Recording(session)
    emb._loaded = (recording, tokenizer)  # type: ignore[assignment]
    batched = emb.embed_documents(texts)
    real = sum(len(e.ids) for e in tokenizer.encode_batch(texts))
    padded = sum(rows * width for rows, width in recording.shapes)
    # One batch of 21 padded to the long text would be about 8x the real tokens.
    assert padded <= 1.2 * real, recording.shapes
    for one, many in zip(singles, batched, strict=True):
        assert float(np.max(np.abs(np.subtract(one, many)))) < 1e-5
