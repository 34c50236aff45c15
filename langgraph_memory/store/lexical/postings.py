"""BM25 top-k over one index's documents from postings held in memory as numpy arrays.

FTS5 ranks a ``MATCH 'a OR b OR c'`` by calling ``bm25()`` on every row that holds any of
the terms: at 100k real-text turns a read's lexical side took 32.6 ms p50 for that alone,
when the embedder and Chroma's nearest-neighbour query together take about 7 ms (see
``docs/lexical_choice.md``, where tantivy, bm25s and pruned FTS5 queries were measured
too). Here each term's postings (document slots and term frequencies) are two arrays, so
one term's contribution to every document's score is a few vector operations, whatever
its length, and the top k is one partition: about 1 ms at 100k.

The scores are FTS5's: the caller passes each term's idf from FTS5's own counts and the
average length from FTS5's own totals, and this module sums ``idf * tf * (k1 + 1) /
(tf + k1 * (1 - b + b * len / avgdl))`` as ``bm25()`` does (``tests/test_lexical.py``
compares both on every write). FTS5 stays the durable index: this is a copy in memory,
built from its documents, that follows every change the index makes (``changed``), and
is rebuilt when the changes it carries on top of its arrays grow.

>>> p = Postings.build([(1, "tea tea cup"), (2, "cup"), (3, "kettle")])
>>> [(r, round(s, 3)) for r, s in p.top({"tea": 1.0, "cup": 0.5}, avgdl=5 / 3, k=2)]
[(1, 1.499), (2, 0.598)]
>>> p.changed(1, None); p.changed(4, "tea")
>>> [r for r, _ in p.top({"tea": 1.0}, avgdl=1.0, k=5)]
[4]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np

__all__ = ["K1", "B", "Postings"]

#: FTS5's ``bm25()`` parameters (its defaults).
K1 = 1.2
B = 0.75


class Postings:
    """Every term's postings of a set of documents (``build``), plus the documents
    changed since (``changed``). Not thread-safe: the index's lock guards it."""

    def __init__(
        self,
        rowids: np.ndarray,
        lengths: np.ndarray,
        vocab: dict[str, int],
        offsets: np.ndarray,
        slots: np.ndarray,
        tfs: np.ndarray,
    ) -> None:
        self._rowids = rowids  # slot -> rowid
        self._slot_of = {int(r): i for i, r in enumerate(rowids.tolist())}
        self._lengths = lengths  # slot -> tokens in its document
        self._vocab = vocab  # term -> its postings' place in offsets
        self._offsets = offsets
        self._slots = slots
        self._tfs = tfs
        self._dead = np.zeros(len(rowids), dtype=bool)  # slots changed or removed since
        self._fresh: dict[int, tuple[Counter[str], int]] = {}  # rowid -> terms, length
        self._fresh_with: dict[str, set[int]] = {}  # term -> fresh rowids holding it
        # What FTS5's "averages" record holds (bm25's N and average length): kept here.
        self._documents = len(rowids)
        self._tokens = int(lengths.sum())

    @classmethod
    def build(cls, documents: Iterable[tuple[int, str]]) -> Postings:
        """The postings of ``(rowid, document)`` pairs; a document is its terms, split
        on spaces (the index's ``ascii`` tokenizer sees the same tokens)."""
        rowids: list[int] = []
        lengths: list[int] = []
        term_ids: list[int] = []
        doc_slots: list[int] = []
        vocab: dict[str, int] = {}
        for slot, (rowid, body) in enumerate(documents):
            words = body.split()
            rowids.append(rowid)
            lengths.append(len(words))
            term_ids.extend([vocab.setdefault(w, len(vocab)) for w in words])
            doc_slots.extend([slot] * len(words))
        n = max(len(rowids), 1)
        # One key per (term, document): sorted, counted, cut per term.
        keys, tfs = np.unique(
            np.asarray(term_ids, dtype=np.int64) * n + np.asarray(doc_slots, dtype=np.int64),
            return_counts=True,
        )
        offsets = np.searchsorted(keys // n, np.arange(len(vocab) + 1))
        return cls(
            np.asarray(rowids, dtype=np.int64),
            np.asarray(lengths, dtype=np.float64),
            vocab,
            offsets,
            (keys % n).astype(np.int32),
            tfs.astype(np.float32),  # small integers: exact, half the memory
        )

    @property
    def drift(self) -> int:
        """How many documents it carries outside its arrays (changed since the build)."""
        return int(self._dead.sum()) + len(self._fresh)

    def __len__(self) -> int:
        return len(self._rowids)

    def changed(self, rowid: int, document: str | None) -> None:
        """Follow a change of the document at ``rowid``: its new terms, or None when
        it was removed."""
        slot = self._slot_of.get(rowid)
        if slot is not None and not self._dead[slot]:
            self._dead[slot] = True
            self._documents -= 1
            self._tokens -= int(self._lengths[slot])
        old = self._fresh.pop(rowid, None)
        if old is not None:
            for term in old[0]:
                self._fresh_with[term].discard(rowid)
            self._documents -= 1
            self._tokens -= old[1]
        if document is not None:
            words = document.split()
            counts = Counter(words)
            self._fresh[rowid] = (counts, len(words))
            for term in counts:
                self._fresh_with.setdefault(term, set()).add(rowid)
            self._documents += 1
            self._tokens += len(words)

    def totals(self) -> tuple[int, int]:
        """How many documents there are, and how many tokens they hold together.

        >>> Postings.build([(1, "tea tea cup"), (2, "cup")]).totals()
        (2, 4)
        """
        return self._documents, self._tokens

    def df(self, term: str) -> int:
        """How many documents hold ``term``.

        >>> p = Postings.build([(1, "tea tea cup"), (2, "cup")])
        >>> p.changed(2, "tea"); p.df("tea"), p.df("cup"), p.df("mug")
        (2, 1, 0)
        """
        at = self._vocab.get(term)
        held = 0
        if at is not None:
            slots = self._slots[self._offsets[at] : self._offsets[at + 1]]
            held = len(slots) - int(np.count_nonzero(self._dead[slots]))
        return held + len(self._fresh_with.get(term, ()))

    def top(self, idf: Mapping[str, float], avgdl: float, k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``(rowid, score)`` by BM25 over the terms of ``idf``, best
        first (equal scores: lower rowid first); documents without any term are left out."""
        avgdl = avgdl or 1.0
        scores = np.zeros(len(self._rowids), dtype=np.float64)
        for term, weight in idf.items():
            at = self._vocab.get(term)
            if at is None:
                continue
            slots = self._slots[self._offsets[at] : self._offsets[at + 1]]
            tf = self._tfs[self._offsets[at] : self._offsets[at + 1]].astype(np.float64)
            norm = K1 * (1.0 - B + B * self._lengths[slots] / avgdl)
            scores[slots] += weight * tf * (K1 + 1.0) / (tf + norm)
        scores[self._dead] = 0.0
        hit = np.flatnonzero(scores)
        if len(hit) > k:  # the k best, and every document tied with the k-th
            kth = -np.partition(-scores[hit], k - 1)[k - 1]
            hit = hit[scores[hit] >= kth]
        found = [(int(self._rowids[s]), float(scores[s])) for s in hit]
        fresh: dict[int, float] = {}  # the changed documents holding a term, scored here
        for term, weight in idf.items():
            for rowid in self._fresh_with.get(term, ()):
                counts, length = self._fresh[rowid]
                n = counts[term]
                norm = K1 * (1.0 - B + B * length / avgdl)
                fresh[rowid] = fresh.get(rowid, 0.0) + weight * n * (K1 + 1.0) / (n + norm)
        found += [(rowid, score) for rowid, score in fresh.items() if score > 0]
        found.sort(key=lambda pair: (-pair[1], pair[0]))
        return found[:k]
