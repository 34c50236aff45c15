"""The words of the lexical index: what a record is indexed under, and what a query asks.

Both go through :func:`tokenize`, so they meet on the same terms: case-folded words,
numbers and ids (any script), common function words left out, and Porter's stemmer
for English ("painting", "paints" and "painted" meet at "paint"; on LoCoMo, BM25 alone
found 0.612 of the evidence in its top 10 with it, 0.592 with a lighter suffix
stripper and 0.569 with none: ``benchmarks/lexical_choice.py --stemmers``). A record's
lexical text adds the date of its event (else of its creation) in the words a question
uses, so that "what happened in May 2023?" finds it.

>>> tokenize("Caroline's painting classes started on 2023-05-08!")
['carolin', 'paint', 'class', 'start', '2023', '05', '08']
>>> from datetime import datetime, timezone
>>> date_words(datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc))
'2023-05-08 8 May 2023'
"""

from __future__ import annotations

import functools
import re
from datetime import datetime

from langgraph_memory import porter
from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.records import Memory

__all__ = ["STOP_WORDS", "date_words", "lexical_text", "stem", "tokenize"]

#: Letters and digits of any script; an underscore, apostrophe or hyphen splits words.
_WORD = re.compile(r"[^\W_]+")
#: Words that say nothing about which record is meant (English function words and fillers).
STOP_WORDS = frozenset(
    """a an the and or but if of to in on at for with by from as is are was were be been being
    do does did have has had i me my we our you your he him his she her it its they them their
    this that these those what which who whom whose when where why how there here not no so than
    too very can will would should could just about into over after before up down out off again
    further then once all any both each few more most other some such only own same s t don now
    ever am also yeah yes oh wow hey hi really thanks thank much get got go going lot""".split()  # noqa: SIM905 - reads as prose
)
#: Month names in English whatever the locale (``%B`` follows the locale).
_MONTHS = "January February March April May June July August September October November December"
_MONTH_NAMES = _MONTHS.split()


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A word's Porter stem (NLTK's rules, see ``porter``); numbers and ids keep their
    form, so "2023s" or "0a1b2c3d" are found as written. Cached: a scope's vocabulary
    is small, and Porter in Python is not.

    >>> [stem(w) for w in ["painting", "paints", "parties", "likes", "liked", "2023s"]]
    ['paint', 'paint', 'parti', 'like', 'like', '2023s']
    """
    return porter.stem(word) if word.isalpha() else word


def tokenize(text: str, *, stemmed: bool = True) -> list[str]:
    """The index terms of a text, in order, repeats kept (BM25 counts them): its
    case-folded words without stop words, stemmed unless ``stemmed=False``.

    >>> tokenize("She was painting flights to Zürich, ID 0a1b2c3d.")
    ['paint', 'flight', 'zürich', 'id', '0a1b2c3d']
    >>> tokenize("LH-761 flights", stemmed=False), tokenize("What is it?")
    (['lh', '761', 'flights'], [])
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"tokenize() takes a str, got {type(text).__name__}")
    words = [w for w in _WORD.findall(text.casefold()) if w not in STOP_WORDS]
    return [stem(w) for w in words] if stemmed else words


def date_words(when: datetime) -> str:
    """A date as a question may name it: ISO form, then day, month name and year.

    >>> from datetime import timezone
    >>> date_words(datetime(2026, 12, 1, 23, 0, tzinfo=timezone.utc))
    '2026-12-01 1 December 2026'
    """
    if not isinstance(when, datetime):
        raise InvalidTypeError(f"date_words() takes a datetime, got {type(when).__name__}")
    return f"{when:%Y-%m-%d} {when.day} {_MONTH_NAMES[when.month - 1]} {when.year}"


def lexical_text(memory: Memory) -> str:
    """What a memory is indexed under: its text and the date of its event (else of
    its creation). A speaker or any other metadata is not part of it.

    >>> from datetime import timezone
    >>> m = Memory(id="0a1b2c3d", text="Adopted a puppy.", scope="user:a",
    ...            created_at=datetime(2026, 1, 2, tzinfo=timezone.utc),
    ...            event_time=datetime(2023, 5, 8, tzinfo=timezone.utc))
    >>> lexical_text(m)
    'Adopted a puppy. 2023-05-08 8 May 2023'
    """
    return f"{memory.text} {date_words(memory.event_time or memory.created_at)}"
