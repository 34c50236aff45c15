"""The concurrency benchmark (``python -m benchmarks concurrency``) end to end, tiny.

No timing is asserted (benchmarks measure, tests check behaviour): both phases ran every
person's turns through the graph, the loop's stall was watched, the targets are made of
that run's figures, the Markdown renders. It reads LongMemEval-S from ``../shared/data``
(skipped where it is absent).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED_DATA, data_file

from benchmarks import __main__ as dispatcher
from benchmarks import concurrency
from benchmarks.datasets import DATASETS


def test_bad_arguments_are_refused() -> None:
    for bad in (["--users", "0"], ["--turns", "0"], ["--think", "-1"], ["--modes", "cloud"]):
        with pytest.raises(SystemExit):
            concurrency.parse_args(bad)
    assert concurrency.parse_args(["--quick"]).plan == concurrency.QUICK


def test_the_loop_watch_sees_a_blocked_loop() -> None:
    async def blocked() -> dict[str, float]:
        watch = concurrency.LoopWatch()
        watch.start()
        await asyncio.sleep(0.05)
        import time

        time.sleep(0.2)  # the loop held: the watch's next wake is late by about this
        await asyncio.sleep(0.05)
        return await watch.stop()

    stall = asyncio.run(blocked())
    assert stall["max_ms"] >= 150 and stall["n"] >= 3


@pytest.mark.slow  # a benchmark's run on real data
def test_tiny_run_end_to_end(tmp_path: Path) -> None:
    data_file(DATASETS["longmemeval-s"])  # skips where the data is absent
    out = tmp_path / "concurrency.json"
    argv = ["concurrency", "--data", str(SHARED_DATA), "--users", "6", "--turns", "2"]
    assert dispatcher.main([*argv, "--think", "0.05", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [m["mode"] for m in report["modes"]] == ["embedded", "server"]
    for mode in report["modes"]:
        check_mode(mode)


def check_mode(report: dict[str, Any]) -> None:
    assert set(report["reads"]) == {"sync", "async"}
    for read, phases in report["reads"].items():
        assert phases["together"]["people"] == 6 and phases["together"]["turns"] == 12
        assert phases["alone"]["people"] == 1 and phases["alone"]["turns"] == 10
        for phase in ("alone", "together"):
            r = phases[phase]
            assert 0 < r["turn"]["p50_ms"] <= r["turn"]["p95_ms"] and r["stall"]["n"] > 0
        ratio = phases["together"]["turn"]["p95_ms"] / phases["alone"]["turn"]["p95_ms"]
        assert report["targets"][read][1]["value"] == pytest.approx(ratio)
