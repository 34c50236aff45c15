"""The ranking's terms and their bounds, held together: what a memory's record adds to
its fused score stays within what ``retrieve`` reads records by (``record_bounds``),
so a candidate left unread could never have made the first results."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

from langgraph_memory.read.ranking import record_bounds, record_terms
from langgraph_memory.records import EPISODE, Memory

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def memories() -> list[Memory]:
    """Facts and episodes at every extreme a term can reach: importance 0 and 1, said
    now, long ago and in the future, with and without a time, with and without a speaker."""
    found = []
    texts = ["Ann moved to Pune in May 2024.", "Ann likes tea."]
    ages = [timedelta(0), timedelta(days=20_000), -timedelta(days=30)]
    kinds = [{}, {EPISODE: True, "speaker": "Ann"}, {"speaker": "Bo"}]
    for n, (text, age, importance, meta) in enumerate(
        itertools.product(texts, ages, [0.0, 0.5, 1.0], kinds)
    ):
        found.append(
            Memory(
                id=f"m{n:07d}",
                text=text,
                scope="user:a",
                created_at=NOW - age,
                importance=importance,
                metadata=dict(meta),
            )
        )
    return found


def test_every_records_terms_stay_within_the_bounds_the_read_uses() -> None:
    seen_least = seen_most = False
    for memory, about_time, named in itertools.product(
        memories(), [False, True], [set(), {"ann"}, {"bo"}]
    ):
        terms = record_terms(memory, about_time=about_time, named=named, when=NOW)
        speaker = str(memory.metadata.get("speaker", "")).casefold()
        least, most = record_bounds(about_time=about_time, speaker_named=speaker in named)
        assert least - 1e-12 <= terms.total <= most + 1e-12, (memory, about_time, named)
        assert 0.0 <= terms.recency <= 1.0
        seen_least |= abs(terms.total - least) < 1e-12
        seen_most |= abs(terms.total - most) < 1e-12
    # The bounds are tight: some record reaches each, so they bound no more than needed.
    assert seen_least and seen_most
