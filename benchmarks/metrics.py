"""Retrieval metrics: LoCoMo evidence recall and LongMemEval's recall/NDCG.

LongMemEval's functions follow upstream ``src/retrieval/eval_utils.py``
exactly, quirks included, so numbers compare with the paper's:

- ``dcg`` gives the first two ranks full weight (``rel[0] + sum(rel[i] / log2(i + 1))``
  for i >= 1), and the ideal DCG is over the whole corpus's labels;
- a question with no gold item scores recall_any 0, recall_all 1 and NDCG 0;
- session metrics are computed on the turn ranking: k grows until the first k
  turns span k distinct sessions (or the corpus ends), so sessions are ranked by
  their first turn; a session is gold when one of its corpus turns is gold.

>>> recall_fraction(["D1:1", "D2:4"], {"D2:4", "D9:9"})
0.5
>>> lme_turn_metrics(["a_1", "b_1"], {"a_1"}, ["b_1", "a_1"], k=1)
(1.0, 1.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence


def recall_fraction(gold: Collection[str], found: Collection[str]) -> float:
    """The share of ``gold`` ids that are in ``found`` (LoCoMo's "recall accuracy").

    ``found`` is the set of units the top-k memories stand for: a turn in raw
    mode, or the turns an observation cites.

    >>> recall_fraction({"a", "b"}, {"a", "x"}), recall_fraction({"a"}, set())
    (0.5, 0.0)
    """
    wanted = set(gold)
    if not wanted:
        raise ValueError("recall of an empty gold set is undefined; skip the question")
    return len(wanted & set(found)) / len(wanted)


def dcg(relevances: Sequence[float], k: int) -> float:
    """Upstream LongMemEval's DCG@k: ranks 1 and 2 both count in full.

    >>> dcg([1, 1, 0, 1], k=4)  # 1 + 1/log2(2) + 0 + 1/log2(4)
    2.5
    """
    rel = list(relevances)[:k]
    if not rel:
        return 0.0
    return rel[0] + sum(r / math.log2(i + 1) for i, r in enumerate(rel[1:], start=1))


def ndcg(ranked: Sequence[str], gold: Collection[str], corpus: Sequence[str], k: int) -> float:
    """Upstream's NDCG@k of a ranking of corpus ids; the ideal is over every corpus label.

    >>> ndcg(["x", "g"], {"g"}, ["g", "x"], k=2), ndcg(["x"], set(), ["x"], k=1)
    (1.0, 0.0)
    >>> round(ndcg(["x", "y", "g"], {"g"}, ["g", "x", "y"], k=3), 3)
    0.631
    """
    labels = sorted((1.0 if c in gold else 0.0 for c in corpus), reverse=True)
    ideal = dcg(labels, k)
    if ideal == 0:
        return 0.0
    return dcg([1.0 if r in gold else 0.0 for r in ranked[:k]], k) / ideal


def lme_turn_metrics(
    ranked: Sequence[str], gold: Collection[str], corpus: Sequence[str], k: int
) -> tuple[float, float, float]:
    """``(recall_any, recall_all, ndcg_any)`` at ``k`` of a full ranking of corpus ids.

    >>> lme_turn_metrics(["x", "g1"], {"g1", "g2"}, ["g1", "g2", "x"], k=2)[:2]
    (1.0, 0.0)
    >>> lme_turn_metrics(["x"], set(), ["x"], k=1)
    (0.0, 1.0, 0.0)
    """
    top = set(ranked[:k])
    recall_any = float(any(g in top for g in gold))
    recall_all = float(all(g in top for g in gold))
    return recall_any, recall_all, ndcg(ranked, gold, corpus, k)


def session_of(turn_id: str) -> str:
    """The session of an upstream turn id ``<session_id>_<n>`` (upstream's ``strip_turn_id``).

    >>> session_of("answer_61d1be50_1_3")
    'answer_61d1be50_1'
    """
    return turn_id.rsplit("_", 1)[0]


def lme_session_metrics(
    ranked: Sequence[str], gold: Collection[str], corpus: Sequence[str], k: int
) -> tuple[float, float, float]:
    """Upstream's ``evaluate_retrieval_turn2session``: session metrics from a turn ranking.

    ``ranked``, ``gold`` and ``corpus`` hold turn ids; each maps to its session
    with :func:`session_of`.

    >>> corpus = ["s1_1", "s1_2", "s2_1", "s3_1"]
    >>> lme_session_metrics(["s1_1", "s1_2", "s3_1", "s2_1"], {"s2_1"}, corpus, k=2)
    (0.0, 0.0, 0.0)
    >>> lme_session_metrics(["s1_1", "s1_2", "s2_1", "s3_1"], {"s2_1"}, corpus, k=2)[:2]
    (1.0, 1.0)
    """
    gold_sessions = {session_of(g) for g in gold}
    sessions = [session_of(r) for r in ranked]
    corpus_sessions = [session_of(c) for c in corpus]
    effective = k
    # Upstream grows k one turn at a time while fewer than k sessions are covered, up to
    # len(corpus) + 1; a ranking cut short behaves the same once it runs out.
    while effective <= len(corpus_sessions) and len(set(sessions[:effective])) < k:
        effective += 1
    return lme_turn_metrics(sessions, gold_sessions, corpus_sessions, effective)


def mean(values: Iterable[float]) -> float | None:
    """The mean, or None for no values (a table shows "-").

    >>> mean([1.0, 0.0]), mean([])
    (0.5, None)
    """
    items = list(values)
    return sum(items) / len(items) if items else None
