"""Train the classifier of acts on the corpus's train split, and measure it on its test split.

The corpus (``benchmarks/acts/sentences.jsonl``, see its README) labels each sentence with
what it does. The classifier is a small head on the features of
``langgraph_memory.write.rules.acts``: which of a vocabulary of words and word pairs a
sentence holds (every token of at least ``MIN_COUNT`` train sentences, labels unread). It
is one network of one hidden layer (``HIDDEN`` ReLU units) with a sigmoid per output (an
act each, a sentence may do two, and ``GATE``: any standing-instruction act), trained by
full-batch Adam from a seeded start in float64, so the same corpus gives the same weights,
bit for bit. Each output's threshold is chosen on the train split alone, by
cross-validation over its groups (the highest F1, and for the rule acts and the gate the
lowest threshold whose precision reaches ``RULE_PRECISION``).

What was tried, on the train split's five folds (corpus version 3, the gate's recall at
precision 0.95): the tokens hashed into 4,096 slots beside the MiniLM vector (standardised, a
quarter's weight) 0.833; the tokens as a vocabulary instead 0.864, and with the vector at
full weight 0.690, without it 0.900. The vector tells what a sentence is about, and the
written rules are about everything, so it taught the head topics, not acts; without it the
head needs no embedder at all. (On version 2, a logistic regression per act reached rule_set
recall 0.676 at precision 0.952; the hidden layer 0.75: an act is often a pair of cues,
"always" said to "you" and not by "I".) The test split is read once, at the end, for the report::

    python -m benchmarks acts-train --out /tmp/acts_head.json --report /tmp/acts.json

>>> y = np.array([[1.0, 0.0], [0.0, 1.0]])
>>> head = fit(np.array([[1.0, 0.0], [0.0, 1.0]]), y, hidden=4, epochs=300, rate=0.05)
>>> (predict_scores(head, np.array([[1.0, 0.0]])) > 0.5).tolist()
[[True, False]]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_memory import Kind
from langgraph_memory.write import Turn
from langgraph_memory.write.rules import (
    ACTS,
    CHANGE_SLOT,
    DROP_SLOT,
    RULE_ACTS,
    RulesModel,
    act_tokens,
    rule_slot,
    token_vector,
)
from langgraph_memory.write.rules import (
    gated as gated_acts,
)

__all__ = ["ACTS", "Head", "fit", "load", "main", "predict_scores"]

#: The head's outputs: one per act, then ``GATE``, any of ``RULE_ACTS``: whether a sentence
#: says anything about the standing instructions, which the model then reads with its
#: grammar. Set, change and cancel blur into each other ("no need for page numbers any
#: more, just chapter numbers" is a change; "you can lose the ranking" a cancel), while
#: a sentence that does one of them is told from the rest more surely.
GATE = "rule"
OUTPUTS = (*ACTS, GATE)
#: The precision a rule act's threshold must reach on the train split's held-out folds.
RULE_PRECISION = 0.95
CORPUS = Path(__file__).parent / "acts" / "sentences.jsonl"
FOLDS = 5


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    """The corpus's sentences, each a dict (see the README)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        unknown = set(row["labels"]) - set(ACTS)
        if unknown or not row["labels"]:
            raise SystemExit(f"{row['id']}: labels {row['labels']} are not acts of {ACTS}")
    return rows


#: The head's hidden units.
HIDDEN = 32
#: A token is in the vocabulary when at least this many train sentences hold it.
MIN_COUNT = 3


def vocabulary(texts: Sequence[str], min_count: int = MIN_COUNT) -> dict[str, int]:
    """Token -> column, for every token (``act_tokens``) of at least ``min_count`` of
    ``texts``, sorted: the same texts give the same columns.

    >>> vocabulary(["Always reply in French", "always reply briefly"], min_count=2)
    {'b:always reply': 0, 'f2:always reply': 1, 'f:always': 2, 'w:always': 3, 'w:reply': 4}
    """
    counts: dict[str, int] = {}
    for text in texts:
        for token in act_tokens(text):
            counts[token] = counts.get(token, 0) + 1
    kept = sorted(token for token, n in counts.items() if n >= min_count)
    return {token: i for i, token in enumerate(kept)}


def features(texts: Sequence[str], vocab: dict[str, int]) -> np.ndarray:
    """The head's input: each text's token columns (``token_vector``)."""
    return np.array([token_vector(t, vocab) for t in texts]).reshape(len(texts), len(vocab))


def targets(rows: Sequence[dict[str, Any]]) -> np.ndarray:
    """One column per output (``OUTPUTS``): 1.0 where the sentence does it."""
    y = np.zeros((len(rows), len(OUTPUTS)))
    for i, row in enumerate(rows):
        for label in row["labels"]:
            y[i, ACTS.index(label)] = 1.0
    y[:, -1] = y[:, [ACTS.index(a) for a in RULE_ACTS]].max(axis=1)
    return y


@dataclass(frozen=True)
class Head:
    """A one-hidden-layer network: ReLU units, then one sigmoid per act."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def hidden(self, x: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.maximum(x @ self.w1 + self.b1, 0.0)
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Its weights, in the order the head's file holds them."""
        return self.w1, self.b1, self.w2, self.b2

    def as_float32(self) -> Head:
        """The head as shipped: float32 weights."""
        return Head(*(a.astype("<f4").astype(np.float64) for a in self.arrays()))


def fit(
    x: np.ndarray,
    y: np.ndarray,
    *,
    hidden: int = HIDDEN,
    epochs: int = 200,
    rate: float = 3e-3,
    l2: float = 1e-3,
    seed: int = 0,
) -> Head:
    """A ``Head`` for ``y`` (one column per act), trained by full-batch Adam from a seeded
    start, so the same input gives the same weights. Each positive is weighted by its
    column's negatives over positives (at most 20): a rare act is not drowned by the
    common ones."""
    rng = np.random.default_rng(seed)
    params = [
        rng.normal(0.0, np.sqrt(2.0 / x.shape[1]), (x.shape[1], hidden)),
        np.zeros(hidden),
        rng.normal(0.0, np.sqrt(1.0 / hidden), (hidden, y.shape[1])),
        np.zeros(y.shape[1]),
    ]
    positives = y.sum(axis=0)
    balance = np.clip((len(y) - positives) / np.maximum(positives, 1.0), 1.0, 20.0)
    weight = np.where(y > 0, balance, 1.0)
    weight /= weight.sum(axis=0)
    first = [np.zeros_like(a) for a in params]
    second = [np.zeros_like(a) for a in params]
    for step in range(1, epochs + 1):
        w1, b1, w2, b2 = params
        h = np.maximum(x @ w1 + b1, 0.0)
        d = (1.0 / (1.0 + np.exp(-(h @ w2 + b2))) - y) * weight
        dh = (d @ w2.T) * (h > 0)
        grads = (x.T @ dh + l2 * w1, dh.sum(axis=0), h.T @ d + l2 * w2, d.sum(axis=0))
        for i, g in enumerate(grads):
            first[i] = 0.9 * first[i] + 0.1 * g
            second[i] = 0.999 * second[i] + 0.001 * g * g
            m, v = first[i] / (1 - 0.9**step), second[i] / (1 - 0.999**step)
            params[i] = params[i] - rate * m / (np.sqrt(v) + 1e-8)
    return Head(*params)


def predict_scores(head: Head, x: np.ndarray) -> np.ndarray:
    """Each act's probability for each row of ``x``."""
    scores: np.ndarray = 1.0 / (1.0 + np.exp(-(head.hidden(x) @ head.w2 + head.b2)))
    return scores


def _threshold(scores: np.ndarray, truth: np.ndarray, act: str) -> float:
    best, best_f1 = 0.5, -1.0
    for t in np.round(np.arange(0.05, 0.96, 0.01), 2):
        said = scores >= t
        tp = float((said & (truth > 0)).sum())
        precision = tp / max(float(said.sum()), 1.0)
        recall = tp / max(float(truth.sum()), 1.0)
        if act in (*RULE_ACTS, GATE):
            if precision >= RULE_PRECISION:
                return float(t)
            continue
        f1 = 2 * precision * recall / max(precision + recall, 1e-9)
        if f1 > best_f1:
            best, best_f1 = float(t), f1
    return best if act not in (*RULE_ACTS, GATE) else 0.95


def folded_scores(x: np.ndarray, y: np.ndarray, groups: Sequence[str]) -> np.ndarray:
    """Each train sentence's scores from a head fitted without its fold (by group)."""
    fold = np.array([int(hashlib.sha256(g.encode()).hexdigest()[:8], 16) % FOLDS for g in groups])
    scores = np.zeros_like(y)
    for k in range(FOLDS):
        inside = fold != k
        w = fit(x[inside], y[inside])
        scores[~inside] = predict_scores(w, x[~inside])
    return scores


def thresholds(scores: np.ndarray, y: np.ndarray) -> list[float]:
    """Each output's threshold from the train split's own held-out scores (``folded_scores``)."""
    return [_threshold(scores[:, j], y[:, j], act) for j, act in enumerate(OUTPUTS)]


def gated(scores: np.ndarray, cut: Sequence[float]) -> np.ndarray:
    """What the model does with the head's scores (the package's ``gated``, which the
    shipped head's ``acts`` reads through): a sentence the gate admits does the rule act
    scored highest of ``RULE_ACTS``, and no other rule act; the other acts keep their own
    thresholds. (Each rule act's own threshold, set for precision 0.95 alone, leaves most
    changes and cancels out, though the gate holds them.)

    >>> row = np.array([[0.3, 0.2, 0.5, 0, 0, 0, 0, 0, 0, 0, 0.9]])
    >>> gated(row, [0.5] * len(OUTPUTS))[0, :3].tolist()
    [False, False, True]
    """
    return gated_acts(scores, cut, OUTPUTS)


def per_act(said: np.ndarray, y: np.ndarray) -> dict[str, dict[str, float]]:
    """Precision, recall and support of each output (``OUTPUTS``)."""
    out = {}
    for j, act in enumerate(OUTPUTS):
        tp = float((said[:, j] & (y[:, j] > 0)).sum())
        out[act] = {
            "precision": tp / max(float(said[:, j].sum()), 1.0),
            "recall": tp / max(float(y[:, j].sum()), 1.0),
            "support": int(y[:, j].sum()),
        }
    return out


def confusion(scores: np.ndarray, rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Main act (the first label) against the act scored highest."""
    table: dict[str, dict[str, int]] = {a: dict.fromkeys(ACTS, 0) for a in ACTS}
    for row, s in zip(rows, scores, strict=True):
        table[row["labels"][0]][ACTS[int(np.argmax(s[: len(ACTS)]))]] += 1
    return table


#: The outputs the rules model (before the head) says anything about; silent on the rest.
BASELINE_ACTS = ("rule_set", "rule_change", "rule_cancel", "fact", "fact_change", "plan", GATE)


def baseline_said(rows: Sequence[dict[str, Any]]) -> np.ndarray:
    """What the rules model's extraction of each sentence (said by the user) amounts to,
    in acts: a rule found is a set or a change (its slot decides which, against what is
    held), a change named by its words (``CHANGE_SLOT``) a change, a rule with a negated
    value a cancel, a plan a plan, anything else found a fact or a change of one. Columns
    of the acts it is silent on stay False.

    >>> rule = {"role": "user", "text": "From now on, always answer in metric units."}
    >>> baseline_said([rule])[0, :3].tolist()
    [True, True, False]
    """
    said = np.zeros((len(rows), len(OUTPUTS)), dtype=bool)
    model, when = RulesModel(), datetime(2026, 3, 2, tzinfo=timezone.utc)
    for i, row in enumerate(rows):
        if row["role"] != "user":
            continue
        for fact in model.extract(Turn.of([("user", row["text"])], when=when)).facts:
            rule = rule_slot(fact.text) if fact.kind is Kind.PROCEDURAL else None
            if rule is not None:
                slot, value = rule
                cancel = slot == DROP_SLOT or value.startswith("!")
                acts: tuple[str, ...] = ("rule_cancel",) if cancel else ("rule_set", "rule_change")
                if slot == CHANGE_SLOT:  # a change of a rule held, named by its words
                    acts = ("rule_change",)
            elif fact.text.startswith("User plans"):  # the model's canonical plan
                acts = ("plan",)
            else:
                acts = ("fact", "fact_change")
            for act in acts:
                said[i, ACTS.index(act)] = True
    said[:, -1] = said[:, [ACTS.index(a) for a in RULE_ACTS]].any(axis=1)
    return said


def head_json(head: Head, cut: Sequence[float], vocab: dict[str, int]) -> str:
    """The head as the package is to load it: its outputs, thresholds, vocabulary (the
    token of each input column, in order) and the weights, float32 (little-endian, base64)."""

    def packed(a: np.ndarray) -> str:
        return base64.b64encode(a.astype("<f4").tobytes()).decode("ascii")

    return json.dumps(
        {
            "outputs": list(OUTPUTS),
            "thresholds": [round(t, 2) for t in cut],
            "hidden": int(head.w1.shape[1]),
            "vocabulary": sorted(vocab, key=vocab.__getitem__),
            **{
                name: packed(a)
                for name, a in zip(("w1", "b1", "w2", "b2"), head.arrays(), strict=True)
            },
        },
        indent=1,
    )


def render(report: dict[str, Any]) -> str:
    """The per-act table of a report: the head, and the rules model where it says anything."""
    lines = [
        f"test split: {report['test']} sentences (trained on {report['train']})",
        "",
        "| act | support | head precision | head recall | rules model precision "
        "| rules model recall |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for act, m in report["test_per_act"].items():
        b = report["test_per_act_rules_model"].get(act)
        old = f"{b['precision']:.3f} | {b['recall']:.3f}" if b else "- | -"
        lines.append(
            f"| {act} | {m['support']} | {m['precision']:.3f} | {m['recall']:.3f} | {old} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks acts-train``; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks acts-train", description=__doc__)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--out", type=Path, help="the head, as the package loads it")
    p.add_argument("--report", type=Path, help="per-act precision and recall, as JSON")
    p.add_argument(
        "--cv-only",
        action="store_true",
        help="report the train split's cross-validation alone (the test split unread)",
    )
    args = p.parse_args(argv)
    rows = load(args.corpus)
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    if not train or not test:
        print("the corpus needs both splits", file=sys.stderr)
        return 2
    vocab = vocabulary([r["text"] for r in train])
    x_train = features([r["text"] for r in train], vocab)
    y_train = targets(train)
    folded = folded_scores(x_train, y_train, [r["group"] for r in train])
    cut = thresholds(folded, y_train)
    if args.cv_only:
        alone, through = (
            per_act(folded >= np.array(cut), y_train),
            per_act(gated(folded, cut), y_train),
        )
        for act, m in alone.items():
            g = through[act]
            print(
                f"{act:<13} P {m['precision']:.3f} R {m['recall']:.3f} n {m['support']}"
                f"   gated: P {g['precision']:.3f} R {g['recall']:.3f}"
            )
        return 0
    head = fit(x_train, y_train)
    if args.out:
        shipped = head_json(head, cut, vocab)
        args.out.write_text(shipped, encoding="utf-8")
    x_test = features([r["text"] for r in test], vocab)
    scores = predict_scores(head.as_float32(), x_test)
    by_act = per_act(gated(scores, cut), targets(test))
    before = per_act(baseline_said(test), targets(test))
    report = {
        "train": len(train),
        "test": len(test),
        "thresholds": dict(zip(OUTPUTS, cut, strict=True)),
        "test_per_act": by_act,  # as the model is to use them: ``gated``
        "test_per_act_alone": per_act(scores >= np.array(cut), targets(test)),
        "test_per_act_rules_model": {a: before[a] for a in BASELINE_ACTS},
        "test_confusion": confusion(scores, test),
    }
    print(render(report))
    if args.report:
        args.report.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0
