"""Scopes: whose memory a record is.

A scope is a kind and an id. It has three spellings that convert into each
other: ``Scope("user", "alice")``, the string ``"user:alice"`` and the LangGraph
namespace tuple ``("user", "alice")``.

The owner kinds (session, user, agent, org) are the scopes a run's config names
(``thread_id``, ``user_id`` ...). Any other LangGraph namespace, of any depth, is
a scope of kind ``namespace`` whose id is the namespace's labels joined by ``.``
(a LangGraph label never holds a ``.``), with ``%``, ``:``, ``/``, ``\\``, control
characters and whitespace at a label's ends written as ``%XX`` (their UTF-8
bytes). The mapping is one-to-one: a namespace goes to exactly one scope and
back unchanged, and two namespaces never share a scope (so never share
collections). A 2-tuple whose first label is an owner kind and whose second is a
valid id is that owner's scope, as it always was:

======================================  ========================================
namespace                               scope
======================================  ========================================
``("user", "alice")``                   ``user:alice``
``("memories", "alice")``               ``namespace:memories.alice``
``("user", "alice", "prefs")``          ``namespace:user.alice.prefs``
``("user", "a:b")``                     ``namespace:user.a%3Ab`` (no user id has ``:``)
``("memories",)``                       ``namespace:memories``
======================================  ========================================

A namespace scope is a scope of its own: purging ``user:alice`` leaves
``("memories", "alice")`` alone (purge it too). Namespaces follow LangGraph's
rules: at least one label, each a non-empty str without ``.``, the first not
``"langgraph"``; the id is at most 256 characters.

>>> s = Scope.parse("user:alice")
>>> s, str(s), s.namespace
(Scope(kind='user', id='alice'), 'user:alice', ('user', 'alice'))
>>> Scope.from_config({"configurable": {"user_id": "alice"}}, "user") == s
True
>>> deep = Scope.from_namespace(("memories", "alice"))
>>> deep.key, deep.namespace
('namespace:memories.alice', ('memories', 'alice'))
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args
from urllib.parse import unquote

from langgraph_memory.errors import (
    AdminRequiredError,
    InvalidScopeError,
    InvalidTypeError,
    MissingScopeKeyError,
)

ScopeKind = Literal["session", "user", "agent", "org", "namespace"]
SCOPE_KINDS: tuple[ScopeKind, ...] = get_args(ScopeKind)
#: The kind of a scope named by any LangGraph namespace that is not ``(owner kind, id)``.
NAMESPACE_KIND: ScopeKind = "namespace"
#: The kinds whose scopes a run's config names: every kind but ``namespace``.
OWNER_KINDS: tuple[ScopeKind, ...] = tuple(k for k in SCOPE_KINDS if k != NAMESPACE_KIND)

#: Which ``configurable`` key of a LangGraph run names each owner kind of scope.
CONFIG_KEYS: dict[ScopeKind, str] = {
    "session": "thread_id",
    "user": "user_id",
    "agent": "agent_id",
    "org": "org_id",
}

MAX_ID_CHARS = 256
#: Characters that separate parts of a scope's spellings (``kind:id``, paths).
_SEPARATORS = frozenset(":/\\")
#: Unicode categories a scope id may not hold: controls, format characters, line
#: and paragraph separators.
_CONTROLS = frozenset({"Cc", "Cf", "Zl", "Zp"})
#: Joins a namespace's labels in a namespace scope's id (LangGraph labels never hold it).
_LABEL_JOIN = "."


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
        if unicodedata.category(ch) in _CONTROLS:
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


def check_namespace(namespace: Any) -> tuple[str, ...]:
    """Validate a LangGraph namespace by LangGraph's rules and return it.

    >>> check_namespace(("memories", "alice"))
    ('memories', 'alice')
    >>> check_namespace(("notes", "a.b"))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidScopeError: namespace label 'a.b' in ('notes', 'a.b') contains...
    """
    if not isinstance(namespace, tuple) or not namespace:
        raise InvalidScopeError(
            f"a namespace is a non-empty tuple of str labels, e.g. ('memories', 'alice'), "
            f"got {namespace!r}"
        )
    for label in namespace:
        if not isinstance(label, str) or not label:
            raise InvalidScopeError(
                f"namespace labels must be non-empty strings, got {label!r} in {namespace!r}"
            )
        if _LABEL_JOIN in label:
            raise InvalidScopeError(
                f"namespace label {label!r} in {namespace!r} contains '.', which LangGraph "
                "does not allow in a label; use another character or split the label"
            )
        for ch in label:
            if ch == "\x00" or unicodedata.category(ch) == "Cs":
                raise InvalidScopeError(
                    f"namespace label {label!r} in {namespace!r} contains {ch!r} (a NUL or "
                    "a lone surrogate), which no store can keep; remove it"
                )
    if namespace[0] == "langgraph":
        raise InvalidScopeError(
            f"namespace {namespace!r} starts with 'langgraph', which LangGraph reserves; "
            "choose another first label"
        )
    return namespace


def _escape_label(label: str) -> str:
    """A label as it appears in a namespace scope's id: the characters an id may
    not hold (and ``%`` itself, and whitespace at the label's ends) as ``%XX``."""
    last = len(label) - 1
    out = []
    for i, ch in enumerate(label):
        if (
            ch == "%"
            or ch in _SEPARATORS
            or unicodedata.category(ch) in _CONTROLS
            or (ch.isspace() and i in (0, last))
        ):
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


def namespace_id(labels: tuple[str, ...]) -> str:
    """The id of a namespace's scope, or of the scopes under a namespace prefix:
    the labels escaped and joined (not checked; ``Scope.from_namespace`` checks).

    >>> namespace_id(("memories", "a:b"))
    'memories.a%3Ab'
    """
    return _LABEL_JOIN.join(_escape_label(label) for label in labels)


def _checked_namespace_id(labels: tuple[str, ...]) -> str:
    scope_id = namespace_id(labels)
    if len(scope_id) > MAX_ID_CHARS:
        raise InvalidScopeError(
            f"namespace {labels!r} makes a scope id of {len(scope_id)} characters, more than "
            f"{MAX_ID_CHARS}; use shorter labels"
        )
    return scope_id


def _labels_of(scope_id: str) -> tuple[str, ...]:
    """The namespace a namespace scope's id spells; InvalidScopeError unless the id
    is exactly the one that namespace maps to (so each namespace has one scope)."""
    try:
        labels = tuple(unquote(part, errors="strict") for part in scope_id.split(_LABEL_JOIN))
    except UnicodeDecodeError:
        labels = ()
    if not labels or _owner_form(labels) or namespace_id(labels) != scope_id:
        raise InvalidScopeError(
            f"{NAMESPACE_KIND} scope id {scope_id!r} does not spell a namespace; build it "
            "from the tuple: Scope.from_namespace(('memories', 'alice'))"
        )
    check_namespace(labels)
    return labels


def _owner_form(namespace: tuple[Any, ...]) -> bool:
    """Whether a namespace is ``(owner kind, valid id)``: the owner's own scope."""
    if len(namespace) != 2 or namespace[0] not in OWNER_KINDS:
        return False
    try:
        check_scope_id(namespace[1])
    except InvalidScopeError:
        return False
    return True


@dataclass(frozen=True, order=True)
class Scope:
    """Whose memory: ``Scope("user", "alice")``.

    Args:
        kind: ``"session"``, ``"user"``, ``"agent"``, ``"org"`` (the owner kinds,
            which a run names) or ``"namespace"`` (any other LangGraph namespace).
        id: the owner's id: a non-empty str (an int is read as its str) of at most
            256 characters, without ``:``, ``/``, ``\\``, control characters or
            whitespace at its ends. A namespace scope's id is the one
            ``Scope.from_namespace`` makes.

    Raises:
        InvalidScopeError: ``kind`` is not a scope kind, or ``id`` cannot name one.

    >>> Scope("agent", "planner").key
    'agent:planner'
    """

    kind: ScopeKind
    id: str

    def __post_init__(self) -> None:
        check_scope_kind(self.kind)
        object.__setattr__(self, "id", check_scope_id(self.id))
        if self.kind == NAMESPACE_KIND:
            _labels_of(self.id)  # only the id a namespace maps to

    def __str__(self) -> str:
        return self.key

    @property
    def key(self) -> str:
        """The ``"kind:id"`` spelling."""
        return f"{self.kind}:{self.id}"

    @property
    def namespace(self) -> tuple[str, ...]:
        """The LangGraph namespace tuple: ``(kind, id)`` for an owner's scope, the
        namespace's own labels for a ``namespace`` scope.

        >>> Scope("namespace", "memories.alice").namespace
        ('memories', 'alice')
        """
        if self.kind == NAMESPACE_KIND:
            return _labels_of(self.id)
        return (self.kind, self.id)

    @classmethod
    def parse(cls, text: str) -> Scope:
        """Read ``"kind:id"``.

        Args:
            text: the scope's ``"kind:id"`` spelling, e.g. ``"user:alice"``.

        Returns:
            The ``Scope`` it spells.

        Raises:
            InvalidScopeError: ``text`` is not a str, has no kind, or names no scope.

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
        """The scope of a LangGraph namespace of any depth (see the module docstring).

        Args:
            namespace: a tuple of non-empty str labels, e.g. ``("user", "alice")`` or
                ``("memories", "alice", "prefs")``.

        Returns:
            The owner's scope for ``(owner kind, valid id)``, else the ``namespace``
            scope of those labels.

        Raises:
            InvalidScopeError: ``namespace`` breaks LangGraph's rules (empty, a
                label with ``.``, a first label ``"langgraph"``), or its id would be
                longer than 256 characters.

        >>> Scope.from_namespace(("user", "alice"))
        Scope(kind='user', id='alice')
        >>> Scope.from_namespace(("memories", "alice", "prefs")).key
        'namespace:memories.alice.prefs'
        """
        if isinstance(namespace, tuple) and _owner_form(namespace):
            return cls(check_scope_kind(namespace[0]), namespace[1])
        return cls(NAMESPACE_KIND, _checked_namespace_id(check_namespace(namespace)))

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any] | None, kind: ScopeKind, *, context: Any = None
    ) -> Scope:
        """The scope of ``kind`` named by a run: its ``config["configurable"]`` or its
        runtime ``context`` (LangGraph's ``Runtime.context``: an object with the key as
        an attribute, or a dict). ``CONFIG_KEYS`` says which key names each kind.

        Args:
            config: the run's ``RunnableConfig``; None: only ``context`` is read.
            kind: an owner kind: ``"session"`` (``thread_id``), ``"user"``
                (``user_id``), ``"agent"`` (``agent_id``) or ``"org"`` (``org_id``).
            context: the run's runtime context; None: only ``config`` is read.

        Returns:
            The scope of ``kind`` whose id the run names.

        Raises:
            MissingScopeKeyError: neither ``config`` nor ``context`` names the id.
            InvalidScopeError: ``kind`` is no owner kind, the id cannot name a
                scope, or ``config`` and ``context`` name different ids.

        >>> Scope.from_config({"configurable": {"thread_id": "t-1"}}, "session")
        Scope(kind='session', id='t-1')
        >>> Scope.from_config({}, "user", context={"user_id": "alice"})
        Scope(kind='user', id='alice')
        >>> Scope.from_config({"configurable": {}}, "user")
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.MissingScopeKeyError: the user scope is unknown: neither \
        config['configurable'] nor the runtime context has 'user_id'...
        """
        kind = check_scope_kind(kind)
        if kind not in CONFIG_KEYS:
            raise InvalidScopeError(
                f"a run names {', '.join(CONFIG_KEYS)} scopes, not {kind!r} ones: name a "
                "namespace scope by a namespace template, e.g. ('memories', '{user_id}'), or "
                "by its tuple, Scope.from_namespace(('memories', 'alice'))"
            )
        key = CONFIG_KEYS[kind]
        value = run_value(config, context, key)
        if value is None:
            raise MissingScopeKeyError(f"the {kind} scope is unknown: {_missing(key)}")
        return cls(kind, value)

    @classmethod
    def of(cls, value: ScopeLike) -> Scope:
        """Coerce any spelling (Scope, ``"kind:id"``, namespace tuple) to a Scope.

        Args:
            value: a ``Scope`` (returned as it is), ``"kind:id"`` or a namespace
                tuple.

        Returns:
            The ``Scope``.

        Raises:
            InvalidScopeError: ``value`` is none of these, or names no scope.

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
            f"expected a Scope, 'kind:id' or a namespace tuple, got {type(value).__name__}: "
            f"{value!r}"
        )


ScopeLike = Scope | str | tuple[str, ...]
#: What a node, tool or middleware is told to use: a scope kind, whose id the run
#: names (``"user"``: ``user_id``), or a namespace template like LangMem's,
#: ``("user", "{user_id}")``, filled from the run (see ``fill_namespace``).
ScopeSpec = ScopeKind | tuple[str, ...]


#: How widely each owner kind of scope is shared, narrowest first: a review moves
#: a memory to a wider scope, never sideways (one user to another) or down.
BREADTH: dict[ScopeKind, int] = {"session": 0, "user": 1, "agent": 2, "org": 3}
#: The kinds of scope only an admin writes (``MemoryStore.admin``): what every
#: agent and user of an organisation reads.
ADMIN_KINDS: frozenset[ScopeKind] = frozenset({"org"})


def check_path_scope(scope: Scope) -> Scope:
    """``scope``, when the write path (turns, the remember and forget tools, a
    background writer) may write it: never an org scope, whatever store it holds.

    >>> check_path_scope(Scope("user", "alice")).key
    'user:alice'
    >>> check_path_scope(Scope("org", "acme"))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.AdminRequiredError: the write path never writes the org scope ...
    """
    if scope.kind in ADMIN_KINDS:
        raise AdminRequiredError(
            f"the write path never writes the {scope.kind} scope {scope.key}: what a "
            "conversation says stays in its user, session or agent scope. Move a memory "
            "up through a review (store.reviews.propose(from_scope, memory_id, to_scope), then "
            f"store.admin().reviews.approve(review_id)), or write {scope.key} as an admin "
            "(store.admin().add(...))"
        )
    return scope


def _missing(key: str) -> str:
    return (
        f"neither config['configurable'] nor the runtime context has {key!r}: invoke the "
        f"graph with config={{'configurable': {{{key!r}: ...}}}}, or with context= (an "
        f"object or dict with {key!r}; create_agent(context_schema=...) / "
        f"StateGraph(..., context_schema=...))"
    )


def _in_context(context: Any, key: str) -> Any:
    if context is None:
        return None
    if isinstance(context, Mapping):
        return context.get(key)
    return getattr(context, key, None)  # a dataclass, pydantic model, attrs class ...


def run_value(config: Mapping[str, Any] | None, context: Any, key: str) -> Any:
    """``key`` of a run: from ``config["configurable"]`` or the runtime ``context``
    (an attribute, or a dict's key); None when neither has it (or it is ``""``).

    Both may hold it (LangGraph Platform mirrors one into the other), but not with
    different values: that would make whose memory a turn touches depend on which
    one a node reads, so it is refused.

    >>> run_value({"configurable": {"user_id": "alice"}}, None, "user_id")
    'alice'
    >>> run_value({}, {"user_id": "alice"}, "user_id")
    'alice'
    >>> run_value({"configurable": {"user_id": "a"}}, {"user_id": "b"}, "user_id")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidScopeError: config['configurable']['user_id'] is 'a' but ...
    """
    if config is not None and not isinstance(config, Mapping):
        raise InvalidTypeError(
            "config must be a RunnableConfig dict, e.g. "
            f"{{'configurable': {{'user_id': 'alice'}}}}, got {type(config).__name__}"
        )
    configurable = (config or {}).get("configurable") or {}
    if not isinstance(configurable, Mapping):
        raise InvalidTypeError(
            f"config['configurable'] must be a dict, e.g. {{'user_id': 'alice'}}, "
            f"got {type(configurable).__name__}"
        )
    found = [v for v in (configurable.get(key), _in_context(context, key)) if v not in (None, "")]
    if len(found) == 2 and str(found[0]) != str(found[1]):
        raise InvalidScopeError(
            f"config['configurable'][{key!r}] is {found[0]!r} but the runtime context's "
            f"{key} is {found[1]!r}; set it in one place (or to the same value in both)"
        )
    return found[0] if found else None


def fill_namespace(
    template: str | tuple[str, ...], config: Mapping[str, Any] | None = None, *, context: Any = None
) -> tuple[str, ...]:
    """A namespace template, like LangMem's, filled from a run: each part written
    ``"{key}"`` becomes ``key``'s value in ``config["configurable"]`` or the runtime
    ``context``; other parts stay as they are.

    Args:
        template: a tuple of parts (or a single part, as a str), each plain text or
            one whole placeholder such as ``"{user_id}"``.
        config: the run's ``RunnableConfig``, whose ``configurable`` values fill the
            placeholders; None: only ``context`` is read.
        context: the run's runtime context (an object with the keys as attributes,
            or a dict), which fills them too; None: only ``config`` is read.

    Returns:
        The namespace, each placeholder replaced by its value (a str or an int,
        as a str).

    Raises:
        MissingScopeKeyError: neither ``config`` nor ``context`` has a
            placeholder's key.
        InvalidScopeError: ``template`` is not a tuple of str, a part mixes text
            and a placeholder, a value is neither a str nor an int, or ``config``
            and ``context`` give a key different values.

    >>> fill_namespace(("memories", "{user_id}"), {"configurable": {"user_id": "alice"}})
    ('memories', 'alice')
    >>> fill_namespace(("org", "{org_id}", "{user_id}"), context={"org_id": 7, "user_id": "bo"})
    ('org', '7', 'bo')
    >>> fill_namespace(("memories", "{user_id}"), {"configurable": {}})
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.MissingScopeKeyError: namespace template ('memories', '{user_id}') \
    needs 'user_id': neither config['configurable'] nor the runtime context has 'user_id'...
    """
    parts = (template,) if isinstance(template, str) else template
    if not isinstance(parts, tuple) or not parts or not all(isinstance(p, str) for p in parts):
        raise InvalidScopeError(
            f"a namespace template is a tuple of str, e.g. ('memories', '{{user_id}}'); "
            f"got {template!r}"
        )
    filled = []
    for part in parts:
        if not (part.startswith("{") and part.endswith("}")):
            if "{" in part or "}" in part:
                raise InvalidScopeError(
                    f"namespace template part {part!r}: a part is either plain text or one "
                    "whole placeholder like '{user_id}'"
                )
            filled.append(part)
            continue
        key = part[1:-1]
        value = run_value(config, context, key)
        if value is None:
            raise MissingScopeKeyError(
                f"namespace template {parts!r} needs {key!r}: {_missing(key)}"
            )
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise InvalidScopeError(
                f"{key!r} fills a namespace, so it must be a str or an int; "
                f"got {type(value).__name__}: {value!r}"
            )
        filled.append(str(value))
    return tuple(filled)


def scope_of_run(spec: ScopeSpec, config: Mapping[str, Any] | None, context: Any = None) -> Scope:
    """The scope a run names for ``spec``: a kind (its id from the run) or a namespace
    template (filled, then read as a namespace by ``Scope.from_namespace``).

    >>> run = {"configurable": {"user_id": "alice"}}
    >>> scope_of_run("user", run) == scope_of_run(("user", "{user_id}"), run)
    True
    >>> scope_of_run("user", run)
    Scope(kind='user', id='alice')
    """
    if isinstance(spec, tuple):
        return Scope.from_namespace(fill_namespace(spec, config, context=context))
    return Scope.from_config(config, spec, context=context)
