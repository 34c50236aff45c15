"""The write-cost benchmark counts what the write path really calls: on a tiny LoCoMo-shaped
conversation whose costs are counted by hand, and (when the shared data is present) on the
first real LoCoMo conversation against the issue's target."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import write_cost
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.write.steps import may_hold_fact

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _turn(dia_id: str, speaker: str, text: str) -> dict[str, str]:
    return {"speaker": speaker, "dia_id": dia_id, "text": text}


# Facts per turn: D1:2 -> 2, D1:4 -> 1, D1:5 -> 0 (passes the gate, nothing observed),
# D2:2 -> 3, D2:4 -> 1; D1:1, D1:3, D2:1 and D2:3 are small talk or questions the gate skips.
# Two citations are in LoCoMo's odd shapes: a list (first id counts) and a comma-joined string.
SAMPLE: dict[str, Any] = {
    "sample_id": "conv-t",
    "conversation": {
        "speaker_a": "Sam",
        "speaker_b": "Ava",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            _turn("D1:1", "Sam", "Hey Ava! How are you?"),
            _turn(
                "D1:2",
                "Ava",
                "Hi Sam! I adopted a puppy last week and my sister helped me pick her.",
            ),
            _turn("D1:3", "Sam", "Wow, that's so cool!"),
            _turn("D1:4", "Sam", "I started a pottery class and I love it."),
            _turn("D1:5", "Ava", "The weather was great at the lake."),
        ],
        "session_2_date_time": "10:00 am on 20 May, 2023",
        "session_2": [
            _turn("D2:1", "Ava", "Thanks!"),
            _turn(
                "D2:2",
                "Sam",
                "My kids love painting; we go to the park every Sunday and I teach them sketching.",
            ),
            _turn("D2:3", "Ava", "Where did you go?"),
            _turn("D2:4", "Ava", "I moved to Pune last month."),
        ],
        # conv-26 has date keys without sessions; they must be ignored.
        "session_3_date_time": "9:00 am on 1 June, 2023",
    },
    "observation": {
        "session_1_observation": {
            "Ava": [
                ["Ava adopted a puppy in early May 2023.", "D1:2"],
                ["Ava's sister helped Ava pick her puppy.", "D1:2"],
            ],
            "Sam": [["Sam started a pottery class and loves it.", "D1:4"]],
        },
        "session_2_observation": {
            "Sam": [
                ["Sam's kids love painting.", "D2:2"],
                ["Sam's family goes to the park every Sunday.", "D2:2, D2:4"],
                ["Sam teaches his kids sketching.", "D2:2"],
            ],
            "Ava": [["Ava moved to Pune in April 2023.", ["D2:4", "D1:2"]]],
        },
    },
    "qa": [],
}
FACTS = {"D1:2": 2, "D1:4": 1, "D1:5": 0, "D2:2": 3, "D2:4": 1}
SKIPPED = {"D1:1", "D1:3", "D2:1", "D2:3"}


def test_fixture_is_what_the_comments_say() -> None:
    conv = write_cost.conversation(SAMPLE)
    ids = [f"D1:{i}" for i in range(1, 6)] + [f"D2:{i}" for i in range(1, 5)]
    assert [t.dia_id for t in conv.turns] == ids
    assert {t.dia_id for t in conv.turns if not may_hold_fact(t.text)} == SKIPPED
    assert {t.dia_id: len(t.facts) for t in conv.turns if t.facts} == {
        k: v for k, v in FACTS.items() if v
    }
    assert conv.orphan_facts == 0
    first, second = conv.turns[0], conv.turns[1]
    assert first.scope == "user:conv-t-Sam" and second.scope == "user:conv-t-Ava"
    assert (second.when - first.when).total_seconds() == 1  # one second per turn keeps order
    assert conv.turns[5].when.isoformat() == "2023-05-20T10:00:00+00:00"


@pytest.mark.parametrize("mode", write_cost.MODES)
def test_each_turn_costs_what_the_write_path_promises(
    mode: write_cost.Reconcile, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    conv = write_cost.conversation(SAMPLE)
    costs, kinds, ops = write_cost.replay(conv, mode, embeddings=embedder, workdir=tmp_path)
    by_turn = {c.dia_id: c for c in costs}
    for dia_id in SKIPPED:
        assert by_turn[dia_id].skipped
        assert by_turn[dia_id].calls == 0 and by_turn[dia_id].prompt_tokens == 0
    for dia_id, k in FACTS.items():
        cost = by_turn[dia_id]
        assert not cost.skipped and cost.facts == k and cost.errors == 0
        expected = 1 + k if mode == "per_fact" else (1 if k == 0 else 2)
        assert cost.calls == expected, (dia_id, k, cost.calls)
        assert cost.prompt_tokens > 0
    # Every fact was reconciled by the oracle into an ADD (a failed or misread prompt would
    # have become a NOOP or an extraction error).
    assert ops == {"ADD": 7}
    if mode == "per_fact":
        assert kinds == {"extract": 5, "reconcile": 7}
    else:  # batches for the turns with 2 and 3 facts; single facts use the one-fact prompt
        assert kinds == {"extract": 5, "reconcile": 2, "batch": 2}


def test_report_matches_hand_counts(tmp_path: Path, embedder: LocalMiniLM, capsys: Any) -> None:
    data = tmp_path / "data"
    (data / "locomo").mkdir(parents=True)
    (data / "locomo" / "locomo10.json").write_text(json.dumps([SAMPLE]), encoding="utf-8")
    out = tmp_path / "report.json"

    assert write_cost.main(["--data", str(data), "--out", str(out)]) == 0

    printed = capsys.readouterr().out
    assert "| **mean calls / turn** |" in printed and "target" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["conversations"] == ["conv-t"] and report["gate_recall"] is None
    one, batch = report["modes"]["per_fact"], report["modes"]["batched"]
    for s in (one, batch):
        counts = [s[k] for k in ("turns", "skipped", "extracted_no_facts", "extracted_with_facts")]
        assert counts == [9, 4, 1, 4]
        assert s["skip_share"] == pytest.approx(4 / 9)
        assert s["facts"] == 7
        assert s["mean_facts_per_extracted_turn"] == pytest.approx(7 / 5)
        assert s["mean_facts_per_turn_with_facts"] == pytest.approx(7 / 4)
        assert s["skipped_turns_with_calls"] == 0 and s["turns_off_formula"] == 0
        assert s["extraction_errors"] == 0 and s["observed_facts_on_skipped_turns"] == 0
    # per fact: 3 + 2 + 1 + 4 + 2 calls; batched: 2 + 2 + 1 + 2 + 2
    assert one["calls"] == 12 and batch["calls"] == 9
    assert one["mean_calls_per_turn"] == pytest.approx(12 / 9)
    assert batch["mean_calls_per_turn"] == pytest.approx(1.0)
    assert one["mean_calls_per_extracted_turn"] == pytest.approx(12 / 5)
    assert batch["mean_calls_per_extracted_turn"] == pytest.approx(9 / 5)
    assert (one["median_calls_per_turn"], batch["median_calls_per_turn"]) == (1.0, 1.0)
    assert one["median_calls_per_extracted_turn"] == 2.0  # 1, 2, 2, 3, 4
    assert batch["median_calls_per_extracted_turn"] == 2.0  # 1, 2, 2, 2, 2
    assert (one["max_calls_per_turn"], batch["max_calls_per_turn"]) == (4, 2)
    assert report["ratio_batched_over_per_fact"]["calls"] == pytest.approx(9 / 12)
    for s in (one, batch):
        assert s["mean_prompt_tokens_per_turn"] == pytest.approx(s["prompt_tokens"] / 9)
        assert s["mean_prompt_tokens_per_call"] == pytest.approx(s["prompt_tokens"] / s["calls"])
    # Batching sends the system prompt once instead of once per fact.
    assert 0 < report["ratio_batched_over_per_fact"]["prompt_tokens"] < 1
    assert report["per_conversation"]["conv-t"]["batched"] == {
        "turns": 9,
        "calls": 9,
        "prompt_tokens": batch["prompt_tokens"],
    }


def test_real_locomo_meets_the_call_target(tmp_path: Path) -> None:
    if not (SHARED_DATA / write_cost.LOCOMO).exists():
        pytest.skip(f"benchmark data not found at {SHARED_DATA} (it is not shipped)")
    out = tmp_path / "report.json"
    args = ["--data", str(SHARED_DATA), "--convs", "1", "--no-gate-recall", "--out", str(out)]
    assert write_cost.main(args) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    batched = report["modes"]["batched"]
    assert batched["turns"] > 100
    assert batched["mean_calls_per_turn"] <= 2
    for s in report["modes"].values():
        assert s["skipped_turns_with_calls"] == 0
        assert s["turns_off_formula"] == 0 and s["extraction_errors"] == 0
