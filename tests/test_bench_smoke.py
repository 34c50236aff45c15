"""The store benchmark still runs end to end (tiny sizes; no timing is asserted:
benchmarks measure, tests check behaviour)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.plots import draw

# Benchmarks' smoke runs (subprocesses): the slow tier.
pytestmark = pytest.mark.slow

PNG = b"\x89PNG\r\n\x1a\n"


def test_store_latency_bench_runs_and_reports_ratios(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    args = ["--sizes", "200", "--scopes", "3", "--per-scope", "100", "--queries", "8"]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.store_latency",
            *args,
            "--skip-real",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "naive filtered / ours" in run.stdout
    report = json.loads(out.read_text())
    [size] = report["single"]["queries"]
    assert size["size"] == 200 and size["ratio_ours_over_raw"]["p50"] > 0
    # The read path (retrieve: candidates, blend, touch) is timed beside the bare query.
    assert size["read"]["p50_ms"] > 0 and "read path" in run.stdout
    many = report["many"]
    assert many["total"] == 300 and many["naive_filtered_results_in_scope"] == 1.0
    assert many["ratio_naive_filtered_over_ours"]["p50"] > 0
    assert many["read"]["p50_ms"] > 0
    # The results draw as a chart (python -m benchmarks.plots).
    assert draw(report, tmp_path, "store").read_bytes()[:8] == PNG


def test_import_bench_says_which_imports_bring_chroma(tmp_path: Path) -> None:
    from benchmarks import import_time

    out = tmp_path / "imports.json"
    assert import_time.main(["--repeat", "1", "--out", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["imports"]
    assert set(rows) == set(import_time.IMPORTS)
    assert rows[import_time.FLOOR]["ratio_to_floor"] == 1.0
    assert not rows[import_time.OURS]["loads_chromadb"], "the graph names load no Chroma"
    assert rows["from langgraph_memory import MemoryStore"]["loads_chromadb"]
