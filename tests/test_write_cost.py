"""The write-cost benchmark counts what the write path really calls: on a tiny LoCoMo-shaped
conversation whose costs are counted by hand, and (when the shared data is present) on the
first real LoCoMo conversation against the issue's target."""

from __future__ import annotations

import dataclasses
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


# Calls per turn by variant: extraction (1 for each turn the gate passes) plus reconcile. By
# default a fact whose scope holds nothing yet costs no call: the first fact of each speaker's
# scope (and in batched mode every fact of that turn, decided before any is applied).
CALLS = {
    "per_fact/always_reconcile": {"D1:2": 3, "D1:4": 2, "D1:5": 1, "D2:2": 4, "D2:4": 2},
    "per_fact": {"D1:2": 2, "D1:4": 1, "D1:5": 1, "D2:2": 4, "D2:4": 2},
    "batched/always_reconcile": {"D1:2": 2, "D1:4": 2, "D1:5": 1, "D2:2": 2, "D2:4": 2},
    "batched": {"D1:2": 1, "D1:4": 1, "D1:5": 1, "D2:2": 2, "D2:4": 2},
}
KINDS = {
    "per_fact/always_reconcile": {"extract": 5, "reconcile": 7},
    "per_fact": {"extract": 5, "reconcile": 5},
    "batched/always_reconcile": {"extract": 5, "reconcile": 2, "batch": 2},
    "batched": {"extract": 5, "reconcile": 1, "batch": 1},
}
UNASKED = {
    "per_fact/always_reconcile": 0,
    "per_fact": 2,
    "batched/always_reconcile": 0,
    "batched": 3,
}


@pytest.mark.parametrize("variant", write_cost.VARIANTS, ids=lambda v: v.label)
def test_each_turn_costs_what_the_write_path_promises(
    variant: write_cost.Variant, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    conv = write_cost.conversation(SAMPLE)
    costs, kinds, ops = write_cost.replay(
        conv,
        variant.mode,
        embeddings=embedder,
        workdir=tmp_path,
        always_reconcile=variant.always_reconcile,
    )
    by_turn = {c.dia_id: c for c in costs}
    for dia_id in SKIPPED:
        assert by_turn[dia_id].skipped
        assert by_turn[dia_id].calls == 0 and by_turn[dia_id].prompt_tokens == 0
    for dia_id, k in FACTS.items():
        cost = by_turn[dia_id]
        assert not cost.skipped and cost.facts == k and cost.errors == 0
        assert cost.calls == CALLS[variant.label][dia_id], (dia_id, k, cost.calls)
        assert cost.asked + cost.unasked == k
        assert cost.calls == write_cost.expected_calls(variant.mode, False, cost.asked)
        assert cost.prompt_tokens > 0
    assert sum(c.unasked for c in costs) == UNASKED[variant.label]
    # Every fact became an ADD: by the oracle's answer, or without a call (a failed or
    # misread prompt would have become a NOOP or an extraction error).
    assert ops == {"ADD": 7}
    assert kinds == KINDS[variant.label]


def test_the_rules_model_is_counted_like_any_model(tmp_path: Path, embedder: LocalMiniLM) -> None:
    conv = write_cost.conversation(SAMPLE)
    for always in (False, True):
        costs, kinds, _ = write_cost.replay(
            conv,
            "per_fact",
            embeddings=embedder,
            workdir=tmp_path / str(always),
            model="rules",
            always_reconcile=always,
        )
        assert kinds["extract"] == len(FACTS), "one extraction per turn the gate passes"
        facts = sum(c.facts for c in costs)
        assert facts > 0 and all(c.prompt_tokens == 0 for c in costs), "no prompt to count"
        # Each speaker's scope starts empty: its first fact costs no call, unless always.
        scope_of = {t.dia_id: t.scope for t in conv.turns}
        first = len({scope_of[c.dia_id] for c in costs if c.facts}) if not always else 0
        assert sum(c.unasked for c in costs) == first
        assert kinds["reconcile"] == sum(c.asked for c in costs) == facts - first
        for c in costs:
            assert c.calls == write_cost.expected_calls("per_fact", c.skipped, c.asked)


def test_a_scope_per_session_starts_each_session_empty(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    conv = write_cost.conversation(SAMPLE)
    assert conv.turns[5].scope_by("session") == "session:conv-t-2-Ava"
    costs, _, _ = write_cost.replay(
        conv, "per_fact", embeddings=embedder, workdir=tmp_path, scope_by="session"
    )
    by_turn = {c.dia_id: c for c in costs}
    # Session 2 starts empty: Sam's first fact there and Ava's only one cost no call.
    assert {d: by_turn[d].calls for d in FACTS} == {
        "D1:2": 2,
        "D1:4": 1,
        "D1:5": 1,
        "D2:2": 3,
        "D2:4": 1,
    }


@pytest.mark.slow  # a benchmark's run
def test_report_matches_hand_counts(tmp_path: Path, embedder: LocalMiniLM, capsys: Any) -> None:
    data = tmp_path / "data"
    (data / "locomo").mkdir(parents=True)
    (data / "locomo" / "locomo10.json").write_text(json.dumps([SAMPLE]), encoding="utf-8")
    out = tmp_path / "report.json"

    assert write_cost.main(["--data", str(data), "--out", str(out)]) == 0

    printed = capsys.readouterr().out
    assert "| **mean calls / turn** |" in printed and "target" in printed
    assert "|   reconcile calls / turn |" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["conversations"] == ["conv-t"] and report["gate_recall"] is None
    assert (report["model"], report["scope_by"]) == ("oracle", "user")
    variants = report["variants"]
    assert list(variants) == [v.label for v in write_cost.VARIANTS]
    for label, s in variants.items():
        counts = [s[k] for k in ("turns", "skipped", "extracted_no_facts", "extracted_with_facts")]
        assert counts == [9, 4, 1, 4]
        assert s["skip_share"] == pytest.approx(4 / 9)
        assert s["facts"] == 7
        assert s["mean_facts_per_extracted_turn"] == pytest.approx(7 / 5)
        assert s["mean_facts_per_turn_with_facts"] == pytest.approx(7 / 4)
        assert s["skipped_turns_with_calls"] == 0 and s["turns_off_formula"] == 0
        assert s["extraction_errors"] == 0 and s["observed_facts_on_skipped_turns"] == 0
        calls = sum(CALLS[label].values())
        assert s["calls"] == calls and s["mean_calls_per_turn"] == pytest.approx(calls / 9)
        assert s["facts_added_without_a_call"] == UNASKED[label]
        assert s["facts_asked"] + s["facts_added_without_a_call"] == 7
        step = s["calls_per_turn_by_step"]
        assert step["gate"] == 0 and step["extract"] == pytest.approx(5 / 9)
        assert step["extract"] + step["reconcile"] == pytest.approx(calls / 9)
        assert s["mean_prompt_tokens_per_turn"] == pytest.approx(s["prompt_tokens"] / 9)
        assert s["mean_prompt_tokens_per_call"] == pytest.approx(s["prompt_tokens"] / s["calls"])
    one, batch = variants["per_fact"], variants["batched"]
    # per fact: 2 + 1 + 1 + 4 + 2 calls; batched: 1 + 1 + 1 + 2 + 2
    assert one["mean_calls_per_extracted_turn"] == pytest.approx(10 / 5)
    assert batch["mean_calls_per_extracted_turn"] == pytest.approx(7 / 5)
    assert (one["median_calls_per_turn"], batch["median_calls_per_turn"]) == (1.0, 1.0)
    assert one["median_calls_per_extracted_turn"] == 2.0  # 1, 1, 2, 2, 4
    assert batch["median_calls_per_extracted_turn"] == 1.0  # 1, 1, 1, 2, 2
    assert (one["max_calls_per_turn"], batch["max_calls_per_turn"]) == (4, 2)
    assert report["ratio_batched_over_per_fact"]["calls"] == pytest.approx(7 / 10)
    saved = report["always_reconcile_over_default"]
    assert (saved["per_fact"]["calls_before"], saved["per_fact"]["calls_after"]) == (12, 10)
    assert (saved["batched"]["calls_before"], saved["batched"]["calls_after"]) == (9, 7)
    assert 0 < saved["per_fact"]["ratio_prompt_tokens_after_over_before"] < 1
    # Batching sends the system prompt once instead of once per fact.
    assert 0 < report["ratio_batched_over_per_fact"]["prompt_tokens"] < 1
    assert report["per_conversation"]["conv-t"]["batched"] == {
        "turns": 9,
        "calls": 7,
        "prompt_tokens": batch["prompt_tokens"],
    }


#: The turns of LoCoMo's first conversation the call target is checked on.
TURNS = 200


@pytest.mark.slow  # real benchmark data
def test_real_locomo_meets_the_call_target(tmp_path: Path) -> None:
    if not (SHARED_DATA / write_cost.LOCOMO).exists():
        pytest.skip(f"benchmark data not found at {SHARED_DATA} (it is not shipped)")
    (whole,) = write_cost.load_locomo(SHARED_DATA / write_cost.LOCOMO, 1)
    # Its first 200 turns (of 419; ten sessions, 86 facts): the whole took ~2.5 minutes of
    # the slow tier, and the benchmark itself (`python -m benchmarks write-cost`) replays all.
    conv = dataclasses.replace(whole, turns=whole.turns[:TURNS])
    report = write_cost.run([conv], variants=[write_cost.Variant("batched")])
    batched = report["variants"]["batched"]
    assert batched["turns"] == TURNS
    assert batched["mean_calls_per_turn"] <= 2
    assert batched["skipped_turns_with_calls"] == 0
    assert batched["turns_off_formula"] == 0 and batched["extraction_errors"] == 0
    # The first fact of each speaker's scope is added without a call.
    assert batched["facts_added_without_a_call"] >= 2


def test_prompt_tokens_asked_after_every_call_count_each_prompt_once() -> None:
    """The replay asks for the tokens after every turn: each prompt counts once, those
    of a bound copy's calls too, and the total is every prompt's."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from langgraph_memory.testing import ScriptedChatModel, count_tokens

    chat = ScriptedChatModel(default="ok")
    bound = chat.bind_tools([])
    prompts = [
        [SystemMessage("Extract durable facts."), HumanMessage("I moved to Pune in May.")],
        [HumanMessage("My sister Ana is a nurse in Lisbon.")],
        [SystemMessage("Decide ADD, UPDATE, DELETE or NOOP."), HumanMessage("Lives in Pune.")],
    ]
    seen = []
    for n, prompt in enumerate(prompts):
        (bound if n % 2 else chat).invoke(prompt)
        seen.append(chat.prompt_tokens)
    expected = [sum(count_tokens(str(m.content)) for m in p) for p in prompts]
    assert seen == [sum(expected[: n + 1]) for n in range(len(prompts))]
    assert chat.calls == 3 and chat.prompt_tokens == sum(expected) > 0
