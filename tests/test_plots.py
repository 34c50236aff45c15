"""The result charts: every result kind is recognised, bad files get a clear error.

The charts of real results are drawn in the tests that produce them (retrieval CLI, store
and peers benchmarks, QA report); here, the LongMemEval retrieval shape and the errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import plots
from benchmarks.qa_report import ItemResult, to_json

PNG = b"\x89PNG\r\n\x1a\n"


def _lme_result() -> dict[str, object]:
    row = {"n": 3, "cosine:sess_any@5": 1.0, "cosine:turn_any@10": 0.5}
    return {
        "meta": {"dataset": "longmemeval-s", "variants": ["cosine"]},
        "summary": {"multi-session": row, "overall": row},
        "questions": [],
    }


def test_kinds_are_recognised_by_shape() -> None:
    assert plots.kind_of(_lme_result()) == "retrieval"
    assert plots.kind_of({"recall_at_10": {}, "latency": {}}) == "peers"
    r = ItemResult(id="q", dataset="locomo", category="4", question="Q?", gold="Pune",
                   answer="Pune", abstention=False, f1=1.0, abstained=False)  # fmt: skip
    assert plots.kind_of(to_json([r], {"model": "m"})) == "qa"
    assert plots.kind_of({"load": [], "fault": [], "config": {}}) == "multiprocess"
    assert plots.kind_of({"thread": {}, "locomo": None, "config": {}}) == "window"
    assert plots.kind_of({"modes": [], "targets": [], "config": {}}) == "users"
    with pytest.raises(ValueError, match=r"benchmarks\.users or benchmarks\.window"):
        plots.kind_of({"something": 1})
    with pytest.raises(ValueError, match="JSON object"):
        plots.kind_of([1, 2])  # type: ignore[arg-type]


def test_cli_draws_each_file_and_names_the_png_after_it(tmp_path: Path) -> None:
    lme = tmp_path / "lme_s.json"
    lme.write_text(json.dumps(_lme_result()), encoding="utf-8")
    r = ItemResult(id="q", dataset="locomo", category="4", question="Q?", gold="Pune",
                   answer="Pune", abstention=False, f1=1.0, abstained=False,
                   judge_label="CORRECT")  # fmt: skip
    qa = tmp_path / "qa.json"
    qa.write_text(json.dumps(to_json([r], {"model": "m"})), encoding="utf-8")
    assert plots.main([str(lme), str(qa), "--out", str(tmp_path / "png")]) == 0
    assert (tmp_path / "png" / "lme_s.png").read_bytes()[:8] == PNG
    assert (tmp_path / "png" / "qa.png").read_bytes()[:8] == PNG


def test_cli_refuses_a_file_it_cannot_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": "world"}', encoding="utf-8")
    assert plots.main([str(bad), "--out", str(tmp_path)]) == 2
    assert "notes.json" in capsys.readouterr().err
    assert plots.main([str(tmp_path / "missing.json"), "--out", str(tmp_path)]) == 2
    assert not list(tmp_path.glob("*.png"))
