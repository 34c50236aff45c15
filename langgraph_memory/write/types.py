"""What flows through the write path: turns in, facts and choices out.

A ``Turn`` is what the user and the agent said in one exchange, with its date
and id: the one unit the write path takes (``MemoryWriter.write_turn``,
``BackgroundWriter.submit``, the graph's write node, the journal). The extractor
turns it into ``Fact`` objects; for each fact the reconciler shows the model the
nearest memories as small integers and gets back a ``Choice`` (op, shown index,
text), which shared code validates and maps back to real memory ids.

A ``MemoryModel`` is anything that can extract and choose: a LangChain chat
model behind prompts (``ChatMemoryModel``) or the offline rules model. It is not
a chat model itself (``write.writer.memory_model`` makes one from a chat model), and
not one of the records of ``langgraph_memory.records`` (``Memory``, ``Decision``).

>>> from datetime import datetime, timezone
>>> turn = Turn.of([("user", "I moved to Pune last week.")],
...                when=datetime(2026, 3, 2, tzinfo=timezone.utc))
>>> turn.user_text()
'I moved to Pune last week.'
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from langchain_core.messages import BaseMessage, ChatMessage

from langgraph_memory.checks import check_chars, check_id, strip_controls
from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.records import (
    MAX_METADATA_STR_CHARS,
    Kind,
    Memory,
    Source,
    Trust,
    now_utc,
    utc,
)
from langgraph_memory.tracing import Payload, clip

# Re-exported: the write path names roles through this module.
from langgraph_memory.turn_record import ROLE_OF_TYPE as ROLE_OF_TYPE
from langgraph_memory.turn_record import RememberRequest as RememberRequest
from langgraph_memory.turn_record import Role as Role

#: How far a fact may be trusted, by who said it. Only the user speaks for the user.
TRUST_OF_ROLE: dict[Role, Trust] = {
    "user": Trust.HIGH,
    "assistant": Trust.MEDIUM,
    "tool": Trust.LOW,
    "document": Trust.LOW,
}
SOURCE_OF_ROLE: dict[Role, Source] = {
    "user": Source.USER,
    "assistant": Source.ASSISTANT,
    "tool": Source.TOOL,
    "document": Source.DOCUMENT,
}


def check_roles(roles: Any, what: str = "roles") -> tuple[Role, ...]:
    """A list of message roles, as a tuple (a single str would be read letter by letter).

    >>> check_roles(["user", "assistant"])
    ('user', 'assistant')
    >>> check_roles("user")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: roles must be a list of user, assistant, ...
    """
    allowed = ", ".join(SOURCE_OF_ROLE)
    if isinstance(roles, str) or not isinstance(roles, Iterable):
        raise InvalidTypeError(f"{what} must be a list of {allowed}; got {roles!r}")
    listed = list(roles)
    if any(not isinstance(r, str) or r not in SOURCE_OF_ROLE for r in listed):
        raise InvalidArgumentError(f"{what} must be a list of {allowed}; got {roles!r}")
    return tuple(listed)


@dataclass(frozen=True)
class Message:
    """One message of a turn: who said it (the role, and the speaker's name when the
    message gives one, as LangChain's ``name``) and what."""

    role: Role
    content: str
    name: str | None = None


@dataclass(frozen=True)
class Turn:
    """One exchange to learn from, with the time it happened and an id (a turn
    replayed with the same id is recognised), and the id of the thread (session)
    it belongs to, when it has one. Build one with ``Turn.of``.

    Args:
        messages: the turn's messages, in order, as ``Message`` records (role,
            content, speaker's name); ``Turn.of`` reads LangChain messages too.
        when: when the turn happened (timezone-aware).
        id: the turn's id; by default a new random one.
        thread_id: the conversation (thread) it belongs to; None: none.
        remember: set when the turn is an explicit request to remember its user
            message (``MemoryWriter.remember``'s path, with this provenance).
    """

    messages: tuple[Message, ...]
    when: datetime
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    thread_id: str | None = None
    remember: RememberRequest | None = None

    @classmethod
    def of(
        cls,
        messages: Turn | Iterable[BaseMessage | Message | tuple[str, str] | dict[str, Any]],
        *,
        when: datetime | None = None,
        turn_id: str | None = None,
        thread_id: str | None = None,
        remember: RememberRequest | None = None,
    ) -> Turn:
        """Build a turn from LangChain messages, ``(role, text)`` pairs or dicts.

        ``when`` (default: the clock) must be timezone-aware; ``turn_id``
        defaults to a new random id; ``thread_id`` (default: none) names the
        conversation the turn belongs to (the graph's ``thread_id``). Given a
        ``Turn``, its messages are checked again (one built by hand skipped
        this) and it keeps its time and ids unless others are given. A message
        that is not valid Unicode, or of a kind not listed, raises
        ``InvalidArgumentError``.

        Args:
            messages: LangChain messages, ``(role, text)`` pairs, dicts with
                ``"role"`` and ``"content"`` (and ``"name"``), ``Message`` records,
                or a ``Turn``. Roles: ``user`` (or ``human``), ``assistant`` (or
                ``ai``), ``tool`` (or ``function``) and ``document``.
            when: when the turn happened (timezone-aware); None: the given turn's
                time, else the clock.
            turn_id: the turn's id; None: the given turn's, else a new random one.
            thread_id: the conversation it belongs to; None: the given turn's, else
                none.
            remember: a ``RememberRequest`` when the turn asks to remember its user
                message; None: the given turn's, else none.

        Returns:
            The ``Turn``, its messages checked.

        Raises:
            InvalidArgumentError: ``messages`` is not a list of messages, a message
                cannot be read, ``when`` is naive, or an id is invalid.

        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> t = Turn.of([HumanMessage("hi"), AIMessage("hello")], thread_id="chat-1")
        >>> [m.role for m in t.messages], t.thread_id
        (['user', 'assistant'], 'chat-1')
        >>> Turn.of(t).id == t.id, Turn.of(t, turn_id="t2").id, Turn.of(t).thread_id
        (True, 't2', 'chat-1')
        >>> Turn.of([HumanMessage("I'm back!", name="Caroline")]).messages[0].name
        'Caroline'
        """
        if isinstance(messages, Turn):
            when = when if when is not None else messages.when
            turn_id = turn_id or messages.id
            thread_id = thread_id or messages.thread_id
            remember = remember or messages.remember
            messages = messages.messages
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
            raise InvalidArgumentError(
                f"messages must be a list of messages, got {type(messages).__name__}: "
                f"{messages!r}; e.g. [('user', 'I live in Pune.')]"
            )
        parsed = tuple(_message(m) for m in messages)
        return cls(
            messages=parsed,
            when=utc(when, "when") if when is not None else now_utc(),
            id=uuid.uuid4().hex[:12] if turn_id in (None, "") else check_id(turn_id, "turn_id"),
            thread_id=None if thread_id in (None, "") else _metadata_str(thread_id, "thread_id"),
            remember=_remember_request(remember),
        )

    def user_text(self) -> str:
        """What the user said in this turn, one message per line.

        Returns:
            The user's messages joined by newlines ('' when the user said nothing).
        """
        return "\n".join(m.content for m in self.messages if m.role == "user")

    def by(self, roles: Iterable[Role]) -> tuple[Message, ...]:
        """The messages of the given roles, in order.

        Args:
            roles: the roles wanted: ``"user"``, ``"assistant"``, ``"tool"`` or
                ``"document"`` (a list, not one str).

        Returns:
            The turn's messages of those roles, in order.

        Raises:
            InvalidTypeError: ``roles`` is a str or no list.
            InvalidArgumentError: ``roles`` holds an unknown role.
        """
        wanted = set(check_roles(roles))
        return tuple(m for m in self.messages if m.role in wanted)


def _remember_request(value: Any) -> RememberRequest | None:
    if value is not None and not isinstance(value, RememberRequest):
        raise InvalidArgumentError(f"remember must be a RememberRequest or None, got {value!r}")
    return value


def _metadata_str(value: Any, what: str) -> str:
    """A thread id or a speaker's name, kept in an episode's metadata: a non-empty
    str that can be encoded, short enough for a metadata value."""
    checked = check_id(value, what)
    if len(checked) > MAX_METADATA_STR_CHARS:
        raise InvalidArgumentError(
            f"{what} has {len(checked):,} characters, more than {MAX_METADATA_STR_CHARS:,}"
        )
    return checked


def _message(m: Any) -> Message:
    role: Any
    content: Any
    name: Any = None
    # A ChatMessage's type is "chat": who spoke is its role, as for our own Message.
    if isinstance(m, (Message, ChatMessage)):
        role, content, name = m.role, m.content, m.name
    elif isinstance(m, BaseMessage):
        role, content, name = m.type, m.content, m.name
    elif isinstance(m, tuple) and len(m) == 2:
        role, content = m
    elif isinstance(m, dict):
        role, content, name = m.get("role", ""), m.get("content", ""), m.get("name")
    else:
        raise InvalidArgumentError(
            f"cannot read a message from {type(m).__name__}: {m!r}; pass (role, text) pairs, "
            "dicts with 'role' and 'content', or LangChain messages"
        )
    if not isinstance(role, str) or role not in ROLE_OF_TYPE:
        raise InvalidArgumentError(
            f"unknown message role {role!r}; use one of {', '.join(sorted(ROLE_OF_TYPE))}"
        )
    # A lone surrogate cannot be encoded for the model, the log or Chroma: refused.
    # Control characters (a pasted terminal escape) mean nothing in what was said,
    # and a fact that carried one would be refused by the store: they become spaces.
    text = check_chars(_text_of(content), f"a {role} message", controls=False)
    return Message(ROLE_OF_TYPE[role], strip_controls(text), _name(name))


def _name(value: Any) -> str | None:
    """A message's speaker name (None when blank or absent)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _metadata_str(value, "a message's name").strip()


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):  # multimodal content: keep the text parts
        return " ".join(_part_text(part) for part in content)
    raise InvalidArgumentError(
        f"message content must be a str or a list of parts, got {type(content).__name__}"
    )


def _part_text(part: Any) -> str:
    if isinstance(part, dict):
        text = part.get("text", "")
        return text if isinstance(text, str) else ""
    return part if isinstance(part, str) else ""


@dataclass(frozen=True)
class Fact:
    """A durable fact extracted from a turn, ready to be reconciled.

    ``topic`` is what the fact is about, in one word, when the model that extracted it
    says so: the offline ``RulesModel`` sets the family of fact it read (``location``,
    ``allergy``, ``employer``, ``pet``, ``plan``, ``rule`` ...). ``MemoryInstructions``
    keeps or skips a fact by it; None (a chat model's facts) has the writer read the
    topic from the fact's text.
    """

    text: str
    importance: float = 0.5  # 0..1 (a model's 1..10, divided by 10)
    source: Source = Source.USER
    trust: Trust = Trust.HIGH
    kind: Kind = Kind.SEMANTIC
    event_time: datetime | None = None
    topic: str | None = None

    def trace_summary(self) -> Payload:
        """The fact as a trace shows it: its text, importance and provenance.

        >>> Fact("User is vegan.", importance=0.8).trace_summary()  # doctest: +NORMALIZE_WHITESPACE
        {'text': 'User is vegan.', 'importance': 0.8, 'source': 'user', 'trust': 'high',
         'kind': 'semantic'}
        """
        return {
            "text": clip(self.text),
            "importance": self.importance,
            "source": self.source.value,
            "trust": self.trust.value,
            "kind": self.kind.value,
        }


@dataclass(frozen=True)
class Extraction:
    """What a model extracted from one turn, and its raw output for the log.

    ``rejected`` holds (text, reason) for items that were not facts we can keep
    (too long, empty, from a speaker not asked for); ``error`` says why the
    whole output was unusable (unparseable), if it was.
    """

    facts: tuple[Fact, ...]
    raw: str | None = None
    rejected: tuple[tuple[str, str], ...] = ()
    error: str | None = None

    def trace_summary(self) -> Payload:
        """The facts kept, those rejected and why, and the error if the answer was unusable
        (not the raw answer: the model's own run shows it).

        >>> summary = Extraction((), rejected=(("Bob is tall.", "not said"),)).trace_summary()
        >>> summary["facts"], summary["rejected"], summary["error"]
        ([], [{'text': 'Bob is tall.', 'reason': 'not said'}], None)
        """
        return {
            "facts": [f.trace_summary() for f in self.facts],
            "rejected": [{"text": clip(t), "reason": why} for t, why in self.rejected],
            "error": self.error,
        }


Operation = str  # "ADD" | "UPDATE" | "DELETE" | "NOOP" once validated; anything before


@dataclass(frozen=True)
class Choice:
    """A model's unvalidated answer for one fact: an op, a shown index, a text.

    ``index`` refers to the list of memories the model was shown ([0], [1] ...);
    it is whatever the model said, and may be missing, out of range or not an
    int at all: validation happens in ``reconcile``.
    """

    op: Any
    index: Any = None
    text: Any = None
    raw: str | None = None


def check_extract_args(turn: Any, roles: Any) -> tuple[Role, ...]:
    """What a model's ``extract`` is given, checked (a model is also called directly,
    to try a prompt): a Turn and a list of roles. Returns the roles.

    >>> check_extract_args([("user", "I live in Pune.")], ["user"])
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: extract() takes a Turn, e.g. Turn.of(...), got list
    """
    if not isinstance(turn, Turn):
        raise InvalidTypeError(
            f"extract() takes a Turn, e.g. Turn.of([('user', 'I live in Pune.')]), "
            f"got {type(turn).__name__}"
        )
    return check_roles(roles)


def check_choose_args(facts: Any, shown: Any, today: Any) -> None:
    """What a model's ``choose``/``choose_batch`` is given, checked: Facts, the
    Memories shown, and today as a datetime.

    >>> check_choose_args([Fact("User is vegan.")], [], today="2026-01-05")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: today must be a datetime, got str
    """
    for what, items, kind in (("facts", facts, Fact), ("shown", shown, Memory)):
        if not isinstance(items, (list, tuple)) or not all(isinstance(x, kind) for x in items):
            raise InvalidTypeError(f"{what} must be a list of {kind.__name__}, got {items!r}")
    if not isinstance(today, datetime):
        raise InvalidTypeError(f"today must be a datetime, got {type(today).__name__}")


@runtime_checkable
class MemoryModel(Protocol):
    """What the write path needs from a model: extraction and reconciliation.

    Implemented by ``ChatMemoryModel`` (a LangChain chat model behind the
    prompts) and ``RulesModel`` (offline, no LLM); ``memory_model`` picks one.
    """

    name: str

    def extract(self, turn: Turn, *, roles: Sequence[Role]) -> Extraction:
        """Durable facts stated in ``turn`` by the given roles."""
        ...

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        """One operation for ``fact`` given the memories shown as [0], [1] ..."""
        ...

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        """One operation per fact, in one call, facts applied in order."""
        ...
