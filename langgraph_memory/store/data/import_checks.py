"""Every check an import makes before it writes: on the export alone, then on the
links it keeps to other scopes, against the store.

An export is untrusted input: it may come from anyone whose "restore my data"
file gets imported. So reading one (``read_export``) refuses, naming the
offending record, anything that does not belong to the scope it is imported
into: a record of another scope, a ``replaces`` that names no older version of
its chain, a review that moves a memory sideways or down, proposes what the
export does not hold or contradicts its own status, a pending turn of another
scope. The format itself (fields, types, versions) is ``export_format``'s.

Then the links. An export holds the reviews of its scope, and a review names a
second scope: the one a memory was proposed into (a review *from* the scope), or
the narrower one it came from (a review *into* the scope). A review is a link a
purge follows across scopes, and one an approval acts on, so an import restores
only those it can vouch for (``reviews_to_restore``), and refuses the whole
import, naming the record, otherwise:

- A review the store already holds is left as it is (the export of its other
  scope restored it already); nothing of the import's copy is written.
- A review *from* the scope (checked here to propose one of the export's
  versions into a wider scope) is restored. A decided one into a scope only an
  admin writes needs an admin view, as deciding it would. An approved one whose
  copy is in the store already must name that copy: the record at ``result_id``
  in the target scope carries the review's id, scope and memory
  (``reviews.is_copy``). A copy not there yet (its scope not restored yet) is a
  link the purge verifies when it follows it.
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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from langgraph_memory.errors import AdminRequiredError, InvalidArgumentError, InvalidMemoryError
from langgraph_memory.records import Decision, DecisionOp, Review, ReviewStatus
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import reviews as reviewing
from langgraph_memory.store.chroma import fetch, known_reviews
from langgraph_memory.store.data.export_format import (
    ExportFile,
    check_enum,
    check_name,
    check_optional_str,
    check_time,
    first_error,
    payload_scope,
    version_of,
)
from langgraph_memory.store.engine import StoreCore
from langgraph_memory.store.version import Version
from langgraph_memory.turn_record import TurnRecord

__all__ = ["CheckedExport", "read_export", "reviews_to_restore"]

_T = TypeVar("_T")


# -- the export alone ----------------------------------------------------------------------

_DECISION_FIELDS = frozenset(f.name for f in fields(Decision))


_OPTIONAL_STR = ("text", "target_id", "raw", "result_id", "turn_id", "error", "note")


@dataclass(frozen=True)
class CheckedExport:
    """A validated export, ready to write: versions without vectors yet, every
    record in ``scope`` (the scope imported into)."""

    scope: Scope
    embedder: str
    versions: list[Version]
    decisions: list[Decision]
    reviews: list[Review]
    pending_turns: list[TurnRecord]


def read_export(data: Any, *, scope: ScopeLike | None = None) -> CheckedExport:
    """Validate a whole export and turn it into records, writing nothing.

    ``scope`` rewrites every record into that scope (default: the export's).
    Raises InvalidMemoryError naming the first bad item: a record of another
    scope, a ``replaces`` that names no older version of its chain, a review
    that moves a memory sideways or down, proposes what the export does not
    hold, or contradicts its own status, a pending turn of another scope.

    >>> data = {"format": "langgraph-memory-export", "version": 2, "scope": "user:a",
    ...         "embedder": "e", "memories": [{"id": "0a1b2c3d", "key": "0a1b2c3d",
    ...                                        "text": "Likes tea.",
    ...                       "created_at": "2026-01-05T00:00:00+00:00"}], "decisions": []}
    >>> b = read_export(data, scope="user:b")
    >>> b.scope.key, b.versions[0].memory.scope, b.versions[0].chain_start.year
    ('user:b', 'user:b', 2026)
    >>> read_export(dict(data, version=4))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: export version 4 is not one this release reads ...
    """
    if not isinstance(data, Mapping):
        raise InvalidMemoryError(f"an export is a JSON object, got {type(data).__name__}")
    try:
        export = ExportFile.model_validate(data)
    except ValidationError as exc:
        raise first_error(exc, "export has unknown fields") from None
    source = payload_scope(export.scope)
    target = Scope.of(scope) if scope is not None else source
    versions = [
        _read_item(raw, f"memories[{i}]", lambda r: version_of(r, source.key, target.key))
        for i, raw in enumerate(export.memories)
    ]
    _check_versions(versions)
    decisions = [
        _read_item(raw, f"decisions[{i}]", _decision_of) for i, raw in enumerate(export.decisions)
    ]
    _check_unique([d.id or "" for d in decisions], "decisions", "decision")
    by_id = {v.memory.id: v for v in versions}
    held = [
        _read_item(raw, f"reviews[{i}]", lambda r: _review_of(r, source, target, by_id))
        for i, raw in enumerate(export.reviews)
    ]
    _check_unique([r.id for r in held], "reviews", "review")
    pending = [
        _read_item(raw, f"pending_turns[{i}]", lambda r: _turn_of(r, source, target))
        for i, raw in enumerate(export.pending_turns)
    ]
    _check_unique([t.turn_id for t in pending], "pending_turns", "turn")
    versions = _with_chain_starts(versions)
    return CheckedExport(target, export.embedder, versions, decisions, held, pending)


def _read_item(raw: Any, name: str, parse: Callable[[Mapping[str, Any]], _T]) -> _T:
    """``parse(raw)``, with any error naming the item (``memories[3] (id '…')``)."""
    if not isinstance(raw, Mapping):
        raise InvalidMemoryError(f"{name} must be a JSON object")
    if isinstance(raw.get("id"), str):
        name += f" (id {raw['id']!r})"
    try:
        return parse(raw)
    except (InvalidMemoryError, TypeError, ValueError) as exc:
        raise InvalidMemoryError(f"{name}: {exc}") from None


def _check_unique(ids: Sequence[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for i, record_id in enumerate(ids):
        if record_id in seen:
            raise InvalidMemoryError(f"{where}[{i}]: {what} id {record_id!r} appears twice")
        seen.add(record_id)


def _check_versions(versions: list[Version]) -> None:
    _check_unique([v.memory.id for v in versions], "memories", "memory")
    by_id = {v.memory.id: v for v in versions}
    active_of: dict[str, str] = {}
    for i, v in enumerate(versions):
        name = f"memories[{i}] (id {v.memory.id!r})"
        replaced = v.memory.replaces
        if replaced is not None:
            # A version replaces an older one of its own chain: an update made it.
            older = by_id.get(replaced)
            why = (
                "none of this export's versions"
                if older is None
                else "itself"
                if older is v
                else f"a version of another memory (key {older.key!r})"
                if older.key != v.key
                else "a newer version"
                if older.memory.created_at > v.memory.created_at
                else None
            )
            if why is not None:
                raise InvalidMemoryError(
                    f"{name}: replaces {replaced!r}, {why}; an update replaces an older "
                    f"version of the same memory (key {v.key!r}) in the same export"
                )
        if not v.memory.active:
            continue
        other = active_of.setdefault(v.key, v.memory.id)
        if other != v.memory.id:
            # One key, one current version: the BaseStore face and update rely on it.
            raise InvalidMemoryError(
                f"{name}: key {v.key!r} already has the active "
                f"version {other!r}; close one of them (set valid_until)"
            )


def _with_chain_starts(versions: list[Version]) -> list[Version]:
    """Versions with ``chain_start`` filled: a version 1 export lacks it, and a
    chain starts when its oldest version opened."""
    first: dict[str, datetime] = {}
    for v in versions:
        start = v.chain_start or v.memory.created_at
        first[v.key] = min(first.get(v.key, start), start)
    return [
        v if v.chain_start is not None else replace(v, vector=None, chain_start=first[v.key])
        for v in versions
    ]


_REVIEW_FIELDS = frozenset(f.name for f in fields(Review))


def _review_of(
    raw: Mapping[str, Any], source: Scope, target: Scope, versions: Mapping[str, Version]
) -> Review:
    """A review of the export, the export's scope renamed to ``target`` in it;
    checked against the export's own ``versions`` (see ``_check_review``)."""
    unknown = set(raw) - _REVIEW_FIELDS
    if unknown:
        raise InvalidMemoryError(f"unknown fields {sorted(unknown)}")
    check_name(raw.get("id"), "id")
    check_name(raw.get("memory_id"), "memory_id")
    check_time(raw.get("created_at"), "created_at", required=True)
    check_time(raw.get("decided_at"), "decided_at")
    scopes = {
        name: payload_scope(check_name(raw.get(name), name)) for name in ("from_scope", "to_scope")
    }
    if source not in scopes.values():
        raise InvalidMemoryError(
            f"it is between {scopes['from_scope']} and {scopes['to_scope']}, "
            f"not about the export's scope {source.key}"
        )
    for field in ("note", "reason", "result_id"):
        check_optional_str(raw.get(field), field)
    check_enum(ReviewStatus, raw.get("status", ReviewStatus.PENDING), "status")
    memory = raw.get("memory")
    if not isinstance(memory, Mapping):
        raise InvalidMemoryError("memory must be the proposed memory, a JSON object")
    from_key = scopes["from_scope"].key
    proposed = version_of({**memory, "key": check_name(memory.get("id"), "id")}, from_key, from_key)
    proposed_memory = proposed.memory
    review = Review.from_dict(raw)
    moved = {s: target.key if s == source.key else s for s in (from_key, review.to_scope)}
    review = replace(
        review,
        from_scope=moved[from_key],
        to_scope=moved[review.to_scope],
        memory=replace(proposed_memory, scope=moved[from_key]),
    )
    _check_review(review, target, versions)
    return review


def _check_review(review: Review, target: Scope, versions: Mapping[str, Version]) -> None:
    """Refuse a review that no store could have made: one that moves a memory
    sideways or down, contradicts its status, or (proposed from the scope imported
    into) proposes something the export does not hold, or an episode."""
    try:
        reviewing.check_direction(Scope.parse(review.from_scope), Scope.parse(review.to_scope))
    except InvalidArgumentError as exc:
        raise InvalidMemoryError(str(exc)) from None
    decided = review.decided_at is not None
    if review.status is ReviewStatus.PENDING and (decided or review.result_id is not None):
        raise InvalidMemoryError("it is pending, so it has neither decided_at nor result_id")
    if review.status is not ReviewStatus.PENDING and not decided:
        raise InvalidMemoryError(f"it is {review.status.value}, so it needs decided_at")
    if review.status is ReviewStatus.APPROVED and not review.result_id:
        raise InvalidMemoryError("it is approved, so result_id names the copy it made")
    if review.status is ReviewStatus.REJECTED and review.result_id is not None:
        raise InvalidMemoryError("it is rejected, so it copied nothing: result_id must be null")
    if review.memory.id != review.memory_id:
        raise InvalidMemoryError(
            f"memory_id is {review.memory_id!r}, but its memory's id is {review.memory.id!r}"
        )
    if review.from_scope != target.key:
        return  # into the scope: its memory lives in the other scope (see reviews_to_restore)
    version = versions.get(review.memory_id)
    if version is None:
        raise InvalidMemoryError(
            f"it proposes memory {review.memory_id!r}, which is none of this export's versions: "
            "a review from a scope proposes one of that scope's memories"
        )
    if version.memory.text != review.memory.text:
        raise InvalidMemoryError(
            f"its memory's text differs from version {review.memory_id!r} of this export: a "
            "review proposes a version as it is"
        )
    if version.memory.is_episode:
        raise InvalidMemoryError(
            f"it proposes the episode {review.memory_id!r}; only facts are proposed"
        )


def _turn_of(raw: Mapping[str, Any], source: Scope, target: Scope) -> TurnRecord:
    """A pending turn of the export, moved into ``target``; one of another scope is refused."""
    turn = TurnRecord.from_record(raw)
    if turn.scope != source.key:
        raise InvalidMemoryError(
            f"it is a turn of {turn.scope}, but the export is of {source.key}; an export "
            "holds only its own scope's turns"
        )
    return replace(turn, scope=target.key)


def _decision_of(raw: Mapping[str, Any]) -> Decision:
    unknown = set(raw) - _DECISION_FIELDS
    if unknown:
        raise InvalidMemoryError(f"unknown fields {sorted(unknown)}")
    check_name(raw.get("id"), "id")
    check_time(raw.get("created_at"), "created_at", required=True)
    if not isinstance(raw.get("fact"), str):
        raise InvalidMemoryError(f"fact must be a str, got {raw.get('fact')!r}")
    if not isinstance(raw.get("status", "applied"), str):
        raise InvalidMemoryError(f"status must be a str, got {raw.get('status')!r}")
    for field in _OPTIONAL_STR:
        check_optional_str(raw.get(field), field)
    for field in ("shown_ids", "shown_texts"):
        value = raw.get(field, [])
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise InvalidMemoryError(f"{field} must be a list of str, got {value!r}")
    ops = ", ".join(op.value for op in DecisionOp)
    if not isinstance(raw.get("op"), str) or raw["op"].upper() not in {
        op.value for op in DecisionOp
    }:
        raise InvalidMemoryError(f"op must be one of {ops}; got {raw.get('op')!r}")
    return Decision.from_dict(raw)


# -- its links, against the store -----------------------------------------------------------


def reviews_to_restore(core: StoreCore, scope: Scope, held: Sequence[Review]) -> list[Review]:
    """The reviews of an import into ``scope`` that it writes: those the store
    lacks, each checked as the module docstring says. Raises InvalidMemoryError
    (AdminRequiredError for a decision into an admin's scope) naming the first
    review refused; writes nothing.
    """
    engine = core.live()
    known = known_reviews(engine.client, [r.id for r in held])
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
