"""Reviews as records: one collection for the whole store, a record per review.

A review's JSON is its record's document; its scopes, status, memory id and time
are its metadata, so that a reviewer's list, an export's and a purge's are each
one filtered read (why one collection: see ``store/reviews.py``). The rules of
proposing and deciding are ``reviews``'; this module only keeps the records.

>>> import tempfile
>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory
>>> from langgraph_memory.store.chroma.door import persistent
>>> client = persistent(tempfile.mkdtemp())
>>> t = datetime(2026, 1, 5, tzinfo=timezone.utc)
>>> m = Memory(id="0a1b2c3d", text="Refunds take 5 days.", scope="user:alice", created_at=t)
>>> save_reviews(client, [Review("r1", "user:alice", m.id, "agent:support", m, t)])
>>> [r.id for r in reviews_involving(client, Scope.parse("agent:support"))]
['r1']
>>> known_reviews(client, ["r1", "r2"])
{'r1'}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langgraph_memory.checks import check_id
from langgraph_memory.errors import ReviewNotFoundError
from langgraph_memory.records import Review, ReviewStatus
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import layout
from langgraph_memory.store.chroma.codec import all_of, to_epoch
from langgraph_memory.store.chroma.collection_io import chunks
from langgraph_memory.store.chroma.door import VectorClient, VectorCollection, dummy_vectors

__all__ = [
    "delete_reviews",
    "get_review",
    "known_reviews",
    "list_reviews",
    "restore_reviews",
    "reviews_involving",
    "save_reviews",
]


def _metadata(review: Review) -> dict[str, str | float]:
    return {
        "from_scope": review.from_scope,
        "to_scope": review.to_scope,
        "memory_id": review.memory_id,
        "status": review.status.value,
        "created_at": to_epoch(review.created_at),
    }


def save_reviews(client: VectorClient, reviews: Sequence[Review]) -> None:
    """Write reviews (a review's id is its record's: a decided one replaces it)."""
    if not reviews:
        return
    collection = layout.open_reviews(client, create=True)
    assert collection is not None
    collection.put(
        [r.id for r in reviews],
        # A vector goes with every document: without one Chroma would embed the
        # document with its own default model, which downloads.
        dummy_vectors(len(reviews)),
        [json.dumps(r.to_dict(), ensure_ascii=False, sort_keys=True) for r in reviews],
        [_metadata(r) for r in reviews],
    )


def _read(collection: VectorCollection | None, **query: Any) -> list[Review]:
    if collection is None:
        return []
    found = collection.read(include=["documents"], **query)
    reviews = [Review.from_dict(json.loads(doc)) for doc in found["documents"] or [] if doc]
    return sorted(reviews, key=lambda r: (r.created_at, r.id))


def get_review(client: VectorClient, review_id: str) -> Review:
    """The review with this id; ReviewNotFoundError otherwise."""
    check_id(review_id, "review id")
    found = _read(layout.open_reviews(client, create=False), ids=[review_id])
    if not found:
        raise ReviewNotFoundError(
            f"no review {review_id!r} in this store; store.reviews(status=None) lists them "
            "(a purge of the memory it proposed takes its reviews too)"
        )
    return found[0]


def list_reviews(
    client: VectorClient,
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


def reviews_involving(client: VectorClient, scope: Scope) -> list[Review]:
    """The reviews proposed from ``scope`` or into it, oldest first: what its export holds."""
    where = {"$or": [{"from_scope": scope.key}, {"to_scope": scope.key}]}
    return _read(layout.open_reviews(client, create=False), where=where)


def delete_reviews(client: VectorClient, ids: Sequence[str]) -> None:
    """Delete reviews by id (their bytes leave the disk when the collection is rebuilt)."""
    collection = layout.open_reviews(client, create=False)
    if collection is None:
        return
    for part in chunks(list(ids), 1000):
        collection.remove(ids=list(part))


def known_reviews(client: VectorClient, ids: Sequence[str]) -> set[str]:
    """Which of the review ``ids`` the store holds, in one read."""
    held = layout.open_reviews(client, create=False)
    if held is None or not ids:
        return set()
    return set(held.read(ids=list(ids))["ids"])


def restore_reviews(client: VectorClient, reviews: Sequence[Review]) -> int:
    """Write the reviews of an import that the store does not hold yet; how many.

    A review names two scopes, so the exports of both hold it: the second import
    finds it there and leaves the store's copy as it is. What an import may
    restore at all is checked before (see ``data/import_checks.py``).
    """
    if not reviews:
        return 0
    held = known_reviews(client, [r.id for r in reviews])
    new = [r for r in reviews if r.id not in held]
    save_reviews(client, new)
    return len(new)
