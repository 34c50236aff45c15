"""The component-evaluation fixtures and their scorer (benchmarks.components).

The scorer is checked against models whose answers are known: an oracle that
answers every case as expected (100%), and wrong models whose failures can be
predicted case by case. The rules model and a scripted chat model are run only
to show the scorer works with real MemoryModels; their scores are printed, not
asserted (the rules model is a fallback, not the quality path).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks.components import (
    DEFAULT_EXTRACTION,
    DEFAULT_RECONCILE,
    TARGETED,
    CaseResult,
    ExtractionCase,
    ReconcileCase,
    Role,
    by_tag,
    load_extraction,
    load_reconcile,
    main,
    report,
    score_extraction,
    score_reconcile,
)
from langgraph_memory import DecisionOp, Memory
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import (
    ChatMemoryModel,
    Choice,
    Extraction,
    Fact,
    MemoryModel,
    Turn,
)
from langgraph_memory.write.rules import RulesModel

EXTRACTION = load_extraction(DEFAULT_EXTRACTION)
RECONCILE = load_reconcile(DEFAULT_RECONCILE)

#: What the fixtures promise to cover; a tag dropped by an edit should fail loudly.
EXTRACTION_TAGS = {
    "name", "location", "move", "work", "diet", "allergy", "preference", "relationship",
    "other-person", "plan", "relative-date", "remember", "no-longer", "small-talk",
    "greeting", "thanks", "question", "multi-fact", "assistant-only", "compound",
    "conversation-only",
}  # fmt: skip
RECONCILE_TAGS = {
    "change", "refinement", "restatement", "paraphrase", "other-person", "plan", "negation",
    "unrelated", "empty", "not-first", "flip", "number", "date-change", "duplicate",
}  # fmt: skip


def _first(pattern: str) -> str:
    return pattern.split("|")[0]


def _key(turn: Turn) -> tuple[tuple[Role, str], ...]:
    return tuple((m.role, m.content) for m in turn.messages)


class Oracle:
    """A MemoryModel that answers every fixture case as the case expects."""

    name = "oracle"

    def __init__(self, extraction: Sequence[ExtractionCase], reconcile: Sequence[ReconcileCase]):
        self.turns = {tuple(c.messages): c for c in extraction}
        self.facts = {(c.fact, c.memories): c for c in reconcile}

    def extract(self, turn: Turn, *, roles: Sequence[Role]) -> Extraction:
        case = self.turns[_key(turn)]
        # One fact per matcher, made of its required words: if that trips a "none"
        # of the same case, the case cannot be passed and the fixture is wrong.
        texts = [
            "User " + " ".join([_first(p) for p in m.any_of[:1]] + [_first(p) for p in m.all_of])
            for m in case.expect
        ]
        return Extraction(tuple(Fact(t + ".") for t in texts))

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        case = self.facts[(fact.text, tuple(m.text for m in shown))]
        op = case.ops[0]
        text = (
            fact.text
            if op is not DecisionOp.UPDATE
            else f"{shown[case.target or 0].text} {fact.text}"
        )
        return Choice(op.value, case.target, text)

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        return [self.choose(f, shown, today=today) for f in facts]


class Wrong(Oracle):
    """Silent on extraction; NOOP, or the oracle's answer one index off, on reconcile."""

    def __init__(self, mode: str) -> None:
        super().__init__(EXTRACTION, RECONCILE)
        self.mode = mode

    def extract(self, turn: Turn, *, roles: Sequence[Role]) -> Extraction:
        if self.mode == "unusable":
            return Extraction((), raw="<html>", error="not JSON")
        return Extraction(())

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        right = super().choose(fact, shown, today=today)
        if self.mode == "noop":
            return Choice("NOOP")
        shifted = right.index + 1 if isinstance(right.index, int) else None
        return Choice(right.op, shifted, right.text)


class Raising(Oracle):
    """A model whose every call fails."""

    def __init__(self) -> None:
        super().__init__(EXTRACTION, RECONCILE)

    def extract(self, turn: Turn, *, roles: Sequence[Role]) -> Extraction:
        raise TimeoutError("model down")

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        raise TimeoutError("model down")


def _failed(results: Sequence[CaseResult]) -> set[str]:
    return {r.id for r in results if not r.passed}


# -- the fixtures ------------------------------------------------------------------------------


def test_fixtures_have_enough_valid_cases() -> None:
    # The loaders check the schema (unique ids, roles, ops, targets in range).
    assert len(EXTRACTION) >= 40
    assert len(RECONCILE) >= 40
    assert all(c.tags for c in EXTRACTION) and all(c.tags for c in RECONCILE)
    assert {t for c in EXTRACTION for t in c.tags} >= EXTRACTION_TAGS
    assert {t for c in RECONCILE for t in c.tags} >= RECONCILE_TAGS
    nothing = [c for c in EXTRACTION if not c.expect]
    assert nothing and all(c.max_facts == 0 for c in nothing)
    for case in RECONCILE:
        assert case.target is None or 0 <= case.target < len(case.memories)
        if not case.memories:
            assert set(case.ops) <= {DecisionOp.ADD, DecisionOp.NOOP}, case.id


def test_every_case_is_unique_to_its_key() -> None:
    # The oracle looks cases up by what the model is shown; two cases with the
    # same input and different expectations could not both be right.
    assert len({c.messages for c in EXTRACTION}) == len(EXTRACTION)
    assert len({(c.fact, c.memories) for c in RECONCILE}) == len(RECONCILE)


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ({"expect": {"op": "MERGE", "target": None}}, "op must be"),
        ({"expect": {"op": "UPDATE", "target": 3}}, "not an index"),
        ({"expect": {"op": "DELETE", "target": None}}, "need an int target"),
        ({"expect": {"op": "ADD", "target": 0}}, "name no target"),
        ({"id": ""}, "id must be"),
    ],
)
def test_bad_reconcile_rows_are_refused(tmp_path: Path, row: dict[str, Any], error: str) -> None:
    good = {"id": "a", "fact": "User is vegan.", "date": "2026-03-02T10:00:00+00:00",
            "memories": ["User eats meat."], "expect": {"op": "ADD", "target": None}}  # fmt: skip
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "b", **row}) + "\n")
    with pytest.raises(ValueError, match=rf"r.jsonl:2: .*{error}"):
        load_reconcile(path)


def test_bad_extraction_rows_are_refused(tmp_path: Path) -> None:
    row = {"id": "a", "turn": [{"role": "user", "content": "hi"}],
           "date": "2026-03-02T10:00:00+00:00", "expect": []}  # fmt: skip
    path = tmp_path / "e.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(ValueError, match=r"e\.jsonl:2: duplicate id 'a'"):
        load_extraction(path)
    path.write_text(json.dumps({**row, "turn": [{"role": "bot", "content": "hi"}]}) + "\n")
    with pytest.raises(ValueError, match="needs a role"):
        load_extraction(path)
    path.write_text(json.dumps({**row, "expect": [{"none": ["x"]}]}) + "\n")
    with pytest.raises(ValueError, match="would match anything"):
        load_extraction(path)


# -- the scorer --------------------------------------------------------------------------------


def test_the_oracle_passes_every_case() -> None:
    oracle = Oracle(EXTRACTION, RECONCILE)
    assert isinstance(oracle, MemoryModel)
    for results in (score_extraction(oracle, EXTRACTION), score_reconcile(oracle, RECONCILE)):
        assert [r.reason for r in results if not r.passed] == []
        assert by_tag(results)["(all)"].rate == 1.0


def test_a_silent_extractor_fails_exactly_the_cases_that_expect_facts() -> None:
    results = score_extraction(Wrong("silent"), EXTRACTION)
    expected = {c.id for c in EXTRACTION if c.expect or (c.min_facts or 0) > 0}
    assert _failed(results) == expected
    assert all(r.reason.startswith("no fact matches") for r in results if not r.passed)


def test_an_unusable_answer_fails_even_where_nothing_is_expected() -> None:
    results = score_extraction(Wrong("unusable"), EXTRACTION)
    assert _failed(results) == {c.id for c in EXTRACTION}
    assert {r.reason for r in results} == {"unusable answer: not JSON"}


def test_always_noop_fails_exactly_the_cases_that_want_a_change() -> None:
    results = score_reconcile(Wrong("noop"), RECONCILE)
    assert _failed(results) == {c.id for c in RECONCILE if DecisionOp.NOOP not in c.ops}


def test_an_index_off_by_one_fails_exactly_the_targeted_cases() -> None:
    results = score_reconcile(Wrong("shifted"), RECONCILE)
    assert _failed(results) == {c.id for c in RECONCILE if c.ops[0] in TARGETED}
    # The validated decision is what is judged: a shifted index can point past
    # the shown list, or at a memory unrelated to the fact ("User likes tea." for
    # "User lives in Pune."), and then validation turns UPDATE into ADD, DELETE into NOOP.
    by_id = {r.id: r for r in results}
    assert by_id["change-location"].got["op"] == "ADD"
    assert by_id["change-location-third"].got["op"] == "ADD"


def test_a_raising_model_fails_every_case_and_the_run_goes_on() -> None:
    for results in (score_extraction(Raising(), EXTRACTION), score_reconcile(Raising(), RECONCILE)):
        assert not any(r.passed for r in results)
        assert all(r.reason == "the model raised TimeoutError: model down" for r in results)


def test_the_report_has_a_line_per_case_and_a_row_per_tag() -> None:
    results = score_reconcile(Wrong("noop"), RECONCILE[:5])
    text = report(results, "noop")
    assert sum(line.startswith(("PASS ", "FAIL ")) for line in text.splitlines()) == 5
    assert all(f"| {t} |" in text for r in results for t in r.tags)


# -- real models, to show they run -------------------------------------------------------------


def test_the_rules_model_runs_on_every_case() -> None:

    rules = RulesModel()
    for name, results, cases in (
        ("extraction", score_extraction(rules, EXTRACTION), EXTRACTION),
        ("reconcile", score_reconcile(rules, RECONCILE), RECONCILE),
    ):
        assert [r.id for r in results] == [c.id for c in cases]
        total = by_tag(results)["(all)"]
        print(f"rules model, {name}: {total.passed}/{total.total} ({total.rate:.0%})")


def test_a_chat_model_runs_through_the_prompts() -> None:
    oracle = Oracle(EXTRACTION, RECONCILE)
    turns, facts = EXTRACTION[:3], RECONCILE[:3]
    script: list[Any] = [
        {"facts": [{"text": f.text, "importance": 6, "speaker": "user"}
                   for f in oracle.extract(c.turn(), roles=("user",)).facts]}
        for c in turns
    ]  # fmt: skip
    chat = ScriptedChatModel(script=script)
    # A bare chat model is accepted and put behind the prompts (memory_model).
    assert all(r.passed for r in score_extraction(chat, turns))
    assert chat.calls == len(turns)
    answers = []
    for c in facts:
        choice = oracle.choose(Fact(c.fact), c.shown(), today=c.date)
        answers.append({"op": choice.op, "id": choice.index, "text": choice.text})
    chat = ScriptedChatModel(script=[*answers, "I am not sure."])
    results = score_reconcile(ChatMemoryModel(chat), [*facts, RECONCILE[-1]])
    assert [r.passed for r in results] == [True, True, True, False]
    assert results[-1].reason.startswith("no usable answer")


def test_the_command_line_writes_every_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    assert main(["--rules", "--only", "reconcile", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"## reconcile (rules, {DEFAULT_RECONCILE.name})" in printed
    assert "| (all) |" in printed
    data = json.loads(out.read_text())
    assert data["model"] == "rules"
    assert "extraction" not in data
    assert [r["id"] for r in data["reconcile"]["results"]] == [c.id for c in RECONCILE]
