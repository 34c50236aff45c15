"""Scope locks across processes (store/engine/scope_locks.py): configured by one URL, real
PostgreSQL and Redis servers (tests/lock_servers.py), real processes on one `chroma run`
server (tests/scope_lock_worker.py). No mock of the lock's semantics."""

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
from lock_servers import LockServer, running_postgres, running_redis

from langgraph_memory import (
    InvalidArgumentError,
    InvalidTypeError,
    LockConfigError,
    MemoryStore,
    MemoryWriter,
    ScopeLockError,
)
from langgraph_memory.lifecycle.decay import forget_stale
from langgraph_memory.store import MissingCollectionError, internals
from langgraph_memory.store.engine.scope_locks import (
    LOCK_URL_ENV,
    RedisLocks,
    ScopeLocks,
    open_cross_process_locks,
)
from langgraph_memory.write import RulesModel

WORKER = Path(__file__).with_name("scope_lock_worker.py")
FACT = "User lives in Delhi."


def embedded(path: Path, **kw: object) -> MemoryStore:
    return MemoryStore(path, embeddings=DeterministicFakeEmbedding(size=8), **kw)  # type: ignore[arg-type]


# -- configuration --------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["mysql://db/x", "postgresql://", "redis", "http://127.0.0.1:6379"])
def test_a_bad_lock_url_says_what_to_pass(url: str, tmp_path: Path) -> None:
    with pytest.raises(LockConfigError, match=r"lock='postgresql://.*lock='redis://"):
        embedded(tmp_path / "s", lock=url)
    embedded(tmp_path / "s").close()  # the refused open left the directory free


def test_the_lock_url_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOCK_URL_ENV, "bogus://nowhere")
    with pytest.raises(LockConfigError, match="is not a lock URL"):
        embedded(tmp_path / "s")


def test_bad_lock_options_and_types_are_refused() -> None:
    with pytest.raises(LockConfigError, match="lock_timeout='-1'"):
        open_cross_process_locks("redis://127.0.0.1:1/0?lock_timeout=-1")
    with pytest.raises(LockConfigError, match="lease='x'"):
        open_cross_process_locks("redis://127.0.0.1:1/0?lease=x")
    with pytest.raises(InvalidTypeError, match="lock must be a URL"):
        open_cross_process_locks(5)  # type: ignore[arg-type]


def test_a_server_that_does_not_answer_is_a_config_error() -> None:
    pytest.importorskip("redis")
    with pytest.raises(LockConfigError, match="does not answer"):
        open_cross_process_locks("redis://127.0.0.1:1/0")


def test_the_default_lock_is_in_process_and_reentrant(tmp_path: Path) -> None:
    with embedded(tmp_path / "s") as store:
        lock = internals(store).scope_lock("user:a")
        entered = threading.Event()

        def other() -> None:
            with internals(store).scope_lock("user:a"):
                entered.set()

        with lock:
            store.add("user:a", "Likes tea.")  # re-entrant: the store's own hold works
            thread = threading.Thread(target=other)
            thread.start()
            assert not entered.wait(0.2)  # another thread queues
        thread.join(5)
        assert entered.is_set()


def test_in_process_says_this_process_is_the_only_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lock="in-process"`` (or the variable) is the in-process lock, chosen on purpose;
    anything else that is no lock URL is refused, naming the forms it takes."""
    with embedded(tmp_path / "a", lock="in-process") as store:
        store.add("user:a", "Likes tea.")
    assert open_cross_process_locks(" In-Process ") is None
    monkeypatch.setenv(LOCK_URL_ENV, "in-process")
    with embedded(tmp_path / "b") as store:
        store.add("user:a", "Likes tea.")
    monkeypatch.delenv(LOCK_URL_ENV)
    for bad in ("none", "off", "inprocess", ""):
        with pytest.raises(LockConfigError, match=r"lock='in-process' when this process is"):
            embedded(tmp_path / "c", lock=bad)
    with pytest.raises(InvalidTypeError, match=r"got bool: .*lock='in-process'"):
        embedded(tmp_path / "c", lock=False)
    with pytest.raises(LockConfigError, match=r"only one that writes .* queue="):
        embedded(tmp_path / "c", lock="in-process", queue="postgresql://app@db:5432/app")
    embedded(tmp_path / "c").close()  # the refused opens left the directory free


# -- the servers ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def postgres() -> Iterator[LockServer]:
    with running_postgres() as server:
        yield server


@pytest.fixture(scope="module")
def redis_server() -> Iterator[LockServer]:
    with running_redis() as server:
        yield server


@pytest.fixture(params=["postgres", "redis"])
def lock_url(request: pytest.FixtureRequest) -> str:
    server: LockServer = request.getfixturevalue(
        "postgres" if request.param == "postgres" else "redis_server"
    )
    return server.url


def two_sessions(url: str) -> tuple[ScopeLocks, ScopeLocks]:
    """Two holders as two processes would be: each its own connection."""
    a = open_cross_process_locks(f"{url}?lock_timeout=0.3&lease=2")
    b = open_cross_process_locks(f"{url}?lock_timeout=0.3&lease=2")
    return ScopeLocks(a), ScopeLocks(b)


def test_one_holder_at_a_time_per_scope(lock_url: str) -> None:
    a, b = two_sessions(lock_url)
    try:
        with a.get("user:a"), a.get("user:a"):  # re-entrant within a thread
            a.get("user:a").check()
            started = time.monotonic()
            with pytest.raises(ScopeLockError, match=r"not free within 0\.3 s"), b.get("user:a"):
                pass
            assert time.monotonic() - started >= 0.25
            with b.get("user:b"):  # another scope is free
                pass
        with b.get("user:a"):  # given back on the outermost exit
            pass
    finally:
        a.close()
        b.close()


def test_a_waiting_holder_gets_the_lock_when_it_is_released(lock_url: str) -> None:
    a = ScopeLocks(open_cross_process_locks(lock_url))
    b = ScopeLocks(open_cross_process_locks(f"{lock_url}?lock_timeout=10"))
    order: list[str] = []

    def wait_for_it() -> None:
        with b.get("user:w"):
            order.append("b")

    try:
        with a.get("user:w"):
            waiter = threading.Thread(target=wait_for_it)
            waiter.start()
            time.sleep(0.3)
            order.append("a done")
        waiter.join(10)
        assert order == ["a done", "b"]
    finally:
        a.close()
        b.close()


def test_postgres_lock_ids_are_stable_across_processes(postgres: LockServer) -> None:
    code = "from langgraph_memory.store.engine.scope_locks import lock_id; print(lock_id('user:a'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    from langgraph_memory.store.engine.scope_locks import lock_id

    assert int(out.stdout) == lock_id("user:a")


def test_a_lost_redis_lease_stops_the_write_before_it_is_applied(
    redis_server: LockServer, tmp_path: Path
) -> None:
    locks = open_cross_process_locks(redis_server.url)
    assert isinstance(locks, RedisLocks)
    with embedded(tmp_path / "s", lock=redis_server.url) as store:
        with internals(store).scope_lock("user:a"):
            locks.client.delete(RedisLocks.name("user:a"))  # the lease ran out, say
            with pytest.raises(ScopeLockError, match="was lost"):
                store.add("user:a", "Likes tea.")
        assert store.count("user:a") == 0
        store.add("user:a", "Likes tea.")  # a new hold: a new lease
        assert store.count("user:a") == 1
    locks.close()


def test_a_dropped_postgres_session_stops_the_write(postgres: LockServer, tmp_path: Path) -> None:
    import psycopg

    with embedded(tmp_path / "s", lock=postgres.url) as store:
        with internals(store).scope_lock("user:a"):
            with psycopg.connect(postgres.url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks "
                    "WHERE locktype = 'advisory' AND pid <> pg_backend_pid()"
                )
            with pytest.raises(ScopeLockError, match="session dropped"):
                store.add("user:a", "Likes tea.")
        assert store.count("user:a") == 0
        store.add("user:a", "Likes tea.")
        assert store.count("user:a") == 1


# -- real processes on one `chroma run` server -------------------------------------------------


def worker(
    mode: str, lock: str, server: ChromaServer, db: str, scope: str, signal_file: Path
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(WORKER),
            mode,
            lock,
            server.host,
            str(server.port),
            db,
            scope,
            str(signal_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def server_store(server: ChromaServer, db: str, lock: str, *, new: bool = True) -> MemoryStore:
    """A store on database ``db`` of the server (made when ``new``), on a client of its own."""
    return server.store(db, new=new, lock=lock)


@pytest.mark.server
def test_a_killed_holder_never_blocks_the_scope_past_its_lease(
    lock_url: str, chroma_server: ChromaServer, tmp_path: Path
) -> None:
    db = f"db{uuid.uuid4().hex}"
    store = server_store(chroma_server, db, f"{lock_url}?lock_timeout=0.5")
    ready = tmp_path / "held"
    holder = worker("hold", f"{lock_url}?lease=1", chroma_server, db, "user:a", ready)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert holder.poll() is None, holder.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with pytest.raises(ScopeLockError, match="another process is writing it"):
            store.add("user:a", "Likes tea.")
        assert store.count("user:a") == 0
        store.add("user:b", "Likes coffee.")  # other scopes are free
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        killed = time.monotonic()
        while True:
            try:
                store.add("user:a", "Likes tea.")
                break
            except ScopeLockError:
                assert time.monotonic() - killed < 5, "the scope stayed blocked"
        assert time.monotonic() - killed < 2.5  # Postgres: at once; Redis: within the 1 s lease
        assert store.count("user:a") == 1
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.communicate()
        store.close()


@pytest.mark.server
def test_processes_writing_one_fact_at_once_store_it_once(
    lock_url: str, chroma_server: ChromaServer, tmp_path: Path
) -> None:
    db = f"db{uuid.uuid4().hex}"
    scopes = [f"user:p{i}" for i in range(6)]
    go = tmp_path / "go"
    store = server_store(chroma_server, db, lock_url)  # makes the database
    workers = [worker("write", lock_url, chroma_server, db, ",".join(scopes), go) for _ in range(3)]
    time.sleep(3)  # let them import and open the store
    go.write_text("go")
    for proc in workers:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.split()[-1] == str(len(scopes))
    try:
        for scope in scopes:
            facts = [m.text for m in store.active(scope, episodes=False)]
            assert facts.count(FACT) == 1, (scope, facts)
    finally:
        store.close()


def test_stores_on_one_location_share_one_lock_configuration(
    redis_server: LockServer, tmp_path: Path
) -> None:
    with embedded(tmp_path / "s", lock=redis_server.url) as store:
        with pytest.raises(InvalidArgumentError, match="pass the same lock="):
            embedded(tmp_path / "s", lock=f"{redis_server.url}?lock_timeout=1")
        with embedded(tmp_path / "s") as same:  # none given: the location's own
            assert internals(same).scope_lock("user:a") is internals(store).scope_lock("user:a")


@pytest.mark.server
def test_other_databases_never_wait_for_each_other(
    lock_url: str, chroma_server: ChromaServer
) -> None:
    first = server_store(chroma_server, f"db{uuid.uuid4().hex}", lock_url)
    second = server_store(chroma_server, f"db{uuid.uuid4().hex}", f"{lock_url}?lock_timeout=0.3")
    try:
        with internals(first).scope_lock("user:a"):
            second.add("user:a", "Likes tea.")  # the same scope key, other data
        assert second.count("user:a") == 1
    finally:
        first.close()
        second.close()


WRITES = {
    "add": lambda s: s.add("user:a", "Likes tea."),
    "basestore put": lambda s: s.put(("user", "a"), "k", {"text": "Likes tea."}),
    "write_turn": lambda s: MemoryWriter(s, RulesModel()).write_turn(
        "user:a", [("user", "I live in Delhi.")]
    ),
    "lifecycle (forget_stale)": lambda s: forget_stale(s, "user:a"),
    "purge": lambda s: s.purge("user:a"),
    "import": lambda s: s.import_scope(_an_export()),
}


def _an_export() -> dict[str, object]:
    """An export of ``user:a`` holding one memory (made once, on an embedded store)."""
    import tempfile

    if not _EXPORT:
        with embedded(Path(tempfile.mkdtemp()) / "s") as source:
            source.add("user:a", "Likes tea.")
            _EXPORT.update(source.export("user:a"))
    return dict(_EXPORT)


_EXPORT: dict[str, object] = {}


@pytest.mark.server
@pytest.mark.parametrize("write", list(WRITES))
def test_every_write_path_waits_for_another_processs_hold(
    write: str, postgres: LockServer, chroma_server: ChromaServer
) -> None:
    """Two stores on two clients of one database are what two processes are: two engines,
    two lock sessions."""
    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, postgres.url)
    second = server_store(chroma_server, db, f"{postgres.url}?lock_timeout=0.3", new=False)
    try:
        with (
            internals(first).scope_lock("user:a"),
            pytest.raises(ScopeLockError, match="another process is writing it"),
        ):
            WRITES[write](second)
        assert first.count("user:a") == 0  # nothing written unlocked
        WRITES[write](second)  # free again
    finally:
        first.close()
        second.close()


def test_a_redis_lease_is_renewed_while_held(redis_server: LockServer) -> None:
    a = ScopeLocks(open_cross_process_locks(f"{redis_server.url}?lease=0.3"))
    b = ScopeLocks(open_cross_process_locks(f"{redis_server.url}?lock_timeout=0.2"))
    try:
        with a.get("user:r"):
            time.sleep(1.0)  # three leases long
            a.get("user:r").check()  # still ours
            with pytest.raises(ScopeLockError, match="not free"), b.get("user:r"):
                pass
    finally:
        a.close()
        b.close()


def _hold_then_report(locks: ScopeLocks, hold_s: float, result: Path) -> None:
    """In a forked child: take user:f's lock and hold it ``hold_s`` s; write what happened."""
    try:
        with locks.get("user:f"):
            result.write_text("held")
            time.sleep(hold_s)
    except ScopeLockError:
        result.write_text("refused")


def test_forked_children_never_share_a_postgres_session(
    postgres: LockServer, tmp_path: Path
) -> None:
    """A store opened before a fork (gunicorn --preload): each child locks on a session
    of its own, or two children would both hold one scope."""
    import multiprocessing

    locks = ScopeLocks(open_cross_process_locks(f"{postgres.url}?lock_timeout=0.3"))
    fork = multiprocessing.get_context("fork")
    first = fork.Process(target=_hold_then_report, args=(locks, 2.0, tmp_path / "first"))
    first.start()
    deadline = time.monotonic() + 10
    while not (tmp_path / "first").exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    second = fork.Process(target=_hold_then_report, args=(locks, 0.0, tmp_path / "second"))
    second.start()
    second.join(10)
    first.join(10)
    assert (tmp_path / "first").read_text() == "held"
    assert (tmp_path / "second").read_text() == "refused"
    locks.close()


@pytest.mark.server
def test_a_deferred_turn_waits_out_another_processs_hold_and_is_written_once(
    postgres: LockServer, chroma_server: ChromaServer, tmp_path: Path
) -> None:
    """A scope held past lock_timeout, again and again (more tries than max_attempts),
    is no failure of the turn: it is written when the scope frees. A writer closed
    while the scope is still held keeps the turn in its journal, neither written nor
    recorded as failed."""
    from langgraph_memory import BackgroundWriter

    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, postgres.url)
    second = server_store(chroma_server, db, f"{postgres.url}?lock_timeout=0.2", new=False)
    writer = MemoryWriter(second, model=RulesModel())
    try:
        hold = internals(first).scope_lock("user:a")
        hold.__enter__()
        try:
            bg = BackgroundWriter(
                writer, journal=tmp_path / "j.jsonl", max_attempts=2, backoff_s=0.05
            )
            bg.submit("user:a", [("user", "I live in Delhi.")])
            deadline = time.monotonic() + 30
            while bg.stats.lock_waits < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert bg.stats.lock_waits >= 4 and bg.stats.failed == 0, bg.stats
        finally:
            hold.__exit__(None, None, None)
        assert bg.flush(timeout=30)
        assert (bg.stats.applied, bg.stats.failed) == (1, 0)
        assert [m.text for m in second.active("user:a", episodes=False)] == [FACT]
        bg.close()
        # Closed while the scope is held: the turn stays in the journal, unwritten.
        with internals(first).scope_lock("user:b"):
            bg = BackgroundWriter(
                writer, journal=tmp_path / "k.jsonl", max_attempts=2, backoff_s=0.05
            )
            bg.submit("user:b", [("user", "I live in Pune.")])
            while bg.stats.lock_waits < 1 and time.monotonic() < deadline + 30:
                time.sleep(0.05)
            assert not bg.close(timeout=30)
            assert (bg.stats.failed, bg.stats.unrecorded) == (0, 1), bg.stats
        assert second.count("user:b") == 0 and second.decisions("user:b") == []
        replay = BackgroundWriter(writer, journal=tmp_path / "k.jsonl")
        assert replay.flush(timeout=30) and replay.stats.applied == 1
        replay.close()
        assert [m.text for m in second.active("user:b", episodes=False)] == ["User lives in Pune."]
    finally:
        first.close()
        second.close()


@pytest.mark.server
def test_a_thread_waits_for_another_thread_of_its_process_no_longer_than_the_bound(
    postgres: LockServer, chroma_server: ChromaServer
) -> None:
    """With a cross-process lock, the process's own part is bounded by lock_timeout too:
    a write queued behind a long hold of this process fails clearly, writing nothing."""
    store = server_store(chroma_server, f"db{uuid.uuid4().hex}", f"{postgres.url}?lock_timeout=0.3")
    try:
        outcome: list[BaseException | None] = []

        def write() -> None:
            try:
                store.add("user:a", "Likes tea.")
                outcome.append(None)
            except BaseException as exc:
                outcome.append(exc)

        with internals(store).scope_lock("user:a"):
            started = time.monotonic()
            thread = threading.Thread(target=write)
            thread.start()
            thread.join(10)
            waited = time.monotonic() - started
        assert isinstance(outcome[0], ScopeLockError), outcome
        assert "another thread of this process" in str(outcome[0])
        assert 0.25 < waited < 3, waited
        assert store.count("user:a") == 0
        store.add("user:a", "Likes tea.")  # free again once the hold ends
        assert store.count("user:a") == 1
    finally:
        store.close()


@pytest.mark.server
def test_new_scopes_made_by_another_process_during_purges_are_kept(
    postgres: LockServer, chroma_server: ChromaServer
) -> None:
    """A whole-scope purge rebuilds the registry every scope is listed in: a scope
    another process makes meanwhile must neither be lost with the old copy nor fail the
    purge (both hold the lock of what scopes share)."""
    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, postgres.url)
    second = server_store(chroma_server, db, postgres.url, new=False)
    made: list[str] = []
    stop = threading.Event()

    def make_scopes() -> None:
        while not stop.is_set():
            key = f"user:new{len(made)}"
            second.add(key, "Likes coffee.")
            made.append(key)

    try:
        for i in range(3):
            first.add(f"user:gone{i}", "Likes tea.")
        maker = threading.Thread(target=make_scopes)
        maker.start()
        try:
            for i in range(3):
                time.sleep(0.2)
                first.purge(f"user:gone{i}")
        finally:
            stop.set()
            maker.join(60)
        listed = {s.key for s in first.scopes()}
        assert len(made) >= 3 and set(made) <= listed, set(made) - listed
        assert not any(key.startswith("user:gone") for key in listed)
    finally:
        first.close()
        second.close()


@pytest.mark.server
def test_bucket_mates_written_by_another_process_during_purges_are_kept(
    redis_server: LockServer, chroma_server: ChromaServer
) -> None:
    """A purge of a person in a bucket rebuilds the bucket's collections, which the
    other people of the bucket share: what another process writes for them (new people
    too) meanwhile must not be lost with the old copy (both hold the bucket's lock)."""
    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, redis_server.url)
    second = server_store(chroma_server, db, redis_server.url, new=False)
    written: list[tuple[str, str]] = []
    failed: list[BaseException] = []
    stop = threading.Event()

    def write_mates() -> None:
        n = 0
        while not stop.is_set():
            key = f"user:mate{n % 4}" if n % 3 else f"user:new{n}"
            try:
                written.append((key, second.add(key, f"Mate note {n} about the garden.").id))
            except Exception as exc:  # without the bucket's lock: a collection gone midway
                failed.append(exc)
            n += 1

    try:
        for i in range(4):
            first.add_many(f"user:gone{i}", ["Likes tea.", "Owns a red bike."])
        for m in range(4):  # records enough that each rebuild's copy takes a while
            second.add_many(f"user:mate{m}", [f"Keeps hive {h} by the wall." for h in range(60)])
        writer = threading.Thread(target=write_mates)
        writer.start()
        try:
            deadline = time.monotonic() + 30
            while not written and not failed and time.monotonic() < deadline:
                time.sleep(0.01)  # the writer runs before the first purge begins
            before = len(written)
            for i in range(4):
                gone = first.active(f"user:gone{i}")
                first.purge(f"user:gone{i}", [gone[0].id])  # some of a person
                first.purge(f"user:gone{i}")  # the whole person
            during = len(written) - before
            # Writes wait for the purges' bucket locks: how many land between them
            # depends on the machine (3 in all, once, in a CI run); the test needs
            # some during the purges, and checks every one.
        finally:
            stop.set()
            writer.join(60)
        assert failed == [], [repr(e) for e in failed]
        assert before >= 1 and during >= 1, (before, during)
        for key, memory_id in written:
            assert memory_id in {m.id for m in first.active(key)}, (key, memory_id)
        assert not any(s.key.startswith("user:gone") for s in first.scopes())
    finally:
        first.close()
        second.close()


@pytest.mark.server
def test_a_write_behind_a_run_of_purges_in_another_process_is_written(
    redis_server: LockServer, chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write reads the registry (for its bucket) before it waits for the bucket's lock;
    a whole-scope purge in another process rebuilds the registry meanwhile, so the write
    finds its handle stale once the purge ends, and again behind each next purge. Six in
    a row (a batch of erasure requests: a CI run met four) must delay it, never fail it;
    a collection that is gone with the registry unchanged still fails after a few tries."""
    from langgraph_memory.store.chroma import layout
    from langgraph_memory.store.engine.core import FRESH_TRIES

    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, redis_server.url)
    second = server_store(chroma_server, db, redis_server.url, new=False)
    reads = layout.registry_entry
    writer = threading.get_ident()
    purges: list[str] = []

    def purge_first(registry: object, scope: object) -> object:
        # The writer's registry read, right before it would wait for the bucket's
        # lock: a purge by the other process lands there, as it does on a busy service.
        if threading.get_ident() == writer and len(purges) < 6:
            gone = f"user:gone{len(purges)}"
            purges.append(gone)
            purger = threading.Thread(target=first.purge, args=(gone,))
            purger.start()
            purger.join(60)
        return reads(registry, scope)  # type: ignore[arg-type]

    try:
        for i in range(6):
            first.add(f"user:gone{i}", "Likes tea.")
        second.add("user:mate", "Keeps bees.")
        monkeypatch.setattr(layout, "registry_entry", purge_first)
        kept = second.add("user:mate", "Keeps a hive by the wall.")
        monkeypatch.undo()
        assert len(purges) == 6  # each run met a new registry
        assert kept.id in {m.id for m in first.active("user:mate")}
        assert not any(s.key.startswith("user:gone") for s in first.scopes())

        # A collection gone for good (deleted behind the store's back): the registry
        # stays, so the write fails after FRESH_TRIES runs, having written nothing.
        runs: list[int] = []

        def gone_for_good(registry: object, scope: object) -> object:
            runs.append(1)
            raise MissingCollectionError("a collection read: gone")

        monkeypatch.setattr(layout, "registry_entry", gone_for_good)
        with pytest.raises(MissingCollectionError):
            second.add("user:mate", "Keeps a second hive.")
        monkeypatch.undo()
        assert len(runs) == FRESH_TRIES
        assert "Keeps a second hive." not in {m.text for m in first.active("user:mate")}
    finally:
        first.close()
        second.close()


@pytest.mark.server
def test_a_first_turn_racing_another_process_making_its_scope_is_written(
    postgres: LockServer, chroma_server: ChromaServer
) -> None:
    """The scope did not exist when the turn began; another process made it while the
    turn waited for the lock. That is no purge: the turn is written (found by the
    multi-process benchmark: it was dropped as if the scope had been purged)."""
    import psycopg

    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, postgres.url)
    second = server_store(chroma_server, db, postgres.url, new=False)
    try:
        with internals(first).scope_lock("user:new"), psycopg.connect(postgres.url) as admin:
            turn = threading.Thread(
                target=MemoryWriter(second, RulesModel()).write_turn,
                args=("user:new", [("user", "I live in Delhi.")]),
                kwargs={"turn_id": "racer"},
            )
            turn.start()  # reads the scope's generation (none yet), then waits for the lock
            deadline = time.monotonic() + 30
            while not admin.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).fetchone()[0]:  # type: ignore[index]
                assert time.monotonic() < deadline
                time.sleep(0.01)
            first.add("user:new", "Likes tea.")  # the other process makes the scope
        turn.join(30)
        assert [d.op.value for d in second.decisions("user:new", turn_id="racer")] == ["ADD"]
        assert FACT in [m.text for m in second.active("user:new", episodes=False)]
    finally:
        first.close()
        second.close()


@pytest.mark.server
def test_a_turn_older_than_the_version_it_updates_is_applied_in_lock_order(
    postgres: LockServer, chroma_server: ChromaServer
) -> None:
    """The turn's time was taken before it waited for the lock, and another process
    made a newer version meanwhile: the update applies when that version opened (found
    by the multi-process benchmark: it failed, a version cannot close before it opens)."""
    db = f"db{uuid.uuid4().hex}"
    first = server_store(chroma_server, db, postgres.url)
    second = server_store(chroma_server, db, postgres.url, new=False)
    MemoryWriter(first, RulesModel()).write_turn("user:w", [("user", "I live in Delhi.")])
    try:
        with internals(first).scope_lock("user:w"):
            turn = threading.Thread(
                target=MemoryWriter(second, RulesModel()).write_turn,
                args=("user:w", [("user", "I moved to Pune.")]),
                kwargs={"turn_id": "waiter"},
            )
            turn.start()  # its time is now; it waits for the lock
            time.sleep(0.3)
            MemoryWriter(first, RulesModel()).write_turn("user:w", [("user", "I moved to Goa.")])
        turn.join(30)
        [decided] = second.decisions("user:w", turn_id="waiter")
        assert decided.status.value == "applied", decided.error
        [live] = second.active("user:w", episodes=False)
        assert live.text == "User lives in Pune."  # the lock's order: Goa, then Pune
        chain = [m.text for m in second.history("user:w", live.id)]
        assert chain == ["User lives in Delhi.", "User lives in Goa.", "User lives in Pune."]
    finally:
        first.close()
        second.close()


# -- the warning of a server store with no lock -------------------------------------------

#: Opens stores as an app would and marks each step on stderr, where an app with logging
#: unconfigured gets the kit's warnings (logging's last-resort handler). argv: the
#: server's host and port, a database on it, a Postgres URL, a directory, the steps.
OPENS = """
import sys
import chromadb
from chromadb.config import Settings
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore

host, port, db, pg, directory = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]

def server(database=db):
    return chromadb.HttpClient(
        host=host, port=port, database=database, settings=Settings(anonymized_telemetry=False)
    )

def store(step):
    fake = DeterministicFakeEmbedding(size=8)
    if step == "embedded":
        return MemoryStore(directory, embeddings=fake)
    if step == "in memory":
        return MemoryStore(client=chromadb.EphemeralClient(), embeddings=fake)
    options = {
        "lock=URL": {"lock": pg},
        "queue=URL": {"queue": pg},
        "in-process": {"lock": "in-process"},
    }.get(step, {})
    database = "default_database" if step == "no lock, default database" else db
    return MemoryStore(client=server(database), embeddings=fake, **options)

for step in sys.argv[6:]:
    print(f"STEP {step}", file=sys.stderr, flush=True)
    store(step).close()
print("STEP end", file=sys.stderr, flush=True)
"""

WARNING = "has no cross-process lock"


def warnings_by_step(
    server: ChromaServer, pg: str, tmp_path: Path, steps: list[str], **env: str
) -> list[tuple[str, list[str]]]:
    """Run ``OPENS`` in a process of its own: each step, and the warning lines it logged."""
    db = f"db{uuid.uuid4().hex}"
    server.client(db)  # makes the database
    args = [server.host, str(server.port), db, pg, str(tmp_path / "embedded"), *steps]
    done = subprocess.run(
        [sys.executable, "-c", OPENS, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("LANGGRAPH_MEMORY_")} | env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said: list[tuple[str, list[str]]] = []
    for line in done.stderr.splitlines():
        if line.startswith("STEP "):
            said.append((line.removeprefix("STEP "), []))
        elif WARNING in line:
            said[-1][1].append(line)
    assert [step for step, _ in said] == [*steps, "end"], done.stderr[-3000:]
    return said


@pytest.mark.server
def test_a_server_store_with_no_lock_says_so_once(
    chroma_server: ChromaServer, postgres: LockServer, tmp_path: Path
) -> None:
    """Once per process and server: a second store there (another client, another
    database) says nothing more; a store in this process, or with a lock, nothing."""
    steps = ["embedded", "in memory", "lock=URL", "queue=URL", "no lock", "no lock"]
    said = warnings_by_step(
        chroma_server, postgres.url, tmp_path, [*steps, "no lock, default database"]
    )
    assert [len(lines) for _, lines in said] == [0, 0, 0, 0, 1, 0, 0, 0], said
    warning = said[4][1][0]
    where = f"http://{chroma_server.host}:{chroma_server.port}"
    assert f"the store on the Chroma server at {where} has no cross-process lock" in warning
    # what it risks, how to set one, how to silence it
    assert "can store a fact twice or lose an update" in warning
    assert "lock='postgresql://...' or 'redis://...'" in warning and LOCK_URL_ENV in warning
    assert "queue=" in warning and "LANGGRAPH_MEMORY_QUEUE_URL" in warning
    assert "lock='in-process' (or LANGGRAPH_MEMORY_LOCK_URL=in-process) silences" in warning


@pytest.mark.server
@pytest.mark.parametrize("how", ["lock=", "environment"])
def test_in_process_silences_the_warning(
    how: str, chroma_server: ChromaServer, postgres: LockServer, tmp_path: Path
) -> None:
    """Said once, for the server: later stores of the process there say nothing either."""
    if how == "lock=":
        said = warnings_by_step(chroma_server, postgres.url, tmp_path, ["in-process", "no lock"])
    else:
        env = {LOCK_URL_ENV: "in-process"}
        said = warnings_by_step(chroma_server, postgres.url, tmp_path, ["no lock"], **env)
    assert all(lines == [] for _, lines in said), said
