"""The README's examples run as written: each in a fresh process and folder, with
this checkout's package and no chat model configured (the offline models answer).
The LangGraph Platform example needs a server: tests/test_platform.py runs it.

An example whose lines end in ``# -> text`` must print exactly those texts, in
order, and nothing else; the others must print what ``EXPECTED`` says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from readme_blocks import python_blocks

ROOT = Path(__file__).resolve().parents[1]
#: What an example prints when it did what its section says.
EXPECTED = {
    "Your own StateGraph": "you live in Pune",
    "`create_agent` (langchain 1.x): `MemoryMiddleware`": "you live in Pune",
    "`create_react_agent`: `memory_hooks`": "you live in Pune",
    "Tools only": "Remembered [",
    "The write path in ten lines": "UPDATE",
    "Lifecycle: decay, consolidation, maintenance": "'merged': 1",
    "Rules: how to work with this user": "How to work with this user",
    "Working memory: the thread inside a token budget": "True\nFrom what I remember: you are all",
}
#: ``# -> text``: a line the example prints.
PRINTS = re.compile(r"#\s*->\s*(.*)$")
SERVED = "LangGraph Platform"  # run against a langgraph dev server by test_platform.py
BLOCKS = [(h, code) for h, code in python_blocks() if h != SERVED]


def test_every_way_of_building_has_an_example() -> None:
    headings = {h for h, _ in python_blocks()}
    assert set(EXPECTED) | {SERVED} <= headings, sorted(headings)


@pytest.mark.parametrize("heading, code", BLOCKS, ids=[h for h, _ in BLOCKS])
def test_the_example_runs(heading: str, code: str, tmp_path: Path) -> None:
    if "langchain.agents" in code:
        pytest.importorskip("langchain.agents", reason="the example needs langchain 1.x")
    if "langmem" in code:
        pytest.importorskip("langmem", reason="the example needs langmem (the dev extra)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LANGSMITH_"))}
    env |= {"PYTHONPATH": str(ROOT), "LANGGRAPH_MEMORY_PATH": str(tmp_path / "memory")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{heading}:\n{done.stderr[-3000:]}"
    assert EXPECTED.get(heading, "") in done.stdout, f"{heading} printed:\n{done.stdout}"
    promised = [m.group(1).strip() for line in code.splitlines() if (m := PRINTS.search(line))]
    if promised:
        assert [line.strip() for line in done.stdout.splitlines()] == promised, heading
