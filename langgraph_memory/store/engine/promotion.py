"""Moving a scope that outgrew its bucket into collections of its own.

A scope starts in a bucket (see ``layout``), where a read of it filters a collection
that up to ``layout.BUCKET_SCOPES`` scopes share and ranks its records here; that
is cheap while the scope is small and grows with it. So once a write leaves a scope
in a bucket with more than ``layout.PROMOTE_AT`` versions (active and closed), the
write's last step moves it to its own collections, under the scope's lock:

1. its own collections are made empty (one an earlier move left half-filled is
   dropped first) and every record of its shares is copied into them;
2. its registry entry is changed to say so (``layout.move_home``), under the shared
   lock: from here reads open its own collections;
3. a mark of the move is written in each of the bucket's collections, and its records
   are removed from them (``ScopedCollection.leave``): a handle on its old share that
   another process or thread still holds fails on its next read, and is opened again.

A kill before step 2 leaves the scope in its bucket, whole (the next write moves it
again); a kill after it leaves records in the bucket that no read sees (a scope is
opened where its registry entry says it lives) and that a purge of the scope removes
(``layout.drop_scope``).
The bucket's files keep bytes of the records until it is rebuilt, which a purge of
the scope does (``layout.names_holding``).
"""

from __future__ import annotations

import logging

from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import layout, rebuild
from langgraph_memory.store.chroma.door import VectorCollection
from langgraph_memory.store.chroma.scoped import ScopedCollection
from langgraph_memory.store.engine.engine import Engine

__all__ = ["outgrown", "promote", "promote_if_outgrown"]

log = logging.getLogger("langgraph_memory")


def outgrown(
    cols: layout.ScopeCollections, *, active: int | None = None, history: bool = True
) -> bool:
    """Whether a scope in a bucket holds more versions than a bucket keeps. ``active``:
    its active versions when known (its lexical index's count: no read); ``history``:
    whether to count its closed versions too (one read), which only a write that closed
    versions can have made outgrow the bucket.

    >>> import tempfile
    >>> from langgraph_memory.scope import Scope
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> client = persistent(tempfile.mkdtemp())
    >>> registry = layout.open_registry(client)
    >>> cols = layout.create_scope(client, registry, Scope("user", "a"))
    >>> outgrown(cols)
    False
    """
    if cols.bucket is None:
        return False
    held = cols.active.size() if active is None else active
    if held > layout.PROMOTE_AT or not history:
        return held > layout.PROMOTE_AT
    return held + cols.history.size() > layout.PROMOTE_AT


def promote_if_outgrown(engine: Engine, scope: Scope, closed: bool = True) -> None:
    """Move ``scope`` to its own collections when it outgrew its bucket; the caller
    holds the scope's lock, at the end of a write (``closed``: the write closed
    versions, so its history grew). A move that fails is logged, not raised: the
    write is done, the scope is whole in its bucket (see the module docstring), and
    its next write tries again."""
    cols = engine.collections(scope, create=False)
    if cols is None:
        return
    if not outgrown(cols, active=engine.lexicon.held(scope), history=closed):
        return
    try:
        promote(engine, cols)
    except Exception as exc:
        engine.grew[scope.key] = True  # the next write tries again
        engine.forget_handles()  # reopened from the registry, whichever step it reached
        log.warning(
            "langgraph_memory: %s stays in bucket %s for now: its move to collections of "
            "its own failed (%r); its next write tries again",
            scope.key,
            cols.bucket,
            exc,
        )


def promote(engine: Engine, cols: layout.ScopeCollections) -> layout.ScopeCollections:
    """Move the scope of ``cols`` (in a bucket) to its own collections (see the
    module docstring); the caller holds the scope's lock. Returns its new handles."""
    scope, bucket = cols.scope, cols.bucket
    if bucket is None:
        return cols
    layout.drop_own(engine.client, scope)  # what an earlier move left half-filled
    own = layout.open_own(engine.client, scope, create=True)
    for collection in (own.active, own.history, own.log):
        collection.persist_every_write()
    for source, target in (
        (cols.active, own.active),
        (cols.history, own.history),
        (cols.log, own.log),
    ):
        _copy(source, target)
    with engine.shared_lock():
        layout.move_home(engine.registry, scope, bucket)
    unit = [1.0] + [0.0] * (max(engine.dimension, 1) - 1)
    for share, vector in ((cols.active, unit), (cols.history, unit), (cols.log, [1.0])):
        # A mark that sends stale handles to the new home; none of the store's
        # dimension where no vector was ever stored (the log's are 1-dimensional).
        if isinstance(share, ScopedCollection) and (engine.dimension or share is cols.log):
            share.leave(vector)
        else:
            share.remove()
    engine.moved(own)
    log.info("langgraph_memory: %s moved from bucket %s to its own collections", scope.key, bucket)
    return own


def _copy(source: VectorCollection, target: VectorCollection) -> None:
    records = rebuild.read_all(source)
    ids = records["ids"]
    for start in range(0, len(ids), 1000):
        part = slice(start, start + 1000)
        target.put(
            ids[part],
            records["embeddings"][part],
            records["documents"][part],
            records["metadatas"][part],
        )
