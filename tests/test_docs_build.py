"""The documentation site builds with no warning: ``mkdocs build --strict`` (mkdocs.yml), as
.ci/run runs it. A broken link or anchor in docs/, a page missing from the nav, or a docstring
the API reference cannot render (docs/reference/, through mkdocstrings and the Griffe extension
docs/_ext/docstrings.py) fails it. Also the extension's rewriting of a docstring, directly."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _extension() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_ext", ROOT / "docs/_ext/docstrings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is in the docs and dev extras")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is in the docs and dev extras")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line]
    assert done.returncode == 0, "\n".join(warnings) or done.stderr[-3000:]
    assert not warnings, "\n".join(warnings)
    site = tmp_path / "site"
    # The API reference rendered from the docstrings, doctests as console code blocks.
    store = (site / "reference/store/index.html").read_text(encoding="utf-8")
    assert 'id="langgraph_memory.store.memory_store.MemoryStore.add"' in store
    assert '<span class="gp">&gt;&gt;&gt; </span>' in store
    # Every results page shows its plots.
    for page, plot in [
        ("results/retrieval", "retrieval_locomo.png"),
        ("results/scale", "scale.png"),
        ("results/peers", "peers.png"),
        ("results/qa", "qa_locomo_offline.png"),
        ("scaling", "multiprocess.png"),
        ("performance", "window.png"),
    ]:
        assert plot in (site / page / "index.html").read_text(encoding="utf-8"), (page, plot)


def test_doctests_become_console_blocks() -> None:
    pytest.importorskip("griffe", reason="griffe comes with mkdocstrings[python]")
    to_markdown = _extension().to_markdown
    text = "Add:\n\n>>> store.add_many('user:a', [\n...     'Likes tea.'])\n['Likes tea.']\nMore."
    assert to_markdown(text).splitlines() == [
        "Add:",
        "",
        "```pycon",
        ">>> store.add_many('user:a', [",
        "...     'Likes tea.'])",
        "['Likes tea.']",
        "More.",
        "```",
    ]
    # Indented (in a list item), and after prose with no blank line between.
    assert to_markdown("- run:\n  >>> f()\n  1").splitlines() == [
        "- run:",
        "",
        "  ```pycon",
        "  >>> f()",
        "  1",
        "  ```",
    ]


def test_rst_literal_blocks_roles_and_tags() -> None:
    pytest.importorskip("griffe", reason="griffe comes with mkdocstrings[python]")
    to_markdown = _extension().to_markdown
    text = "Schedule it with the SDK::\n\n    client.crons.create(x)\n\nThen :meth:`flush`."
    assert to_markdown(text).splitlines() == [
        "Schedule it with the SDK:",
        "",
        "```text",
        "client.crons.create(x)",
        "```",
        "",
        "Then `flush`.",
    ]
    # A placeholder in prose is escaped; in a code span or a fence it is left alone.
    assert to_markdown("to <action>, ``<b>``\n```\n<i>\n```") == (
        "to &lt;action>, ``<b>``\n```\n<i>\n```"
    )
    # A fenced block is left as it is, doctest prompts included.
    fenced = "```python\n>>> x\n```"
    assert to_markdown(fenced) == fenced
