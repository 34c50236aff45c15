"""Memory versions and logged decisions as records of a collection: reading,
querying and writing them in batches, through the door (``door``). A scope's
decision log keeps logging order in its ids (``log_id``) and reads back oldest
first.

The store's own helpers on its collections; nothing here knows about scopes
beyond the collections it is handed. A read skips records that a concurrent
write removed between Chroma's index lookup and its record read.

>>> [list(c) for c in chunks([1, 2, 3], 2)]
[[1, 2], [3]]
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np

from langgraph_memory.records import Decision, now_utc
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import layout
from langgraph_memory.store.chroma.codec import (
    CHAIN_KEY,
    decision_document,
    decision_from_document,
    decision_metadata,
    field_vectors_of,
    memory_from_record,
    version_from_record,
    version_metadata,
)
from langgraph_memory.store.chroma.door import (
    PAGE,
    Field,
    MissingCollectionError,
    VectorClient,
    VectorCollection,
    dummy_vectors,
)
from langgraph_memory.store.chroma.scoped import MOVED_KEY, ScopedCollection, add_shares
from langgraph_memory.store.version import Hit, Version

_RECORD: list[Field] = ["documents", "metadatas"]


def max_batch(client: VectorClient) -> int:
    return client.max_batch()


def chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def fetch(
    collection: VectorCollection,
    scope: Scope,
    *,
    ids: list[str] | None = None,
    where: dict[str, Any] | None = None,
    where_document: dict[str, Any] | None = None,
    with_vector: bool = False,
) -> list[Version]:
    """The records of ``collection`` (those with ``ids``, matching ``where``) as versions.

    Read in pages of ``door.PAGE``: Chroma refuses to read more than ~32k records in
    one call ("too many SQL variables"). One page (the common case) is one call.
    """
    include: list[Field] = _RECORD + (["embeddings"] if with_vector else [])
    out: list[Version] = []
    for part in [None] if ids is None else chunks(ids, PAGE):
        while True:
            found = collection.read(
                ids=None if part is None else list(part),
                where=where,
                where_document=where_document,
                include=include,
                limit=PAGE if part is None else None,
                offset=len(out) if part is None else None,
            )
            out += _versions(found, scope, with_vector)
            if part is not None or len(found["ids"]) < PAGE:
                break
    return out


def ids_where(collection: VectorCollection, where: dict[str, Any]) -> list[str]:
    """The ids of the records that match ``where``: the ids alone, read in pages."""
    out: list[str] = []
    while True:
        found = collection.read(where=where, limit=PAGE, offset=len(out))
        out += found["ids"]
        if len(found["ids"]) < PAGE:
            return out


def field_matrices(collection: VectorCollection, ids: Sequence[str]) -> dict[str, Any]:
    """The vectors per field of the listed records (``FieldVectors.matrix``), read from
    their metadata; a record without (or no longer there) is left out."""
    out: dict[str, Any] = {}
    for part in chunks(ids, PAGE):
        found = collection.read(ids=list(part), include=["metadatas"])
        for record_id, meta in zip(found["ids"], found["metadatas"] or [], strict=True):
            fields = field_vectors_of(meta)
            if fields is not None:
                out[record_id] = fields.matrix()
    return out


def _versions(found: Any, scope: Scope, with_vector: bool) -> list[Version]:
    documents = found["documents"] or []
    metadatas = found["metadatas"] or []
    # One conversion of the whole array: a float() per component took longer than the read.
    vectors = np.asarray(found["embeddings"], dtype=np.float64).tolist() if with_vector else None
    out = []
    for i, record_id in enumerate(found["ids"]):
        vector = vectors[i] if vectors is not None else None
        out.append(version_from_record(record_id, documents[i], metadatas[i], scope.key, vector))
    return out


def query(
    collection: VectorCollection,
    scope: Scope,
    vector: list[float],
    k: int,
    *,
    where: dict[str, Any] | None,
) -> list[Hit]:
    """The ``k`` records nearest to ``vector``, best first.

    A record the index still names but that a write in another thread deleted
    between Chroma's index lookup and its record read comes back without
    metadata: it is skipped (a read never fails because of a write).
    """
    return [
        Hit(memory_from_record(i, document, meta, scope.key), cosine)
        for i, document, meta, cosine in _nearest_rows(collection, vector, k, where)
    ]


def query_versions(
    collection: VectorCollection, scope: Scope, vector: list[float], k: int
) -> list[tuple[Version, float]]:
    """As ``query``, but each record as a whole version (chain key, value, TTL) with its
    cosine: what the BaseStore face returns, without reading the records again."""
    return [
        (version_from_record(i, document, meta, scope.key), cosine)
        for i, document, meta, cosine in _nearest_rows(collection, vector, k, None)
    ]


def _nearest_rows(
    collection: VectorCollection, vector: list[float], k: int, where: dict[str, Any] | None
) -> list[tuple[str, str, Any, float]]:
    """``(id, document, metadata, cosine)`` of the ``k`` records nearest to ``vector``,
    best first, less those deleted between the index lookup and the record read."""
    found = collection.nearest(
        vector, k, where=where, include=["documents", "metadatas", "distances"]
    )
    ids = found["ids"]
    documents = found["documents"] or []
    metadatas = found["metadatas"] or []
    distances = found["distances"] or []
    return [
        (ids[i], documents[i], metadatas[i], 1.0 - distances[i])
        for i in range(len(ids))
        if metadatas[i] is not None
    ]


def similar(
    collection: VectorCollection, scope: Scope, vector: list[float], k: int, ids: list[str]
) -> list[Hit]:
    """The ``k`` of the listed records most similar to ``vector`` (cosine), best first.

    Reads the records, so an id that is no longer there is skipped rather than
    failing the read as Chroma's ``query(ids=...)`` does.
    """
    if not ids:
        return []
    found = fetch(collection, scope, ids=ids, with_vector=True)
    if not found:
        return []
    scores = _cosine([v.vector for v in found], vector)
    hits = [Hit(v.memory, float(score)) for v, score in zip(found, scores, strict=True)]
    return sorted(hits, key=lambda h: (-h.score, h.memory.id))[:k]


def nearest_ids(collection: VectorCollection, vector: list[float], k: int) -> dict[str, float]:
    """The ids of the ``k`` records nearest to ``vector`` and their cosine, best
    first: the index alone, no record read."""
    found = collection.nearest(vector, k, include=["distances"])
    distances = found["distances"] or []
    return {i: 1.0 - float(d) for i, d in zip(found["ids"], distances, strict=True)}


def stored_vectors(collection: VectorCollection, ids: list[str]) -> tuple[list[str], Any]:
    """The listed records' ids and stored vectors (a matrix, one row per id), in one
    read of the vectors alone; an id that names no record is left out."""
    found: list[str] = []
    rows: list[Any] = []
    for part in chunks(ids, PAGE):
        read = collection.read(ids=list(part), include=["embeddings"])
        found += read["ids"]
        rows += list(read["embeddings"] if read["embeddings"] is not None else [])
    return found, np.asarray(rows, dtype=np.float64)


def cosines(ids: list[str], vectors: Any, vector: Sequence[float]) -> dict[str, float]:
    """Each id's cosine to ``vector``, from its row of ``vectors`` (see ``stored_vectors``).

    >>> cosines(["a", "b"], [[1.0, 0.0], [0.6, 0.8]], [0.0, 1.0])
    {'a': 0.0, 'b': 0.8}
    """
    if not ids:
        return {}
    return dict(zip(ids, _cosine(vectors, vector).tolist(), strict=True))


def _cosine(vectors: Any, vector: Sequence[float]) -> Any:
    q = np.asarray(vector, dtype=np.float64)
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(q)
    return np.divide(matrix @ q, norms, out=np.zeros(len(matrix)), where=norms > 0)


def insert_shares(parts: Sequence[tuple[layout.ScopeCollections, Sequence[Version]]]) -> None:
    """New active versions of many scopes that live in buckets, in one write per bucket
    (``scoped.add_shares``): what ``insert`` does for one scope, for people made at once."""
    shares = [cols.active for cols, _ in parts]
    assert all(isinstance(s, ScopedCollection) for s in shares), "every scope in a bucket"
    add_shares(
        cast(list[ScopedCollection], shares),
        [[v.memory.id for v in versions] for _, versions in parts],
        [[v.vector for v in versions] for _, versions in parts],
        [[v.memory.text for v in versions] for _, versions in parts],
        [[version_metadata(v) for v in versions] for _, versions in parts],
    )


def insert(
    collection: VectorCollection, versions: Sequence[Version], *, upsert: bool = False
) -> None:
    write = collection.put if upsert else collection.add
    for chunk in chunks(versions, 1000):
        write(
            [v.memory.id for v in chunk],
            [v.vector for v in chunk],
            [v.memory.text for v in chunk],
            [version_metadata(v) for v in chunk],
        )


def free_ids(cols: layout.ScopeCollections, n: int) -> list[str]:
    """``n`` fresh 8-hex-digit ids, unused in the scope as ids or chain keys.

    A scope in a bucket holds at most ``layout.PROMOTE_AT`` versions: its ids and
    chain keys are one read of each collection (its records, found by its tag). A
    scope with collections of its own is asked about the candidates alone (by id,
    and by chain key), which stays small however many versions it holds. In a store
    of many people every Chroma read costs more (one database): two reads an add
    instead of four for most people.
    """
    chosen: list[str] = []
    while len(chosen) < n:
        candidates = [c for c in new_ids(n - len(chosen)) if c not in chosen]
        taken = _taken(cols, candidates)
        chosen += [c for c in candidates if c not in taken]
    return chosen


def new_ids(n: int) -> list[str]:
    """``n`` distinct fresh 8-hex-digit ids for a scope made just now, under its lock
    (``layout.create_in_buckets``): it holds nothing, so there is nothing to ask Chroma.

    >>> ids = new_ids(3)
    >>> len(set(ids)), all(len(i) == 8 for i in ids)
    (3, True)
    """
    chosen: set[str] = set()
    while len(chosen) < n:
        chosen.add(secrets.token_hex(4))
    return sorted(chosen)


def _taken(cols: layout.ScopeCollections, candidates: list[str]) -> set[str]:
    """Which of ``candidates`` the scope uses, as an id or a chain key."""
    taken: set[str] = set()
    for collection in (cols.active, cols.history):
        if cols.bucket is not None:
            found = collection.read(include=["metadatas"])
            taken.update(found["ids"])
            taken.update(str((m or {}).get(CHAIN_KEY)) for m in found["metadatas"] or [])
        else:
            taken.update(collection.read(ids=candidates)["ids"])
            taken.update(collection.read(where={CHAIN_KEY: {"$in": candidates}})["ids"])
    return taken & set(candidates)


def finish_interrupted_moves(cols: layout.ScopeCollections) -> None:
    """Complete a close that a crash interrupted (record in history and active).

    Run on a scope's first open in a process; an embedded store runs
    :func:`finish_interrupted_bucket_moves` for its buckets instead, once, when the
    last process did not close it whole (see ``engine``): here, a bucket's history
    read would load its whole vector index on every person's first read."""
    closed = cols.history.read()["ids"]
    if not closed:
        return
    stale = cols.active.read(ids=closed)["ids"]
    if stale:
        cols.active.remove(ids=stale)


def finish_interrupted_bucket_moves(client: VectorClient, bucket: str) -> int:
    """:func:`finish_interrupted_moves` for every scope of ``bucket`` at once: each
    record in its history and still in its active collection leaves the active one.
    The mark of a person who moved out (in each of the bucket's collections, under one
    id) is no such record. Returns how many records it removed.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> finish_interrupted_bucket_moves(persistent(tempfile.mkdtemp()), "b000000")
    0
    """
    active_name, history_name, _ = layout.bucket_names(bucket)
    try:
        history, active = client.open(history_name), client.open(active_name)
    except MissingCollectionError:
        return 0
    found = history.read(include=["metadatas"])
    metas = found["metadatas"] or [{}] * len(found["ids"])
    closed = [i for i, m in zip(found["ids"], metas, strict=True) if not (m or {}).get(MOVED_KEY)]
    removed = 0
    for part in chunks(closed, 1000):
        stale = active.read(ids=list(part))["ids"]
        if stale:
            active.remove(ids=stale)
            removed += len(stale)
    return removed


# -- the decision log ---------------------------------------------------------------------


def log_id() -> str:
    """A decision id that sorts in logging order (clock first, then randomness):
    decisions of one turn share its time, and their order must survive.

    >>> log_id() < log_id()
    True
    """
    return f"{time.time_ns():016x}{uuid.uuid4().hex[:8]}"


def append_decisions(log: VectorCollection, decisions: Sequence[Decision], batch_size: int) -> None:
    """Write decisions that already carry their ids and times."""
    for chunk in chunks(decisions, batch_size):
        log.add(
            [d.id for d in chunk if d.id],
            # A vector goes with every document: without one Chroma would embed the
            # document with its own default model, which downloads.
            dummy_vectors(len(chunk)),
            [decision_document(d) for d in chunk],
            [decision_metadata(d) for d in chunk],
        )


def read_decisions(log: VectorCollection, where: dict[str, Any] | None = None) -> list[Decision]:
    """The logged decisions matching ``where`` (all without), oldest first."""
    found = log.read(where=where, include=["documents"])
    logged = [decision_from_document(doc) for doc in found["documents"] or [] if doc is not None]
    return sorted(logged, key=lambda d: (d.created_at or now_utc(), d.id or ""))
