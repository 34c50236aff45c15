"""QA runs straight from a benchmark file: questions read, conversations replayed into a
store, resumably (``eval.prepare`` and ``eval.qa --data``), offline."""

from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from benchmarks import qa
from benchmarks.prepare import prepare
from langgraph_memory import MemoryStore, MemoryWriter
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.write.rules import RulesModel

FIXTURES = Path(__file__).parent / "fixtures" / "eval"

#: LongMemEval S's dedup layout: two questions, sessions shared by id.
LME_S = {
    "format": "dedup",
    "missing_question_ids": [],
    "questions": [
        {
            "question_id": "q1",
            "question_type": "knowledge-update",
            "question": "Where do I live now?",
            "answer": "Porto",
            "question_date": "2023/06/01 (Thu) 08:00",
            "haystack_session_ids": ["s1", "s2"],
            "haystack_dates": ["2023/05/20 (Sat) 10:00", "2023/05/28 (Sun) 10:00"],
            "answer_session_ids": ["s2"],
        },
        {
            "question_id": "q2_abs",
            "question_type": "single-session-user",
            "question": "What is my cat called?",
            "answer": "unanswerable",
            "question_date": "2023/06/01 (Thu) 08:00",
            "haystack_session_ids": ["s1"],
            "haystack_dates": ["2023/05/20 (Sat) 10:00"],
            "answer_session_ids": [],
        },
    ],
    "sessions": {
        "s1": [
            {"role": "user", "content": "I live in Lisbon.", "has_answer": False},
            {"role": "assistant", "content": "Lisbon is lovely.", "has_answer": False},
        ],
        "s2": [
            {"role": "user", "content": "I moved to Porto.", "has_answer": True},
            {"role": "assistant", "content": "Congratulations!", "has_answer": False},
        ],
    },
}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A benchmark folder in ../shared/data's layout, holding the mini fixtures."""
    folder = tmp_path / "data"
    (folder / "locomo").mkdir(parents=True)
    (folder / "longmemeval").mkdir()
    shutil.copy(FIXTURES / "locomo_mini.json", folder / "locomo" / "locomo10.json")
    (folder / "longmemeval" / "longmemeval_s_cleaned.dedup.json.xz").write_bytes(
        lzma.compress(json.dumps(LME_S).encode("utf-8"))
    )
    return folder


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, embedder: LocalMiniLM) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("langgraph_memory.embeddings.default_embeddings", lambda: embedder)


def test_cli_runs_from_the_data_folder_and_resumes(
    data: Path, tmp_path: Path, offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["--data", str(data), "--dataset", "locomo", "--out", str(out), "--no-judge"]
    assert qa.main([*argv, "--limit", "3"]) == 0
    err = capsys.readouterr().err
    assert "replaying user:conv-mini (raw)" in err and "[3/3]" in err
    manifest = json.loads((out / "ingested.json").read_text(encoding="utf-8"))
    assert manifest == {"dataset": "locomo", "mode": "raw", "scopes": ["user:conv-mini"]}
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [i["id"] for i in results["items"]] == ["conv-mini:0", "conv-mini:1", "conv-mini:2"]
    assert results["config"]["ingest"] == "raw"
    # Every item was answered from the replayed turns (the offline answerer quotes them).
    assert all(i["memory_ids"] for i in results["items"])

    # A larger run replays nothing again and answers only the new questions.
    assert qa.main([*argv, "--limit", "6"]) == 0
    err = capsys.readouterr().err
    assert "replaying" not in err and "[6/6]" in err
    with MemoryStore(out / "store") as store:
        texts = [m.text for m in store.active("user:conv-mini")]
    assert len(texts) == len(set(texts)), "no turn was stored twice"


def test_a_store_of_another_mode_is_refused(
    data: Path, tmp_path: Path, offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["--data", str(data), "--dataset", "longmemeval-s", "--out", str(out), "--no-judge"]
    assert qa.main([*argv, "--limit", "1", "--ingest", "write_path"]) == 0
    assert "replaying user:q1 (write_path, 2 sessions)" in capsys.readouterr().err
    with MemoryStore(out / "store") as store:
        [memory] = store.active("user:q1", episodes=False)
        ops = [d.op.value for d in store.decisions("user:q1")]
    # Written by MemoryWriter (the offline rules model): facts, reconciled, not raw turns.
    assert memory.text == "User lives in Porto." and ops == ["ADD", "UPDATE"]
    assert qa.main([*argv, "--limit", "1", "--ingest", "raw"]) == 2
    assert "use another --out" in capsys.readouterr().err


def test_cli_argument_errors(data: Path, tmp_path: Path, offline: None) -> None:
    with pytest.raises(SystemExit):
        qa.main(["--items", str(tmp_path / "items.jsonl")])  # no --store
    with pytest.raises(SystemExit):
        qa.main(["--data", str(data)])  # no --dataset
    empty = tmp_path / "empty"
    empty.mkdir()
    assert qa.main(["--data", str(empty), "--dataset", "locomo", "--out", str(tmp_path)]) == 2


def test_longmemeval_haystacks_are_replayed_one_per_question(
    data: Path, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        items = prepare(data, "longmemeval-s", store, tmp_path / "ingested.json")
        assert [(i.id, i.scope, i.is_abstention) for i in items] == [
            ("q1", "user:q1", False),
            ("q2_abs", "user:q2_abs", True),
        ]
        assert all(store.active(i.scope) for i in items)
        with pytest.raises(ValueError, match="LoCoMo only"):
            prepare(data, "longmemeval-s", store, tmp_path / "m2.json", mode="observations")


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_a_half_written_scope_is_purged_and_replayed(
    data: Path, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    manifest = tmp_path / "ingested.json"
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        prepare(data, "locomo", store, manifest)
        full = sorted(m.text for m in store.active("user:conv-mini"))
        # A crash after the replay but before the manifest was written:
        manifest.unlink()
        store.add("user:conv-mini", "A stray memory from a broken run.")
        logged: list[str] = []
        prepare(data, "locomo", store, manifest, log=logged.append)
        assert any("half-written" in line for line in logged)
        assert sorted(m.text for m in store.active("user:conv-mini")) == full


def test_write_path_mode_needs_a_writer(data: Path, tmp_path: Path, embedder: LocalMiniLM) -> None:
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        with pytest.raises(ValueError, match="needs a MemoryWriter"):
            prepare(data, "locomo", store, tmp_path / "m.json", mode="write_path")
        writer = MemoryWriter(store, model=RulesModel())
        items = prepare(data, "longmemeval-s", store, tmp_path / "m.json", mode="write_path",
                        writer=writer)  # fmt: skip
        assert len(items) == 2
        facts = [m.text for m in store.active("user:q2_abs", episodes=False)]
        assert facts == ["User lives in Lisbon."]


def test_retrieval_eval_measures_what_the_write_path_stored(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks import retrieval

    out = tmp_path / "r.json"
    argv = ["--data", str(data), "--dataset", "longmemeval-s", "--variants", "cosine"]
    assert retrieval.main([*argv, "--mode", "write_path", "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["meta"]["mode"] == "write_path" and result["meta"]["memory_model"] == "rules"
    # Two versions made: "User lives in Lisbon.", closed by an UPDATE to "... Porto.", which
    # stands for both turns; the evidence turn (s2's first) is found through it. And the two
    # user turns' episodes, each standing for its turn.
    assert result["meta"]["memories"] == 4
    [row] = result["questions"]
    assert row["cosine:turn_any@5"] == 1.0
    with pytest.raises(SystemExit):
        retrieval.main([*argv, "--mode", "observations"])
    assert "LoCoMo only" in capsys.readouterr().err


def test_qa_offline_on_what_the_rules_model_wrote_with_a_scripted_judge(
    data: Path, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    from langgraph_memory.graph import StandInChatModel
    from langgraph_memory.testing import ScriptedChatModel

    def judge(messages: list[BaseMessage]) -> dict[str, str]:
        prompt = str(messages[-1].content)
        right = "Porto" in prompt.split("Generated answer", 1)[-1]
        return {"reasoning": "scripted", "label": "CORRECT" if right else "WRONG"}

    scripted = ScriptedChatModel(default=judge)
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        writer = MemoryWriter(store, model=RulesModel())
        items = prepare(data, "longmemeval-s", store, tmp_path / "m.json", mode="write_path",
                        writer=writer, limit=1)  # fmt: skip
        [result] = qa.run_qa(items, store, StandInChatModel(), model_name="offline",
                             judge=scripted, judge_name="scripted")  # fmt: skip
    # The knowledge update reached the answer: the current city, not the old one.
    assert "Porto" in result.answer and "Lisbon" not in result.answer
    assert result.judge_label == "CORRECT" and scripted.calls == 1
    assert result.category == "knowledge-update" and 0 < result.f1 < 1
