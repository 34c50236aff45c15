"""Ending a benchmark run: the report's total time, its Markdown on stdout, its JSON in a file.

>>> import tempfile, time
>>> from pathlib import Path
>>> out = Path(tempfile.mkdtemp()) / "r.json"
>>> publish({"x": 1}, began=time.perf_counter(), out=out, render=lambda r: f"x = {r['x']}")
x = 1
0
>>> sorted(json.loads(out.read_text()))
['total_seconds', 'x']
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["machine", "publish"]


def publish(
    report: dict[str, Any],
    *,
    began: float,
    out: Path | None,
    render: Callable[[dict[str, Any]], str],
) -> int:
    """Add ``total_seconds`` (since ``began``, a ``perf_counter`` time), print the
    rendered report, write it as JSON to ``out`` when given; the exit status (0)."""
    report["total_seconds"] = time.perf_counter() - began
    print(render(report))
    if out:
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def machine(embedder: str) -> dict[str, Any]:
    """What a report was measured with: the embedder's name, the CPUs, the Python.

    >>> sorted(machine("hashed-fake"))
    ['cpus', 'embedder', 'python']
    """
    return {"embedder": embedder, "cpus": os.cpu_count(), "python": platform.python_version()}
