"""Every public callable says what it takes and what it returns (issue 40, point 5).

The API reference (mkdocstrings, ``docstring_style: google``) and IDE hovers show a
docstring's ``Args:`` and ``Returns:`` sections. This holds the public face to them:
each callable of ``langgraph_memory.__all__`` (a class through its class docstring,
which documents ``__init__``; its own public methods too), each ``MemoryStore``
method named in ``PUBLIC``, ``check_store``, ``internals`` and the methods of the
``store.reviews`` and ``store.ttl`` sub-objects, must have an
``Args:`` section that names every parameter of its signature, and a ``Returns:``
section unless it returns None. Exceptions and enums take nothing worth documenting,
and properties take no arguments, so they are left out.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

import langgraph_memory
from langgraph_memory.errors import MissingDependencyError

_SECTION = re.compile(r"^(\w[\w ]*):\s*$")
_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:")


def _sections(doc: str) -> dict[str, list[str]]:
    """The google-style sections of a docstring (as ``inspect.getdoc`` cleans it):
    each title (``Args``, ``Returns`` ...) and its indented lines."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in doc.splitlines():
        title = _SECTION.match(line)
        if title:
            current = found.setdefault(title.group(1), [])
        elif current is not None and (not line.strip() or line.startswith(" ")):
            current.append(line)
        else:
            current = None
    return found


def _documented(lines: list[str]) -> set[str]:
    """The parameter names an ``Args:`` section lists (``*args`` read as ``args``)."""
    items = [line for line in lines if line.strip()]
    if not items:
        return set()
    indent = len(items[0]) - len(items[0].lstrip())
    names = set()
    for line in items:
        if len(line) - len(line.lstrip()) == indent:
            item = _ITEM.match(line.strip())
            if item:
                names.add(item.group(1).lstrip("*"))
    return names


def _doc(obj: Any) -> str:
    """``obj``'s own docstring, cleaned (``inspect.getdoc`` would take a parent's)."""
    doc = getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def _returns_none(annotation: Any) -> bool:
    return annotation in (None, "None", inspect.Signature.empty)


def _problems(name: str, target: Callable[..., Any], doc: str, *, is_class: bool) -> list[str]:
    """What ``doc`` lacks for ``target``'s signature, each naming ``name``."""
    signature = inspect.signature(target)
    params = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
    sections = _sections(doc)
    problems = []
    if params:
        if "Args" not in sections:
            listed = ", ".join(p.name for p in params)
            problems.append(f"{name} has no Args: section (its parameters: {listed})")
        else:
            documented = _documented(sections["Args"])
            for p in params:
                if p.name not in documented:
                    problems.append(f"{name}: Args: lacks the parameter {p.name!r}")
    returns = signature.return_annotation
    if not is_class and not _returns_none(returns) and "Returns" not in sections:
        problems.append(f"{name} returns {returns} but has no Returns: section")
    return problems


def _top_level(name: str) -> Any:
    try:
        return getattr(langgraph_memory, name)
    except MissingDependencyError as exc:  # MemoryMiddleware needs langchain
        pytest.skip(f"{name}: {exc}")


def _takes_nothing_to_document(value: Any) -> bool:
    """An exception or an enum (their constructors are Python's), or no callable."""
    if isinstance(value, type):
        return issubclass(value, (BaseException, enum.Enum))
    return not callable(value)


def _own_methods(cls: type) -> list[tuple[str, Callable[..., Any]]]:
    """The public methods ``cls`` itself defines (not inherited; no properties)."""
    methods = []
    for attr, raw in vars(cls).items():
        if attr.startswith("_") or isinstance(raw, property):
            continue
        if isinstance(raw, (classmethod, staticmethod)) or inspect.isfunction(raw):
            methods.append((attr, getattr(cls, attr)))
    return methods


@pytest.mark.parametrize("name", sorted(langgraph_memory.__all__))
def test_a_top_level_callable_documents_its_arguments_and_result(name: str) -> None:
    value = _top_level(name)
    if _takes_nothing_to_document(value):
        return
    is_class = isinstance(value, type)
    problems = _problems(name, value, _doc(value), is_class=is_class)
    # A class whose instances users call: its own public methods, too (the store's
    # face is PUBLIC, checked below).
    if is_class and value is not langgraph_memory.MemoryStore:
        for attr, method in _own_methods(value):
            problems += _problems(f"{name}.{attr}", method, _doc(method), is_class=False)
    assert not problems, "\n".join(problems)


def _store_face() -> list[tuple[str, Any]]:
    from langgraph_memory.store.memory_store import PUBLIC, MemoryStore

    face = []
    for attr in PUBLIC:
        raw = inspect.getattr_static(MemoryStore, attr, None)
        # Properties take no arguments; reviews and ttl are objects set by __init__.
        if raw is None or isinstance(raw, property):
            continue
        face.append((f"MemoryStore.{attr}", getattr(MemoryStore, attr)))
    return face


def test_the_store_face_documents_its_arguments_and_results() -> None:
    from langgraph_memory.store import TTL, Reviews, memory_store

    face = [
        *_store_face(),
        ("check_store", memory_store.check_store),
        ("internals", memory_store.internals),
        # The store's sub-objects, store.reviews and store.ttl: their calls too.
        ("store.reviews", Reviews.__call__),
        *[(f"store.reviews.{a}", m) for a, m in _own_methods(Reviews)],
        *[(f"store.ttl.{a}", m) for a, m in _own_methods(TTL)],
    ]
    assert len(face) > 2, "PUBLIC names no method"
    problems = [p for name, f in face for p in _problems(name, f, _doc(f), is_class=False)]
    store_class = _problems(
        "MemoryStore", memory_store.MemoryStore, _doc(memory_store.MemoryStore), is_class=True
    )
    assert not problems + store_class, "\n".join(problems + store_class)


def test_the_check_sees_a_missing_argument() -> None:
    """The check itself: it finds the parameter an Args: section leaves out (a
    name in another item's description is no item), the missing Returns:, and reads
    starred and typed items."""

    def documented(a: int, *rest: int, b: str = "", **more: Any) -> int:
        """Sum.

        Args:
            a: the first.
            *rest: the others.
            b (str): a label.
                Spread over two lines: b: is no item here.
            **more: anything else.

        Returns:
            The sum.
        """
        return a

    def lacking(a: int, b: str) -> int:
        """Sum.

        Args:
            a: the first; what follows is part of its description,
                b: not an item.
        """
        return a

    assert _problems("documented", documented, _doc(documented), is_class=False) == []
    assert _problems("lacking", lacking, _doc(lacking), is_class=False) == [
        "lacking: Args: lacks the parameter 'b'",
        "lacking returns int but has no Returns: section",
    ]
