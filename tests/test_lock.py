"""One process per embedded store directory: a second process gets a clear error, and an
app restarted while the purge child of its killed self still holds the directory waits for
that child (bounded) instead."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from langgraph_memory import InvalidArgumentError, MemoryStore, StoreLockedError
from langgraph_memory.store.chroma.directory_lock import PURGE_WAIT_ENV, has_ended

OPEN_IN_CHILD = """
import sys
from langgraph_memory import MemoryStore, StoreLockedError
try:
    MemoryStore(sys.argv[1]).close()
except StoreLockedError as exc:
    print("LOCKED", exc)
    sys.exit(3)
print("OPENED")
"""


def open_in_child(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", OPEN_IN_CHILD, str(directory)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow  # a second process
def test_second_process_is_refused_with_the_server_mode_named(
    tmp_path: Path, embedder: Embeddings
) -> None:
    directory = tmp_path / "memory"
    store = MemoryStore(directory, embeddings=embedder)
    store.add("user:a", "User likes tea.")
    child = open_in_child(directory)
    assert child.returncode == 3, child.stderr
    assert "chroma run" in child.stdout and "HttpClient" in child.stdout
    # the refused process changed nothing
    assert [m.text for m in store.active("user:a")] == ["User likes tea."]
    store.close()
    child = open_in_child(directory)
    assert child.returncode == 0 and "OPENED" in child.stdout, child.stderr


@pytest.mark.slow  # subprocesses
def test_same_process_may_open_a_directory_twice(tmp_path: Path, embedder: Embeddings) -> None:
    first = MemoryStore(tmp_path / "m", embeddings=embedder)
    second = MemoryStore(tmp_path / "m", embeddings=embedder)
    first.add("user:a", "User likes tea.")
    assert [m.text for m in second.active("user:a")] == ["User likes tea."]
    first.close()
    assert open_in_child(tmp_path / "m").returncode == 3, "second still holds the directory"
    second.add("user:a", "User likes coffee.")
    second.close()
    assert open_in_child(tmp_path / "m").returncode == 0


def test_a_persistent_client_passed_in_is_locked_too(tmp_path: Path, embedder: Embeddings) -> None:
    import chromadb

    client = chromadb.PersistentClient(path=str(tmp_path / "m"))
    store = MemoryStore(client=client, embeddings=embedder)
    assert open_in_child(tmp_path / "m").returncode == 3
    store.close()


# -- the purge child of a killed app ------------------------------------------------------

#: The app: takes the directory's lock, starts a child that inherits the lock file's
#: descriptor, as a purge's rebuild and compaction children do (store/chroma/compaction.py,
#: ``_run``), prints the child's pid, and waits to be killed.
APP = """
import subprocess, sys, time
from langgraph_memory.store.chroma.directory_lock import DirectoryLock
lock = DirectoryLock.acquire(sys.argv[1])
child = subprocess.Popen(
    [sys.executable, "-c", sys.argv[2], sys.argv[3]],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    pass_fds=(lock.fileno(),),
)
print(child.pid, flush=True)
time.sleep(600)
"""

#: The child: works until the test opens the gate (a file), then ends.
CHILD = """
import sys, time
from pathlib import Path
deadline = time.monotonic() + 120
while not Path(sys.argv[1]).exists() and time.monotonic() < deadline:
    time.sleep(0.02)
"""


@dataclass
class Holder:
    """An app that holds a store's directory through a child, and the child's gate."""

    app: subprocess.Popen[str]
    child: int
    gate: Path

    def kill_app(self) -> None:
        """SIGKILL the app (the child runs on, holding the lock) and collect it."""
        self.app.send_signal(signal.SIGKILL)
        self.app.wait(timeout=30)


@contextmanager
def holder(directory: Path, tmp_path: Path) -> Iterator[Holder]:
    """The app and its child running; on exit the gate opens and the app is gone."""
    gate = tmp_path / "gate"
    app = subprocess.Popen(
        [sys.executable, "-c", APP, str(directory), CHILD, str(gate)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    try:
        assert app.stdout is not None
        child = int(app.stdout.readline())
        yield Holder(app, child, gate)
    finally:
        gate.touch()
        if app.poll() is None:
            app.kill()
        app.wait(timeout=30)


class Said(logging.Handler):
    """The ``langgraph_memory`` logger's lines; ``seen`` is set at the first that holds
    ``needle``."""

    def __init__(self, needle: str) -> None:
        super().__init__()
        self.needle = needle
        self.lines: list[str] = []
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        if self.needle in self.lines[-1]:
            self.seen.set()


@contextmanager
def listening(needle: str) -> Iterator[Said]:
    said = Said(needle)
    logger = logging.getLogger("langgraph_memory")
    logger.addHandler(said)
    try:
        yield said
    finally:
        logger.removeHandler(said)


def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=8)


@pytest.mark.slow  # an app and its child
@pytest.mark.skipif(os.name != "posix", reason="an flock inherited by a child (pass_fds)")
def test_an_open_waits_for_the_purge_child_of_a_killed_app(tmp_path: Path) -> None:
    directory = tmp_path / "memory"
    with holder(directory, tmp_path) as held, listening("waiting up to") as said:
        held.kill_app()
        assert not has_ended(held.child)
        # The gate opens once the open has said what it waits for: it must wait.
        opener = threading.Thread(target=lambda: said.seen.wait(60) and held.gate.touch())
        opener.start()
        started = time.monotonic()
        try:
            store = MemoryStore(directory, embeddings=fake())
        finally:
            waited = time.monotonic() - started
            said.seen.set()  # the thread ends (and opens the gate) whatever happened
            opener.join()
        assert has_ended(held.child), "the store opened beside the child that held it"
        with store:
            store.add("user:a", "User likes tea.")
    waits = [line for line in said.lines if "waiting up to" in line]
    assert len(waits) == 1, said.lines  # it waited, and said so in one line
    said_what = f"child process (pid {held.child}) of process {held.app.pid}, which has ended"
    assert said_what in waits[0] and "120 s" in waits[0] and PURGE_WAIT_ENV in waits[0]
    assert waited < 60


@pytest.mark.slow  # an app and its child
@pytest.mark.skipif(os.name != "posix", reason="an flock inherited by a child (pass_fds)")
def test_an_open_that_waited_its_bound_says_how_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "memory"
    monkeypatch.setenv(PURGE_WAIT_ENV, "0.5")
    with holder(directory, tmp_path) as held:
        held.kill_app()
        started = time.monotonic()
        with pytest.raises(StoreLockedError) as refused:
            MemoryStore(directory, embeddings=fake())
        assert 0.5 <= time.monotonic() - started < 30
        assert not has_ended(held.child), "the refused open must leave the child alone"
    message = str(refused.value)
    assert f"process {held.app.pid}, which has ended" in message, message
    assert "Open the store again when it has ended" in message
    assert f"This open waited 0.5 s for it (${PURGE_WAIT_ENV} sets how long" in message


@pytest.mark.slow  # an app and its child
@pytest.mark.skipif(os.name != "posix", reason="an flock inherited by a child (pass_fds)")
def test_a_live_app_holding_the_store_is_refused_at_once(tmp_path: Path) -> None:
    """The wait is for the child of an ended app only: a second app fails fast, as before."""
    directory = tmp_path / "memory"
    with holder(directory, tmp_path) as held, listening("waiting up to") as said:
        started = time.monotonic()
        with pytest.raises(StoreLockedError, match=f"another process \\(pid {held.app.pid}\\)"):
            MemoryStore(directory, embeddings=fake())
        assert time.monotonic() - started < 5  # the wait's bound is 120 s
    assert said.lines == []


def test_a_bad_purge_wait_is_refused_before_the_directory_is_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PURGE_WAIT_ENV, "-1")
    with pytest.raises(InvalidArgumentError, match=f"\\${PURGE_WAIT_ENV}='-1' must be a number"):
        MemoryStore(tmp_path / "m", embeddings=fake())
    monkeypatch.setenv(PURGE_WAIT_ENV, "0")  # 0: refuse at once, as before the wait
    MemoryStore(tmp_path / "m", embeddings=fake()).close()
