"""How long a `langgraph-memory` command takes from the shell, against what any
Python program that reads a Chroma store pays first, timed in the same run.

Run (about a minute on 2 cores)::

    python -m benchmarks cli --out cli_startup.json
    python -m benchmarks cli --repeat 3      # a quick look

A small embedded store (two scopes, a fact that changed, a logged decision) is
made once; then each round runs every command and every baseline once, in turn,
as a fresh process (``sys.executable -m langgraph_memory.cli ...``), so a busy
machine slows them alike. Reported per command: median and worst wall time, and
the median's ratio to the ``import chromadb`` baseline: the floor of a command
that opens a Chroma store, since the interpreter must import Chroma first.
Baselines: the bare interpreter, ``import chromadb``, and ``import
langgraph_memory.store`` (Chroma, LangGraph's ``BaseStore``, LangChain's
``Embeddings``: what opening a ``MemoryStore`` imports).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.reports import publish
from langgraph_memory import Decision, DecisionOp, MemoryStore
from langgraph_memory.store import internals

#: The baseline the ratios are against.
FLOOR = "import chromadb"
BASELINES = {"python -c pass": "pass", FLOOR: "import chromadb"}
BASELINES["import langgraph_memory.store"] = "import langgraph_memory.store"


def make_store(path: Path) -> str:
    """A small store like a user's first one; the id of a memory that changed."""
    t0, t1 = datetime(2026, 1, 5, tzinfo=timezone.utc), datetime(2026, 6, 1, tzinfo=timezone.utc)
    with MemoryStore(path) as store:
        home = store.add("user:alice", "User lives in Delhi.", now=t0)
        store.add_many("user:alice", ["User likes tea.", "User's sister lives in Mumbai."], now=t0)
        moved = store.update("user:alice", home.id, "User lives in Pune.", now=t1)
        internals(store).log(
            "user:alice",
            Decision(op=DecisionOp.UPDATE, fact="moved", target_id=home.id, result_id=moved.id),
            now=t1,
        )
        store.add("user:bob", "User is vegan.", now=t0)
    return moved.id


def commands(path: Path, memory_id: str) -> dict[str, list[str]]:
    """Each timed command line, by the name it is reported under."""
    cli = [sys.executable, "-m", "langgraph_memory.cli"]
    where = ["--path", str(path)]
    alice = [*where, "--user", "alice"]
    runs = {name: [sys.executable, "-c", code] for name, code in BASELINES.items()}
    runs |= {
        "show": [*cli, "show", *alice],
        "show --json": [*cli, "show", *alice, "--json"],
        "scopes": [*cli, "scopes", *where],
        "history ID": [*cli, "history", *alice, memory_id],
        "why ID": [*cli, "why", *alice, memory_id],
        "export": [*cli, "export", *alice],
    }
    return runs


def wall(argv: list[str]) -> float:
    """Seconds one command takes, start to exit; it must succeed."""
    began = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, timeout=300)
    return time.perf_counter() - began


def measure(runs: dict[str, list[str]], repeat: int) -> dict[str, list[float]]:
    """``repeat`` rounds, each running every command once, in turn."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, argv in runs.items():
            times[name].append(wall(argv))
    return times


def summarize(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Median and worst per command, and the median over the floor's median."""
    floor = statistics.median(times[FLOOR])
    return {
        name: {
            "median_s": statistics.median(t),
            "max_s": max(t),
            "ratio_to_floor": statistics.median(t) / floor,
        }
        for name, t in times.items()
    }


def render(report: dict[str, Any]) -> str:
    """The results as a Markdown table."""
    lines = [
        f"`langgraph-memory` wall time, {report['repeat']} rounds "
        f"(ratio: median over `{FLOOR}`'s median)",
        "",
        "| command | median s | max s | ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, row in report["commands"].items():
        lines.append(
            f"| {name} | {row['median_s']:.2f} | {row['max_s']:.2f} | {row['ratio_to_floor']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9, help="rounds (default 9)")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cli-startup-") as tmp:
        path = Path(tmp) / "store"
        memory_id = make_store(path)
        times = measure(commands(path, memory_id), args.repeat)
    report = {"repeat": args.repeat, "commands": summarize(times), "seconds": times}
    return publish(report, began=began, out=args.out, render=render)


if __name__ == "__main__":
    raise SystemExit(main())
