"""The package's shape, checked: no import cycle, no module reaching into another's
private members, an import that loads nothing heavy, and a public surface that
resolves. These are the rules of DESIGN.md's layout; a change that breaks one
fails here with the module and line to look at."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import langgraph_memory

PACKAGE = Path(langgraph_memory.__file__).parent
ROOT = "langgraph_memory"


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its __init__)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = modules()


def imported(tree: ast.AST) -> list[tuple[str, int]]:
    """The package's modules a module imports, anywhere in it (function bodies and
    ``if TYPE_CHECKING:`` blocks included): ``from a.b import c`` names ``a.b.c``
    when that is a module, else ``a.b``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == ROOT]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != ROOT:
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.append((sub if sub in MODULES else node.module, node.lineno))
    return out


def test_the_package_has_no_import_cycle() -> None:
    graph = {
        name: sorted({m for m, _ in imported(ast.parse(path.read_text())) if m != name})
        for name, path in MODULES.items()
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for dep in graph.get(name, []):
            if state.get(dep) == 1:
                cycle = [*path[path.index(dep) :], dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        path.pop()
        state[name] = 2

    for name in graph:
        if name not in state:
            visit(name)


def _defined_here(tree: ast.AST) -> set[str]:
    """Names a module defines itself: functions, classes, assigned names and attributes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
                    elif isinstance(leaf, ast.Attribute):
                        names.add(leaf.attr)
    return names


#: Underscore names that are public API of the standard library.
STDLIB_PUBLIC = {"_replace", "_asdict", "_fields", "_exit"}


def test_no_module_touches_another_modules_private_members() -> None:
    offences = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        own = _defined_here(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                private = [a.name for a in node.names if a.name.startswith("_")]
                modules_path = node.module.split(".")
                if node.module != "__future__" and (
                    private or any(p.startswith("_") for p in modules_path)
                ):
                    offences.append(f"{name}:{node.lineno} imports {node.module} {private}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if any(p.startswith("_") for p in alias.name.split(".")):
                        offences.append(f"{name}:{node.lineno} imports {alias.name}")
            elif isinstance(node, ast.Attribute):
                attr = node.attr
                if not attr.startswith("_") or attr.startswith("__") or attr in STDLIB_PUBLIC:
                    continue
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    continue
                if attr not in own:
                    offences.append(f"{name}:{node.lineno} uses {ast.unparse(node)}")
    assert offences == []


def _import_in_child(code: str) -> set[str]:
    heavy = ("chromadb", "langgraph", "langchain_core", "langchain_openai", "langsmith")
    heavy += ("onnxruntime", "tokenizers", "numpy")
    script = f"import sys\n{code}\nprint(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


def test_importing_the_package_loads_no_heavy_dependency() -> None:
    assert _import_in_child("import langgraph_memory") == set()
    # Errors, scopes and records are cheap too: catching an error loads nothing.
    assert _import_in_child("from langgraph_memory import StoreClosedError, Scope") == set()


def test_a_public_name_loads_what_it_needs_on_first_use() -> None:
    assert "chromadb" in _import_in_child("from langgraph_memory import MemoryStore")


def test_the_cli_help_loads_no_heavy_dependency() -> None:
    code = (
        "from langgraph_memory import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert _import_in_child(code) == set()


def test_every_public_name_resolves_and_is_documented_in_the_readme() -> None:
    readme = (PACKAGE.parent / "README.md").read_text()
    for name in langgraph_memory.__all__:
        value = getattr(langgraph_memory, name)
        assert value is not None, name
        if name != "__version__":
            assert f"`{name}`" in readme or f"{name}(" in readme, f"{name} is not in the README"
    assert sorted(dir(langgraph_memory)) == dir(langgraph_memory)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = langgraph_memory.nothing_here  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "package",
    [
        "langgraph_memory.store",
        "langgraph_memory.write",
        "langgraph_memory.read",
        "langgraph_memory.graph",
    ],
)
def test_subpackage_surfaces_resolve(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert not name.startswith("_")
        assert getattr(module, name) is not None, f"{package}.{name}"


#: The one module that may reach into Chroma's internals (its SQLite file, private
#: attributes, its Rust bindings) and glibc's heap (``ctypes``, ``malloc_trim``).
CHROMA_INTERNALS = "langgraph_memory.store.chroma_internals"
#: Modules that may import ``sqlite3`` for files of their own (not Chroma's): the
#: package's lexical index, wherever it lives under ``store.lexical``.
OWN_SQLITE = ("langgraph_memory.store.lexical", "langgraph_memory.store.lexicon")
#: Imports that reach into Chroma or the process's heap.
INTERNAL_IMPORTS = ("ctypes", "chromadb_rust_bindings", "chromadb.api.shared_system_client")
#: Code in a string (a script a child runs) that reaches the same.
INTERNAL_CODE = ("import sqlite3", "sqlite3.connect", "malloc_trim", "ctypes", "chromadb_rust")


def _owns_sqlite(name: str) -> bool:
    return name in OWN_SQLITE or name.startswith("langgraph_memory.store.lexical.")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = node.body[0] if node.body else None
        if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
            found.add(id(doc.value))
    return found


def internals_reaches(name: str, tree: ast.AST) -> list[str]:
    """Where a module reaches into Chroma's internals or the heap: an import of
    ``sqlite3`` (allowed for the lexical index's own files), ``ctypes`` or a
    private Chroma module; ``getattr``/``hasattr``/``setattr``/``delattr`` of a
    private name (``"_x"``, not ``"__x__"``) on anything but ``self``/``cls``, which
    the private-member test cannot see; code for a child in a string."""
    found = []
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for imported_name in names:
            if imported_name == "sqlite3" and not _owns_sqlite(name):
                found.append(f"{name}:{node.lineno} imports sqlite3")
            elif any(
                imported_name == m or imported_name.startswith(m + ".") for m in INTERNAL_IMPORTS
            ):
                found.append(f"{name}:{node.lineno} imports {imported_name}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            attr = node.args[1].value
            on_self = isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls")
            dunder = attr.startswith("__") and attr.endswith("__")
            if attr.startswith("_") and not dunder and not on_self:
                found.append(f"{name}:{node.lineno} {node.func.id}(..., {attr!r})")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            for code in INTERNAL_CODE:
                if code in node.value and not (code.endswith("sqlite3") and _owns_sqlite(name)):
                    found.append(f"{name}:{node.lineno} holds code with {code!r} in a string")
    return found


def test_only_the_internals_module_reaches_into_chroma() -> None:
    """Chroma's SQLite file, its private attributes and bindings, and glibc's heap
    are reached from ``store/chroma_internals.py`` only, where a version check and
    tests/test_chroma_internals.py guard each reach (issue 21, point 6)."""
    offences = []
    for name, path in MODULES.items():
        if name == CHROMA_INTERNALS:
            continue
        offences += internals_reaches(name, ast.parse(path.read_text()))
    assert offences == []
    # The scan sees what it is for: the internals module trips every rule.
    reaches = internals_reaches(CHROMA_INTERNALS, ast.parse(MODULES[CHROMA_INTERNALS].read_text()))
    assert any("imports ctypes" in r for r in reaches), reaches
    assert any("'_identifier_to_system'" in r for r in reaches), reaches
    assert any("'import sqlite3'" in r for r in reaches), reaches
    assert any("'chromadb_rust'" in r for r in reaches), reaches
