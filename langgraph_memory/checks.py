"""Checks on what callers pass in, so bad input fails early with our own error.

Every public entry point runs its arguments through these before anything
reaches Chroma, the tokenizer or a model. A refused call changes nothing, and
its error says what to pass instead (instead of a ``TypeError`` from deep
inside Chroma, or a silently odd result).

>>> check_k(5), check_ids(["0a1b2c3d"]), check_vector([0.5, 0.5])
(5, ['0a1b2c3d'], [0.5, 0.5])
>>> check_k(2**63)
Traceback (most recent call last):
...
langgraph_memory.errors.InvalidArgumentError: k must be an int from 1 to 10,000 (MAX_K), got ...
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from langgraph_memory.errors import (
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidTypeError,
    MemoryKitError,
)

_T = TypeVar("_T")

#: Most results one search returns. Chroma turns ``k`` into a C long (2**63
#: raised OverflowError) and sizes its result by it; no prompt holds more.
MAX_K = 10_000
#: Chroma keeps ints as signed 64-bit: a larger one read back as a float.
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: Latest time accepted. Times are stored as float seconds since the epoch, and
#: a time in the last day of 9999 rounded into the year 10000, which Python
#: cannot read back: the store would hold a memory no read could return.
MAX_TIME = datetime(9999, 12, 31, tzinfo=timezone.utc)
#: Chroma keeps vectors as float32: a larger number became inf, and scores NaN.
FLOAT32_MAX = 3.4028234663852886e38

# A lone surrogate (half of a UTF-16 pair; what ``errors="surrogateescape"``
# makes of undecodable bytes) is not valid Unicode: UTF-8 cannot encode it, so
# the tokenizer and Chroma fail on it.
_SURROGATE = re.compile("[\ud800-\udfff]")
# Control characters (Unicode category Cc: C0, DEL, C1) other than tab, newline
# and carriage return. Chroma would keep them, but they carry no meaning in a
# fact; they reach terminals through the CLI (ESC starts sequences that rewrite
# the screen) and prompts through the read path; the MiniLM tokenizer drops them,
# so the text stored and the text embedded differ. They almost always mean binary
# data or a broken decoding upstream. Data that must be kept as it is (a
# benchmark's turns) goes through ``strip_controls`` where it is read.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def check_chars(
    value: str,
    what: str,
    *,
    controls: bool = True,
    error: type[MemoryKitError] = InvalidArgumentError,
) -> str:
    """Refuse lone surrogates and, with ``controls``, control characters other
    than tab, newline and carriage return. Returns ``value`` unchanged.

    >>> check_chars("tab\\tand newline\\n", "text")
    'tab\\tand newline\\n'
    >>> check_chars("bell\\x07", "text")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: text contains the control character '\\x07' ...
    """
    bad = _SURROGATE.search(value)
    if bad is not None:
        raise error(
            f"{what} contains a lone surrogate ({bad.group()!r} at position {bad.start()}), "
            "which is not valid Unicode and cannot be stored or embedded: decode the bytes "
            "it came from with errors='replace', or fix the text at its source"
        )
    if controls:
        bad = _CONTROL.search(value)
        if bad is not None:
            raise error(
                f"{what} contains the control character {bad.group()!r} at position "
                f"{bad.start()}; remove it (tab, newline and carriage return are the only "
                "control characters kept)"
            )
    return value


def strip_controls(text: str) -> str:
    """``text`` with each control character the store refuses replaced by a space,
    for data that must be kept whatever it holds (a benchmark's turns: LongMemEval
    S has vertical tabs and STX in a few dozen of them).

    >>> strip_controls("line\\x0bbreak\\n")
    'line break\\n'
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"strip_controls() takes a str, got {type(text).__name__}")
    return _CONTROL.sub(" ", text)


def check_query(query: Any, what: str = "query") -> str:
    """A query text: a str that can be encoded (control characters are allowed,
    since a query is never stored and users paste them).

    >>> check_query("Where do I live?")
    'Where do I live?'
    """
    if not isinstance(query, str):
        raise InvalidArgumentError(f"{what} must be a str, got {type(query).__name__}: {query!r}")
    return check_chars(query, what, controls=False)


def check_k(k: Any, what: str = "k", *, low: int = 1) -> int:
    """A result count: an int from ``low`` (1 unless said) to :data:`MAX_K`.

    >>> check_k(0, "limit", low=0)
    0
    """
    if isinstance(k, bool) or not isinstance(k, int) or not low <= k <= MAX_K:
        raise InvalidArgumentError(
            f"{what} must be an int from {low} to {MAX_K:,} (MAX_K), got {k!r}"
        )
    return k


def check_int(value: Any, what: str, *, low: int = 1) -> int:
    """A whole number of at least ``low`` (a count, a size, a number of workers).

    >>> check_int(2, "workers")
    2
    >>> check_int("2", "workers")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: workers must be an int >= 1, got str: '2'
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(
            f"{what} must be an int >= {low}, got {type(value).__name__}: {value!r}"
        )
    if value < low:
        raise InvalidArgumentError(f"{what} must be >= {low}, got {value!r}")
    return value


def check_seconds(value: Any, what: str = "timeout") -> float | None:
    """A number of seconds >= 0, or None (no limit), for a timeout.

    >>> check_seconds(2), check_seconds(None)
    (2.0, None)
    >>> check_seconds(float("inf"))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: timeout must be a finite number of seconds ...
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(
            f"{what} must be a number of seconds or None (no limit), "
            f"got {type(value).__name__}: {value!r}"
        )
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float
        seconds = math.inf
    # NaN fails both tests; inf would overflow the thread primitives' wait.
    if not (math.isfinite(seconds) and seconds >= 0):
        raise InvalidArgumentError(
            f"{what} must be a finite number of seconds >= 0, or None to wait without a "
            f"limit; got {value!r}"
        )
    return seconds


def check_instance(value: object, expected: type[_T], what: str, hint: str = "") -> _T:
    """``value`` if it is an ``expected``; otherwise an error that names the type
    given and, in ``hint``, what to pass. For the arguments that carry the
    package's own objects (a store, a writer, a memory), which nothing else can
    stand in for: without this, a wrong one fails deep inside with an
    ``AttributeError``, sometimes after part of the work is done.

    >>> check_instance(5, str, "text", "pass the memory's text")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: text must be a str, got int; pass the memory's text
    """
    if not isinstance(value, expected):
        article = "an" if expected.__name__[:1] in "AEIOU" else "a"
        raise InvalidTypeError(
            f"{what} must be {article} {expected.__name__}, got {type(value).__name__}"
            + (f"; {hint}" if hint else "")
        )
    return value


def check_id(memory_id: Any, what: str = "memory id") -> str:
    """A memory id (or BaseStore key): a non-empty str that can be encoded.

    >>> check_id(None)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: memory id must be a non-empty str, got None
    """
    if not isinstance(memory_id, str) or not memory_id:
        raise InvalidArgumentError(f"{what} must be a non-empty str, got {memory_id!r}")
    return check_chars(memory_id, what, controls=False)


def check_ids(ids: Any, what: str = "ids") -> list[str]:
    """A list of memory ids (any iterable of str but a single str), each once.

    >>> check_ids(("0a1b2c3d", "ffffffff", "0a1b2c3d"))
    ['0a1b2c3d', 'ffffffff']
    >>> check_ids("0a1b2c3d")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: ids must be a list of memory ids, not one str...
    """
    if isinstance(ids, (str, bytes)):
        raise InvalidArgumentError(f"{what} must be a list of memory ids, not one str: [{ids!r}]")
    if not isinstance(ids, Iterable) or isinstance(ids, Mapping):
        raise InvalidArgumentError(
            f"{what} must be a list of memory ids, got {type(ids).__name__}: {ids!r}"
        )
    checked = [check_id(i, f"{what}[{n}]") for n, i in enumerate(ids)]
    return list(dict.fromkeys(checked))  # Chroma refuses a duplicate id in one request


def check_vector(vector: Any, what: str = "query vector") -> list[float]:
    """A vector: a non-empty sequence of finite numbers, as floats.

    >>> check_vector([1, float("nan")])
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.EmbeddingMismatchError: query vector has nan at position 1; ...
    """
    if (
        type(vector) is list
        and vector
        and all(type(x) is float for x in vector)
        and math.isfinite(sum(vector))  # False for a NaN or an infinity among them
        and max(map(abs, vector)) <= FLOAT32_MAX
    ):
        # What every embedder returns: checked in a few microseconds, a read's every
        # query vector passes here (the loop below names the first bad component).
        return list(vector)
    if isinstance(vector, (str, bytes)) or not isinstance(vector, Iterable):
        raise EmbeddingMismatchError(
            f"{what} must be a sequence of floats, got {type(vector).__name__}"
        )
    out: list[float] = []
    for i, x in enumerate(vector):
        if isinstance(x, (bool, str, bytes)):
            raise EmbeddingMismatchError(
                f"{what} must hold numbers, got {type(x).__name__} at position {i}"
            )
        try:
            value = float(x)  # numpy scalars convert too
        except OverflowError:  # an int too large for a float
            value = math.inf
        except (TypeError, ValueError):
            raise EmbeddingMismatchError(
                f"{what} must hold numbers, got {type(x).__name__} at position {i}"
            ) from None
        if not math.isfinite(value):
            raise EmbeddingMismatchError(
                f"{what} has {value!r} at position {i}; a vector must hold finite numbers "
                "(a NaN usually comes from a broken embedder or an all-zero vector divided "
                "by its norm)"
            )
        if abs(value) > FLOAT32_MAX:
            raise EmbeddingMismatchError(
                f"{what} has {value!r} at position {i}, beyond the float32 range "
                f"(±{FLOAT32_MAX:.4g}) vectors are stored in; normalise the vector"
            )
        out.append(value)
    if not out:
        raise EmbeddingMismatchError(f"{what} is empty")
    return out


def check_time(value: Any, what: str = "time") -> datetime:
    """An aware datetime, returned in UTC. A naive one is refused: the store
    cannot know which zone it meant, and guessing UTC shifts local times.

    >>> from datetime import timedelta
    >>> check_time(datetime(2026, 1, 5, 9, tzinfo=timezone(timedelta(hours=1)))).isoformat()
    '2026-01-05T08:00:00+00:00'
    >>> check_time(datetime(2026, 1, 5, 9), "now")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: now=datetime(2026, 1, 5, 9, 0) has no ...
    """
    if not isinstance(value, datetime):
        raise InvalidArgumentError(
            f"{what} must be a datetime with a time zone, got {type(value).__name__}: {value!r}"
        )
    if value.tzinfo is None or value.utcoffset() is None:
        shown = repr(value).removeprefix("datetime.")
        raise InvalidArgumentError(
            f"{what}={shown} has no time zone; pass an aware datetime, e.g. "
            "datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc), or value.replace("
            "tzinfo=timezone.utc) if it is UTC"
        )
    try:
        when: datetime = value.astimezone(timezone.utc)
    except OverflowError:
        raise InvalidArgumentError(
            f"{what}={value.isoformat()} falls outside the years 1 to 9999 in UTC"
        ) from None
    if when > MAX_TIME:
        raise InvalidArgumentError(
            f"{what}={when.isoformat()} is after {MAX_TIME.isoformat()}, the latest time "
            "the store can keep (for an open end, leave the time out)"
        )
    return when
