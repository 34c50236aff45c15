"""The QA evaluation: LoCoMo scoring by hand-computed cases, the judge, and the
runner end to end offline (scripted and rules answerers, a scripted judge)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from benchmarks import qa
from benchmarks.answer_scoring import (
    abstains,
    answer_f1,
    multi_answer_f1,
    normalize_answer,
    official_abstains,
    token_f1,
)
from benchmarks.items import QAItem, read_items, write_items
from benchmarks.judge import judge_answer
from benchmarks.qa import Cache, run_qa
from benchmarks.qa_report import aggregate, plot, to_markdown, write_reports
from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.graph import StandInChatModel
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.text.porter import stem

# --- scoring: cases computed by hand from LoCoMo's evaluation.py -----------------------


def test_normalisation_drops_commas_punctuation_articles_and_and() -> None:
    assert normalize_answer("The Beach, and a Lake!") == "beach lake"
    assert normalize_answer("rock-climbing") == "rockclimbing"  # "-" is punctuation
    assert normalize_answer("Anderson and Theo") == "anderson theo"  # whole words only


def test_token_f1_by_hand() -> None:
    # tokens: she went to pari in may | pari -> P 1/6, R 1 -> F1 2/7
    assert token_f1("She went to Paris in May", "Paris") == pytest.approx(2 / 7)
    # stemming: "went hiking" -> [went, hike], gold "hiking" -> [hike]: P 1/2, R 1
    assert token_f1("went hiking", "hiking") == pytest.approx(2 / 3)
    assert token_f1("In 2022.", "2022") == pytest.approx(2 / 3)
    assert token_f1("Paris", "London") == 0.0
    assert token_f1("", "London") == 0.0


def test_category_1_scores_each_comma_part() -> None:
    # gold parts London (1), Rome (0), Paris (1) -> 2/3; as one string it would be
    # tokens [pari, london] vs [london, rome, pari]: P 1, R 2/3 -> 0.8
    assert answer_f1("Paris, London", "London, Rome, Paris", dataset="locomo", category="1") == (
        pytest.approx(2 / 3)
    )
    assert answer_f1("Paris, London", "London, Rome, Paris", dataset="locomo", category="4") == (
        pytest.approx(0.8)
    )
    assert multi_answer_f1("hiking", "painting, hiking") == 0.5


def test_category_3_scores_the_first_semicolon_part() -> None:
    gold = "Paris; because she studied there"
    assert answer_f1("Paris", gold, dataset="locomo", category="3") == 1.0
    # the whole gold: [pari, becaus, she, studi, there] -> P 1, R 1/5 -> 1/3
    assert answer_f1("Paris", gold, dataset="locomo", category="4") == pytest.approx(1 / 3)
    # LongMemEval has no such rule: plain token F1
    assert answer_f1("Paris", gold, dataset="longmemeval", category="3") == pytest.approx(1 / 3)


def test_abstention_phrases() -> None:
    official = ["No information available.", "That is not mentioned in the conversation."]
    lenient = [
        "I don't know.",
        "The memories do not mention it.",
        "It cannot be determined from what I remember.",
        "There is not enough information.",
        "I have no record of that.",
        "I don\u2019t recall that.",
    ]
    answers = ["Pune", "She has a cat named Luna.", "Yes, she knows it."]
    for text in official:
        assert official_abstains(text) and abstains(text), text
        assert answer_f1(text, "x", dataset="locomo", category="5", abstention=True) == 1.0
    for text in lenient:
        assert abstains(text) and not official_abstains(text), text
        # the F1 column stays LoCoMo's official rule
        assert answer_f1(text, "x", dataset="locomo", category="5", abstention=True) == 0.0
    for text in answers:
        assert not abstains(text), text


def test_stemmer_on_porter_examples() -> None:
    cases = {
        "caresses": "caress", "ponies": "poni", "ties": "tie", "cats": "cat", "feed": "feed",
        "agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing",
        "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
        "falling": "fall", "filing": "file", "happy": "happi", "relational": "relat",
        "conditional": "condit", "digitizer": "digit", "hopefulness": "hope",
        "formality": "formal", "electrical": "electr", "adjustment": "adjust",
        "controlling": "control", "generalizations": "gener", "skies": "sky", "dying": "die",
    }  # fmt: skip
    assert {w: stem(w) for w in cases} == cases


def test_stemmer_matches_nltk() -> None:  # nltk is in the dev extra, as the reference
    from nltk.stem import PorterStemmer  # type: ignore[import-not-found,unused-ignore]

    words = (  # noqa: SIM905 - one string reads better than 26 quoted words
        "running runs ran dogs went hiking painted studies studying generously happiness "
        "relational electricity adoption adoptions vacationing beaches photography "
        "skies dying news proceeding logically archaeology fully hopefully"
    ).split()
    ps = PorterStemmer()
    assert [stem(w) for w in words] == [ps.stem(w) for w in words]


# --- the judge ---------------------------------------------------------------------------


def _field(messages: list[BaseMessage], name: str) -> str:
    text = str(messages[-1].content)
    found = re.search(rf"^{name}: (.*)$", text, re.M)
    return found.group(1) if found else ""


def scripted_judge(messages: list[BaseMessage]) -> dict[str, Any]:
    """CORRECT when every gold token is in the answer; for an unanswerable
    question, when the answer abstains."""
    answer = _field(messages, "Generated answer")
    if "cannot be answered" in str(messages[-1].content):
        ok = abstains(answer)
    else:
        gold = set(normalize_answer(_field(messages, "Gold answer")).split())
        ok = bool(gold) and gold <= set(normalize_answer(answer).split())
    return {"reasoning": "scripted", "label": "CORRECT" if ok else "WRONG"}


def test_judge_reads_label_and_reasoning_and_tolerates_plain_text() -> None:
    judge = ScriptedChatModel(default=scripted_judge)
    assert judge_answer(judge, "Where?", "Pune", "In Pune").correct
    wrong = judge_answer(judge, "Where?", "Pune", "Delhi")
    assert (wrong.label, wrong.reasoning) == ("WRONG", "scripted")
    assert judge_answer(judge, "Cat?", "", "I don't know", abstention=True).correct
    lower = ScriptedChatModel(script=['{"reasoning": "ok", "label": "correct"}'])
    assert judge_answer(lower, "Q?", "a", "a").label == "CORRECT"
    neither = ScriptedChatModel(script=["CORRECT or WRONG, hard to say"])
    assert judge_answer(neither, "Q?", "a", "b").label == "INVALID"


# --- the runner ----------------------------------------------------------------------------

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
ASKED = datetime(2023, 6, 1, tzinfo=timezone.utc)
ITEMS = [
    QAItem("conv-a:0", "locomo", "4", "Where does Ana live?", "Pune", "user:conv-a", ASKED),
    QAItem("conv-a:1", "locomo", "1", "What hobbies does Ana have?", "hiking, painting",
           "user:conv-a", ASKED),
    QAItem("conv-a:2", "locomo", "5", "What is Ana's cat's name?", "Luna", "user:conv-a", ASKED,
           is_abstention=True),
    QAItem("b1", "longmemeval", "single-session-user", "What car does Ben drive?",
           "a Tesla Model 3", "user:b1", ASKED),
    QAItem("b2_abs", "longmemeval", "knowledge-update", "What is Ben's boat called?", "",
           "user:b1", ASKED, is_abstention=True),
]  # fmt: skip
#: What the scripted answerer says to each question.
ANSWERS = {
    "Where does Ana live?": "Pune",
    "What hobbies does Ana have?": "hiking",
    "What is Ana's cat's name?": "No information available",
    "What car does Ben drive?": "Tesla Model 3",
    "What is Ben's boat called?": "I don't know.",
}


def scripted_answer(messages: list[BaseMessage]) -> str:
    return ANSWERS[str(messages[-1].content)]


@pytest.fixture
def store(tmp_path: Path, embedder: LocalMiniLM) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "m", embeddings=embedder)
    s.add("user:conv-a", "Ana lives in Pune.", now=T0)
    s.add("user:conv-a", "Ana goes hiking on weekends.", now=T0)
    s.add("user:conv-a", "Ana took up painting in April 2023.", now=T0)
    s.add("user:b1", "Ben drives a Tesla Model 3.", now=T0)
    s.add("user:b1", "Ben works as a nurse in Leeds.", now=T0)
    try:
        yield s
    finally:
        s.close()


def test_runner_scores_caches_and_reports(store: MemoryStore, tmp_path: Path) -> None:
    answerer = ScriptedChatModel(default=scripted_answer)
    judge = ScriptedChatModel(default=scripted_judge)
    cache_path = tmp_path / "out" / "cache.jsonl"
    results = run_qa(
        ITEMS, store, answerer, model_name="scripted", k=3, judge=judge,
        judge_name="scripted-judge", cache=Cache(cache_path),
    )  # fmt: skip
    assert (answerer.calls, judge.calls) == (5, 5)
    by_id = {r.id: r for r in results}
    got = {r.id: (r.answer, round(r.f1, 3), r.judge_label, r.abstained) for r in results}
    assert got == {
        "conv-a:0": ("Pune", 1.0, "CORRECT", False),
        "conv-a:1": ("hiking", 0.5, "WRONG", False),
        "conv-a:2": ("No information available", 1.0, "CORRECT", True),
        "b1": ("Tesla Model 3", 1.0, "CORRECT", False),
        "b2_abs": ("I don't know.", 0.0, "CORRECT", True),  # official F1 0, abstained
    }
    assert len(by_id["conv-a:0"].memory_ids) == 3
    # Each question saw its own scope's memories, dated, and the question's date.
    first = answerer.prompts[0]
    assert "Ana lives in Pune." in str(first[0].content)
    assert "Tesla" not in str(first[0].content)
    assert "- [2023-05-08]" in str(first[0].content)
    assert "Thursday, 01 June 2023" in str(first[0].content)

    rows = {row["name"]: row for row in aggregate(results)}
    assert rows["locomo 1 multi-hop"]["f1"] == 0.5 and rows["locomo 1 multi-hop"]["j"] == 0.0
    assert rows["locomo 5 adversarial"]["abstention_acc"] == 1.0
    assert rows["longmemeval knowledge-update"]["f1"] == 0.0
    assert rows["all"]["n"] == 5
    assert rows["all"]["f1"] == pytest.approx(0.7)
    assert rows["all"]["j"] == pytest.approx(0.8)
    assert rows["answerable"]["n"] == 3
    assert rows["answerable"]["f1"] == pytest.approx(2.5 / 3)
    assert rows["answerable"]["j"] == pytest.approx(2 / 3)
    assert rows["locomo 4 single-hop"]["abstention_acc"] is None

    # A rerun answers from the cache: no model call at all, the same results.
    again_answerer = ScriptedChatModel(default=scripted_answer)
    again_judge = ScriptedChatModel(default=scripted_judge)
    again = run_qa(
        ITEMS, store, again_answerer, model_name="scripted", k=3, judge=again_judge,
        judge_name="scripted-judge", cache=Cache(cache_path),
    )  # fmt: skip
    assert (again_answerer.calls, again_judge.calls) == (0, 0)
    assert again == results
    # Another k is another answer; the same answers keep their verdicts.
    run_qa(
        ITEMS, store, again_answerer, model_name="scripted", k=2, judge=again_judge,
        judge_name="scripted-judge", cache=Cache(cache_path),
    )  # fmt: skip
    assert (again_answerer.calls, again_judge.calls) == (5, 0)

    config = {"model": "scripted", "judge": "scripted-judge", "k": 3}
    json_path, md_path = write_reports(results, config, tmp_path / "out")
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert data["config"] == config
    assert [i["id"] for i in data["items"]] == [i.id for i in ITEMS]
    assert data["items"][1]["j"] == 0.0 and data["items"][1]["judge_reasoning"] == "scripted"
    assert {a["name"] for a in data["aggregates"]} >= {"all", "answerable", "locomo 1 multi-hop"}
    md = md_path.read_text(encoding="utf-8")
    assert "| locomo 1 multi-hop | 1 | 50.0 | 0.0 | — |" in md
    assert "| longmemeval knowledge-update | 1 | 0.0 | 100.0 | 100.0 (1) |" in md
    assert "| all | 5 | 70.0 | 80.0 | 100.0 (2) |" in md
    assert md == to_markdown(results, config)


def test_runner_with_the_offline_answerer(store: MemoryStore) -> None:
    judge = ScriptedChatModel(default=scripted_judge)
    items = [ITEMS[0], ITEMS[2], ITEMS[3]]
    results = run_qa(items, store, StandInChatModel(), model_name="offline", judge=judge,
                     judge_name="scripted-judge")  # fmt: skip
    lives, cat, car = results
    assert "Pune" in lives.answer and lives.judge_label == "CORRECT"
    assert 0 < lives.f1 < 1  # "From what I remember: Ana lives in Pune." vs "Pune"
    assert cat.abstained and cat.judge_label == "CORRECT"  # "I don't know that yet."
    assert cat.f1 == 0.0  # not one of LoCoMo's two phrases
    assert "Tesla Model 3" in car.answer and car.judge_label == "CORRECT"
    assert judge.calls == 3


def test_cli_end_to_end_offline(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("langgraph_memory.embeddings.default_embeddings", lambda: store.embeddings)
    items_path = tmp_path / "items.jsonl"
    assert write_items(items_path, ITEMS) == 5
    assert read_items(items_path) == ITEMS
    store.close()  # the CLI opens the store itself
    out = tmp_path / "cli"
    argv = ["--store", str(tmp_path / "m"), "--items", str(items_path), "--out", str(out),
            "--limit", "3", "--k", "2"]  # fmt: skip
    assert qa.main(argv) == 0
    captured = capsys.readouterr()
    assert "offline" in captured.err and "F1 only" in captured.err
    assert "[3/3]" in captured.err
    assert "| all | 3 |" in captured.out
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["config"]["model"] == "offline" and data["config"]["judge"] is None
    assert len(data["items"]) == 3 and all(i["judge_label"] is None for i in data["items"])
    assert len((out / "cache.jsonl").read_text(encoding="utf-8").splitlines()) == 3


def test_plot_needs_matplotlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        plot([], tmp_path / "scores.png")


def test_plot_writes_a_png(store: MemoryStore, tmp_path: Path) -> None:
    results = run_qa(ITEMS, store, ScriptedChatModel(default=scripted_answer), model_name="s",
                     judge=ScriptedChatModel(default=scripted_judge), judge_name="j")  # fmt: skip
    path = plot(results, tmp_path / "scores.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_progress_to_a_log_file_is_a_line_per_five_percent() -> None:
    import io

    from benchmarks.qa import Progress

    log = io.StringIO()  # not a terminal
    counter = Progress(100, log)
    for _ in range(100):
        counter.step(0.1, cached=False)
    lines = log.getvalue().splitlines()
    assert len(lines) == 20 and "\r" not in log.getvalue()
    assert lines[0].startswith("[5/100]") and lines[-1].startswith("[100/100]")
