"""Rebuilding a Chroma collection with its current records only.

Deleting records leaves their bytes in the collection's log and index files;
a rebuilt collection holds only what is live. Used in this process by
``compaction.rebuild_in_place``, and run as a script in a child process by
``compaction.rebuild_in_child``::

    python -c "import runpy, sys; ..." rebuild.py DIRECTORY COLLECTION ... [--whole COLLECTION ...]

It imports nothing of this package but its errors and the door to Chroma (a
few milliseconds), so the child starts fast.

A rebuild may be killed at any point (the OOM killer, a service manager that
stops every process of the app at once), so at every point one whole copy of
the records exists under a name the next step can find:

1. the survivors are copied into ``<name>.rebuilding``, created with the
   original's metadata and index settings;
2. once that copy is whole (its count checked), it is renamed
   ``<name>.rebuilt``: a rename is atomic, so that name means "whole";
3. the original is dropped;
4. ``<name>.rebuilt`` is renamed ``<name>``.

:func:`recover`, run before anything uses the store and at the start of every
rebuild, reads what a killed rebuild left: ``<name>.rebuilding`` is an unfinished
copy, dropped (the original is whole: it goes only after step 2);
``<name>.rebuilt`` is whole and finishes the rebuild (steps 3 and 4). Chroma
allows ``.`` inside names, and the store's own names hold none, so a staging
name cannot be a collection of the store.

>>> import tempfile
>>> from langgraph_memory.store.chroma.door import persistent
>>> client = persistent(tempfile.mkdtemp())
>>> c = client.create("demo")
>>> c.add(["a", "b"], [[1.0, 0.0], [0.0, 1.0]], ["x", "y"])
>>> c.remove(ids=["a"])
>>> rebuild_collection(client, "demo").read()["ids"]
['b']
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from langgraph_memory.errors import MemoryKitError
from langgraph_memory.store.chroma.door import (
    PAGE,
    Field,
    MissingCollectionError,
    VectorClient,
    VectorCollection,
    dummy_vectors,
    holds_placeholders,
    persistent,
)

_BATCH = 1000
_ALL: tuple[Field, ...] = ("embeddings", "documents", "metadatas")

#: The suffixes of a rebuild's copy of ``<name>``: while it is made, and once it is whole.
COPYING, COPIED = ".rebuilding", ".rebuilt"
STAGING = (COPYING, COPIED)


def read_all(collection: VectorCollection, page: int = PAGE) -> dict[str, list[Any]]:
    """Every record of a collection (ids, vectors, documents, metadatas), read in pages.

    >>> import tempfile
    >>> c = persistent(tempfile.mkdtemp()).create("pages")
    >>> c.add(["a", "b", "c"], [[1.0], [2.0], [3.0]], ["x", "y", "z"])
    >>> sorted(read_all(c, page=2)["documents"])
    ['x', 'y', 'z']
    """
    out: dict[str, list[Any]] = {"ids": [], "embeddings": [], "documents": [], "metadatas": []}
    # Placeholders are not read (their index may lag their records: see
    # door.PLACEHOLDER_PERSIST), but written anew.
    placeholders = holds_placeholders(collection.index)
    fields: list[Field] = ["documents", "metadatas"] if placeholders else list(_ALL)
    while True:
        found = collection.read(include=fields, limit=page, offset=len(out["ids"]))
        out["ids"] += found["ids"]
        vectors = found["embeddings"]
        if placeholders:
            vectors = dummy_vectors(len(found["ids"]))
        out["embeddings"] += list(vectors if vectors is not None else [])
        none: list[Any] = [None] * len(found["ids"])
        out["documents"] += found["documents"] or none
        out["metadatas"] += found["metadatas"] or none
        if len(found["ids"]) < page:
            return out


def original_name(name: str) -> str:
    """The collection a staging collection ``name`` is a copy of (itself if none).

    >>> original_name("lgm-0a1b-mem.rebuilt"), original_name("lgm-0a1b-mem")
    ('lgm-0a1b-mem', 'lgm-0a1b-mem')
    """
    for suffix in STAGING:
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def find(client: VectorClient, name: str) -> VectorCollection | None:
    """The collection ``name``, or None when there is none."""
    try:
        return client.open(name)
    except MissingCollectionError:
        return None


def recover(client: VectorClient, name: str, *, exclusive: bool = True) -> bool:
    """Finish or undo what a killed rebuild of ``name`` left (see the module
    docstring); whether it found anything to do.

    ``exclusive``: no other process may be rebuilding ``name`` now (an embedded
    store's directory, locked by this process). Without it (a Chroma server),
    only a whole copy whose original is gone is touched: it is renamed, which a
    rebuild still running elsewhere does next anyway; the rest is left for the
    next rebuild of ``name``.

    >>> import tempfile
    >>> client = persistent(tempfile.mkdtemp())
    >>> _ = client.create("demo" + COPIED)
    >>> recover(client, "demo"), find(client, "demo") is not None
    (True, True)
    >>> _ = client.create("demo" + COPYING)
    >>> recover(client, "demo"), find(client, "demo" + COPYING) is None
    (True, True)
    >>> recover(client, "demo")
    False
    """
    did = False
    copied = find(client, name + COPIED)
    if copied is not None:
        original = find(client, name)
        if original is None or exclusive:
            if original is not None:  # killed before it dropped the original: do it now
                client.drop(name)
            copied.rename(name)
            did = True
    if exclusive and find(client, name + COPYING) is not None:
        client.drop(name + COPYING)  # unfinished; the original is whole
        did = True
    return did


class IncompleteCopyError(MemoryKitError, RuntimeError):
    """The staging copy of a rebuild holds fewer records than were read: the
    original is kept (``compaction`` reports it as a ``CompactionError``)."""


def copy_collection(old: VectorCollection, client: VectorClient, name: str) -> VectorCollection:
    """A new collection ``name`` on ``client`` (the same client or another) with
    ``old``'s metadata, index settings and records, vectors included.

    >>> import tempfile
    >>> c = persistent(tempfile.mkdtemp()).create("demo", metadata={"a": 1})
    >>> c.add(["a"], [[1.0, 0.0]], ["x"])
    >>> copy = copy_collection(c, persistent(tempfile.mkdtemp()), "demo")
    >>> copy.metadata, copy.read(include=["documents"])["documents"]
    ({'a': 1}, ['x'])
    """
    records = read_all(old)
    copy = client.create(name, metadata=old.metadata, index=old.index)  # same index settings
    ids = records["ids"]
    vectors: Any = records["embeddings"]
    for start in range(0, len(ids), _BATCH):
        part = slice(start, start + _BATCH)
        copy.add(
            ids[part],
            np.asarray(vectors[part], dtype=np.float32),
            records["documents"][part],
            [m or None for m in records["metadatas"][part]],
        )
    return copy


def rebuild_collection(client: VectorClient, name: str) -> VectorCollection:
    """Recreate a collection with its current records, dropping everything deleted.

    Crash-safe (see the module docstring): the original is dropped only once a
    whole copy of its records exists. The new collection has a new internal id:
    handles to the old one are stale.
    """
    recover(client, name)  # a rebuild killed earlier: finish or undo it first
    old = client.open(name)
    copy = copy_collection(old, client, name + COPYING)
    if copy.size() != old.size():  # never drop the original for a copy that lacks records
        raise IncompleteCopyError(
            f"the rebuilt copy of {name} holds {copy.size()} of {old.size()} records; "
            "the original is kept, and the copy is dropped on the next rebuild"
        )
    copy.rename(name + COPIED)  # whole: from here on a kill finishes, never undoes
    client.drop(name)
    copy.rename(name)
    return copy


def main(argv: list[str]) -> int:
    """Rebuild the named collections of the persist directory ``argv[0]``; then write
    whole the index of each collection of placeholders among them and among the names
    after ``--whole``, which are not rebuilt (see ``write_indexes_whole``).

    A staging name stands for its original (a listing of what was written may
    name one), and a name with no collection is skipped: a journal of a rebuild
    that failed may name a collection a later purge of its scope dropped.
    """
    directory, rest = argv[0], argv[1:]
    split = rest.index("--whole") if "--whole" in rest else len(rest)
    names, whole = rest[:split], rest[split + 1 :]
    client = persistent(directory)
    placeholders: list[str] = []
    try:
        for name in dict.fromkeys(original_name(n) for n in names):
            recover(client, name)
            if find(client, name) is not None:
                copy = rebuild_collection(client, name)
                if holds_placeholders(copy.index):
                    placeholders.append(name)
        for name in whole:
            found = find(client, name)
            if found is not None and holds_placeholders(found.index):
                placeholders.append(name)
    finally:
        client.close()
    write_indexes_whole(directory, list(dict.fromkeys(placeholders)))
    return 0


def write_indexes_whole(directory: str, names: Sequence[str]) -> None:
    """Write the whole vector index of each collection of placeholders in ``names``
    (the registry) now, in this process, so that no later process writes it on load.

    Chroma writes such an index only every ``PLACEHOLDER_PERSIST`` changes, and each
    process that loads it replays the changes not written yet and writes the index
    then: after a purge, the store's own process, whose freed memory may still hold
    the purged text, which an index file's unused bytes can carry (found by the
    on-disk scan: purged ids in the registry's ``data_level0.bin`` and ``length.bin``,
    3 runs in 18; and, after a purge by ids, which rebuilds none of them, in the
    registry's ``data_level0.bin``, 1 CI run). Chroma takes how often to write from a
    collection when it loads
    it, so each is loaded once writing every change (and written by a change), then
    set back in a client that does not load it.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> client = persistent(d)
    >>> client.open_or_create("registry", placeholders=True).put(["a"], [[1.0]], ["x"], [{"k": 1}])
    >>> client.close()
    True
    >>> write_indexes_whole(d, ["registry"])
    >>> holds_placeholders(persistent(d).open("registry").index)
    True
    """
    if not names:
        return
    for step in ("write", "set back"):
        client = persistent(directory)
        try:
            for name in names:
                collection = client.open(name)
                if step == "write":
                    collection.persist_every_write()  # loads it writing every change
                else:
                    collection.persist_now_and_then()
        finally:
            client.close()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
