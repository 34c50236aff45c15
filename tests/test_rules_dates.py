"""Relative dates are written as absolute dates against the turn's date."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from langgraph_memory.write.rules.dates import resolve_date

#: A Monday, so that "next Friday" is 2026-03-06.
WHEN = datetime(2026, 3, 2, 15, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("today", "on 2026-03-02"),
        ("tonight", "on 2026-03-02"),
        ("tomorrow", "on 2026-03-03"),
        ("yesterday", "on 2026-03-01"),
        ("the day after tomorrow", "on 2026-03-04"),
        ("next Friday", "on 2026-03-06"),
        ("next Monday", "on 2026-03-09"),
        ("last Friday", "on 2026-02-27"),
        ("last Monday", "on 2026-02-23"),
        ("next week", "in the week of 2026-03-09"),
        ("last week", "in the week of 2026-02-23"),
        ("next month", "in April 2026"),
        ("last month", "in February 2026"),
        ("next year", "in 2027"),
        ("last year", "in 2025"),
        ("in 3 days", "on 2026-03-05"),
        ("in two weeks", "on 2026-03-16"),
        ("in 11 months", "in February 2027"),
        ("3 days ago", "on 2026-02-27"),
    ],
)
def test_relative_dates(phrase: str, expected: str) -> None:
    assert resolve_date(f"I fly to Oslo {phrase}", WHEN) == f"I fly to Oslo {expected}"
