"""The acts corpus (issue 43): well formed, split by conversation, drawn as its README says;
and the trainer's pieces learn what they are given."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from benchmarks import acts_corpus, acts_train
from langgraph_memory.errors import ModelFileError
from langgraph_memory.write.rules import ACTS, act_head, act_tokens, token_vector
from langgraph_memory.write.rules.act_head import shipped_head

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, object]]:
    return acts_train.load()


def test_corpus_is_well_formed_and_split_by_group(corpus: list[dict[str, object]]) -> None:
    assert len(corpus) >= 3000
    assert len({r["id"] for r in corpus}) == len(corpus)
    assert len({r["text"] for r in corpus}) == len(corpus)
    for row in corpus:
        labels = row["labels"]
        assert isinstance(labels, list) and labels and set(labels) <= set(ACTS), row["id"]
        assert len(set(labels)) == len(labels), row["id"]
        assert row["split"] == acts_corpus.split_of(str(row["group"])), row["id"]
        if row["role"] == "assistant":
            assert labels == ["not_user"], row["id"]
    # No conversation is in both splits, and each act is in both.
    splits: dict[object, set[object]] = {}
    for row in corpus:
        splits.setdefault(row["group"], set()).add(row["split"])
    assert all(len(s) == 1 for s in splits.values())
    for split in ("train", "test"):
        acts = Counter(a for r in corpus if r["split"] == split for a in r["labels"])  # type: ignore[attr-defined]
        assert set(acts) == set(ACTS), split
    # LongMemEval S, the held-out acceptance set, is never drawn from.
    assert {r["source"] for r in corpus} == {"locomo", "lme-oracle", "written"}


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data (the benchmark data)")
def test_the_real_sentences_are_the_seeded_draw(
    corpus: list[dict[str, object]], tmp_path: Path
) -> None:
    out = tmp_path / "drawn.jsonl"
    assert acts_corpus.main(["--data", str(DATA), "--out", str(out)]) == 0
    drawn = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()}
    real = [r for r in corpus if r["source"] != "written"]
    assert len(real) == len(drawn)
    for row in real:
        assert drawn[row["id"]]["text"] == row["text"]
        assert drawn[row["id"]]["group"] == row["group"]


def test_token_features_are_the_same_for_the_same_words() -> None:
    vocab = {"f2:could you": 0, "w:always": 1, "w:spanish": 2, "b:reply in": 3}
    a = token_vector("Could you always reply in Spanish?", vocab)
    assert a.tolist() == [1.0, 1.0, 1.0, 1.0]
    assert (a == token_vector("could you ALWAYS reply in spanish?", vocab)).all()
    assert token_vector("Could you reply in Spanish?", vocab).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert "f:could" in act_tokens("Could you?") and "f:you" not in act_tokens("Could you?")


def test_the_head_learns_and_its_thresholds_come_from_its_own_folds() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 8))
    y = np.zeros((300, len(acts_train.OUTPUTS)))
    y[:, 0] = (x[:, 0] > 0.5).astype(float)  # rule_set: one feature decides
    y[:, 3] = 1.0 - y[:, 0]
    y[:, -1] = y[:, 0]  # the gate: any rule act
    groups = [f"g{i // 10}" for i in range(300)]
    scores = acts_train.folded_scores(x, y, groups)
    cut = acts_train.thresholds(scores, y)
    said = acts_train.per_act(scores >= np.array(cut), y)
    for output in ("rule_set", acts_train.GATE):
        assert said[output]["precision"] >= 0.95 and said[output]["recall"] >= 0.8
    head = acts_train.fit(x, y)
    hidden = acts_train.HIDDEN
    assert head.w1.shape == (8, hidden) and head.w2.shape == (hidden, len(acts_train.OUTPUTS))
    again = acts_train.fit(x, y)
    assert all(
        (a == b).all() for a, b in zip(head.arrays(), again.arrays(), strict=True)
    )  # bit for bit


# -- the shipped head -------------------------------------------------------------------


def test_the_shipped_head_is_pinned_and_an_altered_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    head = shipped_head()
    assert head.outputs == acts_train.OUTPUTS
    assert len(head.thresholds) == len(head.outputs)
    monkeypatch.setattr(act_head, "HEAD_SHA256", "0" * 64)
    with pytest.raises(ModelFileError, match="reinstall langgraph-memory-kit"):
        shipped_head.__wrapped__()
    with pytest.raises(ModelFileError, match="not a head of acts"):
        act_head.ActHead.from_json('{"outputs": ["rule"]}')


def test_the_shipped_head_tells_a_standing_instruction_from_its_look_alikes() -> None:
    # Sentences of no corpus split: a rule, a habit that says "always", a one-off request,
    # someone else's rule, and a cancel that says neither "stop" nor "forget".
    head = shipped_head()
    assert "rule" in head.acts("Going forward, please give me the metric figure first.")
    assert "rule" not in head.acts("I always take the stairs at work.")
    assert "rule" not in head.acts("Translate this paragraph into French.")
    assert "rule" not in head.acts("My manager always wants the slides in PDF.")
    assert "rule_cancel" in head.acts("No need to add the calorie counts anymore.")


@pytest.mark.slow  # trains the head once (~1 min)
def test_the_shipped_head_is_what_the_trainer_makes_of_the_corpus() -> None:
    train = [r for r in acts_train.load() if r["split"] == "train"]
    texts = [str(r["text"]) for r in train]
    vocab = acts_train.vocabulary(texts)
    head = acts_train.fit(acts_train.features(texts, vocab), acts_train.targets(train))
    shipped = shipped_head()
    assert dict(shipped.vocabulary) == vocab
    kept = (shipped.w1, shipped.b1, shipped.w2, shipped.b2)
    for made, ours in zip(head.arrays(), kept, strict=True):
        # float32 as shipped; BLAS may sum in another order on another machine
        np.testing.assert_allclose(made, ours, atol=1e-3)


def test_a_head_file_without_the_gate_or_a_threshold_each_is_refused() -> None:
    shipped = json.loads((ROOT / "langgraph_memory" / "data" / "acts_head.json").read_text())
    no_gate = {**shipped, "outputs": shipped["outputs"][:-1]}
    with pytest.raises(ModelFileError, match=r"it needs \['rule'\]"):
        act_head.ActHead.from_json(json.dumps(no_gate))
    short = {**shipped, "thresholds": shipped["thresholds"][:-1]}
    with pytest.raises(ModelFileError, match="a threshold each"):
        act_head.ActHead.from_json(json.dumps(short))


def test_the_rules_model_with_the_gate_on_the_test_split() -> None:
    """The product's reading of standing instructions on the held-apart test split
    (``python -m benchmarks acts-product``; docs/results/acts.md): the gate's precision
    stays at the issue's 0.95, its recall where this release measured it (0.765)."""
    from benchmarks.acts_product import test_split

    gate = test_split()["rule"]
    assert gate["precision"] >= 0.95 and gate["recall"] >= 0.75, gate
