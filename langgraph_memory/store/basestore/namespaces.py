"""The namespace error of the BaseStore face: LangGraph's, and ours too.

LangGraph's stores refuse some namespaces (an empty label, a label with ``.`` or
NUL, a label that is not a str; for ``put``, an empty namespace or the root
``"langgraph"``) with ``langgraph.store.base.InvalidNamespaceError``. The same
namespaces given to ``MemoryStore`` raise :class:`InvalidStoreNamespaceError`,
which is that error and also this package's ``InvalidScopeError``, so code
written for any LangGraph store and code written for this package both catch
it. LangGraph's checks run as LangGraph wrote them (``validate_op_namespace``,
and ``BaseStore``'s own methods); this module only turns what they raise into
the class that is both.

>>> from langgraph.store.base import InvalidNamespaceError, PutOp
>>> from langgraph_memory.errors import InvalidScopeError
>>> try:
...     check_op_namespace(PutOp(("notes", "a.b"), "k", {"text": "x"}))
... except InvalidNamespaceError as exc:
...     print(isinstance(exc, InvalidScopeError), type(exc).__name__)
True InvalidStoreNamespaceError
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchOp,
    validate_op_namespace,
)

from langgraph_memory.errors import InvalidScopeError, InvalidTypeError, MemoryKitError

__all__ = [
    "InvalidStoreNamespaceError",
    "check_op_namespace",
    "langgraph_namespace_errors",
    "namespace_tuple",
    "with_namespace_tuples",
]

#: What every refusal adds: LangGraph's messages say what is wrong, not what to do.
_RULES = (
    "a namespace is a tuple of non-empty str labels without '.' or NUL, e.g. "
    "('memories', 'alice'); put() also refuses an empty one and the root 'langgraph', "
    "which LangGraph reserves"
)


class InvalidStoreNamespaceError(InvalidScopeError, InvalidNamespaceError):
    """A namespace that LangGraph's stores refuse, given to the BaseStore face
    (``put``, ``get``, ``search``, ``delete``, ``list_namespaces``, ``batch`` and
    their async forms). It is LangGraph's ``InvalidNamespaceError`` and this
    package's ``InvalidScopeError`` (so a ``ValueError`` too): ``except`` either.

    >>> from langgraph.store.base import InvalidNamespaceError
    >>> issubclass(InvalidStoreNamespaceError, InvalidNamespaceError)
    True
    """


@contextmanager
def langgraph_namespace_errors() -> Iterator[None]:
    """Run LangGraph's namespace checks; what they refuse raises
    :class:`InvalidStoreNamespaceError`, with what a namespace may be.

    >>> with langgraph_namespace_errors():
    ...     raise InvalidNamespaceError("Namespace cannot be empty.")
    Traceback (most recent call last):
    ...
    langgraph_memory...InvalidStoreNamespaceError: Namespace cannot be empty. ...
    """
    try:
        yield
    except InvalidNamespaceError as exc:
        if isinstance(exc, MemoryKitError):  # raised by our own batch already
            raise
        raise InvalidStoreNamespaceError(f"{exc} ({_RULES})") from exc


def namespace_tuple(namespace: Any, what: str = "namespace") -> tuple[Any, ...]:
    """``namespace`` as a tuple: a tuple as it is, a list (which LangGraph's SQLite and
    Postgres stores take too) as the tuple of its labels. Anything else is refused
    before LangGraph iterates it (None would be a TypeError there, and a str would
    pass as a tuple of letters). The labels are checked later, by LangGraph's rules.

    >>> namespace_tuple(["user", "alice"])
    ('user', 'alice')
    >>> namespace_tuple("user", "namespace_prefix")
    Traceback (most recent call last):
    ...
    langgraph_memory...InvalidStoreNamespaceError: namespace_prefix must be ...
    """
    if isinstance(namespace, tuple):
        return namespace
    if isinstance(namespace, list):
        return tuple(namespace)
    raise InvalidStoreNamespaceError(
        f"{what} must be a tuple (or a list) of str labels, got {type(namespace).__name__}: "
        f"{namespace!r} ({_RULES})"
    )


def with_namespace_tuples(op: Op) -> Op:
    """``op`` with each namespace it carries given as a list turned into a tuple
    (``namespace_tuple``), so that a batch keys, compares and returns tuples.

    >>> with_namespace_tuples(GetOp(["user", "a"], "k")).namespace
    ('user', 'a')
    """
    if isinstance(op, (GetOp, PutOp)) and isinstance(op.namespace, list):
        return op._replace(namespace=tuple(op.namespace))
    if isinstance(op, SearchOp) and isinstance(op.namespace_prefix, list):
        return op._replace(namespace_prefix=tuple(op.namespace_prefix))
    if isinstance(op, ListNamespacesOp) and isinstance(op.match_conditions, (tuple, list)):
        conditions = tuple(
            c._replace(path=tuple(c.path))
            if isinstance(c, MatchCondition) and isinstance(c.path, list)
            else c
            for c in op.match_conditions
        )
        return op._replace(match_conditions=conditions)
    return op


def check_op_namespace(op: Op) -> None:
    """The checks LangGraph's own methods make on an op's namespace, for an op
    given to ``batch`` directly: ``validate_op_namespace`` (the labels), and for a
    put the two more that ``BaseStore.put`` makes (not empty, not under
    ``"langgraph"``). LangGraph has no public function for those two.

    >>> check_op_namespace(PutOp(("langgraph", "x"), "k", {"text": "x"}))
    Traceback (most recent call last):
    ...
    langgraph_memory...InvalidStoreNamespaceError: namespace ('langgraph', 'x') ...
    """
    for what, namespace in _namespaces_of(op):
        namespace_tuple(namespace, what)
    with langgraph_namespace_errors():
        validate_op_namespace(op)
    if isinstance(op, PutOp):
        if not op.namespace:
            raise InvalidStoreNamespaceError(f"a put's namespace cannot be empty ({_RULES})")
        if op.namespace[0] == "langgraph":
            raise InvalidStoreNamespaceError(
                f"namespace {op.namespace!r} starts with 'langgraph', which LangGraph reserves; "
                "choose another first label"
            )


def _namespaces_of(op: Op) -> list[tuple[str, Any]]:
    """The namespaces an op carries, each with its name for an error."""
    if isinstance(op, (GetOp, PutOp)):
        return [("namespace", op.namespace)]
    if isinstance(op, SearchOp):
        return [("namespace_prefix", op.namespace_prefix)]
    if isinstance(op, ListNamespacesOp):
        conditions = op.match_conditions or ()
        if not isinstance(conditions, (tuple, list)) or not all(
            isinstance(c, MatchCondition) for c in conditions
        ):
            raise InvalidTypeError(
                "match_conditions must be a tuple of MatchCondition, e.g. "
                f"(MatchCondition('prefix', ('memories',)),), got {conditions!r}"
            )
        return [(f"the {c.match_type} path", c.path) for c in conditions]
    return []  # not an op: batch refuses it
