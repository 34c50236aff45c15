"""Chroma's ``where`` language, evaluated here on one record's metadata.

Chroma (1.5, embedded and ``chroma run``) answers each clause of a ``where`` with a
subquery over the metadata of every record of the database, whatever the collection
asked: ``{"kind": "fact"}`` on a collection of 4,000 records took 36 ms with 60,000
records in another collection, where a read of the same collection by a value few
records hold (a scope's tag) took 1.7 ms; so a filtered read of a small scope grew
with the number of people in the store. A scope's share of a bucket (``scoped``) reads
its records by its own tag, which few rows hold (about 1 ms), and filters them here.

The semantics are Chroma's: a clause on a key matches only records that have the key
(``$ne`` and ``$nin`` match those without it); ints and floats compare with each other,
booleans only with booleans; only numbers order. One difference: Chroma truncates a
fractional bound compared with an int (``{"n": {"$gte": 1.5}}`` matches ``n = 1``);
here the comparison is exact (the store compares floats with floats: times).

>>> matches({"kind": "fact", "n": 2}, {"$and": [{"kind": "fact"}, {"n": {"$gte": 2.0}}]})
True
>>> fact = {"kind": "fact"}
>>> matches(fact, {"pinned": {"$ne": True}}), matches(fact, {"pinned": True})
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_memory.errors import InvalidArgumentError

__all__ = ["matches"]

_ORDER = {"$gt", "$gte", "$lt", "$lte"}


def matches(metadata: Mapping[str, Any] | None, where: Mapping[str, Any]) -> bool:
    """Whether a record with ``metadata`` matches ``where`` (several keys: all of them).

    >>> matches({"key": "k3"}, {"key": {"$in": ["k1", "k3"]}}), matches(None, {"a": 1})
    (True, False)
    """
    for key, condition in where.items():
        if key == "$and":
            if not all(matches(metadata, part) for part in condition):
                return False
        elif key == "$or":
            if not any(matches(metadata, part) for part in condition):
                return False
        elif not _holds(metadata, key, condition):
            return False
    return True


def _holds(metadata: Mapping[str, Any] | None, key: str, condition: Any) -> bool:
    if isinstance(condition, Mapping):
        if len(condition) != 1:
            raise InvalidArgumentError(f"one operator per key in a where clause: {condition!r}")
        ((op, value),) = condition.items()
    else:
        op, value = "$eq", condition
    present = metadata is not None and key in metadata and metadata[key] is not None
    held = metadata[key] if present and metadata is not None else None
    if op == "$eq":
        return present and _equal(held, value)
    if op == "$ne":
        return not (present and _equal(held, value))
    if op == "$in":
        return present and any(_equal(held, v) for v in value)
    if op == "$nin":
        return not (present and any(_equal(held, v) for v in value))
    if op in _ORDER:
        return present and _ordered(held, op, value)
    raise InvalidArgumentError(f"unknown where operator {op!r} (Chroma's: $eq, $ne, $gt, ...)")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(held: Any, value: Any) -> bool:
    if isinstance(held, bool) or isinstance(value, bool):
        return isinstance(held, bool) and isinstance(value, bool) and held == value
    if _number(held) and _number(value):
        return float(held) == float(value)
    return bool(type(held) is type(value) and held == value)


def _ordered(held: Any, op: str, value: Any) -> bool:
    if not _number(value):
        raise InvalidArgumentError(f"{op} compares numbers (as Chroma does), got {value!r}")
    if not _number(held):
        return False
    a, b = float(held), float(value)
    if op == "$gt":
        return a > b
    if op == "$gte":
        return a >= b
    if op == "$lt":
        return a < b
    return a <= b
