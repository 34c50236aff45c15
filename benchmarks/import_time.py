"""What importing the kit's graph names costs, against LangGraph's own imports, in one run.

Run (about a minute on 2 cores, idle)::

    python -m benchmarks imports --out import_time.json
    python -m benchmarks imports --repeat 5      # a quick look

Each round runs every import once, in turn, as a fresh interpreter (``sys.executable
-c ...``), so a busy machine slows them alike. Reported per import: median and worst
wall time, the median's ratio to ``import langgraph.graph`` (what any LangGraph app
imports first), and whether ``chromadb`` came with it. The kit's line is what a
graph that adds memory imports, ``from langgraph_memory import add_memory,
MemoryMiddleware, memory_tools``: it must load no Chroma (building a ``MemoryStore``
does) and take at most ``BUDGET_S`` on an idle machine. Baselines: the bare
interpreter, ``import langgraph`` (a namespace package: nearly nothing),
``import langgraph.graph``, ``from langchain.agents import create_agent`` (what
``MemoryMiddleware`` plugs into), the three names' dependencies together (what they
cost before any module of the kit loads), and ``from langgraph_memory import
MemoryStore`` (the store, with Chroma).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.reports import publish

#: The import the ratios are against.
FLOOR = "import langgraph.graph"
#: The kit's graph names: what a graph that adds memory imports.
OURS = "from langgraph_memory import add_memory, MemoryMiddleware, memory_tools"
#: What the kit's graph names import of others (LangGraph's graph, langchain's agents for
#: the middleware, LangChain's tools): the kit's own cost is the difference.
DEPENDENCIES = "their dependencies alone"
#: Seconds the kit's graph import may take on an idle machine (issue 21).
BUDGET_S = 0.8
IMPORTS = {
    "python -c pass": "pass",
    "import langgraph": "import langgraph",
    FLOOR: FLOOR,
    "from langchain.agents import create_agent": "from langchain.agents import create_agent",
    DEPENDENCIES: "import langgraph.graph, langchain.agents, langchain_core.tools",
    OURS: OURS,
    "from langgraph_memory import MemoryStore": "from langgraph_memory import MemoryStore",
}
_PROBE = "\nimport sys, json\nprint(json.dumps('chromadb' in sys.modules))"


def once(code: str) -> tuple[float, bool]:
    """Seconds a fresh interpreter takes to run ``code`` and exit, and whether it
    loaded chromadb; it must succeed."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code + _PROBE], check=True, capture_output=True, timeout=300
    )
    seconds = time.perf_counter() - began
    return seconds, bool(json.loads(done.stdout.decode().strip().splitlines()[-1]))


def measure(repeat: int) -> dict[str, dict[str, Any]]:
    """``repeat`` rounds, each running every import once, in turn."""
    times: dict[str, list[float]] = {name: [] for name in IMPORTS}
    chroma: dict[str, bool] = {}
    for _ in range(repeat):
        for name, code in IMPORTS.items():
            seconds, loaded = once(code)
            times[name].append(seconds)
            chroma[name] = loaded
    floor = statistics.median(times[FLOOR])
    return {
        name: {
            "median_s": statistics.median(t),
            "max_s": max(t),
            "ratio_to_floor": statistics.median(t) / floor,
            "loads_chromadb": chroma[name],
            "seconds": t,
        }
        for name, t in times.items()
    }


def render(report: dict[str, Any]) -> str:
    """The results as a Markdown table.

    >>> row = {"median_s": 0.5, "max_s": 0.6, "ratio_to_floor": 1.0, "loads_chromadb": False}
    >>> print(render({"repeat": 1, "imports": {FLOOR: row}}).splitlines()[-1])
    | `import langgraph.graph` | 0.50 | 0.60 | 1.00 | no |
    """
    lines = [
        f"import wall time, fresh interpreter, {report['repeat']} rounds "
        f"(ratio: median over `{FLOOR}`'s median)",
        "",
        "| import | median s | max s | ratio | chromadb |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, row in report["imports"].items():
        lines.append(
            f"| `{name}` | {row['median_s']:.2f} | {row['max_s']:.2f} | "
            f"{row['ratio_to_floor']:.2f} | {'yes' if row['loads_chromadb'] else 'no'} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=11, help="rounds (default 11)")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    began = time.perf_counter()
    imports = measure(args.repeat)
    report = {"repeat": args.repeat, "budget_s": BUDGET_S, "imports": imports}
    return publish(report, began=began, out=args.out, render=render)


if __name__ == "__main__":
    raise SystemExit(main())
