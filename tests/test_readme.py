"""The README's runnable snippets run, and print what the README says they print.

A fenced ``python`` block right after an HTML comment that names this file is
run in a fresh interpreter, in an empty directory, with this checkout first on
the path. Each ``# -> text`` comment in the block is a line the block must print,
in order, and the block must print nothing else. A block that imports an
optional package that is not installed is skipped, saying which.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"<!-- tests/test_readme\.py runs this block.*?-->\n```python\n(.*?)```", re.S)
EXPECTED = re.compile(r"#\s*->\s*(.*)$")
IMPORTED = re.compile(r"^(?:from|import)\s+([A-Za-z_]\w*)", re.M)


def blocks() -> list[str]:
    return MARKER.findall((ROOT / "README.md").read_text())


def test_the_readme_has_runnable_blocks() -> None:
    assert blocks(), "no README block is marked for tests/test_readme.py"


@pytest.mark.parametrize("code", blocks(), ids=lambda code: code.splitlines()[0][:40])
def test_readme_block_runs_and_prints_what_it_says(code: str, tmp_path: Path) -> None:
    for module in sorted(set(IMPORTED.findall(code))):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the block imports {module}, which is not installed")
    expected = [m.group(1).strip() for line in code.splitlines() if (m := EXPECTED.search(line))]
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    run = [sys.executable, "-c", code]
    done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [line.strip() for line in done.stdout.splitlines()] == expected
