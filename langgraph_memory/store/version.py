"""A memory as the store holds it (``Version``) and as a search finds it (``Hit``).

Plain records, no I/O: ``collection_io`` reads and writes them in Chroma.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory
>>> m = Memory(id="a1b2c3d4", text="Likes tea.", scope="user:a",
...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
>>> Version(m, key=m.id).successor(m, [0.0], None).chain_start.year
2026
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from langgraph_memory.records import Memory

__all__ = ["FieldVectors", "Hit", "Version", "unindexed_vector"]


@dataclass(frozen=True)
class Hit:
    """A memory found by a search, with its score (higher is better).

    For ``nearest`` the score is the cosine similarity; for ``keyword`` its
    BM25 divided by the most the query's terms could score (1.0 for a memory
    named by its id). Both lie in [0, 1] for the normalised vectors the store uses.

    Args:
        memory: the memory found.
        score: how well it matched (higher is better).
    """

    memory: Memory
    score: float


@dataclass(frozen=True)
class FieldVectors:
    """The vectors of an item whose index paths hold several texts (fields, or the
    matches of a path such as ``"items[*].text"``), one per text, in their order:
    a BaseStore search scores the item by its best, as LangGraph's stores do.

    ``paths`` are the paths they came from (the put's ``index``, else the store's
    ``fields``): with the item's value they give the texts back (an import embeds
    them again). ``encoded`` is the vectors' float32 bytes, row after row, in
    base64: one Chroma metadata string.

    >>> f = FieldVectors.of(("a", "b"), [[1.0, 0.0], [0.5, 0.25]])
    >>> f.count, f.matrix().tolist()
    (2, [[1.0, 0.0], [0.5, 0.25]])
    """

    paths: tuple[str, ...]
    count: int
    encoded: str

    @classmethod
    def of(cls, paths: Sequence[str], vectors: Sequence[Sequence[float]]) -> FieldVectors:
        raw = np.asarray(vectors, dtype="<f4").tobytes()
        return cls(tuple(paths), len(vectors), base64.b64encode(raw).decode("ascii"))

    @classmethod
    def pending(cls, paths: Sequence[str]) -> FieldVectors:
        """The paths alone, their vectors not made yet (``count`` 0): what an import
        reads, before it embeds the texts at the paths."""
        return cls(tuple(paths), 0, "")

    def matrix(self) -> Any:
        """The vectors, one row per text (float64)."""
        flat = np.frombuffer(base64.b64decode(self.encoded), dtype="<f4")
        return flat.reshape(self.count, -1).astype(np.float64)


@dataclass(frozen=True)
class Version:
    """A memory as stored: the record plus its chain key and vector, and, for an
    item put with a BaseStore TTL, its time to live in minutes and when it expires
    (a write or a refreshing read sets it to that time plus the TTL).

    ``indexed`` False: an item put with ``index=False``, kept out of vector
    search. Chroma needs a vector for every record, so it holds the zero vector
    (``unindexed_vector``): cosine 0 to every query, and never sent to the embedder.

    ``fields``: for an item whose index paths held several texts, a vector per
    text (``FieldVectors``); its ``vector`` is still that of the joined text,
    which the memory API's reads use.
    """

    memory: Memory
    key: str
    vector: list[float] | None = None
    value_json: str | None = None
    chain_start: datetime | None = None  # when the chain's first version opened
    ttl: float | None = None
    expires_at: datetime | None = None
    indexed: bool = True
    fields: FieldVectors | None = None

    def successor(
        self,
        memory: Memory,
        vector: list[float],
        value_json: str | None,
        *,
        indexed: bool = True,
        fields: FieldVectors | None = None,
    ) -> Version:
        """The version that replaces this one in the same chain; a TTL carries over,
        counted from the new version's creation."""
        start = self.chain_start or self.memory.created_at
        version = Version(
            memory, self.key, vector, value_json, start, indexed=indexed, fields=fields
        )
        return version.with_ttl(self.ttl)

    def with_ttl(self, minutes: float | None) -> Version:
        """This version living ``minutes`` from its creation (None: no expiry)."""
        if minutes is None:
            return replace(self, ttl=None, expires_at=None)
        return replace(
            self, ttl=minutes, expires_at=self.memory.created_at + timedelta(minutes=minutes)
        )

    def expired(self, now: datetime) -> bool:
        """Whether its TTL ran out at or before ``now``."""
        return self.expires_at is not None and self.expires_at <= now


def unindexed_vector(dimension: int) -> list[float]:
    """The vector of a record kept out of vector search (``Version.indexed`` False):
    zeros, whose cosine to any query is 0 in Chroma's index and in the store's own
    cosines, and which no embedder returns for a text.

    >>> unindexed_vector(3)
    [0.0, 0.0, 0.0]
    """
    return [0.0] * dimension
