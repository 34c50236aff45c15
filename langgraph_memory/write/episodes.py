"""Episodes: what was said in a turn, kept verbatim as evidence, with no model call.

Facts are what the write path believes; an episode is what the user said, with its
time: the evidence, and the detail a fact drops. ``MemoryWriter.write_turn`` stores
one episode per speaker it keeps episodes for (the user by default) and per turn:
an episodic memory whose source and trust are its speaker's (only the user speaks
for the user), whose ``event_time`` is the turn's time, and whose metadata marks it
(``Memory.is_episode``) and names its turn, its thread and its speaker (the messages'
``name``, when they give one). The facts extracted from the turn point back to it in
their ``sources``.

Said twice, stored once: words a speaker already said in the scope (the same
``text.said_form``: case, spacing and closing punctuation aside) are recorded on the
episode that holds them, as how many times and when last (``records.SAID_COUNT``,
``records.SAID_LAST``), and the facts of the new turn link to it. A turn that only asks
or makes small talk (``gate.asks_only``) is marked (``records.ASKS``): a read ranks it
as evidence that the user wondered, below statements, and never returns the question
it is asked again.

A turn replayed with its id (a journal replay after a crash, a retry) finds its
episodes by that id and stores no second one; a replay of the last saying of words
said again (the same time) counts once.

>>> from datetime import datetime, timezone
>>> said = [{"role": "user", "content": "I moved to Pune.", "name": "Ana"}, ("assistant", "Noted!")]
>>> turn = Turn.of(said, turn_id="t1", when=datetime(2026, 3, 2, tzinfo=timezone.utc),
...                thread_id="chat-7")
>>> said = episode_fields(turn, "user")
>>> said["text"], said["source"], said["event_time"].date().isoformat()
('I moved to Pune.', <Source.USER: 'user'>, '2026-03-02')
>>> {k: v for k, v in said["metadata"].items() if k != "said"}
{'episode': True, 'turn_id': 't1', 'thread_id': 'chat-7', 'speaker': 'Ana'}
>>> said["metadata"]["said"] == said_key("i moved to pune", source="user", speaker="Ana")
True
>>> episode_fields(turn, "assistant")["trust"]
<Trust.MEDIUM: 'medium'>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.records import (
    ASKS,
    EPISODE,
    MAX_METADATA_STR_CHARS,
    MAX_TEXT_CHARS,
    SAID,
    SAID_COUNT,
    SAID_LAST,
    SPEAKER,
    THREAD_ID,
    TURN_ID,
    Kind,
    Memory,
    Scalar,
    Source,
)
from langgraph_memory.scope import Scope
from langgraph_memory.text import said_digest
from langgraph_memory.write.gate import asks_only
from langgraph_memory.write.types import SOURCE_OF_ROLE, TRUST_OF_ROLE, Role, Turn

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = [
    "MAX_SOURCES",
    "Sayings",
    "episode_fields",
    "linked",
    "said_key",
    "sort_sayings",
    "turn_episodes",
]

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
    metadata[SAID] = said_key(text, source=SOURCE_OF_ROLE[role], speaker=names or None)
    if asks_only(text):
        metadata[ASKS] = True
    return {
        "text": text,
        "kind": Kind.EPISODIC,
        "source": SOURCE_OF_ROLE[role],
        "trust": TRUST_OF_ROLE[role],
        "event_time": turn.when,
        "metadata": metadata,
    }


def said_key(text: str, *, source: Source | str, speaker: str | None = None) -> str:
    """The key of words said (``records.SAID``): equal for the same speaker (source
    and name) saying the same words (``text.said_form``), in any case or spacing.

    >>> said_key("Where do I live?", source="user") == said_key("where do i live", source="user")
    True
    >>> said_key("Hi!", source="user", speaker="Ana") == said_key("Hi!", source="user")
    False
    """
    try:
        role = Source(source).value
    except (ValueError, TypeError):
        role = None
    if role is None or not (speaker is None or isinstance(speaker, str)):
        allowed = ", ".join(s.value for s in Source)
        raise InvalidArgumentError(
            f"said_key() takes a source of {allowed} and a str speaker or None; "
            f"got {source!r} and {speaker!r}"
        )
    return said_digest(text, role, speaker or "")


@dataclass
class Sayings:
    """A batch's new episodes sorted out (``sort_sayings``): the ``add`` arguments of
    those to store; the repeats' marks for episodes already stored (``Internals.mark``);
    and, per ``(turn id, source)``, the episode that holds what was said: an index into
    ``new``, or the id of a stored episode."""

    new: list[dict[str, Any]] = field(default_factory=list)
    marks: dict[str, dict[str, Scalar]] = field(default_factory=dict)
    holders: dict[tuple[str, Source], int | str] = field(default_factory=dict)


def sort_sayings(
    store: MemoryStore, scope: Scope, said: Sequence[tuple[Turn, dict[str, Any]]]
) -> Sayings:
    """Sort a batch's episodes (each turn with ``episode_fields`` of it, in order):
    words said for the first time in the scope are stored once, with how many times
    and when last if the batch repeats them; words an active episode already holds are
    recorded on it; one indexed read for the whole batch (call it holding the scope's
    lock).

    >>> import tempfile
    >>> from datetime import datetime, timezone
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> turns = [Turn.of([("user", said)], when=datetime(2026, 3, day, tzinfo=timezone.utc))
    ...          for day, said in ((1, "Where do I live?"), (2, "where do I live"))]
    >>> said = [(t, episode_fields(t, "user")) for t in turns]
    >>> out = sort_sayings(store, Scope.of("user:a"), said)
    >>> len(out.new), out.new[0]["metadata"]["said_count"], set(out.holders.values())
    (1, 2, {0})
    """
    groups: dict[str, list[tuple[Turn, dict[str, Any]]]] = {}
    for turn, fields in said:
        groups.setdefault(str(fields["metadata"][SAID]), []).append((turn, fields))
    held: dict[str, Memory] = {}
    if groups:
        found = stores.internals(store).find(scope, metadata={EPISODE: True, SAID: list(groups)})
        for m in found:  # oldest first: the first keeps the words when two processes raced
            held.setdefault(str(m.metadata[SAID]), m)
    out = Sayings()
    for key, sayings in groups.items():
        times = [turn.when for turn, _ in sayings]
        episode = held.get(key)
        if episode is None:
            first = dict(sayings[0][1])
            if len(sayings) > 1:
                first["metadata"] = {
                    **first["metadata"],
                    SAID_COUNT: len(sayings),
                    SAID_LAST: max(times).isoformat(),
                }
            out.new.append({**first, "now": times[0]})
            holder: int | str = len(out.new) - 1
        else:
            # A replay of its last saying (the same time) is no new saying.
            fresh = [t for t in times if t != episode.last_said]
            if fresh:
                out.marks[episode.id] = {
                    SAID_COUNT: episode.times_said + len(fresh),
                    SAID_LAST: max(episode.last_said, *fresh).isoformat(),
                }
            holder = episode.id
        for turn, fields in sayings:
            out.holders[(turn.id, fields["source"])] = holder
    return out


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
