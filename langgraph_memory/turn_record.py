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

from langgraph_memory.checks import check_chars
from langgraph_memory.errors import InvalidScopeError, JournalError
from langgraph_memory.records import utc
from langgraph_memory.scope import Scope

__all__ = ["ROLE_OF_TYPE", "VERSION", "Role", "TurnRecord", "check_turn_id"]

#: The version of the record format this release writes, and the newest it reads.
VERSION = 1

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

    def record(self) -> dict[str, Any]:
        """The JSON-ready record (``thread`` only when the turn has one, so a
        record without it reads as before)."""
        record: dict[str, Any] = {
            "t": "turn",
            "v": VERSION,
            "id": self.turn_id,
            "scope": self.scope,
            "messages": [list(m) for m in self.messages],
            "when": self.when.isoformat(),
        }
        if self.thread_id is not None:
            record["thread"] = self.thread_id
        return record

    @classmethod
    def from_record(cls: type[_R], data: Mapping[str, Any]) -> _R:
        """Read back what :meth:`record` wrote; ``JournalError`` says what is wrong if not.

        >>> TurnRecord.from_record({"t": "turn", "v": 99})
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.JournalError: record version 99 was written by a newer ...
        """
        if not isinstance(data, Mapping):
            raise JournalError(f"a turn record is a JSON object, not {type(data).__name__}")
        if data.get("t", "turn") != "turn":
            raise JournalError(f"record type {data.get('t')!r} is not a turn")
        _check_version(data.get("v"))
        return cls(
            turn_id=check_turn_id(data.get("id")),
            scope=_scope_key(data.get("scope")),
            messages=_messages(data.get("messages")),
            when=_when(data.get("when")),
            thread_id=_thread(data.get("thread")),
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
