"""Small scopes kept together (issue 41, point 3): a new scope lives in a bucket's
collections with up to 39 others (``layout.BUCKET_SCOPES``), sees nothing of theirs
through any read, moves to collections of its own once it grows, and leaves nothing
behind when purged."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.read import retrieve
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
    monkeypatch.setattr(layout, "BUCKET_SCOPES", 8)  # stands for 40
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
    the same ids as Chroma's exact ranking, with its cosines to 3e-3 (the index holds
    the vectors rounded to 8 bits a dimension, as the buckets' file keeps them: 1.3e-3
    off here),
    and never a memory archived, updated away or purged since."""
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
        assert ranked() == pytest.approx(chroma(), abs=3e-3)
        first = next(iter(ranked()))
        store.archive("user:ann", first)
        assert first not in ranked() and list(ranked()) == list(chroma())
        second = next(iter(ranked()))
        new = store.update("user:ann", second, "Works as a surgeon in Mumbai.")
        assert second not in ranked() and list(ranked()) == list(chroma())
        assert new.id in internals(store).candidates("user:ann", vector, "", k=10).dense
        assert not set(ranked()) & {m.id for m in store.active("user:bo")}


KILLED_MID_UPDATE = """
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
from langgraph_memory.store.chroma import scoped
store = MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=16))
store.add("user:bo", "Bo plays chess.")
old = store.add("user:ann", "Lives in Pune.")
print(old.id, flush=True)
if sys.argv[2] == "kill":  # after the closed copy and the successor, before the delete
    scoped.ScopedCollection.remove = lambda *args, **kwargs: os._exit(0)
else:  # the delete fails, and the process goes on and closes the store
    def failing(*args, **kwargs):
        raise OSError("disk went away")
    scoped.ScopedCollection.remove = failing
try:
    store.update("user:ann", old.id, "Lives in Mumbai.")
except OSError:
    store.close()
"""


@pytest.mark.parametrize("how", ["kill", "fail"])
def test_an_update_cut_short_in_a_bucket_is_finished_on_the_next_open(
    tmp_path: Path, how: str
) -> None:
    """Killed (or failing) between an update's closed copy and the delete of the old
    version, in a bucket: the next open finishes the move, so the old version is no
    longer active, and the bucket mate is untouched."""
    out = subprocess.run(
        [sys.executable, "-c", KILLED_MID_UPDATE, str(tmp_path / "m"), how],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    old = out.stdout.split()[0]
    with open_store(tmp_path / "m") as store:
        assert old not in {m.id for m in store.active("user:ann")}
        assert "Lives in Pune." not in [m.text for m in store.active("user:ann")]
        assert [m.text for m in store.active("user:bo")] == ["Bo plays chess."]
        assert old not in {h.memory.id for h in internals(store).keyword("user:ann", "Pune", 3)}


CRASH_BEFORE_THE_ROWS = """
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
from langgraph_memory.store.lexical import bucket_entries
store = MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=16))
store.add("user:ann", "Lives in Pune.")
bucket_entries.BucketEntries.put = lambda *args, **kwargs: os._exit(0)  # killed here
store.add("user:ann", "Has a cat named Miso.")
"""


def killed_in(folder: Path, script: str) -> None:
    """Run ``script`` on the store at ``folder`` in a process of its own, which it
    ends with ``os._exit`` (a kill: nothing is closed)."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(folder)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]


def fetched_with_vectors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scopes whose records the lexical indexes read from Chroma with their vectors
    from here on (a bucketed scope's: from its bucket's whole vector index)."""
    from langgraph_memory.store.lexical import indexes

    calls: list[str] = []
    real = indexes.fetch

    def counted(collection: object, scope: Scope, **kwargs: object) -> object:
        if kwargs.get("with_vector"):
            calls.append(scope.key)
        return real(collection, scope, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexes, "fetch", counted)
    return calls


def read(store: MemoryStore, scope: str, question: str, k: int = 3) -> list[str]:
    """The product's read: the texts ``retrieve`` returns, best first."""
    return [r.memory.text for r in retrieve(store, scope, question, k=k, touch=False)]


def test_a_reopened_store_reads_a_bucketed_person_from_its_file_not_their_buckets_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person in a bucket, read first after the store opened again, is read from the
    store's file of bucketed entries: the same memories in the same order, every write
    of the last process in it (adds, an update, an archive, a metadata change), and no
    read of their bucket's vectors."""
    questions = ["Where does Ann work?", "Does she keep bees?", "What is she allergic to?"]
    with open_store(tmp_path / "m") as store:
        store.add_many("user:bo", ["Bo collects stamps.", "Bo plays chess."])
        store.add_many("user:ann", FACTS)
        assert cols_of(store, "user:ann").bucket is not None
        gone = store.active("user:ann")[1]
        store.archive("user:ann", gone.id)
        store.update("user:ann", store.active("user:ann")[0].id, "Works as a surgeon in Mumbai.")
        store.add("user:ann", "Keeps bees on the roof.", metadata={"source": "chat"})
        store.add("user:ann", "Plays tennis on Fridays.")
        before = [read(store, "user:ann", q) for q in questions]
        active = sorted(m.text for m in store.active("user:ann"))
    assert "Works as a surgeon in Mumbai." in active and gone.text not in active
    calls = fetched_with_vectors(monkeypatch)
    with open_store(tmp_path / "m") as store:
        assert [read(store, "user:ann", q) for q in questions] == before
        assert sorted(m.text for m in store.active("user:ann")) == active
        assert gone.text not in str(before)
        [tennis] = internals(store).keyword("user:ann", "tennis", k=1)
        assert tennis.memory.text == "Plays tennis on Fridays."
        [bees] = internals(store).keyword("user:ann", "bees", k=1)
        assert bees.memory.metadata.get("source") == "chat"
        [chess] = internals(store).keyword("user:bo", "chess", k=1)  # written, never read
        assert chess.memory.text == "Bo plays chess."
        assert calls == []


def test_a_process_killed_between_a_write_and_its_rows_is_read_right_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma took the write, the file of bucketed entries did not (the process was
    killed between): the next process compares the person with Chroma once, finds the
    memory, and reads from the file again after that."""
    killed_in(tmp_path / "m", CRASH_BEFORE_THE_ROWS)
    calls = fetched_with_vectors(monkeypatch)
    with open_store(tmp_path / "m") as store:
        [cat] = internals(store).keyword("user:ann", "cat Miso", k=1)
        assert cat.memory.text == "Has a cat named Miso."
        assert calls == ["user:ann"]
    with open_store(tmp_path / "m") as store:  # closed properly since: the file is trusted
        assert len(read(store, "user:ann", "cat", k=5)) == 2
        assert calls == ["user:ann"]


def test_a_failed_write_of_the_rows_is_read_from_chroma_and_the_rows_made_whole_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from langgraph_memory.store.lexical import bucket_entries

    calls = fetched_with_vectors(monkeypatch)
    with open_store(tmp_path / "m") as store:
        store.add("user:ann", "Lives in Pune.")
        assert read(store, "user:ann", "Pune") == ["Lives in Pune."]  # the product read
        assert calls == []  # a new person's rows start whole

        def full(*args: object, **kwargs: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        with monkeypatch.context() as patched, caplog.at_level(logging.WARNING):
            patched.setattr(bucket_entries.BucketEntries, "put", full)
            store.add("user:ann", "Has a cat named Miso.")  # the write itself is done
        assert "not updated" in caplog.text
        [cat] = internals(store).keyword("user:ann", "cat Miso", k=1)
        assert cat.memory.text == "Has a cat named Miso."
        assert calls == ["user:ann"]
    with open_store(tmp_path / "m") as store:  # made whole by that comparison
        assert len(read(store, "user:ann", "cat", k=5)) == 2
        assert calls == ["user:ann"]


def test_the_file_distrusts_every_person_after_a_process_whose_write_of_it_failed(
    tmp_path: Path,
) -> None:
    from langgraph_memory.store.lexical.bucket_entries import BucketEntries
    from langgraph_memory.store.lexical.index import Entry

    path = tmp_path / "buckets.db"
    entries = BucketEntries(path)
    entries.replace("ann", [Entry("a1", "pune", document="Lives in Pune.", meta="{}")])
    entries.replace("bo", [Entry("b1", "chess", document="Plays chess.", meta="{}")])
    with pytest.raises(sqlite3.Error):
        entries.put("bo", [Entry("b2", "tea", thread=object())])  # type: ignore[arg-type]
    assert entries.load("bo") is None and entries.load("ann") is not None
    entries.close()
    again = BucketEntries(path)  # every person is compared with Chroma once more
    assert again.load("ann") is None and again.load("bo") is None
    again.replace("ann", [Entry("a1", "pune", document="Lives in Pune.", meta="{}")])
    again.close()
    third = BucketEntries(path)
    loaded = third.load("ann")
    assert loaded is not None and [e.document for e in loaded] == ["Lives in Pune."]
    third.close()
    crashed = BucketEntries(path)  # not closed: as a process killed
    crashed.replace("bo", [Entry("b1", "chess", document="Plays chess.", meta="{}")])
    after = BucketEntries(path)
    assert after.load("bo") is None
    after.close()
    crashed.close()


def test_a_write_whose_comparison_with_chroma_fails_is_still_made_and_read_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """After a process was killed, a person's first write compares their rows with
    Chroma; when that read fails, the write (which Chroma took) is still reported
    done, and read."""
    from langgraph_memory.store.lexical import indexes

    out = subprocess.run([sys.executable, "-c", KILLED_AFTER_A_WRITE, str(tmp_path / "m")])
    assert out.returncode == 0
    with open_store(tmp_path / "m") as store:

        def down(*args: object, **kwargs: object) -> None:
            raise ConnectionError("Chroma went away for a moment")

        with monkeypatch.context() as patched, caplog.at_level(logging.WARNING):
            patched.setattr(indexes, "fetch", down)
            made = store.add("user:ann", "Has a cat named Miso.")
        assert "not compared with Chroma" in caplog.text
        [cat] = internals(store).keyword("user:ann", "cat Miso", k=1)
        assert cat.memory.id == made.id
        assert len(store.active("user:ann")) == 2


KILLED_AFTER_A_WRITE = """
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=16)).add("user:ann", "Hi.")
os._exit(0)
"""


def test_a_new_persons_first_write_reads_nothing_back_from_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person made by their first write holds nothing before it: their rows start
    whole, so neither that write nor their first read in the next process asks Chroma
    for vectors."""
    calls = fetched_with_vectors(monkeypatch)
    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS[:2])
        assert internals(store).keyword("user:ann", "cello", k=1) == []
        assert [h.memory.text for h in internals(store).keyword("user:ann", "peanuts", 1)] == [
            FACTS[1]
        ]
        assert calls == []
    with open_store(tmp_path / "m") as store:
        assert len(internals(store).keyword("user:ann", "Pune peanuts", k=5)) == 2
        assert calls == []


def chroma_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call the store makes to Chroma from here on: a collection opened (a query
    of Chroma's database), a read, a nearest query."""
    from langgraph_memory.store.chroma import door

    calls: list[str] = []

    def count(cls: type, name: str) -> None:
        real = getattr(cls, name)

        def counted(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(cls, name, counted)

    count(door.ChromaCollection, "read")
    count(door.ChromaCollection, "nearest")
    count(door.ChromaClient, "open")
    return calls


def test_a_reopened_store_reads_a_bucketed_person_without_asking_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person in a bucket, read cold in the next process, is read from the store's
    file alone: the bucket they live in is kept with their rows, so the registry's
    entry and their bucket's collections (each a query of Chroma's database, which
    grew with the number of people) are not asked for. The answers are the same, and a
    write then opens the bucket as before."""
    questions = ["Where does Ann work?", "What is she allergic to?"]
    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS)
        store.add("user:big", "Keeps bees.")
        store.add_many("user:big", [f"Visited the {n}th floor gallery." for n in range(80)])
        assert cols_of(store, "user:big").bucket is None  # moved to its own collections
        before = [read(store, "user:ann", q) for q in questions]
    calls = chroma_calls(monkeypatch)
    with open_store(tmp_path / "m") as store:
        calls.clear()  # what opening the store asks is not a read's
        assert [read(store, "user:ann", q) for q in questions] == before
        assert calls == []
        made = store.add("user:ann", "Has a cat named Miso.")  # opens the bucket now
        assert "open" in calls
        assert read(store, "user:ann", "cat named Miso", k=1) == [made.text]
        # A person with collections of their own is found through the registry.
        assert read(store, "user:big", "bees", k=1) == ["Keeps bees."]


def _scope_table_of_the_release_before(path: Path) -> None:
    """Make ``buckets.db``'s scope table as the release before homes were kept made it."""
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE scope_old(hash TEXT PRIMARY KEY, generation INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO scope_old SELECT hash, generation FROM scope;
        DROP TABLE scope;
        ALTER TABLE scope_old RENAME TO scope;
        UPDATE meta SET value = '3.' || substr(value, 3) WHERE key = 'layout';
        """
    )
    con.close()


def test_a_buckets_file_of_the_release_before_is_read_and_learns_each_home_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose buckets' file has no homes (the release before) reads its people
    as before: each person's first read asks the registry where they live, once, and
    the next process reads them from the file alone."""
    from langgraph_memory.store.lexical.bucket_entries import BucketEntries

    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS)
        before = read(store, "user:ann", "Where does Ann live?")
    _scope_table_of_the_release_before(tmp_path / "m" / "lexical" / "buckets.db")
    calls = chroma_calls(monkeypatch)
    with open_store(tmp_path / "m") as store:
        calls.clear()
        assert read(store, "user:ann", "Where does Ann live?") == before
        assert "read" in calls and "nearest" not in calls  # the registry, not the vectors
    entries = BucketEntries(tmp_path / "m" / "lexical" / "buckets.db")
    assert entries.home(layout.scope_hash(Scope.parse("user:ann"))) == "b000000"
    entries.close()
    with open_store(tmp_path / "m") as store:
        calls.clear()
        assert read(store, "user:ann", "Where does Ann live?") == before
        assert calls == []


def test_a_bucket_gone_behind_the_stores_back_reads_as_the_registry_says(
    tmp_path: Path,
) -> None:
    """A bucket's collection deleted while the store was closed (nothing the kit does
    leaves that) is found missing on first use, not trusted again: the person reads as
    a store with no such collection reads, and their next write makes it anew."""
    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS)
    client = persistent(str(tmp_path / "m"))
    client.drop(layout.bucket_names("b000000")[0])  # the active records' collection
    client.close()
    with open_store(tmp_path / "m") as store:
        assert store.active("user:ann") == []
        store.add("user:ann", "Has a cat named Miso.")
        assert [m.text for m in store.active("user:ann")] == ["Has a cat named Miso."]


@pytest.mark.parametrize("promoted", [False, True], ids=["bucket", "own"])
def test_a_new_id_is_never_one_the_person_uses_as_an_id_or_a_chain_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, promoted: bool
) -> None:
    """Ids are 8 random hex digits, drawn again while the person already uses one: an
    active id, a closed version's id, or a chain key (an updated memory's first id,
    which its later versions keep). A bucketed person's are read in one call per
    collection, a person with their own collections asked about the drawn ids."""
    from langgraph_memory.store.chroma import collection_io

    with open_store(tmp_path / "m") as store:
        store.add("user:mate", "Keeps bees on the roof.")
        first = store.add("user:ann", "Lives in Pune.")
        second = store.update("user:ann", first.id, "Lives in Mumbai now.")
        if promoted:
            store.add_many("user:ann", [f"Visited the {n}th floor gallery." for n in range(70)])
        assert (cols_of(store, "user:ann").bucket is None) is promoted
        mate = store.active("user:mate")[0].id
        # the first id is closed, its key kept by the active second version
        assert first.id not in {m.id for m in store.active("user:ann")}
        drawn = iter([first.id, second.id, "0badc0de", "0badc0de", "feedf00d"])
        monkeypatch.setattr(collection_io.secrets, "token_hex", lambda n: next(drawn))
        assert store.add("user:ann", "Has a dog named Biscuit.").id == "0badc0de"
        drawn = iter([mate])  # another person's id is no collision: scopes never meet
        monkeypatch.setattr(collection_io.secrets, "token_hex", lambda n: next(drawn))
        calls = chroma_calls(monkeypatch)
        assert store.add("user:ann", "Plays the cello.").id == mate
        # what the add read: the ids in use, per collection (active, history)
        assert calls.count("read") == (4 if promoted else 2)
        assert {m.text for m in store.active("user:ann")} >= {
            "Lives in Mumbai now.",
            "Has a dog named Biscuit.",
            "Plays the cello.",
        }
        assert [m.text for m in store.active("user:mate")] == ["Keeps bees on the roof."]


GROWN = [f"Visited the {n}th floor gallery." for n in range(80)]


def test_a_reopened_store_reads_a_person_of_their_own_with_no_read_of_chroma_but_the_nearest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person with collections of their own, read first in a process after one that
    closed the store whole, is read from their index file alone: their registry entry,
    the ids of their collections (the index's comparison), their history (the check
    for a half-made move) and their vector index (ranked exactly from the file up to
    ``EXACT_AT`` memories) are not read, as each loaded a vector index that grew with
    the store. The answers are the same, and a write then is read back in this
    process and the next."""
    with open_store(tmp_path / "m") as store:
        store.add("user:big", "Keeps bees.")
        store.add_many("user:big", GROWN)
        assert cols_of(store, "user:big").bucket is None  # moved to its own collections
        before = read(store, "user:big", "bees", k=1)
    assert before == ["Keeps bees."]
    calls = chroma_calls(monkeypatch)
    for _ in range(2):  # the process after, and the one after that
        with open_store(tmp_path / "m") as store:
            calls.clear()  # what opening the store asks is not a read's
            assert read(store, "user:big", "bees", k=1) == before
            assert "read" not in calls and "nearest" not in calls
            assert read(store, "user:big", "cat named Miso", k=5)[0] != "Has a cat named Miso."
            store.add("user:big", "Has a cat named Miso.")
            assert read(store, "user:big", "cat named Miso", k=1) == ["Has a cat named Miso."]
            store.archive("user:big", store.add("user:big", "Owns a red kayak.").id)
        with open_store(tmp_path / "m") as store:
            calls.clear()
            assert read(store, "user:big", "cat named Miso", k=1) == ["Has a cat named Miso."]
            assert "Owns a red kayak." not in read(store, "user:big", "red kayak", k=5)
            assert "read" not in calls
            store.archive("user:big", store.active("user:big")[-1].id)  # Miso's, for the next round


CRASH_BEFORE_THE_INDEX = """
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
from langgraph_memory.store.lexical import index
store = MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=16))
store.add("user:big", "Lives in Pune.")
index.LexicalIndex.put = lambda *args, **kwargs: os._exit(0)  # killed here
store.add("user:big", "Has a cat named Miso.")
"""


def test_a_person_of_their_own_is_compared_with_chroma_after_a_process_that_did_not_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vouched for, a person of their own is compared with Chroma again when the store
    was not closed whole since (a process killed between Chroma's write and the index
    file's), or when their index file is gone: the write Chroma took is found, and no
    memory is missing from a file begun anew."""
    with open_store(tmp_path / "m") as store:
        store.add("user:big", "Keeps bees.")
        store.add_many("user:big", GROWN)
        assert read(store, "user:big", "bees", k=1) == ["Keeps bees."]  # vouched for now
        hashed = layout.scope_hash(Scope.parse("user:big"))
    killed_in(tmp_path / "m", CRASH_BEFORE_THE_INDEX)
    calls = chroma_calls(monkeypatch)
    with open_store(tmp_path / "m") as store:
        calls.clear()
        assert read(store, "user:big", "cat named Miso", k=1) == ["Has a cat named Miso."]
        assert "read" in calls  # compared with Chroma
    (tmp_path / "m" / "lexical" / f"{hashed}.sqlite3").unlink()  # closed whole, file gone
    with open_store(tmp_path / "m") as store:
        assert read(store, "user:big", "bees", k=1) == ["Keeps bees."]
        assert read(store, "user:big", "Pune", k=1) == ["Lives in Pune."]
    with open_store(tmp_path / "m") as store:  # vouched for again
        calls.clear()
        assert read(store, "user:big", "cat named Miso", k=1) == ["Has a cat named Miso."]
        assert "read" not in calls


@pytest.mark.parametrize("promoted", [False, True], ids=["bucket", "own"])
def test_an_access_time_is_written_without_reading_chroma_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, promoted: bool
) -> None:
    """A read's access times are written to the memories the person's index holds,
    not to those a read of Chroma found first: that read loaded the collection's whole
    vector index (a bucket's, mostly not in Chroma's cache among 100,000 people). A
    memory archived since the read is not written (it is no longer active)."""
    from datetime import datetime, timezone

    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS)
        if promoted:
            store.add_many("user:ann", GROWN)
        assert (cols_of(store, "user:ann").bucket is None) is promoted
        found = [r.memory for r in retrieve(store, "user:ann", "Where does Ann live?", k=2)]
        internals(store).flush_access("user:ann")
        store.archive("user:ann", found[1].id)
        calls = chroma_calls(monkeypatch)
        later = datetime(2031, 5, 1, tzinfo=timezone.utc)
        internals(store).note_access("user:ann", [m.id for m in found], now=later)
        assert internals(store).flush_access("user:ann")
        assert "read" not in calls
        assert store.get_memory("user:ann", found[0].id).last_accessed == later
        assert [m.id for m in store.active("user:ann") if m.last_accessed == later] == [found[0].id]


def test_a_buckets_file_of_layout_4_keeps_its_rows_and_vouches_for_each_own_person_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A buckets' file of the release before (layout 4, which vouched for no person of
    their own) is upgraded in place: its bucketed people read from it as before, and a
    person of their own is compared with Chroma on their first read, then not again."""
    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS)
        store.add("user:big", "Keeps bees.")
        store.add_many("user:big", GROWN)
        ann = read(store, "user:ann", "Where does Ann live?")
    con = sqlite3.connect(tmp_path / "m" / "lexical" / "buckets.db")
    with con:
        con.execute("UPDATE meta SET value = '4.' || substr(value, 3) WHERE key = 'layout'")
    con.close()
    calls = chroma_calls(monkeypatch)
    with open_store(tmp_path / "m") as store:
        calls.clear()
        assert read(store, "user:ann", "Where does Ann live?") == ann
        assert calls == []
        assert read(store, "user:big", "bees", k=1) == ["Keeps bees."]
        assert "read" in calls
    with open_store(tmp_path / "m") as store:
        calls.clear()
        assert read(store, "user:big", "bees", k=1) == ["Keeps bees."]
        assert "read" not in calls


@pytest.mark.server
def test_what_a_chroma_server_wrote_in_the_directory_is_read_by_the_next_embedded_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The directory served by `chroma run --path` between two embedded opens (as
    docs/mcp.md says to do for two processes): what the server took never reached the
    lexical files, so the next embedded open trusts none of them, and a bucketed person
    and a person of their own read the server's writes and archives. The open after
    that, with nothing else writing, trusts them again."""
    from conftest import running_server

    with open_store(tmp_path / "m") as store:
        store.add_many("user:ann", FACTS)
        store.add("user:big", "Keeps bees.")
        store.add_many("user:big", GROWN)
        assert read(store, "user:ann", "cello", k=1) == ["Plays the cello on Sundays."]
        assert read(store, "user:big", "bees", k=1) == ["Keeps bees."]  # vouched for
        cello = store.active("user:ann")[2]
    with running_server(tmp_path / "m") as server:
        served = MemoryStore(
            client=server.client(None), embeddings=DeterministicFakeEmbedding(size=16)
        )
        with served:
            served.add("user:ann", "Has a cat named Miso.")
            served.add("user:big", "Has a cat named Pixel.")
            served.archive("user:ann", cello.id)
    calls = chroma_calls(monkeypatch)
    with open_store(tmp_path / "m") as store:
        assert read(store, "user:ann", "cat named Miso", k=1) == ["Has a cat named Miso."]
        assert read(store, "user:big", "cat named Pixel", k=1) == ["Has a cat named Pixel."]
        assert "Plays the cello on Sundays." not in read(store, "user:ann", "cello", k=5)
    with open_store(tmp_path / "m") as store:
        calls.clear()
        assert read(store, "user:ann", "cat named Miso", k=1) == ["Has a cat named Miso."]
        assert read(store, "user:big", "cat named Pixel", k=1) == ["Has a cat named Pixel."]
        assert "read" not in calls


def test_a_person_of_their_own_is_ranked_from_the_file_as_chroma_ranks_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to ``EXACT_AT`` memories a person of their own is ranked exactly from their
    index file, above it by Chroma's vector index: the same memories in the same order
    either way (the index is exact at this size), and the nearest query asked only
    above."""
    from langgraph_memory.store.engine import searches

    questions = ["Where does she work?", "Which gallery floor?", "Any pets?", "Music?"]
    with open_store(tmp_path / "m") as store:
        store.add_many("user:big", FACTS + GROWN)
        assert cols_of(store, "user:big").bucket is None
        calls = chroma_calls(monkeypatch)
        exact = [read(store, "user:big", q, k=8) for q in questions]
        assert "nearest" not in calls
        monkeypatch.setattr(searches, "EXACT_AT", len(FACTS + GROWN) - 1)
        assert [read(store, "user:big", q, k=8) for q in questions] == exact
        assert calls.count("nearest") == len(questions)
