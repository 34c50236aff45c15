"""Small scopes kept together (issue 41, point 3): a new scope lives in a bucket's
collections with up to 255 others, sees nothing of theirs through any read, moves to
collections of its own once it grows, and leaves nothing behind when purged."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.store import internals
from langgraph_memory.store.chroma import layout
from langgraph_memory.store.chroma.door import MissingCollectionError, persistent
from langgraph_memory.store.chroma.scoped import (
    MOVED_KEY,
    SCOPE_KEY,
    ScopedCollection,
    SharedCollectionError,
)

FACTS = [
    "Lives in Pune and works as a nurse.",
    "Is allergic to peanuts.",
    "Plays the cello on Sundays.",
    "Has a dog named Biscuit.",
    "Is training for the Lisbon marathon.",
]


def open_store(path: Path) -> MemoryStore:
    return MemoryStore(path, embeddings=DeterministicFakeEmbedding(size=16))


def cols_of(store: MemoryStore, scope: str) -> layout.ScopeCollections:
    cols = internals(store)._core.collections(Scope.parse(scope))
    assert cols is not None
    return cols


def test_people_in_one_bucket_never_read_each_others_records(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as store:
        for person, fact in zip(["ann", "bo", "cy"], FACTS, strict=False):
            store.add(f"user:{person}", f"{person.title()} {fact.lower()}")
            store.add(f"user:{person}", "Drinks green tea every morning.")  # the same text
            store.put(("user", person, "prefs"), "theme", {"text": f"{person} likes dark mode"})
        buckets = {cols_of(store, f"user:{p}").bucket for p in ["ann", "bo", "cy"]}
        assert len(buckets) == 1 and None not in buckets
        for person in ["ann", "bo", "cy"]:
            scope = f"user:{person}"
            own = {m.id: m.text for m in store.active(scope)}
            texts = sorted(own.values())
            assert len(texts) == 2 and texts[0].startswith(person.title()), texts
            near = internals(store).nearest(scope, "green tea in the morning", k=10)
            assert {h.memory.id for h in near} == set(own)
            words = internals(store).keyword(scope, "tea cello peanuts nurse dog", k=10)
            assert {h.memory.id for h in words} <= set(own) and len(words) >= 1
            assert store.count(scope) == 2
            items = store.search(("user", person, "prefs"), query="dark mode")
            assert [i.value["text"] for i in items] == [f"{person} likes dark mode"]
            assert store.get(("user", person, "prefs"), "theme") is not None
        # The same key in two scopes: two records, each scope its own.
        store.delete(("user", "ann", "prefs"), "theme")
        assert store.get(("user", "ann", "prefs"), "theme") is None
        assert store.get(("user", "bo", "prefs"), "theme") is not None


def test_a_share_filters_every_call_and_refuses_whole_collection_changes(tmp_path: Path) -> None:
    shared = persistent(tmp_path).open_or_create("lgm-b000000-mem", cosine=True)
    a, b = ScopedCollection(shared, "a" * 32), ScopedCollection(shared, "b" * 32)
    a.add(["x", "y"], [[1.0, 0.0], [0.9, 0.1]], ["ax", "ay"], [{"n": 1}, {"n": 2}])
    b.add(["x"], [[1.0, 0.0]], ["bx"], [{"n": 1}])  # the same id, another scope
    assert a.read(ids=["x"], include=["documents"])["documents"] == ["ax"]
    assert b.read(where={"n": 1}, include=["documents", "metadatas"])["metadatas"] == [{"n": 1}]
    assert a.nearest([1.0, 0.0], 5, include=["distances"])["ids"] == ["x", "y"]
    assert a.nearest([1.0, 0.0], 5, where={"n": 2})["ids"] == ["y"]
    a.patch(["x"], [{"n": 7}])
    assert b.read(ids=["x"], include=["metadatas"])["metadatas"] == [{"n": 1}]
    a.remove()
    assert (a.size(), b.size()) == (0, 1)
    stored = shared.read(include=["metadatas"])
    assert stored["ids"] == ["b" * 32 + "/x"] and stored["metadatas"] == [
        {"n": 1, SCOPE_KEY: "b" * 32}
    ]
    with pytest.raises(SharedCollectionError, match="rename the collection"):
        a.rename("other")


def test_many_small_people_take_a_few_collections_and_no_index_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layout, "BUCKET_SCOPES", 8)  # stands for 256
    with open_store(tmp_path / "m") as store:
        people = layout.BUCKET_SCOPES + 3
        for n in range(people):
            store.add(f"user:p{n}", FACTS[n % len(FACTS)])
        names = internals(store).client.list_collections()
        scope_collections = sorted(c.name for c in names if c.name.startswith("lgm-"))
        assert scope_collections == sorted(
            [*layout.bucket_names("b000000"), *layout.bucket_names("b000001")]
        )
        assert cols_of(store, "user:p0").bucket == "b000000"
        assert cols_of(store, f"user:p{people - 1}").bucket == "b000001"
    assert not list((tmp_path / "m" / "lexical").glob("*.sqlite3"))


def test_a_person_who_grows_moves_out_with_everything(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as store:
        store.add("user:mate", "Keeps bees on the roof.")
        first = store.add("user:ann", "Lives in Pune.")
        store.update("user:ann", first.id, "Lives in Mumbai now.")
        store.add_many("user:ann", [f"Visited the {n}th floor gallery." for n in range(40)])
        assert cols_of(store, "user:ann").bucket is not None
        before = {
            "active": sorted(m.id for m in store.active("user:ann")),
            "history": [v.text for v in store.history("user:ann", first.id)],
            "decisions": len(store.decisions("user:ann")),
            "near": [h.memory.id for h in internals(store).nearest("user:ann", "Mumbai", k=5)],
        }
        bucket = cols_of(store, "user:ann").bucket
        store.add_many("user:ann", [f"Met a friend at the {n}th cafe." for n in range(30)])
        cols = cols_of(store, "user:ann")
        assert (
            cols.bucket is None
            and cols.active.name == layout.collection_names(Scope.parse("user:ann"))[0]
        )
        assert len(store.active("user:ann")) == len(before["active"]) + 30
        assert set(before["active"]) <= {m.id for m in store.active("user:ann")}
        assert [v.text for v in store.history("user:ann", first.id)] == before["history"]
        assert len(store.decisions("user:ann")) >= before["decisions"]
        assert (
            internals(store).keyword("user:ann", "Mumbai", k=3)[0].memory.text
            == "Lives in Mumbai now."
        )
        # Nothing of it stays in its bucket; its bucket mate is untouched.
        client = internals(store).client
        assert bucket is not None
        tag = layout.scope_hash(Scope.parse("user:ann"))
        for name in layout.bucket_names(bucket):  # its mark of the move alone
            found = client.get_collection(name).get(where={SCOPE_KEY: tag}, include=["metadatas"])
            assert found["ids"] == [tag] and found["metadatas"] == [
                {SCOPE_KEY: tag, MOVED_KEY: True}
            ]
        assert [m.text for m in store.active("user:mate")] == ["Keeps bees on the roof."]
        entry = layout.registry_entry(
            internals(store)._core.engine.registry, Scope.parse("user:ann")
        )
        assert entry is not None and entry.get(layout.LEFT_KEY) == bucket
    with open_store(tmp_path / "m") as store:  # reopened: read from its own collections
        assert cols_of(store, "user:ann").bucket is None
        assert len(store.active("user:ann")) == len(before["active"]) + 30


def test_a_move_cut_short_leaves_the_person_whole_and_the_next_write_moves_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", [f"Has read book number {n} of the series." for n in range(60)])

        def killed(*args: object) -> None:
            raise OSError("killed before the registry said so")

        monkeypatch.setattr(layout, "move_home", killed)
        with caplog.at_level(logging.WARNING, logger="langgraph_memory"):
            store.add_many("user:ann", [f"Owns a bike from year {n}." for n in range(10)])
        assert "stays in bucket" in caplog.text
        assert cols_of(store, "user:ann").bucket is not None  # whole, where it was
        assert len(store.active("user:ann")) == 70
        monkeypatch.undo()
        store.add("user:ann", "Rides to work on Mondays.")
        assert cols_of(store, "user:ann").bucket is None
        assert len(store.active("user:ann")) == 71  # the half-made copy was started over


def test_a_purge_of_one_person_leaves_their_bucket_mates(tmp_path: Path) -> None:
    marker = "PURGEMARKbucket7"
    with open_store(tmp_path / "m") as store:
        keep = store.add("user:mate", "Keeps bees on the roof.")
        secret = store.add("user:ann", f"Her passport number is {marker}.")
        store.add("user:ann", "Likes long walks.")
        assert cols_of(store, "user:ann").bucket == cols_of(store, "user:mate").bucket
        store.purge("user:ann", [secret.id])
        assert [m.text for m in store.active("user:ann")] == ["Likes long walks."]
        store.purge("user:ann")
        assert store.active("user:ann") == [] and Scope.parse("user:ann") not in store.scopes()
        assert [m.id for m in store.active("user:mate")] == [keep.id]
        hit = internals(store).nearest("user:mate", "bees", k=1)[0].memory.id
        assert hit == keep.id
    database = (tmp_path / "m" / "chroma.sqlite3").read_bytes()
    assert marker.encode() not in database and secret.id.encode() not in database


def test_a_handle_on_the_old_share_of_a_person_who_moved_is_opened_again(tmp_path: Path) -> None:
    # Another process (or thread) may still hold the bucket's handles of a person this
    # one moved out: its next read meets the mark of the move and opens them again.
    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", [f"Keeps plant number {n} on the balcony." for n in range(40)])
        stale = cols_of(store, "user:ann")
        store.add_many("user:ann", [f"Waters plant number {n} on Fridays." for n in range(30)])
        assert cols_of(store, "user:ann").bucket is None
        with pytest.raises(MissingCollectionError, match="moved out"):
            stale.active.read(where={"kind": "fact"})
        with pytest.raises(MissingCollectionError, match="moved out"):
            stale.history.size()
        engine = internals(store)._core.engine
        engine.moved(stale)  # as a process that has not heard of the move holds it
        assert len(store.active("user:ann")) == 70
        assert len(internals(store).nearest("user:ann", "plants on the balcony", k=50)) == 50
        assert cols_of(store, "user:ann").bucket is None


def test_a_read_in_a_bucket_ranks_as_chroma_and_follows_archives_and_updates(
    tmp_path: Path,
) -> None:
    """The read ranks a bucketed person's memories from the vectors its index holds:
    the same ids and cosines as Chroma's exact ranking, and never a memory archived,
    updated away or purged since."""
    with open_store(tmp_path / "m") as store:
        store.add_many("user:bo", ["Bo collects stamps.", "Bo plays chess."])
        store.add_many("user:ann", FACTS)
        cols = cols_of(store, "user:ann")
        assert cols.bucket is not None
        vector = internals(store)._core.embed_query("Where does Ann work?")

        def ranked() -> dict[str, float]:
            return internals(store).candidates("user:ann", vector, "", k=3, lexical=False).dense

        def chroma() -> dict[str, float]:
            found = cols.active.nearest(vector, 3, include=["distances"])
            return {i: 1.0 - d for i, d in zip(found["ids"], found["distances"] or [], strict=True)}

        assert list(ranked()) == list(chroma()) and len(ranked()) == 3
        assert ranked() == pytest.approx(chroma(), abs=1e-6)
        first = next(iter(ranked()))
        store.archive("user:ann", first)
        assert first not in ranked() and list(ranked()) == list(chroma())
        second = next(iter(ranked()))
        new = store.update("user:ann", second, "Works as a surgeon in Mumbai.")
        assert second not in ranked() and list(ranked()) == list(chroma())
        assert new.id in internals(store).candidates("user:ann", vector, "", k=10).dense
        assert not set(ranked()) & {m.id for m in store.active("user:bo")}
