"""The working-memory benchmark (benchmarks/window.py): a tiny run end to end.

The tiny run needs no benchmark data (the LoCoMo part replays the project's own mini
fixture); the run through the dispatcher reads ../shared/data and skips without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA, data_file
from langchain_core.embeddings import DeterministicFakeEmbedding

from benchmarks import __main__ as dispatcher
from benchmarks import window
from benchmarks.datasets import DATASETS, load_locomo
from benchmarks.plots import draw, kind_of

# A benchmark's smoke runs: the slow tier.
pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "eval" / "locomo_mini.json"
#: Varied user lines, long enough that a dozen of them overflow a small budget.
POOL = [
    "We finally booked the cabin by the lake for the last weekend of June.",
    "Can you suggest a vegetarian dinner that takes under thirty minutes?",
    "My manager moved the quarterly review to Thursday afternoon, which is annoying.",
    "I started learning the cello again after ten years away from it.",
    "The kids want a dog, but our flat does not allow pets over ten kilos.",
    "How long should I rest between sets when training for strength?",
]
BUDGET = 120


def test_tiny_run_keeps_the_window_within_budget() -> None:
    conversation = load_locomo(FIXTURE)[0]
    report = window.run(
        POOL, conversation, turns=14, budget=BUDGET, embeddings=DeterministicFakeEmbedding(size=16)
    )
    assert report["config"]["budget"] == BUDGET and report["config"]["turns"] == 14
    thread = report["thread"]
    w, f = thread["window"], thread["full"]
    for side in (w, f):
        assert len(side["prompt_tokens"]) == len(side["thread_tokens"]) == 14
        assert len(side["latency_ms"]) == 14 and side["p50_ms"] > 0
        assert all(
            p >= t for p, t in zip(side["prompt_tokens"], side["thread_tokens"], strict=True)
        )
        assert side["fact_found"], "the turn-3 fact must be found through memory"
    # The window keeps the thread within budget on every turn; the full history grows.
    assert thread["within_budget"] and max(w["thread_tokens"]) <= BUDGET
    assert thread["turns_over_budget"] == 0
    assert f["thread_tokens"] == sorted(f["thread_tokens"]) and f["thread_tokens"][-1] > 3 * BUDGET
    assert w["window"]["folds"] > 0 and w["window"]["summary_calls"] == 0
    assert f["window"] is None
    assert "peanut" in w["answer"]
    loco = report["locomo"]
    assert loco["sample_id"] == conversation.sample_id and loco["turns"] == 5
    assert loco["questions"] > 0
    assert loco["window"]["recall_at_10"] == pytest.approx(loco["full"]["recall_at_10"])
    markdown = window.render_markdown(report)
    assert f"max_tokens={BUDGET}" in markdown and "**PASS**" in markdown
    assert "recall@10" in markdown
    assert kind_of(json.loads(json.dumps(report))) == "window"


def test_too_few_turns_are_refused() -> None:
    with pytest.raises(ValueError, match="turns"):
        window.run(POOL, None, turns=2, embeddings=DeterministicFakeEmbedding(size=8))


def test_missing_data_says_what_to_put_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dispatcher.main(["window", "--data", str(tmp_path)]) == 2
    assert DATASETS["locomo"] in capsys.readouterr().err


def test_dispatcher_run_on_real_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_file(DATASETS["locomo"])  # skips where the data is absent
    out = tmp_path / "window.json"
    status = dispatcher.main(
        ["window", "--data", str(SHARED_DATA), "--turns", "10", "--budget", "100",
         "--sessions", "1", "--fake-embedder", "--out", str(out)]
    )  # fmt: skip
    assert status == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["thread"]["within_budget"] and report["locomo"]["sessions"] == 1
    assert report["config"]["pool"] == "conv-26" and report["total_seconds"] > 0
    assert "Scripted thread (10 turns" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    assert draw(report, tmp_path, "window").exists()
