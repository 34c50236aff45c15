"""Chroma's internals that the hard delete relies on, checked against the installed
chromadb: these tests fail loudly when a Chroma release moves one of them, before
a purge could leave deleted text on disk (see store/chroma/internals.py, which
lists each reach and why it is needed)."""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.metadata
import inspect
import json
import platform
import sqlite3
import subprocess
import sys
from pathlib import Path

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings

from langgraph_memory import CompactionError, MemoryKitError, MemoryStore
from langgraph_memory.store import compact_directory
from langgraph_memory.store.chroma import internals as chroma_internals
from langgraph_memory.store.chroma.internals import ChromaInternalsError


def _client(path: Path) -> chromadb.api.ClientAPI:
    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


@pytest.fixture(scope="module")
def closed_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh persist directory, closed, with a collection past its first index
    flush (1,000 records), so that its vector segment has a folder."""
    path = tmp_path_factory.mktemp("chroma")
    client = _client(path)
    collection = client.create_collection("internals", embedding_function=None)
    n = 1100
    collection.add(
        ids=[f"r{i}" for i in range(n)],
        embeddings=np.random.default_rng(0).random((n, 4), dtype=np.float32),
        documents=[f"document {i}" for i in range(n)],
    )
    client.close()  # type: ignore[attr-defined]
    return path


def _child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run stdlib code in a child: Python's sqlite3 never opens Chroma's file in a
    process where Chroma ran."""
    return subprocess.run(
        [sys.executable, "-I", "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_installed_chromadb_is_one_the_internals_were_checked_on() -> None:
    version = importlib.metadata.version("chromadb")
    assert chroma_internals.in_checked_range(version), (
        f"chromadb {version} is outside chroma_internals.CHECKED {chroma_internals.CHECKED}: "
        "check every reach listed in store/chroma/internals.py against it, then widen CHECKED"
    )
    assert chroma_internals.problems() == []
    chroma_internals.check()


def test_chromas_system_cache_tells_whether_a_directory_is_open(tmp_path: Path) -> None:
    """Reach 4: one system per persist directory, keyed by its path as the settings
    name it; the last close of a client on the path drops it."""
    from chromadb.api.shared_system_client import SharedSystemClient

    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    assert isinstance(systems, dict)
    client = _client(tmp_path)
    directory = client.get_settings().persist_directory
    assert directory in systems
    assert chroma_internals.open_in_process(directory) is True
    assert callable(getattr(client, "close", None))
    client.close()  # type: ignore[attr-defined]
    assert chroma_internals.open_in_process(directory) is False


def test_the_chroma_command_hands_its_arguments_to_the_rust_cli() -> None:
    """Reach 5: ``VACUUM_SCRIPT`` calls what the ``chroma`` command calls."""
    import chromadb_rust_bindings  # type: ignore[import-not-found,unused-ignore]
    from chromadb.cli import cli

    (chroma,) = importlib.metadata.entry_points(group="console_scripts", name="chroma")
    assert chroma.value == "chromadb.cli.cli:app"
    assert "chromadb_rust_bindings.cli(args)" in inspect.getsource(cli.app)
    assert callable(chromadb_rust_bindings.cli)


def test_the_database_has_the_tables_and_columns_the_scripts_read(closed_store: Path) -> None:
    """Reaches 1-3: the tables and columns of ``TABLES``, the full-text index an FTS5
    table, and each vector index folder named by a segment's id."""
    code = """
import json, sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
names = json.loads(sys.argv[2])
tables = {t: [r[1] for r in con.execute(f"PRAGMA table_info({t})")] for t in names}
kinds = dict(con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
segments = [r[0] for r in con.execute("SELECT id FROM segments")]
print(json.dumps({"tables": tables, "kinds": kinds, "segments": segments}))
"""
    database = closed_store / chroma_internals.SQLITE_FILE
    out = _child(code, str(database), json.dumps(list(chroma_internals.TABLES)))
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    for table, columns in chroma_internals.TABLES.items():
        assert found["tables"][table], f"{chroma_internals.SQLITE_FILE} has no table {table}"
        assert set(columns) <= set(found["tables"][table]), (table, found["tables"][table])
    assert "fts5" in found["kinds"]["embedding_fulltext_search"].lower()
    folders = [p.name for p in closed_store.iterdir() if p.is_dir()]
    assert folders, "a flushed collection has a vector index folder"
    for name in folders:
        assert chroma_internals.SEGMENT_FOLDER.match(name), name
        assert name in found["segments"], f"folder {name} is no segment's id"


def test_the_scripts_run_on_a_fresh_store_and_refuse_another_layout(
    closed_store: Path, tmp_path: Path
) -> None:
    out = _child(chroma_internals.WRITTEN_SCRIPT, str(closed_store), "0")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["internals"]
    out = _child(chroma_internals.COMPACT_SCRIPT, str(closed_store))
    assert out.returncode == 0, out.stderr
    assert [p.name for p in closed_store.iterdir() if p.is_dir()], "a live folder stays"
    # A database without Chroma's tables: refused before anything is touched.
    sqlite3.connect(tmp_path / chroma_internals.SQLITE_FILE).close()
    (tmp_path / "0c6c9a2e-1a6f-4f4b-9d0e-3f1f2a1b2c3d").mkdir()
    for script, args in (
        (chroma_internals.COMPACT_SCRIPT, [str(tmp_path)]),
        (chroma_internals.WRITTEN_SCRIPT, [str(tmp_path), "0"]),
    ):
        out = _child(script, *args)
        assert out.returncode == chroma_internals.SCHEMA_EXIT, out.stderr
        assert "lacks table segments" in out.stderr
    assert (tmp_path / "0c6c9a2e-1a6f-4f4b-9d0e-3f1f2a1b2c3d").is_dir()
    with pytest.raises(ChromaInternalsError, match="lacks table segments"):
        compact_directory(tmp_path)


def test_chromas_vacuum_says_when_it_is_done(closed_store: Path, tmp_path: Path) -> None:
    """Its exit status is 0 either way: ``compact_directory`` reads its output."""
    out = _child(chroma_internals.VACUUM_SCRIPT, str(closed_store), "60")
    assert out.returncode == 0 and chroma_internals.VACUUM_DONE in out.stdout, out.stderr
    out = _child(chroma_internals.VACUUM_SCRIPT, str(tmp_path / "none"), "60")
    assert chroma_internals.VACUUM_DONE not in out.stdout


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_glibc_has_malloc_trim() -> None:
    """Reach 6."""
    name = ctypes.util.find_library("c")
    assert name is not None and hasattr(ctypes.CDLL(name), "malloc_trim")
    chroma_internals.return_free_memory()


def test_a_chromadb_outside_the_checked_range_is_refused_before_a_purge_deletes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.metadata.version
    with MemoryStore(tmp_path / "memory") as store:
        kept = store.add("user:a", "Alice keeps a spare key under the mat.")
        monkeypatch.setattr(
            importlib.metadata,
            "version",
            lambda name: "1.99.0" if name == "chromadb" else real(name),
        )
        with pytest.raises(ChromaInternalsError, match=r"chromadb 1\.99\.0 is not in") as error:
            store.purge("user:a", [kept.id])
        assert isinstance(error.value, CompactionError) and isinstance(error.value, MemoryKitError)
        assert "Nothing was deleted" in str(error.value)
        assert [m.id for m in store.active("user:a")] == [kept.id]
        monkeypatch.undo()
        store.purge("user:a", [kept.id])
        assert store.active("user:a") == []


def test_a_missing_internal_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        chroma_internals,
        "ATTRIBUTES",
        (
            *chroma_internals.ATTRIBUTES,
            ("chromadb.api.shared_system_client", "SharedSystemClient", "_gone"),
            ("no_such_module_here", "", "cli"),
        ),
    )
    assert chroma_internals.problems() == [
        "chromadb.api.shared_system_client.SharedSystemClient._gone is gone",
        "module no_such_module_here is gone",
    ]
    with pytest.raises(ChromaInternalsError, match="_gone is gone"):
        chroma_internals.check()
