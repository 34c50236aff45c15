"""One process per embedded store directory: a second process gets a clear error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from langgraph_memory import MemoryStore

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
