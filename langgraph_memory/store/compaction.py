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
import shutil
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection

UUID_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
SQLITE_FILE = "chroma.sqlite3"
_BATCH = 1000


def rebuild_collection(client: ClientAPI, name: str) -> Collection:
    """Recreate a collection with its current records, dropping everything deleted.

    The new collection has a new internal id: handles to the old one are stale.
    """
    old = client.get_collection(name, embedding_function=None)
    metadata = old.metadata
    hnsw = {
        k: v for k, v in ((old.configuration_json or {}).get("hnsw") or {}).items() if v is not None
    }
    records = old.get(include=["embeddings", "documents", "metadatas"])
    client.delete_collection(name)
    configuration: Any = {"hnsw": hnsw} if hnsw else None  # same index settings as before
    new = client.create_collection(
        name,
        metadata=metadata,
        configuration=configuration,
        embedding_function=None,
    )
    ids = records["ids"]
    vectors: Any = records["embeddings"]
    documents = records["documents"]
    metadatas = records["metadatas"]
    for start in range(0, len(ids), _BATCH):
        part = slice(start, start + _BATCH)
        new.add(
            ids=ids[part],
            embeddings=np.asarray(vectors[part], dtype=np.float32),
            documents=documents[part] if documents is not None else None,
            metadatas=[m or None for m in metadatas[part]] if metadatas is not None else None,  # type: ignore[misc]
        )
    return new


def compact_directory(path: str | os.PathLike[str]) -> None:
    """Remove what deletes left behind in a Chroma persist directory.

    Safe while a client in this process (or a ``chroma run`` server) has the
    directory open: it removes only segment folders that no live segment
    owns, and SQLite serialises the rebuild and ``VACUUM`` with other writers.

    >>> import tempfile, chromadb
    >>> d = tempfile.mkdtemp()
    >>> _ = chromadb.PersistentClient(path=d).get_or_create_collection("demo")
    >>> compact_directory(d)
    """
    directory = Path(path)
    database = directory / SQLITE_FILE
    if not database.exists():
        return
    con = sqlite3.connect(database, timeout=60, isolation_level=None)
    try:
        live = {row[0] for row in con.execute("SELECT id FROM segments")}
        for entry in directory.iterdir():
            if entry.is_dir() and UUID_DIR.match(entry.name) and entry.name not in live:
                shutil.rmtree(entry)
        con.execute(
            "INSERT INTO embedding_fulltext_search(embedding_fulltext_search) VALUES('rebuild')"
        )
        con.execute("VACUUM")
    finally:
        con.close()


def compact(client: ClientAPI, path: Path | None, rebuild: Iterable[str] = ()) -> None:
    """Rebuild the named collections, then compact the directory if it is known."""
    for name in rebuild:
        rebuild_collection(client, name)
    if path is not None:
        compact_directory(path)
