"""Deferred turns on a queue shared by processes (write/shared_queue.py): a Postgres
table on a real server (tests/lock_servers.py), stores on one real `chroma run`, real
processes killed with SIGKILL (tests/shared_queue_worker.py). No mock of the queue."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ChromaServer
from langchain_core.embeddings import DeterministicFakeEmbedding
from lock_servers import LockServer, running_postgres

from langgraph_memory import (
    BackgroundWriter,
    InvalidArgumentError,
    MemoryStore,
    MemoryWriter,
    QueueConfigError,
    QueueFullError,
    StoreFormatError,
)
from langgraph_memory.records import DecisionOp
from langgraph_memory.store import internals
from langgraph_memory.store.engine.shared_queue import QUEUE_URL_ENV, SCHEMA, VERSION_TABLE
from langgraph_memory.write import RulesModel

WORKER = Path(__file__).with_name("shared_queue_worker.py")
DELHI, PUNE = "User lives in Delhi.", "User lives in Pune."

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def postgres() -> Iterator[LockServer]:
    with running_postgres() as server:
        yield server


def server_store(server: ChromaServer, db: str, queue: str, *, new: bool = False) -> MemoryStore:
    """A store on database ``db`` of the server (made when ``new``), its deferred turns
    on the shared queue ``queue`` (its scope locks there too), on a client of its own."""
    return server.store(db, new=new, queue=queue)


@pytest.fixture
def stores(chroma_server: ChromaServer, postgres: LockServer) -> Iterator[list[MemoryStore]]:
    """Two stores on one new database of the server, as two app processes hold them."""
    db = f"db{uuid.uuid4().hex}"
    made = [server_store(chroma_server, db, postgres.url, new=True)]
    made.append(server_store(chroma_server, db, postgres.url))
    try:
        yield made
    finally:
        for store in made:
            store.close()


def facts(store: MemoryStore, scope: str) -> list[str]:
    return sorted(m.text for m in store.active(scope, episodes=False))


def drained(bg: BackgroundWriter, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while bg.pending:
        assert time.monotonic() < deadline, f"the shared queue kept {bg.pending} turns"
        time.sleep(0.05)


# -- configuration --------------------------------------------------------------------------


def test_a_bad_queue_url_says_what_to_pass(chroma_server: ChromaServer) -> None:
    with pytest.raises(QueueConfigError, match=r"queue='postgresql://"):
        server_store(chroma_server, f"db{uuid.uuid4().hex}", "redis://127.0.0.1/0", new=True)


def test_an_embedded_store_takes_no_shared_queue(postgres: LockServer, tmp_path: Path) -> None:
    with pytest.raises(QueueConfigError, match="this store is embedded"):
        MemoryStore(
            tmp_path / "s", embeddings=DeterministicFakeEmbedding(size=8), queue=postgres.url
        )
    MemoryStore(tmp_path / "s", embeddings=DeterministicFakeEmbedding(size=8)).close()  # free


def test_the_queues_postgres_is_the_lock_unless_one_is_given(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    assert internals(stores[0]).cross_process_lock == (f"Postgres advisory locks at {postgres.url}")


def test_the_queue_replaces_the_journal_never_both(
    stores: list[MemoryStore], tmp_path: Path
) -> None:
    with pytest.raises(InvalidArgumentError, match="replaces the journal"):
        BackgroundWriter(MemoryWriter(stores[0], RulesModel()), journal=tmp_path / "j")


def test_the_queue_url_comes_from_the_environment(
    chroma_server: ChromaServer, postgres: LockServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(QUEUE_URL_ENV, postgres.url)
    store = MemoryStore(
        client=chroma_server.client(f"db{uuid.uuid4().hex}"),
        embeddings=DeterministicFakeEmbedding(size=8),
    )
    try:
        with BackgroundWriter(MemoryWriter(store, RulesModel())) as bg:
            assert "queue=SharedQueue('postgresql://" in repr(bg)
            bg.submit("user:env", [("user", "I live in Delhi.")])
            assert bg.flush(timeout=30)
        assert facts(store, "user:env") == [DELHI]
    finally:
        store.close()


def test_a_queue_table_of_a_newer_release_is_refused(
    stores: list[MemoryStore], postgres: LockServer, chroma_server: ChromaServer
) -> None:
    import psycopg

    assert stores  # their queue made the table
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute(f"INSERT INTO {VERSION_TABLE} VALUES (%s)", (SCHEMA + 1,))
        try:
            with pytest.raises(StoreFormatError, match="newer release"):
                server_store(chroma_server, f"db{uuid.uuid4().hex}", postgres.url, new=True)
        finally:
            conn.execute(f"DELETE FROM {VERSION_TABLE} WHERE version > %s", (SCHEMA,))


# -- one memory, two writers -------------------------------------------------------------------


def test_turns_submitted_in_one_process_are_written_in_order_by_either(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    one = BackgroundWriter(MemoryWriter(stores[0], RulesModel()))
    two = BackgroundWriter(MemoryWriter(stores[1], RulesModel()), workers=3)
    try:
        scopes = [f"user:o{i}" for i in range(8)]
        for key in scopes:
            one.submit(key, [("user", "I live in Delhi.")], turn_id=f"{key}/0")
            one.submit(key, [("user", "I moved to Pune.")], turn_id=f"{key}/1")
        assert one.flush(timeout=60)
        for key in scopes:
            assert facts(stores[1], key) == [PUNE], key
            ops = [d.op for d in stores[1].decisions(key) if d.op is not DecisionOp.NOOP]
            assert ops == [DecisionOp.ADD, DecisionOp.UPDATE], (key, ops)  # Delhi, then Pune
        done = one.stats.applied + two.stats.applied
        assert done == 16 and one.stats.failed == two.stats.failed == 0
        assert two.stats.applied > 0, "the second writer took part"
    finally:
        one.close()
        two.close()


def test_wait_sees_a_turn_another_process_accepted(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    """Read your writes behind a load balancer: the turn went to another process."""
    other = BackgroundWriter(MemoryWriter(stores[0], RulesModel()))
    here = BackgroundWriter(MemoryWriter(stores[1], RulesModel()))
    try:
        with internals(stores[1]).scope_lock("user:w"):  # nobody can write it yet
            other.submit("user:w", [("user", "I live in Delhi.")])
            assert not here.wait("user:w", timeout=0.3)
        assert here.wait("user:w", timeout=30)
        assert facts(stores[1], "user:w") == [DELHI]
        assert here.wait("user:nothing", timeout=0)
    finally:
        other.close()
        here.close()


def test_a_purge_in_any_process_deletes_the_scopes_queued_turns(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    """stores[1] runs no writer (the CLI's purge, say): its store owns the queue."""
    bg = BackgroundWriter(MemoryWriter(stores[0], RulesModel()))
    try:
        with internals(stores[1]).scope_lock("user:gone"):  # queued, not written
            bg.submit("user:gone", [("user", "My PIN is 1234 and I live in Delhi.")], turn_id="g0")
            exported = stores[1].export("user:gone")
            assert [t["id"] for t in exported["pending_turns"]] == ["g0"]
            stores[1].purge("user:gone")
            assert stores[1].export("user:gone")["pending_turns"] == []
        bg.submit("user:kept", [("user", "I live in Pune.")], turn_id="k0")
        assert bg.flush(timeout=30) is False or bg.pending == 0
        assert bg.wait("user:kept", timeout=30)
        assert stores[0].count("user:gone") == 0 and stores[0].decisions("user:gone") == []
        assert facts(stores[0], "user:kept") == [PUNE]
    finally:
        bg.close()


def test_max_pending_bounds_the_tables_turns_of_the_store(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    bg = BackgroundWriter(MemoryWriter(stores[0], RulesModel()), max_pending=2, on_full="raise")
    try:
        with internals(stores[1]).scope_lock("user:full"):
            bg.submit("user:full", [("user", "I live in Delhi.")])
            bg.submit("user:full", [("user", "I moved to Pune.")])
            with pytest.raises(QueueFullError, match="max_pending"):
                bg.submit("user:full", [("user", "I'm vegan.")])
        assert bg.flush(timeout=30)
        with internals(stores[1]).scope_lock("user:dup"):
            bg.submit("user:dup", [("user", "I'm vegan.")], turn_id="same")
            with pytest.raises(InvalidArgumentError, match="already queued"):
                bg.submit("user:dup", [("user", "I'm vegan.")], turn_id="same")
        assert bg.flush(timeout=30) and facts(stores[0], "user:dup") == ["User is vegan."]
    finally:
        bg.close()


def test_a_closed_writer_leaves_its_queued_turns_to_the_others(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    first = BackgroundWriter(MemoryWriter(stores[0], RulesModel()))
    with internals(stores[1]).scope_lock("user:c"):
        first.submit("user:c", [("user", "I live in Delhi.")])
        assert not first.close(timeout=0.3)  # not written: the scope is held
    assert stores[0].count("user:c") == 0
    second = BackgroundWriter(MemoryWriter(stores[1], RulesModel()))
    drained(second)
    second.close()
    assert facts(stores[0], "user:c") == [DELHI]


# -- a process killed with turns queued and claims in flight ----------------------------------


def test_a_killed_processs_turns_are_written_once_by_another(
    chroma_server: ChromaServer, postgres: LockServer, tmp_path: Path
) -> None:
    db = f"db{uuid.uuid4().hex}"
    store = server_store(chroma_server, db, postgres.url, new=True)
    scopes = [f"user:k{i}" for i in range(6)]
    ready = tmp_path / "ready"
    proc = subprocess.Popen(
        [
            sys.executable,
            str(WORKER),
            "submit",
            postgres.url,
            chroma_server.host,
            str(chroma_server.port),
            db,
            ",".join(scopes),
            str(ready),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.6)  # its workers are inside turns now
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        survivor = BackgroundWriter(MemoryWriter(store, RulesModel()))
        drained(survivor)
        survivor.close()
        for key in scopes:
            assert facts(store, key) == [PUNE], key  # no copy, no lost turn, in order
            for turn in ("0", "1"):
                assert store.decisions(key, turn_id=f"{key}/{turn}"), f"{key}/{turn} lost"
            applied = [d.op for d in store.decisions(key) if d.op is not DecisionOp.NOOP]
            # A kill between a fact's store write and its log entry (milliseconds, see
            # write/background.py) leaves Delhi held and unlogged: its replay is a NOOP.
            assert applied in ([DecisionOp.ADD, DecisionOp.UPDATE], [DecisionOp.UPDATE]), (
                key,
                applied,
            )
        assert survivor.stats.applied > 0, "the survivor wrote what the killed one left"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        store.close()


def test_workers_of_two_writers_never_write_one_scope_at_once(
    stores: list[MemoryStore], postgres: LockServer
) -> None:
    """Many turns restating one fact, on many workers: one memory per scope."""
    writers = [BackgroundWriter(MemoryWriter(s, RulesModel()), workers=3) for s in stores]
    said = ["I live in Delhi.", "I'm based in Delhi.", "I live in Delhi."]
    try:
        threads = [
            threading.Thread(
                target=lambda w=w: [
                    w.submit(f"user:s{i}", [("user", text)]) for i in range(5) for text in said
                ]
            )
            for w in writers
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for w in writers:
            assert w.flush(timeout=60)
        for i in range(5):
            assert facts(stores[0], f"user:s{i}") == [DELHI]
    finally:
        for w in writers:
            w.close()


def test_a_row_this_release_cannot_read_holds_its_scope_not_the_workers(
    stores: list[MemoryStore], postgres: LockServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A turn a newer release queued (record version 99) is never read nor dropped: its
    scope waits, said in the log, and the workers go on with the other scopes."""
    import psycopg
    from psycopg.types.json import Jsonb

    from langgraph_memory.store.engine.shared_queue import TABLE

    record = {"t": "turn", "v": 99, "id": "future", "scope": "user:future", "messages": []}
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {TABLE} (data_name, scope, turn_id, record) VALUES (%s, %s, %s, %s)",
            (internals(stores[0]).data_name, "user:future", "future", Jsonb(record)),
        )
    bg = BackgroundWriter(MemoryWriter(stores[0], RulesModel()), workers=1)
    try:
        bg.submit("user:now", [("user", "I live in Delhi.")])
        assert bg.wait("user:now", timeout=30)
        assert facts(stores[0], "user:now") == [DELHI]
        assert [t["id"] for t in stores[0].export("user:future")["pending_turns"]] == ["future"]
        assert "cannot be read" in caplog.text
    finally:
        bg.close(timeout=5)
        stores[0].purge("user:future")  # the row goes with its scope
    assert stores[0].export("user:future")["pending_turns"] == []


def test_the_queue_serves_stores_whose_lock_is_a_redis_lease(
    chroma_server: ChromaServer, postgres: LockServer
) -> None:
    """``lock=redis://...`` beside ``queue=postgresql://...``: the workers claim under the
    store's lock, whichever it is; two writers still apply each scope in order."""
    from lock_servers import running_redis

    with running_redis() as redis:
        db = f"db{uuid.uuid4().hex}"
        made = [
            chroma_server.store(db, new=i == 0, lock=redis.url, queue=postgres.url)
            for i in range(2)
        ]
        assert internals(made[0]).cross_process_lock == f"a Redis lease at {redis.url}"
        writers = [BackgroundWriter(MemoryWriter(s, RulesModel())) for s in made]
        try:
            scopes = [f"user:r{i}" for i in range(4)]
            for key in scopes:
                writers[0].submit(key, [("user", "I live in Delhi.")])
                writers[1].submit(key, [("user", "I moved to Pune.")])
            assert all(w.flush(timeout=60) for w in writers)
            for key in scopes:
                assert facts(made[1], key) == [PUNE], key
                ops = [d.op for d in made[1].decisions(key) if d.op is not DecisionOp.NOOP]
                assert ops == [DecisionOp.ADD, DecisionOp.UPDATE], (key, ops)
        finally:
            for w in writers:
                w.close()
            for s in made:
                s.close()
