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
in a bucket only while it is small (``layout.PROMOTE_AT``). When it grows past that
it moves to collections of its own and leaves a mark behind (``leave``) that makes
every handle still on its share fail, to be opened again where it now lives.

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

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from langgraph_memory.errors import InvalidArgumentError, MemoryKitError
from langgraph_memory.store.chroma.door import (
    Field,
    MissingCollectionError,
    NearField,
    NearRows,
    Rows,
    VectorCollection,
    Where,
)
from langgraph_memory.store.chroma.filters import matches

__all__ = ["MOVED_KEY", "SCOPE_KEY", "ScopedCollection", "SharedCollectionError", "add_shares"]

#: The metadata key that tags each record of a shared collection with its scope.
SCOPE_KEY = "lgm_scope"
#: The metadata key of a scope's mark that it moved out (``ScopedCollection.leave``).
MOVED_KEY = "lgm_moved"
#: The least length of a scope's tag, which prefixes its record ids whole: no id of
#: one scope can name a record of another.
_TAG_MIN = 16


def add_shares(
    shares: Sequence[ScopedCollection],
    ids: Sequence[Sequence[str]],
    vectors: Sequence[Any],
    documents: Sequence[Sequence[str | None]],
    metadatas: Sequence[Sequence[Mapping[str, Any] | None]],
    batch: int = 1000,
) -> None:
    """``share.add(...)`` for each share, as few writes as their shared collections:
    one a collection (in ``batch`` records). Records of many scopes of a bucket made
    at once (``store.add_people``) cost one write of the bucket's index, where
    each scope's own ``add`` writes it whole again. Each record is tagged and its id
    prefixed as that share's ``add`` does (``records``).

    >>> import tempfile
    >>> from langgraph_memory.store.chroma.door import persistent
    >>> shared = persistent(tempfile.mkdtemp()).open_or_create("demo", cosine=True)
    >>> a, b = ScopedCollection(shared, "a" * 32), ScopedCollection(shared, "b" * 32)
    >>> add_shares([a, b], [["m1"], ["m1"]], [[[1.0, 0.0]], [[0.0, 1.0]]],
    ...            [["Alice likes tea."], ["Bob likes coffee."]], [[None], [None]])
    >>> a.read(include=["documents"])["documents"], b.size()
    (['Alice likes tea.'], 1)
    """
    together: dict[str, tuple[VectorCollection, list[Any]]] = {}
    for share, i, v, d, m in zip(shares, ids, vectors, documents, metadatas, strict=True):
        prefixed, tagged = share.records(i, m)
        _, rows = together.setdefault(share.shared.uid, (share.shared, []))
        rows += zip(prefixed, v, d, tagged, strict=True)
    for shared, rows in together.values():
        for start in range(0, len(rows), batch):
            part = rows[start : start + batch]
            shared.add(
                [r[0] for r in part],
                [r[1] for r in part],
                [r[2] for r in part],
                [r[3] for r in part],
            )


class SharedCollectionError(MemoryKitError, TypeError):
    """An operation on a whole collection asked of one scope's share of it (or a
    record of another scope met through it, which its filter rules out)."""


class ScopedCollection:
    """``VectorCollection`` over the records of one scope (``tag``) in ``shared``."""

    __slots__ = ("_name", "_opener", "_prefix", "_shared", "tag")

    def __init__(
        self,
        shared: VectorCollection | None,
        tag: str,
        *,
        opener: Callable[[], VectorCollection] | None = None,
        name: str | None = None,
    ) -> None:
        if len(tag) < _TAG_MIN or "/" in tag:
            raise InvalidArgumentError(
                f"a scope tag has {_TAG_MIN} characters or more and no '/' (layout.scope_hash "
                f"makes one): got {tag!r}"
            )
        if shared is None and (opener is None or name is None):
            raise InvalidArgumentError("a share made without its collection needs an opener")
        self._shared = shared
        self._opener = opener
        self._name = name
        self.tag = tag
        self._prefix = tag + "/"

    @classmethod
    def later(cls, name: str, opener: Callable[[], VectorCollection], tag: str) -> ScopedCollection:
        """A share of the collection ``name`` that ``opener`` opens on its first use: a
        read served from elsewhere (the buckets' file, see ``lexical``) opens nothing
        in Chroma, where each collection opened is a query of its database.

        >>> import tempfile
        >>> from langgraph_memory.store.chroma.door import persistent
        >>> client = persistent(tempfile.mkdtemp())
        >>> _ = client.open_or_create("demo", cosine=True)
        >>> share = ScopedCollection.later("demo", lambda: client.open("demo"), "a" * 32)
        >>> share.name, share.size()
        ('demo', 0)
        """
        return cls(None, tag, opener=opener, name=name)

    def __repr__(self) -> str:
        return f"ScopedCollection({self.name!r}, {self.tag!r})"

    @property
    def shared(self) -> VectorCollection:
        """The shared collection (opened now when this share was made ``later``)."""
        if self._shared is None:
            assert self._opener is not None
            self._shared = self._opener()  # two threads may both open it: the same handle
        return self._shared

    # -- what it is --------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name if self._name is not None else self.shared.name

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

    def _check_here(self, ids: Sequence[str]) -> None:
        """``MissingCollectionError`` when a read met the scope's mark of a move: this
        handle is stale (see ``leave``)."""
        if self.tag in ids:
            raise MissingCollectionError(
                f"the scope {self.tag} moved out of {self.shared.name} to collections of "
                "its own; open it again"
            )

    def records(
        self, ids: Sequence[str], metadatas: Sequence[Mapping[str, Any] | None]
    ) -> tuple[list[str], list[Mapping[str, Any]]]:
        """The ids and metadatas ``add`` writes to the shared collection for these: the
        ids prefixed and the metadatas tagged. For one write of many scopes' records
        (``add_shares``).

        >>> ScopedCollection.later("c", lambda: None, "a" * 16).records(["m1"], [{"k": 1}])
        (['aaaaaaaaaaaaaaaa/m1'], [{'k': 1, 'lgm_scope': 'aaaaaaaaaaaaaaaa'}])
        """
        return self._ids(ids), self._tagged(metadatas, len(ids))

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
        found = self.shared.read(where={SCOPE_KEY: self.tag})["ids"]
        self._check_here(found)
        return len(found)

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
        if where_document:
            raise SharedCollectionError(
                f"{self!r} is one scope's share of a collection: filter its documents after "
                "reading them (a where_document would be answered over every scope's)"
            )
        fields: list[Field] = list(include)
        if where and "metadatas" not in fields:
            fields.append("metadatas")
        # By the scope's tag or by ids alone: Chroma answers any other clause over the
        # whole database (see ``filters``); ``where``, ``offset`` and ``limit`` apply here.
        found = self.shared.read(
            ids=None if ids is None else [*self._ids(ids), self.tag],
            where={SCOPE_KEY: self.tag},
            include=fields,
        )
        self._check_here(found["ids"])
        keep = list(range(len(found["ids"])))
        if where:
            metadatas = found["metadatas"] or []
            keep = [n for n in keep if matches(metadatas[n], where)]
        keep = keep[offset or 0 :]
        if limit is not None:
            keep = keep[:limit]
        out: dict[str, Any] = {
            "ids": self._own_ids([found["ids"][n] for n in keep]),
            "documents": None,
            "metadatas": None,
            "embeddings": None,
        }
        for field in include:
            value = cast(Mapping[str, Any], found).get(field)
            if value is None:
                continue
            picked = [value[n] for n in keep]
            if field == "metadatas":
                out[field] = self._untagged(picked)
            elif field == "embeddings":
                out[field] = np.asarray(picked, dtype=np.float32)  # a row per record
            else:
                out[field] = picked
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
        if where:  # its records matching ``where``, found here (see ``read``)
            ids = self.read(ids=ids, where=where)["ids"]
            if not ids:
                return
        self.shared.remove(ids=None if ids is None else self._ids(ids), where={SCOPE_KEY: self.tag})

    def leave(self, vector: Sequence[float]) -> None:
        """Mark the scope as moved out of this collection, then remove its records.

        The mark is one record (id: the scope's tag, which no record of the scope has:
        theirs are ``<tag>/<id>``; metadata ``lgm_moved``; ``vector`` of the
        collection's dimension) that every read of the scope's share returns whatever
        its filter: a handle another process (or thread) still holds reads it and fails
        with ``MissingCollectionError``, which the store answers by opening the scope
        again (``StoreCore.fresh``), now in its own collections. Every store operation
        reads before it writes, so a stale handle never writes here. A purge of the
        scope removes the mark with the rest (``layout.drop_scope``).
        """
        self.shared.put([self.tag], [list(vector)], None, [{SCOPE_KEY: self.tag, MOVED_KEY: True}])
        mine = [i for i in self.shared.read(where={SCOPE_KEY: self.tag})["ids"] if i != self.tag]
        for start in range(0, len(mine), 1000):
            self.shared.remove(ids=mine[start : start + 1000])

    def persist_every_write(self) -> None:
        self.shared.persist_every_write()

    def persist_now_and_then(self) -> None:
        raise SharedCollectionError(
            f"{self!r} is one scope's share of a collection other scopes keep too, whose "
            "vectors are real: its index is written on every write"
        )

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
