"""The reads benchmark (``python -m benchmarks reads``): its scoring, its runs on small
conversations, and its quick mode on the development data when that is present."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchmarks import reads
from benchmarks.datasets import (
    Conversation,
    DialogTurn,
    LmeQuestion,
    LmeSession,
    LmeTurn,
    Question,
    Session,
    load_locomo,
)
from benchmarks.ingest import CachedEmbeddings
from langgraph_memory.embeddings import LocalMiniLM

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
T0 = datetime(2023, 5, 1, 10, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def minilm() -> CachedEmbeddings:
    return CachedEmbeddings(LocalMiniLM())


def conversation() -> Conversation:
    """Four sessions of two friends' small news, with questions about them."""
    said = [
        [
            ("Ana", "My sister just got a puppy, a little beagle."),
            ("Ben", "Cute! I went to a jazz concert."),
        ],
        [
            ("Ana", "I finished the pottery course last week."),
            ("Ben", "I started running in the mornings."),
        ],
        [
            ("Ana", "We painted the kitchen yellow on Sunday."),
            ("Ben", "My knee hurts after the long run."),
        ],
        [
            ("Ana", "The beagle chewed my sister's shoes."),
            ("Ben", "I signed up for a half marathon."),
        ],
    ]
    sessions = tuple(
        Session(
            n + 1,
            T0 + timedelta(days=30 * n),
            tuple(
                DialogTurn(f"D{n + 1}:{i + 1}", who, text) for i, (who, text) in enumerate(turns)
            ),
        )
        for n, turns in enumerate(said)
    )
    questions = (
        Question("What kind of dog did Ana's sister get?", "a beagle", 4, ("D1:1",)),
        Question("What did Ben sign up for?", "a half marathon", 4, ("D4:2",)),
    )
    return Conversation("conv-x", ("Ana", "Ben"), sessions, questions)


# -- scoring ------------------------------------------------------------------------------


def test_a_recorded_change_puts_the_current_value_first(minilm: CachedEmbeddings) -> None:
    home = next(a for a in reads.ATTRIBUTES if a.name == "home")
    # The phrasings the rules model reads as a change: the write path records it.
    recorded = reads.Attribute(
        "home",
        home.question,
        ("I live in {v}.",),
        ("I live in {v} now.",),
        ("Lisbon", "Oslo"),
        home.fact,
    )
    [row] = reads.run_scripted([conversation()], embeddings=minilm, attributes=[recorded])
    assert row["recorded"] is True
    assert row["current_first@1"] and row["current_first@3"] and not row["outdated_unmarked@1"]


def test_a_write_path_that_reads_every_saying_records_every_change(
    minilm: CachedEmbeddings,
) -> None:
    rows = reads.run_scripted([conversation()], embeddings=minilm, understood=True)
    assert len(rows) == len(reads.ATTRIBUTES)
    assert all(r["recorded"] for r in rows), [r["name"] for r in rows if not r["recorded"]]


def test_current_first_counts_an_unmarked_outdated_line_above_the_current_one() -> None:
    from langgraph_memory import Memory

    def said(i: str, turn: str) -> Memory:
        return Memory(
            id=i,
            text=i,
            scope="user:a",
            created_at=T0,
            kind="episodic",
            metadata={"episode": True, "turn_id": turn},
        )

    class Turns(reads.TurnMap):
        def __init__(self) -> None:
            self.units = {"old": ("t1",), "new": ("t2",)}

    lines = [reads.Line(1, said("old", "t1"), False), reads.Line(2, said("new", "t2"), False)]
    assert reads.current_first(lines, Turns(), {"t2"}, {"t1"}) == {
        "current_shown": True,
        "current_first": False,
        "outdated_unmarked": True,
    }
    marked = [reads.Line(1, said("old", "t1"), True), lines[1]]
    assert reads.current_first(marked, Turns(), {"t2"}, {"t1"})["current_first"]
    assert not reads.current_first(lines[:1], Turns(), {"t2"}, {"t1"})["current_first"]


def test_a_knowledge_update_reads_its_current_and_outdated_turns() -> None:
    def session(sid: str, day: int, text: str) -> LmeSession:
        turns = (LmeTurn("user", text, has_answer=True), LmeTurn("assistant", "Nice!"))
        return LmeSession(sid, T0 + timedelta(days=day), turns)

    q = LmeQuestion(
        "q1",
        "knowledge-update",
        "How many bikes do I own?",
        "three",
        T0 + timedelta(days=40),
        (session("s1", 0, "I own two bikes."), session("s2", 30, "I bought a third bike.")),
        ("s1", "s2"),
    )
    change = reads.lme_change(q)
    assert change is not None
    assert (change.current, change.old) == (frozenset({"s2_1"}), frozenset({"s1_1"}))
    single = LmeQuestion(
        q.question_id, q.type, q.question, q.answer, q.question_date, q.sessions[:1], ("s1",)
    )
    assert reads.lme_change(single) is None


# -- the runs ----------------------------------------------------------------------------


def test_a_question_asked_again_finds_what_it_found_first(minilm: CachedEmbeddings) -> None:
    rows = reads.run_repeats([conversation()], embeddings=minilm)
    assert len(rows) == 2
    for row in rows:
        assert row["r@1"] == row["r@2"] == row["r@3"] == 1.0
        assert row["asks_shown@1"] == row["asks_shown@3"] == 0
    assert rows[-1]["duplicate_episodes"] == 0  # each question asked three times: one record


def test_the_mini_locomo_fixture_runs_through_every_part(minilm: CachedEmbeddings) -> None:
    [conv] = load_locomo(FIXTURES / "locomo_mini.json")
    rows = reads.run_repeats([conv], embeddings=minilm)
    assert rows and all(r["r@3"] >= r["r@1"] for r in rows)
    summary = reads.summarize(rows, reads.REPEAT_KEYS)
    assert summary["n"] == len(rows) and summary["asks_shown@3"] == 0.0


@pytest.mark.slow  # about half a minute of replays
@pytest.mark.skipif(not (DATA / "locomo" / "locomo10.json").exists(), reason=f"no {DATA}")
def test_quick_mode_on_the_development_data(tmp_path: Path) -> None:
    out = tmp_path / "reads.json"
    assert reads.main(["--data", str(DATA), "--quick", "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    recorded = result["current"]["all, the write path recorded the change"]
    assert recorded["n"] == 0 or recorded["current_first@1"] == recorded["current_first@3"] == 1.0
    assert result["current"]["all"]["n"] == 22
    repeats = result["repeats"]
    assert repeats["r@3"] >= repeats["r@1"] and repeats["asks_shown@3"] == 0.0
    assert repeats["duplicate_episodes"] == 0
