"""Reliability under concurrency: purges, reads and writes from many threads on one
store, two store objects on one path, and stale handles after a purge elsewhere.

Each scenario runs twice: a quick round in every test run, and a long one under
``pytest -m stress`` (the reliability table of docs/reliability.md comes from that run). The
loops are bounded in count and time. The database is checked with SQLite's
``quick_check`` in a child process after the store let go of it.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import CompactionError, MemoryStore, StoreClosedError
from langgraph_memory.cli import main as cli
from langgraph_memory.read import retrieve
from langgraph_memory.store import compact_directory, internals
from langgraph_memory.write import MemoryWriter, RulesModel
from langgraph_memory.write.background import BackgroundWriter

QUICK_CHECK = (
    "import sqlite3, sys; "
    "print(sqlite3.connect(sys.argv[1]).execute('PRAGMA quick_check').fetchone()[0])"
)


def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=16)


def quick_check(directory: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-c", QUICK_CHECK, str(directory / "chroma.sqlite3")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stdout.strip() or out.stderr.strip()


@dataclass
class Errors:
    """Exceptions raised in worker threads, kept for the assertion."""

    seen: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, target: Callable[[], object]) -> threading.Thread:
        def guarded() -> None:
            try:
                target()
            except Exception as exc:
                with self.lock:
                    self.seen.append(f"{type(exc).__name__}: {exc}")

        thread = threading.Thread(target=guarded)
        thread.start()
        return thread


# -- purge while others write ------------------------------------------------------------


def purge_while_writing(directory: Path, purges: int, adds: int) -> None:
    store = MemoryStore(directory, embeddings=fake())
    errors = Errors()

    def purger() -> None:
        for _ in range(purges):
            store.purge("user:p", [store.add("user:p", "x").id])

    thread = errors.run(purger)
    for i in range(adds):
        store.add("user:q", f"User likes thing {i}.")
    thread.join(timeout=600)
    assert errors.seen == []
    assert len(store.active("user:q")) == adds and store.active("user:p") == []
    store.close()
    assert quick_check(directory) == "ok"
    with MemoryStore(directory, embeddings=fake()) as again:  # it opens again, intact
        assert len(again.active("user:q")) == adds


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_while_another_thread_writes(tmp_path: Path) -> None:
    purge_while_writing(tmp_path / "m", purges=4, adds=80)


@pytest.mark.stress
def test_stress_purge_while_another_thread_writes(tmp_path: Path) -> None:
    purge_while_writing(tmp_path / "m", purges=60, adds=400)


def background_writes_while_purging(directory: Path, turns: int, purged_users: int) -> None:
    """A BackgroundWriter writes two users while the app purges others."""
    store = MemoryStore(directory, embeddings=fake())
    writer = MemoryWriter(store, model=RulesModel())
    errors = Errors()
    for u in range(purged_users):
        store.add_many(f"user:gone{u}", [f"User {u} secret {i}." for i in range(5)])
    with BackgroundWriter(writer, journal=directory / "turns.jsonl") as bg:
        ids = [
            bg.submit(f"user:w{i % 2}", [("user", f"I am allergic to food number {i}.")])
            for i in range(turns)
        ]
        purger = errors.run(lambda: [store.purge(f"user:gone{u}") for u in range(purged_users)])
        assert bg.flush(timeout=600)
        purger.join(timeout=600)
        assert bg.stats.unrecorded == 0 and bg.stats.failed == 0
    assert errors.seen == []
    decided = {d.turn_id for w in (0, 1) for d in store.decisions(f"user:w{w}")}
    assert set(ids) <= decided, "every accepted turn left a decision"
    assert not any(s.id.startswith("gone") for s in store.scopes())
    store.close()
    assert quick_check(directory) == "ok"


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_background_writes_while_the_app_purges(tmp_path: Path) -> None:
    background_writes_while_purging(tmp_path / "m", turns=12, purged_users=2)


@pytest.mark.stress
def test_stress_background_writes_while_the_app_purges(tmp_path: Path) -> None:
    for run in range(5):
        background_writes_while_purging(tmp_path / f"m{run}", turns=60, purged_users=5)


# -- reads never fail because of writes ------------------------------------------------------


def test_nearest_skips_ids_that_are_not_there(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m", embeddings=fake()) as store:
        tea = store.add("user:a", "User likes tea.")
        assert internals(store).nearest("user:a", "tea", ids=["zzzzzzzz"]) == []
        hits = internals(store).nearest("user:a", "tea", ids=["zzzzzzzz", tea.id])
        assert [h.memory.id for h in hits] == [tea.id]
        store.archive("user:a", tea.id)
        assert internals(store).nearest("user:a", "tea", ids=[tea.id]) == []


def reads_while_updating(directory: Path, reads: int) -> None:
    store = MemoryStore(directory, embeddings=fake())
    names = [f"Tea{i}" for i in range(20)]
    memories = store.add_many("user:a", [f"User likes {n} tea." for n in names])
    errors = Errors()
    done = threading.Event()

    def updater() -> None:
        current = {m.id: m.text for m in memories}
        while not done.is_set():
            for memory_id, text in list(current.items()):
                new = store.update("user:a", memory_id, text.replace("likes", "loves", 1))
                del current[memory_id]
                current[new.id] = new.text

    thread = errors.run(updater)
    failures = 0
    for i in range(reads):
        try:
            retrieve(store, "user:a", f"Does the user like {names[i % len(names)]}?", k=5)
        except Exception as exc:
            failures += 1
            errors.seen.append(f"read {i}: {type(exc).__name__}: {exc}")
    done.set()
    thread.join(timeout=600)
    store.close()
    assert failures == 0 and errors.seen == []


def test_retrieve_while_another_thread_updates(tmp_path: Path) -> None:
    reads_while_updating(tmp_path / "m", reads=40)


@pytest.mark.stress
def test_stress_retrieve_while_another_thread_updates(tmp_path: Path) -> None:
    reads_while_updating(tmp_path / "m", reads=515)


# -- two store objects on one path ---------------------------------------------------------


def two_objects_one_fact(directory: Path, rounds: int) -> None:
    first = MemoryStore(directory, embeddings=fake())
    second = MemoryStore(directory, embeddings=fake())
    writers = [MemoryWriter(s, model=RulesModel()) for s in (first, second)]
    for r in range(rounds):
        scope = f"user:r{r}"
        barrier = threading.Barrier(2)
        errors = Errors()

        def write(w: MemoryWriter, scope: str = scope, barrier: Any = barrier) -> None:
            barrier.wait()
            w.write_turn(scope, [("user", "I am allergic to peanuts.")])

        threads = [errors.run(lambda w=w: write(w)) for w in writers]
        for t in threads:
            t.join(timeout=120)
        assert errors.seen == []
        assert [m.text for m in first.active(scope, episodes=False)] == [
            "User is allergic to peanuts."
        ]
        # and one episode: the same words, said in both turns
        [said] = [m for m in first.active(scope) if m.is_episode]
        assert said.text == "I am allergic to peanuts." and said.times_said == 2
    first.close()
    second.close()


def test_two_store_objects_on_one_path_store_one_fact_once(tmp_path: Path) -> None:
    two_objects_one_fact(tmp_path / "m", rounds=3)


@pytest.mark.stress
def test_stress_two_store_objects_on_one_path_store_one_fact_once(tmp_path: Path) -> None:
    two_objects_one_fact(tmp_path / "m", rounds=25)


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_a_purge_through_one_store_object_leaves_the_other_working(tmp_path: Path) -> None:
    first = MemoryStore(tmp_path / "m", embeddings=fake())
    second = MemoryStore(tmp_path / "m", embeddings=fake())
    kept = second.add("user:b", "User likes tea.")
    second.add("user:a", "User likes coffee.")
    assert [m.text for m in second.active("user:a")] == ["User likes coffee."]
    first.purge("user:a")
    assert second.active("user:a") == []
    assert [s.key for s in second.scopes()] == ["user:b"]
    second.add("user:a", "User likes cocoa.")
    second.add("user:new", "User is new.")
    assert [s.key for s in first.scopes()] == ["user:a", "user:b", "user:new"]
    assert second.get_memory("user:b", kept.id).text == "User likes tea."
    first.close()
    assert [m.text for m in second.active("user:a")] == ["User likes cocoa."]
    second.close()


def test_use_after_close_is_a_clear_error(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m", embeddings=fake())
    store.add("user:a", "User likes tea.")
    store.close()
    store.close()  # twice is fine
    for call in (
        lambda: store.active("user:a"),
        lambda: store.add("user:a", "x"),
        lambda: store.scopes(),
        lambda: store.purge("user:a"),
        lambda: internals(store).nearest("user:a", "tea"),
    ):
        with pytest.raises(StoreClosedError, match="closed"):
            call()


@pytest.mark.server
def test_a_purge_through_another_client_leaves_no_stale_handles(
    chroma_server: Any,
) -> None:
    database = f"db{uuid.uuid4().hex}"
    writer_side = MemoryStore(client=chroma_server.client(database), embeddings=fake())
    second_client = chromadb.HttpClient(
        host=chroma_server.host,
        port=chroma_server.port,
        database=database,
        settings=Settings(anonymized_telemetry=False),
    )
    other_side = MemoryStore(client=second_client, embeddings=fake())
    memory = writer_side.add("user:a", "User likes tea.")
    writer_side.add("user:b", "User likes cocoa.")
    assert [m.id for m in other_side.active("user:a")] == [memory.id]  # handles cached
    writer_side.purge("user:a", [memory.id])
    assert other_side.active("user:a") == []  # rebuilt under a new id: reopened, not failed
    other_side.add("user:a", "User likes coffee.")
    writer_side.purge("user:b")
    assert [s.key for s in other_side.scopes()] == ["user:a"]


# -- the CLI ---------------------------------------------------------------------------------


def test_cli_purge_with_an_empty_id_list_purges_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "m"
    with MemoryStore(directory, embeddings=fake()) as store:
        store.add("user:alice", "User likes tea.")
    code = cli(["purge", "--user", "alice", "--ids", "--yes", "--path", str(directory)])
    assert code == 2 and "--ids names no memory" in capsys.readouterr().err
    with MemoryStore(directory, embeddings=fake()) as store:
        assert [m.text for m in store.active("user:alice")] == ["User likes tea."]


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_waits_for_running_reads_and_they_all_finish(tmp_path: Path) -> None:
    """A purge takes the gate alone: reads in flight finish first, new ones wait."""
    store = MemoryStore(tmp_path / "m", embeddings=fake())
    store.add_many("user:a", [f"User likes thing {i}." for i in range(50)])
    store.add("user:p", "Secret.")
    errors = Errors()
    stop = time.monotonic() + 5
    readers = [
        errors.run(lambda: [store.active("user:a") for _ in range(1000) if time.monotonic() < stop])
        for _ in range(4)
    ]
    store.purge("user:p")
    for t in readers:
        t.join(timeout=60)
    assert errors.seen == [] and store.active("user:p") == []
    store.close()


def test_a_purge_through_a_client_passed_in_never_opens_its_database_behind_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The store cannot close a client it was given: it rebuilds through it and
    leaves the file-level compaction for when the client is closed."""
    directory = tmp_path / "m"
    client = chromadb.PersistentClient(path=str(directory))
    store = MemoryStore(client=client, embeddings=fake())
    secret = store.add("user:a", "User's PIN is 4321.")
    kept = store.add("user:a", "User likes tea.")
    with caplog.at_level("WARNING", logger="langgraph_memory"):
        store.purge("user:a", [secret.id])
    assert "compact_directory" in caplog.text
    assert [m.id for m in store.active("user:a")] == [kept.id]
    with pytest.raises(CompactionError, match="open in this process"):
        compact_directory(directory)
    store.close()
    client.close()
    compact_directory(directory)
    assert quick_check(directory) == "ok"
    with MemoryStore(directory, embeddings=fake()) as again:
        assert [m.id for m in again.active("user:a")] == [kept.id]
