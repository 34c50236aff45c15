"""Every deliberate error is a ``MemoryKitError`` (issue 21, point 5).

The test parses every module of ``langgraph_memory`` and looks at each ``raise``
statement. What is raised is resolved the way Python would resolve it: through
the module's imports and its own classes (``errors.InvalidArgumentError``,
``from x import y as z``), or through the annotation of a parameter that names
the class (``error: type[MemoryKitError]``), or through the return annotation of
a function that makes the error (``raise _error(...)`` with ``-> JournalError``).
A raised class must derive from
:class:`~langgraph_memory.errors.MemoryKitError`; a bare ``raise`` or a raise of an
exception object the code holds (``raise exc from None``) is a re-raise, not a new
error. An exit (``raise SystemExit(main())``) is no error and is not checked, nor
is ``AttributeError`` raised in a ``__getattr__`` (a module's, PEP 562, or a
class's): that is how Python says a name is missing, and ``hasattr`` relies on it.

A raise the test cannot resolve fails too: make the raised class a name it can
see, or add the case to ``ALLOWED`` with its reason.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import langgraph_memory
from langgraph_memory.errors import MemoryKitError

PACKAGE = Path(langgraph_memory.__file__).parent

#: (module, enclosing function, raised class): the deliberate raises of another
#: class that stay, each with its reason. Keep it tiny.
ALLOWED = {
    (
        "langgraph_memory.deprecation",
        "renamed",
        "AttributeError",
    ): "answers a module __getattr__ (PEP 562) for a name that was never renamed: "
    "Python's protocol for a missing attribute is AttributeError, and hasattr() relies on it",
    (
        "langgraph_memory.cli.app",
        "_positive_int",
        "ArgumentTypeError",
    ): "an argparse type= converter: argparse turns this error, and only this one, "
    "into a usage message with our text and exit status 2",
    (
        "langgraph_memory.cli.app",
        "_port",
        "ArgumentTypeError",
    ): "an argparse type= converter, as _positive_int",
}

#: Modules that run a program when imported; they only raise SystemExit.
NOT_IMPORTED = {"langgraph_memory.cli.__main__"}


@dataclass(frozen=True)
class Raise:
    module: str
    function: str
    line: int
    raised: str  # the class's name as resolved, or the source text when unresolved
    problem: str  # "" when fine

    def __str__(self) -> str:
        where = f"{self.module.replace('.', '/')}.py:{self.line} ({self.function})"
        return f"{where}: raise {self.raised}: {self.problem}"


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.C`` as ``["a", "b", "C"]``; None for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else [*head, node.attr]
    return None


_MISSING = object()


def _lookup(namespace: dict[str, object], path: list[str]) -> object:
    value = namespace.get(path[0], _MISSING)
    for attr in path[1:]:
        if value is _MISSING:
            break
        value = getattr(value, attr, _MISSING)
    return value


def _parameter_classes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """Parameters annotated ``type[X]``: name -> ``X`` (``raise error(...)``)."""
    args = function.args
    found: dict[str, ast.expr] = {}
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        note = arg.annotation
        if (
            isinstance(note, ast.Subscript)
            and isinstance(note.value, ast.Name)
            and note.value.id == "type"
        ):
            found[arg.arg] = note.slice
    return found


def _returned(factory: object) -> type | None:
    """The class a function that makes an error says it returns (``-> JournalError``)."""
    if not inspect.isfunction(factory):
        return None
    try:
        hint = typing.get_type_hints(factory).get("return")
    except (NameError, TypeError):
        return None
    return hint if isinstance(hint, type) else None


def _raises(name: str, module: ModuleType, tree: ast.Module) -> Iterator[Raise]:
    namespace = {**vars(builtins), **vars(module)}

    def check(node: ast.Raise, stack: list[ast.AST]) -> Raise | None:
        if node.exc is None:
            return None  # a bare re-raise
        function = ".".join(
            getattr(f, "name", "?")
            for f in stack
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
        called = isinstance(node.exc, ast.Call)
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        path = _dotted(target)
        source = ast.unparse(target)
        value: object = _MISSING if path is None else _lookup(namespace, path)
        if value is _MISSING and path is not None and len(path) == 1:
            for f in reversed(stack):
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    note = _parameter_classes(f).get(path[0])
                    if note is not None and (inner := _dotted(note)) is not None:
                        value = _lookup(namespace, inner)
                    break
        if value is _MISSING:
            if not called:
                return None  # an exception object the code holds: a re-raise
            return Raise(name, function, node.lineno, source, "cannot resolve what is raised")
        if not isinstance(value, type):
            if not called:
                return None  # a module-level exception object
            returned = _returned(value)
            if returned is None:
                return Raise(
                    name,
                    function,
                    node.lineno,
                    source,
                    "raises what a call returns: annotate it to return a MemoryKitError class",
                )
            value = returned
        if not issubclass(value, Exception):
            return None  # SystemExit, KeyboardInterrupt: exits, not errors
        if issubclass(value, MemoryKitError):
            return None
        if value is AttributeError and function.rpartition(".")[2] == "__getattr__":
            return None  # a module's (PEP 562) or a class's __getattr__: Python's protocol
        return Raise(name, function, node.lineno, value.__name__, "not a MemoryKitError")

    def walk(node: ast.AST, stack: list[ast.AST]) -> Iterator[Raise]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Raise):
                found = check(child, stack)
                if found is not None:
                    yield found
            yield from walk(child, [*stack, child])

    yield from walk(tree, [])


def _all_raises() -> list[Raise]:
    found: list[Raise] = []
    for name, path in _modules():
        if name in NOT_IMPORTED:
            continue
        module = importlib.import_module(name)
        found.extend(_raises(name, module, ast.parse(path.read_text(), str(path))))
    return found


def test_every_raised_error_is_a_memory_kit_error() -> None:
    found = _all_raises()
    allowed = {(r.module, r.function, r.raised) for r in found} & set(ALLOWED)
    wrong = [str(r) for r in found if (r.module, r.function, r.raised) not in ALLOWED]
    assert not wrong, "raises of errors that are no MemoryKitError:\n" + "\n".join(wrong)
    stale = sorted(set(ALLOWED) - allowed)
    assert not stale, f"ALLOWED names raises that are gone: {stale}"


def test_the_walk_resolves_through_imports() -> None:
    """The resolver sees through aliases and attributes, and knows a re-raise."""
    source = (
        "import builtins\n"
        "from langgraph_memory import errors\n"
        "from langgraph_memory.errors import InvalidArgumentError as Bad\n"
        "def f(error: type[errors.MemoryKitError], exc: Exception) -> None:\n"
        "    raise ValueError('a')\n"
        "    raise builtins.TypeError('b')\n"
        "    raise errors.InvalidTypeError('c')\n"
        "    raise Bad('d')\n"
        "    raise error('e')\n"
        "    raise exc from None\n"
        "    raise\n"
        "    raise SystemExit(1)\n"
        "    raise KeyError\n"
        "    raise made()\n"
        "    raise loose()\n"
        "def made() -> errors.JournalError:\n"
        "    return errors.JournalError('f')\n"
        "def loose() -> Exception:\n"
        "    return ValueError('g')\n"
        "def __getattr__(name: str) -> object:\n"
        "    raise AttributeError(name)\n"
        "class C:\n"
        "    def __getattr__(self, name: str) -> object:\n"
        "        raise AttributeError(name)\n"
        "    def other(self) -> None:\n"
        "        raise AttributeError('h')\n"
    )
    module = ModuleType("fake")
    exec(compile(source, "fake", "exec"), vars(module))
    found = list(_raises("fake", module, ast.parse(source)))
    assert [(r.line, r.raised) for r in found] == [
        (5, "ValueError"),
        (6, "TypeError"),
        (13, "KeyError"),
        (15, "Exception"),
        (26, "AttributeError"),
    ]
