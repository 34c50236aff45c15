"""Reviews: the one way a memory moves from a scope into a wider one.

Nothing moves up by itself: a lesson learned from one user stays in that user's
scope until someone proposes it and a reviewer approves it. ``propose`` records a
pending :class:`~langgraph_memory.model.Review` (and logs it in the source scope);
``approve`` copies the proposed memory into the target scope as a new memory whose
metadata names where it came from (``review_id``, ``reviewed_from``,
``reviewed_memory``) and logs the decision in both scopes; ``reject`` logs the
refusal in both. A review is decided once. A review moves a memory to a wider
scope only (session < user < agent < org), never sideways from one user to
another; approving into (or rejecting for) an org scope takes an admin view.

Where reviews live: one Chroma collection for the whole store
(``layout.REVIEWS``), a record per review (the review's JSON as document; its
scopes, status, memory id and time as metadata). A review names two scopes and
is read across them: a reviewer lists what waits for a target scope (or for
all), a person's export or purge finds what was proposed from their scope. In
one collection each is one filtered read; kept in the scopes' own collections
each would be a copy in both scopes or a scan of every scope. Reviews are never
searched by similarity, so the reason for a collection per scope (fast vector
queries) does not hold for them. A purge deletes its reviews and rebuilds the
collection, as it rebuilds the scope's own (see ``purging``).

An approved copy is the source's words in another scope: a purge of the source
memory (or of its scope) purges the copy with its reviews, as it purges
reflections drawn from it. A lesson meant to outlive its source is written anew
in the target scope, in the agent's own words.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> m = store.add("user:alice", "Refunds take 5 days.")
>>> review = store.propose("user:alice", m.id, "agent:support")
>>> store.active("agent:support")
[]
>>> done = store.approve(review.id)
>>> [c.text for c in store.active("agent:support")], done.status.value
(['Refunds take 5 days.'], 'approved')
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any

from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection

from langgraph_memory.checks import check_id
from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidMemoryError,
    MemoryArchivedError,
    ReviewDecidedError,
    ReviewNotFoundError,
)
from langgraph_memory.model import (
    Decision,
    Memory,
    Op,
    Review,
    ReviewStatus,
    Status,
    check_metadata,
)
from langgraph_memory.scope import BREADTH, Scope
from langgraph_memory.store import decision_log, layout
from langgraph_memory.store.collection_io import chunks, fetch
from langgraph_memory.store.core import StoreCore
from langgraph_memory.store.records import USER_PREFIX, all_of, to_epoch

__all__ = [
    "REVIEWED_FROM",
    "REVIEWED_MEMORY",
    "REVIEW_ID",
    "decide",
    "delete",
    "involving",
    "listed",
    "propose",
    "restore",
]

#: Metadata of an approved copy: the review, and the scope and memory it came from.
REVIEW_ID = "review_id"
REVIEWED_FROM = "reviewed_from"
REVIEWED_MEMORY = "reviewed_memory"


# -- records ---------------------------------------------------------------------------


def _metadata(review: Review) -> dict[str, str | float]:
    return {
        "from_scope": review.from_scope,
        "to_scope": review.to_scope,
        "memory_id": review.memory_id,
        "status": review.status.value,
        "created_at": to_epoch(review.created_at),
    }


def save(client: ClientAPI, reviews: Sequence[Review]) -> None:
    """Write reviews (a review's id is its record's: a decided one replaces it)."""
    if not reviews:
        return
    collection = layout.open_reviews(client, create=True)
    assert collection is not None
    collection.upsert(
        ids=[r.id for r in reviews],
        # A vector goes with every document: without one Chroma would embed the
        # document with its own default model, which downloads.
        embeddings=layout.dummy_vectors(len(reviews)),
        documents=[json.dumps(r.to_dict(), ensure_ascii=False, sort_keys=True) for r in reviews],
        metadatas=[_metadata(r) for r in reviews],
    )


def _read(collection: Collection | None, **query: Any) -> list[Review]:
    if collection is None:
        return []
    found = collection.get(include=["documents"], **query)
    reviews = [Review.from_dict(json.loads(doc)) for doc in found["documents"] or []]
    return sorted(reviews, key=lambda r: (r.created_at, r.id))


def get(client: ClientAPI, review_id: str) -> Review:
    """The review with this id; ReviewNotFoundError otherwise."""
    check_id(review_id, "review id")
    found = _read(layout.open_reviews(client, create=False), ids=[review_id])
    if not found:
        raise ReviewNotFoundError(
            f"no review {review_id!r} in this store; store.reviews(status=None) lists them "
            "(a purge of the memory it proposed takes its reviews too)"
        )
    return found[0]


def listed(
    client: ClientAPI,
    *,
    to_scope: Scope | None = None,
    from_scope: Scope | None = None,
    status: ReviewStatus | None = None,
) -> list[Review]:
    """The reviews into ``to_scope``, from ``from_scope``, with ``status`` (None:
    any), oldest first, in one read."""
    clauses: list[dict[str, Any]] = []
    if to_scope is not None:
        clauses.append({"to_scope": to_scope.key})
    if from_scope is not None:
        clauses.append({"from_scope": from_scope.key})
    if status is not None:
        clauses.append({"status": status.value})
    return _read(layout.open_reviews(client, create=False), where=all_of(clauses))


def involving(client: ClientAPI, scope: Scope) -> list[Review]:
    """The reviews proposed from ``scope`` or into it, oldest first: what its export holds."""
    where = {"$or": [{"from_scope": scope.key}, {"to_scope": scope.key}]}
    return _read(layout.open_reviews(client, create=False), where=where)


def delete(client: ClientAPI, ids: Sequence[str]) -> None:
    """Delete reviews by id (their bytes leave the disk when the collection is rebuilt)."""
    collection = layout.open_reviews(client, create=False)
    if collection is None:
        return
    for part in chunks(list(ids), 1000):
        collection.delete(ids=list(part))


def restore(client: ClientAPI, reviews: Sequence[Review]) -> int:
    """Write the reviews of an import that the store does not hold yet; how many.

    A review names two scopes, so the exports of both hold it: the second import
    finds it there and leaves the store's copy as it is.
    """
    if not reviews:
        return 0
    held = layout.open_reviews(client, create=False)
    known = set() if held is None else set(held.get(ids=[r.id for r in reviews], include=[])["ids"])
    new = [r for r in reviews if r.id not in known]
    save(client, new)
    return len(new)


# -- proposing and deciding --------------------------------------------------------------


def _provenance(review_id: str, source: Scope, memory_id: str) -> dict[str, str]:
    return {REVIEW_ID: review_id, REVIEWED_FROM: source.key, REVIEWED_MEMORY: memory_id}


def _check_upward(source: Scope, target: Scope) -> None:
    for scope in (source, target):
        if scope.kind not in BREADTH:
            raise InvalidArgumentError(
                f"{scope.key} is a {scope.kind} scope (a LangGraph namespace of its own); a "
                f"review moves a memory between {', '.join(BREADTH)} scopes"
            )
    if BREADTH[target.kind] <= BREADTH[source.kind]:
        wider = [k for k, b in BREADTH.items() if b > BREADTH[source.kind]]
        raise InvalidArgumentError(
            f"a review moves a memory into a wider scope, and {target.key} is not wider "
            f"than {source.key} (session < user < agent < org): propose it to "
            + (f"a scope of kind {' or '.join(wider)}" if wider else "nothing wider")
        )


def propose(
    core: StoreCore,
    source: Scope,
    memory_id: str,
    target: Scope,
    *,
    note: str | None,
    when: datetime,
) -> Review:
    """Record a pending review of the active memory ``memory_id`` of ``source`` for
    ``target``, and log it in ``source``; the pending review already asking that
    is returned instead of a second."""
    _check_upward(source, target)
    if note is not None and not isinstance(note, str):
        raise InvalidArgumentError(f"note must be a str or None, got {type(note).__name__}")
    with core.writing(source) as engine:
        memory = core.active_version(source, memory_id, with_vector=False).memory
        if memory.is_episode:
            raise InvalidArgumentError(
                f"memory {memory.id} is an episode (what a user said, verbatim); propose "
                "a fact taken from it instead (store.decisions(scope, id) names them)"
            )
        for pending in listed(engine.client, to_scope=target, status=ReviewStatus.PENDING):
            if pending.from_scope == source.key and pending.memory_id == memory.id:
                return pending
        review_id = decision_log.log_id()
        try:  # the copy's metadata, checked now rather than at approval
            check_metadata({**memory.metadata, **_provenance(review_id, source, memory.id)})
        except InvalidMemoryError as exc:
            raise InvalidMemoryError(f"memory {memory.id} cannot be copied: {exc}") from None
        review = Review(review_id, source.key, memory.id, target.key, memory, when, note=note)
        core.append_log(
            source,
            [
                Decision(
                    op=Op.NOOP,
                    fact=memory.text,
                    target_id=memory.id,
                    note=f"review {review_id}: proposed for {target.key}"
                    + (f" ({note})" if note else ""),
                )
            ],
            when,
        )
        save(engine.client, [review])
    return review


@contextmanager
def _both_scopes(core: StoreCore, scopes: Sequence[Scope]) -> Iterator[None]:
    """The scopes' locks, in the order of their keys (so two such holds cannot
    deadlock), then the gate shared."""
    engine = core.live()
    with ExitStack() as stack:
        for scope in sorted(set(scopes)):
            stack.enter_context(engine.scope_lock(scope))
        stack.enter_context(engine.gate.shared())
        yield


def decide(
    core: StoreCore,
    review_id: str,
    *,
    approve: bool,
    reason: str | None,
    when: datetime,
) -> Review:
    """Approve (copy the memory into the target scope) or reject a pending review;
    log the decision in both scopes; return the decided review."""
    if reason is not None and not isinstance(reason, str):
        raise InvalidArgumentError(f"reason must be a str or None, got {type(reason).__name__}")
    with core.reading() as engine:
        review = get(engine.client, review_id)
    source, target = Scope.parse(review.from_scope), Scope.parse(review.to_scope)
    core.check_write(target)  # an org scope: only an admin decides what enters it
    with _both_scopes(core, [source, target]):
        review = get(core.live().client, review_id)  # as it is now, under the locks
        if review.status is not ReviewStatus.PENDING:
            raise ReviewDecidedError(
                f"review {review_id} was {review.status.value} at "
                f"{review.decided_at.isoformat() if review.decided_at else '?'}; a review is "
                "decided once (propose the memory again for a new one)"
            )
        why = f": {reason}" if reason else ""
        if approve:
            _check_current(core, review)
            copy = _copy(core, review, when)
            decided = replace(
                review,
                status=ReviewStatus.APPROVED,
                decided_at=when,
                reason=reason,
                result_id=copy.id,
            )
            in_target = Decision(
                op=Op.ADD,
                fact=review.text,
                text=review.text,
                result_id=copy.id,
                note=f"review {review.id} approved: from {source.key}, memory "
                f"{review.memory_id}{why}",
            )
            in_source = Decision(
                op=Op.NOOP,
                fact=review.text,
                target_id=review.memory_id,
                note=f"review {review.id} approved: copied into {target.key} as {copy.id}{why}",
            )
        else:
            decided = replace(review, status=ReviewStatus.REJECTED, decided_at=when, reason=reason)
            refused = Decision(
                op=Op.NOOP,
                fact=review.text,
                target_id=review.memory_id,
                status=Status.REJECTED,
                note=f"review {review.id} rejected: from {source.key} for {target.key}{why}",
            )
            in_target = in_source = refused
        core.append_log(target, [in_target], when)
        core.append_log(source, [in_source], when)
        save(core.live().client, [decided])
    return decided


def _check_current(core: StoreCore, review: Review) -> None:
    """Refuse to approve a version that stopped being current after it was proposed."""
    source = Scope.parse(review.from_scope)
    version = core.version(source, review.memory_id)
    if version.memory.active:
        return
    current = [v.memory.id for v in core.chain(source, version.key) if v.memory.active]
    hint = f"its current version is {current[0]!r}: propose that one" if current else "it has none"
    raise MemoryArchivedError(
        f"memory {review.memory_id} of {source.key} was archived or updated after review "
        f"{review.id} proposed it ({hint}); reject this review"
    )


def _copy(core: StoreCore, review: Review, when: datetime) -> Memory:
    """The approved memory's copy in the target scope: found, when an approval cut
    short by a crash wrote it already; else written now."""
    target = Scope.parse(review.to_scope)
    cols = core.collections(target)
    if cols is not None:
        done = fetch(cols.active, target, where={USER_PREFIX + REVIEW_ID: review.id})
        if done:
            return done[0].memory
    m = review.memory
    provenance = _provenance(review.id, Scope.parse(review.from_scope), review.memory_id)
    built = Memory(
        id="",
        text=m.text,
        scope=target.key,
        created_at=when,
        kind=m.kind,
        importance=m.importance,
        last_accessed=when,
        source=m.source,
        trust=m.trust,
        event_time=m.event_time,
        metadata={**m.metadata, **provenance},
    )
    return core.add_new(target, [built])[0]
