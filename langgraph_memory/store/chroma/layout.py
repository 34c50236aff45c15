"""Where things live in Chroma: a registry, and three collections per scope.

Each scope gets its own collections, named from a hash of the scope key, so a
query can never forget the scope filter and stays as fast as an unfiltered one:

- ``lgm-<hash>-mem``: the active versions (what reads see by default);
- ``lgm-<hash>-hist``: closed versions, with their vectors, for ``as_of`` reads
  and history;
- ``lgm-<hash>-log``: the decision log (JSON documents, 1-dimensional dummy
  vectors since Chroma wants a vector per record).

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
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_memory.scope import NAMESPACE_KIND, Scope, ScopeKind, namespace_id
from langgraph_memory.store.chroma import formats, rebuild
from langgraph_memory.store.chroma.door import (
    MissingCollectionError,
    VectorClient,
    VectorCollection,
)

REGISTRY = "langgraph_memory_registry"


def dummy_vectors(n: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """Placeholder vectors for records that need none (Chroma wants one per record)."""
    return np.ones((n, 1), dtype=np.float32)


def scope_hash(scope: Scope) -> str:
    """A stable 32-hex-digit name part for a scope."""
    return hashlib.sha256(scope.key.encode("utf-8")).hexdigest()[:32]


def collection_names(scope: Scope) -> tuple[str, str, str]:
    """Names of the (active, history, log) collections of ``scope``."""
    h = scope_hash(scope)
    return f"lgm-{h}-mem", f"lgm-{h}-hist", f"lgm-{h}-log"


@dataclass(frozen=True)
class ScopeCollections:
    """Handles on one scope's three collections."""

    scope: Scope
    active: VectorCollection
    history: VectorCollection
    log: VectorCollection


def open_registry(client: VectorClient) -> VectorCollection:
    """The registry collection, created on first use stamped with this release's
    format (an existing one keeps its metadata: see ``migrations``)."""
    return client.open_or_create(REGISTRY, metadata=formats.stamp(None, registry=True))


#: Where an embedded store's background journal lives, under the store's directory
#: (a folder of its own: files beside Chroma's database are Chroma's). The journal
#: is the write path's (``write/journal.py``); the command line reads it too.
JOURNAL_FILE = Path("journal") / "turns.jsonl"

#: The store's reviews (see ``reviews``): one collection for every scope, since a
#: review names two scopes and is read across them.
REVIEWS = "langgraph_memory_reviews"


def is_store_collection(name: str) -> bool:
    """Whether ``name`` is one of the store's collections: the registry, the
    reviews, or a scope's (``lgm-<hash>-mem|hist|log``). Other applications'
    collections on a shared Chroma are never touched.

    >>> is_store_collection(collection_names(Scope("user", "a"))[2]), is_store_collection("docs")
    (True, False)
    """
    if name in (REGISTRY, REVIEWS):
        return True
    parts = name.split("-")
    return len(parts) == 3 and parts[0] == "lgm" and parts[2] in ("mem", "hist", "log")


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


def create_scope(
    client: VectorClient, registry: VectorCollection, scope: Scope
) -> ScopeCollections:
    """List a scope in the registry, then create (or open) its collections.

    The registry first: a registry handle another process's purge made stale fails
    here (Chroma's ``MissingCollectionError``) before any collection exists, so the retry with
    fresh handles (``StoreCore.fresh``) finds no collections and registers the scope
    again. In the other order the retry would find the collections, take the scope
    for made and never list it. A crash between the two leaves a listed scope with
    no collections, which reads as empty."""
    registry.put(
        [scope_hash(scope)],
        dummy_vectors(1),
        [scope.key],
        [
            {
                "kind": scope.kind,
                "scope_id": scope.id,
                "created_at": time.time(),
                **_prefix_ids(scope),
            }
        ],
    )
    names = collection_names(scope)
    handles = []
    for name, role in zip(names, ("mem", "hist", "log"), strict=True):
        handles.append(
            client.open_or_create(
                name,
                metadata=formats.stamp({"lgm_scope": scope.key, "lgm_role": role}),
                cosine=role != "log",
            )
        )
    return ScopeCollections(scope, handles[0], handles[1], handles[2])


def _prefix_key(depth: int) -> str:
    return f"ns{depth}"


def _prefix_ids(scope: Scope) -> dict[str, str]:
    if scope.kind != NAMESPACE_KIND:
        return {}
    labels = scope.namespace
    return {_prefix_key(n): namespace_id(labels[:n]) for n in range(1, len(labels) + 1)}


def open_scope(client: VectorClient, scope: Scope) -> ScopeCollections | None:
    """A scope's collections, or None when the scope has never been written."""
    try:
        handles = [client.open(name) for name in collection_names(scope)]
    except MissingCollectionError:
        return None
    return ScopeCollections(scope, handles[0], handles[1], handles[2])


def registered_at(registry: VectorCollection, scope: Scope) -> float | None:
    """When the scope's registry entry was made (None: it has none). A whole-scope
    purge removes the entry and the next write makes a new one, so the time tells
    one life of a scope from the next, whichever process purged it."""
    found = registry.read(ids=[scope_hash(scope)], include=["metadatas"])
    metadatas = found["metadatas"] or []
    if not found["ids"] or not metadatas or metadatas[0] is None:
        return None
    value = metadatas[0].get("created_at")
    return float(value) if isinstance(value, (int, float)) else 0.0


def drop_scope(client: VectorClient, registry: VectorCollection, scope: Scope) -> None:
    """Delete a scope's collections and its registry entry, and any copy of them
    a killed rebuild left on a Chroma server (``rebuild``): recovering that copy
    later would bring the purged scope back."""
    for name in collection_names(scope):
        for staged in (name, *(name + suffix for suffix in rebuild.STAGING)):
            with contextlib.suppress(MissingCollectionError):
                client.drop(staged)
    registry.remove(ids=[scope_hash(scope)])


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
