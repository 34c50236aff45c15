"""Dates in what a user says, resolved to absolute dates against the turn's date.

A relative date ("next Friday", "last month", "in 3 days", "2 weeks ago") means
nothing once the conversation is over, so a fact keeps the absolute date it
stands for, written the way the rules write it back: a day ("on 2026-03-06"), a
week ("in the week of 2026-03-09"), a month ("in April 2026") or a year ("in 2027").

>>> resolve_date("I'm flying to Oslo in two weeks", date(2026, 3, 2))
"I'm flying to Oslo on 2026-03-16"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from langgraph_memory.text import MONTHS, WEEKDAYS, month_number

__all__ = ["FoundDate", "find_date", "resolve_date", "without_date"]

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_NUM = r"\d{1,3}|" + "|".join(_NUMBERS)


@dataclass(frozen=True)
class FoundDate:
    """A date found in a clause: where it was, how to write it, and when it is."""

    start: int
    end: int
    text: str  # "on 2026-03-06", "in the week of 2026-03-09", "in April 2026", "in 2027"
    at: datetime


def _on(day: date) -> tuple[str, datetime]:
    return f"on {day.isoformat()}", datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def _in_month(year: int, month: int) -> tuple[str, datetime]:
    return f"in {MONTHS[month - 1]} {year}", datetime(year, month, 1, tzinfo=timezone.utc)


def _in_year(year: int) -> tuple[str, datetime]:
    return f"in {year}", datetime(year, 1, 1, tzinfo=timezone.utc)


def _week_of(day: date) -> tuple[str, datetime]:
    monday = day - timedelta(days=day.weekday())
    return f"in the week of {monday.isoformat()}", datetime(
        monday.year, monday.month, monday.day, tzinfo=timezone.utc
    )


def _add_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def _shift(day: date, n: int, unit: str) -> tuple[str, datetime]:
    unit = unit.lower()
    if unit == "day":
        return _on(day + timedelta(days=n))
    if unit == "week":
        return _on(day + timedelta(weeks=n))
    if unit == "month":
        return _in_month(*_add_months(day, n))
    return _in_year(day.year + n)


_WD = "|".join(WEEKDAYS)
_MON = "|".join(MONTHS)
_DATE_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str], date], tuple[str, datetime]]]] = [
    (re.compile(r"\bon (\d{4}-\d{2}-\d{2})\b"), lambda m, d: _on(date.fromisoformat(m[1]))),
    (
        re.compile(r"\bin the week of (\d{4}-\d{2}-\d{2})\b", re.I),
        lambda m, d: _week_of(date.fromisoformat(m[1])),
    ),
    (
        re.compile(rf"\bin ({_MON}) (\d{{4}})\b", re.I),
        lambda m, d: _in_month(int(m[2]), month_number(m[1])),
    ),
    (re.compile(r"\bin (\d{4})\b"), lambda m, d: _in_year(int(m[1]))),
    (
        re.compile(r"\b(?:the )?day after tomorrow\b", re.I),
        lambda m, d: _on(d + timedelta(days=2)),
    ),
    (
        re.compile(r"\b(?:the )?day before yesterday\b", re.I),
        lambda m, d: _on(d - timedelta(days=2)),
    ),
    (
        re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I),
        lambda m, d: _on(d),
    ),
    (re.compile(r"\btomorrow\b", re.I), lambda m, d: _on(d + timedelta(days=1))),
    (re.compile(r"\byesterday\b", re.I), lambda m, d: _on(d - timedelta(days=1))),
    (
        re.compile(rf"\blast ({_WD})\b", re.I),
        lambda m, d: _on(d - timedelta(days=(d.weekday() - WEEKDAYS.index(m[1].lower())) % 7 or 7)),
    ),
    (
        # "next Friday" is the first Friday after today: on Monday 2026-03-02, 2026-03-06.
        re.compile(rf"\b(?:next|this|coming|this coming|on) ({_WD})\b", re.I),
        lambda m, d: _on(d + timedelta(days=(WEEKDAYS.index(m[1].lower()) - d.weekday()) % 7 or 7)),
    ),
    (re.compile(r"\bnext week\b", re.I), lambda m, d: _week_of(d + timedelta(weeks=1))),
    (re.compile(r"\blast week\b", re.I), lambda m, d: _week_of(d - timedelta(weeks=1))),
    (re.compile(r"\bthis week\b", re.I), lambda m, d: _week_of(d)),
    (re.compile(r"\bnext month\b", re.I), lambda m, d: _in_month(*_add_months(d, 1))),
    (re.compile(r"\blast month\b", re.I), lambda m, d: _in_month(*_add_months(d, -1))),
    (re.compile(r"\bthis month\b", re.I), lambda m, d: _in_month(d.year, d.month)),
    (re.compile(r"\bnext year\b", re.I), lambda m, d: _in_year(d.year + 1)),
    (re.compile(r"\blast year\b", re.I), lambda m, d: _in_year(d.year - 1)),
    (re.compile(r"\bthis year\b", re.I), lambda m, d: _in_year(d.year)),
    (
        re.compile(rf"\bin ({_NUM}) (day|week|month|year)s?(?: time)?\b", re.I),
        lambda m, d: _shift(d, _number(m[1]), m[2]),
    ),
    (
        re.compile(rf"\b({_NUM}) (day|week|month|year)s? ago\b", re.I),
        lambda m, d: _shift(d, -_number(m[1]), m[2]),
    ),
]


def find_date(text: str, today: date) -> FoundDate | None:
    """The first date expression of ``text`` (in rule order), resolved against ``today``.

    >>> text = "I moved to Pune last week"
    >>> found = find_date(text, date(2026, 3, 2))
    >>> text[found.start : found.end], found.text, found.at.date().isoformat()
    ('last week', 'in the week of 2026-02-23', '2026-02-23')
    """
    for pattern, resolve in _DATE_RULES:
        match = pattern.search(text)
        if match:
            written, at = resolve(match, today)
            return FoundDate(match.start(), match.end(), written, at)
    return None


def resolve_date(text: str, today: datetime | date) -> str:
    """``text`` with its first relative date written as an absolute one.

    >>> resolve_date("I'm flying to Oslo next Friday", datetime(2026, 3, 2))
    "I'm flying to Oslo on 2026-03-06"
    >>> resolve_date("we met last year", date(2026, 3, 2))
    'we met in 2025'
    """
    day = today.date() if isinstance(today, datetime) else today
    found = find_date(text, day)
    if found is None:
        return text
    return text[: found.start] + found.text + text[found.end :]


def without_date(text: str, found: FoundDate | None) -> str:
    """``text`` with the date ``found`` in it cut out, so patterns read what is left.

    >>> text = "I moved to Pune last week"
    >>> without_date(text, find_date(text, date(2026, 3, 2)))
    'I moved to Pune'
    """
    if found is None:
        return text
    return " ".join((text[: found.start] + " " + text[found.end :]).split()).strip(" ,")
