"""The package's shape, checked: no import cycle, imports that go down the floors, no
module reaching into another's private members, an import that loads nothing heavy,
and public faces that resolve and stay narrow. These are the rules of
docs/architecture.md (its floors table is read from there); a change that breaks one
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


def _room(module: str) -> str:
    """The room a module lives in: its top-level module or subpackage."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def floors() -> dict[str, int]:
    """docs/architecture.md's floors table (its "Floors" section): each room's floor."""
    return floor_table("Floors")


def floor_table(title: str) -> dict[str, int]:
    """A floors table of docs/architecture.md, in the section ``title``: each room
    (a store room's ``store/`` and ``/`` left out) and its floor."""
    found = {}
    for line in _section(title).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            for room in cells[1].split(","):
                name = room.strip().strip("`").removeprefix("store/").strip("/")
                found[name] = int(cells[0])
    return found


def test_imports_go_down_the_floors() -> None:
    """docs/architecture.md, "Floors": a room imports only rooms on lower floors."""
    floor = floors()
    assert floor, "docs/architecture.md has no floors table"
    rooms = {_room(name) for name in MODULES}
    assert rooms - set(floor) == set(), (
        f"rooms that docs/architecture.md does not place: {rooms - set(floor)}"
    )
    offences = []
    for name, path in MODULES.items():
        for target, line in imported(ast.parse(path.read_text())):
            here, there = _room(name), _room(target)
            if here != there and floor[here] <= floor[there]:
                offences.append(
                    f"{name}:{line} imports {target} (floor {floor[here]} -> {floor[there]})"
                )
    assert offences == []


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


def test_a_graph_that_adds_memory_loads_no_store_until_it_builds_one() -> None:
    """docs/architecture.md, "Imports": the graph names load no Chroma (nor the
    embedder); building a MemoryStore does (its time: ``python -m benchmarks imports``)."""
    graph = "from langgraph_memory import add_memory, MemoryMiddleware, memory_tools"
    loaded = _import_in_child(graph)
    assert "chromadb" not in loaded and "onnxruntime" not in loaded, loaded
    assert {"langgraph", "langchain_core"} <= loaded, "the graph names are LangGraph's"
    loaded = _import_in_child("from langgraph_memory.store import tokenize, Hit")
    assert "chromadb" not in loaded, "the store package loads a name's module on first use"


def test_the_cli_help_loads_no_heavy_dependency() -> None:
    code = (
        "from langgraph_memory import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert _import_in_child(code) == set()


def _documentation() -> str:
    """The README and every page of docs/, as one text."""
    root = PACKAGE.parent
    return "\n".join(
        p.read_text() for p in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    )


def test_every_public_name_resolves_and_is_documented() -> None:
    readme = _documentation()
    for name in langgraph_memory.__all__:
        value = getattr(langgraph_memory, name)
        assert value is not None, name
        if name != "__version__":
            assert f"`{name}`" in readme or f"{name}(" in readme, f"{name} is not in the docs"
    assert sorted(dir(langgraph_memory)) == dir(langgraph_memory)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = langgraph_memory.nothing_here  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "package",
    [
        "langgraph_memory.store",
        # The store's rooms: a face's names are strings loaded on first use, so a path
        # that went stale would otherwise surface only at that first use.
        "langgraph_memory.store.chroma",
        "langgraph_memory.store.engine",
        "langgraph_memory.store.basestore",
        "langgraph_memory.store.data",
        "langgraph_memory.store.lexical",
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


# -- the store's face ------------------------------------------------------------------------


def _store_face() -> set[str]:
    """MemoryStore's own public names, besides LangGraph BaseStore's: its class
    attributes and what ``__init__`` sets on an instance."""
    from langgraph.store.base import BaseStore

    from langgraph_memory.store.memory_store import MemoryStore

    names = {n for n in dir(MemoryStore) if not n.startswith("_")}
    init = ast.parse(
        Path(importlib.import_module(MemoryStore.__module__).__file__ or "").read_text()
    )
    for node in ast.walk(init):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for leaf in ast.walk(node):
                if (
                    isinstance(leaf, ast.Attribute)
                    and isinstance(leaf.ctx, ast.Store)
                    and isinstance(leaf.value, ast.Name)
                    and leaf.value.id == "self"
                    and not leaf.attr.startswith("_")
                ):
                    names.add(leaf.attr)
    langgraph = {n for n in dir(BaseStore) if not n.startswith("_")}
    return names - langgraph - {"index_config"}  # LangGraph's stores' attribute too


def test_the_store_keeps_a_narrow_face_and_the_docs_list_it() -> None:
    """docs/architecture.md, "The store's face": at most 22 names of its own, each a
    row of the table in docs/guide/store.md, and PUBLIC says which (a new method fails
    here until it is listed, or goes to ``internals``)."""
    from langgraph_memory.store.memory_store import PUBLIC

    face = _store_face()
    assert face == set(PUBLIC), (
        f"MemoryStore's public names differ from PUBLIC: {face ^ set(PUBLIC)}"
    )
    assert len(face) <= 22, f"MemoryStore has {len(face)} public names of its own (at most 22)"
    guide = (PACKAGE.parent / "docs" / "guide" / "store.md").read_text()
    section = guide.split("## The store's face", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    rows = {
        line.split("|")[1].strip().strip("`")
        for line in section.splitlines()
        if line.startswith("| `")
    }
    assert face - rows == set(), (
        f"public names with no row in the table of docs/guide/store.md: {face - rows}"
    )
    assert rows - face == set(), (
        f"rows of the table in docs/guide/store.md that are not public: {rows - face}"
    )


def test_a_moved_store_name_still_answers_with_a_warning_until_it_goes(tmp_path: Path) -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from langgraph_memory.store import MemoryStore, internals

    with MemoryStore(tmp_path, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        store.add("user:a", "Flight LH-761 leaves at 7.")
        with pytest.warns(DeprecationWarning, match=r"internals\(store\)\.keyword"):
            old = store.keyword("user:a", "LH-761")  # type: ignore[attr-defined]
        assert old == internals(store).keyword("user:a", "LH-761")
        with pytest.warns(DeprecationWarning, match=r"store\.ttl\.sweep"):
            assert store.sweep_ttl() == 0  # type: ignore[attr-defined]
        with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
            _ = store.nothing_here  # type: ignore[attr-defined]
    with pytest.warns(DeprecationWarning, match="DecisionOp"):
        from langgraph_memory import Op  # type: ignore[attr-defined]
    assert Op is langgraph_memory.DecisionOp


#: The one module that may reach into Chroma's internals (its SQLite file, private
#: attributes, its Rust bindings) and glibc's heap (``ctypes``, ``malloc_trim``).
CHROMA_INTERNALS = "langgraph_memory.store.chroma.internals"
#: Modules that may import ``sqlite3`` for files of their own (not Chroma's): the
#: package's lexical index, wherever it lives under ``store.lexical``.
OWN_SQLITE = ("langgraph_memory.store.lexical",)
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


def _imported_names(node: ast.AST) -> list[str]:
    """The modules an import statement names (none for any other node)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module]
    return []


def internals_reaches(name: str, tree: ast.AST) -> list[str]:
    """Where a module reaches into Chroma's internals or the heap: an import of
    ``sqlite3`` (allowed for the lexical index's own files), ``ctypes`` or a
    private Chroma module; ``getattr``/``hasattr``/``setattr``/``delattr`` of a
    private name (``"_x"``, not ``"__x__"``) on anything but ``self``/``cls``, which
    the private-member test cannot see; code for a child in a string."""
    found = []
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        for imported_name in _imported_names(node):
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
    are reached from ``store/chroma/internals.py`` only, where a version check and
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


# -- the store's rooms, its face and its door to Chroma -----------------------------------------

STORE = "langgraph_memory.store"
#: The one module that calls Chroma (``store/chroma/door.py``), and the one that
#: reaches into its internals (which the door uses to close a client).
DOOR = "langgraph_memory.store.chroma.door"
#: Chroma's client and collection methods: a call of one of these names, or of
#: ``get``/``delete``/``add``/``update`` with Chroma's keywords, or a bare
#: ``count()``, is a call into Chroma.
CHROMA_CALLS = {
    "upsert",
    "modify",
    "query",
    "get_collection",
    "create_collection",
    "get_or_create_collection",
    "delete_collection",
    "list_collections",
    "get_max_batch_size",
    "get_settings",
    "heartbeat",
}
CHROMA_KEYWORDS = {
    "ids",
    "where",
    "where_document",
    "include",
    "embeddings",
    "documents",
    "metadatas",
    "query_embeddings",
    "n_results",
}


def chroma_reaches(name: str, tree: ast.AST) -> list[str]:
    """Where a module imports ``chromadb`` or calls a Chroma client or collection."""
    found = []
    for node in ast.walk(tree):
        found += [
            f"{name}:{node.lineno} imports {n}"
            for n in _imported_names(node)
            if n == "chromadb" or n.startswith("chromadb.")
        ]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            keywords = {k.arg for k in node.keywords}
            chroma = (
                (attr in CHROMA_CALLS and (attr != "query" or bool(keywords & CHROMA_KEYWORDS)))
                or (attr in ("get", "delete", "add", "update") and bool(keywords & CHROMA_KEYWORDS))
                or (attr == "count" and not node.args and not node.keywords)
            )
            if chroma:
                found.append(f"{name}:{node.lineno} calls {ast.unparse(node.func)}()")
    return found


def test_chroma_is_reached_through_its_one_door() -> None:
    """docs/architecture.md, "The door to Chroma": no module but ``store/chroma/door.py``
    imports ``chromadb`` or calls a Chroma client or collection (``internals``, behind
    its version check, reaches Chroma's private parts for a hard delete)."""
    offences = []
    for name, path in MODULES.items():
        if name not in (DOOR, CHROMA_INTERNALS):
            offences += chroma_reaches(name, ast.parse(path.read_text()))
    assert offences == []
    # The scan sees what it is for: the door trips it.
    reaches = chroma_reaches(DOOR, ast.parse(MODULES[DOOR].read_text()))
    assert any("imports chromadb" in r for r in reaches), reaches
    for call in ("self.chroma.get()", "self.chroma.query()", "self.chroma.upsert()"):
        assert any(call in r for r in reaches), (call, reaches)
    assert any("self.chroma.count()" in r for r in reaches), reaches


def test_the_package_reaches_the_store_through_its_face() -> None:
    """docs/architecture.md, "Faces": outside ``store/`` the package imports
    ``langgraph_memory.store`` itself, never one of its modules."""
    offences = [
        f"{name}:{line} imports {target}"
        for name, path in MODULES.items()
        if not (name == STORE or name.startswith(STORE + "."))
        for target, line in imported(ast.parse(path.read_text()))
        if target.startswith(STORE + ".")
    ]
    assert offences == []


def _store_room(module: str) -> str:
    """A store module's room: its subpackage, or the module itself on the top floor."""
    return module.removeprefix(STORE + ".").split(".")[0] if module != STORE else "__init__"


def _section(title: str) -> str:
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    return doc.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def store_floors() -> dict[str, int]:
    """docs/architecture.md's "The store's rooms" table: each store room's floor."""
    return floor_table("The store's rooms")


def test_the_store_s_imports_go_down_its_floors() -> None:
    """Inside ``store/`` too, a room imports only rooms on lower floors: the faces on
    top, the door to Chroma at the bottom."""
    floor = store_floors()
    rooms = {_store_room(n) for n in MODULES if n.startswith(STORE + ".") or n == STORE}
    assert rooms - set(floor) == set(), (
        f"store rooms the table does not place: {rooms - set(floor)}"
    )
    offences = []
    for name, path in MODULES.items():
        if not name.startswith(STORE + ".") and name != STORE:
            continue
        for target, line in imported(ast.parse(path.read_text())):
            if not target.startswith(STORE + ".") and target != STORE:
                continue
            here, there = _store_room(name), _store_room(target)
            if here != there and floor[here] <= floor[there]:
                offences.append(
                    f"{name}:{line} imports {target} ({here} {floor[here]} -> "
                    f"{there} {floor[there]})"
                )
    assert offences == []


def test_the_map_names_every_module_in_its_room() -> None:
    """docs/architecture.md, "Rooms": each package's bullet names each of its modules
    (a module no bullet names is one a newcomer cannot find)."""
    section = _section("Rooms")
    bullets = {}
    for bullet in section.split("\n- ")[1:]:
        head = bullet.split("**", 2)[1] if bullet.startswith("**") else ""
        bullets[head.strip("`").strip("/")] = bullet
    missing = []
    for name, path in MODULES.items():
        parts = name.split(".")[1:]
        if not parts or (path.name == "__init__.py" and len(parts) == 1):
            continue  # a top-level module sits in the floors table; a package is its bullet
        room = "/".join(parts[:-1])
        # The nearest package with a bullet of its own holds the module.
        while room and room not in bullets:
            room = room.rpartition("/")[0]
        stem = parts[-1]
        if path.name == "__init__.py" or not room:
            continue
        if f"`{stem}`" not in bullets[room] and f"`{stem}.py`" not in bullets[room]:
            missing.append(f"{name} (in the bullet of {room}/)")
    assert missing == []
