"""Making deleted data leave the disk, not just the index.

What Chroma 1.5 keeps after a delete (found by scanning every file of a
persist directory for a marker string; see the tests):

- ``collection.delete(ids)`` leaves the text in SQLite's free pages, in the
  full-text index's old segments (as trigrams), in the write-ahead log table
  until the vector index flushes, and the vectors and ids in the HNSW segment
  folder (``data_level0.bin``, ``index_metadata.pickle``);
- ``client.delete_collection`` leaves free pages, full-text segments and the
  collection's segment folder;
- ``chroma vacuum`` (and SQLite ``VACUUM``) clear the free pages only.

So a hard delete here (1) rebuilds each collection that lost records: it copies
the survivors into a new collection that takes the old one's place (see
``rebuild``: crash-safe; Chroma's public API only), which discards its log
entries and rows; then, where the directory is reachable, (2) removes segment
folders no live segment owns and rebuilds the full-text index from its content
(Chroma has no supported way for these: ``chroma_internals``) and (3) runs
Chroma's own ``chroma vacuum``, which purges its log and runs SQLite ``VACUUM``,
so the file keeps no free pages. Steps 2-3 need the directory: for a Chroma
server, stop it and run :func:`compact_directory` on its ``--path``.

Steps 2-3 open ``chroma.sqlite3``, so they run only when no Chroma has the file
open: a second SQLite library on the file beside Chroma's corrupted stores.
:func:`compact_directory` checks that and refuses otherwise. Every reach into
Chroma's internals lives in ``chroma_internals``, whose ``check`` runs first and
refuses a chromadb it was not checked against.

Chroma's hnswlib writes parts of new index files (``data_level0.bin``,
``length.bin``) from uninitialised heap memory, which can hold bytes of freed
records, deleted text included. So an embedded store's purge rebuilds in a
child process started with ``SCRUBBED_HEAP`` (glibc overwrites freed memory;
``MALLOC_PERTURB_`` alone is not enough: the per-thread cache skips the
overwrite); see :func:`rebuild_in_child`.

Every child that works on the directory (the rebuild, the compaction, the
listing of what was written since a purge) holds the directory's lock itself:
it is started with the lock file's descriptor (see ``directory_lock``). So when
the process that purges is killed, its child keeps the directory locked until it
ends, and an app restarting meanwhile waits for it (bounded, and saying so; see
``directory_lock``) instead of opening Chroma beside it (two writers corrupt a
directory). A child
may outlive its parent, so its output goes to a file, never to a pipe that a
dead parent leaves broken. Before the first child starts, :func:`rebuild_in_child`
writes the collections it rebuilds to ``langgraph_memory.rebuilding``, and removes
that file once the compaction is done; :func:`finish_interrupted_rebuild`, run
when the store opens, finishes a rebuild and compaction that a killed process left
undone, and :func:`recover_staged` finishes or undoes any rebuild a kill stopped
halfway (see ``rebuild``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from langgraph_memory.checks import check_seconds
from langgraph_memory.errors import CompactionError, InvalidTypeError
from langgraph_memory.store.chroma import internals as chroma_internals
from langgraph_memory.store.chroma import layout, rebuild
from langgraph_memory.store.chroma.directory_lock import DirectoryLock, processes_holding
from langgraph_memory.store.chroma.door import VectorClient

#: Chroma's database file in a persist directory.
SQLITE_FILE = chroma_internals.SQLITE_FILE
#: glibc settings under which freed memory is overwritten and the per-thread
#: cache (which skips that overwrite) is off: a process started with them cannot
#: write stale heap bytes of deleted records into the index files it writes.
SCRUBBED_HEAP = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.perturb=165"}
#: The collections a rebuild under way will rebuild, one name a line: there while
#: its children run, so that the next open finishes what a killed process left.
REBUILD_JOURNAL = "langgraph_memory.rebuilding"
#: How long a rebuild right after the store closed its client waits for this process's
#: native Chroma side to let go of the database file.
CLOSE_WAIT_S = 3.0


def compact_directory(path: str | os.PathLike[str], *, timeout: float = 600) -> None:
    """Remove what deletes left behind in a Chroma persist directory.

    Only while no Chroma has the directory open: not a client in this process,
    not an embedded store of another process, not a ``chroma run`` server
    (stop it first). Python's ``sqlite3`` beside Chroma's own SQLite on one file
    corrupted stores (``disk I/O error``, then a malformed database), so this
    refuses with ``CompactionError`` when it finds the file open, and takes the
    directory's lock while it works. The work itself runs in a child process.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> d = tempfile.mkdtemp()
    >>> client = persistent(d)
    >>> _ = client.open_or_create("demo")
    >>> compact_directory(d)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.CompactionError: /...chroma.sqlite3 is open in this process; ...
    >>> client.close()
    True
    >>> compact_directory(d)
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidTypeError(
            f"path must be a str or a pathlib.Path of a Chroma directory, got {type(path).__name__}"
        )
    check_seconds(timeout)
    directory = Path(path).resolve()
    database = directory / SQLITE_FILE
    if not database.exists():
        return
    chroma_internals.check()
    lock = DirectoryLock.acquire(directory)  # no embedded store of another process
    try:
        _check_closed(database)
        # What Chroma has no supported way for (segment folders, full-text index) ...
        _run(
            [sys.executable, "-I", "-S", "-c", chroma_internals.COMPACT_SCRIPT, str(directory)],
            f"compacting {directory}",
            timeout,
            lock,
        )
        # ... then Chroma's own vacuum: its log purged, the file rewritten without free pages.
        out = _run(
            [
                sys.executable,
                "-I",
                "-c",
                chroma_internals.VACUUM_SCRIPT,
                str(directory),
                str(max(1, int(timeout))),
            ],
            f"vacuuming {directory} (chroma vacuum)",
            timeout,
            lock,
            _scrubbed_env(),
        )
        if chroma_internals.VACUUM_DONE not in out:
            raise CompactionError(
                f"vacuuming {directory} (chroma vacuum) did not finish: {out.strip()[-1000:]}. "
                "The purged records are deleted; their bytes may remain on disk until a "
                "purge compacts again."
            )
    finally:
        lock.release()


def _wait_closed(database: Path, seconds: float = CLOSE_WAIT_S) -> None:
    """``_check_closed``, given ``seconds`` for this process to let go of ``database``:
    the store calls it right after closing its own Chroma client, whose native side
    may close the file a moment later (a purge's rebuild refused, now and then, on a
    file closed milliseconds after). Another process's hold is refused at once."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            _check_closed(database)
            return
        except CompactionError as exc:
            if "this process" not in str(exc) or time.monotonic() >= deadline:
                raise
        gc.collect()  # a client object nothing uses any more closes its file when freed
        time.sleep(0.02)


def _check_closed(database: Path) -> None:
    """Refuse when Chroma (this process or another) has ``database`` open."""
    holders = processes_holding(database)
    if chroma_internals.open_in_process(str(database.parent)) or os.getpid() in holders:
        raise CompactionError(
            f"{database} is open in this process; close every Chroma client and "
            "MemoryStore on it first (MemoryStore.close(), client.close())"
        )
    if holders:
        raise CompactionError(
            f"{database} is open in process {', '.join(map(str, sorted(holders)))} "
            "(a `chroma run` server or another app); stop it, then compact"
        )


def _scrubbed_env() -> dict[str, str]:
    """This process's environment with ``SCRUBBED_HEAP`` added to its glibc settings."""
    tunables = os.environ.get("GLIBC_TUNABLES")
    ours = SCRUBBED_HEAP["GLIBC_TUNABLES"]
    return {**os.environ, "GLIBC_TUNABLES": f"{tunables}:{ours}" if tunables else ours}


def rebuild_in_child(path: Path, names: Iterable[str], *, timeout: float = 600) -> None:
    """Rebuild collections, then compact, in child processes whose freed memory is
    scrubbed (``SCRUBBED_HEAP``), so no index file they write can carry stale
    bytes of purged records, whatever this process's environment.

    Only while no Chroma client in this process has the directory open (two
    processes writing one directory corrupt it): ``purge`` closes its client
    first, with the store's gate held exclusively, and reopens it after. The
    children hold the directory's lock, and the names are journaled until the
    compaction is done (see the module docstring), so a kill of this process at
    any point leaves the store whole and the work for the next open to finish.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> d = Path(tempfile.mkdtemp())
    >>> client = persistent(d)
    >>> c = client.create("demo")
    >>> c.add(["a", "b"], [[1.0], [2.0]], ["x", "y"])
    >>> c.remove(ids=["a"])
    >>> client.close()
    True
    >>> rebuild_in_child(d, ["demo"])
    >>> persistent(d).open("demo").read()["ids"]
    ['b']
    """
    wanted = list(names)
    chroma_internals.check()
    lock = DirectoryLock.acquire(path)  # counted: the store that purges holds it already
    try:
        if wanted:
            _wait_closed(path.resolve() / SQLITE_FILE)
            _journal(path, wanted)
            # run_path, not `python file.py`: the script's folder on sys.path would let
            # this package's keyword.py shadow the standard library's.
            code = (
                "import runpy, sys; sys.path.pop(0); sys.argv = sys.argv[1:]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')"
            )
            # The registry's index is written whole too, rebuilt or not: this process
            # would otherwise write it from its heap when it next loads it (see
            # ``rebuild.write_indexes_whole``).
            whole = ["--whole", layout.REGISTRY]
            command = [sys.executable, "-c", code, rebuild.__file__, str(path), *wanted, *whole]
            what = f"rebuilding {', '.join(wanted)} in {path}"
            _run(command, what, timeout, lock, _scrubbed_env())
        compact_directory(path, timeout=timeout)
        (path / REBUILD_JOURNAL).unlink(missing_ok=True)
    finally:
        lock.release()


def finish_interrupted_rebuild(path: Path, *, timeout: float = 600) -> list[str]:
    """Finish the rebuild and compaction a process was killed in (or that failed):
    rebuild the collections ``REBUILD_JOURNAL`` names, with a scrubbed heap, and
    compact. Returns their names; nothing to do returns []. Only while no Chroma
    has the directory open: the store runs it on open, before opening Chroma.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> finish_interrupted_rebuild(Path(tempfile.mkdtemp()))
    []
    """
    journal = path / REBUILD_JOURNAL
    if not journal.exists():
        return []
    names = journal.read_text(encoding="utf-8").split()
    rebuild_in_child(path, names, timeout=timeout)
    return names


def _journal(path: Path, names: list[str]) -> None:
    """Add ``names`` to the rebuild journal, atomically (a kill never leaves half a file)."""
    journal = path / REBUILD_JOURNAL
    if journal.exists():  # a rebuild that failed or was killed: still to do
        names = [*journal.read_text(encoding="utf-8").split(), *names]
    partial = journal.with_name(journal.name + ".tmp")
    partial.write_text("".join(f"{n}\n" for n in dict.fromkeys(names)), encoding="utf-8")
    os.replace(partial, journal)


def recover_staged(
    client: VectorClient, *, exclusive: bool, names: Sequence[str] | None = None
) -> list[str]:
    """Finish or undo every rebuild of the store's collections (or of ``names``
    only) that a kill stopped halfway (``rebuild.recover``); the names of those it
    did something for. Runs before the store reads the registry: a registry
    dropped after its copy was made would otherwise be created again, empty,
    beside the whole copy. With ``names`` it reads only those (a few calls);
    without, it lists every collection of the database, which on a server shared
    by a large store takes a while: opening a store checks the registry and the
    reviews, and a scope's collections are checked when the scope is opened and
    not found (``Engine.collections``).

    ``exclusive``: nothing else may be rebuilding now (an embedded store's
    directory, locked by this process). Without it (a Chroma server, shared with
    other processes), only whole copies whose original is gone are renamed; the
    rest waits for the next rebuild of its collection, which may be under way in
    another process.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> client = persistent(tempfile.mkdtemp())
    >>> _ = client.create(layout.REVIEWS + rebuild.COPIED)
    >>> recover_staged(client, exclusive=True)
    ['langgraph_memory_reviews']
    """
    staged = (
        set(names)
        if names is not None
        else {
            rebuild.original_name(name)
            for name in layout.all_collection_names(client)
            if rebuild.original_name(name) != name
        }
    )
    return [
        name
        for name in sorted(staged)
        if layout.is_store_collection(name) and rebuild.recover(client, name, exclusive=exclusive)
    ]


def scrub_written_since(path: Path, since: float, *, timeout: float = 600) -> list[str]:
    """Rebuild, with a scrubbed heap, every collection whose index files were
    written at or after ``since`` (epoch seconds), then compact; their names.

    For the index files an unscrubbed process wrote after a purge: they come
    from its heap, which may still hold bytes of the records it purged. Only
    while no Chroma has the directory open (the store runs it on close, and
    on open when a process that purged stopped before it could).
    """
    database = path.resolve() / SQLITE_FILE
    if not database.exists():
        return []
    chroma_internals.check()
    lock = DirectoryLock.acquire(path)  # counted: the store that runs this holds it already
    try:
        _wait_closed(database)
        out = _run(
            [
                sys.executable,
                "-I",
                "-S",
                "-c",
                chroma_internals.WRITTEN_SCRIPT,
                str(path),
                repr(since),
            ],
            f"listing what was written to {path}",
            timeout,
            lock,
        )
        names: list[str] = json.loads(out)
        rebuild_in_child(path, names, timeout=timeout)
    finally:
        lock.release()
    return names


def _run(
    command: list[str],
    what: str,
    timeout: float,
    lock: DirectoryLock,
    env: dict[str, str] | None = None,
) -> str:
    """Run a child that works on the locked directory; its standard output.

    The child gets the lock file's descriptor, so it holds the lock until it
    ends even if this process dies first (no new process may open the directory
    while it writes). Its output goes to unnamed files, not pipes: with this
    process dead, a write to a pipe would kill it halfway (``EPIPE``).
    """
    inherited = () if os.name == "nt" else (lock.fileno(),)  # no pass_fds on Windows
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            timeout=timeout,
            check=False,
            env=env,
            pass_fds=inherited,
        )
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if done.returncode == chroma_internals.SCHEMA_EXIT:
        raise chroma_internals.ChromaInternalsError(
            f"{what} refused: {stderr.strip()[-1000:]}: Chroma's database is not laid out "
            "as the chromadb versions langgraph-memory-kit was checked on "
            "(langgraph_memory.store.chroma.internals). The purged records are deleted; "
            "their bytes may remain on disk until a release that knows this layout compacts."
        )
    if done.returncode != 0:
        raise CompactionError(
            f"{what} failed "
            f"(exit {done.returncode}): {stderr.strip()[-1000:]}. The purged records "
            "are deleted; their bytes may remain on disk until a purge compacts again."
        )
    return stdout


def rebuild_in_place(client: VectorClient, names: Iterable[str]) -> None:
    """Rebuild the named collections through ``client``: for a server, or a client
    the store cannot close. The directory's free pages and full-text segments
    then wait for :func:`compact_directory`, run when Chroma is closed. Each
    rebuild is crash-safe (see ``rebuild``) and first finishes or undoes one a
    kill stopped halfway.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> client = persistent(tempfile.mkdtemp())
    >>> c = client.create("demo")
    >>> c.add(["a", "b"], [[1.0], [2.0]], ["x", "y"])
    >>> c.remove(ids=["a"])
    >>> rebuild_in_place(client, ["demo"])
    >>> client.open("demo").read()["ids"]
    ['b']
    """
    for name in names:
        try:
            rebuild.rebuild_collection(client, name)
        except rebuild.IncompleteCopyError as exc:
            raise CompactionError(
                f"{exc}. The purged records are deleted; their bytes may remain until "
                "a purge rebuilds this collection again."
            ) from exc
        except BaseException:
            # Failed after it dropped the original: give the whole copy its name back
            # now, before the store reopens (and would create) the collection.
            with contextlib.suppress(Exception):  # the client may be what failed
                rebuild.recover(client, name, exclusive=False)
            raise
