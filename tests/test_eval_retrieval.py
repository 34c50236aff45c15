"""The retrieval evaluation: loaders, metrics, replay ingestion and the runner."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from benchmarks import plots, retrieval
from benchmarks.datasets import (
    LmeQuestion,
    LmeSession,
    LmeTurn,
    iter_longmemeval,
    load_locomo,
    parse_lme_date,
    parse_locomo_date,
)
from benchmarks.ingest import (
    CachedEmbeddings,
    ingest_locomo,
    ingest_longmemeval,
    lme_gold_turns,
)
from benchmarks.metrics import (
    dcg,
    lme_session_metrics,
    lme_turn_metrics,
    ndcg,
    recall_fraction,
)
from langgraph_memory import MemoryStore, MemoryWriter
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.write.rules import RulesModel

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
LOCOMO = FIXTURES / "locomo_mini.json"
LME = FIXTURES / "lme_mini.json"
LME_DEDUP = FIXTURES / "lme_mini_dedup.json"
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="module")
def minilm() -> CachedEmbeddings:
    return CachedEmbeddings(LocalMiniLM())


def fake_store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "store", embeddings=DeterministicFakeEmbedding(size=16))


# -- loaders ------------------------------------------------------------------------------


def test_locomo_loader_reads_sessions_questions_and_observations() -> None:
    [conv] = load_locomo(LOCOMO)
    assert conv.sample_id == "conv-mini"
    assert conv.speakers == ("Ana", "Ben")
    # session_3 has a date but no turns: it is not a session
    assert [s.index for s in conv.sessions] == [1, 2]
    assert conv.sessions[1].date == parse_locomo_date("10:04 am on 19 June, 2023")
    assert conv.sessions[0].turns[2].caption == "a photo of tomato plants"
    assert conv.sessions[0].turns[0].caption is None
    assert [q.category for q in conv.questions] == [4, 1, 2, 3, 5, 4]
    assert conv.questions[2].evidence == ("D1:1",)  # the malformed id is dropped ...
    assert conv.bad_evidence == 1  # ... and counted
    assert conv.questions[2].answer == "2023"
    assert conv.questions[4].answer == "fish"  # adversarial_answer
    assert conv.questions[1].category_name == "multi-hop"
    assert len(conv.observations) == 5
    assert conv.observations_by_dia_id()["D1:2"][1].dia_ids == ("D2:1", "D1:2")


def test_longmemeval_loader_reads_both_layouts_alike() -> None:
    plain = list(iter_longmemeval(LME))
    dedup = list(iter_longmemeval(LME_DEDUP))
    assert plain == dedup
    first, second = plain
    assert (first.question_id, first.type, first.abstention) == (
        "q1",
        "single-session-user",
        False,
    )
    assert second.abstention and second.answer == "3"
    assert first.question_date == parse_lme_date("2023/05/30 (Tue) 23:40")
    assert [s.session_id for s in first.sessions] == ["s_filler", "answer_aa11"]
    assert first.sessions[1].turns[0].has_answer
    assert first.answer_session_ids == ("answer_aa11",)


def test_longmemeval_loader_refuses_an_unknown_layout(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"items": []}))
    with pytest.raises(ValueError, match="layout"):
        list(iter_longmemeval(bad))


# -- metrics (hand-computed) ----------------------------------------------------------------


def test_recall_fraction() -> None:
    assert recall_fraction(["a", "b", "c"], {"a", "c", "z"}) == pytest.approx(2 / 3)
    assert recall_fraction(["a", "a"], {"a"}) == 1.0  # duplicates count once
    with pytest.raises(ValueError):
        recall_fraction([], {"a"})


def test_dcg_and_ndcg_follow_upstream() -> None:
    # upstream: rel[0] + sum(rel[i] / log2(i + 1)) for i >= 1, so ranks 1 and 2 weigh 1
    assert dcg([0, 1], 2) == 1.0
    assert dcg([0, 0, 1], 3) == pytest.approx(1 / math.log2(3))
    corpus = ["g1", "g2", "x", "y"]
    # gold at ranks 2 and 3: (1 + 1/log2 3) / (1 + 1)
    assert ndcg(["x", "g1", "g2"], {"g1", "g2"}, corpus, 3) == pytest.approx(
        (1 + 1 / math.log2(3)) / 2
    )
    assert ndcg(["x", "y"], {"g1"}, corpus, 2) == 0.0


def test_recall_any_and_all() -> None:
    corpus = ["a", "b", "c", "d"]
    assert lme_turn_metrics(["a", "c", "b"], {"a", "b"}, corpus, 2)[:2] == (1.0, 0.0)
    assert lme_turn_metrics(["a", "c", "b"], {"a", "b"}, corpus, 3)[:2] == (1.0, 1.0)
    assert lme_turn_metrics(["c", "d"], {"a"}, corpus, 2) == (0.0, 0.0, 0.0)


def test_session_metrics_rank_sessions_by_first_turn() -> None:
    corpus = ["s1_1", "s1_3", "s2_1", "s3_1", "s3_3"]
    ranked = ["s1_1", "s1_3", "s3_1", "s2_1", "s3_3"]
    # k=2 needs 3 turns to span 2 sessions: s1, s3; the gold session s2 comes third
    assert lme_session_metrics(ranked, {"s2_1"}, corpus, 2)[:2] == (0.0, 0.0)
    assert lme_session_metrics(ranked, {"s2_1"}, corpus, 3)[:2] == (1.0, 1.0)
    assert lme_session_metrics(ranked, {"s1_3", "s2_1"}, corpus, 2)[:2] == (1.0, 0.0)


# -- ingestion ------------------------------------------------------------------------------


def test_raw_ingestion_stores_one_episodic_memory_per_turn(tmp_path: Path) -> None:
    [conv] = load_locomo(LOCOMO)
    store = fake_store(tmp_path)
    done = ingest_locomo(store, conv, "raw")
    memories = store.active(done.scope)
    assert done.scope == "user:conv-mini"
    assert len(memories) == done.memories == 5
    assert done.corpus == ("D1:1", "D1:2", "D1:3", "D2:1", "D2:2")
    by_dia = {m.metadata["dia_id"]: m for m in memories}
    assert (
        by_dia["D1:3"].text == "Ana: Here is my garden. [shares a photo: a photo of tomato plants]"
    )
    assert by_dia["D2:1"].created_at == conv.sessions[1].date
    assert by_dia["D1:2"].event_time is not None and by_dia["D1:1"].event_time is not None
    assert by_dia["D1:2"].event_time > by_dia["D1:1"].event_time  # order kept within a session
    assert {done.units[m.id] for m in memories} == {(d,) for d in done.corpus}
    assert done.end > conv.sessions[1].date


def test_observation_ingestion_cites_turns(tmp_path: Path) -> None:
    [conv] = load_locomo(LOCOMO)
    store = fake_store(tmp_path)
    done = ingest_locomo(store, conv, "observations")
    texts = {m.text: done.units[m.id] for m in store.active(done.scope)}
    assert texts["Ben's violin teacher lives in Lisbon."] == ("D2:1", "D1:2")
    assert len(texts) == 5


def test_write_path_ingestion_maps_memories_to_turns(tmp_path: Path) -> None:
    [conv] = load_locomo(LOCOMO)
    store = fake_store(tmp_path)
    writer = MemoryWriter(store, model=RulesModel())
    done = ingest_locomo(store, conv, "write_path", writer=writer)
    active = {m.id for m in store.active(done.scope)}
    assert active <= set(done.units)  # every stored memory traces back to turns
    assert all(set(u) <= set(done.corpus) for u in done.units.values())
    with pytest.raises(ValueError, match="writer"):
        ingest_locomo(store, conv, "write_path")


def test_write_path_update_inherits_the_replaced_memorys_turns(tmp_path: Path) -> None:
    day = parse_lme_date("2023/05/20 (Sat) 10:00")
    q = LmeQuestion(
        "q",
        "knowledge-update",
        "Where do I live?",
        "Porto",
        day,
        (
            LmeSession("s1", day, (LmeTurn("user", "I live in Lisbon."),)),
            LmeSession("s2", day.replace(day=21), (LmeTurn("user", "I moved to Porto."),)),
        ),
        ("s2",),
    )
    store = fake_store(tmp_path)
    done = ingest_longmemeval(store, q, "write_path", writer=MemoryWriter(store, RulesModel()))
    [current] = store.active(done.scope, episodes=False)
    assert current.text == "User lives in Porto."
    assert done.units[current.id] == ("s1_1", "s2_1")


def test_longmemeval_ingestion_indexes_user_turns_with_upstream_ids(tmp_path: Path) -> None:
    q = next(iter_longmemeval(LME))
    store = fake_store(tmp_path)
    done = ingest_longmemeval(store, q)
    assert done.corpus == ("s_filler_1", "answer_aa11_1", "answer_aa11_3")
    assert lme_gold_turns(q) == {"answer_aa11_1"}
    assert sorted(u for (u,) in done.units.values()) == sorted(done.corpus)
    both = ingest_longmemeval(fake_store(tmp_path / "b"), q, roles=("user", "assistant"))
    assert len(both.corpus) == 6
    with pytest.raises(ValueError):
        ingest_longmemeval(store, q, "observations")


def test_cached_embeddings_keep_the_inner_name() -> None:
    inner = DeterministicFakeEmbedding(size=4)
    cached = CachedEmbeddings(inner, max_items=2)
    assert cached.prefetch(["a", "b"]) == 2
    assert cached.embed_query("a") == inner.embed_query("a")
    cached.prefetch(["c"])  # over the bound: starts over
    assert len(cached) == 1


# -- the runner -----------------------------------------------------------------------------


def test_locomo_runner_end_to_end(tmp_path: Path, minilm: CachedEmbeddings) -> None:
    convs = load_locomo(LOCOMO)
    variants = ["default", "cosine", "bm25"]
    result = retrieval.run_locomo(convs, variants, embeddings=minilm, workdir=tmp_path)
    assert result["meta"]["skipped_no_evidence"] == 1
    assert result["meta"]["bad_evidence"] == 1
    assert len(result["questions"]) == 5
    summary = result["summary"]
    assert summary["overall 1-5"]["n"] == 5 and summary["overall 1-4"]["n"] == 4
    for v in ("default", "cosine"):
        # five turns and k >= 5: everything is found (bm25 finds only what shares a word)
        assert summary["overall 1-5"][f"{v}@5"] == 1.0
    single = next(r for r in result["questions"] if r["category"] == 4)
    assert single["cosine@5"] == 1.0
    table = retrieval.locomo_report(summary, variants, retrieval.LOCOMO_KS)
    assert "| 4 single-hop | 1 |" in table
    assert list(tmp_path.iterdir()) == []  # the stores are deleted


def test_lme_runner_skips_abstention(tmp_path: Path, minilm: CachedEmbeddings) -> None:
    result = retrieval.run_longmemeval(
        iter_longmemeval(LME_DEDUP), ["default", "cosine"], embeddings=minilm, workdir=tmp_path
    )
    assert result["meta"]["skipped_abstention"] == 1
    [row] = result["questions"]
    assert row["cosine:turn_any@5"] == 1.0  # three turns, k=5
    assert row["cosine:sess_all@5"] == 1.0
    # the gold turn is the question's near-paraphrase: cosine ranks it first
    assert row["cosine:turn_ndcg@5"] == 1.0
    assert "single-session-user" in retrieval.lme_report(result["summary"], ["cosine"])


def test_variant_registry_is_the_extension_hook(tmp_path: Path, minilm: CachedEmbeddings) -> None:
    def last_first(ask: retrieval.Ask) -> list[str]:
        latest = sorted(ask.store.active(ask.scope), key=lambda m: str(m.metadata["dia_id"]))
        return [m.id for m in reversed(latest)][: ask.k]

    retrieval.VARIANTS["last-first"] = last_first
    try:
        result = retrieval.run_locomo(
            load_locomo(LOCOMO), ["last-first"], embeddings=minilm, ks=(2,), workdir=tmp_path
        )
    finally:
        del retrieval.VARIANTS["last-first"]
    rows = {r["question"]: r for r in result["questions"]}
    # the two latest turns are D2:2 and D2:1
    assert rows["What did Ben's cat eat?"]["last-first@2"] == 1.0
    assert rows["What is the name of Ana's kitten?"]["last-first@2"] == 0.0


def test_cli_writes_json_and_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locomo").mkdir()
    (tmp_path / "locomo" / "locomo10.json").write_text(LOCOMO.read_text())
    out = tmp_path / "r.json"
    code = retrieval.main(
        ["--data", str(tmp_path), "--dataset", "locomo", "--variants", "cosine", "--out", str(out)]
    )
    assert code == 0
    assert "cosine R@10" in capsys.readouterr().out
    assert json.loads(out.read_text())["meta"]["dataset"] == "locomo"
    assert plots.main([str(out), "--out", str(tmp_path / "png")]) == 0
    assert (tmp_path / "png" / "r.png").read_bytes()[:4] == b"\x89PNG"


# -- the real data (skipped where it is absent) ---------------------------------------------


@pytest.mark.slow  # real benchmark data
@pytest.mark.skipif(not (DATA / "locomo" / "locomo10.json").exists(), reason=f"no {DATA}")
def test_real_locomo_conversation_cosine_recall(tmp_path: Path, minilm: CachedEmbeddings) -> None:
    convs = load_locomo(DATA / "locomo" / "locomo10.json")
    conv = min(convs, key=lambda c: sum(len(s.turns) for s in c.sessions))
    result = retrieval.run_locomo([conv], ["cosine"], embeddings=minilm, ks=(10,), workdir=tmp_path)
    r10 = result["summary"]["overall 1-5"]["cosine@10"]
    # all ten conversations average 0.41 at k=10 with MiniLM over speaker-prefixed turns
    assert 0.25 <= r10 <= 0.6, r10


def test_lme_parts_cover_the_file_and_merge_back_into_the_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import lzma

    questions = json.loads(LME.read_text())
    again = {**next(q for q in questions if q["question_id"] == "q1"), "question_id": "q3"}
    data = tmp_path / "data"
    (data / "longmemeval").mkdir(parents=True)
    with lzma.open(data / "longmemeval" / "longmemeval_oracle.json.xz", "wt") as f:
        json.dump([*questions, again], f)
    base = ["--data", str(data), "--dataset", "longmemeval-oracle", "--variants", "cosine"]

    def run(*extra: str) -> dict[str, Any]:
        out = tmp_path / f"r{len(list(tmp_path.glob('r*.json')))}.json"
        assert retrieval.main([*base, *extra, "--out", str(out)]) == 0
        result: dict[str, Any] = json.loads(out.read_text())
        return result

    whole = run()
    first, second = run("--every", "2", "--offset", "0"), run("--every", "2", "--offset", "1")
    assert [r["question_id"] for r in first["questions"]] == ["q1"]
    assert [r["question_id"] for r in second["questions"]] == ["q3"]
    parts = [tmp_path / "r1.json", tmp_path / "r2.json"]
    merged_out = tmp_path / "merged.json"
    assert retrieval.main(["--merge", *map(str, parts), "--out", str(merged_out)]) == 0
    merged = json.loads(merged_out.read_text())
    assert merged["summary"] == whole["summary"]
    assert merged["meta"]["parts"] == 2 and merged["meta"]["every"] == 1
    assert "single-session-user" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # the same part twice counts its questions twice
        retrieval.main(["--merge", str(parts[0]), str(parts[0])])
    assert "repeats questions" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        retrieval.main([*base, "--every", "2", "--offset", "2"])
    assert "--offset must be from 0 to 1" in capsys.readouterr().err
