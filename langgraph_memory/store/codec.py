"""How a Memory and a Decision are laid out as Chroma records.

Chroma metadata holds only str, int, float and bool and rejects ``None``, so
absent fields are left out, times are float epoch seconds (Chroma keeps float64,
so microseconds survive), and user metadata keys get a ``m.`` prefix so that
they can never shadow a field of ours.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory
>>> m = Memory(id="0a1b2c3d", text="User lives in Pune.", scope="user:alice",
...            created_at=datetime(2026, 1, 5, tzinfo=timezone.utc), metadata={"city": "Pune"})
>>> meta = memory_metadata(m, key="0a1b2c3d")
>>> meta["m.city"], memory_from_record("0a1b2c3d", m.text, meta, "user:alice") == m
('Pune', True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from langgraph_memory.errors import InvalidMemoryError
from langgraph_memory.records import (
    EPISODE,
    Decision,
    Kind,
    Memory,
    Scalar,
    Source,
    Trust,
    check_metadata,
)

USER_PREFIX = "m."
#: Metadata key holding the id of the first version of a memory's chain. Every
#: version carries it, so ``history`` is one indexed lookup, and the BaseStore
#: face uses it as the item's stable key.
CHAIN_KEY = "key"
#: Metadata key holding a BaseStore ``put`` value as JSON, when there is one.
VALUE_KEY = "value_json"
#: Metadata key holding when the chain's first version was created.
CHAIN_START = "key_created_at"
#: Metadata key holding a memory's ``sources``, comma-joined.
SOURCES = "sources"
#: Metadata keys of a BaseStore TTL: the minutes an item lives after a write or a
#: refreshing read, and when it expires (float epoch seconds, so ``$lte`` finds it).
TTL_KEY = "ttl_minutes"
EXPIRES_KEY = "expires_at"


def to_epoch(value: datetime) -> float:
    """Seconds since the epoch, for Chroma range filters."""
    return value.timestamp()


def from_epoch(value: Any) -> datetime:
    """Back from :func:`to_epoch`."""
    return datetime.fromtimestamp(float(value), tz=timezone.utc)


def memory_metadata(
    memory: Memory,
    *,
    key: str,
    value_json: str | None = None,
    chain_start: datetime | None = None,
    ttl: float | None = None,
    expires_at: datetime | None = None,
) -> dict[str, Scalar]:
    """The Chroma metadata of one memory version."""
    meta: dict[str, Scalar] = {
        CHAIN_KEY: key,
        CHAIN_START: to_epoch(chain_start or memory.created_at),
        "kind": memory.kind.value,
        "importance": memory.importance,
        "created_at": to_epoch(memory.created_at),
        "pinned": memory.pinned,
        "source": memory.source.value,
        "trust": memory.trust.value,
    }
    if memory.last_accessed is not None:
        meta["last_accessed"] = to_epoch(memory.last_accessed)
    if memory.valid_until is not None:
        meta["valid_until"] = to_epoch(memory.valid_until)
    if memory.replaces is not None:
        meta["replaces"] = memory.replaces
    if memory.sources:
        meta[SOURCES] = ",".join(memory.sources)
    if memory.event_time is not None:
        meta["event_time"] = to_epoch(memory.event_time)
    if value_json is not None:
        meta[VALUE_KEY] = value_json
    if ttl is not None and expires_at is not None:
        meta[TTL_KEY] = float(ttl)
        meta[EXPIRES_KEY] = to_epoch(expires_at)
    for name, value in memory.metadata.items():
        meta[USER_PREFIX + name] = value
    return meta


#: A Chroma ``where`` clause that leaves episodes out (a record without the mark matches).
NOT_EPISODE: dict[str, Any] = {USER_PREFIX + EPISODE: {"$ne": True}}


def metadata_clauses(metadata: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Chroma ``where`` clauses for user metadata equal to the given values; a list
    or tuple of values matches any of them. Values are checked as metadata is.

    >>> metadata_clauses({"turn_id": "t1"})
    [{'m.turn_id': 't1'}]
    >>> metadata_clauses({"turn_id": ["t1", "t2"]})
    [{'m.turn_id': {'$in': ['t1', 't2']}}]
    >>> metadata_clauses({"n": [1, "1"]})
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: metadata['n'] lists values of several types ...
    """
    if metadata is None:
        return []
    if not isinstance(metadata, Mapping):
        check_metadata(metadata)  # raises the error that says what metadata may be
    clauses: list[dict[str, Any]] = []
    for name, value in metadata.items():
        if isinstance(value, (list, tuple)):
            values = [check_metadata({name: v})[name] for v in value]
            types = sorted({type(v).__name__ for v in values})
            if len(types) > 1:  # Chroma refuses such an $in with a ValueError of its own
                raise InvalidMemoryError(
                    f"metadata[{name!r}] lists values of several types ({', '.join(types)}); "
                    "a list matches values of one type: ask once per type"
                )
            clauses.append({USER_PREFIX + name: {"$in": values}})
        else:
            clauses.append({USER_PREFIX + name: check_metadata({name: value})[name]})
    return clauses


def all_of(clauses: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One Chroma ``where`` for every clause (None for none): several go in ``$and``.

    >>> all_of([]), all_of([{"a": 1}]), all_of([{"a": 1}, {"b": 2}])
    (None, {'a': 1}, {'$and': [{'a': 1}, {'b': 2}]})
    """
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def memory_from_record(
    record_id: str, document: str | None, meta: Mapping[str, Any], scope: str
) -> Memory:
    """Rebuild a Memory from a Chroma record."""

    def when(name: str) -> datetime | None:
        value = meta.get(name)
        return None if value is None else from_epoch(value)

    sources = str(meta.get(SOURCES, ""))
    return Memory(
        id=record_id,
        text=document or "",
        scope=scope,
        created_at=from_epoch(meta["created_at"]),
        kind=Kind(meta.get("kind", "semantic")),
        importance=float(meta.get("importance", 0.5)),
        last_accessed=when("last_accessed"),
        valid_until=when("valid_until"),
        replaces=meta.get("replaces"),
        pinned=bool(meta.get("pinned", False)),
        source=Source(meta.get("source", "user")),
        trust=Trust(meta.get("trust", "high")),
        sources=tuple(s for s in sources.split(",") if s),
        event_time=when("event_time"),
        metadata={k[len(USER_PREFIX) :]: v for k, v in meta.items() if k.startswith(USER_PREFIX)},
    )


#: Value fields that hold an item's text, in the order they are looked for.
TEXT_FIELDS = ("text", "content", "memory")


def revalue(value_json: str | None, text: str) -> str | None:
    """A BaseStore value carried to a new version whose text changed.

    The field the text came from gets the new text and the other fields stay;
    a value with no text field is dropped, so the item shows the memory's
    fields (and its new text) instead of a stale value.

    >>> revalue('{"text": "Likes sushi.", "rating": 5}', "Likes ramen.")
    '{"text": "Likes ramen.", "rating": 5}'
    >>> revalue('{"rating": 5}', "Likes ramen.") is None
    True
    """
    if value_json is None:
        return None
    value = json.loads(value_json)
    if isinstance(value, dict):
        for name in TEXT_FIELDS:
            if isinstance(value.get(name), str):
                return json.dumps({**value, name: text}, ensure_ascii=False)
    return None


def decision_metadata(decision: Decision) -> dict[str, Scalar]:
    """The filterable fields of a logged decision (the whole of it is the document)."""
    meta: dict[str, Scalar] = {"op": decision.op.value, "status": decision.status.value}
    if decision.created_at is not None:
        meta["created_at"] = to_epoch(decision.created_at)
    for name in ("target_id", "result_id", "turn_id"):
        value = getattr(decision, name)
        if value:
            meta[name] = value
    if decision.shown_ids:
        # Comma-wrapped so a substring test for ",id," finds exact ids only.
        meta["shown_ids"] = "," + ",".join(decision.shown_ids) + ","
    return meta


def decision_document(decision: Decision) -> str:
    """The JSON document of a logged decision."""
    return json.dumps(decision.to_dict(), ensure_ascii=False, sort_keys=True)


def decision_from_document(document: str) -> Decision:
    """Back from :func:`decision_document`."""
    return Decision.from_dict(json.loads(document))
