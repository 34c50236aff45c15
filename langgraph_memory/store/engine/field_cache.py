"""The vectors per field of a scope's BaseStore items, kept in memory between searches.

An item whose index paths hold several texts keeps a vector per text in its record's
metadata (``FieldVectors``), and a search with a query scores it by its best. Chroma
reads such metadata slowly: 2,000 items of 3 fields (384 dimensions) took about
250 ms to read, where their ids alone took 16 ms. So a search reads the ids of those
items, and the vectors of the ones it has not seen, once: here they are kept per
collection (by its id), one normalised float32 matrix of every item's rows, with the
ids they belong to (a record is never rewritten under its id: a change is a new
version with a new id). A search whose ids are those kept costs one matrix product;
other ids rebuild the matrix, reading only the records not seen. At most
``MAX_BYTES`` are kept; past it the least recently used collections go.

Which items those are is kept too (``several``), against the generation of the
scope's lexical index, which changes with every change of its active versions, in
this process or (once the index is brought in step) in another: reading the ids on
every search cost a Chroma read of about 1 ms that most searches, of scopes with
none, paid for nothing. The scores
a search returns are computed again from the records it returns (``basestore``),
which also finds an entry that no longer says what its record says.

>>> import numpy as np
>>> cache = FieldCache()
>>> read = lambda ids: {i: np.array([[1.0, 0.0], [0.0, 2.0]]) for i in ids if i == "a"}
>>> cache.best("c", ["a", "b"], [0.0, 1.0], read)
{'a': 1.0}
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MAX_BYTES", "MAX_SCOPES", "FieldCache"]

#: The most bytes of vectors kept per store (64 MiB: 14,000 items of 3 fields at 384
#: dimensions).
MAX_BYTES = 64 << 20
#: Collections whose ids of items with a vector per text are kept (least recently
#: used first out).
MAX_SCOPES = 4096

#: Reads the vectors per field of the listed records (a matrix each, one row per
#: text); a record without is left out.
Reader = Callable[[list[str]], Mapping[str, Any]]


@dataclass(frozen=True)
class _Stack:
    """One collection's items: their ids, and every item's rows one after another."""

    ids: tuple[str, ...]
    rows: Any  # float32, normalised
    starts: Any  # where each item's rows start
    counts: Any

    def rows_by_id(self) -> dict[str, Any]:
        return {
            i: self.rows[start : start + count]
            for i, start, count in zip(self.ids, self.starts, self.counts, strict=True)
        }


class FieldCache:
    """The normalised vectors per field of the items of recently searched collections."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self._lock = threading.Lock()
        self._held: OrderedDict[str, _Stack] = OrderedDict()
        self._max = max_bytes
        self._several: OrderedDict[str, tuple[int, list[str]]] = OrderedDict()

    def several(self, collection: str, generation: int, read: Callable[[], list[str]]) -> list[str]:
        """The ids of the items with a vector per text in ``collection``: those kept for
        ``generation`` (of the scope's lexical index), else ``read()`` and kept. Read
        the generation before calling: a change in between leaves a newer one, so what
        is kept is never older than its key.

        >>> cache = FieldCache()
        >>> cache.several("c", 1, lambda: ["a"]), cache.several("c", 1, lambda: ["b"])
        (['a'], ['a'])
        >>> cache.several("c", 2, lambda: ["b"])
        ['b']
        """
        with self._lock:
            held = self._several.get(collection)
            if held is not None and held[0] == generation:
                self._several.move_to_end(collection)
                return held[1]
        ids = read()
        with self._lock:
            self._several[collection] = (generation, ids)
            self._several.move_to_end(collection)
            while len(self._several) > MAX_SCOPES:
                self._several.popitem(last=False)
        return ids

    def best(
        self, collection: str, ids: Sequence[str], vector: Sequence[float], read: Reader
    ) -> dict[str, float]:
        """The best cosine to ``vector`` of each item among ``ids``, by the vectors kept
        for ``collection`` (those it lacks read with ``read``, once). An id ``read``
        finds nothing for is left out."""
        stack = self._stack(collection, tuple(ids), read)
        if not stack.ids:
            return {}
        q = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return dict.fromkeys(stack.ids, 0.0)
        best = np.maximum.reduceat(stack.rows @ (q / norm), stack.starts)
        return dict(zip(stack.ids, best.astype(np.float64).tolist(), strict=True))

    def _stack(self, collection: str, ids: tuple[str, ...], read: Reader) -> _Stack:
        with self._lock:
            stack = self._held.get(collection)
            if stack is not None:
                self._held.move_to_end(collection)
                if stack.ids == ids:
                    return stack
        known = stack.rows_by_id() if stack is not None else {}
        new = {i: _normalised(m) for i, m in read([i for i in ids if i not in known]).items()}
        parts = [(i, known[i] if i in known else new[i]) for i in ids if i in known or i in new]
        counts = np.array([len(m) for _, m in parts], dtype=np.intp)
        made = _Stack(
            tuple(i for i, _ in parts),
            np.vstack([m for _, m in parts]) if parts else np.zeros((0, 0), np.float32),
            np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intp),
            counts,
        )
        with self._lock:
            self._held[collection] = made
            self._held.move_to_end(collection)
            total = sum(s.rows.nbytes for s in self._held.values())
            while total > self._max and len(self._held) > 1:
                _, dropped = self._held.popitem(last=False)
                total -= dropped.rows.nbytes
        return made

    def forget(self, collection: str | None = None) -> None:
        """Drop what is kept of ``collection`` (None: everything; a purge does)."""
        with self._lock:
            if collection is None:
                self._held.clear()
                self._several.clear()
            else:
                self._held.pop(collection, None)
                self._several.pop(collection, None)


def _normalised(matrix: Any) -> Any:
    rows = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0).astype(np.float32)
