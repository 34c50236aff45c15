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

So a hard delete here (1) rebuilds each collection that lost records: it reads
the survivors, drops the collection and creates it again, which discards its
log entries and segment folder; then, where the directory is reachable, (2)
removes segment folders no live segment owns, (3) rebuilds the full-text index
from its content and (4) runs SQLite ``VACUUM``, which rewrites the file
without free pages. Steps 2-4 need the directory: for a Chroma server run
:func:`compact_directory` on the server's ``--path``.

Known limit: Chroma's hnswlib writes parts of new index files
(``data_level0.bin``, ``length.bin``) from uninitialised heap memory, which can
hold bytes of freed records, deleted text included. With glibc, start the
process (or ``chroma run``) with
``GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.perturb=165`` so that
freed memory is overwritten (``MALLOC_PERTURB_`` alone is not enough: the
per-thread cache skips the overwrite). The tests run that way.

>>> UUID_DIR.match("0c6c9a2e-1a6f-4f4b-9d0e-3f1f2a1b2c3d") is not None
True
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from chromadb.api import ClientAPI

from langgraph_memory.errors import CompactionError
from langgraph_memory.store import rebuild

UUID_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
SQLITE_FILE = "chroma.sqlite3"
#: glibc settings under which freed memory is overwritten and the per-thread
#: cache (which skips that overwrite) is off: a process started with them cannot
#: write stale heap bytes of deleted records into the index files it writes.
SCRUBBED_HEAP = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.perturb=165"}


#: Run by ``compact_directory`` in a child process; stdlib only, so it starts fast.
_COMPACT_SCRIPT = r"""
import re, shutil, sqlite3, sys
from pathlib import Path
directory = Path(sys.argv[1])
uuid_dir = re.compile(sys.argv[2])
con = sqlite3.connect(directory / "chroma.sqlite3", timeout=120, isolation_level=None)
try:
    live = {row[0] for row in con.execute("SELECT id FROM segments")}
    for entry in directory.iterdir():
        if entry.is_dir() and uuid_dir.match(entry.name) and entry.name not in live:
            shutil.rmtree(entry)
    con.execute(
        "INSERT INTO embedding_fulltext_search(embedding_fulltext_search) VALUES('rebuild')"
    )
    con.execute("VACUUM")
finally:
    con.close()
"""


def compact_directory(path: str | os.PathLike[str], *, timeout: float = 600) -> None:
    """Remove what deletes left behind in a Chroma persist directory.

    The work runs in a child process, never in this one: Python's ``sqlite3``
    and Chroma's own SQLite are two copies of the library, and POSIX file
    locks belong to a process, so closing one copy's handle on the file drops
    the other's locks. In one process that corrupted the database under
    concurrent writes (``disk I/O error``, then ``database disk image is
    malformed``). Between processes SQLite's locking works as designed.

    Call it while nothing writes the directory through Chroma: ``purge``
    holds the store's gate exclusively around it. On a ``chroma run`` server's
    ``--path`` it is safe too (SQLite serialises it with the server's writes)
    and removes only segment folders that no live segment owns.

    >>> import tempfile, chromadb
    >>> d = tempfile.mkdtemp()
    >>> _ = chromadb.PersistentClient(path=d).get_or_create_collection("demo")
    >>> compact_directory(d)
    """
    directory = Path(path)
    if not (directory / SQLITE_FILE).exists():
        return
    _run(
        [sys.executable, "-I", "-S", "-c", _COMPACT_SCRIPT, str(directory), UUID_DIR.pattern],
        f"compacting {directory}",
        timeout,
    )


def rebuild_offline(path: Path, names: Iterable[str], *, timeout: float = 600) -> None:
    """Rebuild collections, then compact, in child processes whose freed memory is
    scrubbed (``SCRUBBED_HEAP``), so no index file they write can carry stale
    bytes of purged records, whatever this process's environment.

    Only while no Chroma client in this process has the directory open (two
    processes writing one directory corrupt it): ``purge`` closes its client
    first, with the store's gate held exclusively, and reopens it after.
    """
    wanted = list(names)
    if wanted:
        tunables = os.environ.get("GLIBC_TUNABLES")
        ours = SCRUBBED_HEAP["GLIBC_TUNABLES"]
        env = {**os.environ, "GLIBC_TUNABLES": f"{tunables}:{ours}" if tunables else ours}
        # run_path, not `python file.py`: the script's folder on sys.path would let
        # this package's keyword.py shadow the standard library's.
        code = (
            "import runpy, sys; sys.path.pop(0); sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')"
        )
        command = [sys.executable, "-c", code, rebuild.__file__, str(path), *wanted]
        _run(command, f"rebuilding {', '.join(wanted)} in {path}", timeout, env)
    compact_directory(path, timeout=timeout)


def _run(command: list[str], what: str, timeout: float, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, check=False, env=env
    )
    if done.returncode != 0:
        raise CompactionError(
            f"{what} failed "
            f"(exit {done.returncode}): {done.stderr.strip()[-1000:]}. The purged records "
            "are deleted; their bytes may remain on disk until a purge compacts again."
        )


def compact(client: ClientAPI, path: Path | None, names: Iterable[str] = ()) -> None:
    """Rebuild the named collections, then compact the directory if it is known."""
    for name in names:
        rebuild.rebuild_collection(client, name)
    if path is not None:
        compact_directory(path)
