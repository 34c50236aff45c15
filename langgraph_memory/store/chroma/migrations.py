"""Migrations: the numbered steps that bring a store of an older format to this
release's (see ``formats`` for the formats and who wrote them).

Each step makes one format from the one before it, is idempotent (run twice, it
changes nothing the second time), and says beforehand how many records it
touches. The store's format (``lgm_format`` on the registry) is recorded only
after a step completes, so a migration killed half way is run again from the
start of that step, safely.

A store opens as it is when its format is this release's. An older one is
migrated on open when every step it needs is additive and touches at most
``AUTOMATIC_MAX`` records (no data is rewritten, and it takes moments);
otherwise opening refuses with ``StoreFormatError`` naming the command that
migrates it (``langgraph-memory migrate``, which backs the store up first: see
``upgrade``). A newer store is always refused (``formats.check_readable``).

>>> [(step.to, step.what) for step in STEPS]  # doctest: +NORMALIZE_WHITESPACE
[(2, 'stamp the format on every collection of the store'),
 (3, 'stamp format 3 (records may say indexed: false) on every collection'),
 (4, 'stamp format 4 (records may hold a vector per field) on every collection'),
 (5, 'stamp format 5 (small scopes may share bucket collections) on every collection'),
 (6, 'stamp format 6 (bucketed scopes keep their lexical entries in one file) on every collection')]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langgraph_memory.errors import StoreFormatError
from langgraph_memory.store.chroma import formats, layout
from langgraph_memory.store.chroma.door import VectorClient, VectorCollection

__all__ = [
    "AUTOMATIC_MAX",
    "STEPS",
    "Step",
    "migrate",
    "open_current_registry",
    "plan",
    "store_format",
]

log = logging.getLogger("langgraph_memory")

#: A store migrates on open when its steps touch at most this many records.
AUTOMATIC_MAX = 3000


@dataclass(frozen=True)
class Step:
    """One migration: from format ``to - 1`` to format ``to``.

    ``count(client)`` says how many records it would touch; ``apply(client)``
    does it (idempotent) and returns how many it touched. ``additive``: it only
    adds (a stamp, a field), so it may run on open when small.
    """

    to: int
    what: str
    count: Callable[[VectorClient], int]
    apply: Callable[[VectorClient], int]
    additive: bool


# -- the steps ----------------------------------------------------------------------------


def store_collections(client: VectorClient) -> list[str]:
    """The names of the collections this store owns in the client's database: the
    registry, the reviews, and every scope's three (``lgm-<hash>-mem|hist|log``).
    Other applications' collections on the same server are left alone."""
    return sorted(n for n in layout.all_collection_names(client) if layout.is_store_collection(n))


def _unstamped(client: VectorClient) -> list[VectorCollection]:
    """The store's collections (but the registry) without a format stamp."""
    out = []
    for name in store_collections(client):
        if name == layout.REGISTRY:
            continue  # its stamp is the store's format, recorded after each step
        collection = client.open(name)
        if formats.FORMAT_KEY not in (collection.metadata or {}):
            out.append(collection)
    return out


def _stamp_collections(client: VectorClient) -> int:
    """Format 2: every collection says which format wrote it."""
    todo = _unstamped(client)
    for collection in todo:
        # restamp() replaces the whole metadata: the old keys are carried over.
        collection.restamp(formats.stamp(collection.metadata, format=2))
    return len(todo)


def _older_than(client: VectorClient, format: int) -> list[VectorCollection]:
    """The store's collections (but the registry) stamped with a format before ``format``."""
    out = []
    for name in store_collections(client):
        if name == layout.REGISTRY:
            continue
        collection = client.open(name)
        if formats.stored_format(collection.metadata) < format:
            out.append(collection)
    return out


def _stamp_format_3(client: VectorClient) -> int:
    """Format 3: a record of an item put with ``index=False`` says ``indexed: false``
    and holds the zero vector. No record of an older format is such an item (those
    releases embedded every item), so no record changes: each collection is only
    stamped, saying its records may carry the new key."""
    return _stamp_as(client, 3)


def _stamp_format_4(client: VectorClient) -> int:
    """Format 4: a BaseStore item whose index paths hold several texts keeps a vector
    per text (``fields``, ``field_vectors``, ``index_paths`` in its record) beside its
    joined text's, and a search scores it by its best. Older records have one vector
    (their joined text's) and are left as they are: they keep scoring by it until
    they are put again. Each collection is only stamped."""
    return _stamp_as(client, 4)


def _stamp_format_5(client: VectorClient) -> int:
    """Format 5: a new scope lives in a bucket's collections, shared with other small
    scopes, until it grows (``layout``); its registry entry names the bucket. Every
    scope of an older store has its own collections, which format 5 reads as before
    (an entry without ``home``): each collection is only stamped."""
    return _stamp_as(client, 5)


def _stamp_format_6(client: VectorClient) -> int:
    """Format 6: an embedded store keeps the lexical entries of its scopes in buckets
    in one file (``lexical/buckets.db``, see ``store/lexical/bucket_entries``), kept
    in step with each write, which a first read takes instead of the bucket's vector
    index. Derived data, built from Chroma on each scope's next use, so no record
    changes; the stamp is what keeps a release that does not write that file (format
    5) from opening the store and leaving it behind. Each collection is only stamped."""
    return _stamp_as(client, 6)


def _stamp_as(client: VectorClient, format: int) -> int:
    """Stamp ``format`` on each collection of an older one; how many were stamped."""
    todo = _older_than(client, format)
    for collection in todo:
        collection.restamp(formats.stamp(collection.metadata, format=format))
    return len(todo)


STEPS: tuple[Step, ...] = (
    Step(
        to=2,
        what="stamp the format on every collection of the store",
        count=lambda client: len(_unstamped(client)),
        apply=_stamp_collections,
        additive=True,
    ),
    Step(
        to=3,
        what="stamp format 3 (records may say indexed: false) on every collection",
        count=lambda client: len(_older_than(client, 3)),
        apply=_stamp_format_3,
        additive=True,
    ),
    Step(
        to=4,
        what="stamp format 4 (records may hold a vector per field) on every collection",
        count=lambda client: len(_older_than(client, 4)),
        apply=_stamp_format_4,
        additive=True,
    ),
    Step(
        to=5,
        what="stamp format 5 (small scopes may share bucket collections) on every collection",
        count=lambda client: len(_older_than(client, 5)),
        apply=_stamp_format_5,
        additive=True,
    ),
    Step(
        to=6,
        what="stamp format 6 (bucketed scopes keep their lexical entries in one file) "
        "on every collection",
        count=lambda client: len(_older_than(client, 6)),
        apply=_stamp_format_6,
        additive=True,
    ),
)


# -- running them -------------------------------------------------------------------------


def open_current_registry(client: VectorClient, where: str) -> VectorCollection:
    """The registry, once the store is of this release's format: a new store is
    created stamped; an older one is migrated when its steps are additive and
    small, else refused with the command that migrates it; a newer one is
    refused before anything is written. ``where`` names the store in messages.
    """
    registry = layout.open_registry(client)  # created stamped when the store is new
    found = store_format(registry)
    formats.check_readable(found, where)
    registry.persist_now_and_then()  # readable: now it may be written
    if found == formats.FORMAT:
        return registry
    steps = [(step, step.count(client)) for step in _pending(found)]
    touched = sum(n for _, n in steps)
    if all(step.additive for step, _ in steps) and touched <= AUTOMATIC_MAX:
        migrate(client, where)
        return layout.open_registry(client)  # a handle with the new metadata
    raise StoreFormatError(
        f"{where} was written by format {found} ({formats.RELEASES.get(found, '?')}); this "
        f"release needs format {formats.FORMAT}, a migration of {touched} records "
        f"({'; '.join(step.what for step, _ in steps)}). Run `langgraph-memory migrate` on "
        "it (--path DIR or --server HOST:PORT): it backs the store up first; --dry-run "
        "shows the steps."
    )


def store_format(registry: VectorCollection) -> int:
    """The format recorded on the store's registry."""
    return formats.stored_format(registry.metadata)


def plan(client: VectorClient) -> list[tuple[Step, int]]:
    """The steps a migration of the store would run, each with the records it
    would touch; empty when the store is of this release's format."""
    found = store_format(layout.open_registry(client))
    formats.check_readable(found, "the store")
    return [(step, step.count(client)) for step in _pending(found)]


def migrate(
    client: VectorClient,
    where: str = "the store",
    *,
    on_step: Callable[[Step, int], object] | None = None,
) -> list[tuple[Step, int]]:
    """Run every pending step in order, recording the format after each; return
    each step with the records it touched. ``on_step`` is told of each done."""
    registry = layout.open_registry(client)
    found = store_format(registry)
    formats.check_readable(found, where)
    done: list[tuple[Step, int]] = []
    for step in _pending(found):
        touched = step.apply(client)
        # Recorded only now: a migration killed during the step runs it again.
        registry.restamp(formats.stamp(registry.metadata, format=step.to, registry=True))
        log.info("langgraph_memory: %s migrated to format %d (%d records)", where, step.to, touched)
        done.append((step, touched))
        if on_step is not None:
            on_step(step, touched)
    return done


def _pending(found: int) -> Sequence[Step]:
    return [step for step in STEPS if step.to > found]
