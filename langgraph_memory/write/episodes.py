"""Episodes: what was said in a turn, kept verbatim as evidence, with no model call.

Facts are what the write path believes; an episode is what the user said, with its
time: the evidence, and the detail a fact drops. ``MemoryWriter.write_turn`` stores
one episode per speaker it keeps episodes for (the user by default) and per turn:
an episodic memory whose source and trust are its speaker's (only the user speaks
for the user), whose ``event_time`` is the turn's time, and whose metadata marks it
(``Memory.is_episode``) and names its turn, its thread and its speaker (the messages'
``name``, when they give one). The facts extracted from the turn point back to it in
their ``sources``.

A turn replayed with its id (a journal replay after a crash, a retry) finds its
episodes by that id and stores no second one.

>>> from datetime import datetime, timezone
>>> said = [{"role": "user", "content": "I moved to Pune.", "name": "Ana"}, ("assistant", "Noted!")]
>>> turn = Turn.of(said, turn_id="t1", when=datetime(2026, 3, 2, tzinfo=timezone.utc),
...                thread_id="chat-7")
>>> said = episode_fields(turn, "user")
>>> said["text"], said["source"], said["event_time"].date().isoformat()
('I moved to Pune.', <Source.USER: 'user'>, '2026-03-02')
>>> said["metadata"]
{'episode': True, 'turn_id': 't1', 'thread_id': 'chat-7', 'speaker': 'Ana'}
>>> episode_fields(turn, "assistant")["trust"]
<Trust.MEDIUM: 'medium'>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory.records import (
    EPISODE,
    MAX_METADATA_STR_CHARS,
    MAX_TEXT_CHARS,
    SPEAKER,
    THREAD_ID,
    TURN_ID,
    Kind,
    Memory,
    Scalar,
)
from langgraph_memory.scope import Scope
from langgraph_memory.write.types import SOURCE_OF_ROLE, TRUST_OF_ROLE, Role, Turn

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["MAX_SOURCES", "episode_fields", "linked", "turn_episodes"]

#: Most episodes a fact's ``sources`` names: a fact restated in a thousand turns
#: keeps the newest; its older versions (``history``) keep the older links.
MAX_SOURCES = 16


def episode_fields(turn: Turn, role: Role) -> dict[str, Any] | None:
    """``MemoryStore.add`` arguments for what ``role`` said in ``turn`` (its
    messages, one a line), or None when it said nothing but blanks.

    A text longer than a memory may be is cut, and ``metadata["truncated"]`` says so.

    >>> from datetime import datetime, timezone
    >>> episode_fields(Turn.of([("user", "  ")], when=datetime.now(timezone.utc)), "user") is None
    True
    """
    said = [m for m in turn.messages if m.role == role]
    text = "\n".join(m.content for m in said).strip()
    if not text:
        return None
    metadata: dict[str, Scalar] = {EPISODE: True, TURN_ID: turn.id}
    if turn.thread_id is not None:
        metadata[THREAD_ID] = turn.thread_id
    names = ", ".join(dict.fromkeys(m.name for m in said if m.name))
    if names:
        metadata[SPEAKER] = names[:MAX_METADATA_STR_CHARS]
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS].rstrip()
        metadata["truncated"] = True
    return {
        "text": text,
        "kind": Kind.EPISODIC,
        "source": SOURCE_OF_ROLE[role],
        "trust": TRUST_OF_ROLE[role],
        "event_time": turn.when,
        "metadata": metadata,
    }


def turn_episodes(store: MemoryStore, scope: Scope, turn_ids: Sequence[str]) -> list[Memory]:
    """The episodes already stored for the turns ``turn_ids``, archived ones too
    (retention may have archived them before a late replay): one indexed read
    per collection."""
    if not turn_ids:
        return []
    return stores.internals(store).find(
        scope, metadata={EPISODE: True, TURN_ID: list(turn_ids)}, archived=True
    )


def linked(sources: Sequence[str], episode_id: str) -> tuple[str, ...]:
    """``sources`` with ``episode_id`` added last (once), at most ``MAX_SOURCES``.

    >>> linked(("a1", "b2"), "a1"), linked(("a1",), "c3")
    (('b2', 'a1'), ('a1', 'c3'))
    """
    kept = [s for s in sources if s != episode_id]
    return (*kept, episode_id)[-MAX_SOURCES:]
