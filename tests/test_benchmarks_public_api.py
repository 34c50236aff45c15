"""benchmarks/ uses the public API of langgraph_memory only, and the package never imports it.

Public means: a name listed in the ``__all__`` of ``langgraph_memory`` or of one of the public
modules below. A private module (an underscore in its path, or a module not listed here, like
``langgraph_memory.checks`` or ``langgraph_memory.write.gate``) and a name missing from its
module's ``__all__`` are private; a benchmark that needs one makes the API grow instead.
Names are imported by name (``from langgraph_memory.x import Name``), so each one is checked:
``import langgraph_memory.x`` is refused.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_MODULES = frozenset(
    f"langgraph_memory{suffix}"
    for suffix in (
        "",
        ".embeddings",
        ".errors",
        ".graph",
        ".inspector",
        ".lifecycle",
        ".llm",
        ".mcp_server",
        ".records",
        ".text",
        ".text.porter",
        ".read",
        ".scope",
        ".store",
        ".store.lexical",
        ".testing",
        ".tracing",
        ".write",
        ".write.rules",
        ".write.prompts",
        ".write.prompts.extract",
        ".write.prompts.reconcile",
        ".write.steps",
    )
)


def _exported(module: str) -> frozenset[str]:
    try:
        names = importlib.import_module(module).__dict__.get("__all__", ())
    except ImportError:
        return frozenset()
    return frozenset(names)


def private_imports(source: str, where: str = "<source>") -> list[str]:
    """Every import of ``langgraph_memory`` in ``source`` that the rule above refuses."""
    problems = []
    for node in ast.walk(ast.parse(source, where)):
        line = f"{where}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "langgraph_memory":
                    problems.append(f"{line}: import {alias.name}: import names from it instead")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            module = node.module
            if module.split(".")[0] != "langgraph_memory":
                continue
            if module not in PUBLIC_MODULES:
                problems.append(f"{line}: from {module}: not a public module")
                continue
            exported = _exported(module)
            for alias in node.names:
                if alias.name not in exported:
                    problems.append(f"{line}: {alias.name} is not in {module}.__all__")
    return problems


def test_the_check_refuses_private_imports_and_accepts_public_ones() -> None:
    refused = {
        "from langgraph_memory.write.gate import may_hold_fact": "not a public module",
        "from langgraph_memory.checks import strip_controls": "not a public module",
        "from langgraph_memory.read.retrieve import MIN_CANDIDATES": "not a public module",
        "from langgraph_memory.embeddings import _installed_model_path": "not in",
        "from langgraph_memory.write import Journal": "not in",
        "from langgraph_memory.write import may_hold_fact": "not in",
        "from langgraph_memory import embeddings": "not in",
        "import langgraph_memory.read": "import names from it",
        "def f():\n    from langgraph_memory.records import utc": "not in",
    }
    for source, why in refused.items():
        [problem] = private_imports(source)
        assert why in problem, (source, problem)
    accepted = [
        "from langgraph_memory import MemoryStore, Scope",
        "from langgraph_memory.write.steps import may_hold_fact",
        "from langgraph_memory.read import retrieve",
        "from benchmarks.datasets import DATASETS",
        "import json",
    ]
    for source in accepted:
        assert private_imports(source) == [], source


def _sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _sources("benchmarks"), ids=lambda p: str(p.relative_to(ROOT)))
def test_benchmarks_import_only_the_public_api(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert private_imports(source, str(path.relative_to(ROOT))) == []


def test_the_package_never_imports_benchmarks() -> None:
    found = []
    for path in _sources("langgraph_memory"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path}: {m}" for m in modules if m.split(".")[0] == "benchmarks"]
    assert found == []
