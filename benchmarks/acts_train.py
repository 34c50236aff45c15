"""Train the classifier of acts on the corpus's train split, and measure it on its test split.

The corpus (``benchmarks/acts/sentences.jsonl``, see its README) labels each sentence with
what it does. The classifier is a small head on the shipped MiniLM's sentence vectors: one
logistic regression per act (a sentence may do two), trained by full-batch gradient descent
from zeros in float64, so the same corpus gives the same weights, bit for bit. Each act's
threshold is chosen on the train split alone, by cross-validation over its groups (the
highest F1, and for the rule acts the lowest threshold whose precision reaches
``RULE_PRECISION``). The test split is read once, at the end, for the report::

    python -m benchmarks acts-train --out /tmp/acts_head.json --report /tmp/acts.json

>>> y = np.array([[1.0, 0.0], [0.0, 1.0]])
>>> w = fit(np.array([[1.0, 0.0], [0.0, 1.0]]), y, epochs=200)
>>> (predict_scores(w, np.array([[1.0, 0.0]])) > 0.5).tolist()
[[True, False]]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_memory.embeddings import LocalMiniLM

__all__ = ["ACTS", "fit", "load", "main", "predict_scores"]

#: The acts, in the head's order (the corpus README defines them).
ACTS = (
    "rule_set",
    "rule_change",
    "rule_cancel",
    "fact",
    "fact_change",
    "plan",
    "question",
    "other_person",
    "small_talk",
    "not_user",
)
RULE_ACTS = ("rule_set", "rule_change", "rule_cancel")
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


def targets(rows: Sequence[dict[str, Any]]) -> np.ndarray:
    """One column per act: 1.0 where the sentence does it."""
    y = np.zeros((len(rows), len(ACTS)))
    for i, row in enumerate(rows):
        for label in row["labels"]:
            y[i, ACTS.index(label)] = 1.0
    return y


def _with_bias(x: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((x.shape[0], 1))])


def fit(
    x: np.ndarray, y: np.ndarray, *, epochs: int = 400, rate: float = 2.0, l2: float = 1e-3
) -> np.ndarray:
    """Weights (acts x (features + 1)) of one logistic regression per column of ``y``,
    each positive weighted by its column's negatives over positives (at most 20), so a
    rare act is not drowned by the common ones."""
    xb = _with_bias(x)
    w = np.zeros((y.shape[1], xb.shape[1]))
    positives = y.sum(axis=0)
    balance = np.clip((len(y) - positives) / np.maximum(positives, 1.0), 1.0, 20.0)
    weight = np.where(y > 0, balance, 1.0)
    norm = weight.sum(axis=0)
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(xb @ w.T)))
        grad = ((p - y) * weight / norm).T @ xb + l2 * np.hstack([w[:, :-1], np.zeros((len(w), 1))])
        w -= rate * grad
    return w


def predict_scores(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each act's probability for each row of ``x``."""
    scores: np.ndarray = 1.0 / (1.0 + np.exp(-(_with_bias(x) @ w.T)))
    return scores


def _threshold(scores: np.ndarray, truth: np.ndarray, act: str) -> float:
    best, best_f1 = 0.5, -1.0
    for t in np.round(np.arange(0.05, 0.96, 0.01), 2):
        said = scores >= t
        tp = float((said & (truth > 0)).sum())
        precision = tp / max(float(said.sum()), 1.0)
        recall = tp / max(float(truth.sum()), 1.0)
        if act in RULE_ACTS:
            if precision >= RULE_PRECISION:
                return float(t)
            continue
        f1 = 2 * precision * recall / max(precision + recall, 1e-9)
        if f1 > best_f1:
            best, best_f1 = float(t), f1
    return best if act not in RULE_ACTS else 0.95


def thresholds(x: np.ndarray, y: np.ndarray, groups: Sequence[str]) -> list[float]:
    """Each act's threshold from the train split's own held-out folds (by group)."""
    fold = np.array([int(hashlib.sha256(g.encode()).hexdigest()[:8], 16) % FOLDS for g in groups])
    scores = np.zeros_like(y)
    for k in range(FOLDS):
        inside = fold != k
        w = fit(x[inside], y[inside])
        scores[~inside] = predict_scores(w, x[~inside])
    return [_threshold(scores[:, j], y[:, j], act) for j, act in enumerate(ACTS)]


def per_act(said: np.ndarray, y: np.ndarray) -> dict[str, dict[str, float]]:
    """Precision, recall and support of each act."""
    out = {}
    for j, act in enumerate(ACTS):
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
        table[row["labels"][0]][ACTS[int(np.argmax(s))]] += 1
    return table


def head_json(w: np.ndarray, cut: Sequence[float], model: str) -> str:
    """The head as the package loads it: acts, thresholds and float32 weights."""
    return json.dumps(
        {
            "acts": list(ACTS),
            "embedder": model,
            "thresholds": [round(t, 2) for t in cut],
            "shape": list(w.shape),
            "weights": base64.b64encode(w.astype("<f4").tobytes()).decode("ascii"),
        },
        indent=1,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks acts-train``; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks acts-train", description=__doc__)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--out", type=Path, required=True, help="the head, as the package loads it")
    p.add_argument("--report", type=Path, help="per-act precision and recall, as JSON")
    args = p.parse_args(argv)
    rows = load(args.corpus)
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    if not train or not test:
        print("the corpus needs both splits", file=sys.stderr)
        return 2
    embedder = LocalMiniLM()
    x_train = np.array(embedder.embed_documents([r["text"] for r in train]))
    y_train = targets(train)
    cut = thresholds(x_train, y_train, [r["group"] for r in train])
    w = fit(x_train, y_train)
    args.out.write_text(head_json(w, cut, "all-MiniLM-L6-v2-onnx-int8"), encoding="utf-8")
    x_test = np.array(embedder.embed_documents([r["text"] for r in test]))
    scores = predict_scores(w.astype("<f4").astype(np.float64), x_test)
    said = scores >= np.array(cut)
    by_act = per_act(said, targets(test))
    report = {
        "train": len(train),
        "test": len(test),
        "thresholds": dict(zip(ACTS, cut, strict=True)),
        "test_per_act": by_act,
        "test_confusion": confusion(scores, test),
    }
    print(f"{'act':<13} {'precision':>9} {'recall':>7} {'support':>7}")
    for act, m in by_act.items():
        print(f"{act:<13} {m['precision']:>9.3f} {m['recall']:>7.3f} {m['support']:>7d}")
    if args.report:
        args.report.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0
