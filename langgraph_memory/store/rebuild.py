"""Rebuilding a Chroma collection with its current records only.

Deleting records leaves their bytes in the collection's log and index files;
a rebuilt collection (read the survivors, drop, create, add them back) holds
only what is live. Used in this process by ``compaction.rebuild_in_place``, and run as
a script in a child process by ``compaction.rebuild_offline``::

    python -c "import runpy, sys; ..." rebuild.py DIRECTORY COLLECTION [COLLECTION ...]

It imports nothing of this package, so the child starts fast.

>>> import tempfile, chromadb
>>> client = chromadb.PersistentClient(path=tempfile.mkdtemp())
>>> c = client.create_collection("demo", embedding_function=None)
>>> c.add(ids=["a", "b"], embeddings=[[1.0, 0.0], [0.0, 1.0]], documents=["x", "y"])
>>> _ = c.delete(ids=["a"])
>>> rebuild_collection(client, "demo").get()["ids"]
['b']
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection

_BATCH = 1000


#: Records read per call: Chroma's get of every record of a collection over ~32k records
#: fails ("too many SQL variables"), so larger ones are read in pages.
PAGE = 10_000


def read_all(collection: Collection, page: int = PAGE) -> dict[str, list[Any]]:
    """Every record of a collection (ids, vectors, documents, metadatas), read in pages.

    >>> import tempfile, chromadb
    >>> c = chromadb.PersistentClient(path=tempfile.mkdtemp()).create_collection(
    ...     "pages", embedding_function=None)
    >>> c.add(ids=["a", "b", "c"], embeddings=[[1.0], [2.0], [3.0]], documents=["x", "y", "z"])
    >>> sorted(read_all(c, page=2)["documents"])
    ['x', 'y', 'z']
    """
    out: dict[str, list[Any]] = {"ids": [], "embeddings": [], "documents": [], "metadatas": []}
    while True:
        found = collection.get(
            include=["embeddings", "documents", "metadatas"], limit=page, offset=len(out["ids"])
        )
        out["ids"] += found["ids"]
        out["embeddings"] += list(found["embeddings"] if found["embeddings"] is not None else [])
        out["documents"] += found["documents"] or [None] * len(found["ids"])
        out["metadatas"] += found["metadatas"] or [None] * len(found["ids"])
        if len(found["ids"]) < page:
            return out


def rebuild_collection(client: ClientAPI, name: str) -> Collection:
    """Recreate a collection with its current records, dropping everything deleted.

    The new collection has a new internal id: handles to the old one are stale.
    """
    old = client.get_collection(name, embedding_function=None)
    metadata = old.metadata
    hnsw = {
        k: v for k, v in ((old.configuration_json or {}).get("hnsw") or {}).items() if v is not None
    }
    records = read_all(old)
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
            documents=documents[part],
            metadatas=[m or None for m in metadatas[part]],  # type: ignore[misc]
        )
    return new


def main(argv: list[str]) -> int:
    """Rebuild the named collections of the persist directory ``argv[0]``."""
    import chromadb
    from chromadb.config import Settings

    directory, names = argv[0], argv[1:]
    client = chromadb.PersistentClient(
        path=directory, settings=Settings(anonymized_telemetry=False)
    )
    try:
        for name in names:
            rebuild_collection(client, name)
    finally:
        client.close()  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
