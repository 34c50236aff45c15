"""A purge killed halfway: its child never writes the directory without the lock,
and no step of a rebuild loses a record.

A purge of an embedded store rebuilds and compacts in child processes (see
store/chroma/compaction.py). When the app that purges is SIGKILLed (the OOM killer, a
restart), its child runs on; it holds the directory's lock itself, so the app
started again waits for the child (bounded; past the bound it is refused, with a
message that says why), and then finds every record it kept and none it purged.
The rebuild itself may be killed at any step (a service manager kills every
process of the app): the crash tests stop it at each one through a real Chroma
client that raises there, and the recovery brings every record back exactly.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import PERTURB_ENV
from langchain_core.embeddings import DeterministicFakeEmbedding
from test_lock import listening
from test_purge_no_trace import files_holding

from langgraph_memory import MemoryStore, StoreLockedError
from langgraph_memory.scope import Scope
from langgraph_memory.store import internals
from langgraph_memory.store.chroma import compaction, layout, rebuild
from langgraph_memory.store.chroma.directory_lock import LOCK_FILE, PURGE_WAIT_ENV, try_lock
from langgraph_memory.store.chroma.door import VectorClient, client_of, persistent

# Purges killed halfway (child processes, SIGKILL): the slow tier.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: Long enough for any step on a slow, loaded machine; the waits end as soon as
#: what they wait for happens.
PATIENCE = 300.0

KEPT = [
    "Alice is allergic to peanuts and carries an EpiPen.",
    "Alice moved to Lisbon in March 2023 for a job at a design studio.",
    "Alice's daughter Maya starts primary school in September.",
    "Alice prefers window seats on flights longer than three hours.",
    "Alice runs the Lisbon half marathon every October.",
]
MARKER = "PURGEMARK7c1e9a"
PURGED = [
    f"Bob's passport number is {MARKER}-A and it expires in 2031.",
    "Bob is recovering from knee surgery and cannot climb stairs.",
    "Bob's sister Carla lives in Porto and visits every other weekend.",
    f"Bob keeps the spare key under the blue flowerpot, code {MARKER}-B.",
]


def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=8)


# -- the app killed while its rebuild child runs ----------------------------------------

#: The app: opens the store and purges Bob's scope. It never gets to close.
APP = """
import sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
store = MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=8))
store.purge("user:bob")
print("PURGED", flush=True)
store.close()
"""

#: Loaded by every Python process the app starts (PYTHONPATH): the rebuild child
#: waits at its start until the test opens the gate, so the test sees it alive
#: for as long as it needs, and then writes to its standard streams, as Chroma's
#: warnings would, after its parent is dead.
GATE_HOOK = """
import os, sys, time
from pathlib import Path
gate = os.environ.get("LGM_TEST_GATE")
if gate and b"rebuild.py" in Path("/proc/self/cmdline").read_bytes():
    deadline = time.monotonic() + 600
    while not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    print("rebuild child: stdout after the gate", flush=True)
    print("rebuild child: stderr after the gate", file=sys.stderr, flush=True)
    Path(gate + ".wrote").write_text("ok")
"""


#: Fills the store: run with a scrubbed heap, so that no index file it writes holds
#: stale bytes of Bob's words (a different matter, see store/chroma/compaction.py) and
#: the scan at the end sees only what the killed purge left.
FILL = """
import json, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
with MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=8)) as store:
    kept = {m.id: m.text for m in store.add_many("user:alice", json.loads(sys.argv[2]))}
    store.add_many("user:bob", json.loads(sys.argv[3]))
print(json.dumps(kept))
"""


def fill_in_child(directory: Path) -> dict[str, str]:
    """Alice's memories and Bob's in a new store; Alice's, by id."""
    done = subprocess.run(
        [sys.executable, "-c", FILL, str(directory), json.dumps(KEPT), json.dumps(PURGED)],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env={**os.environ, **PERTURB_ENV, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    kept: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return kept


def wait_for(what: str, ready: Any, app: subprocess.Popen[bytes] | None = None) -> Any:
    """Poll ``ready()`` until it returns something true; fail after PATIENCE seconds,
    or as soon as ``app`` exits."""
    deadline = time.monotonic() + PATIENCE
    while True:
        found = ready()
        if found:
            return found
        if app is not None and app.poll() is not None:
            pytest.fail(f"the app exited ({app.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def rebuild_child_of(parent: int) -> int | None:
    """The pid of the process running rebuild.py whose parent is ``parent``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            status = (entry / "status").read_text(encoding="utf-8")
        except OSError:  # ended meanwhile
            continue
        ppid = next(
            (line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), ""
        )
        if b"rebuild.py" in cmdline and ppid == str(parent):
            return int(entry.name)
    return None


def has_ended(pid: int) -> bool:
    """Whether process ``pid`` is gone or a zombie (nobody may collect an orphan here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def lock_is_free(directory: Path) -> bool:
    """Whether another process could take the directory's lock now (it is let go at once)."""
    with open(directory / LOCK_FILE, "a+", encoding="utf-8") as handle:
        return try_lock(handle)  # closing the handle gives it back


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the child in /proc")
def test_a_purge_child_holds_the_lock_after_its_parent_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "memory"
    kept = fill_in_child(directory)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(GATE_HOOK, encoding="utf-8")
    gate = tmp_path / "gate"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "LGM_TEST_GATE": str(gate),
    }
    with open(tmp_path / "app.log", "wb") as log:
        app = subprocess.Popen(
            [sys.executable, "-c", APP, str(directory)], stdout=log, stderr=log, env=env
        )
    try:
        child = wait_for("the purge's rebuild child", lambda: rebuild_child_of(app.pid), app)
        app.send_signal(signal.SIGKILL)  # mid-purge, its child still running
        app.wait(timeout=PATIENCE)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    assert not has_ended(child), "the rebuild child died with its parent"
    assert not lock_is_free(directory), (
        "the directory is unlocked while the rebuild child of the killed app still runs"
    )
    # An open waits for the child, up to its bound; past it, it is refused, and told why.
    monkeypatch.setenv(PURGE_WAIT_ENV, "1")
    with pytest.raises(StoreLockedError) as refused:
        MemoryStore(directory, embeddings=fake())
    message = str(refused.value)
    assert f"process {app.pid}, which has ended" in message, message
    assert f"pid {child}" in message and "Open the store again when it has ended" in message
    assert "This open waited 1 s for it" in message, message
    assert not has_ended(child), "the refused open must leave the child alone"
    assert (directory / compaction.REBUILD_JOURNAL).exists(), (
        "the killed purge left its compaction to do"
    )

    # The app started again, with the default bound, waits for the child to end and opens.
    monkeypatch.delenv(PURGE_WAIT_ENV)
    with listening("waiting up to 120 s") as said:
        # The gate opens once the open has said what it waits for: it must wait.
        opener = threading.Thread(target=lambda: said.seen.wait(PATIENCE) and gate.touch())
        opener.start()
        try:
            store = MemoryStore(directory, embeddings=fake())
        finally:
            said.seen.set()  # the thread ends (and opens the gate) whatever happened
            opener.join()
    assert has_ended(child), "the store opened while the rebuild child still ran"
    assert (tmp_path / "gate.wrote").exists(), (
        "the child could not write to its standard streams after its parent died"
    )
    waits = [line for line in said.lines if "waiting up to" in line]
    assert len(waits) == 1 and f"pid {child}" in waits[0], said.lines
    with store:
        assert {m.id: m.text for m in store.active("user:alice")} == kept
        assert store.active("user:bob") == []
        assert [s.key for s in store.scopes()] == ["user:alice"]
    # The open finished the compaction the kill stopped: no file holds Bob's words.
    assert not (directory / compaction.REBUILD_JOURNAL).exists()
    assert files_holding(directory, [MARKER, "knee surgery"]) == {}


# -- a rebuild stopped at each step -------------------------------------------------------


class Crash(Exception):
    """Where a kill would have stopped the rebuild."""


class CrashingCollection:
    """A real collection (through the door) whose ``add`` or ``rename`` raises at one step."""

    def __init__(self, collection: Any, step: str) -> None:
        self._collection = collection
        self._step = step
        self._adds = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._collection, name)

    def add(self, *records: Any) -> None:
        self._adds += 1
        if self._step == "copy begun" or (self._step == "copy halfway" and self._adds == 2):
            raise Crash(self._step)
        self._collection.add(*records)

    def rename(self, name: str) -> None:
        if self._step == "copy whole" and name.endswith(rebuild.COPIED):
            raise Crash(self._step)
        self._collection.rename(name)
        if self._step == "copy marked whole" and name.endswith(rebuild.COPIED):
            raise Crash(self._step)


class CrashingClient:
    """A real client (through the door) that raises at one step of a rebuild, as a
    kill there would stop it: everything before that step is done, nothing after."""

    def __init__(self, client: VectorClient, step: str) -> None:
        self._client = client
        self._step = step

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def create(self, name: str, **options: Any) -> CrashingCollection:
        return CrashingCollection(self._client.create(name, **options), self._step)

    def drop(self, name: str) -> None:
        self._client.drop(name)
        if self._step == "original dropped":
            raise Crash(self._step)


#: The steps of a rebuild a kill may stop it after (see store/chroma/rebuild.py).
STEPS = ["copy begun", "copy halfway", "copy whole", "copy marked whole", "original dropped"]


def snapshot(client: VectorClient, name: str) -> dict[str, Any]:
    """Everything of a collection a rebuild must keep, in id order."""
    collection = client.open(name)
    found = rebuild.read_all(collection)
    order = sorted(range(len(found["ids"])), key=lambda i: found["ids"][i])
    return {
        "ids": [found["ids"][i] for i in order],
        "documents": [found["documents"][i] for i in order],
        "metadatas": [found["metadatas"][i] for i in order],
        "vectors": np.asarray([found["embeddings"][i] for i in order], dtype=np.float32),
        "metadata": collection.metadata,
        "hnsw": (collection.index or {}).get("hnsw"),
    }


def assert_same(got: dict[str, Any], want: dict[str, Any]) -> None:
    for key in ("ids", "documents", "metadatas", "metadata", "hnsw"):
        assert got[key] == want[key], key
    assert np.array_equal(got["vectors"], want["vectors"])


def filled(directory: Path) -> dict[str, Any]:
    """A collection of 2,500 records (three batches of a rebuild), 100 of them
    deleted (what the rebuild is for); what it holds. Its index measures l2
    distance: Chroma hands back the vectors of a cosine index within a float32
    rounding of what was added, an l2 index's to the bit, so a copy can be
    checked to the bit."""
    client = persistent(directory)
    collection = client.create(
        "lgm-0123456789abcdef0123456789abcdef-mem",
        metadata={"scope": "user:alice", "lgm_format": 2},
        index={"hnsw": {"space": "l2", "max_neighbors": 24}},
    )
    rng = np.random.default_rng(7)
    for start in range(0, 2500, 500):
        ids = [f"m{i:04d}" for i in range(start, start + 500)]
        collection.add(
            ids,
            rng.random((500, 8), dtype=np.float32),
            [f"Alice noted thing number {i} on her list." for i in ids],
            [{"chain": i, "importance": 0.5, "pinned": i.endswith("7")} for i in ids],
        )
    collection.remove(ids=[f"m{i:04d}" for i in range(0, 2500, 25)])
    want = snapshot(client, collection.name)
    assert len(want["ids"]) == 2400
    return want


def staged(client: VectorClient) -> list[str]:
    return [n for n in layout.all_collection_names(client) if rebuild.original_name(n) != n]


@pytest.mark.parametrize("step", STEPS)
def test_recovery_brings_back_every_record_of_a_rebuild_stopped_at_each_step(
    tmp_path: Path, step: str
) -> None:
    name = "lgm-0123456789abcdef0123456789abcdef-mem"
    want = filled(tmp_path)
    client = persistent(tmp_path)
    with pytest.raises(Crash):
        rebuild.rebuild_collection(CrashingClient(client, step), name)  # type: ignore[arg-type]
    client.close()

    client = persistent(tmp_path)  # the process that opens the store next
    assert compaction.recover_staged(client, exclusive=True) == [name]
    assert staged(client) == []
    assert_same(snapshot(client, name), want)
    rebuild.rebuild_collection(client, name)  # and the next rebuild runs from there
    assert_same(snapshot(client, name), want)
    assert staged(client) == []
    client.close()


@pytest.mark.parametrize("step", STEPS)
def test_on_a_shared_chroma_recovery_only_renames_a_whole_copy_whose_original_is_gone(
    tmp_path: Path, step: str
) -> None:
    """On a server another process may be rebuilding right now: an open there never
    drops a copy, and never drops an original; the next rebuild does the rest."""
    name = "lgm-0123456789abcdef0123456789abcdef-mem"
    want = filled(tmp_path)
    client = persistent(tmp_path)
    with pytest.raises(Crash):
        rebuild.rebuild_collection(CrashingClient(client, step), name)  # type: ignore[arg-type]
    left = staged(client)
    renamed = compaction.recover_staged(client, exclusive=False)
    assert renamed == ([name] if step == "original dropped" else [])
    assert staged(client) == ([] if renamed else left)
    assert_same(snapshot(client, name), want)
    rebuild.rebuild_collection(client, name)
    assert staged(client) == []
    assert_same(snapshot(client, name), want)
    client.close()


def test_a_store_whose_registry_rebuild_was_killed_opens_with_every_scope(
    tmp_path: Path,
) -> None:
    """The worst step to be killed at: the registry dropped, its copy not yet
    renamed. Opening the store must not create an empty registry beside the copy."""
    directory = tmp_path / "memory"
    with MemoryStore(directory, embeddings=fake()) as store:
        kept = {m.id: m.text for m in store.add_many("user:alice", KEPT)}
        store.add_many("user:bob", PURGED[1:3])
    client = persistent(directory)
    with pytest.raises(Crash):
        rebuild.rebuild_collection(
            CrashingClient(client, "original dropped"),  # type: ignore[arg-type]
            layout.REGISTRY,
        )
    client.close()
    with MemoryStore(directory, embeddings=fake()) as store:
        assert store.scopes() == [Scope("user", "alice"), Scope("user", "bob")]
        assert {m.id: m.text for m in store.active("user:alice")} == kept
        assert len(store.active("user:bob")) == 2


def test_a_whole_scope_purge_drops_a_copy_a_killed_rebuild_left(tmp_path: Path) -> None:
    """On a server, a killed rebuild's whole copy may wait beside its original; a
    purge of the scope takes the copy too, or a later recovery would bring it back."""
    with MemoryStore(tmp_path / "memory", embeddings=fake()) as store:
        store.add_many("user:bob", PURGED)
        bob = internals(store)._core.collections(Scope("user", "bob"))
        assert bob is not None
        name = bob.names[0]  # its bucket's, which a purge of Bob rebuilds
        with pytest.raises(Crash):
            rebuild.rebuild_collection(
                CrashingClient(client_of(internals(store).client), "copy marked whole"), name
            )  # type: ignore[arg-type]
        assert staged(client_of(internals(store).client)) == [name + rebuild.COPIED]
        store.purge("user:bob")
        assert staged(client_of(internals(store).client)) == []
        assert store.active("user:bob") == []


@pytest.mark.parametrize("shared", [False, True], ids=["embedded", "client passed in"])
def test_a_scope_whose_rebuild_was_killed_after_the_drop_opens_whole(
    tmp_path: Path, shared: bool
) -> None:
    """A scope's collection dropped, its whole copy not yet renamed: the store
    finds the copy when it opens the scope, rather than creating the scope anew,
    empty, at the next write. Opening the store reads only the registry's and
    the reviews' names for this (listing every collection of a large server at
    each open would cost seconds)."""
    directory = tmp_path / "memory"
    with MemoryStore(directory, embeddings=fake()) as store:
        kept = {m.id: m.text for m in store.add_many("user:alice", KEPT)}
        alice = internals(store)._core.collections(Scope("user", "alice"))
        assert alice is not None
        name = alice.names[0]
    client = persistent(directory)
    with pytest.raises(Crash):
        rebuild.rebuild_collection(CrashingClient(client, "original dropped"), name)  # type: ignore[arg-type]
    assert staged(client) == [name + rebuild.COPIED]
    if not shared:
        client.close()
    opened = (
        MemoryStore(client=client.raw, embeddings=fake())
        if shared
        else MemoryStore(directory, embeddings=fake())
    )
    with opened as store:
        store.add("user:alice", "User also likes long walks.")
        assert {m.id: m.text for m in store.active("user:alice")}.items() >= kept.items()
        assert len(store.active("user:alice")) == len(kept) + 1
        assert staged(client_of(internals(store).client)) == []
