"""Every reach into Chroma's internals, in one place, behind a version check.

A hard delete (see ``compaction``) uses what Chroma supports first:

- collection deletion: a collection that lost records is replaced by a copy of
  its survivors through the public API (``create_collection``, ``add``,
  ``modify``, ``delete_collection``; see ``rebuild``), which drops the deleted
  records' rows, log entries and vectors from the database;
- ``chroma vacuum``, Chroma's own compaction of a closed directory: it purges
  the write-ahead log and runs SQLite ``VACUUM``, so the database file keeps no
  free pages (``VACUUM_SCRIPT``).

What Chroma offers no supported way for is here, and nowhere else (the
architecture test holds that). Each reach, why, and where it was checked:

1. ``segments`` (``id``, ``collection``) of ``chroma.sqlite3``, read by
   ``COMPACT_SCRIPT``: ``delete_collection`` leaves the collection's vector
   index folder (named by its segment's id, which no public API gives) with
   the deleted records' ids and vectors in it. Folders no live segment owns
   are removed.
2. ``embedding_fulltext_search`` (FTS5) of ``chroma.sqlite3``, rebuilt by
   ``COMPACT_SCRIPT``: deleted documents' trigrams stay in its old segments
   until a merge, and ``chroma vacuum`` does not touch them.
3. ``segments`` joined to ``collections`` (``id``, ``name``), read by
   ``WRITTEN_SCRIPT``: which collection a recently written index folder belongs
   to (see ``compaction.scrub_written_since``).
4. ``SharedSystemClient._identifier_to_system``, Chroma's cache of one system
   per persist directory in a process (``client.close()`` drops the entry when
   the last client of the path closes): whether this process still holds a
   directory (:func:`open_in_process`). No public call tells.
5. ``chromadb_rust_bindings.cli``, which the ``chroma`` command
   (``chromadb.cli.cli:app``) hands its arguments to: ``VACUUM_SCRIPT`` runs
   ``chroma vacuum`` through it, so the child does not import chromadb
   (seconds). Its exit status is 0 when the vacuum fails too, so success is
   read from its output (``VACUUM_DONE``).
6. glibc's ``malloc_trim`` through ``ctypes`` (:func:`return_free_memory`):
   Chroma's hnswlib writes parts of new index files from uninitialised heap
   memory, which may hold bytes of freed records.
7. ``RustBindingsAPI.hnsw_cache_size``, the number of vector indexes an embedded
   Chroma keeps in memory (each with four files open), which it sets to a fifth of
   the process's open-file limit and no setting changes: 2.6 MB of memory per
   person ever read, at a limit of 20,000 files, and "Too many open files" past
   about 200 people at the common 1,024. :func:`start_embedded` starts Chroma's
   system for a directory as ``SharedSystemClient`` does, with the size set to the
   store's budget in between (and so touches ``_identifier_to_system`` too). Evicting
   is safe only because every collection writes its index to disk after each write
   (``door.ChromaCollection._persisted``).

The scripts are stdlib only and run in child processes while no Chroma has the
directory open (Python's ``sqlite3`` beside Chroma's own SQLite on one file
corrupted stores); each checks first that the tables and columns it reads are
there (``TABLES``) and exits with ``SCHEMA_EXIT`` before touching anything if
not. :func:`check`, called before a purge deletes anything and before every
compaction, refuses a chromadb outside ``CHECKED`` or without the attributes
above; tests/test_chroma_internals.py fails when the installed chromadb lacks
any of them.

Checked on chromadb 1.5.2 and 1.5.9 (``CHECKED_ON``). Before 1.5.2 a client has
no ``close()``, so an embedded store cannot let go of its directory for the
compaction: :func:`check` wants that public method too.

>>> check()
>>> [in_checked_range(v) for v in ("1.5.9", "1.5.2", "1.5.1", "1.6.0", "1.4.1")]
[True, True, False, False, False]
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import threading

from chromadb.config import Settings, System

from langgraph_memory.errors import ChromaInternalsError

__all__ = [
    "CHECKED",
    "CHECKED_ON",
    "COMPACT_SCRIPT",
    "SCHEMA_EXIT",
    "SEGMENT_FOLDER",
    "SQLITE_FILE",
    "TABLES",
    "VACUUM_DONE",
    "VACUUM_SCRIPT",
    "WRITTEN_SCRIPT",
    "ChromaInternalsError",
    "check",
    "in_checked_range",
    "open_in_process",
    "problems",
    "return_free_memory",
    "start_embedded",
]

#: The chromadb versions these reaches are known to work with: from the first, up
#: to (not including) the second. A minor release may change Chroma's schema.
CHECKED = ((1, 5, 2), (1, 6, 0))
#: The releases tests/test_chroma_internals.py and tests/test_purge_no_trace.py ran on.
CHECKED_ON = ("1.5.2", "1.5.9")
#: Chroma's database file in a persist directory.
SQLITE_FILE = "chroma.sqlite3"
#: The name of a segment's folder in a persist directory: the segment's id.
SEGMENT_FOLDER = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
#: The tables of ``chroma.sqlite3`` the scripts use, with the columns they read.
TABLES: dict[str, tuple[str, ...]] = {
    "segments": ("id", "collection"),
    "collections": ("id", "name"),
    "embedding_fulltext_search": (),
}
#: A script's exit status when the database lacks a table or column of ``TABLES``.
SCHEMA_EXIT = 3
#: Attributes :func:`check` needs: (module, object in it or "", attribute).
ATTRIBUTES = (
    ("chromadb.api.shared_system_client", "SharedSystemClient", "_identifier_to_system"),
    ("chromadb_rust_bindings", "", "cli"),
    ("chromadb.api.client", "Client", "close"),  # public, but only from 1.5.2 on
    ("chromadb.api.shared_system_client", "SharedSystemClient", "_create_system_if_not_exists"),
)

# The start of every script: refuse a database whose tables are not the ones known.
_SCHEMA_CHECK = f"""
import sqlite3, sys
def check_schema(con):
    missing = []
    for table, columns in {TABLES!r}.items():
        have = {{row[1] for row in con.execute(f"PRAGMA table_info({{table}})")}}
        if not have:
            missing.append(f"table {{table}}")
        missing += [f"column {{table}}.{{c}}" for c in columns if c not in have]
    if missing:
        sys.stderr.write("{SQLITE_FILE} lacks " + ", ".join(missing))
        sys.exit({SCHEMA_EXIT})
"""

#: Removes segment folders no live segment owns and rebuilds the full-text index
#: (reaches 1 and 2): ``python -c COMPACT_SCRIPT DIRECTORY``. Stdlib only.
COMPACT_SCRIPT = (
    _SCHEMA_CHECK
    + f"""
import re, shutil
from pathlib import Path
directory = Path(sys.argv[1])
folder = re.compile({SEGMENT_FOLDER.pattern!r})
con = sqlite3.connect(directory / "{SQLITE_FILE}", timeout=120, isolation_level=None)
try:
    check_schema(con)
    live = {{row[0] for row in con.execute("SELECT id FROM segments")}}
    for entry in directory.iterdir():
        if entry.is_dir() and folder.match(entry.name) and entry.name not in live:
            shutil.rmtree(entry)
    con.execute(
        "INSERT INTO embedding_fulltext_search(embedding_fulltext_search) VALUES('rebuild')"
    )
finally:
    con.close()
"""
)

#: Prints, as JSON, the collections whose index files were written at or after a
#: time (reach 3): ``python -c WRITTEN_SCRIPT DIRECTORY SINCE``. Stdlib only.
WRITTEN_SCRIPT = (
    _SCHEMA_CHECK
    + f"""
import json
from pathlib import Path
directory, since = Path(sys.argv[1]), float(sys.argv[2])
con = sqlite3.connect(f"file:{{directory / '{SQLITE_FILE}'}}?mode=ro", uri=True)
try:
    check_schema(con)
    rows = con.execute(
        "SELECT s.id, c.name FROM segments s JOIN collections c ON s.collection = c.id"
    ).fetchall()
finally:
    con.close()
names = set()
for segment, name in rows:
    folder = directory / segment
    if folder.is_dir() and any(f.stat().st_mtime >= since for f in folder.iterdir()):
        names.add(name)
print(json.dumps(sorted(names)))
"""
)

#: What ``chroma vacuum`` prints when it is done: its exit status does not tell.
VACUUM_DONE = "Vacuum complete"
#: Chroma's own vacuum of a closed directory, as ``chroma vacuum --force`` runs it
#: (reach 5): ``python -c VACUUM_SCRIPT DIRECTORY TIMEOUT_SECONDS``.
VACUUM_SCRIPT = """
import sys
import chromadb_rust_bindings
chromadb_rust_bindings.cli(
    ["chroma", "vacuum", "--path", sys.argv[1], "--force", "--timeout", sys.argv[2]]
)
"""


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def in_checked_range(version: str) -> bool:
    """Whether chromadb ``version`` is one of the releases in ``CHECKED``."""
    low, below = CHECKED
    return low <= _version_tuple(version) < below


def problems() -> list[str]:
    """What keeps the reaches of this module from working with the installed
    chromadb (its version, a missing attribute); empty when nothing does."""
    found = []
    version = importlib.metadata.version("chromadb")
    if not in_checked_range(version):
        low, below = (".".join(map(str, v)) for v in CHECKED)
        found.append(f"chromadb {version} is not in the checked range >={low},<{below}")
    for module_name, owner_name, attribute in ATTRIBUTES:
        try:
            owner: object = importlib.import_module(module_name)
        except ImportError:
            found.append(f"module {module_name} is gone")
            continue
        if owner_name:
            owner = getattr(owner, owner_name, None)
        if owner is None or not hasattr(owner, attribute):
            where = f"{module_name}.{owner_name}" if owner_name else module_name
            found.append(f"{where}.{attribute} is gone")
    return found


def check() -> None:
    """Raise ChromaInternalsError when the installed chromadb is outside ``CHECKED``
    or lacks an internal this module relies on; before anything is deleted."""
    found = problems()
    if found:
        low, below = (".".join(map(str, v)) for v in CHECKED)
        raise ChromaInternalsError(
            "a hard delete relies on internals of chromadb that this release of "
            f"langgraph-memory-kit checked on chromadb >={low},<{below} only: "
            f"{'; '.join(found)}. Nothing was deleted. Install a checked chromadb "
            f"(pip install 'chromadb>={low},<{below}') or a langgraph-memory-kit "
            "release that supports yours."
        )


def open_in_process(directory: str) -> bool | None:
    """Whether Chroma's system for the persist directory ``directory`` (as its
    settings name it) is running in this process; None when that cannot be told
    (reach 4).

    >>> open_in_process("/no/such/directory")
    False
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    if not isinstance(systems, dict):
        return None
    return directory in systems


def return_free_memory() -> None:
    """Hand free heap pages back to the system (glibc's ``malloc_trim``, reach 6):
    the kernel gives them back zeroed, so index files this process writes later
    cannot carry the bytes of records it freed (deleted text among them). Does
    nothing where there is no glibc."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None)  # glibc only
    if trim is not None:
        trim(0)


_START_GUARD = threading.Lock()


def start_embedded(settings: Settings, indexes: int) -> bool:
    """Start Chroma's system for an embedded directory (``settings`` as
    ``PersistentClient`` makes them) with at most ``indexes`` vector indexes in memory
    (reach 7; at least one: Chroma fails on an empty cache); the client made next on
    the directory with equal settings uses it. False when this process runs one for
    the directory already (it keeps its size).

    Chroma starts a system as ``SharedSystemClient`` does, which offers no way to size
    the cache: the same steps, with the size set between the API's construction (which
    computes it) and its start (which uses it).

    >>> import tempfile
    >>> from chromadb.config import Settings
    >>> d = tempfile.mkdtemp()
    >>> start_embedded(Settings(is_persistent=True, persist_directory=d), 8)
    True
    """
    from chromadb.api import ServerAPI
    from chromadb.api.shared_system_client import SharedSystemClient
    from chromadb.telemetry.product import ProductTelemetryClient

    identifier = settings.persist_directory
    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    if not isinstance(systems, dict):  # Chroma changed: its client starts its own system
        return False
    with _START_GUARD:
        if identifier in systems:
            return False
        system = System(settings)
        systems[identifier] = system
        try:
            # Abstract types, which the system resolves to the implementations its
            # settings name, as SharedSystemClient asks for them.
            system.instance(ProductTelemetryClient)  # type: ignore[type-abstract]
            api = system.instance(ServerAPI)  # type: ignore[type-abstract]
            if hasattr(api, "hnsw_cache_size"):
                api.hnsw_cache_size = max(1, int(indexes))
            system.start()
        except BaseException:
            systems.pop(identifier, None)
            raise
    return True
