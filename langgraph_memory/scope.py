"""Scopes: whose memory a record is.

A scope is a kind (session, user, agent, org) and an id. It has three spellings
that convert into each other: ``Scope("user", "alice")``, the string
``"user:alice"`` and the LangGraph namespace tuple ``("user", "alice")``.

>>> s = Scope.parse("user:alice")
>>> s, str(s), s.namespace
(Scope(kind='user', id='alice'), 'user:alice', ('user', 'alice'))
>>> Scope.from_config({"configurable": {"user_id": "alice"}}, "user") == s
True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from langgraph_memory.errors import InvalidScopeError, MissingScopeKeyError

ScopeKind = Literal["session", "user", "agent", "org"]
SCOPE_KINDS: tuple[ScopeKind, ...] = get_args(ScopeKind)

#: Which ``configurable`` key of a LangGraph run names each kind of scope.
CONFIG_KEYS: dict[ScopeKind, str] = {
    "session": "thread_id",
    "user": "user_id",
    "agent": "agent_id",
    "org": "org_id",
}

MAX_ID_CHARS = 256
#: Characters that separate parts of a scope's spellings (``kind:id``, paths).
_SEPARATORS = frozenset(":/\\")


def check_scope_id(scope_id: Any) -> str:
    """Validate a scope id and return it.

    >>> check_scope_id("alice@example.com")
    'alice@example.com'
    >>> check_scope_id("a:b")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidScopeError: scope id 'a:b' contains ':'...
    """
    if isinstance(scope_id, bool) or not isinstance(scope_id, (str, int)):
        raise InvalidScopeError(
            f"scope id must be a str, got {type(scope_id).__name__}: {scope_id!r}"
        )
    try:
        value = str(scope_id)
    except ValueError:  # an int of more than 4,300 digits
        raise InvalidScopeError(f"scope id is an int longer than {MAX_ID_CHARS} digits") from None
    if not value:
        raise InvalidScopeError("scope id is empty; pass the user, thread, agent or org id")
    if len(value) > MAX_ID_CHARS:
        raise InvalidScopeError(
            f"scope id has {len(value)} characters, more than {MAX_ID_CHARS}; "
            "use a shorter id (a hash of a long one works)"
        )
    if value != value.strip():
        raise InvalidScopeError(f"scope id {value!r} has leading or trailing whitespace")
    for ch in value:
        if ch in _SEPARATORS:
            raise InvalidScopeError(
                f"scope id {value!r} contains {ch!r}, which separates the parts of a "
                "scope; choose an id without ':', '/' or '\\'"
            )
        if unicodedata.category(ch) == "Cs":  # half a UTF-16 pair: UTF-8 cannot encode it
            raise InvalidScopeError(
                f"scope id {value!r} contains a lone surrogate {ch!r}, which is not valid "
                "Unicode; decode the id's bytes with errors='replace', or choose another id"
            )
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            raise InvalidScopeError(
                f"scope id {value!r} contains the control character {ch!r}; remove it"
            )
    return value


def check_scope_kind(kind: Any) -> ScopeKind:
    """Validate a scope kind.

    >>> check_scope_kind("org")
    'org'
    """
    if kind not in SCOPE_KINDS:
        raise InvalidScopeError(f"scope kind {kind!r} is not one of {', '.join(SCOPE_KINDS)}")
    return cast(ScopeKind, kind)


@dataclass(frozen=True, order=True)
class Scope:
    """Whose memory: ``Scope("user", "alice")``.

    >>> Scope("agent", "planner").key
    'agent:planner'
    """

    kind: ScopeKind
    id: str

    def __post_init__(self) -> None:
        check_scope_kind(self.kind)
        object.__setattr__(self, "id", check_scope_id(self.id))

    def __str__(self) -> str:
        return self.key

    @property
    def key(self) -> str:
        """The ``"kind:id"`` spelling."""
        return f"{self.kind}:{self.id}"

    @property
    def namespace(self) -> tuple[str, str]:
        """The LangGraph namespace tuple ``(kind, id)``."""
        return (self.kind, self.id)

    @classmethod
    def parse(cls, text: str) -> Scope:
        """Read ``"kind:id"``.

        >>> Scope.parse("session:thread-1")
        Scope(kind='session', id='thread-1')
        """
        if not isinstance(text, str):
            raise InvalidScopeError(f"expected 'kind:id', got {type(text).__name__}: {text!r}")
        kind, sep, scope_id = text.partition(":")
        if not sep:
            raise InvalidScopeError(
                f"scope {text!r} has no kind; write it as 'kind:id' with kind one of "
                f"{', '.join(SCOPE_KINDS)}, e.g. 'user:alice'"
            )
        return cls(check_scope_kind(kind), scope_id)

    @classmethod
    def from_namespace(cls, namespace: tuple[str, ...]) -> Scope:
        """Read a LangGraph namespace tuple ``(kind, id)``.

        >>> Scope.from_namespace(("user", "alice"))
        Scope(kind='user', id='alice')
        """
        if not isinstance(namespace, tuple) or len(namespace) != 2:
            raise InvalidScopeError(
                f"namespace {namespace!r} does not name a scope: use a 2-tuple (kind, id) "
                f"with kind one of {', '.join(SCOPE_KINDS)}, e.g. ('user', 'alice')"
            )
        return cls(check_scope_kind(namespace[0]), namespace[1])

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None, kind: ScopeKind) -> Scope:
        """The scope of ``kind`` named by a run's ``config["configurable"]``.

        >>> Scope.from_config({"configurable": {"thread_id": "t-1"}}, "session")
        Scope(kind='session', id='t-1')
        >>> Scope.from_config({"configurable": {}}, "user")
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.MissingScopeKeyError: config['configurable'] has no 'user_id'...
        """
        kind = check_scope_kind(kind)
        key = CONFIG_KEYS[kind]
        configurable = (config or {}).get("configurable") or {}
        value = configurable.get(key)
        if value is None or value == "":
            raise MissingScopeKeyError(
                f"config['configurable'] has no {key!r}, so the {kind} scope is unknown: "
                f"invoke the graph with config={{'configurable': {{{key!r}: ...}}}}"
            )
        return cls(kind, value)

    @classmethod
    def of(cls, value: ScopeLike) -> Scope:
        """Coerce any spelling (Scope, ``"kind:id"``, namespace tuple) to a Scope.

        >>> Scope.of(("org", "acme")) == Scope.of("org:acme") == Scope("org", "acme")
        True
        """
        if isinstance(value, Scope):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, tuple):
            return cls.from_namespace(value)
        raise InvalidScopeError(
            f"expected a Scope, 'kind:id' or (kind, id), got {type(value).__name__}: {value!r}"
        )


ScopeLike = Scope | str | tuple[str, ...]
