"""PyPI's `langgraph-memory` (another project) shares the import name `langgraph_memory`:
with both installed in one folder, an import of this package and its command line fail
with a message that says so and what to run, whichever of the two was installed last."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import langgraph_memory
from langgraph_memory import ConflictingPackageError, MemoryKitError
from langgraph_memory.install_check import check_install, foreign_install

PACKAGE = Path(langgraph_memory.__file__).parent


def _python(code: str, site: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose only site folder is ``site`` (-S: without
    this environment's, where an editable install of the checkout would answer first)."""
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run(
        [sys.executable, "-S", "-c", code],
        cwd=site.parent,  # not the checkout, whose package `-c` would find first
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _site_with_both(tmp_path: Path, *, theirs_last: bool) -> Path:
    """A site-packages folder holding this package and the other's metadata; with
    ``theirs_last``, the other's ``__init__.py`` in place of ours, as pip leaves it."""
    site = tmp_path / "site-packages"
    shutil.copytree(
        PACKAGE, site / "langgraph_memory", ignore=shutil.ignore_patterns("__pycache__")
    )
    (site / "langgraph_memory-0.1.0.dist-info").mkdir()
    (site / "langgraph_memory-0.1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: langgraph-memory\nVersion: 0.1.0\n"
    )
    if theirs_last:
        (site / "langgraph_memory" / "__init__.py").write_text("from .engine import *\n")
        (site / "langgraph_memory" / "engine.py").write_text("MemoryEngine = object\n")
    return site


def test_the_other_projects_metadata_is_found_and_ours_is_not(tmp_path: Path) -> None:
    assert foreign_install(tmp_path) is None
    (tmp_path / "langgraph_memory_kit-0.3.0.dist-info").mkdir()
    (tmp_path / "__editable__.langgraph_memory_kit-0.3.0.pth").write_text("")
    (tmp_path / "langgraph_memory_kit.egg-info").mkdir()
    assert foreign_install(tmp_path) is None, "this kit's own metadata is no conflict"
    (tmp_path / "Langgraph_Memory-0.1.0.dist-info").mkdir()
    assert foreign_install(tmp_path) == "langgraph-memory 0.1.0"
    with pytest.raises(ConflictingPackageError, match="pip uninstall -y langgraph-memory") as err:
        check_install(tmp_path)
    assert isinstance(err.value, ImportError) and isinstance(err.value, MemoryKitError)


def test_this_checkout_has_no_conflict() -> None:
    check_install()  # the folder this package is installed in


def test_an_import_with_both_installed_fails_saying_what_to_run(tmp_path: Path) -> None:
    site = _site_with_both(tmp_path, theirs_last=False)
    done = _python("import langgraph_memory", site)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "langgraph_memory.errors.ConflictingPackageError: langgraph-memory 0.1.0"
    )
    assert "pip install langgraph-memory-kit" in last


def test_the_command_line_says_so_when_the_other_init_won(tmp_path: Path) -> None:
    site = _site_with_both(tmp_path, theirs_last=True)
    done = _python(
        "from langgraph_memory.cli import main; raise SystemExit(main(['--version']))", site
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: langgraph-memory 0.1.0 is installed in"), done.stderr
    assert "Traceback" not in done.stderr
