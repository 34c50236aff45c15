"""What an import may link to outside the scope it fills, checked against the store.

An export holds the reviews of its scope, and a review names a second scope: the
one a memory was proposed into (a review *from* the scope), or the narrower one
it came from (a review *into* the scope). A review is a link a purge follows
across scopes, and one an approval acts on, so an import (untrusted input: a
"restore my data" file may have been crafted) restores only those it can vouch
for, and refuses the whole import, naming the record, otherwise:

- A review the store already holds is left as it is (the export of its other
  scope restored it already); nothing of the import's copy is written.
- A review *from* the scope (``export_format`` checked that it proposes one of
  the export's versions into a wider scope) is restored. A decided one into a
  scope only an admin writes needs an admin view, as deciding it would. An
  approved one whose copy is in the store already must name that copy: the
  record at ``result_id`` in the target scope carries the review's id, scope and
  memory (``reviews.is_copy``). A copy not there yet (its scope not restored
  yet) is a link the purge verifies when it follows it.
- A review *into* the scope speaks for the scope it came from, which this import
  has no right to write: restore that scope first (its export holds the
  review), or leave the review out.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> m = s.add("user:alice", "Customers prefer email.")
>>> _ = s.reviews.approve(s.reviews.propose("user:alice", m.id, "agent:support").id)
>>> agent = s.export("agent:support")
>>> t = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> t.import_scope(agent)
Traceback (most recent call last):
...
langgraph_memory.errors.InvalidMemoryError: reviews[0] (id ...): a review from user:alice into ...
>>> _ = t.import_scope(s.export("user:alice"))
>>> t.import_scope(agent)["memories"]
1
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph_memory.errors import AdminRequiredError, InvalidMemoryError
from langgraph_memory.records import Review, ReviewStatus
from langgraph_memory.scope import Scope
from langgraph_memory.store import reviews as reviewing
from langgraph_memory.store.collection_io import fetch
from langgraph_memory.store.core import StoreCore

__all__ = ["reviews_to_restore"]


def reviews_to_restore(core: StoreCore, scope: Scope, held: Sequence[Review]) -> list[Review]:
    """The reviews of an import into ``scope`` that it writes: those the store
    lacks, each checked as the module docstring says. Raises InvalidMemoryError
    (AdminRequiredError for a decision into an admin's scope) naming the first
    review refused; writes nothing.
    """
    engine = core.live()
    known = reviewing.known(engine.client, [r.id for r in held])
    restore: list[Review] = []
    for i, review in enumerate(held):
        if review.id in known:
            continue
        name = f"reviews[{i}] (id {review.id!r})"
        if review.from_scope != scope.key:
            raise InvalidMemoryError(
                f"{name}: a review from {review.from_scope} into {scope.key}, which this store "
                f"does not hold. It speaks for {review.from_scope}, which an import of "
                f"{scope.key} may not write: import {review.from_scope} first (its export "
                "holds this review), or remove the review from the file to import without it"
            )
        target = Scope.parse(review.to_scope)
        if review.status is not ReviewStatus.PENDING:
            try:
                core.check_write(target)  # deciding it would take an admin
            except AdminRequiredError as exc:
                raise AdminRequiredError(f"{name}: decided for {target.key}; {exc}") from None
        if review.status is ReviewStatus.APPROVED:
            _check_copy(core, name, review, target)
        restore.append(review)
    return restore


def _check_copy(core: StoreCore, name: str, review: Review, target: Scope) -> None:
    """Refuse an approved review whose ``result_id`` names, in its target scope, a
    memory that is not the copy its approval made."""
    assert review.result_id is not None
    cols = core.collections(target)
    if cols is None:
        return  # the target's own import has not run yet: nothing to confuse it with
    found = fetch(cols.active, target, ids=[review.result_id])
    found += fetch(cols.history, target, ids=[review.result_id])
    if found and not reviewing.is_copy(found[0].memory, review):
        raise InvalidMemoryError(
            f"{name}: it names memory {review.result_id} of {target.key} as the copy it "
            f"approved, but that memory is no copy of it (its metadata does not name review "
            f"{review.id}, {review.from_scope} and memory {review.memory_id})"
        )
