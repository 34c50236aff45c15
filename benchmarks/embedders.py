"""Stand-in embedders the benchmarks share: hashed vectors, and vectors from a table.

They need nothing but numpy and langchain-core, so the peers' runner can use them inside the
peer's virtualenv as well.

>>> e = HashedUnitEmbeddings()
>>> TableEmbeddings(e, {}).embed_documents(["x"]) == e.embed_documents(["x"])
True
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, MutableMapping, Sequence
from typing import ClassVar

import numpy as np
from langchain_core.embeddings import Embeddings

#: Length of every vector here: LocalMiniLM's, so that a store can hold either.
DIM = 384


class HashedUnitEmbeddings(Embeddings):
    """A cheap stand-in embedder: unit vectors from an RNG seeded by each text's hash.

    The same text always gets the same vector, so a raw-Chroma baseline can be fed exactly
    the vectors the store received. ``seconds`` adds up the time spent in here, so that the
    store's own insert work can be reported apart from it.

    >>> e = HashedUnitEmbeddings()
    >>> v = e.embed_query("memory 1 of user:u1")
    >>> len(v), round(float(np.dot(v, v)), 4), v == e.embed_documents(["memory 1 of user:u1"])[0]
    (384, 1.0, True)
    """

    #: The store records this name and refuses other embedders on the same directory.
    name: ClassVar[str] = "bench-hashed-unit-384"

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self.seconds = 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text (float32 precision, like Chroma stores them)."""
        start = time.perf_counter()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
            rng = np.random.default_rng(int.from_bytes(digest, "little"))
            out[row] = rng.standard_normal(self.dim)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        vectors: list[list[float]] = out.tolist()
        self.seconds += time.perf_counter() - start
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """The vector of one text."""
        return self.embed_documents([text])[0]


class TableEmbeddings(Embeddings):
    """Vectors from a table, or from the live model for queries when ``live`` is set.

    Documents always come from the table (they were embedded once, up front); a query comes
    from the table while ``live`` is off ("vector given") and from ``model`` while it is on.

    >>> t = TableEmbeddings(HashedUnitEmbeddings(), {"a": [1.0, 0.0]})
    >>> t.embed_documents(["a"]), t.embed_query("a")
    ([[1.0, 0.0]], [1.0, 0.0])
    """

    def __init__(self, model: Embeddings, table: MutableMapping[str, list[float]]) -> None:
        self.model = model
        self.table = table
        self.live = False
        #: The store records the embedder's name: these are the model's vectors.
        self.name: str = getattr(model, "name", "") or type(model).__name__

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Table vectors (the model for a text not in the table)."""
        missing = [t for t in texts if t not in self.table]
        if missing:
            self.table.update(zip(missing, self.model.embed_documents(missing), strict=True))
        return [self.table[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The model's vector when ``live``, else the table's (the model's, kept in the
        table, for a text the table lacks: ``retrieve`` may leave names out of a query)."""
        if self.live:
            return self.model.embed_query(text)
        return self.embed_documents([text])[0]


class VectorTable(MutableMapping[str, list[float]]):
    """A text -> vector table over the rows of one float32 matrix (a ``TableEmbeddings``
    table for 100k texts without 100k lists of Python floats: a row becomes a list only
    when asked for). Texts set later are kept apart; the first row of a repeated text wins.

    >>> t = VectorTable(["a", "b", "a"], np.eye(3, 2, dtype=np.float32))
    >>> t["b"], len(t), "c" in t
    ([0.0, 1.0], 2, False)
    >>> t["c"] = [0.5, 0.5]; sorted(t)
    ['a', 'b', 'c']
    """

    def __init__(self, texts: Sequence[str], matrix: np.ndarray) -> None:
        if len(texts) != len(matrix):
            raise ValueError(f"{len(texts)} texts for {len(matrix)} rows")
        self.matrix = matrix
        self.rows: dict[str, int] = {}
        for i, text in enumerate(texts):
            self.rows.setdefault(text, i)
        self.extra: dict[str, list[float]] = {}

    def __getitem__(self, text: str) -> list[float]:
        row = self.rows.get(text)
        if row is None:
            return self.extra[text]
        vector: list[float] = self.matrix[row].tolist()
        return vector

    def __setitem__(self, text: str, vector: list[float]) -> None:
        self.rows.pop(text, None)
        self.extra[text] = vector

    def __delitem__(self, text: str) -> None:
        if self.rows.pop(text, None) is None:
            del self.extra[text]

    def __contains__(self, text: object) -> bool:
        return text in self.rows or text in self.extra

    def __iter__(self) -> Iterator[str]:
        yield from self.rows
        yield from self.extra

    def __len__(self) -> int:
        return len(self.rows) + len(self.extra)


def forget_queries(embeddings: object) -> None:
    """Empty the query vectors an embedder keeps for reuse (``LocalMiniLM.clear_recent``),
    through wrappers that hold it as ``inner`` or ``model``. Paths timed on the same texts
    call it between blocks, so that none is timed on vectors another one paid for.

    >>> forget_queries(HashedUnitEmbeddings())  # keeps nothing: a no-op
    """
    seen: set[int] = set()
    while embeddings is not None and id(embeddings) not in seen:
        seen.add(id(embeddings))
        clear = getattr(embeddings, "clear_recent", None)
        if callable(clear):
            clear()
        embeddings = getattr(embeddings, "inner", None) or getattr(embeddings, "model", None)
