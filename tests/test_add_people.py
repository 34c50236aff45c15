"""Many people's memories at once (``langgraph_memory.store.add_people``, issue 41): people new to
the store are made a bucket's worth at a time, in one registry write and one write of
their bucket, and what is stored reads back exactly as ``add_many`` for each would
have stored it: in this process, after a reopen, through every read, and under a purge.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.errors import (
    AdminRequiredError,
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
)
from langgraph_memory.read import retrieve
from langgraph_memory.store import add_people, internals
from langgraph_memory.store.chroma import door, layout

#: Real-looking facts people tell an assistant, dealt out to people below.
FACTS = [
    "Lives in Pune and works as a nurse at the city hospital.",
    "Is allergic to peanuts and carries an epinephrine pen.",
    "Plays the cello in a community orchestra on Sundays.",
    "Has a beagle named Biscuit who is afraid of thunder.",
    "Is training for the Lisbon marathon in October.",
    "Prefers answers in Portuguese when the topic is cooking.",
    "Switched from coffee to green tea last spring.",
    "Is saving for a used camper van to travel around Norway.",
    "Volunteers at the food bank every second Saturday.",
    "Is learning to solder and builds small synthesizers.",
    "Has two daughters, Mira and Joana, aged six and nine.",
    "Keeps a vegetable garden with tomatoes and chard.",
]
QUESTIONS = ["Where does this person work?", "What pet do they have?", "What do they drink?"]


def open_store(path: Path) -> MemoryStore:
    return MemoryStore(path, embeddings=DeterministicFakeEmbedding(size=16))


def people(n: int, start: int = 0) -> dict[str, list[Any]]:
    """``n`` people of 1 to 12 memories each, some with fields beyond the text."""
    out: dict[str, list[Any]] = {}
    for p in range(start, start + n):
        items: list[Any] = [f"Person {p}: {FACTS[(p + j) % len(FACTS)]}" for j in range(1 + p % 12)]
        if p % 3 == 0:
            items[0] = {"text": items[0], "importance": 0.9, "pinned": True, "kind": "episodic"}
        out[f"user:p{p:03d}"] = items
    return out


def shape(store: MemoryStore, scope: str) -> list[tuple[Any, ...]]:
    """What a person holds, ids aside (drawn afresh in each store)."""
    return sorted(
        (m.text, m.kind, m.importance, m.pinned, m.source, m.trust, tuple(m.metadata.items()))
        for m in store.active(scope)
    )


def reads(store: MemoryStore, scope: str) -> list[list[str]]:
    """The product's read of a person, best first, for each question."""
    return [[r.memory.text for r in retrieve(store, scope, q, k=4, touch=False)] for q in QUESTIONS]


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the collections the store writes records to from here on."""
    calls: list[str] = []
    for name in ("add", "put"):
        real = getattr(door.ChromaCollection, name)

        def counted(self: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            calls.append(self.name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(door.ChromaCollection, name, counted)
    yield calls


def test_new_people_read_back_as_add_many_stores_them(tmp_path: Path) -> None:
    given = people(50)
    with open_store(tmp_path / "one") as one, open_store(tmp_path / "many") as many:
        for scope, items in given.items():
            one.add_many(scope, items)
        made = add_people(many, given)
        assert list(made) == list(given)
        for scope, items in given.items():
            assert [m.text for m in made[scope]] == [
                i if isinstance(i, str) else i["text"] for i in items
            ]
            assert len({m.id for m in made[scope]}) == len(items)
            assert shape(many, scope) == shape(one, scope)
            assert reads(many, scope) == reads(one, scope)
            assert many.count(scope) == len(items)
            bucket = internals(many)._core.collections(Scope.parse(scope)).bucket
            assert bucket == internals(one)._core.collections(Scope.parse(scope)).bucket
        assert many.scopes() == one.scopes()
    # Closed whole, opened again: each person is read from the buckets' file as before.
    with open_store(tmp_path / "many") as many, open_store(tmp_path / "one") as one:
        for scope in given:
            assert reads(many, scope) == reads(one, scope)
            assert shape(many, scope) == shape(one, scope)


def test_forty_new_people_cost_one_registry_write_and_one_write_of_their_bucket(
    tmp_path: Path, writes: list[str]
) -> None:
    with open_store(tmp_path / "m") as store:
        store.add("user:first", "Grows basil on the balcony.")  # the store's collections exist
        writes.clear()
        add_people(store, people(layout.BUCKET_SCOPES - 1))  # the rest of the first bucket
        assert sorted(writes) == sorted([layout.REGISTRY, "lgm-b000000-mem"])
        writes.clear()
        for scope, items in people(3, start=100).items():
            store.add_many(scope, items)
        # One by one, each new person writes the registry and their bucket again.
        assert writes.count(layout.REGISTRY) == 3 and writes.count("lgm-b000001-mem") == 3


def test_people_already_stored_or_too_many_for_a_bucket_are_written_as_add_many(
    tmp_path: Path,
) -> None:
    big = [f"Day {d}: ran {d % 9 + 3} km along the river before work." for d in range(80)]
    with open_store(tmp_path / "m") as store:
        old = store.add("user:old", "Has lived in Porto since 2019.")
        made = add_people(
            store,
            {
                "user:old": ["Started a pottery class this month."],
                "user:big": big,
                "user:new": ["Collects vintage fountain pens."],
                "user:none": [],
            },
        )
        assert sorted(m.text for m in store.active("user:old")) == [
            "Has lived in Porto since 2019.",
            "Started a pottery class this month.",
        ]
        assert old.id not in {m.id for m in made["user:old"]}
        assert store.count("user:big") == 80 and made["user:none"] == []
        # More memories than a bucket keeps for one person: collections of their own.
        assert internals(store)._core.collections(Scope.parse("user:big")).bucket is None
        assert internals(store)._core.collections(Scope.parse("user:new")).bucket is not None
        assert Scope.parse("user:none") not in store.scopes()


def test_one_bad_item_or_a_refused_scope_stores_nothing(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as store:
        with pytest.raises(InvalidMemoryError, match=r"user:b, item 1"):
            add_people(store, {"user:a": ["Likes tea."], "user:b": ["Has a cat.", {"text": ""}]})
        with pytest.raises(InvalidArgumentError, match="given twice"):
            add_people(store, {"user:a": ["Likes tea."], Scope("user", "a"): ["Has a cat."]})
        with pytest.raises(AdminRequiredError):
            add_people(store, {"user:a": ["Likes tea."], "org:acme": ["Ships on Fridays."]})
        with pytest.raises(EmbeddingMismatchError, match="2 vectors for user:a's 1 items"):
            add_people(store, {"user:a": ["Likes tea."]}, vectors={"user:a": [[0.1] * 16] * 2})
        assert store.scopes() == []


def test_given_vectors_are_stored_and_the_rest_embedded(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as store:
        own = [1.0] + [0.0] * 15
        add_people(
            store, {"user:a": ["Likes tea."], "user:b": ["Has a cat."]}, vectors={"user:a": [own]}
        )
        [hit] = internals(store).nearest("user:a", own, k=1)
        assert hit.memory.text == "Likes tea." and hit.score > 0.99
        [cat] = internals(store).nearest("user:b", "Has a cat.", k=1)
        assert cat.score > 0.99


def test_a_purge_of_one_person_made_at_once_leaves_the_others(tmp_path: Path) -> None:
    marker = "PURGEMARKpeople3"
    given = people(12)
    given["user:p005"] = [f"Her passport number is {marker}.", "Likes long walks."]
    with open_store(tmp_path / "m") as store:
        add_people(store, given)
        before = {s: shape(store, s) for s in given if s != "user:p005"}
        store.purge("user:p005")
        assert Scope.parse("user:p005") not in store.scopes()
        assert {s: shape(store, s) for s in before} == before
    assert marker.encode() not in (tmp_path / "m" / "chroma.sqlite3").read_bytes()


def test_a_person_written_meanwhile_by_another_thread_is_stored_once_with_both(
    tmp_path: Path,
) -> None:
    """A write of one of the new people by another thread, at the same time: each
    write is whole, none is lost and none stored twice."""
    with open_store(tmp_path / "m") as store:
        given = people(40)
        go = threading.Barrier(2)

        def other() -> None:
            go.wait()
            store.add("user:p020", "Moved to Braga in March.")

        thread = threading.Thread(target=other)
        thread.start()
        go.wait()
        add_people(store, given)
        thread.join()
        texts = [m.text for m in store.active("user:p020")]
        expected = [i if isinstance(i, str) else i["text"] for i in given["user:p020"]]
        assert sorted(texts) == sorted([*expected, "Moved to Braga in March."])
        assert len(store.scopes()) == 40
