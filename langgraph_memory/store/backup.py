"""Backups of one scope: export every record, import it into an empty scope.

An export is a JSON-ready dict that holds everything a scope stores except
vectors, so that :func:`import_scope` can rebuild the scope exactly: the same
ids, times, version chains, BaseStore keys and values, decisions and reviews.
It is a function of what the store holds, nothing else (no time of export), so
an export, imported into an empty store and exported again, is the same JSON
to the byte.

Format ``langgraph-memory-export``, version 3::

    {
      "format": "langgraph-memory-export",
      "version": 3,
      "scope": "user:alice",
      "embedder": "all-MiniLM-L6-v2-onnx-int8",     # the store's embedder name
      "memories": [ {version}, ... ],               # every version, oldest first
      "decisions": [ {decision}, ... ],             # the whole log, oldest first
      "reviews": [ {review}, ... ],                 # from or into the scope, oldest first
      "pending_turns": []                           # see below
    }

Each ``{version}`` is ``Memory.to_dict()`` (``id``, ``text``, ``scope``, ``kind``,
``importance``, ``created_at``, ``last_accessed``, ``valid_until``, ``replaces``,
``pinned``, ``source``, ``trust``, ``sources``, ``event_time``, ``metadata``)
plus the three things a ``Memory`` does not carry:

- ``key``: the chain key, shared by every version of one memory, and the item
  key of the BaseStore face (``store.get(("user", "alice"), key)``);
- ``key_created_at``: when the chain's first version opened (the BaseStore
  item's ``created_at``);
- ``value_json``: the exact JSON string of the value a BaseStore ``put``
  stored (extra fields such as ``rating`` live here), or ``null``;
- ``ttl_minutes`` and ``expires_at``, only for an item put with a TTL: its
  time to live and when it expires (see ``store/ttl.py``).

A version is active when ``valid_until`` is ``null`` and closed otherwise.
Each ``{decision}`` is ``Decision.to_dict()``: every field, ``id`` and
``created_at`` included. Each ``{review}`` is ``Review.to_dict()``: a proposal
to copy a memory into a wider scope, and its decision (see ``reviews``). Times
are ISO 8601 with their UTC offset.

Vectors are not exported: they would make the file many times larger and tie
it to one embedder. Import recomputes them from the texts with the target
store's embedder, which gives the same vectors when it is the same embedder
(up to float rounding on another machine).
Import refuses an export made under another embedder unless
``allow_embedder_change=True``: with another embedder every score, and so
every ranking and duplicate check, differs from the original, which is worth
a decision rather than a surprise.

``pending_turns`` holds the turns a BackgroundWriter on the store had accepted
and not yet applied when the export was taken (``MemoryStore.pending_turns``),
as journal records. Import hands each one, its scope set to the scope imported
into, to ``requeue`` (``BackgroundWriter.requeue`` queues it again with its id
and time).

Version 1 exports (before BaseStore values were kept) import too: their
versions get no BaseStore value, and the chain start is the chain's oldest
version. Version 2 exports (with an ``exported_at`` time, before reviews) import
as they are.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> fake = DeterministicFakeEmbedding(size=8)
>>> source = MemoryStore(tempfile.mkdtemp(), embeddings=fake)
>>> source.put(("user", "alice"), "food", {"text": "Likes sushi.", "rating": 5})
>>> backup = source.export("user:alice")
>>> target = MemoryStore(tempfile.mkdtemp(), embeddings=fake)
>>> target.import_scope(backup)["memories"]
1
>>> target.get(("user", "alice"), "food").value
{'text': 'Likes sushi.', 'rating': 5}
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any, TypeVar

from langgraph_memory.errors import (
    EmbeddingMismatchError,
    InvalidMemoryError,
    InvalidScopeError,
    ScopeNotEmptyError,
)
from langgraph_memory.model import (
    Decision,
    Kind,
    Memory,
    Op,
    Review,
    ReviewStatus,
    Source,
    Trust,
    check_importance,
    check_metadata,
    check_text,
    now_utc,
    utc,
)
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import layout
from langgraph_memory.store import reviews as reviewing
from langgraph_memory.store.collection_io import chunks, fetch, insert
from langgraph_memory.store.core import StoreCore
from langgraph_memory.store.ttl import check_minutes
from langgraph_memory.store.version import Version

FORMAT = "langgraph-memory-export"
VERSION = 3
#: Export versions this module can import.
READABLE_VERSIONS = (1, 2, 3)
#: Texts per embedding call on import.
EMBED_BATCH = 256

_T = TypeVar("_T")

_TOP_FIELDS = frozenset(
    {"format", "version", "scope", "exported_at", "embedder", "memories", "decisions"}
    | {"pending_turns", "reviews"}
)
_MEMORY_FIELDS = frozenset(
    {"id", "text", "scope", "kind", "importance", "created_at", "last_accessed"}
    | {"valid_until", "replaces", "pinned", "source", "trust", "sources", "event_time"}
    | {"metadata", "key", "key_created_at", "value_json", "ttl_minutes", "expires_at"}
)
_DECISION_FIELDS = frozenset(f.name for f in fields(Decision))
_OPTIONAL_STR = ("text", "target_id", "raw", "result_id", "turn_id", "error", "note")

#: Called with each pending turn of an export, after the import wrote the scope.
Requeue = Callable[[Mapping[str, Any]], object]


# -- export ------------------------------------------------------------------------


def export_scope(core: StoreCore, scope: ScopeLike) -> dict[str, Any]:
    """Every version (active and closed) and decision of a scope, JSON-ready.

    The format is described in this module's docstring; vectors are left out.

    >>> import json, tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> data = json.loads(json.dumps(s.export("user:a")))
    >>> data["version"], data["memories"][0]["key"] == m.id, data["memories"][0]["value_json"]
    (3, True, None)
    """
    scope = Scope.of(scope)
    with core.writing(scope) as engine:  # no write of this process lands between the reads
        versions = _stored_versions(core, scope)
        decisions = core.read_log(scope)
        held = reviewing.involving(engine.client, scope)
        pending = [t for c in engine.companions() for t in c.pending_turns(scope)]
    return {
        "format": FORMAT,
        "version": VERSION,
        "scope": scope.key,
        "embedder": core.embedder_name,
        "memories": [_version_record(v) for v in versions],
        "decisions": [d.to_dict() for d in decisions],
        "reviews": [r.to_dict() for r in held],
        "pending_turns": pending,
    }


def _stored_versions(core: StoreCore, scope: Scope) -> list[Version]:
    cols = core.collections(scope)
    if cols is None:
        return []
    by_id = {v.memory.id: v for v in fetch(cols.active, scope)}
    # A record in both collections is a close caught half-way (by another process,
    # or a crash): the closed copy is the truth, as finish_interrupted_moves decides.
    by_id.update({v.memory.id: v for v in fetch(cols.history, scope)})
    return sorted(by_id.values(), key=lambda v: (v.memory.created_at, v.memory.id))


def _version_record(version: Version) -> dict[str, Any]:
    start = version.chain_start or version.memory.created_at
    record = dict(
        version.memory.to_dict(),
        key=version.key,
        key_created_at=start.isoformat(),
        value_json=version.value_json,
    )
    # Chroma keeps no order of metadata keys: sorted, an export is one text per data.
    record["metadata"] = dict(sorted(record["metadata"].items()))
    if version.ttl is not None and version.expires_at is not None:
        record.update(ttl_minutes=version.ttl, expires_at=version.expires_at.isoformat())
    return record


# -- reading a payload ---------------------------------------------------------------


@dataclass(frozen=True)
class Backup:
    """A validated export, ready to write: versions without vectors yet."""

    scope: Scope
    embedder: str
    versions: list[Version]
    decisions: list[Decision]
    reviews: list[Review]
    pending_turns: list[Mapping[str, Any]]


def read_backup(data: Any, *, scope: ScopeLike | None = None) -> Backup:
    """Validate a whole export and turn it into records, writing nothing.

    ``scope`` rewrites every record into that scope (default: the export's).
    Raises InvalidMemoryError naming the first bad item.

    >>> data = {"format": FORMAT, "version": 2, "scope": "user:a", "embedder": "e",
    ...         "memories": [{"id": "0a1b2c3d", "key": "0a1b2c3d", "text": "Likes tea.",
    ...                       "created_at": "2026-01-05T00:00:00+00:00"}], "decisions": []}
    >>> b = read_backup(data, scope="user:b")
    >>> b.scope.key, b.versions[0].memory.scope, b.versions[0].chain_start.year
    ('user:b', 'user:b', 2026)
    >>> read_backup(dict(data, version=4))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: export version 4 is not one this release reads ...
    """
    if not isinstance(data, Mapping):
        raise InvalidMemoryError(f"an export is a JSON object, got {type(data).__name__}")
    _check_header(data)
    source = _payload_scope(data["scope"])
    target = Scope.of(scope) if scope is not None else source
    versions = [
        _read_item(raw, f"memories[{i}]", lambda r: _version_of(r, source.key, target.key))
        for i, raw in enumerate(_list(data, "memories"))
    ]
    _check_versions(versions)
    decisions = [
        _read_item(raw, f"decisions[{i}]", _decision_of)
        for i, raw in enumerate(_list(data, "decisions"))
    ]
    _check_unique([d.id or "" for d in decisions], "decisions", "decision")
    held = [
        _read_item(raw, f"reviews[{i}]", lambda r: _review_of(r, source, target))
        for i, raw in enumerate(_list(data, "reviews", required=False))
    ]
    _check_unique([r.id for r in held], "reviews", "review")
    pending = _list(data, "pending_turns", required=False)
    for i, turn in enumerate(pending):
        if not isinstance(turn, Mapping):
            raise InvalidMemoryError(f"pending_turns[{i}] must be a JSON object")
    versions = _with_chain_starts(versions)
    return Backup(target, str(data["embedder"]), versions, decisions, held, pending)


def _check_header(data: Mapping[str, Any]) -> None:
    if data.get("format") != FORMAT:
        raise InvalidMemoryError(
            f"not a langgraph-memory export: format is {data.get('format')!r}, "
            f"expected {FORMAT!r} (what MemoryStore.export writes)"
        )
    version = data.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise InvalidMemoryError(
            f"export version {version!r} is not one this release reads "
            f"({', '.join(map(str, READABLE_VERSIONS))}); a newer export needs a newer release"
        )
    unknown = set(data) - _TOP_FIELDS
    if unknown:
        raise InvalidMemoryError(f"export has unknown fields {sorted(unknown)}")
    for name in ("scope", "embedder"):
        if not isinstance(data.get(name), str):
            raise InvalidMemoryError(f"export field {name!r} must be a str")


def _payload_scope(text: str) -> Scope:
    try:
        return Scope.parse(text)
    except InvalidScopeError as exc:
        raise InvalidMemoryError(f"export scope {text!r}: {exc}") from None


def _list(data: Mapping[str, Any], name: str, *, required: bool = True) -> list[Any]:
    if name not in data and not required:
        return []
    value = data.get(name)
    if not isinstance(value, list):
        raise InvalidMemoryError(f"export field {name!r} must be a list")
    return value


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


def _version_of(raw: Mapping[str, Any], source: str, target: str) -> Version:
    unknown = set(raw) - _MEMORY_FIELDS
    if unknown:
        raise InvalidMemoryError(f"unknown fields {sorted(unknown)}")
    if raw.get("scope", source) != source:
        raise InvalidMemoryError(f"scope is {raw['scope']!r}, but the export is of {source!r}")
    created = _time(raw, "created_at", required=True)
    assert created is not None
    memory = Memory(
        id=_name(raw, "id"),
        text=check_text(raw.get("text")),
        scope=target,
        created_at=created,
        kind=_enum(Kind, raw, "kind", Kind.SEMANTIC),
        importance=check_importance(raw.get("importance", 0.5)),
        last_accessed=_time(raw, "last_accessed"),
        valid_until=_time(raw, "valid_until"),
        replaces=_optional_str(raw, "replaces"),
        pinned=_bool(raw, "pinned"),
        source=_enum(Source, raw, "source", Source.USER),
        trust=_enum(Trust, raw, "trust", Trust.HIGH),
        sources=_sources(raw.get("sources", [])),
        event_time=_time(raw, "event_time"),
        metadata=check_metadata(raw.get("metadata")),
    )
    if memory.valid_until is not None and memory.valid_until < created:
        raise InvalidMemoryError("valid_until is before created_at")
    minutes, expires = (
        check_minutes(raw.get("ttl_minutes"), "ttl_minutes"),
        _time(raw, "expires_at"),
    )
    if (minutes is None) != (expires is None):
        raise InvalidMemoryError("ttl_minutes and expires_at go together: give both or neither")
    return Version(
        memory,
        key=_name(raw, "key"),
        value_json=_value_json(raw.get("value_json")),
        chain_start=_time(raw, "key_created_at"),
        ttl=minutes,
        expires_at=expires,
    )


def _name(raw: Mapping[str, Any], field: str) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidMemoryError(f"{field} must be a non-empty str, got {value!r}")
    return value


def _optional_str(raw: Mapping[str, Any], field: str) -> str | None:
    value = raw.get(field)
    if value is not None and not isinstance(value, str):
        raise InvalidMemoryError(f"{field} must be a str or null, got {value!r}")
    return value


def _bool(raw: Mapping[str, Any], field: str) -> bool:
    value = raw.get(field, False)
    if not isinstance(value, bool):
        raise InvalidMemoryError(f"{field} must be true or false, got {value!r}")
    return value


def _time(raw: Mapping[str, Any], field: str, *, required: bool = False) -> datetime | None:
    value = raw.get(field)
    if value is None:
        if required:
            raise InvalidMemoryError(f"{field} is missing")
        return None
    if isinstance(value, datetime):
        return utc(value)
    if not isinstance(value, str):
        raise InvalidMemoryError(f"{field} must be an ISO 8601 time, got {value!r}")
    try:
        return utc(datetime.fromisoformat(value))
    except ValueError:
        raise InvalidMemoryError(f"{field} must be an ISO 8601 time, got {value!r}") from None


def _enum(cls: type[Any], raw: Mapping[str, Any], field: str, default: Any) -> Any:
    value = raw.get(field, default)
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise InvalidMemoryError(f"{field} must be one of {choices}; got {value!r}") from None


def _sources(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidMemoryError(f"sources must be a list of memory ids, got {value!r}")
    for s in value:
        if not isinstance(s, str) or not s or "," in s:  # stored comma-joined
            raise InvalidMemoryError(f"sources must hold memory ids, got {s!r}")
    return tuple(value)


def _value_json(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidMemoryError("value_json must be the JSON text of a BaseStore value, or null")
    try:
        json.loads(value)
    except ValueError:
        raise InvalidMemoryError(f"value_json is not valid JSON: {value[:80]!r}") from None
    return value


def _check_unique(ids: Sequence[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for i, record_id in enumerate(ids):
        if record_id in seen:
            raise InvalidMemoryError(f"{where}[{i}]: {what} id {record_id!r} appears twice")
        seen.add(record_id)


def _check_versions(versions: list[Version]) -> None:
    _check_unique([v.memory.id for v in versions], "memories", "memory")
    active_of: dict[str, str] = {}
    for i, v in enumerate(versions):
        if not v.memory.active:
            continue
        other = active_of.setdefault(v.key, v.memory.id)
        if other != v.memory.id:
            # One key, one current version: the BaseStore face and update rely on it.
            raise InvalidMemoryError(
                f"memories[{i}] (id {v.memory.id!r}): key {v.key!r} already has the active "
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


def _review_of(raw: Mapping[str, Any], source: Scope, target: Scope) -> Review:
    """A review of the export, the export's scope renamed to ``target`` in it."""
    unknown = set(raw) - _REVIEW_FIELDS
    if unknown:
        raise InvalidMemoryError(f"unknown fields {sorted(unknown)}")
    _name(raw, "id")
    _name(raw, "memory_id")
    _time(raw, "created_at", required=True)
    _time(raw, "decided_at")
    scopes = {name: _payload_scope(_name(raw, name)) for name in ("from_scope", "to_scope")}
    if source not in scopes.values():
        raise InvalidMemoryError(
            f"it is between {scopes['from_scope']} and {scopes['to_scope']}, "
            f"not about the export's scope {source.key}"
        )
    for field in ("note", "reason", "result_id"):
        _optional_str(raw, field)
    _enum(ReviewStatus, raw, "status", ReviewStatus.PENDING)
    memory = raw.get("memory")
    if not isinstance(memory, Mapping):
        raise InvalidMemoryError("memory must be the proposed memory, a JSON object")
    from_key = scopes["from_scope"].key
    proposed = _version_of({**memory, "key": _name(memory, "id")}, from_key, from_key).memory
    review = Review.from_dict(raw)
    moved = {s: target.key if s == source.key else s for s in (from_key, review.to_scope)}
    return replace(
        review,
        from_scope=moved[from_key],
        to_scope=moved[review.to_scope],
        memory=replace(proposed, scope=moved[from_key]),
    )


def _decision_of(raw: Mapping[str, Any]) -> Decision:
    unknown = set(raw) - _DECISION_FIELDS
    if unknown:
        raise InvalidMemoryError(f"unknown fields {sorted(unknown)}")
    _name(raw, "id")
    _time(raw, "created_at", required=True)
    if not isinstance(raw.get("fact"), str):
        raise InvalidMemoryError(f"fact must be a str, got {raw.get('fact')!r}")
    if not isinstance(raw.get("status", "applied"), str):
        raise InvalidMemoryError(f"status must be a str, got {raw.get('status')!r}")
    for field in _OPTIONAL_STR:
        _optional_str(raw, field)
    for field in ("shown_ids", "shown_texts"):
        value = raw.get(field, [])
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise InvalidMemoryError(f"{field} must be a list of str, got {value!r}")
    ops = ", ".join(op.value for op in Op)
    if not isinstance(raw.get("op"), str) or raw["op"].upper() not in {op.value for op in Op}:
        raise InvalidMemoryError(f"op must be one of {ops}; got {raw.get('op')!r}")
    return Decision.from_dict(raw)


# -- import ----------------------------------------------------------------------------


def import_scope(
    core: StoreCore,
    data: Any,
    *,
    scope: ScopeLike | None = None,
    allow_embedder_change: bool = False,
    requeue: Requeue | None = None,
) -> dict[str, int]:
    """Restore an export into an empty scope, exactly; return what it restored.

    The whole payload is validated, and every text embedded, before anything
    is written; a failed write removes what the import had written. The
    target scope (``scope``, default: the export's) must hold nothing:
    ScopeNotEmptyError otherwise, so an import can never mix with or overwrite
    data. ``allow_embedder_change=True`` accepts an export made under another
    embedder (the texts are embedded with this store's embedder either way).
    ``requeue`` receives each pending turn of the export once the scope is
    written; an export with pending turns is refused without it.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Lives in Delhi.")
    >>> _ = s.update("user:a", m.id, "Lives in Pune.")
    >>> s.import_scope(s.export("user:a"), scope="user:b")
    {'memories': 2, 'active': 1, 'closed': 1, 'decisions': 0, 'reviews': 0, 'pending_turns': 0}
    >>> [v.text for v in s.history("user:b", m.id)]
    ['Lives in Delhi.', 'Lives in Pune.']
    """
    backup = read_backup(data, scope=scope)
    if backup.embedder != core.embedder_name and not allow_embedder_change:
        raise EmbeddingMismatchError(
            f"this export was made with the embedder {backup.embedder!r}, but this store uses "
            f"{core.embedder_name!r}; similarity scores and rankings will differ from the "
            "original. Pass allow_embedder_change=True to import it anyway (its texts are "
            "embedded again with this store's embedder)."
        )
    if backup.pending_turns and requeue is None:
        raise InvalidMemoryError(
            f"this export holds {len(backup.pending_turns)} pending turns (accepted, not yet "
            "applied) that an import alone would lose; pass requeue= to queue them again, or "
            "remove them from the payload to drop them knowingly"
        )
    core.check_write(backup.scope)  # an org scope: only an admin imports into it
    _check_empty(core, backup.scope)  # before the costly embedding
    versions = _embedded(core, backup.versions)
    with core.writing(backup.scope):
        _check_empty(core, backup.scope)
        restored = _write(core, backup.scope, versions, backup.decisions, backup.reviews)
    for turn in backup.pending_turns:
        assert requeue is not None
        requeue({**turn, "scope": backup.scope.key})
    closed = sum(1 for v in versions if not v.memory.active)
    return {
        "memories": len(versions),
        "active": len(versions) - closed,
        "closed": closed,
        "decisions": len(backup.decisions),
        "reviews": restored,
        "pending_turns": len(backup.pending_turns),
    }


def _check_empty(core: StoreCore, scope: Scope) -> None:
    cols = core.collections(scope)
    if cols is None:
        return
    counts = {
        "memory versions": cols.active.count() + cols.history.count(),
        "decisions": cols.log.count(),
    }
    held = ", ".join(f"{n} {what}" for what, n in counts.items() if n)
    if held:
        raise ScopeNotEmptyError(
            f"scope {scope.key} already holds {held}; an import only fills an empty scope, "
            "so that it never mixes with or overwrites data. Import into another scope "
            f"(scope=...), or purge {scope.key} first if you mean to replace it (an "
            "interrupted import leaves a partial scope: purge it and import again)."
        )


def _embedded(core: StoreCore, versions: list[Version]) -> list[Version]:
    texts = list(dict.fromkeys(v.memory.text for v in versions))  # versions often share one
    vector_of: dict[str, list[float]] = {}
    for batch in chunks(texts, EMBED_BATCH):
        vector_of.update(zip(batch, core.embed(batch), strict=True))
    return [replace(v, vector=vector_of[v.memory.text]) for v in versions]


def _write(
    core: StoreCore,
    scope: Scope,
    versions: list[Version],
    decisions: list[Decision],
    held: list[Review],
) -> int:
    """Write the scope's records, then the reviews the store lacks; how many reviews."""
    if not versions and not decisions:
        return reviewing.restore(core.live().client, held)
    cols = core.writable(scope)
    restored = 0
    try:
        core.add_active(cols, [v for v in versions if v.memory.active])
        insert(cols.history, [v for v in versions if not v.memory.active])
        core.append_log(scope, decisions, now_utc())  # ids and times given, so kept
        if any(v.ttl is not None for v in versions):
            layout.mark_ttl(core.live().registry, scope)  # for the TTL sweep to visit
        restored = reviewing.restore(core.live().client, held)
    except BaseException:
        # The write's own error is the one to report; if the undo fails too, the
        # partial scope it leaves makes the next import refuse and say to purge.
        with contextlib.suppress(Exception):
            _undo(cols, versions, decisions)
        core.recheck(scope)  # the index may hold what the undo removed
        raise
    return restored


def _undo(
    cols: layout.ScopeCollections, versions: list[Version], decisions: list[Decision]
) -> None:
    """Remove what a failed import wrote: only its own ids, so nothing else is touched."""
    ids = [v.memory.id for v in versions]
    log_ids = [d.id for d in decisions if d.id]
    for collection, doomed in ((cols.active, ids), (cols.history, ids), (cols.log, log_ids)):
        for batch in chunks(doomed, 1000):
            collection.delete(ids=list(batch))
