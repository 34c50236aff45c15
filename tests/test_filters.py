"""Chroma's where language, evaluated in Python for a scope's share of a bucket
(``store/chroma/filters.py``), answers as Chroma does: every clause is checked against a
real Chroma collection holding the same records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.store.chroma.door import persistent
from langgraph_memory.store.chroma.filters import matches

RECORDS: dict[str, dict[str, Any]] = {
    "a": {"kind": "fact", "n": 1, "score": 0.5, "pinned": True, "key": "k1"},
    "b": {"kind": "episode", "n": 2, "score": 2.0, "pinned": False, "key": "k2"},
    "c": {"kind": "fact", "n": 3, "key": "k3"},
    "d": {"kind": "rule", "score": 1.0},
}

WHERES: list[dict[str, Any]] = [
    {"kind": "fact"},
    {"kind": {"$ne": "fact"}},
    {"n": 2},
    {"n": 2.0},
    {"score": 1},
    {"n": {"$gt": 1}},
    {"n": {"$gte": 2.0}},
    {"score": {"$gte": 1.5}},
    {"score": {"$lt": 2}},
    {"score": {"$lte": 2}},
    {"pinned": True},
    {"pinned": {"$ne": True}},
    {"key": {"$in": ["k1", "k3", "zz"]}},
    {"key": {"$nin": ["k1"]}},
    {"n": {"$in": [1, 3]}},
    {"$and": [{"kind": "fact"}, {"n": {"$gt": 1}}]},
    {"$or": [{"kind": "rule"}, {"pinned": True}]},
    {"$and": [{"$or": [{"n": 1}, {"n": 3}]}, {"kind": {"$ne": "rule"}}]},
]


@pytest.mark.parametrize("where", WHERES, ids=[str(w) for w in WHERES])
def test_a_where_matches_what_chroma_returns(tmp_path: Path, where: dict[str, Any]) -> None:
    collection = persistent(tmp_path).open_or_create("filters")
    ids = list(RECORDS)
    collection.add(ids, [[float(i + 1)] for i in range(len(ids))], None, list(RECORDS.values()))
    chroma = sorted(collection.read(where=where)["ids"])
    assert sorted(i for i, m in RECORDS.items() if matches(m, where)) == chroma


def test_an_unknown_operator_or_an_order_of_strings_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="unknown where operator"):
        matches({"a": 1}, {"a": {"$like": 1}})
    with pytest.raises(InvalidArgumentError, match="compares numbers"):
        matches({"key": "k2"}, {"key": {"$gt": "k1"}})  # Chroma refuses it too


def test_a_fractional_bound_on_an_int_compares_exactly() -> None:
    # Chroma truncates the bound (1.5 -> 1) and returns n = 1; the store compares floats.
    assert not matches({"n": 1}, {"n": {"$gte": 1.5}}) and matches({"n": 2}, {"n": {"$gte": 1.5}})
