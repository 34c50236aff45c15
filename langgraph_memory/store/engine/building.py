"""Building memory versions from a caller's arguments, validated.

>>> from datetime import datetime, timezone
>>> m = new_memory(Scope("user", "a"), datetime(2026, 1, 1, tzinfo=timezone.utc),
...                {"text": "Likes tea.", "importance": 0.6})
>>> (m.text, m.importance)
('Likes tea.', 0.6)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from langgraph_memory.checks import check_chars
from langgraph_memory.errors import InvalidMemoryError
from langgraph_memory.records import (
    Kind,
    Memory,
    Source,
    Trust,
    check_importance,
    check_metadata,
    check_text,
    utc,
)
from langgraph_memory.scope import Scope

#: Fields ``update`` accepts besides the text.
UPDATE_FIELDS = frozenset(
    {"importance", "kind", "pinned", "source", "trust", "event_time", "sources", "metadata"}
)


def _enum(cls: type[Any], value: Any, what: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise InvalidMemoryError(f"{what} must be one of {choices}; got {value!r}") from None


def _check_time(value: Any, what: str) -> datetime | None:
    if value is None:
        return None
    return utc(value, what)


def _check_sources(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise InvalidMemoryError(f"sources must be a list of memory ids, got {value!r}")
    out = tuple(value)
    for s in out:
        if not isinstance(s, str) or not s or "," in s:
            raise InvalidMemoryError(f"sources must hold memory ids, got {s!r}")
        check_chars(s, "sources", error=InvalidMemoryError)
    return out


def item_fields(index: int, item: Any) -> dict[str, Any]:
    """One ``add_many`` item as :meth:`add`'s arguments: a text or a dict of them."""
    if isinstance(item, str):
        return {"text": item}
    if isinstance(item, Mapping):
        return dict(item)
    raise InvalidMemoryError(
        f"item {index}: expected a text or a dict of add()'s arguments, "
        f"got {type(item).__name__}: {item!r}"
    )


def check_items(items: Any) -> list[Any]:
    """``add_many``'s items as a list: a list or tuple, not a single text."""
    if isinstance(items, str) or not isinstance(items, (list, tuple)):
        raise InvalidMemoryError(
            f"add_many takes a list of texts or dicts, got {type(items).__name__}: {items!r}"
        )
    return list(items)


def new_memory(scope: Scope, when: datetime, fields: Mapping[str, Any]) -> Memory:
    allowed = UPDATE_FIELDS | {"text"}
    unknown = set(fields) - allowed
    if unknown:
        raise InvalidMemoryError(f"unknown fields {sorted(unknown)}; allowed: {sorted(allowed)}")
    if "text" not in fields:
        raise InvalidMemoryError("each item needs a 'text'")
    pinned = fields.get("pinned", False)
    if not isinstance(pinned, bool):
        raise InvalidMemoryError(f"pinned must be True or False, got {pinned!r}")
    return Memory(
        id="",
        text=check_text(fields["text"]),
        scope=scope.key,
        created_at=when,
        kind=_enum(Kind, fields.get("kind", Kind.SEMANTIC), "kind"),
        importance=check_importance(fields.get("importance", 0.5)),
        last_accessed=when,
        pinned=pinned,
        source=_enum(Source, fields.get("source", Source.USER), "source"),
        trust=_enum(Trust, fields.get("trust", Trust.HIGH), "trust"),
        sources=_check_sources(fields.get("sources", ())),
        event_time=_check_time(fields.get("event_time"), "event_time"),
        metadata=check_metadata(fields.get("metadata")),
    )


def successor(old: Memory, text: str, when: datetime, fields: Mapping[str, Any]) -> Memory:
    """The next version of ``old``: given fields win, the rest carries over."""
    merged: dict[str, Any] = {
        "text": text,
        "kind": fields.get("kind", old.kind),
        "importance": max(old.importance, check_importance(fields.get("importance", 0.0))),
        "pinned": fields.get("pinned", old.pinned),
        "source": fields.get("source", old.source),
        "trust": fields.get("trust", old.trust),
        "event_time": fields.get("event_time", old.event_time),
        "sources": fields.get("sources", old.sources),
        "metadata": {**old.metadata, **check_metadata(fields.get("metadata"))},
    }
    return replace(new_memory(Scope.parse(old.scope), when, merged), replaces=old.id)
