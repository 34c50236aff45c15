"""Dates in words: month and weekday names, and a date as a question names it.

English names whatever the locale (``%B`` follows the locale). The write path's
date rules, the read path's time detection and the lexical index's date words
all read them from here.

>>> MONTHS[4], month_number("may"), month_number("Sept"), WEEKDAYS[0]
('May', 5, 9, 'monday')
>>> from datetime import datetime, timezone
>>> date_words(datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc))
'2023-05-08 8 May 2023'
"""

from __future__ import annotations

from datetime import datetime

from langgraph_memory.errors import InvalidTypeError

__all__ = ["MONTHS", "MONTH_ABBREVIATIONS", "WEEKDAYS", "date_words", "month_number"]

#: The months' names, January first.
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
#: Their short forms, lower case, each with its month's number ("sep" and "sept" both).
MONTH_ABBREVIATIONS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
#: The weekdays' names, lower case, Monday first (as ``date.weekday()`` counts).
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_NUMBER_OF = {name.casefold(): n for n, name in enumerate(MONTHS, 1)} | MONTH_ABBREVIATIONS


def month_number(name: str) -> int:
    """The number of a month named in full or short, in any case; KeyError for
    anything else."""
    return _NUMBER_OF[name.casefold()]


def date_words(when: datetime) -> str:
    """A date as a question may name it: ISO form, then day, month name and year.

    >>> from datetime import timezone
    >>> date_words(datetime(2026, 12, 1, 23, 0, tzinfo=timezone.utc))
    '2026-12-01 1 December 2026'
    """
    if not isinstance(when, datetime):
        raise InvalidTypeError(f"date_words() takes a datetime, got {type(when).__name__}")
    return f"{when:%Y-%m-%d} {when.day} {MONTHS[when.month - 1]} {when.year}"
