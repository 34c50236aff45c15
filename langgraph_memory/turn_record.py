"""The record of one accepted turn: a line of the background writer's journal,
and an entry of an export's ``pending_turns``.

One format in one place, because two layers read it: the write path's journal
writes and replays it, and the store's import must check an export's pending
turns completely *before* it writes anything (a turn refused after the scope was
written would leave a half-done import)::

    {"t": "turn", "v": 1, "id": "...", "scope": "user:alice",
     "messages": [["user", "I live in Pune."]], "when": "2026-01-05T00:00:00+00:00",
     "thread": "t-1"}

``thread`` is there only when the turn has one; a message is ``[role, text]``, or
``[role, text, name]`` when it names its speaker. A record that cannot be read
raises ``JournalError`` saying what is wrong.

A turn that is an explicit request to remember its user message (an MCP client's
``remember``, queued like any turn) carries ``remember``: who asked and how far
their words are trusted (``RememberRequest``). Such a record is version 2, so a
release that reads version 1 only refuses it ("upgrade to replay it") instead of
taking a medium-trust request for the user's own high-trust words; a plain turn
is still written as version 1, which every release reads::

    {"t": "turn", "v": 2, "id": "...", "scope": "user:alice",
     "messages": [["user", "I prefer metric units."]], "when": "...",
     "remember": {"source": "explicit", "trust": "medium", "by": "mcp:Claude"}}

>>> from datetime import datetime, timezone
>>> r = TurnRecord("t1", "user:a", (("user", "I'm vegan."),),
...                datetime(2026, 1, 5, tzinfo=timezone.utc))
>>> TurnRecord.from_record(r.record()) == r
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
)

from langgraph_memory.checks import check_chars
from langgraph_memory.errors import InvalidScopeError, JournalError, MemoryKitError
from langgraph_memory.records import Source, Trust, check_importance, utc
from langgraph_memory.scope import Scope

__all__ = [
    "ROLE_OF_TYPE",
    "VERSION",
    "RememberRequest",
    "Role",
    "TurnRecord",
    "TurnRecordV1",
    "check_turn_id",
]

#: The newest version of the record format this release reads. A plain turn is written
#: as version 1 (what every release reads); a turn with a ``remember`` request as 2.
VERSION = 2
#: The version a record without ``remember`` is written as.
PLAIN_VERSION = 1

Role = Literal["user", "assistant", "tool", "document"]
#: A message's role by what it is called (LangChain's message types included).
ROLE_OF_TYPE: dict[str, Role] = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
    "document": "document",
}

_R = TypeVar("_R", bound="TurnRecord")


@dataclass(frozen=True)
class RememberRequest:
    """A turn's user message is an explicit request to remember it: through
    ``MemoryWriter.remember``'s path (extraction, reconcile, the decision log) with
    this provenance, instead of a turn's (facts of the user's own words, high trust).

    ``by`` names who asked (e.g. ``"mcp:Claude Desktop"``): the decision log notes it.

    >>> RememberRequest(trust=Trust.MEDIUM, by="mcp:cursor").record()
    {'source': 'explicit', 'trust': 'medium', 'by': 'mcp:cursor'}
    >>> RememberRequest.from_record({"trust": "medium"}).trust
    <Trust.MEDIUM: 'medium'>
    """

    source: Source = Source.EXPLICIT
    trust: Trust = Trust.HIGH
    rule: bool = False
    importance: float | None = None
    pinned: bool = False
    by: str | None = None

    def record(self) -> dict[str, Any]:
        """The JSON-ready record: defaults left out, source and trust always there."""
        out: dict[str, Any] = {"source": self.source.value, "trust": self.trust.value}
        if self.rule:
            out["rule"] = True
        if self.importance is not None:
            out["importance"] = self.importance
        if self.pinned:
            out["pinned"] = True
        if self.by is not None:
            out["by"] = self.by
        return out

    @classmethod
    def from_record(cls, data: Any) -> RememberRequest:
        """Read back what :meth:`record` wrote; ``JournalError`` says what is wrong."""
        if not isinstance(data, Mapping):
            raise JournalError(f"remember must be a JSON object, not {data!r:.80}")
        unknown = set(data) - {"source", "trust", "rule", "importance", "pinned", "by"}
        if unknown:
            raise JournalError(f"remember has unknown fields {sorted(unknown)}")
        try:
            source = Source(data.get("source", Source.EXPLICIT.value))
            trust = Trust(data.get("trust", Trust.HIGH.value))
        except ValueError as exc:
            raise JournalError(f"remember: {exc}") from None
        rule, pinned = data.get("rule", False), data.get("pinned", False)
        if not isinstance(rule, bool) or not isinstance(pinned, bool):
            raise JournalError(f"remember: rule and pinned are true or false, not {data!r:.80}")
        importance = data.get("importance")
        if importance is not None:
            try:
                importance = check_importance(importance)
            except MemoryKitError as exc:
                raise JournalError(f"remember: {exc}") from None
        by = data.get("by")
        if by is not None and (not isinstance(by, str) or not by):
            raise JournalError(f"remember: by {by!r:.80} is not a non-empty string")
        if by is not None:
            check_chars(by, "remember.by", error=JournalError)
        return cls(source, trust, rule, importance, pinned, by)


@dataclass(frozen=True)
class TurnRecord:
    """One accepted turn: its id, scope key, messages, time and thread.

    >>> from datetime import datetime, timezone
    >>> TurnRecord("t1", "user:a", (("user", "Hi"),),
    ...            datetime(2026, 1, 5, tzinfo=timezone.utc)).record()["when"]
    '2026-01-05T00:00:00+00:00'
    """

    turn_id: str
    scope: str
    #: ``(role, text)``, or ``(role, text, name)`` for a message that names its speaker.
    messages: tuple[tuple[str, ...], ...]
    when: datetime
    thread_id: str | None = None
    #: Set when the turn is an explicit request to remember (version 2 records).
    remember: RememberRequest | None = None

    def record(self) -> dict[str, Any]:
        """The JSON-ready record (``thread`` only when the turn has one, so a
        record without it reads as before; ``remember`` only on a request to
        remember, then as version 2): the one writer of the format."""
        wire = TurnRecordV1.model_construct(
            t="turn",
            v=PLAIN_VERSION if self.remember is None else VERSION,
            id=self.turn_id,
            scope=self.scope,
            messages=self.messages,
            when=self.when,
            thread=self.thread_id,
            remember=None if self.remember is None else self.remember.record(),
        )
        return wire.model_dump(mode="json", exclude_none=True)

    @classmethod
    def from_record(cls: type[_R], data: Mapping[str, Any]) -> _R:
        """Read back what :meth:`record` wrote; ``JournalError`` says what is wrong
        if not: the one reader of the format.

        >>> TurnRecord.from_record({"t": "turn", "v": 99})
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.JournalError: record version 99 was written by a newer ...
        """
        if not isinstance(data, Mapping):
            raise JournalError(f"a turn record is a JSON object, not {type(data).__name__}")
        try:
            wire = TurnRecordV1.model_validate(data)
        except ValidationError as exc:
            raise _journal_error(exc) from None
        remember = None
        if wire.remember is not None:
            if wire.v < VERSION:  # a version 1 reader would take it for a plain turn
                raise JournalError(
                    f"a turn record with remember is version {VERSION}, not {wire.v}"
                )
            remember = RememberRequest.from_record(wire.remember)
        return cls(
            turn_id=wire.id,
            scope=wire.scope,
            messages=wire.messages,
            when=wire.when,
            thread_id=wire.thread,
            remember=remember,
        )


class TurnRecordV1(BaseModel):
    """The turn record as written, versions 1 and 2: field names and types of the JSON
    object (``t``, ``v``, ``id``, ``scope``, ``messages``, ``when``, ``thread``, and
    in version 2 ``remember``, read by ``RememberRequest.from_record``).

    Unknown fields are ignored (a done record has others). Every field is checked
    even when missing, so that the error names it and says what it must be; the
    reader turns pydantic's ``ValidationError`` into that ``JournalError``.

    >>> TurnRecordV1.model_validate({"v": 1, "id": "t1", "scope": "user:a",
    ...     "messages": [["user", "Hi"]], "when": "2026-01-05T00:00:00+00:00"}).scope
    'user:a'
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    t: Literal["turn"] = Field(default="turn", validate_default=True)
    v: int = Field(default=None, validate_default=True)
    id: str = Field(default=None, validate_default=True)
    #: The scope's key (``kind:id``).
    scope: str = Field(default=None, validate_default=True)
    #: ``[role, text]``, or ``[role, text, name]``.
    messages: tuple[tuple[str, ...], ...] = Field(default=None, validate_default=True)
    when: datetime = Field(default=None, validate_default=True)
    thread: str | None = None
    remember: dict[str, Any] | None = None

    @field_validator("t", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        if value != "turn":
            raise JournalError(f"record type {value!r} is not a turn")
        return "turn"

    @field_validator("v", mode="before")
    @classmethod
    def _version(cls, value: Any) -> int:
        _check_version(value)
        return int(value)

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> str:
        return check_turn_id(value)

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: Any) -> str:
        return _scope_key(value)

    @field_validator("messages", mode="before")
    @classmethod
    def _messages(cls, value: Any) -> tuple[tuple[str, ...], ...]:
        return _messages(value)

    @field_validator("when", mode="before")
    @classmethod
    def _when(cls, value: Any) -> datetime:
        return _when(value)

    @field_validator("thread", mode="before")
    @classmethod
    def _thread(cls, value: Any) -> str | None:
        return _thread(value)

    @field_serializer("when")
    def _iso(self, value: datetime) -> str:
        return value.isoformat()  # with its offset, "+00:00": pydantic would write "Z"


def _journal_error(exc: ValidationError) -> JournalError:
    """The first problem of a record as the ``JournalError`` its check raised, or
    one naming the field and what it must be."""
    first = exc.errors()[0]
    raised = first.get("ctx", {}).get("error")
    if isinstance(raised, JournalError):
        return raised
    field = ".".join(map(str, first["loc"]))
    return JournalError(
        f"turn record field {field!r}: {first['msg']}; see langgraph_memory.turn_record"
    )


def check_turn_id(value: Any) -> str:
    """``value``, when it can be a turn id (a non-empty str); JournalError otherwise.

    >>> check_turn_id("t1")
    't1'
    """
    if not isinstance(value, str) or not value:
        raise JournalError(f"turn id {value!r} is not a non-empty string")
    return value


def _check_version(version: Any) -> None:
    if type(version) is not int or version < 1:  # bool is an int: not a version
        raise JournalError(f"record version {version!r} is not a version number")
    if version > VERSION:
        raise JournalError(
            f"record version {version} was written by a newer version of "
            f"langgraph-memory-kit (this one reads version {VERSION}); upgrade to replay it"
        )


def _thread(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise JournalError(f"thread id {value!r} is not a non-empty string")
    return value


def _scope_key(value: Any) -> str:
    try:
        return Scope.parse(value).key
    except InvalidScopeError as exc:
        raise JournalError(f"scope {value!r} is not kind:id ({exc})") from None


def _messages(value: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        raise JournalError(f"messages must be a list of [role, text] pairs, not {value!r:.80}")
    pairs = []
    for i, pair in enumerate(value):
        if not (
            isinstance(pair, list) and len(pair) in (2, 3) and all(isinstance(x, str) for x in pair)
        ):
            raise JournalError(
                f"message {i} is not a [role, text] pair of strings (nor a [role, text, name] "
                f"triple): {pair!r:.80}"
            )
        if pair[0] not in ROLE_OF_TYPE:
            raise JournalError(
                f"message {i} has the unknown role {pair[0]!r} (one of "
                f"{', '.join(sorted(ROLE_OF_TYPE))})"
            )
        for part in pair[1:]:  # a lone surrogate cannot be embedded, logged or stored
            check_chars(part, f"message {i}", controls=False, error=JournalError)
        pairs.append(tuple(pair))
    return tuple(pairs)


def _when(value: Any) -> datetime:
    try:
        return utc(datetime.fromisoformat(value))
    except (TypeError, ValueError):
        raise JournalError(f"when {value!r:.80} is not an ISO 8601 time") from None
