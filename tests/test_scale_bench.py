"""The real-text scale benchmark (``python -m benchmarks scale``) end to end at tiny sizes.

No timing is asserted (benchmarks measure, tests check behaviour): the report has every
component at every size, its ratios and targets are made of the p50s of that same run, the
Markdown and the growth chart render. The run reads LongMemEval-S from ``../shared/data``
(skipped where it is absent) and embeds with the bench's hashed fake into a temporary vector
cache, so no model is needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA, data_file

from benchmarks import __main__ as dispatcher
from benchmarks import scale
from benchmarks.datasets import DATASETS
from benchmarks.plots import draw, kind_of


def _stats(p50: float) -> dict[str, float]:
    return {"p50_ms": p50, "p90_ms": p50, "p95_ms": 2 * p50, "n": 1}


def test_targets_read_the_rows_of_the_run() -> None:
    parts = {"embed": 8.0, "nearest": 2.0, "lexical": 1.0, "lexical_vectors": 1.0,
             "records": 1.0, "graph_plain": 1.0}  # fmt: skip
    rows = [
        scale.size_row(10_000, {**{k: _stats(v) for k, v in parts.items()},
                                "retrieve": _stats(14.0), "graph_read": _stats(16.0)}, {}),
        scale.size_row(100_000, {**{k: _stats(v) for k, v in parts.items()},
                                 "retrieve": _stats(20.0), "graph_read": _stats(22.0)}, {}),
    ]  # fmt: skip
    got = {t["name"]: t for t in scale.evaluate_targets(rows)}
    assert got["retrieve / (embed + nearest) at 10k"]["value"] == pytest.approx(1.4)
    assert got["retrieve / (embed + nearest) at 10k"]["passed"] is True
    assert got["retrieve / (embed + nearest) at 100k"]["passed"] is False  # 2.0x
    assert got["retrieve growth 10k -> 100k"]["value"] == pytest.approx(20 / 14)
    assert got["retrieve growth 10k -> 100k"]["passed"] is False
    assert got["read node / (embed + nearest) at 10k"]["value"] == pytest.approx(1.5)
    assert got["read node / (embed + nearest) at 10k"]["passed"] is True
    assert "retrieve 14.00 ms" in got["retrieve / (embed + nearest) at 10k"]["detail"]
    # Sizes not run are reported as not measured, never as passed.
    assert all(t["passed"] is None for t in scale.evaluate_targets(rows[:0]))


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(SystemExit):
        scale.parse_args(["--sizes", "10"])
    assert scale.parse_args(["--quick"]).plan == scale.QUICK


def test_missing_data_says_what_to_put_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert scale.main(["--data", str(tmp_path), "--quick"]) == 2
    assert DATASETS["longmemeval-s"] in capsys.readouterr().err


@pytest.mark.slow  # a benchmark's run on real data
def test_tiny_run_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_file(DATASETS["longmemeval-s"])  # skips where the data is absent
    out = tmp_path / "scale.json"
    status = dispatcher.main(
        ["scale", "--data", str(SHARED_DATA), "--cache", str(tmp_path / "cache"),
         "--sizes", "500,200", "--scopes", "5", "--per-scope", "20", "--questions", "6",
         "--warmup", "2", "--fake-embedder", "--out", str(out)]
    )  # fmt: skip
    assert status == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["config"]["sizes"] == [200, 500]
    assert [r["size"] for r in report["rows"]] == [200, 500]
    for row in report["rows"]:
        comps = row["components"]
        assert set(comps) == set(scale.COMPONENTS)
        assert all(c["n"] == 6 and 0 < c["p50_ms"] <= c["p95_ms"] for c in comps.values())
        base = comps["embed"]["p50_ms"] + comps["nearest"]["p50_ms"]
        ratios = row["ratios"]
        assert ratios["retrieve_over_embed_nearest"] == pytest.approx(
            comps["retrieve"]["p50_ms"] / base
        )
        node = comps["graph_read"]["p50_ms"] - comps["graph_plain"]["p50_ms"]
        assert ratios["read_node_over_embed_nearest"] == pytest.approx(node / base)
        memory = row["memory"]
        assert memory["memories_in_store"] == row["size"] + 5 * 20
        assert memory["disk_kb_per_memory"] > 0 and memory["rss_mb"] > 0
    first, second = (r["memory"] for r in report["rows"])
    assert first["rss_added_kb_per_memory"] is None and second["disk_added_kb_per_memory"] > 0
    growth = report["growth"][0]
    retrieve = [r["components"]["retrieve"]["p50_ms"] for r in report["rows"]]
    assert growth["retrieve_p50"] == pytest.approx(retrieve[1] / retrieve[0])
    assert [t["passed"] for t in report["targets"]] == [None] * 4  # no 10k or 100k here
    markdown = capsys.readouterr().out
    assert "| `retrieve` (k=5, touch) |" in markdown and "not measured" in markdown
    assert kind_of(report) == "scale"
    pytest.importorskip("matplotlib")
    assert draw(report, tmp_path, "scale").exists()
    # The cache kept the vectors: a second run would embed nothing.
    assert list((tmp_path / "cache").glob("*.npy"))


def test_items_and_candidates_are_the_products() -> None:
    """The benchmark restates two things it may not import (benchmarks use the public API):
    the episode fields the write path stores, and the read's candidate count."""
    from datetime import datetime, timezone

    from benchmarks.ingest import TURN_GAP
    from benchmarks.real_text import RealTurn
    from langgraph_memory.read.retrieve import CANDIDATES_PER_RESULT, MIN_CANDIDATES
    from langgraph_memory.write import Turn
    from langgraph_memory.write.episodes import episode_fields

    assert max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * scale.K) == scale.CANDIDATES
    for role, said in [("user", "I moved to Pune."), ("assistant", "Noted!"), ("user", "Where?")]:
        t = RealTurn(said, role, "s1", 3, 1_700_000_000.0)
        date = datetime.fromtimestamp(t.at, timezone.utc)
        turn = Turn.of([(role, t.text)], when=date + TURN_GAP * 3, turn_id="s1-3", thread_id="s1")
        fields = episode_fields(turn, "user" if role == "user" else "assistant")
        assert scale.episode_items([t]) == [{**(fields or {}), "now": date}]
