"""One scope's share of collections that many small scopes keep together.

A scope with its own collections costs Chroma a vector index preallocated for 100
records (164 KB at 384 dimensions, whatever it holds) and about 5 KB of memory for
as long as the process runs; a service remembering many people with a few memories
each pays that per person. So small scopes live in a bucket's collections (see
``layout``) and each sees only its share of them through a ``ScopedCollection``:
every record it writes is tagged with the scope (``lgm_scope``) and its id prefixed
with the scope's, and every read, count, nearest query and delete it makes is
filtered by that tag. Nothing the store does with a ``VectorCollection`` can reach
another scope's records through it: the tag is added to every ``where``, ids are
prefixed on the way in and the prefix checked and taken off on the way out.

A nearest query of a scope reads the scope's records with their vectors and ranks
them exactly here: Chroma's filtered nearest query over a shared collection cost
91 ms at 100k records (3.4 ms at 5k), a get by the tag 1-10 ms, and a scope stays
in a bucket only while it is small (``layout.PROMOTE_AT``).

>>> import tempfile
>>> from langgraph_memory.store.chroma.door import persistent
>>> shared = persistent(tempfile.mkdtemp()).open_or_create("demo", cosine=True)
>>> alice, bob = ScopedCollection(shared, "a" * 32), ScopedCollection(shared, "b" * 32)
>>> alice.add(["m1"], [[1.0, 0.0]], ["Alice likes tea."], [{"kind": "fact"}])
>>> bob.add(["m1"], [[0.0, 1.0]], ["Bob likes coffee."], [{"kind": "fact"}])
>>> found = alice.read(include=["documents", "metadatas"])
>>> found["ids"], found["documents"], found["metadatas"]
(['m1'], ['Alice likes tea.'], [{'kind': 'fact'}])
>>> bob.nearest([1.0, 0.0], 5, include=["documents"])["documents"]
['Bob likes coffee.']
>>> alice.size(), bob.size(), shared.size()
(1, 1, 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from langgraph_memory.errors import InvalidArgumentError, MemoryKitError
from langgraph_memory.store.chroma.door import (
    Field,
    NearField,
    NearRows,
    Rows,
    VectorCollection,
    Where,
)

__all__ = ["SCOPE_KEY", "ScopedCollection", "SharedCollectionError"]

#: The metadata key that tags each record of a shared collection with its scope.
SCOPE_KEY = "lgm_scope"
#: The least length of a scope's tag, which prefixes its record ids whole: no id of
#: one scope can name a record of another.
_TAG_MIN = 16


class SharedCollectionError(MemoryKitError, TypeError):
    """An operation on a whole collection asked of one scope's share of it (or a
    record of another scope met through it, which its filter rules out)."""


class ScopedCollection:
    """``VectorCollection`` over the records of one scope (``tag``) in ``shared``."""

    __slots__ = ("_prefix", "shared", "tag")

    def __init__(self, shared: VectorCollection, tag: str) -> None:
        if len(tag) < _TAG_MIN or "/" in tag:
            raise InvalidArgumentError(
                f"a scope tag has {_TAG_MIN} characters or more and no '/' (layout.scope_hash "
                f"makes one): got {tag!r}"
            )
        self.shared = shared
        self.tag = tag
        self._prefix = tag + "/"

    def __repr__(self) -> str:
        return f"ScopedCollection({self.shared.name!r}, {self.tag!r})"

    # -- what it is --------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.shared.name

    @property
    def uid(self) -> str:
        return f"{self.shared.uid}/{self.tag}"

    @property
    def metadata(self) -> Mapping[str, Any] | None:
        return self.shared.metadata

    @property
    def index(self) -> Mapping[str, Any] | None:
        return self.shared.index

    # -- translation ---------------------------------------------------------------------

    def _where(self, where: Where | None) -> Where:
        own: Where = {SCOPE_KEY: self.tag}
        return own if not where else {"$and": [own, dict(where)]}

    def _ids(self, ids: Sequence[str]) -> list[str]:
        return [self._prefix + i for i in ids]

    def _own_ids(self, ids: Sequence[str]) -> list[str]:
        n = len(self._prefix)
        out = []
        for i in ids:
            if not i.startswith(self._prefix):  # the tag filter makes this impossible
                raise SharedCollectionError(f"{i!r} of another scope read through {self!r}")
            out.append(i[n:])
        return out

    def _tagged(
        self, metadatas: Sequence[Mapping[str, Any] | None] | None, n: int
    ) -> list[Mapping[str, Any]]:
        given = list(metadatas) if metadatas is not None else [None] * n
        return [{**(m or {}), SCOPE_KEY: self.tag} for m in given]

    @staticmethod
    def _untagged(
        metadatas: Sequence[Mapping[str, Any] | None] | None,
    ) -> list[Mapping[str, Any] | None] | None:
        if metadatas is None:
            return None
        out: list[Mapping[str, Any] | None] = []
        for m in metadatas:
            out.append(None if m is None else {k: v for k, v in m.items() if k != SCOPE_KEY})
        return out

    # -- reads ---------------------------------------------------------------------------

    def size(self) -> int:
        return len(self.shared.read(where=self._where(None))["ids"])

    def read(
        self,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        where_document: Where | None = None,
        include: Sequence[Field] = (),
        limit: int | None = None,
        offset: int | None = None,
    ) -> Rows:
        found = self.shared.read(
            ids=None if ids is None else self._ids(ids),
            where=self._where(where),
            where_document=where_document,
            include=include,
            limit=limit,
            offset=offset,
        )
        out: dict[str, Any] = {
            "ids": self._own_ids(found["ids"]),
            "documents": None,
            "metadatas": None,
            "embeddings": None,
        }
        for field in include:
            value = cast(Mapping[str, Any], found).get(field)
            out[field] = self._untagged(value) if field == "metadatas" else value
        return cast(Rows, out)

    def nearest(
        self,
        vector: Sequence[float],
        k: int,
        *,
        where: Where | None = None,
        include: Sequence[NearField] = (),
    ) -> NearRows:
        fields: list[Field] = ["embeddings"]
        fields += [f for f in ("documents", "metadatas") if f in include]
        found = self.read(where=where, include=fields)
        distances = _distances(found.get("embeddings"), vector, self._space())
        order = np.argsort(distances, kind="stable")[: max(0, k)]
        documents = found.get("documents")
        metadatas = found.get("metadatas")
        return {
            "ids": [found["ids"][i] for i in order],
            "documents": None
            if "documents" not in include or documents is None
            else [documents[i] for i in order],
            "metadatas": None
            if "metadatas" not in include or metadatas is None
            else [metadatas[i] for i in order],
            "distances": None
            if "distances" not in include
            else [float(distances[i]) for i in order],
        }

    def _space(self) -> str:
        hnsw = (self.shared.index or {}).get("hnsw") or {}
        return str(hnsw.get("space") or "l2")

    # -- writes --------------------------------------------------------------------------

    def add(
        self,
        ids: Sequence[str],
        vectors: Any,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.shared.add(self._ids(ids), vectors, documents, self._tagged(metadatas, len(ids)))

    def put(
        self,
        ids: Sequence[str],
        vectors: Any,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.shared.put(self._ids(ids), vectors, documents, self._tagged(metadatas, len(ids)))

    def patch(
        self,
        ids: Sequence[str],
        metadatas: Sequence[Mapping[str, Any]],
        *,
        vectors: Any = None,
        documents: Sequence[str] | None = None,
    ) -> None:
        self.shared.patch(
            self._ids(ids),
            [{**m, SCOPE_KEY: self.tag} for m in metadatas],
            vectors=vectors,
            documents=documents,
        )

    def remove(self, *, ids: Sequence[str] | None = None, where: Where | None = None) -> None:
        self.shared.remove(ids=None if ids is None else self._ids(ids), where=self._where(where))

    def persist_every_write(self) -> None:
        self.shared.persist_every_write()

    def rename(self, name: str) -> None:
        raise SharedCollectionError(
            f"{self!r} is one scope's share of a collection other scopes keep too: rename "
            f"the collection {self.shared.name!r} itself"
        )

    def restamp(self, metadata: Mapping[str, Any]) -> None:
        raise SharedCollectionError(
            f"{self!r} is one scope's share of a collection other scopes keep too: restamp "
            f"the collection {self.shared.name!r} itself"
        )


def _distances(embeddings: Any, vector: Sequence[float], space: str) -> np.ndarray[Any, Any]:
    """Chroma's distances from ``vector`` to each row of ``embeddings`` in ``space``:
    ``1 - cosine`` (a zero vector is at 1), ``1 - dot`` or the squared L2."""
    if embeddings is None or len(embeddings) == 0:
        return np.zeros(0, dtype=np.float64)
    matrix = np.asarray(embeddings, dtype=np.float64)
    query = np.asarray(vector, dtype=np.float64)
    if space == "l2":
        return cast(np.ndarray[Any, Any], ((matrix - query) ** 2).sum(axis=1))
    dots = matrix @ query
    if space == "ip":
        return cast(np.ndarray[Any, Any], 1.0 - dots)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    cosine = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return cast(np.ndarray[Any, Any], 1.0 - cosine)
