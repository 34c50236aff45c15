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

Each document carries the id of its entry, so a ranking names its entries without a
lookup in the database (about 0.2 ms a read at 100k). The top ``k`` is taken without
sorting every document that holds a query word (at 100k a common word is in tens of
thousands): the ``k``-th best score among the documents of the rarest term that has ``k``
of them is a bar no better than the true ``k``-th, and only the documents at or above
it are compared (1.1 ms -> 0.3 ms p50 at 100k real-text turns, the same ranking).

>>> p = Postings.build([(1, "tea tea cup", "a"), (2, "cup", "b"), (3, "kettle", "c")])
>>> [(i, round(s, 3)) for i, s in p.top({"tea": 1.0, "cup": 0.5}, avgdl=5 / 3, k=2)]
[('a', 1.499), ('b', 0.598)]
>>> p.changed(1, "a", None); p.changed(4, "d", "tea")
>>> [i for i, _ in p.top({"tea": 1.0}, avgdl=1.0, k=5)]
['d']
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
        ids: list[str],
        lengths: np.ndarray,
        vocab: dict[str, int],
        offsets: np.ndarray,
        slots: np.ndarray,
        tfs: np.ndarray,
    ) -> None:
        self._rowids = rowids  # slot -> rowid
        self._ids = ids  # slot -> the entry's id
        self._slot_of = {int(r): i for i, r in enumerate(rowids.tolist())}
        self._lengths = lengths  # slot -> tokens in its document
        self._vocab = vocab  # term -> its postings' place in offsets
        self._offsets = offsets
        self._slots = slots
        self._tfs = tfs
        self._dead = np.zeros(len(rowids), dtype=bool)  # slots changed or removed since
        self._dead_count = 0
        # rowid -> id, terms, length of the documents changed since the build
        self._fresh: dict[int, tuple[str, Counter[str], int]] = {}
        self._fresh_with: dict[str, set[int]] = {}  # term -> fresh rowids holding it
        # What FTS5's "averages" record holds (bm25's N and average length): kept here.
        self._documents = len(rowids)
        self._tokens = int(lengths.sum())

    @classmethod
    def build(cls, documents: Iterable[tuple[int, str, str]]) -> Postings:
        """The postings of ``(rowid, document, id)`` triples; a document is its terms,
        split on spaces (the index's ``ascii`` tokenizer sees the same tokens)."""
        rowids: list[int] = []
        ids: list[str] = []
        lengths: list[int] = []
        term_ids: list[int] = []
        doc_slots: list[int] = []
        vocab: dict[str, int] = {}
        for slot, (rowid, body, entry) in enumerate(documents):
            words = body.split()
            rowids.append(rowid)
            ids.append(entry)
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
            ids,
            np.asarray(lengths, dtype=np.float64),
            vocab,
            offsets,
            (keys % n).astype(np.int32),
            tfs.astype(np.float32),  # small integers: exact, half the memory
        )

    @property
    def drift(self) -> int:
        """How many documents it carries outside its arrays (changed since the build)."""
        return self._dead_count + len(self._fresh)

    def __len__(self) -> int:
        return len(self._rowids)

    def changed(self, rowid: int, entry: str, document: str | None) -> None:
        """Follow a change of the document at ``rowid`` (of the entry ``entry``): its
        new terms, or None when it was removed."""
        slot = self._slot_of.get(rowid)
        if slot is not None and not self._dead[slot]:
            self._dead[slot] = True
            self._dead_count += 1
            self._documents -= 1
            self._tokens -= int(self._lengths[slot])
        old = self._fresh.pop(rowid, None)
        if old is not None:
            for term in old[1]:
                self._fresh_with[term].discard(rowid)
            self._documents -= 1
            self._tokens -= old[2]
        if document is not None:
            words = document.split()
            counts = Counter(words)
            self._fresh[rowid] = (entry, counts, len(words))
            for term in counts:
                self._fresh_with.setdefault(term, set()).add(rowid)
            self._documents += 1
            self._tokens += len(words)

    def totals(self) -> tuple[int, int]:
        """How many documents there are, and how many tokens they hold together.

        >>> Postings.build([(1, "tea tea cup", "a"), (2, "cup", "b")]).totals()
        (2, 4)
        """
        return self._documents, self._tokens

    def df(self, term: str) -> int:
        """How many documents hold ``term``.

        >>> p = Postings.build([(1, "tea tea cup", "a"), (2, "cup", "b")])
        >>> p.changed(2, "b", "tea"); p.df("tea"), p.df("cup"), p.df("mug")
        (2, 1, 0)
        """
        at = self._vocab.get(term)
        held = 0
        if at is not None:
            start, end = self._offsets[at], self._offsets[at + 1]
            held = int(end - start)
            if self._dead_count:
                held -= int(np.count_nonzero(self._dead[self._slots[start:end]]))
        return held + len(self._fresh_with.get(term, ()))

    def top(self, idf: Mapping[str, float], avgdl: float, k: int) -> list[tuple[str, float]]:
        """The ``k`` best ``(id, score)`` by BM25 over the terms of ``idf``, best first
        (equal scores: the earlier document first); documents without any term are
        left out."""
        avgdl = avgdl or 1.0
        held: list[np.ndarray] = []  # each term's slots, and what it adds to their scores
        adds: list[np.ndarray] = []
        for term, weight in idf.items():
            at = self._vocab.get(term)
            if at is None:
                continue
            start, end = self._offsets[at], self._offsets[at + 1]
            slots = self._slots[start:end]
            tf = self._tfs[start:end].astype(np.float64)
            norm = K1 * (1.0 - B + B * self._lengths[slots] / avgdl)
            held.append(slots)
            adds.append(weight * tf * (K1 + 1.0) / (tf + norm))
        found: list[tuple[int, str, float]] = []
        if held:
            # Summed term by term in the query's order, as a scatter-add per term would.
            scores = np.bincount(
                np.concatenate(held), weights=np.concatenate(adds), minlength=len(self._rowids)
            )
            if self._dead_count:
                scores[self._dead] = 0.0
            found = [
                (int(self._rowids[s]), self._ids[s], float(scores[s]))
                for s in _best(scores, held, k).tolist()
            ]
        fresh: dict[int, float] = {}  # the changed documents holding a term, scored here
        for term, weight in idf.items():
            for rowid in self._fresh_with.get(term, ()):
                _, counts, length = self._fresh[rowid]
                n = counts[term]
                norm = K1 * (1.0 - B + B * length / avgdl)
                fresh[rowid] = fresh.get(rowid, 0.0) + weight * n * (K1 + 1.0) / (n + norm)
        found += [(r, self._fresh[r][0], score) for r, score in fresh.items() if score > 0]
        found.sort(key=lambda hit: (-hit[2], hit[0]))
        return [(entry, score) for _, entry, score in found[:k]]


def _best(scores: np.ndarray, held: list[np.ndarray], k: int) -> np.ndarray:
    """The slots of the ``k`` best ``scores`` above 0, and every slot tied with the
    ``k``-th. ``held`` lists the slots of each term, those that can score.

    A bar comes from the rarest term that holds ``k`` live documents: the ``k``-th best
    of their (whole) scores is at most the ``k``-th best of all, so every document of
    the top ``k`` is at or above it, and only those are compared.

    >>> scores = np.float64([0.0, 3.0, 1.0, 2.0, 0.5])
    >>> _best(scores, [np.int32([1, 2]), np.int32([1, 2, 3, 4])], 2).tolist()
    [1, 3]
    """
    for slots in sorted(held, key=len):
        if len(slots) < k:
            continue
        live = scores[slots]
        live = live[live > 0]
        if len(live) >= k:
            bar = np.partition(live, len(live) - k)[len(live) - k]
            hit = np.flatnonzero(scores >= bar)
            break
    else:  # no term holds k live documents: together they hold few
        hit = np.unique(np.concatenate(held))
        hit = hit[scores[hit] > 0]
    if len(hit) > k:  # the k best, and every document tied with the k-th
        kth = -np.partition(-scores[hit], k - 1)[k - 1]
        hit = hit[scores[hit] >= kth]
    return hit
