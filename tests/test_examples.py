"""Every Python example of the README and of docs/ runs as written, twice, in one folder.

A reader runs the examples one after another in one folder, and may run them again:
each must keep to a store and a scope of its own, so that what it prints does not
depend on what ran before it. The slow test runs every example (in a fresh process,
with this checkout's package and no chat model configured: the offline models answer)
in the order of the pages, then all of them again in the same folder, and compares
what each printed the second time with the first (ids and temporary paths aside).

An example whose lines end in ``# -> text`` must print exactly those texts, in order,
and nothing else; the others must print what ``EXPECTED`` says. The LangGraph Platform
examples need a server: tests/test_platform.py runs them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_blocks import ROOT, Block, blocks, pages

#: What an example prints when it did what its section says, by page and heading.
EXPECTED = {
    ("README.md", "Your own StateGraph"): "you live in Pune",
    ("README.md", "`create_agent` (langchain 1.x): `MemoryMiddleware`"): "you live in Pune",
    ("README.md", "Tools only"): "Remembered [",
    ("README.md", "Deferred writes"): "you live in Lisbon",
    ("docs/guide/building.md", "Your own StateGraph"): "you live in Pune",
    ("docs/guide/building.md", "`create_agent` (langchain 1.x): `MemoryMiddleware`"): (
        "you live in Pune"
    ),
    ("docs/guide/building.md", "`create_react_agent`: `memory_hooks`"): "you live in Pune",
    ("docs/guide/building.md", "Tools only"): "Remembered [",
    ("docs/guide/write-path.md", "The write path in ten lines"): "UPDATE",
    ("docs/guide/lifecycle.md", "Lifecycle: decay, consolidation, maintenance"): "'merged': 1",
    ("docs/guide/rules-and-working-memory.md", "Rules: how to work with this user"): (
        "How to work with this user"
    ),
    (
        "docs/guide/rules-and-working-memory.md",
        "Working memory: the thread inside a token budget",
    ): ("True\nFrom what I remember: you are all"),
}
#: ``# -> text``: a line the example prints.
PRINTS = re.compile(r"#\s*->\s*(.*)$")
#: What differs between two runs of one example: ids and temporary folders.
VARYING = [
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    # A memory id: 8 hex digits or more, some of them letters only ("edafaaee", 1 in ~2,600).
    (re.compile(r"\b[0-9a-f]{8,32}\b"), "<id>"),
    (re.compile(r"/tmp/[\w./-]+"), "<tmp>"),
]
EXAMPLES = [b for page in pages() for b in blocks(page) if not b.served]


def _normal(text: str) -> str:
    for pattern, stand_in in VARYING:
        text = pattern.sub(stand_in, text)
    return text


def _needs(block: Block) -> str | None:
    """Why this machine cannot run the example (an optional package), else None."""
    if "langchain.agents" in block.code:
        try:
            import langchain.agents  # noqa: F401
        except ImportError:
            return "the example needs langchain 1.x (the dev extra)"
    if "langmem" in block.code:
        try:
            import langmem  # noqa: F401
        except ImportError:
            return "the example needs langmem (the dev extra)"
    if "deepagents" in block.code:
        try:
            import deepagents  # noqa: F401
        except ImportError:
            return "the example needs deepagents (the dev extra)"
    return None


def _runs(folder: Path) -> dict[str, list[subprocess.CompletedProcess[str]]]:
    """Every example run twice in ``folder``: all of them in page order, then again."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "LANGSMITH_", "LANGGRAPH_MEMORY_"))
    }
    env["PYTHONPATH"] = str(ROOT)
    done: dict[str, list[subprocess.CompletedProcess[str]]] = {}
    for _ in range(2):
        for block in EXAMPLES:
            if _needs(block):
                continue
            done.setdefault(block.name, []).append(
                subprocess.run(
                    [sys.executable, "-c", block.code],
                    cwd=folder,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
            )
    return done


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, list[subprocess.CompletedProcess[str]]]:
    return _runs(tmp_path_factory.mktemp("examples"))


def test_every_expectation_names_an_example() -> None:
    named = {(b.page, b.heading) for b in EXAMPLES}
    assert set(EXPECTED) <= named, sorted(set(EXPECTED) - named)


@pytest.mark.parametrize("block", EXAMPLES, ids=[b.name for b in EXAMPLES])
def test_the_example_is_python(block: Block) -> None:
    compile(block.code, block.name, "exec")


def test_the_readme_stays_short() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move the detail into docs/"


@pytest.mark.slow
@pytest.mark.parametrize("block", EXAMPLES, ids=[b.name for b in EXAMPLES])
def test_the_example_runs_twice_in_one_folder_alike(
    block: Block, runs: dict[str, list[subprocess.CompletedProcess[str]]]
) -> None:
    if reason := _needs(block):
        pytest.skip(reason)
    first, second = runs[block.name]
    for n, done in enumerate((first, second), 1):
        assert done.returncode == 0, f"{block.name}, run {n}:\n{done.stderr[-3000:]}"
        expected = EXPECTED.get((block.page, block.heading), "")
        assert expected in done.stdout, f"{block.name}, run {n} printed:\n{done.stdout}"
        promised = [
            m.group(1).strip() for line in block.code.splitlines() if (m := PRINTS.search(line))
        ]
        if promised:
            assert [line.strip() for line in done.stdout.splitlines()] == promised, block.name
    assert _normal(second.stdout) == _normal(first.stdout), (
        f"{block.name} printed something else the second time:\n"
        f"first:\n{first.stdout}\nsecond:\n{second.stdout}"
    )
