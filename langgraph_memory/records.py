"""The records langgraph_memory keeps: memories and the decisions that shaped them.

Plain frozen dataclasses and enums with no I/O, so every layer can share them.
"Model" here means the data model: the language models are elsewhere (a chat
model is LangChain's; ``write.MemoryModel`` is what extracts and reconciles).
Times are timezone-aware UTC ``datetime`` objects; ``to_dict`` gives a JSON-ready
form and ``from_dict`` reads it back.

>>> from datetime import datetime, timezone
>>> m = Memory(id="0a1b2c3d", text="User lives in Pune.", scope="user:alice",
...            created_at=datetime(2026, 1, 5, tzinfo=timezone.utc))
>>> m.active, m.to_dict()["created_at"]
(True, '2026-01-05T00:00:00+00:00')
>>> Memory.from_dict(m.to_dict()) == m
True
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from typing import Any

from langgraph_memory.checks import INT64_MAX, INT64_MIN, check_chars, check_time
from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidTypeError,
    MemoryKitError,
)

#: A metadata value: what Chroma can hold without losing type.
Scalar = str | int | float | bool

#: Longest memory text accepted. Facts are a sentence or two; the embedder reads
#: only the first 256 tokens anyway. A longer text is almost always a mistake
#: (a whole document pasted in), so it is refused rather than silently cut.
MAX_TEXT_CHARS = 32_768
#: Metadata limits, to keep one memory's record small.
MAX_METADATA_KEYS = 64
MAX_METADATA_KEY_CHARS = 128
MAX_METADATA_STR_CHARS = 4_096

#: Metadata of an episode: what was said in a turn, kept verbatim by the write path
#: (kind ``episodic``, like an event a model extracted, so the mark tells them apart),
#: with the id of its turn and, when known, of its thread (session) and the speaker's
#: name (a message's ``name``: a speaker is metadata, never a prefix of the text).
EPISODE = "episode"
TURN_ID = "turn_id"
THREAD_ID = "thread_id"
SPEAKER = "speaker"
#: Metadata of an episode that the read and the write path keep up to date:
#:
#: - ``said``: the key of its words and speaker (``write.episodes.said_key``): a turn that
#:   says the same words again is recorded on the episode, never stored a second time,
#:   as how many times (``said_count``; absent: once) and when last (``said_last``, ISO);
#: - ``asks``: True when its turn only asks or makes small talk, with no statement about
#:   the speaker or the world: a read ranks it below statements, and never returns the
#:   question it is asked again;
#: - ``retracted``: when (ISO) a fact taken from it was deleted with nothing in its place.
SAID = "said"
SAID_COUNT = "said_count"
SAID_LAST = "said_last"
ASKS = "asks"
RETRACTED = "retracted"
#: Metadata of a fact version: the episodes whose words it states, comma-joined ("" for
#: none): the turn it was taken from, not the earlier ones an update carries in
#: ``sources`` (those said what it replaced).
SAID_IN = "said_in"


class Kind(str, enum.Enum):
    """What sort of memory a record is."""

    SEMANTIC = "semantic"  # a durable fact: "User is vegetarian."
    EPISODIC = "episodic"  # something that happened: a raw turn or an event
    PROCEDURAL = "procedural"  # how the user wants things done
    REFLECTION = "reflection"  # a conclusion drawn from other memories


class Source(str, enum.Enum):
    """Where a memory's content came from (used against memory poisoning)."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    DOCUMENT = "document"
    EXPLICIT = "explicit"  # the user asked to remember it
    REFLECTION = "reflection"
    USER_CORRECTION = "user_correction"  # the person corrected it (the inspector's "correct")


class Trust(str, enum.Enum):
    """How far the agent may rely on a memory."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class DecisionOp(str, enum.Enum):
    """What the write path decided to do with one fact."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NOOP = "NOOP"


class Status(str, enum.Enum):
    """How one write-path decision ended; every logged decision has one.

    - ``APPLIED``: carried out as decided (a NOOP changes nothing). When the
      code fixed the model's answer first (an unknown op read as NOOP, an
      UPDATE of an id the model was not shown turned into an ADD ...), the
      decision's ``note`` says what it changed; the fix is part of the rules,
      not a failure.
    - ``REJECTED``: a candidate fact refused before reconciliation (too long,
      empty, from a speaker not asked for, skipped by the app's ``instructions``);
      ``note`` says why. No memory changed.
    - ``FAILED``: could not be carried out: the model's answer was unusable, the
      store refused the change, or a background write gave up; ``error`` says
      why. No memory changed.

    >>> Status("applied") is Status.APPLIED, Status.FAILED.value
    (True, 'failed')
    """

    APPLIED = "applied"
    REJECTED = "rejected"
    FAILED = "failed"

    @classmethod
    def of(cls, value: Any) -> Status:
        """``value`` as a Status: a Status, or its value as a str.

        Args:
            value: a ``Status``, or ``"applied"``, ``"rejected"`` or ``"failed"``.

        Returns:
            The ``Status``.

        Raises:
            InvalidArgumentError: ``value`` is no status.

        >>> Status.of("rejected")
        <Status.REJECTED: 'rejected'>
        >>> Status.of("done")
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.InvalidArgumentError: status must be one of applied, rejected, ...
        """
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(s.value for s in cls)
            raise InvalidArgumentError(f"status must be one of {allowed}; got {value!r}") from None


def utc(value: datetime, what: str = "time") -> datetime:
    """Return an aware ``value`` in UTC; a naive one is refused (``what`` names it
    in the error), since nothing says which zone it meant.

    >>> utc(datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)).isoformat()
    '2023-05-08T13:56:00+00:00'
    >>> utc(datetime(2023, 5, 8, 13, 56), "now")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: now=datetime(2023, 5, 8, 13, 56) has no ...
    """
    return check_time(value, what)


def assume_utc(value: datetime) -> datetime:
    """A naive datetime read as UTC, on purpose: for dates parsed from datasets
    that write none. (The public API refuses naive datetimes.)

    >>> assume_utc(datetime(2023, 5, 8, 13, 56)).isoformat()
    '2023-05-08T13:56:00+00:00'
    """
    return utc(value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc))


def now_utc() -> datetime:
    """The current time, aware, in UTC.

    >>> now_utc().tzinfo is timezone.utc
    True
    """
    return datetime.now(timezone.utc)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


@contextmanager
def _reading(record: str) -> Iterator[None]:
    """``from_dict`` of a dict it cannot read raises InvalidMemoryError saying what
    is wrong, not the KeyError, ValueError or TypeError of the line that met it.
    Its body only converts values, so every such error there is bad data.

    >>> Memory.from_dict({"id": "0a1b2c3d", "text": "x", "scope": "user:a"})
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: cannot read a Memory: it has no 'created_at'; ...
    """
    try:
        yield
    except MemoryKitError:
        raise
    except KeyError as exc:
        raise InvalidMemoryError(
            f"cannot read a {record}: it has no {exc.args[0]!r}; pass what {record}.to_dict() wrote"
        ) from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise InvalidMemoryError(
            f"cannot read a {record} ({exc}); pass what {record}.to_dict() wrote"
        ) from None


def _metadata_time(value: Any) -> datetime | None:
    """An ISO time the kit wrote into metadata, or None when it is absent or unreadable
    (metadata is the user's too: a bad value there never breaks a read).

    >>> _metadata_time("2026-03-05T09:00:00+00:00").day, _metadata_time("soon"), _metadata_time(3)
    (5, None, None)
    """
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed.astimezone(timezone.utc) if parsed.tzinfo is not None else None


def _from_iso(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return utc(value)
    return utc(datetime.fromisoformat(str(value)))


@dataclass(frozen=True)
class Memory:
    """One version of one memory.

    A memory that changes is never overwritten: the old version gets
    ``valid_until`` and a new version with ``replaces`` pointing back opens.
    The store makes them (``MemoryStore.add``); times are timezone-aware.

    Args:
        id: the version's id, given by the store.
        text: what it says.
        scope: its scope, as ``"kind:id"``.
        created_at: when this version was stored.
        kind: what sort of memory it is (a fact, an episode, a rule, a reflection).
        importance: how much it matters, from 0 to 1.
        last_accessed: when a read last returned it (at first, when it was
            stored); None: never.
        valid_until: when this version was closed (updated or archived); None
            while it is current.
        replaces: the id of the version it replaced; None for a first version.
        pinned: whether every read of its scope shows it.
        source: where its content came from.
        trust: how far it may be relied on.
        sources: the ids of the memories it was taken from (the episodes that said
            it, or the memories a reflection rests on).
        event_time: when what it says happened; None: unknown.
        metadata: the caller's own fields, and the write path's (``episode``,
            ``turn_id``, ``said_in`` ...): str keys, scalar values.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> Memory(id="deadbeef", text="User is vegetarian.", scope="user:bob", created_at=t).kind
    <Kind.SEMANTIC: 'semantic'>
    """

    id: str
    text: str
    scope: str
    created_at: datetime
    kind: Kind = Kind.SEMANTIC
    importance: float = 0.5
    last_accessed: datetime | None = None
    valid_until: datetime | None = None
    replaces: str | None = None
    pinned: bool = False
    source: Source = Source.USER
    trust: Trust = Trust.HIGH
    sources: tuple[str, ...] = ()
    event_time: datetime | None = None
    metadata: Mapping[str, Scalar] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        """True while the memory is current (not closed)."""
        return self.valid_until is None

    @property
    def is_episode(self) -> bool:
        """True for an episode: a turn's words kept verbatim (``metadata["episode"]``),
        not a fact taken from them.

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> said = Memory(id="0a1b2c3d", text="I moved to Pune.", scope="user:a", created_at=t,
        ...               kind=Kind.EPISODIC, metadata={EPISODE: True, TURN_ID: "t1"})
        >>> fact = Memory(id="1b2c3d4e", text="User lives in Pune.", scope="user:a", created_at=t)
        >>> said.is_episode, fact.is_episode
        (True, False)
        """
        return self.metadata.get(EPISODE) is True

    @property
    def said_in(self) -> tuple[str, ...]:
        """The episodes whose words this version states (``metadata["said_in"]``).

        A version written before the write path recorded it counts as stated by all
        its ``sources`` when it is a first version, and by its last source when it
        replaced another (an update names its own turn last, after those it carries).

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> new = Memory(id="1b2c3d4e", text="User lives in Pune.", scope="user:a", created_at=t,
        ...              replaces="0a1b2c3d", sources=("e1", "e2"), metadata={SAID_IN: "e2"})
        >>> new.said_in, replace(new, metadata={}).said_in
        (('e2',), ('e2',))
        >>> replace(new, replaces=None, metadata={}).said_in
        ('e1', 'e2')
        """
        value = self.metadata.get(SAID_IN)
        if isinstance(value, str):
            return tuple(s for s in value.split(",") if s)
        return self.sources if self.replaces is None else self.sources[-1:]

    @property
    def times_said(self) -> int:
        """How many times an episode's words were said (1 unless said again).

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> Memory(id="0a1b2c3d", text="x", scope="user:a", created_at=t).times_said
        1
        """
        count = self.metadata.get(SAID_COUNT)
        return count if isinstance(count, int) and not isinstance(count, bool) and count > 1 else 1

    @property
    def last_said(self) -> datetime:
        """When an episode's words were last said (``said_last``), else when it
        happened (``event_time``), else when it was stored.

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> m = Memory(id="0a1b2c3d", text="x", scope="user:a", created_at=t,
        ...            metadata={SAID_LAST: "2026-03-05T09:00:00+00:00"})
        >>> m.last_said.isoformat(), replace(m, metadata={}).last_said == t
        ('2026-03-05T09:00:00+00:00', True)
        """
        return _metadata_time(self.metadata.get(SAID_LAST)) or self.event_time or self.created_at

    @property
    def retracted(self) -> bool:
        """Whether a fact taken from this episode was deleted, with nothing in its
        place, after its words were last said (``metadata["retracted"]``).

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> m = Memory(id="0a1b2c3d", text="I have a dog.", scope="user:a", created_at=t,
        ...            metadata={RETRACTED: "2026-02-01T00:00:00+00:00"})
        >>> said_again = {**m.metadata, SAID_LAST: "2026-03-01T00:00:00+00:00"}
        >>> m.retracted, replace(m, metadata=said_again).retracted
        (True, False)
        """
        when = _metadata_time(self.metadata.get(RETRACTED))
        return when is not None and when >= self.last_said

    def valid_at(self, when: datetime) -> bool:
        """Whether this version was the current one at ``when``.

        Args:
            when: the time to ask about (timezone-aware).

        Returns:
            True when it was created at or before ``when`` and not closed by then.

        Raises:
            InvalidArgumentError: ``when`` is naive.

        >>> from datetime import datetime, timezone
        >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> m = Memory(id="deadbeef", text="x", scope="user:bob", created_at=t)
        >>> m.valid_at(t), m.valid_at(datetime(2025, 1, 1, tzinfo=timezone.utc))
        (True, False)
        """
        when = utc(when, "when")
        return self.created_at <= when and (self.valid_until is None or when < self.valid_until)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (ISO dates, enum values as strings).

        Returns:
            Every field by name, as ``from_dict`` reads it back.
        """
        return {
            "id": self.id,
            "text": self.text,
            "scope": self.scope,
            "kind": self.kind.value,
            "importance": self.importance,
            "created_at": _iso(self.created_at),
            "last_accessed": _iso(self.last_accessed),
            "valid_until": _iso(self.valid_until),
            "replaces": self.replaces,
            "pinned": self.pinned,
            "source": self.source.value,
            "trust": self.trust.value,
            "sources": list(self.sources),
            "event_time": _iso(self.event_time),
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Memory:
        """Read back what :meth:`to_dict` wrote.

        Args:
            data: a dict as ``to_dict`` writes it (fields left out take their
                defaults; ``id``, ``text``, ``scope`` and ``created_at`` are needed).

        Returns:
            The ``Memory``.

        Raises:
            InvalidMemoryError: ``data`` lacks a needed field or holds a value that
                cannot be read.

        >>> Memory.from_dict({"id": "0a1b2c3d", "text": "x", "scope": "user:a",
        ...                   "created_at": "yesterday"})
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.InvalidMemoryError: cannot read a Memory (Invalid isoformat ...
        """
        with _reading("Memory"):
            created = _from_iso(data["created_at"])
            if created is None:
                raise InvalidMemoryError("cannot read a Memory: its created_at is None")
            return cls(
                id=str(data["id"]),
                text=str(data["text"]),
                scope=str(data["scope"]),
                created_at=created,
                kind=Kind(data.get("kind", "semantic")),
                importance=float(data.get("importance", 0.5)),
                last_accessed=_from_iso(data.get("last_accessed")),
                valid_until=_from_iso(data.get("valid_until")),
                replaces=data.get("replaces"),
                pinned=bool(data.get("pinned", False)),
                source=Source(data.get("source", "user")),
                trust=Trust(data.get("trust", "high")),
                sources=tuple(data.get("sources", ())),
                event_time=_from_iso(data.get("event_time")),
                metadata=dict(data.get("metadata", {})),
            )


@dataclass(frozen=True)
class Decision:
    """One write-path decision about one fact, as it goes to the decision log.

    ``shown_ids`` are the real ids of the neighbours the model saw (it saw them
    as small integers); ``shown_texts`` their texts, in the same order. ``raw``
    is the model's output as received. The store fills ``id`` and
    ``created_at`` when it logs the decision; ``result_id`` is the memory the
    decision created (ADD, UPDATE), if any.

    ``status`` says how it ended (see ``Status``; a str value is accepted and
    checked). ``note`` says what the code corrected in the model's answer, why a
    fact was rejected, or why no model was asked (nothing in the scope to compare
    the fact with); ``error`` is set only when the decision failed.

    Args:
        op: what was decided: ``ADD``, ``UPDATE``, ``DELETE`` or ``NOOP``.
        fact: what the decision is about: the fact the write path took from the
            turn (or the request, such as a forget's query).
        text: the text written (ADD, UPDATE); None otherwise.
        target_id: the memory the decision changes or keeps (UPDATE, DELETE,
            NOOP); None for an ADD.
        shown_ids: the ids of the memories the model was shown, in order.
        shown_texts: their texts, in the same order.
        raw: the model's answer as received (or what made the decision, such as
            ``"explicit forget"``); None when there was none.
        result_id: the memory the decision created (ADD, UPDATE); None otherwise.
        turn_id: the turn it was made in; None outside a turn.
        status: how it ended: a ``Status``, or its value as a str.
        error: why it failed; None unless the status is ``FAILED``.
        note: what the code corrected in the model's answer, why the fact was
            rejected, or why no model was asked; None: nothing to say.
        id: the log entry's id; None until the store logs it.
        created_at: when it was logged; None until the store logs it.

    Raises:
        InvalidArgumentError: ``status`` is no status.

    >>> d = Decision(op=DecisionOp.UPDATE, fact="User lives in Pune.", text="User lives in Pune.",
    ...              target_id="0a1b2c3d", shown_ids=("0a1b2c3d",))
    >>> Decision.from_dict(d.to_dict()) == d
    True
    >>> Decision(op=DecisionOp.NOOP, fact="x", status="done")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: status must be one of applied, rejected, ...
    """

    op: DecisionOp
    fact: str
    text: str | None = None
    target_id: str | None = None
    shown_ids: tuple[str, ...] = ()
    shown_texts: tuple[str, ...] = ()
    raw: str | None = None
    result_id: str | None = None
    turn_id: str | None = None
    status: Status = Status.APPLIED
    error: str | None = None
    note: str | None = None
    id: str | None = None
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status.of(self.status))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict.

        Returns:
            Every field by name (enum values and ISO times as str, tuples as
            lists), as ``from_dict`` reads it back.
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, enum.Enum):
                value = value.value
            elif isinstance(value, datetime):
                value = value.isoformat()
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        """Read back what :meth:`to_dict` wrote.

        Logs and exports written before ``note`` existed are read too: their
        status ``"corrected"`` is ``APPLIED``, and the text they kept in
        ``error`` for a correction or a rejection is the ``note``.

        Args:
            data: a dict as ``to_dict`` writes it (keys it does not know are left
                out; ``op`` and ``fact`` are needed).

        Returns:
            The ``Decision``.

        Raises:
            InvalidMemoryError: ``data`` lacks ``op`` or ``fact``, or holds a value
                that cannot be read.

        >>> old = {"op": "NOOP", "fact": "x", "status": "corrected", "error": "unknown op"}
        >>> d = Decision.from_dict(old)
        >>> d.status, d.note, d.error
        (<Status.APPLIED: 'applied'>, 'unknown op', None)
        """
        with _reading("Decision"):
            known = {f.name for f in fields(cls)}
            kwargs = {k: v for k, v in data.items() if k in known}
            if kwargs.get("status") in ("corrected", "rejected") and kwargs.get("note") is None:
                kwargs["note"], kwargs["error"] = kwargs.get("error"), None
                if kwargs["status"] == "corrected":
                    kwargs["status"] = Status.APPLIED
            kwargs["op"] = DecisionOp(str(kwargs["op"]).upper())
            kwargs["shown_ids"] = tuple(kwargs.get("shown_ids") or ())
            kwargs["shown_texts"] = tuple(kwargs.get("shown_texts") or ())
            kwargs["created_at"] = _from_iso(kwargs.get("created_at"))
            return cls(**kwargs)

    def with_(self, **changes: Any) -> Decision:
        """A copy with some fields changed.

        Args:
            **changes: the fields to change, by name, with their new values.

        Returns:
            The new ``Decision`` (this one is left as it is).

        Raises:
            InvalidTypeError: a name is no field of a Decision.

        >>> Decision(op=DecisionOp.NOOP, fact="x").with_(status=Status.FAILED, error="boom").status
        <Status.FAILED: 'failed'>
        """
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise InvalidTypeError(
                f"with_() got unknown fields {unknown}; a Decision has "
                f"{', '.join(f.name for f in fields(self))}"
            )
        return replace(self, **changes)


class ReviewStatus(str, enum.Enum):
    """Where a review stands: waiting for a reviewer, or decided once for good."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Review:
    """A proposal to copy one memory into a wider scope, and what a reviewer decided.

    ``memory`` is the proposed version as it was when proposed: what the reviewer
    sees, and what ``approve`` copies into ``to_scope`` (as ``result_id``).
    ``note`` says why it was proposed, ``reason`` why it was approved or rejected.
    The store makes them (``MemoryStore.reviews``).

    Args:
        id: the review's id, given by the store.
        from_scope: the scope the memory comes from, as ``"kind:id"``.
        memory_id: the proposed memory's id in ``from_scope``.
        to_scope: the wider scope it would be copied into, as ``"kind:id"``.
        memory: the proposed version, as it was when proposed.
        created_at: when it was proposed (timezone-aware).
        status: where it stands: pending, approved or rejected.
        note: why it was proposed; None: not said.
        decided_at: when it was approved or rejected; None while pending.
        reason: why it was approved or rejected; None: not said.
        result_id: the copy's id in ``to_scope``, once approved; None otherwise.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 5, tzinfo=timezone.utc)
    >>> m = Memory(id="0a1b2c3d", text="Refunds take 5 days.", scope="user:alice", created_at=t)
    >>> r = Review(id="r1", from_scope="user:alice", memory_id=m.id, to_scope="agent:support",
    ...            memory=m, created_at=t)
    >>> r.status, Review.from_dict(r.to_dict()) == r
    (<ReviewStatus.PENDING: 'pending'>, True)
    """

    id: str
    from_scope: str
    memory_id: str
    to_scope: str
    memory: Memory
    created_at: datetime
    status: ReviewStatus = ReviewStatus.PENDING
    note: str | None = None
    decided_at: datetime | None = None
    reason: str | None = None
    result_id: str | None = None

    @property
    def text(self) -> str:
        """The proposed memory's text."""
        return self.memory.text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the memory as ``Memory.to_dict``).

        Returns:
            Every field by name, as ``from_dict`` reads it back.
        """
        return {
            "id": self.id,
            "from_scope": self.from_scope,
            "memory_id": self.memory_id,
            "to_scope": self.to_scope,
            "memory": self.memory.to_dict(),
            "created_at": _iso(self.created_at),
            "status": self.status.value,
            "note": self.note,
            "decided_at": _iso(self.decided_at),
            "reason": self.reason,
            "result_id": self.result_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Review:
        """Read back what :meth:`to_dict` wrote.

        Args:
            data: a dict as ``to_dict`` writes it.

        Returns:
            The ``Review``.

        Raises:
            InvalidMemoryError: ``data`` lacks a needed field or holds a value that
                cannot be read.
        """
        with _reading("Review"):
            created = _from_iso(data["created_at"])
            if created is None:
                raise InvalidMemoryError("cannot read a Review: its created_at is None")
            return cls(
                id=str(data["id"]),
                from_scope=str(data["from_scope"]),
                memory_id=str(data["memory_id"]),
                to_scope=str(data["to_scope"]),
                memory=Memory.from_dict(data["memory"]),
                created_at=created,
                status=ReviewStatus(data.get("status", "pending")),
                note=data.get("note"),
                decided_at=_from_iso(data.get("decided_at")),
                reason=data.get("reason"),
                result_id=data.get("result_id"),
            )


def check_importance(value: Any) -> float:
    """Validate an importance in [0, 1].

    >>> check_importance(0.7)
    0.7
    >>> check_importance(7)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: importance must be a number in [0, 1], got 7 ...
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:  # NaN
        raise InvalidMemoryError(f"importance must be a number in [0, 1], got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise InvalidMemoryError(
            f"importance must be a number in [0, 1], got {value!r} "
            "(a model's 1..10 score is divided by 10 before it is stored)"
        )
    return float(value)


def check_text(text: Any) -> str:
    """Validate a memory text: a non-blank str of at most MAX_TEXT_CHARS characters,
    valid Unicode, with no control characters but tab, newline and carriage return
    (see ``checks.check_chars`` for why).

    >>> check_text("  User is vegetarian. ")
    'User is vegetarian.'
    >>> check_text("User\\x1b[2J is vegetarian.")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: memory text contains the control ... '\\x1b' ...
    """
    if not isinstance(text, str):
        raise InvalidMemoryError(f"memory text must be a str, got {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        raise InvalidMemoryError("memory text is empty; pass the fact to remember")
    if len(stripped) > MAX_TEXT_CHARS:
        raise InvalidMemoryError(
            f"memory text has {len(stripped):,} characters, more than the limit of "
            f"{MAX_TEXT_CHARS:,}: store one fact per memory, or split a document into "
            "passages before you add them"
        )
    return check_chars(stripped, "memory text", error=InvalidMemoryError)


def check_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Scalar]:
    """Validate user metadata: str keys, scalar values (str, int, float, bool).

    ``None`` values and nested dicts or lists are refused rather than dropped or
    stringified, so what you read back is what you wrote.

    >>> check_metadata({"topic": "diet", "confidence": 0.9})
    {'topic': 'diet', 'confidence': 0.9}
    >>> check_metadata({"x": None})
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: metadata['x'] is None; ...
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidMemoryError(
            f"metadata must be a dict of str -> str/int/float/bool, got {type(metadata).__name__}"
        )
    if len(metadata) > MAX_METADATA_KEYS:
        raise InvalidMemoryError(
            f"metadata has {len(metadata)} keys, more than the limit of {MAX_METADATA_KEYS}"
        )
    out: dict[str, Scalar] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not key or len(key) > MAX_METADATA_KEY_CHARS:
            raise InvalidMemoryError(
                f"metadata key {key!r} must be a non-empty str of at most "
                f"{MAX_METADATA_KEY_CHARS} characters"
            )
        check_chars(key, f"metadata key {key!r}", error=InvalidMemoryError)
        out[key] = _metadata_value(key, value)
    return out


def _metadata_value(key: str, value: Any) -> Scalar:
    if value is None:
        raise InvalidMemoryError(
            f"metadata[{key!r}] is None; leave the key out instead "
            "(the store cannot tell None from absent)"
        )
    if not isinstance(value, (str, int, float, bool)):
        raise InvalidMemoryError(
            f"metadata[{key!r}] is a {type(value).__name__}; values must be "
            "str, int, float or bool (flatten nested data into separate keys, "
            "or json.dumps it into a str)"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidMemoryError(f"metadata[{key!r}] is {value!r}; use a finite number")
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not INT64_MIN <= value <= INT64_MAX
    ):
        raise InvalidMemoryError(
            f"metadata[{key!r}] = {value} is outside the signed 64-bit range the store "
            f"keeps ints in ({INT64_MIN} to {INT64_MAX}); store it as a str"
        )
    if isinstance(value, str):
        if len(value) > MAX_METADATA_STR_CHARS:
            raise InvalidMemoryError(
                f"metadata[{key!r}] has {len(value):,} characters, more than "
                f"{MAX_METADATA_STR_CHARS:,}; put long content in the memory text"
            )
        check_chars(value, f"metadata[{key!r}]", error=InvalidMemoryError)
    return value
