"""The export format: what ``MemoryStore.export`` writes and an import reads, a
record's fields and how each is checked.

An export is untrusted input: reading one (``import_checks.read_export``) checks
every field of every record with the models and checks here, then checks the
records against each other and, through the store, the links it keeps to other
scopes.

Format ``langgraph-memory-export``, version 3::

    {
      "format": "langgraph-memory-export",
      "version": 3,
      "scope": "user:alice",
      "embedder": "all-MiniLM-L6-v2-onnx-int8",     # the store's embedder name
      "memories": [ {version}, ... ],               # every version, oldest first
      "decisions": [ {decision}, ... ],             # the whole log, oldest first
      "reviews": [ {review}, ... ],                 # from or into the scope, oldest first
      "pending_turns": [ {turn}, ... ]              # accepted, not yet applied
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
  time to live and when it expires (see ``store/basestore/ttl.py``);
- ``indexed``: ``false``, only for an item put with ``index=False`` (kept out
  of vector search: an import does not embed its text either). Files without
  it read as before, so the version stays 3; a release before this field
  refuses a file that has it, naming the field.
- ``index_paths``: only for an item whose index paths held several texts (a
  vector per text, scored by its best: store format 4), the paths, e.g.
  ``["title", "body"]``; an import takes each text at them in ``value_json``
  and embeds it again. Files without it read as before (version 3).

A version is active when ``valid_until`` is ``null`` and closed otherwise; its
``scope`` is the export's, and its ``replaces`` names an older version of the
same chain in the same export. Each ``{decision}`` is ``Decision.to_dict()``:
every field, ``id`` and ``created_at`` included. Each ``{review}`` is
``Review.to_dict()``: a proposal to copy a memory into a wider scope, and its
decision (see ``reviews``); it moves a memory from the export's scope into a
wider one, or into the export's scope from a narrower one. A review from the
export's scope proposes one of its versions, with that version's text, and its
status agrees with its fields (a pending review has no ``result_id`` nor
``decided_at``; an approved one names its copy in ``result_id``). Each
``{turn}`` is a ``TurnRecord`` of the export's scope (``turn_record``). Times
are ISO 8601 with their UTC offset.

Version 1 exports (before BaseStore values were kept) import too: their
versions get no BaseStore value, and the chain start is the chain's oldest
version. Version 2 exports (with an ``exported_at`` time, before reviews) import
as they are.

The format is two pydantic models: :class:`ExportFile`, the whole, and
:class:`MemoryRecord`, one ``{version}``. :func:`write_export` is its one writer
and :func:`import_checks.read_export` its one reader; a pending turn is the journal's
``TurnRecordV1`` (``turn_record``), and a decision and a review are what
``Decision.to_dict`` and ``Review.to_dict`` write, checked here before their
``from_dict`` reads them. What pydantic refuses is raised as the
``InvalidMemoryError`` of the field's own check, so a message still names the
record and the field and says what it must be. Reading is about 1.5x slower than
the hand-written reader it replaced (10,000 versions: 0.55 s against 0.35 s,
median of 5), on a path that runs once per import.

A file is read with ``load_export``: UTF-8 JSON (a UTF-8 byte order mark is
allowed), at most ``MAX_EXPORT_BYTES`` long and ``MAX_EXPORT_DEPTH`` deep (the
format itself is six levels deep), so that no file makes the reader run out of
memory or stack.

>>> data = {"format": FORMAT, "version": 3, "scope": "user:a", "embedder": "e",
...         "memories": [{"id": "0a1b2c3d", "key": "0a1b2c3d", "text": "Likes tea.",
...                       "created_at": "2026-01-05T00:00:00+00:00"}], "decisions": []}
>>> ExportFile.model_validate(load_export(json.dumps(data))).scope
'user:a'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from langgraph_memory.checks import check_int
from langgraph_memory.errors import (
    InvalidMemoryError,
    InvalidScopeError,
    InvalidTypeError,
    MemoryKitError,
)
from langgraph_memory.records import (
    Decision,
    Kind,
    Memory,
    Review,
    Source,
    Trust,
    check_importance,
    check_metadata,
    check_text,
    utc,
)
from langgraph_memory.scope import Scope
from langgraph_memory.store.basestore import check_minutes, check_paths, field_texts
from langgraph_memory.store.version import FieldVectors, Version

__all__ = [
    "FORMAT",
    "MAX_EXPORT_BYTES",
    "MAX_EXPORT_DEPTH",
    "READABLE_VERSIONS",
    "VERSION",
    "ExportFile",
    "MemoryRecord",
    "check_enum",
    "check_name",
    "check_optional_str",
    "check_time",
    "first_error",
    "load_export",
    "payload_scope",
    "version_of",
    "write_export",
]

FORMAT = "langgraph-memory-export"
VERSION = 3
#: Export versions this module can import.
READABLE_VERSIONS = (1, 2, 3)
#: The largest export file ``load_export`` reads by default (1 GiB: about a
#: million memory versions; parsing it takes several times as much memory).
MAX_EXPORT_BYTES = 1 << 30
#: The deepest nesting of arrays and objects ``load_export`` accepts (the format
#: nests six deep; Python's JSON parser fails with a RecursionError near 1,000).
MAX_EXPORT_DEPTH = 32

_T = TypeVar("_T")


# -- a file ------------------------------------------------------------------------------

#: A JSON string, escapes included: its brackets are text, not structure.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def load_export(
    data: bytes | str,
    *,
    max_bytes: int = MAX_EXPORT_BYTES,
    max_depth: int = MAX_EXPORT_DEPTH,
    name: str = "the export",
) -> Any:
    """The JSON value of an export file's content, or InvalidMemoryError in one
    line: not UTF-8 (UTF-16 is named as such), longer than ``max_bytes``, nested
    deeper than ``max_depth``, or not JSON. ``name`` names the file in messages.

    >>> load_export(b'{"format": "langgraph-memory-export"}')["format"]
    'langgraph-memory-export'
    >>> load_export("[" * 100_000)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: the export nests arrays or objects deeper ...
    >>> load_export("{}".encode("utf-16"))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: the export is UTF-16 (or UTF-32) text; ...
    """
    if not isinstance(data, (bytes, str)):
        raise InvalidTypeError(f"{name} must be bytes or a str, got {type(data).__name__}")
    check_int(max_bytes, "max_bytes")
    check_int(max_depth, "max_depth")
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > max_bytes:
        raise InvalidMemoryError(
            f"{name} is {size:,} bytes, more than the {max_bytes:,} an import reads at once; "
            "split the scope's export, or raise the bound (max_bytes=) if this machine "
            "has the memory for it"
        )
    text = _decoded(data, name) if isinstance(data, bytes) else data
    _check_depth(text, max_depth, name)
    try:
        return json.loads(text)
    except RecursionError:  # below max_depth only if the bound was set near the stack's
        raise InvalidMemoryError(f"{name} nests too deeply to be read") from None
    except ValueError as exc:
        raise InvalidMemoryError(f"{name} is not a JSON export: {exc}") from None


def _decoded(data: bytes, name: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(data) > 1 and b"\x00" in data[:4]):
        raise InvalidMemoryError(
            f"{name} is UTF-16 (or UTF-32) text; an export is UTF-8 JSON (what "
            "`langgraph-memory export` writes): convert it first, e.g. "
            "`iconv -f UTF-16 -t UTF-8 IN > OUT`"
        )
    try:
        return data.decode("utf-8-sig")  # a byte order mark some editors add is harmless
    except UnicodeDecodeError as exc:
        raise InvalidMemoryError(
            f"{name} is not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}); "
            "an export is UTF-8 JSON, as `langgraph-memory export` writes it"
        ) from None


def _check_depth(text: str, max_depth: int, name: str) -> None:
    """Refuse nesting deeper than ``max_depth`` before parsing: Python's parser would
    recurse once per level. Strings are skipped whole, so brackets in text do not count."""
    depth = 0
    # Strings removed first (in C): the loop then visits brackets only.
    for bracket in _BRACKET.finditer(_STRING.sub('""', text)):
        if bracket.group() in "[{":
            depth += 1
            if depth > max_depth:
                raise InvalidMemoryError(
                    f"{name} nests arrays or objects deeper than {max_depth} levels; an "
                    "export nests six: this is not one"
                )
        else:
            depth -= 1


# -- a payload ---------------------------------------------------------------------------


def write_export(
    scope: Scope,
    embedder: str,
    versions: Sequence[Version],
    decisions: Sequence[Decision],
    reviews: Sequence[Review],
    pending_turns: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The export of a scope's records, JSON-ready, in this release's version:
    the one writer of the format (``import_checks.read_export`` is its one reader).

    >>> write_export(Scope.parse("user:a"), "e", [], [], [], [])["version"]
    3
    """
    export = ExportFile.model_construct(
        format=FORMAT,
        version=VERSION,
        scope=scope.key,
        embedder=embedder,
        memories=[MemoryRecord.of(v).record() for v in versions],
        decisions=[d.to_dict() for d in decisions],
        reviews=[r.to_dict() for r in reviews],
        pending_turns=list(pending_turns),
    )
    return export.model_dump(exclude={"exported_at"})


# -- the models ----------------------------------------------------------------------------


def required() -> Any:
    """A field every record has: checked even when missing, so that its message
    (``created_at is missing``) names it."""
    return Field(default=None, validate_default=True)


def first_error(exc: ValidationError, unknown: str) -> MemoryKitError:
    """The first problem pydantic found, as this module words it: the error a
    field's check raised, ``<unknown> [names]`` for fields the format lacks, or
    one naming the field and what it must be. ``format`` and ``version`` come
    first: an export of another format or version is that, whatever its fields."""
    errors = exc.errors()
    first = min(
        errors,
        key=lambda e: (
            0
            if e["loc"][:1] in (("format",), ("version",))
            else 1
            if e["type"] == "extra_forbidden"
            else 2
        ),
    )
    if first["type"] == "extra_forbidden":
        names = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
        return InvalidMemoryError(f"{unknown} {names}")
    raised = first.get("ctx", {}).get("error")
    if isinstance(raised, MemoryKitError):
        return raised
    field = ".".join(map(str, first["loc"]))
    return InvalidMemoryError(f"field {field!r}: {first['msg']}; see the export format")


class ExportFile(BaseModel):
    """An export as a whole (the object at the top of this module's docstring):
    versions 1 to 3 read, version 3 written. Each list holds its records as they
    are in the file; ``import_checks.read_export`` reads each one (a memory version with
    :class:`MemoryRecord`, a pending turn with ``TurnRecord.from_record``) and
    names the record in what it refuses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str = required()
    version: int = required()
    scope: str = required()
    #: Version 2 only: when the export was taken (read, never checked nor written).
    exported_at: Any = None
    embedder: str = required()
    memories: list[Any] = required()
    decisions: list[Any] = required()
    #: Since version 3.
    reviews: list[Any] = Field(default_factory=list)
    pending_turns: list[Any] = Field(default_factory=list)

    @field_validator("format", mode="plain")
    @classmethod
    def _format(cls, value: Any) -> str:
        if value != FORMAT:
            raise InvalidMemoryError(
                f"not a langgraph-memory export: format is {value!r}, "
                f"expected {FORMAT!r} (what MemoryStore.export writes)"
            )
        return FORMAT

    @field_validator("version", mode="plain")
    @classmethod
    def _version(cls, value: Any) -> int:
        if isinstance(value, bool) or value not in READABLE_VERSIONS:
            raise InvalidMemoryError(
                f"export version {value!r} is not one this release reads "
                f"({', '.join(map(str, READABLE_VERSIONS))}); a newer export needs a newer release"
            )
        return int(value)

    @field_validator("scope", "embedder", mode="plain")
    @classmethod
    def _str(cls, value: Any, info: ValidationInfo) -> str:
        if not isinstance(value, str):
            raise InvalidMemoryError(f"export field {info.field_name!r} must be a str")
        return value

    @field_validator("memories", "decisions", "reviews", "pending_turns", mode="plain")
    @classmethod
    def _list(cls, value: Any, info: ValidationInfo) -> list[Any]:
        if not isinstance(value, list):
            raise InvalidMemoryError(f"export field {info.field_name!r} must be a list")
        return value  # each record is read by import_checks.read_export, which names it


class MemoryRecord(BaseModel):
    """One ``{version}`` of an export: ``Memory.to_dict()`` plus its chain key,
    the chain's start, its BaseStore value and, for an item put with a TTL, the
    TTL and when it expires. ``of`` and ``record`` write it; ``model_validate``
    and ``version`` read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = required()
    text: str = required()
    #: The export's scope (or absent): a record is read into the scope imported into.
    scope: str | None = None
    kind: Kind = Kind.SEMANTIC
    importance: float = 0.5
    created_at: datetime = required()
    last_accessed: datetime | None = None
    valid_until: datetime | None = None
    replaces: str | None = None
    pinned: bool = False
    source: Source = Source.USER
    trust: Trust = Trust.HIGH
    sources: tuple[str, ...] = ()
    event_time: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    key: str = required()
    key_created_at: datetime | None = None
    value_json: str | None = None
    ttl_minutes: float | None = None
    expires_at: datetime | None = None
    indexed: bool = True
    index_paths: tuple[str, ...] | None = None

    @field_validator("id", "key", mode="plain")
    @classmethod
    def _name(cls, value: Any, info: ValidationInfo) -> str:
        return check_name(value, str(info.field_name))

    @field_validator("text", mode="plain")
    @classmethod
    def _text(cls, value: Any) -> str:
        return check_text(value)

    @field_validator("scope", "replaces", mode="plain")
    @classmethod
    def _optional_str(cls, value: Any, info: ValidationInfo) -> str | None:
        return check_optional_str(value, str(info.field_name))

    @field_validator("kind", "source", "trust", mode="plain")
    @classmethod
    def _enum(cls, value: Any, info: ValidationInfo) -> Any:
        field = str(info.field_name)
        return check_enum({"kind": Kind, "source": Source, "trust": Trust}[field], value, field)

    @field_validator("importance", mode="plain")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return check_importance(value)

    @field_validator(
        "created_at",
        "last_accessed",
        "valid_until",
        "event_time",
        "key_created_at",
        "expires_at",
        mode="plain",
    )
    @classmethod
    def _time(cls, value: Any, info: ValidationInfo) -> datetime | None:
        field = str(info.field_name)
        return check_time(value, field, required=field == "created_at")

    @field_validator("pinned", "indexed", mode="plain")
    @classmethod
    def _bool(cls, value: Any, info: ValidationInfo) -> bool:
        return check_bool(value, str(info.field_name))

    @field_validator("sources", mode="plain")
    @classmethod
    def _sources(cls, value: Any) -> tuple[str, ...]:
        return check_sources(value)

    @field_validator("metadata", mode="plain")
    @classmethod
    def _metadata(cls, value: Any) -> dict[str, Any]:
        return check_metadata(value)

    @field_validator("value_json", mode="plain")
    @classmethod
    def _value_json(cls, value: Any) -> str | None:
        return check_value_json(value)

    @field_validator("ttl_minutes", mode="plain")
    @classmethod
    def _ttl(cls, value: Any) -> float | None:
        return check_minutes(value, "ttl_minutes")

    @field_validator("index_paths", mode="plain")
    @classmethod
    def _paths(cls, value: Any) -> tuple[str, ...] | None:
        return None if value is None else check_paths(value, "index_paths")

    @model_validator(mode="after")
    def _together(self) -> MemoryRecord:
        if self.valid_until is not None and self.valid_until < self.created_at:
            raise InvalidMemoryError("valid_until is before created_at")
        if self.index_paths is not None and (
            not self.indexed
            or self.value_json is None
            or not field_texts(json.loads(self.value_json), self.index_paths)
        ):
            raise InvalidMemoryError(
                "index_paths must hold two texts or more of value_json, on an indexed item"
            )
        if (self.ttl_minutes is None) != (self.expires_at is None):
            raise InvalidMemoryError("ttl_minutes and expires_at go together: give both or neither")
        return self

    @classmethod
    def of(cls, version: Version) -> MemoryRecord:
        """The record of a stored version (trusted: not checked again)."""
        m = version.memory
        ttl = version.ttl is not None and version.expires_at is not None
        return cls.model_construct(
            id=m.id,
            text=m.text,
            scope=m.scope,
            kind=m.kind,
            importance=m.importance,
            created_at=m.created_at,
            last_accessed=m.last_accessed,
            valid_until=m.valid_until,
            replaces=m.replaces,
            pinned=m.pinned,
            source=m.source,
            trust=m.trust,
            sources=m.sources,
            event_time=m.event_time,
            # Chroma keeps no order of metadata keys: sorted, an export is one text per data.
            metadata=dict(sorted(m.metadata.items())),
            key=version.key,
            key_created_at=version.chain_start or m.created_at,
            value_json=version.value_json,
            ttl_minutes=version.ttl if ttl else None,
            expires_at=version.expires_at if ttl else None,
            indexed=version.indexed,
            index_paths=None if version.fields is None else version.fields.paths,
        )

    def record(self) -> dict[str, Any]:
        """The JSON-ready record: ``ttl_minutes`` and ``expires_at`` only with a TTL,
        ``indexed`` only when false, ``index_paths`` only when there are (so an export
        without such items is as before)."""
        left_out = {"indexed"} if self.indexed else set()
        if self.index_paths is None:
            left_out.add("index_paths")
        if self.ttl_minutes is None or self.expires_at is None:
            left_out |= {"ttl_minutes", "expires_at"}
        return self.model_dump(exclude=left_out or None)

    def version(self, scope: str) -> Version:
        """The version this record holds, in ``scope``."""
        memory = Memory(
            id=self.id,
            text=self.text,
            scope=scope,
            created_at=self.created_at,
            kind=self.kind,
            importance=self.importance,
            last_accessed=self.last_accessed,
            valid_until=self.valid_until,
            replaces=self.replaces,
            pinned=self.pinned,
            source=self.source,
            trust=self.trust,
            sources=self.sources,
            event_time=self.event_time,
            metadata=self.metadata,
        )
        return Version(
            memory,
            key=self.key,
            value_json=self.value_json,
            chain_start=self.key_created_at,
            ttl=self.ttl_minutes,
            expires_at=self.expires_at,
            indexed=self.indexed,
            # The paths alone: the import embeds their texts (``FieldVectors.pending``).
            fields=None if self.index_paths is None else FieldVectors.pending(self.index_paths),
        )

    @field_serializer(
        "created_at", "last_accessed", "valid_until", "event_time", "key_created_at", "expires_at"
    )
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()  # "+00:00", where pydantic writes "Z"

    @field_serializer("kind", "source", "trust")
    def _value(self, value: Kind | Source | Trust) -> str:
        return str(value.value)

    @field_serializer("sources")
    def _list(self, value: tuple[str, ...]) -> list[str]:
        return list(value)

    @field_serializer("index_paths")
    def _paths_list(self, value: tuple[str, ...] | None) -> list[str] | None:
        return None if value is None else list(value)


def payload_scope(text: str) -> Scope:
    try:
        return Scope.parse(text)
    except InvalidScopeError as exc:
        raise InvalidMemoryError(f"export scope {text!r}: {exc}") from None


def version_of(raw: Mapping[str, Any], source: str, target: str) -> Version:
    if raw.get("scope", source) != source and not set(raw) - set(MemoryRecord.model_fields):
        raise InvalidMemoryError(f"scope is {raw['scope']!r}, but the export is of {source!r}")
    try:
        record = MemoryRecord.model_validate(raw)
    except ValidationError as exc:
        raise first_error(exc, "unknown fields") from None
    return record.version(target)


def check_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidMemoryError(f"{field} must be a non-empty str, got {value!r}")
    return value


def check_optional_str(value: Any, field: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidMemoryError(f"{field} must be a str or null, got {value!r}")
    return value


def check_bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidMemoryError(f"{field} must be true or false, got {value!r}")
    return value


def check_time(value: Any, field: str, *, required: bool = False) -> datetime | None:
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


def check_enum(cls: type[Any], value: Any, field: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise InvalidMemoryError(f"{field} must be one of {choices}; got {value!r}") from None


def check_sources(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidMemoryError(f"sources must be a list of memory ids, got {value!r}")
    for s in value:
        if not isinstance(s, str) or not s or "," in s:  # stored comma-joined
            raise InvalidMemoryError(f"sources must hold memory ids, got {s!r}")
    return tuple(value)


def check_value_json(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidMemoryError("value_json must be the JSON text of a BaseStore value, or null")
    try:
        json.loads(value)
    except ValueError:
        raise InvalidMemoryError(f"value_json is not valid JSON: {value[:80]!r}") from None
    return value
