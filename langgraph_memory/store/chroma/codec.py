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

The layout of a memory version is :class:`StoredMemory`, a pydantic model of its
metadata (each format since 1 only added keys to it; ``formats`` numbers them):
:func:`memory_metadata` is its one writer and :func:`version_from_record` its one
reader. The reader runs once per record on every read, so both were measured
against the hand-written code they replaced (10,000 records of varied fields,
median of 5, on a shared 2-core machine, six runs): reading 110-175 ms by hand,
125-165 ms here (ratio 0.84-1.34: ``Memory``'s own checks dominate); writing
29-53 ms by hand, 87-115 ms here (ratio 2.0-3.3, 5-9 microseconds more per
record, beside the embedding and the Chroma write each record also costs).
Reading within 1.5x kept the model; the writer passes enum values (not members)
to ``model_construct`` so that no serializer runs per field. A logged decision's
metadata is :class:`StoredDecision` (``decision_metadata`` writes it); the
decision itself is its record's document, ``Decision.to_dict`` as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

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
from langgraph_memory.store.version import FieldVectors, Version

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
#: Metadata key that marks an item put with ``index=False`` (``False``; absent on
#: every other record, so records written before it read as indexed): its vector
#: is the zero vector and vector search leaves it out.
INDEXED_KEY = "indexed"
#: Metadata keys of an item whose index paths held several texts (format 4): how
#: many (an int, 2 or more, so that ``{"fields": {"$gte": 2}}`` finds them), their
#: vectors (``FieldVectors.encoded``) and the paths, as JSON. Absent on every
#: other record: records written before read as one vector, as they were.
FIELDS_KEY = "fields"
FIELD_VECTORS_KEY = "field_vectors"
INDEX_PATHS_KEY = "index_paths"


def to_epoch(value: datetime) -> float:
    """Seconds since the epoch, for Chroma range filters."""
    return value.timestamp()


def from_epoch(value: Any) -> datetime:
    """Back from :func:`to_epoch`."""
    return datetime.fromtimestamp(float(value), tz=timezone.utc)


class StoredMemory(BaseModel):
    """The Chroma metadata of one memory version, field by field, in the order
    they are written; the user's metadata follows as ``m.<name>`` keys. Times
    are float epoch seconds; a field that is ``None`` is left out (Chroma
    rejects ``None``)."""

    # The user's keys (``m.<name>``) are read from the metadata directly: kept
    # out of the model's extras, a read is faster.
    model_config = ConfigDict(extra="ignore")

    #: The chain key (``CHAIN_KEY``); a format-1 record without one is its own chain.
    key: str | None = None
    #: When the chain's first version opened (``CHAIN_START``).
    key_created_at: float | None = None
    kind: Kind = Kind.SEMANTIC
    importance: float = 0.5
    created_at: float
    pinned: bool = False
    source: Source = Source.USER
    trust: Trust = Trust.HIGH
    last_accessed: float | None = None
    valid_until: float | None = None
    replaces: str | None = None
    #: ``Memory.sources``, comma-joined (``SOURCES``).
    sources: str | None = None
    event_time: float | None = None
    #: A BaseStore ``put`` value as JSON (``VALUE_KEY``).
    value_json: str | None = None
    #: A BaseStore TTL (``TTL_KEY``, ``EXPIRES_KEY``): both or neither.
    ttl_minutes: float | None = None
    expires_at: float | None = None
    #: ``False`` for an item put with ``index=False`` (``INDEXED_KEY``), else absent.
    indexed: bool | None = None
    #: An item's vector per text of its index paths (``FIELDS_KEY``,
    #: ``FIELD_VECTORS_KEY``, ``INDEX_PATHS_KEY``): all three or none.
    fields: int | None = None
    field_vectors: str | None = None
    index_paths: str | None = None


def _epoch(value: datetime | None) -> float | None:
    return None if value is None else to_epoch(value)


def memory_metadata(
    memory: Memory,
    *,
    key: str,
    value_json: str | None = None,
    chain_start: datetime | None = None,
    ttl: float | None = None,
    expires_at: datetime | None = None,
    indexed: bool = True,
    fields: FieldVectors | None = None,
) -> dict[str, Scalar]:
    """The Chroma metadata of one memory version: the one writer of the layout."""
    has_ttl = ttl is not None and expires_at is not None
    record = StoredMemory.model_construct(
        key=key,
        key_created_at=to_epoch(chain_start or memory.created_at),
        kind=memory.kind.value,  # written as the value: no serializer to call per record
        importance=memory.importance,
        created_at=to_epoch(memory.created_at),
        pinned=memory.pinned,
        source=memory.source.value,
        trust=memory.trust.value,
        last_accessed=_epoch(memory.last_accessed),
        valid_until=_epoch(memory.valid_until),
        replaces=memory.replaces,
        sources=",".join(memory.sources) or None,
        event_time=_epoch(memory.event_time),
        value_json=value_json,
        ttl_minutes=float(ttl) if has_ttl and ttl is not None else None,
        expires_at=_epoch(expires_at) if has_ttl else None,
        indexed=None if indexed else False,
        fields=None if fields is None else fields.count,
        field_vectors=None if fields is None else fields.encoded,
        index_paths=None if fields is None else json.dumps(list(fields.paths)),
    )
    meta: dict[str, Scalar] = record.model_dump(exclude_none=True, warnings=False)
    for name, value in memory.metadata.items():
        meta[USER_PREFIX + name] = value
    return meta


def version_metadata(version: Version) -> dict[str, Scalar]:
    """The Chroma metadata of a stored version (see ``memory_metadata``).

    >>> from datetime import timezone
    >>> m = Memory(id="0a1b2c3d", text="x", scope="user:a",
    ...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    >>> version_metadata(Version(m, key="0a1b2c3d"))["key"]
    '0a1b2c3d'
    """
    return memory_metadata(
        version.memory,
        key=version.key,
        value_json=version.value_json,
        chain_start=version.chain_start,
        ttl=version.ttl,
        expires_at=version.expires_at,
        indexed=version.indexed,
        fields=version.fields,
    )


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


def version_from_record(
    record_id: str,
    document: str | None,
    meta: Mapping[str, Any],
    scope: str,
    vector: list[float] | None = None,
) -> Version:
    """The memory version a Chroma record holds: the one reader of the layout.
    A record it cannot read raises ``InvalidMemoryError`` naming the field."""
    try:
        record = StoredMemory.model_validate(meta)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidMemoryError(
            f"the stored record {record_id!r} of {scope} cannot be read: field "
            f"{'.'.join(map(str, first['loc']))!r}: {first['msg']}; the store's files were "
            "changed by something else: restore them from a backup or purge the memory"
        ) from None

    def when(value: float | None) -> datetime | None:
        return None if value is None else from_epoch(value)

    memory = Memory(
        id=record_id,
        text=document or "",
        scope=scope,
        created_at=from_epoch(record.created_at),
        kind=record.kind,
        importance=record.importance,
        last_accessed=when(record.last_accessed),
        valid_until=when(record.valid_until),
        replaces=record.replaces,
        pinned=record.pinned,
        source=record.source,
        trust=record.trust,
        sources=tuple(s for s in (record.sources or "").split(",") if s),
        event_time=when(record.event_time),
        metadata={k[len(USER_PREFIX) :]: v for k, v in meta.items() if k.startswith(USER_PREFIX)},
    )
    return Version(
        memory,
        key=record_id if record.key is None else record.key,
        vector=vector,
        value_json=record.value_json,
        chain_start=when(record.key_created_at),
        ttl=record.ttl_minutes,
        expires_at=when(record.expires_at),
        indexed=record.indexed is not False,
        fields=_fields(record),
    )


def _fields(record: StoredMemory) -> FieldVectors | None:
    if record.fields is None or record.field_vectors is None or record.index_paths is None:
        return None
    return FieldVectors(tuple(json.loads(record.index_paths)), record.fields, record.field_vectors)


def field_vectors_of(meta: Mapping[str, Any] | None) -> FieldVectors | None:
    """A record's vectors per field, read from its metadata alone (what a search
    reads of items it has not seen: see ``field_cache``); None for a record without.

    >>> f = FieldVectors.of(["a", "b"], [[1.0], [2.0]])
    >>> meta = {"fields": 2, "field_vectors": f.encoded, "index_paths": '["a", "b"]'}
    >>> field_vectors_of(meta) == f
    True
    """
    meta = meta or {}
    count, encoded, paths = (meta.get(k) for k in (FIELDS_KEY, FIELD_VECTORS_KEY, INDEX_PATHS_KEY))
    if type(count) is not int or not isinstance(encoded, str) or not isinstance(paths, str):
        return None
    return FieldVectors(tuple(json.loads(paths)), count, encoded)


def memory_from_record(
    record_id: str, document: str | None, meta: Mapping[str, Any], scope: str
) -> Memory:
    """The memory of a Chroma record (``version_from_record``'s, without its chain)."""
    return version_from_record(record_id, document, meta, scope).memory


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


class StoredDecision(BaseModel):
    """The Chroma metadata of a logged decision: its filterable fields only (the
    whole decision is the record's document, ``decision_document``). A field
    that is ``None`` or empty is left out."""

    model_config = ConfigDict(extra="ignore")

    op: str
    status: str
    created_at: float | None = None
    target_id: str | None = None
    result_id: str | None = None
    turn_id: str | None = None
    #: Comma-wrapped (``,a,b,``) so a substring test for ``,id,`` finds exact ids only.
    shown_ids: str | None = None


def decision_metadata(decision: Decision) -> dict[str, Scalar]:
    """The filterable fields of a logged decision: the one writer of its metadata
    (the log is read from the documents, ``decision_from_document``)."""
    record = StoredDecision.model_construct(
        op=decision.op.value,
        status=decision.status.value,
        created_at=_epoch(decision.created_at),
        target_id=decision.target_id or None,
        result_id=decision.result_id or None,
        turn_id=decision.turn_id or None,
        shown_ids="," + ",".join(decision.shown_ids) + "," if decision.shown_ids else None,
    )
    meta: dict[str, Scalar] = record.model_dump(exclude_none=True)
    return meta


def decision_document(decision: Decision) -> str:
    """The JSON document of a logged decision."""
    return json.dumps(decision.to_dict(), ensure_ascii=False, sort_keys=True)


def decision_from_document(document: str) -> Decision:
    """Back from :func:`decision_document`."""
    return Decision.from_dict(json.loads(document))
