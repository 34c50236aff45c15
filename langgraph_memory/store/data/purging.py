"""What a purge erases: every version of the chains named, the log entries
about them, the purged texts inside the decisions that only showed them, and the
reviews of the purged memories with the copies their approvals made elsewhere.

``purge`` runs it under the store's exclusive gate and then compacts the files
(see ``compaction``) and scrubs the scope's lexical index (see ``lexical``), so that
the text is gone from disk as well. A kill of the purging process at any point
leaves every record it kept: the rebuild is crash-safe (see ``rebuild``), its
children hold the directory's lock until they end, and the next open finishes
the compaction (see ``compaction``) and erases the scope's lexical index.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from typing import Any

from langgraph_memory.checks import check_id
from langgraph_memory.errors import MemoryNotFoundError
from langgraph_memory.records import Decision, Kind, Review
from langgraph_memory.scope import Scope
from langgraph_memory.store import reviews
from langgraph_memory.store.chroma import (
    CHAIN_KEY,
    SOURCES,
    VectorCollection,
    compaction,
    decision_document,
    decision_from_document,
    decision_metadata,
    delete_reviews,
    fetch,
    layout,
    reviews_involving,
)
from langgraph_memory.store.chroma import internals as chroma_internals
from langgraph_memory.store.chroma import rebuild as rebuild_module
from langgraph_memory.store.chroma.door import dummy_vectors
from langgraph_memory.store.engine import Engine, resting_on
from langgraph_memory.store.version import Version

__all__ = [
    "PURGED",
    "chain_keys",
    "drop_review_decisions",
    "follow_reviews",
    "purge",
    "purge_chains",
    "verified_copies",
]

log = logging.getLogger("langgraph_memory")


def purge(engine: Engine, scope: Scope, wanted: list[str] | None) -> dict[str, int]:
    """Hard-delete the chains of ``wanted`` (ids or keys) in ``scope``, or the whole
    scope when None, with their reviews and the copies approved from them (see
    ``follow_reviews``); then rebuild what held them so that no file keeps their
    text, and tell the engine's companions. Returns the counts deleted.

    An embedded store's compaction reaches into Chroma's internals: a chromadb
    they were not checked on is refused here, before anything is deleted
    (``chroma_internals.check``)."""
    if engine.owns_client and engine.path is not None:
        chroma_internals.check()
    with engine.gate.shared():
        copied_into = {Scope.parse(r.to_scope) for r in reviews_involving(engine.client, scope)}
    # The scopes' locks (this one's and those that hold copies approved from it, in
    # key order, as approvals take them), then the whole gate: the rebuild gives
    # collections new ids and the compaction rewrites the database file, so
    # nothing else may touch Chroma meanwhile. Other operations wait; none fails.
    with ExitStack() as held:
        involved = sorted({scope, *copied_into})
        locks = [held.enter_context(engine.scope_lock(s)) for s in involved]
        # Then their buckets' (across processes: see ``Engine.bucket_locks``), which
        # writes of every scope of those buckets take: they are rebuilt below.
        locks += [held.enter_context(lock) for lock in engine.bucket_locks(involved)]
        held.enter_context(engine.gate.exclusive())
        # Innermost: what every scope shares (the registry, the reviews) is deleted from
        # and rebuilt below, and no other process may write it meanwhile.
        locks.append(held.enter_context(engine.shared_lock()))
        for lock in locks:
            lock.check()  # the fencing check (see ``scope_locks``), before anything goes
        if wanted is None:
            engine.access.discard(scope)  # read times of memories about to go
        if wanted is None and engine.shared_queue is not None:
            # Under the lock, before anything is erased: no worker holds these turns
            # now, and none accepted before the purge can be written after it. A queue
            # that does not answer stops the purge here, with nothing deleted.
            engine.shared_queue.discard(scope.key)
        held.enter_context(engine.lexicon.purging(scope))
        # A rebuild a kill stopped (on a server, its whole copy may wait beside the
        # original) is finished first: finished after the deletes below, it would
        # bring back the copy's records. The locks held make this purge the only one.
        holding = layout.names_holding(engine.registry, scope)
        if compaction.recover_staged(engine.client, exclusive=True, names=holding):
            engine.forget_handles()
        cols = engine.collections(scope, create=False)
        if wanted is None:
            counts = {"memories": 0, "decisions": 0, "reviews": 0}
            if cols is not None:
                counts["memories"] = cols.active.size() + cols.history.size()
                counts["decisions"] = cols.log.size()
            shared = layout.drop_scope(engine.client, engine.registry, scope)
            engine.erased(scope)
            # Its entry named the scope; a bucket it lived in holds bytes of its records.
            rebuild = [layout.REGISTRY, *shared]
            purged: list[str] | None = None
        else:
            keys = chain_keys(cols, scope, wanted)  # raises on unknown ids
            if cols is None or not keys:
                return {"memories": 0, "decisions": 0, "reviews": 0}  # nothing to do
            rebuild = layout.names_holding(engine.registry, scope)  # before anything goes
            found, purged = purge_chains(cols, scope, keys)
            counts = {**found, "reviews": 0}
        followed = follow_reviews(engine, scope, purged, counts, rebuild, held)
        rebuild = _existing(engine, rebuild)
        with engine.client_released() as closed:  # reopened with fresh handles after
            if closed and engine.path is not None:
                # Rebuilt in a child process whose heap is scrubbed: this
                # process's freed memory may still hold the purged text.
                compaction.rebuild_in_child(engine.path, rebuild)
            else:
                try:
                    compaction.rebuild_in_place(engine.client, rebuild)
                finally:
                    # Rebuilt collections have new internal ids: drop the old handles.
                    engine.forget_handles()
                if engine.path is not None:
                    log.warning(
                        "langgraph_memory: purged from %s through a Chroma client passed "
                        "in, which the store cannot close: the deleted text may stay in "
                        "the database's free pages until you close it and run "
                        "langgraph_memory.store.compact_directory(%r)",
                        engine.path,
                        str(engine.path),
                    )
        # The lexical index after Chroma: a crash in between leaves the purge's mark,
        # and the next open erases the scope's index (rebuilt from Chroma on its next use).
        engine.lexicon.purged(scope, purged, engine.registry)
        engine.rules.forget(scope.key)  # no purged text kept in memory either
        engine.field_vectors.forget()  # nor its vectors (rebuilt collections: new ids)
        for target, ids in followed.items():
            engine.lexicon.purged(target, ids, engine.registry)
            engine.rules.forget(target.key)
    # Copies kept outside the store (a background writer's journal) go too.
    for companion in engine.companions():
        companion.purged(scope, purged)
        for target, ids in followed.items():
            companion.purged(target, ids)
    return counts


def _existing(engine: Engine, names: list[str]) -> list[str]:
    """``names`` once each, in order, without those no collection has (a scope in a
    bucket has no collections of its own)."""
    return [n for n in dict.fromkeys(names) if rebuild_module.find(engine.client, n) is not None]


def follow_reviews(
    engine: Engine,
    scope: Scope,
    purged: list[str] | None,
    counts: dict[str, int],
    rebuild: list[str],
    held: ExitStack,
) -> dict[Scope, list[str]]:
    """Delete the reviews a purge of ``scope`` takes, and what they put elsewhere.

    A whole scope takes every review proposed from it or into it; purged memories
    (``purged``: their version ids) take the reviews that proposed them. For each
    review proposed from ``scope``, the copy an approval made in the target scope is
    purged (``purge_chains``), when the record there is that copy
    (``verified_copies``), and the target's log entries that deciding the review
    wrote go (``drop_review_decisions``): nothing else of another scope is
    touched. Adds to ``counts`` and to the collections to ``rebuild``; marks each
    target's lexical index in ``held`` while the purge runs. Returns the version ids purged
    in each target scope. Runs with the gate held exclusively.
    """
    gone_ids = None if purged is None else set(purged)
    gone = [
        r
        for r in reviews_involving(engine.client, scope)
        if gone_ids is None or (r.from_scope == scope.key and r.memory_id in gone_ids)
    ]
    if not gone:
        return {}
    by_target: dict[Scope, list[Review]] = {}
    for r in gone:
        if r.from_scope == scope.key:
            by_target.setdefault(Scope.parse(r.to_scope), []).append(r)
    followed: dict[Scope, list[str]] = {}
    for target, proposed in sorted(by_target.items()):
        cols = engine.collections(target, create=False)
        if cols is None:
            continue
        held.enter_context(engine.lexicon.purging(target))
        copies = verified_copies(cols, target, proposed)
        keys = chain_keys(cols, target, copies, strict=False)  # an admin may have purged one
        ids: list[str] = []
        if keys:
            found, ids = purge_chains(cols, target, keys)
            counts["memories"] += found["memories"]
            counts["decisions"] += found["decisions"]
        counts["decisions"] += drop_review_decisions(cols.log, proposed)
        rebuild.extend(layout.names_holding(engine.registry, target))
        followed[target] = ids
    delete_reviews(engine.client, [r.id for r in gone])
    counts["reviews"] = len(gone)
    rebuild.append(layout.REVIEWS)
    return followed


def verified_copies(
    cols: layout.ScopeCollections, target: Scope, proposed: list[Review]
) -> list[str]:
    """The ids that ``proposed`` reviews name as their copies in ``target``, kept
    only where the record there is that copy (``reviews.is_copy``): a purge
    deletes in another scope nothing but what an approval of the store made."""
    named = sorted({r.result_id for r in proposed if r.result_id})
    if not named:
        return []
    held = {v.memory.id: v.memory for v in fetch(cols.active, target, ids=named)}
    held.update({v.memory.id: v.memory for v in fetch(cols.history, target, ids=named)})
    verified = []
    for r in proposed:
        if not r.result_id or r.result_id not in held:
            continue  # never copied, or purged there already
        if reviews.is_copy(held[r.result_id], r):
            verified.append(r.result_id)
        else:
            log.warning(
                "langgraph_memory: review %s names memory %s of %s as its copy, but that "
                "memory is no copy of it; the purge leaves it alone",
                r.id,
                r.result_id,
                target.key,
            )
    return verified


def drop_review_decisions(log_collection: VectorCollection, proposed: list[Review]) -> int:
    """Delete the log entries that deciding the ``proposed`` reviews wrote in their
    target scope (``reviews.logged_for``): they quote the purged memory. Entries
    the target logged about anything else stay. Returns how many went."""
    ids = sorted({r.memory_id for r in proposed} | {r.result_id for r in proposed if r.result_id})
    if not ids:
        return 0
    about: Any = {"$or": [{"target_id": {"$in": ids}}, {"result_id": {"$in": ids}}]}
    found = log_collection.read(where=about, include=["documents"])
    doomed = [
        log_id
        for log_id, doc in zip(found["ids"], found["documents"] or [], strict=True)
        if any(reviews.logged_for(decision_from_document(doc), r) for r in proposed)
    ]
    if doomed:
        log_collection.remove(ids=doomed)
    return len(doomed)


def chain_keys(
    cols: layout.ScopeCollections | None, scope: Scope, ids: list[str], *, strict: bool = True
) -> list[str]:
    """The chain keys of memories named by id or key, in four reads however many.

    Raises MemoryNotFoundError, naming every unknown one, before anything changes
    (with ``strict=False``, unknown ones are left out).
    """
    for memory_id in ids:
        check_id(memory_id)
    keys: dict[str, str] = {}  # id or key asked for -> chain key
    if cols is not None and ids:
        for collection in (cols.active, cols.history):
            found = collection.read(ids=ids, include=["metadatas"])
            for record_id, meta in zip(found["ids"], found["metadatas"] or [], strict=True):
                keys[record_id] = str(meta.get(CHAIN_KEY, record_id))
        rest = [i for i in ids if i not in keys]
        for collection in (cols.active, cols.history):
            if rest:
                by_key = {CHAIN_KEY: {"$in": rest}}
                for meta in collection.read(where=by_key, include=["metadatas"])["metadatas"] or []:
                    keys[str(meta[CHAIN_KEY])] = str(meta[CHAIN_KEY])
    missing = [i for i in ids if i not in keys]
    if missing and strict:
        raise MemoryNotFoundError(
            f"no memory {', '.join(map(repr, missing))} in scope {scope.key}; nothing was purged"
        )
    return sorted(set(keys.values()))


#: Shortest purged text that is looked for inside other decisions' texts: a
#: shorter one ("x") would match unrelated decisions.
MIN_QUOTED_CHARS = 12
#: What a purged memory's id and text become in the decisions that showed it.
PURGED = "[purged]"


def purge_chains(
    cols: layout.ScopeCollections, scope: Scope, keys: list[str]
) -> tuple[dict[str, int], list[str]]:
    """Delete every version of the chains ``keys``, the episodes they cite, and
    the log entries about them.

    An episode a purged version names in its ``sources`` (the user's words it
    was taken from) goes with it: a hard delete of a fact that left the words
    that said it would not erase it. So does every reflection resting on a
    purged version (see ``engine.core.resting_on``), active or archived. Other memories that
    cited a purged one lose that link. A decision goes when it created, changed
    or removed a purged version, when it belongs to the same turn as one that
    does and names no memory itself (a failed or rejected fact of that turn), or
    when its fact or text is a purged text. Decisions that only showed a purged
    memory to the model keep their place in the log with that memory's id and
    text replaced by ``[purged]``. Returns the counts and the purged version ids.
    """
    versions = _chains(cols, scope, keys)
    cited = _cited_episodes(cols, scope, versions) - set(keys)
    if cited:
        keys = sorted({*keys, *cited})
        versions += _chains(cols, scope, sorted(cited))
    # A reflection drawn from a purged memory, archived or not, would keep what it said.
    gone = {v.memory.id for v in versions}
    resting = {v.key for v in resting_on([cols.active, cols.history], scope, gone)}
    if resting - set(keys):
        versions += _chains(cols, scope, sorted(resting - set(keys)))
        keys = sorted({*keys, *resting})
    where = {CHAIN_KEY: {"$in": keys}}
    ids = {v.memory.id for v in versions}
    texts = {_plain(v.memory.text) for v in versions}
    for collection in (cols.active, cols.history):
        collection.remove(where=where)
        unlink_sources(collection, ids)
    found = cols.log.read(include=["documents"])
    logged = [
        (log_id, decision_from_document(doc))
        for log_id, doc in zip(found["ids"], found["documents"] or [], strict=True)
    ]
    doomed = {log_id for log_id, d in logged if d.target_id in ids or d.result_id in ids}
    turns = {d.turn_id for log_id, d in logged if log_id in doomed and d.turn_id}
    for log_id, d in logged:
        unlinked = not d.target_id and not d.result_id
        if (unlinked and d.turn_id in turns) or _quotes(d, texts):
            doomed.add(log_id)
    redacted = [
        _redact(d, ids, texts)
        for log_id, d in logged
        if log_id not in doomed and (ids.intersection(d.shown_ids) or _mentions(d, texts))
    ]
    if doomed:
        cols.log.remove(ids=sorted(doomed))
    if redacted:
        # Vectors go with documents on every write: without them Chroma would
        # embed the documents with its own default model, which downloads.
        cols.log.patch(
            [d.id for d in redacted if d.id],
            [decision_metadata(d) for d in redacted],
            vectors=dummy_vectors(len(redacted)),
            documents=[decision_document(d) for d in redacted],
        )
    return {"memories": len(ids), "decisions": len(doomed)}, sorted(ids)


def _chains(cols: layout.ScopeCollections, scope: Scope, keys: list[str]) -> list[Version]:
    where = {CHAIN_KEY: {"$in": keys}}
    return fetch(cols.active, scope, where=where) + fetch(cols.history, scope, where=where)


def _cited_episodes(
    cols: layout.ScopeCollections, scope: Scope, versions: list[Version]
) -> set[str]:
    """The chain keys of what ``versions`` took their words from: the episodes they
    name in their sources, and the closed memories a memory (not a reflection)
    names there: the originals a consolidation merged into it, which say what it says."""
    cited = sorted({s for v in versions for s in v.memory.sources})
    if not cited:
        return set()
    merged = sorted(
        {s for v in versions if v.memory.kind != Kind.REFLECTION for s in v.memory.sources}
    )
    found = fetch(cols.active, scope, ids=cited) + fetch(cols.history, scope, ids=cited)
    closed = {v.key for v in fetch(cols.history, scope, ids=merged)} if merged else set()
    return {v.key for v in found if v.memory.is_episode} | closed


def unlink_sources(collection: VectorCollection, ids: set[str]) -> int:
    """Drop the purged ``ids`` from the ``sources`` of every record left in
    ``collection`` (a fact keeps no link to a purged episode); how many changed.

    Chroma cannot match part of a metadata string, so every record's metadata
    is read: a purge rebuilds the scope's files anyway.
    """
    found = collection.read(include=["metadatas"])
    changed: dict[str, str | None] = {}
    for record_id, meta in zip(found["ids"], found["metadatas"] or [], strict=True):
        linked = str(meta.get(SOURCES) or "").split(",")
        kept = [s for s in linked if s and s not in ids]
        if len(kept) < len([s for s in linked if s]):
            changed[record_id] = ",".join(kept) or None  # None drops the key
    if changed:
        collection.patch(list(changed), [{SOURCES: value} for value in changed.values()])
    return len(changed)


def _plain(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _quotes(decision: Decision, texts: set[str]) -> bool:
    """Whether the decision's own fact or text is one of the purged texts."""
    return bool({_plain(decision.fact), _plain(decision.text)} & (texts - {""}))


def _mentions(decision: Decision, texts: set[str]) -> bool:
    """Whether a purged text (long enough to be told apart) appears in the
    decision's model output or error."""
    return _quoted_in(decision.raw, texts) or _quoted_in(decision.error, texts)


def _quoted_in(field: str | None, texts: set[str]) -> bool:
    plain = _plain(field)
    return any(t in plain for t in texts if len(t) >= MIN_QUOTED_CHARS)


def _redact(decision: Decision, ids: set[str], texts: set[str]) -> Decision:
    hidden = [sid in ids for sid in decision.shown_ids]
    shown = list(decision.shown_texts)
    raw, error = decision.raw, decision.error
    if raw is not None and (any(hidden) or _quoted_in(raw, texts)):
        raw = "[redacted: it showed a purged memory]"
    if _quoted_in(error, texts):
        error = "[redacted: it quoted a purged memory]"
    return decision.with_(
        shown_ids=tuple(
            PURGED if h else sid for sid, h in zip(decision.shown_ids, hidden, strict=True)
        ),
        shown_texts=tuple(
            PURGED if i < len(hidden) and hidden[i] else text for i, text in enumerate(shown)
        ),
        raw=raw,
        error=error,
    )
