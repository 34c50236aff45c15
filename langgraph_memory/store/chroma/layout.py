"""Where things live in Chroma: a registry, and three collections per scope.

Each scope has three collections:

- ``mem``: the active versions (what reads see by default);
- ``hist``: closed versions, with their vectors, for ``as_of`` reads and history;
- ``log``: the decision log (JSON documents, 1-dimensional dummy vectors since
  Chroma wants a vector per record).

A scope starts in a **bucket**: the collections ``lgm-b<number>-mem|hist|log``,
which up to ``BUCKET_SCOPES`` scopes share, each seeing only its own records
through a ``ScopedCollection`` (records tagged with the scope, every read
filtered by it). Its registry entry names the bucket (``home``). Once it holds
more than ``PROMOTE_AT`` versions it moves to **its own** collections, named from
a hash of the scope key (``lgm-<hash>-mem|hist|log``), where a query needs no
scope filter and stays as fast as an unfiltered one. Why: Chroma preallocates a
vector index for 100 records per collection (164 KB at 384 dimensions) and keeps
about 5 KB of memory per collection it opened, so a collection per person cost a
person with five memories 396 KB of disk; in a bucket, about 20 KB (measured in
``docs/results/users.md``). A store of an earlier format has every scope in its
own collections, which stay valid: an entry without ``home`` means its own.

Keeping closed versions out of the active collection means the hot path never
needs a ``where`` filter (a filtered query cost 40x an unfiltered one here).
The registry collection lists the scopes and records the embedder's name and
dimension. A ``namespace`` scope's entry also holds, under ``ns1``, ``ns2`` ...,
the ids of its namespace's prefixes (``("memories", "alice", "prefs")``:
``ns1="memories"``, ``ns2="memories.alice"``, ``ns3="memories.alice.prefs"``),
so the scopes under a prefix are one equality lookup, however many scopes exist.
The reviews collection holds the reviews between scopes (see ``reviews``).

>>> collection_names(Scope("user", "alice"))[0].startswith("lgm-")
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph_memory.scope import NAMESPACE_KIND, Scope, ScopeKind, namespace_id
from langgraph_memory.store.chroma import formats, rebuild
from langgraph_memory.store.chroma.door import (
    MissingCollectionError,
    VectorClient,
    VectorCollection,
    dummy_vectors,
)
from langgraph_memory.store.chroma.scoped import ScopedCollection

REGISTRY = "langgraph_memory_registry"


def scope_hash(scope: Scope) -> str:
    """A stable 32-hex-digit name part for a scope."""
    return hashlib.sha256(scope.key.encode("utf-8")).hexdigest()[:32]


def collection_names(scope: Scope) -> tuple[str, str, str]:
    """Names of the (active, history, log) collections of ``scope``."""
    h = scope_hash(scope)
    return f"lgm-{h}-mem", f"lgm-{h}-hist", f"lgm-{h}-log"


#: Scopes one bucket takes before the next bucket is begun. Sized by what a bucket's
#: vector index costs in memory: an embedded Chroma keeps at least 64 indexes (its
#: cache's shards, ``budget``), and a write loads its bucket's, so a service writing to
#: many buckets holds 64 of them whatever its budget. Chroma grows an index to the next
#: power of two of its records, and keeps that room in memory (~1.8 KB a record at 384
#: dimensions): at 64 people of the users benchmark's draw (median 11 memories) 83 % of
#: the buckets of a 100,000-person store held over 1,024 records, so their indexes took
#: room for 2,048 (~3.6 MB); at 40 people, 0.3 % would: ~1.8 MB, the size the budget
#: counts for an index. Measured (6,000 new people made in one process): 64 indexes
#: open and +342 MB with buckets of 64, +284 MB with buckets of 40, for 0.3 KB more disk
#: a five-memory person. At 256 people an index held ~4,000 records (~7 MB).
#: A write also rewrites its bucket's whole index (``door.PERSIST_EVERY``): a smaller
#: one is a cheaper add. A store begun with more per bucket keeps them; new people go
#: to buckets of this size (a bucket's name is its number, ``next_bucket``).
BUCKET_SCOPES = 40
#: A scope in a bucket moves to its own collections once its active and closed
#: versions number more than this (see ``engine``'s promotion).
PROMOTE_AT = 64
#: Registry keys of a scope's entry: the bucket it lives in (absent: its own
#: collections), and the bucket it lived in before it moved to its own.
HOME_KEY, LEFT_KEY = "home", "left"
#: The registry record that counts the scopes ever put in a bucket.
BUCKETS_ID = "__buckets__"


def bucket_names(bucket: str) -> tuple[str, str, str]:
    """Names of the (active, history, log) collections of ``bucket``.

    >>> bucket_names("b000003")
    ('lgm-b000003-mem', 'lgm-b000003-hist', 'lgm-b000003-log')
    """
    return f"lgm-{bucket}-mem", f"lgm-{bucket}-hist", f"lgm-{bucket}-log"


@dataclass(frozen=True)
class ScopeCollections:
    """Handles on one scope's three collections (its shares of a bucket's when
    ``bucket`` names one)."""

    scope: Scope
    active: VectorCollection
    history: VectorCollection
    log: VectorCollection
    bucket: str | None = None

    @property
    def names(self) -> tuple[str, str, str]:
        """The names of the collections that hold the scope's records."""
        return collection_names(self.scope) if self.bucket is None else bucket_names(self.bucket)


def open_registry(client: VectorClient) -> VectorCollection:
    """The registry collection, created on first use stamped with this release's
    format (an existing one keeps its metadata: see ``migrations``)."""
    return client.open_or_create(
        REGISTRY, metadata=formats.stamp(None, registry=True), placeholders=True
    )


#: Where an embedded store's background journal lives, under the store's directory
#: (a folder of its own: files beside Chroma's database are Chroma's). The journal
#: is the write path's (``write/journal.py``); the command line reads it too.
JOURNAL_FILE = Path("journal") / "turns.jsonl"

#: The store's reviews (see ``reviews``): one collection for every scope, since a
#: review names two scopes and is read across them.
REVIEWS = "langgraph_memory_reviews"


def is_store_collection(name: str) -> bool:
    """Whether ``name`` is one of the store's collections: the registry, the
    reviews, a scope's own (``lgm-<hash>-mem|hist|log``) or a bucket's
    (``lgm-b<number>-mem|hist|log``). Other applications' collections on a shared
    Chroma are never touched.

    >>> is_store_collection(collection_names(Scope("user", "a"))[2]), is_store_collection("docs")
    (True, False)
    """
    if name in (REGISTRY, REVIEWS):
        return True
    parts = name.split("-")
    return len(parts) == 3 and parts[0] == "lgm" and parts[2] in ("mem", "hist", "log")


def bucket_of(name: str) -> str | None:
    """The bucket a collection name belongs to (None: not a bucket's).

    >>> bucket_of("lgm-b000003-hist"), bucket_of(collection_names(Scope("user", "a"))[0])
    ('b000003', None)
    """
    parts = name.split("-")
    if len(parts) != 3 or parts[0] != "lgm" or parts[2] not in ("mem", "hist", "log"):
        return None
    part = parts[1]
    return part if len(part) == 7 and part[0] == "b" and part[1:].isdigit() else None


def buckets(client: VectorClient) -> list[str]:
    """Every bucket of the store that has collections, in order."""
    return sorted({b for b in map(bucket_of, client.names()) if b is not None})


def all_collection_names(client: VectorClient) -> list[str]:
    """The names of every collection in the client's database, the store's or not."""
    return client.names()


def open_reviews(client: VectorClient, *, create: bool) -> VectorCollection | None:
    """The reviews collection; None when no review was ever proposed (and not ``create``)."""
    if create:
        reviews = client.open_or_create(REVIEWS, metadata=formats.stamp(None))
        reviews.persist_every_write()
        return reviews
    try:
        return client.open(REVIEWS)
    except MissingCollectionError:
        return None


def next_bucket(registry: VectorCollection) -> str:
    """The bucket a new scope goes to now: the one being filled."""
    return f"b{_scopes_bucketed(registry) // BUCKET_SCOPES:06d}"


def create_scope(
    client: VectorClient,
    registry: VectorCollection,
    scope: Scope,
    *,
    own: bool = False,
    bucket: str | None = None,
) -> ScopeCollections:
    """List a scope in the registry, then create (or open) its collections: its
    shares of ``bucket``, else of the bucket being filled, or its own when ``own``.
    The caller holds the store's shared lock (the registry, and the bucket count in
    it).

    The registry first: a registry handle another process's purge made stale fails
    here (Chroma's ``MissingCollectionError``) before any collection exists, so the retry with
    fresh handles (``StoreCore.fresh``) finds no collections and registers the scope
    again. In the other order the retry would find the collections, take the scope
    for made and never list it. A crash between the two leaves a listed scope with
    no collections, which reads as empty."""
    ids, documents = [scope_hash(scope)], [scope.key]
    entry = _new_entry(scope)
    metadatas: list[dict[str, Any]] = [entry]
    if not own:
        made = _scopes_bucketed(registry)
        entry[HOME_KEY] = bucket or f"b{made // BUCKET_SCOPES:06d}"
        # The count in the same write as the entry: one write, not two.
        ids.append(BUCKETS_ID)
        documents.append(BUCKETS_ID)
        metadatas.append({"kind": CONFIG_ID, "made": made + 1})
    registry.put(ids, dummy_vectors(len(ids)), documents, metadatas)
    if own:
        return open_own(client, scope, create=True)
    return _open_bucket(client, scope, entry[HOME_KEY], create=True)


def create_in_buckets(
    client: VectorClient, registry: VectorCollection, scopes: Sequence[Scope]
) -> list[ScopeCollections]:
    """List many new scopes in the registry in one write, each in the bucket being
    filled as it comes, then open their shares: ``create_scope`` for people made at
    once (``store.add_people``), which opens each bucket's collections once. The
    caller holds the store's shared lock and every scope's lock, and found none of
    them listed. The registry first, as in ``create_scope``.

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> client = persistent(tempfile.mkdtemp())
    >>> two = [Scope("user", "a"), Scope("user", "b")]
    >>> made = create_in_buckets(client, open_registry(client), two)
    >>> [(c.scope.id, c.bucket) for c in made]
    [('a', 'b000000'), ('b', 'b000000')]
    """
    made = _scopes_bucketed(registry)
    entries = [_new_entry(scope) for scope in scopes]
    for n, entry in enumerate(entries):
        entry[HOME_KEY] = f"b{(made + n) // BUCKET_SCOPES:06d}"
    ids = [scope_hash(s) for s in scopes] + [BUCKETS_ID]
    documents = [s.key for s in scopes] + [BUCKETS_ID]
    count = {"kind": CONFIG_ID, "made": made + len(scopes)}
    registry.put(ids, dummy_vectors(len(ids)), documents, [*entries, count])
    shared: dict[str, list[VectorCollection]] = {}
    out = []
    for scope, entry in zip(scopes, entries, strict=True):
        bucket = entry[HOME_KEY]
        if bucket not in shared:
            shared[bucket] = _bucket_collections(client, bucket, create=True)
        tag = scope_hash(scope)
        mem, hist, log = (ScopedCollection(c, tag) for c in shared[bucket])
        out.append(ScopeCollections(scope, mem, hist, log, bucket=bucket))
    return out


def _new_entry(scope: Scope) -> dict[str, Any]:
    """A new scope's registry entry, without its home."""
    return {
        "kind": scope.kind,
        "scope_id": scope.id,
        "created_at": time.time(),
        **_prefix_ids(scope),
    }


def _scopes_bucketed(registry: VectorCollection) -> int:
    found = registry.read(ids=[BUCKETS_ID], include=["metadatas"])
    metadatas = found["metadatas"] or []
    made = metadatas[0].get("made") if metadatas and metadatas[0] else 0
    return int(made) if isinstance(made, int) else 0


def open_own(client: VectorClient, scope: Scope, *, create: bool) -> ScopeCollections:
    """The scope's own collections (made when ``create``); ``MissingCollectionError``
    when one is missing and not ``create``."""
    handles = []
    for name, role in zip(collection_names(scope), ("mem", "hist", "log"), strict=True):
        if create:
            handles.append(
                client.open_or_create(
                    name,
                    metadata=formats.stamp({"lgm_scope": scope.key, "lgm_role": role}),
                    cosine=role != "log",
                )
            )
        else:
            handles.append(client.open(name))
    return ScopeCollections(scope, handles[0], handles[1], handles[2])


def _open_bucket(
    client: VectorClient, scope: Scope, bucket: str, *, create: bool
) -> ScopeCollections:
    tag = scope_hash(scope)
    mem, hist, log = (
        ScopedCollection(shared, tag)
        for shared in _bucket_collections(client, bucket, create=create)
    )
    return ScopeCollections(scope, mem, hist, log, bucket=bucket)


def _bucket_collections(
    client: VectorClient, bucket: str, *, create: bool
) -> list[VectorCollection]:
    """The (active, history, log) collections of ``bucket``, made when ``create``."""
    handles: list[VectorCollection] = []
    for name, role in zip(bucket_names(bucket), ("mem", "hist", "log"), strict=True):
        if create:
            handles.append(
                client.open_or_create(
                    name,
                    metadata=formats.stamp({"lgm_bucket": bucket, "lgm_role": role}),
                    cosine=role != "log",
                )
            )
        else:
            handles.append(client.open(name))
    return handles


def open_bucket_later(
    scope: Scope, bucket: str, open_shared: Callable[[str], VectorCollection]
) -> ScopeCollections:
    """A scope's shares of ``bucket``'s collections, each opened by ``open_shared`` (its
    name) on its first use: for a scope known to live there without asking the
    registry (an embedded store's buckets' file, see ``Engine.collections``), whose
    read may then open nothing in Chroma."""
    tag = scope_hash(scope)
    mem, hist, log = (
        ScopedCollection.later(name, functools.partial(open_shared, name), tag)
        for name in bucket_names(bucket)
    )
    return ScopeCollections(scope, mem, hist, log, bucket=bucket)


def _prefix_key(depth: int) -> str:
    return f"ns{depth}"


def _prefix_ids(scope: Scope) -> dict[str, str]:
    if scope.kind != NAMESPACE_KIND:
        return {}
    labels = scope.namespace
    return {_prefix_key(n): namespace_id(labels[:n]) for n in range(1, len(labels) + 1)}


def listed(registry: VectorCollection, scopes: Sequence[Scope]) -> set[str]:
    """The keys of those of ``scopes`` the registry lists, in one read."""
    found = registry.read(ids=[scope_hash(s) for s in scopes], include=["documents"])
    return {d for d in found["documents"] or [] if d is not None}


def registry_entry(registry: VectorCollection, scope: Scope) -> dict[str, Any] | None:
    """The scope's registry entry (its metadata), or None when it has none."""
    found = registry.read(ids=[scope_hash(scope)], include=["metadatas"])
    metadatas = found["metadatas"] or []
    if not found["ids"] or not metadatas or metadatas[0] is None:
        return None
    return dict(metadatas[0])


def open_scope(
    client: VectorClient, registry: VectorCollection, scope: Scope
) -> ScopeCollections | None:
    """A scope's collections, or None when the scope has never been written (or
    its collections were never made: a crash right after it was listed)."""
    entry = registry_entry(registry, scope)
    bucket = None if entry is None else entry.get(HOME_KEY)
    try:
        if isinstance(bucket, str):
            return _open_bucket(client, scope, bucket, create=False)
        return open_own(client, scope, create=False)
    except MissingCollectionError:
        return None


def move_home(registry: VectorCollection, scope: Scope, bucket: str) -> None:
    """Say that ``scope`` now lives in its own collections, having lived in
    ``bucket``, whose files may keep bytes of its records until rebuilt: a purge of
    the scope rebuilds it too (``drop_scope``, ``names_holding``)."""
    registry.patch([scope_hash(scope)], [{HOME_KEY: None, LEFT_KEY: bucket}])


def names_holding(registry: VectorCollection, scope: Scope) -> list[str]:
    """The collections whose files may hold bytes of ``scope``'s records: its own,
    the bucket it lives in, and the bucket it left."""
    names = list(collection_names(scope))
    for bucket in buckets_of(registry_entry(registry, scope) or {}):
        names.extend(bucket_names(bucket))
    return names


def buckets_of(entry: Mapping[str, Any]) -> list[str]:
    """The buckets a scope's registry entry names: the one it lives in, the one it left.

    >>> buckets_of({HOME_KEY: "b000001"}), buckets_of({LEFT_KEY: "b000000"}), buckets_of({})
    (['b000001'], ['b000000'], [])
    """
    found = (entry.get(HOME_KEY), entry.get(LEFT_KEY))
    return list(dict.fromkeys(b for b in found if isinstance(b, str)))


def drop_own(client: VectorClient, scope: Scope) -> None:
    """Drop the scope's own collections, and any copy of them a killed rebuild left on
    a Chroma server (``rebuild``: recovering it later would bring their records back);
    nothing for those not there."""
    for name in collection_names(scope):
        for staged in (name, *(name + suffix for suffix in rebuild.STAGING)):
            with contextlib.suppress(MissingCollectionError):
                client.drop(staged)


def registered_at(registry: VectorCollection, scope: Scope) -> float | None:
    """When the scope's registry entry was made (None: it has none). A whole-scope
    purge removes the entry and the next write makes a new one, so the time tells
    one life of a scope from the next, whichever process purged it."""
    entry = registry_entry(registry, scope)
    if entry is None:
        return None
    value = entry.get("created_at")
    return float(value) if isinstance(value, (int, float)) else 0.0


def drop_scope(client: VectorClient, registry: VectorCollection, scope: Scope) -> list[str]:
    """Delete a scope's records and its registry entry: its own collections, and
    any copy of them a killed rebuild left on a Chroma server (``rebuild``:
    recovering that copy later would bring the purged scope back), and its records
    in a bucket. Returns the names of the buckets' collections it deleted from,
    which still hold their bytes until rebuilt (``compaction``)."""
    entry = registry_entry(registry, scope) or {}
    drop_own(client, scope)  # a scope in a bucket may have begun a move
    touched: list[str] = []
    for bucket in buckets_of(entry):
        with contextlib.suppress(MissingCollectionError):
            shares = _open_bucket(client, scope, bucket, create=False)
            for collection in (shares.active, shares.history, shares.log):
                collection.remove()
            touched.extend(bucket_names(bucket))
    registry.remove(ids=[scope_hash(scope)])
    return sorted(touched)


def _scopes_where(registry: VectorCollection, where: dict[str, Any]) -> list[Scope]:
    found = registry.read(where=where, include=["documents"])
    return sorted(Scope.parse(doc) for doc in found["documents"] or [] if doc is not None)


def registered_scopes(registry: VectorCollection, kind: ScopeKind | None = None) -> list[Scope]:
    """Every scope listed in the registry (only of ``kind``, if given), sorted."""
    return _scopes_where(registry, {"kind": {"$ne": CONFIG_ID} if kind is None else kind})


def namespace_scopes_under(registry: VectorCollection, prefix: tuple[str, ...]) -> list[Scope]:
    """The ``namespace`` scopes whose namespace starts with ``prefix`` (non-empty), sorted."""
    return _scopes_where(registry, {_prefix_key(len(prefix)): namespace_id(prefix)})


#: Registry metadata key marking a scope that has held an item with a TTL.
TTL_MARK = "ttl"


def mark_ttl(registry: VectorCollection, scope: Scope) -> None:
    """Note that a (registered) scope holds items with a TTL, for the sweep to visit."""
    registry.patch([scope_hash(scope)], [{TTL_MARK: True}])


def ttl_scopes(registry: VectorCollection) -> list[Scope]:
    """The scopes that have held an item with a TTL, sorted."""
    return _scopes_where(registry, {TTL_MARK: True})


CONFIG_ID = "__config__"


def read_config(registry: VectorCollection) -> dict[str, Any] | None:
    """The store-wide settings (embedder name and dimension), if recorded."""
    found = registry.read(ids=[CONFIG_ID], include=["metadatas"])
    metas = found["metadatas"] or []
    return dict(metas[0]) if metas and metas[0] is not None else None


def write_config(registry: VectorCollection, *, embedder: str, dimension: int) -> None:
    """Record the store-wide settings."""
    registry.put(
        [CONFIG_ID],
        dummy_vectors(1),
        [CONFIG_ID],
        [{"kind": CONFIG_ID, "embedder": embedder, "dimension": dimension}],
    )
