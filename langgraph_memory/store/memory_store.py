"""MemoryStore: long-term memory on Chroma, with scopes, versions and a decision log.

One ``MemoryStore`` is the single source of truth of the package. It keeps each
scope in collections of its own (see ``layout``), never overwrites a memory
(UPDATE closes the old version and opens a new one), logs every write-path
decision in the scope, and can hard-delete a person's data. It is also a
LangGraph ``BaseStore`` (see ``basestore``), so ``graph.compile(store=store)``
hands it to every node and tool.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> m = store.add("user:alice", "User lives in Delhi.")
>>> m2 = store.update("user:alice", m.id, "User lives in Pune.")
>>> [v.text for v in store.history("user:alice", m2.id)]
['User lives in Delhi.', 'User lives in Pune.']
>>> [v.text for v in store.active("user:alice")]
['User lives in Pune.']
>>> store.close()
"""

from __future__ import annotations

import concurrent.futures
import copy
import functools
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from chromadb.api import ClientAPI
from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    IndexConfig,
    Item,
    NamespacePath,
    NotProvided,
    Op,
    Result,
    SearchItem,
    TTLConfig,
)

from langgraph_memory.checks import (
    MAX_K,
    check_id,
    check_ids,
    check_instance,
    check_k,
    check_seconds,
)
from langgraph_memory.errors import (
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidTypeError,
    MemoryNotFoundError,
)
from langgraph_memory.records import (
    Decision,
    Kind,
    Memory,
    Review,
    ReviewStatus,
    Scalar,
    Source,
    Trust,
    check_text,
    now_utc,
    utc,
)
from langgraph_memory.scope import Scope, ScopeKind, ScopeLike
from langgraph_memory.store import backup, basestore, lexical, purging
from langgraph_memory.store import reviews as reviewing
from langgraph_memory.store import ttl as ttl_sweep
from langgraph_memory.store.building import (
    UPDATE_FIELDS,
    check_items,
    item_fields,
    new_memory,
    successor,
)
from langgraph_memory.store.candidates import Candidates, gather
from langgraph_memory.store.codec import (
    NOT_EPISODE,
    all_of,
    metadata_clauses,
    revalue,
    to_epoch,
)
from langgraph_memory.store.collection_io import fetch, free_ids, query, similar
from langgraph_memory.store.core import StoreCore
from langgraph_memory.store.engine import DEFAULT_PATH, PATH_ENV, Companion
from langgraph_memory.store.indexing import read_index
from langgraph_memory.store.namespaces import check_namespace_type, langgraph_namespace_errors
from langgraph_memory.store.ttl import check_ttl_config
from langgraph_memory.store.version import Hit

__all__ = ["DEFAULT_PATH", "PATH_ENV", "MemoryStore", "check_store"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _fresh(method: _F) -> _F:
    """Run a method again, once, with fresh collection handles when a purge
    elsewhere rebuilt a collection it used (see ``StoreCore.fresh``)."""

    @functools.wraps(method)
    def run(self: MemoryStore, *args: Any, **kwargs: Any) -> Any:
        return self._core.fresh(lambda: method(self, *args, **kwargs))

    return cast(_F, run)


def _reads(method: _F) -> _F:
    """A read: the gate held shared (never beside a purge), fresh handles on retry.
    Writes take their scope's lock first and then the gate (``StoreCore.writing``)."""

    @functools.wraps(method)
    def run(self: MemoryStore, *args: Any, **kwargs: Any) -> Any:
        with self._core.reading():
            return method(self, *args, **kwargs)

    return _fresh(cast(_F, run))


class MemoryStore(BaseStore):
    """Long-term memory on Chroma: scopes, validity windows, history, decision log.

    ``MemoryStore()`` opens an embedded store at ``$LANGGRAPH_MEMORY_PATH`` or
    ``./.langgraph_memory`` and locks that directory for this process.
    ``MemoryStore(client=chromadb.HttpClient(...))`` uses a Chroma server,
    which many processes can share. ``embeddings`` is any LangChain
    ``Embeddings``; the default is the offline MiniLM embedder. The store
    records which embedder built it and refuses another.

    As a LangGraph ``BaseStore`` it takes LangGraph's ``index=`` (an
    ``IndexConfig``: ``embed``, ``dims``, ``fields``; see ``store/indexing.py``) and
    ``ttl=`` (a ``TTLConfig``; expiry archives, see ``store/ttl.py``), and
    namespaces of any depth (see ``scope``).

    Every method takes the scope first, as a ``Scope``, ``"kind:id"`` or a
    namespace tuple, and ``now=`` wherever time matters (default: the clock).
    Times must be timezone-aware (``datetime(..., tzinfo=timezone.utc)``): a naive
    one is refused, since the store cannot know which zone it meant.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> with MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8)) as s:
    ...     _ = s.add("user:bob", "User is vegetarian.", importance=0.8)
    ...     [h.memory.text for h in s.nearest("user:bob", "What does Bob eat?", k=1)]
    ['User is vegetarian.']
    """

    supports_ttl = True

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        client: ClientAPI | None = None,
        embeddings: Embeddings | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        if path is not None and client is not None:
            raise InvalidArgumentError(
                "pass either path= (an embedded store) or client= (any chromadb client), not both"
            )
        _check_location(path, client)
        _check_embeddings(embeddings)
        indexing = read_index(index, embeddings)
        self.ttl_config = check_ttl_config(ttl)
        embeddings = indexing.embeddings
        if embeddings is None:
            from langgraph_memory.embeddings import default_embeddings

            embeddings = default_embeddings()
        self.index_config = None if index is None else dict(index)
        self._fields = indexing.fields
        # Every store on one location in this process shares one engine: its
        # client, collection handles, scope locks and gate (see ``engine``).
        self._core = StoreCore(path, client, embeddings, dims=indexing.dims)
        self._sweeper = ttl_sweep.Sweeper(self.sweep_ttl)
        minutes = (self.ttl_config or {}).get("sweep_interval_minutes")
        if minutes is not None:
            self._sweeper.start(minutes)

    @property
    def embeddings(self) -> Embeddings:
        """The LangChain ``Embeddings`` this store embeds texts and queries with."""
        return self._core.embeddings

    @property
    def embedder_name(self) -> str:
        """The name under which the store records its embedder (another is refused)."""
        return self._core.embedder_name

    @property
    def client(self) -> ClientAPI:
        """The Chroma client this store writes through."""
        return self._core.engine.client

    @property
    def path(self) -> Path | None:
        """The directory of an embedded store (or of a persistent client); else None."""
        return self._core.engine.path

    # -- lifecycle -------------------------------------------------------------

    def close(self) -> None:
        """Free the store; the last store on a directory releases its lock.

        Safe to call twice; ``with MemoryStore(...) as store:`` calls it. Any
        other call on a closed store raises ``StoreClosedError``. (Retiring one
        memory is :meth:`archive`.) A TTL sweeper stops first.
        """
        self._sweeper.stop()
        self._core.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = str(self.path) if self.path else type(self.client).__name__
        admin = ", admin" if self._core.admin else ""
        return f"MemoryStore({where!r}, embedder={self.embedder_name!r}{admin})"

    def admin(self) -> MemoryStore:
        """A view of this store that may also write org scopes.

        An org scope holds what every agent and user of an organisation reads, so
        no write reaches it by accident: through a plain store, ``add``,
        ``update``, ``archive``, ``log``, ``import_scope``, ``purge``, BaseStore
        ``put`` and ``delete``, and ``approve``/``reject`` of a review for an org
        scope raise ``AdminRequiredError``; the write path and its tools refuse org
        scopes even on an admin view. The view shares this store's data and locks;
        close it when done (it holds the store open as one more user).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.add("org:acme", "Refunds take 5 days.")
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.AdminRequiredError: org:acme is an org scope, which only ...
        >>> with s.admin() as admin:
        ...     _ = admin.add("org:acme", "Refunds take 5 days.")
        >>> [m.text for m in s.active("org:acme")]
        ['Refunds take 5 days.']
        """
        view = copy.copy(self)
        view._core = self._core.admin_view()
        return view

    def embed_query(self, query: str | Sequence[float]) -> list[float]:
        """A query's vector from the store's embedder (a vector passes through,
        checked): compute it once to ask several questions of the store.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> len(s.embed_query("Where do I live?"))
        8
        """
        return self._core.embed_query(query)

    # -- scopes and collections --------------------------------------------------

    def scope_lock(self, scope: ScopeLike) -> threading.RLock:
        """The lock that serialises writes to one scope within this process.

        Hold it to make a read-decide-write sequence atomic (the write path
        does: two turns stating the same new fact at once make one memory).
        Re-entrant, so store methods called while holding it still work. Every
        ``MemoryStore`` on the same directory in a process shares it.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> with s.scope_lock("user:a"):
        ...     _ = s.add("user:a", "Likes tea.")
        """
        return self._core.live().scope_lock(Scope.of(scope))

    @_reads
    def scope_generation(self, scope: ScopeLike) -> str:
        """A value that changes whenever the whole scope is purged: by this process,
        or, on a Chroma server that other processes share, by another one (its
        registry entry goes, and the next write makes a new one). A write that read
        it before its work and finds it changed under ``scope_lock`` began before a
        purge, and must not bring the purged person back: the write path drops it.
        Compare two values for equality only.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:a", "Likes tea.")
        >>> before = s.scope_generation("user:a")
        >>> _ = s.purge("user:a")
        >>> s.scope_generation("user:a") == before
        False
        """
        scope = Scope.of(scope)
        live = self._core.live()
        purged_here = live.erasures(scope)
        if self.path is not None:
            # An embedded store (or a persistent client's directory) is locked to
            # this process: no other can purge it.
            return str(purged_here)
        return f"{purged_here}:{live.registered_at(scope)}"

    @_reads
    def scopes(self, kind: ScopeKind | None = None) -> list[Scope]:
        """Every scope that holds data, optionally only of one kind, sorted.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:alice", "User likes tea.")
        >>> s.scopes("user")
        [Scope(kind='user', id='alice')]
        """
        return self._core.scopes(kind)

    # -- writes ------------------------------------------------------------------

    def add(
        self,
        scope: ScopeLike,
        text: str,
        *,
        importance: float = 0.5,
        kind: Kind | str = Kind.SEMANTIC,
        pinned: bool = False,
        source: Source | str = Source.USER,
        trust: Trust | str = Trust.HIGH,
        event_time: datetime | None = None,
        sources: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Memory:
        """Store a new memory and return it.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.add("user:alice", "User is allergic to peanuts.", importance=0.9).importance
        0.9
        """
        fields = dict(
            text=text,
            importance=importance,
            kind=kind,
            pinned=pinned,
            source=source,
            trust=trust,
            event_time=event_time,
            sources=sources,
            metadata=metadata,
        )
        return self.add_many(scope, [fields], now=now)[0]

    @_fresh
    def add_many(
        self,
        scope: ScopeLike,
        items: Sequence[str | Mapping[str, Any]],
        *,
        now: datetime | None = None,
        vectors: Sequence[Sequence[float]] | None = None,
    ) -> list[Memory]:
        """Store many new memories with one embedding call and one write.

        Each item is a text or a dict of :meth:`add`'s arguments (its ``now``
        too, for memories of different times). Every item is
        validated before anything is written, so one bad item stores nothing.
        ``vectors``, one per item, are the texts' vectors from this store's
        embedder when the caller already has them (the write path embeds a
        turn's episode and facts in one call); they are checked, not trusted.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> [m.text for m in s.add_many("user:a", ["Likes tea.", {"text": "Has a cat."}])]
        ['Likes tea.', 'Has a cat.']
        """
        scope = Scope.of(scope)
        when = utc(now, "now") if now is not None else now_utc()
        built = []
        for i, item in enumerate(check_items(items)):
            fields = item_fields(i, item)
            try:
                # An item's own "now" (add's argument) dates it: a history imported
                # in one call keeps each turn's time.
                at = utc(fields.pop("now"), "now") if fields.get("now") is not None else when
                built.append(new_memory(scope, at, fields))
            except InvalidMemoryError as exc:
                raise InvalidMemoryError(f"item {i}: {exc}") from None
        if vectors is not None and len(vectors) != len(built):
            raise EmbeddingMismatchError(
                f"add_many got {len(vectors)} vectors for {len(built)} items; pass one per item"
            )
        return self._core.add_new(scope, built, vectors)

    @_fresh
    def update(
        self,
        scope: ScopeLike,
        memory_id: str,
        text: str,
        *,
        now: datetime | None = None,
        **fields: Any,
    ) -> Memory:
        """Replace an active memory by a new version; the old one is closed, not lost.

        The new version points back with ``replaces``. Its importance is the
        larger of the old and the given one (a restatement never makes a fact
        less important), and ``pinned`` carries over unless given.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> old = s.add("user:a", "User lives in Delhi.", importance=0.7)
        >>> new = s.update("user:a", old.id, "User lives in Pune.", importance=0.4)
        >>> new.replaces == old.id, new.importance, s.get_memory("user:a", old.id).active
        (True, 0.7, False)
        """
        unknown = set(fields) - UPDATE_FIELDS
        if unknown:
            raise InvalidTypeError(
                f"update() got unknown fields {sorted(unknown)}; it accepts {sorted(UPDATE_FIELDS)}"
            )
        scope = Scope.of(scope)
        when = utc(now, "now") if now is not None else now_utc()
        text = check_text(text)
        with self._core.writing(scope):
            old = self._core.active_version(scope, memory_id, with_vector=True)
            new = successor(old.memory, text, when, fields)
            [vector] = self._core.embed([new.text])
            cols = self._core.writable(scope)
            [new_id] = free_ids(cols, 1)
            self._core.replace(
                cols,
                [
                    (
                        old,
                        old.successor(
                            replace(new, id=new_id), vector, revalue(old.value_json, new.text)
                        ),
                    )
                ],
                when,
            )
        return replace(new, id=new_id)

    def archive(self, scope: ScopeLike, memory_id: str, *, now: datetime | None = None) -> Memory:
        """Archive an active memory: ``valid_until = now``. Nothing is deleted.

        The closed version stays readable with ``get``, ``history`` and
        ``nearest(..., as_of=...)``; ``purge`` is the hard delete. Reflections
        resting on it are archived with it, the reason logged (any version that
        closes, by an update too, takes them along: see ``store/dependents.py``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> s.archive("user:a", m.id).active, s.active("user:a")
        (False, [])
        """
        return self.archive_many(scope, [check_id(memory_id)], now=now)[0]

    @_fresh
    def archive_many(
        self, scope: ScopeLike, memory_ids: Sequence[str], *, now: datetime | None = None
    ) -> list[Memory]:
        """Archive several active memories in three writes, however many; returns
        them closed, in the order given. Each id must name an active memory (or
        its chain key): otherwise nothing is archived and the error names it.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> a, b, c = s.add_many("user:a", ["Likes tea.", "Has a cat.", "Lives in Pune."])
        >>> [m.text for m in s.archive_many("user:a", [a.id, c.id])]
        ['Likes tea.', 'Lives in Pune.']
        >>> [m.text for m in s.active("user:a")]
        ['Has a cat.']
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        when = utc(now, "now") if now is not None else now_utc()
        if not ids:
            return []
        with self._core.writing(scope):
            cols = self._core.collections(scope)  # a refused call must not create the scope
            found = {}
            if cols is not None:
                found = {
                    v.memory.id: v for v in fetch(cols.active, scope, ids=ids, with_vector=True)
                }
            # An id not found as an active record may be a chain key, or archived
            # (then the error names its current version): the lookup one by one says.
            olds = [
                found.get(i) or self._core.active_version(scope, i, with_vector=True) for i in ids
            ]
            if len({v.memory.id for v in olds}) < len(olds):
                raise InvalidArgumentError(
                    f"memory_ids name one memory twice (an id and its chain key?): {ids}"
                )
            self._core.replace(self._core.writable(scope), [(old, None) for old in olds], when)
        return [replace(old.memory, valid_until=when) for old in olds]

    @_fresh
    def touch(
        self, scope: ScopeLike, memory_ids: Iterable[str], *, now: datetime | None = None
    ) -> None:
        """Set ``last_accessed`` of active memories in one write (unknown ids are skipped).

        >>> import tempfile
        >>> from datetime import datetime, timezone
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> s.touch("user:a", [m.id], now=datetime(2030, 1, 1, tzinfo=timezone.utc))
        >>> s.get_memory("user:a", m.id).last_accessed.year
        2030
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        when = to_epoch(utc(now, "now") if now is not None else now_utc())
        if not ids:
            return
        with self._core.writing(scope):
            cols = self._core.collections(scope)
            if cols is None:
                return
            present = cols.active.get(ids=ids, include=[])["ids"]
            if present:
                cols.active.update(ids=present, metadatas=[{"last_accessed": when}] * len(present))

    # -- reads ---------------------------------------------------------------------

    @_reads
    def get_memory(self, scope: ScopeLike, memory_id: str) -> Memory:
        """The memory version with this id (or chain key), active or archived.

        Raises ``MemoryNotFoundError`` for an unknown id. (``get(namespace, key)``
        is LangGraph's ``BaseStore.get``: the current ``Item`` under a key, or None.)

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> s.get_memory("user:a", m.id).text, s.get(("user", "a"), m.id).value["text"]
        ('Likes tea.', 'Likes tea.')
        """
        return self._core.version(Scope.of(scope), memory_id).memory

    @_reads
    def active(self, scope: ScopeLike, *, episodes: bool = True) -> list[Memory]:
        """Every active memory of the scope, oldest first; ``episodes=False``
        leaves episodes out (see ``Memory.is_episode``): the facts alone.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.active("user:nobody")
        []
        """
        scope = Scope.of(scope)
        cols = self._core.collections(scope)
        if cols is None:
            return []
        where = None if episodes else NOT_EPISODE
        return sorted(
            (v.memory for v in fetch(cols.active, scope, where=where)),
            key=lambda m: (m.created_at, m.id),
        )

    @_reads
    def pinned(self, scope: ScopeLike, limit: int = 10) -> list[Memory]:
        """Active pinned memories of the scope, most important first, at most ``limit``.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", [{"text": "Allergic to nuts.", "pinned": True}, "Likes tea."])
        >>> [m.text for m in s.pinned("user:a")]
        ['Allergic to nuts.']
        """
        scope = Scope.of(scope)
        check_k(limit)
        cols = self._core.collections(scope)
        if cols is None:
            return []
        with self._core.live().lexicon.ready(cols, self._core.engine.registry) as index:
            ids = index.pinned()  # kept by the lexical index: no scan of the collection
        found = [v.memory for v in fetch(cols.active, scope, ids=ids)] if ids else []
        return sorted(found, key=lambda m: (-m.importance, m.created_at, m.id))[:limit]

    @_reads
    def vectors(self, scope: ScopeLike, memory_ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of active memories by id, in one read (ids that name
        no active memory are left out): to compare memories with one another
        without embedding their texts again.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> [len(v) for v in s.vectors("user:a", [m.id, "0a0a0a0a"]).values()]
        [8]
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        cols = self._core.collections(scope)
        if cols is None or not ids:
            return {}
        found = fetch(cols.active, scope, ids=ids, with_vector=True)
        return {v.memory.id: v.vector for v in found if v.vector is not None}

    @_reads
    def nearest(
        self,
        scope: ScopeLike,
        query_or_vector: str | Sequence[float],
        k: int = 5,
        *,
        as_of: datetime | None = None,
        ids: Sequence[str] | None = None,
        episodes: bool = True,
    ) -> list[Hit]:
        """The ``k`` memories most similar to a query text or vector, best first.

        Without ``as_of`` it searches the active memories; with it, the versions
        that were valid at that time (closed ones included). ``ids`` restricts
        the search to those active memories (to score known candidates).
        ``episodes=False`` leaves episodes out (see ``Memory.is_episode``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:a", "Likes tea.")
        >>> [round(h.score, 3) for h in s.nearest("user:a", "Likes tea.", k=3)]
        [1.0]
        """
        scope = Scope.of(scope)
        check_k(k)
        vector = self.embed_query(query_or_vector)
        cols = self._core.collections(scope)
        if cols is None:
            return []
        if ids is not None:
            # Scored from the records themselves: an id archived or purged since
            # the caller found it is skipped (Chroma's query fails on it).
            wanted = check_ids(ids)
            found = similar(cols.active, scope, vector, len(wanted), wanted)
            return [h for h in found if episodes or not h.memory.is_episode][:k]
        kept = [] if episodes else [NOT_EPISODE]
        if as_of is None:
            return query(cols.active, scope, vector, k, where=all_of(kept))
        t = to_epoch(utc(as_of, "as_of"))
        opened = {"created_at": {"$lte": t}}
        hits = query(cols.active, scope, vector, k, where=all_of([opened, *kept]))
        valid = [opened, {"valid_until": {"$gt": t}}, *kept]
        hits += query(cols.history, scope, vector, k, where=all_of(valid))
        return sorted(hits, key=lambda h: -h.score)[:k]

    @_reads
    def keyword(
        self, scope: ScopeLike, terms: str | Sequence[str], k: int = 5, *, episodes: bool = True
    ) -> list[Hit]:
        """The ``k`` active memories that best match ``terms`` by BM25, best first.

        ``terms`` is a text or a list of terms. Both are tokenised as the scope's
        lexical index is (case-folded words, numbers and ids; common words out; light
        stemming), and a memory is indexed under its text and its event date (else
        its creation date) in words ("2023-05-08 8 May 2023"); an episode also under
        the texts of the facts that name it in ``sources``. An 8-hex-digit term finds
        the memory with that id, first. Scores lie in [0, 1]: BM25 divided by the
        most the query's terms could score (see ``store/lexical/index.py``).
        ``episodes=False`` leaves episodes out (see ``Memory.is_episode``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", ["Flight LH-761 leaves at 7.", "User likes Pune."])
        >>> [h.memory.text for h in s.keyword("user:a", "When is LH-761?")]
        ['Flight LH-761 leaves at 7.']
        """
        check_k(k)
        scope = Scope.of(scope)
        if episodes:
            return lexical.search(self._core, scope, terms, k)
        # Episodes left out after the search: ask for more, so k facts remain.
        hits = lexical.search(self._core, scope, terms, min(MAX_K, 4 * k))
        return [h for h in hits if not h.memory.is_episode][:k]

    def candidates(
        self,
        scope: ScopeLike,
        query_or_vector: str | Sequence[float],
        terms: str,
        k: int = 50,
        *,
        lexical: bool = True,
    ) -> Candidates:
        """What a fused ranking compares, by id: the ``k`` active memories nearest
        to the query (a text or its vector), the ``k`` best for ``terms`` by keyword
        (with ``lexical``), and the pinned ones; each with its cosine and, when the
        keyword search returned it, its keyword score. No record is read: read those
        a ranking keeps with ``get_memories`` (see ``store/candidates.py``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> flight = s.add("user:a", "Flight LH-761 leaves at 7.")
        >>> _ = s.add("user:a", "User likes Pune.")
        >>> found = s.candidates("user:a", "flight", "When is LH-761?", k=1)
        >>> list(found.lexical) == [flight.id], len(found.dense)
        (True, 2)
        """
        check_k(k)
        scope = Scope.of(scope)
        # Started before the read (and its retry, see _fresh): the query is embedded once.
        vector = self._core.embed_query_soon(query_or_vector)
        return self._gather(scope, vector, terms, k, lexical)

    @_reads
    def _gather(
        self, scope: Scope, vector: Callable[[], list[float]], terms: str, k: int, lexical: bool
    ) -> Candidates:
        return gather(self._core, scope, vector, terms, k, lexical=lexical)

    @_reads
    def get_memories(self, scope: ScopeLike, memory_ids: Sequence[str]) -> dict[str, Memory]:
        """The active memories with these ids, by id in the order asked, in one read
        (an id that names no active memory is left out).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> [x.text for x in s.get_memories("user:a", [m.id, "0a0a0a0a"]).values()]
        ['Likes tea.']
        """
        scope = Scope.of(scope)
        ids = check_ids(memory_ids, "memory_ids")
        cols = self._core.collections(scope)
        if cols is None or not ids:
            return {}
        found = {v.memory.id: v.memory for v in fetch(cols.active, scope, ids=ids)}
        return {i: found[i] for i in ids if i in found}

    @_reads
    def term_shares(self, scope: ScopeLike, words: Sequence[str]) -> dict[str, float]:
        """The share of the scope's active memories whose lexical document holds each
        word (a name in most of a conversation's turns has a share near 1).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", ["Ann likes tea.", "Ann has a cat.", "Bob sings."])
        >>> {w: round(x, 2) for w, x in s.term_shares("user:a", ["Ann", "Bob", "Zed"]).items()}
        {'Ann': 0.67, 'Bob': 0.33, 'Zed': 0.0}
        """
        if isinstance(words, str) or not isinstance(words, Iterable):
            raise InvalidTypeError(
                f"words must be a list of str, e.g. ['Ann'], got {type(words).__name__}: {words!r}"
            )
        words = list(words)
        for word in words:
            if not isinstance(word, str):
                raise InvalidTypeError(f"words must be str, got {type(word).__name__}: {word!r}")
        return lexical.shares(self._core, Scope.of(scope), words)

    @_reads
    def find(
        self,
        scope: ScopeLike,
        *,
        metadata: Mapping[str, Scalar | Sequence[Scalar]] | None = None,
        created_before: datetime | None = None,
        created_after: datetime | None = None,
        archived: bool = False,
    ) -> list[Memory]:
        """The scope's active memories whose ``metadata`` holds all the given
        values (a list of values: any of them), oldest first (one read per
        collection); with ``created_before`` (``created_after``), only those created
        earlier (later); with ``archived=True``, closed versions too.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add_many("user:a", [{"text": "Likes tea.", "metadata": {"topic": "food"}},
        ...                           {"text": "Has a cat.", "metadata": {"topic": "pets"}}])
        >>> [m.text for m in s.find("user:a", metadata={"topic": "pets"})]
        ['Has a cat.']
        >>> len(s.find("user:a", metadata={"topic": ["pets", "food"]}))
        2
        """
        scope = Scope.of(scope)
        clauses = metadata_clauses(metadata)
        if any(v == {"$in": []} for clause in clauses for v in clause.values()):
            return []  # any of no values: nothing (Chroma refuses an empty $in)
        if created_before is not None:
            before = to_epoch(utc(created_before, "created_before"))
            clauses.append({"created_at": {"$lt": before}})
        if created_after is not None:
            after = to_epoch(utc(created_after, "created_after"))
            clauses.append({"created_at": {"$gt": after}})
        cols = self._core.collections(scope)
        if cols is None:
            return []
        where = all_of(clauses)
        found = fetch(cols.active, scope, where=where)
        if archived:
            found += fetch(cols.history, scope, where=where)
        return sorted((v.memory for v in found), key=lambda m: (m.created_at, m.id))

    @_reads
    def count(
        self,
        scope: ScopeLike,
        *,
        metadata: Mapping[str, Scalar] | None = None,
        archived: bool = False,
    ) -> int:
        """How many active memories the scope holds (whose ``metadata`` holds all
        the given values), without reading them; with ``archived=True``, closed
        versions too (as :meth:`find` counts them).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> pet = {"text": "Has a cat.", "metadata": {"pet": True}}
        >>> m, _ = s.add_many("user:a", ["Likes tea.", pet])
        >>> _ = s.update("user:a", m.id, "Likes green tea.")
        >>> s.count("user:a"), s.count("user:a", metadata={"pet": True})
        (2, 1)
        >>> s.count("user:a", archived=True)
        3
        """
        scope = Scope.of(scope)
        clauses = metadata_clauses(metadata)
        if any(v == {"$in": []} for clause in clauses for v in clause.values()):
            return 0  # any of no values: none, as find() says (Chroma refuses an empty $in)
        where = all_of(clauses)
        cols = self._core.collections(scope)
        if cols is None:
            return 0
        collections = [cols.active, cols.history] if archived else [cols.active]
        if where is None:
            return sum(c.count() for c in collections)
        return sum(len(c.get(where=where, include=[])["ids"]) for c in collections)

    @_reads
    def history(self, scope: ScopeLike, memory_id: str) -> list[Memory]:
        """Every version of the memory that ``memory_id`` belongs to, oldest first.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Lives in Delhi.")
        >>> len(s.history("user:a", m.id))
        1
        """
        scope = Scope.of(scope)
        return [v.memory for v in self._core.chain(scope, self._core.version(scope, memory_id).key)]

    # -- decision log ----------------------------------------------------------------

    @_fresh
    def log(
        self,
        scope: ScopeLike,
        decisions: Decision | Sequence[Decision],
        *,
        now: datetime | None = None,
    ) -> list[Decision]:
        """Append decisions to the scope's decision log, in one write.

        Each logged decision gets an ``id`` and, unless it has one, ``created_at = now``.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.records import DecisionOp
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> [d.op for d in s.log("user:a", Decision(op=DecisionOp.NOOP, fact="User likes tea."))]
        [<DecisionOp.NOOP: 'NOOP'>]
        """
        scope = Scope.of(scope)
        batch = [decisions] if isinstance(decisions, Decision) else list(decisions)
        if not batch:
            return []
        for d in batch:
            if not isinstance(d, Decision):
                raise InvalidTypeError(
                    f"log() takes Decision objects, e.g. Decision(op=DecisionOp.NOOP, fact=...), "
                    f"got {type(d).__name__}"
                )
        when = utc(now, "now") if now is not None else now_utc()
        return self._core.append_log(scope, batch, when)

    @_reads
    def decisions(
        self, scope: ScopeLike, memory_id: str | None = None, *, turn_id: str | None = None
    ) -> list[Decision]:
        """The scope's decisions, oldest first; with ``memory_id``, those that
        created, changed or removed any version of that memory ("why does the
        agent think this?"). With ``turn_id``, only the decisions of that turn.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.decisions("user:a")
        []
        """
        scope = Scope.of(scope)
        if memory_id is not None:
            check_id(memory_id)
        if turn_id is not None:
            check_id(turn_id, "turn_id")
        where: dict[str, Any] | None = None
        if memory_id is not None:
            try:
                ids = [m.id for m in self.history(scope, memory_id)]
            except MemoryNotFoundError:
                check_id(memory_id)
                ids = [memory_id]  # purged or unknown: its log entries may still be asked for
            where = {"$or": [{"target_id": {"$in": ids}}, {"result_id": {"$in": ids}}]}
        if turn_id is not None:
            by_turn = {"turn_id": turn_id}
            where = by_turn if where is None else {"$and": [where, by_turn]}
        return self._core.read_log(scope, where)

    # -- reviews between scopes ----------------------------------------------------

    def propose(
        self,
        from_scope: ScopeLike,
        memory_id: str,
        to_scope: ScopeLike,
        *,
        note: str | None = None,
        now: datetime | None = None,
    ) -> Review:
        """Ask for an active memory of ``from_scope`` to be copied into the wider
        ``to_scope`` (user -> agent or org, agent -> org ...): a pending ``Review``,
        logged in ``from_scope``. Nothing reaches ``to_scope`` until ``approve``;
        proposing again while it is pending returns the same review. See
        ``store/reviews.py``.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:alice", "Customers prefer email to phone calls.")
        >>> r = s.propose("user:alice", m.id, "agent:support", note="seen twice")
        >>> r.status.value, [x.id for x in s.reviews("agent:support")] == [r.id]
        ('pending', True)
        """
        when = utc(now, "now") if now is not None else now_utc()
        return reviewing.propose(
            self._core,
            Scope.of(from_scope),
            check_id(memory_id),
            Scope.of(to_scope),
            note=note,
            when=when,
        )

    @_fresh
    def approve(
        self, review_id: str, *, reason: str | None = None, now: datetime | None = None
    ) -> Review:
        """Approve a pending review: copy the memory into the target scope as a new
        memory (``result_id``) whose metadata names the review, the source scope
        and memory; log the decision in both scopes. An org target needs an
        admin view (``store.admin().approve(...)``). A version archived or updated
        since it was proposed is refused (``MemoryArchivedError``): reject it. So
        is a review the store cannot vouch for (``ReviewInvalidError``): one that
        moves a memory sideways or down, or whose memory is not in its source
        scope, says something else, or was never proposed there (a crafted
        import's); rejecting it retires it without logging in either scope.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:alice", "Customers prefer email to phone calls.")
        >>> r = s.approve(s.propose("user:alice", m.id, "agent:support").id)
        >>> copy = s.get_memory("agent:support", r.result_id)
        >>> copy.text, copy.metadata["reviewed_from"]
        ('Customers prefer email to phone calls.', 'user:alice')
        """
        when = utc(now, "now") if now is not None else now_utc()
        return reviewing.decide(self._core, review_id, approve=True, reason=reason, when=when)

    @_fresh
    def reject(
        self, review_id: str, *, reason: str | None = None, now: datetime | None = None
    ) -> Review:
        """Reject a pending review: nothing is copied; the decision (and ``reason``)
        is logged in both scopes. An org target needs an admin view.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:alice", "My manager is Raj.")
        >>> r = s.reject(s.propose("user:alice", m.id, "agent:support").id, reason="personal")
        >>> r.status.value, s.active("agent:support")
        ('rejected', [])
        """
        when = utc(now, "now") if now is not None else now_utc()
        return reviewing.decide(self._core, review_id, approve=False, reason=reason, when=when)

    @_reads
    def reviews(
        self,
        to_scope: ScopeLike | None = None,
        status: ReviewStatus | str | None = "pending",
        *,
        from_scope: ScopeLike | None = None,
    ) -> list[Review]:
        """The reviews into ``to_scope`` (None: any), with ``status`` ("pending",
        "approved", "rejected"; None: any), optionally only from ``from_scope``,
        oldest first.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.reviews()
        []
        """
        if status is not None:
            try:
                status = ReviewStatus(status)
            except ValueError:
                allowed = ", ".join(x.value for x in ReviewStatus)
                raise InvalidArgumentError(
                    f"status must be one of {allowed} or None (any); got {status!r}"
                ) from None
        return reviewing.listed(
            self.client,
            to_scope=None if to_scope is None else Scope.of(to_scope),
            from_scope=None if from_scope is None else Scope.of(from_scope),
            status=status,
        )

    # -- export and hard delete ------------------------------------------------------

    @_fresh
    def export(self, scope: ScopeLike) -> dict[str, Any]:
        """Every version (active and closed) and decision of the scope, as a
        JSON-ready dict that :meth:`import_scope` restores exactly.

        Format ``langgraph-memory-export`` version 3 (``store/export_format.py``
        describes every field)::

            {"format": "langgraph-memory-export", "version": 3, "scope": "user:a",
             "embedder": NAME,
             "memories": [Memory.to_dict() + {"key", "key_created_at", "value_json"}],
             "decisions": [Decision.to_dict()], "reviews": [Review.to_dict()],
             "pending_turns": [turn record]}

        ``key`` is the chain (BaseStore item) key, ``key_created_at`` the
        chain's start, ``value_json`` the JSON of a BaseStore value or null.
        Vectors are left out: import embeds the texts again.

        >>> import json, tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> _ = s.add("user:a", "Likes tea.")
        >>> len(json.loads(json.dumps(s.export("user:a")))["memories"])
        1
        """
        return backup.export_scope(self._core, scope)

    def import_scope(
        self,
        data: Mapping[str, Any],
        *,
        scope: ScopeLike | None = None,
        allow_embedder_change: bool = False,
        requeue: Callable[[Mapping[str, Any]], object] | None = None,
    ) -> dict[str, int]:
        """Restore an :meth:`export` into an empty scope (``scope``, default the
        export's), with the same ids, times, chains, values and decisions.

        An export is untrusted input: every record must belong to the scope it
        fills, and the reviews that link it to other scopes must be ones the
        store can verify (``store/import_links.py``); anything else refuses the
        whole import (InvalidMemoryError naming the record), before anything is
        written. Refuses a scope that holds data (ScopeNotEmptyError) and an
        export from another embedder unless ``allow_embedder_change=True``.
        Read a file with ``langgraph_memory.store.load_export`` (UTF-8, size and
        depth bounds). Returns counts (see ``store/backup.py``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> s.import_scope(s.export("user:a"), scope="user:b")["memories"]
        1
        >>> s.get_memory("user:b", m.id).text
        'Likes tea.'
        """
        return backup.import_scope(  # takes the scope's lock, then the gate
            self._core,
            data,
            scope=scope,
            allow_embedder_change=allow_embedder_change,
            requeue=requeue,
        )

    @_fresh
    def purge(self, scope: ScopeLike, ids: Sequence[str] | None = None) -> dict[str, int]:
        """Hard-delete memories: every version of each listed memory, the episodes
        they were taken from (the words that said them), the reflections drawn from
        them, and every log entry about them, or, with ``ids=None``, the whole scope.
        Other memories that named a purged one in their ``sources`` lose that link.
        Reviews go too: those that proposed a purged memory (for a whole scope, every
        review from or into it), and the copies their approvals made in wider scopes
        (the person's words, wherever they went). An org scope is purged only through
        an admin view, but a person's purge reaches the copies in it.

        Then the storage is compacted so that the deleted text is gone from
        disk, not just unlinked (see ``compaction``). Texts of purged memories
        that other decisions showed as neighbours are redacted from those
        decisions. The embedder forgets the queries it kept (``clear_recent``,
        as ``LocalMiniLM`` has): they may be the purged person's words. Unknown
        ids raise before anything is deleted.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Secret.")
        >>> s.purge("user:a", [m.id])
        {'memories': 1, 'decisions': 0, 'reviews': 0}
        >>> s.active("user:a")
        []
        """
        scope = self._core.check_write(Scope.of(scope))
        wanted = None if ids is None else check_ids(ids)  # a refused call touches nothing
        counts = purging.purge(self._core.live(), scope, wanted)
        forget = getattr(self._core.embeddings, "clear_recent", None)
        if callable(forget):
            forget()
        return counts

    def attach(self, companion: Companion) -> None:
        """Keep ``companion`` informed of this store's location (held weakly):
        ``companion.purged(scope, memory_ids)`` after every purge (``memory_ids``
        None for a whole scope), and ``companion.pending_turns(scope)`` asked by
        ``export``. A ``BackgroundWriter`` attaches itself, so that a purge
        reaches its queue and journal and an export holds its queued turns.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> class Echo:
        ...     def purged(self, scope, memory_ids):
        ...         print(scope, memory_ids)
        ...     def pending_turns(self, scope):
        ...         return []
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> echo = Echo()
        >>> s.attach(echo)
        >>> _ = s.purge("user:a")
        user:a None
        """
        if not all(callable(getattr(companion, m, None)) for m in ("purged", "pending_turns")):
            raise InvalidTypeError(
                "attach() takes a companion with purged(scope, memory_ids) and "
                f"pending_turns(scope) methods (a BackgroundWriter), got {type(companion).__name__}"
            )
        self._core.live().attach(companion)

    def pending_turns(self, scope: ScopeLike) -> list[dict[str, Any]]:
        """Turns of the scope that a background writer on this store accepted and
        has not applied yet, oldest first, as journal records.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.pending_turns("user:a")
        []
        """
        scope = Scope.of(scope)
        return [t for c in self._core.live().companions() for t in c.pending_turns(scope)]

    # -- the LangGraph BaseStore face ------------------------------------------------

    @_fresh
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations (see ``basestore``). A namespace that
        LangGraph's stores refuse raises ``InvalidStoreNamespaceError`` (LangGraph's
        ``InvalidNamespaceError`` too), and nothing of the batch is written."""
        return basestore.run_ops(self._core, _op_list(ops), fields=self._fields)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async ``batch``: the same code, run in a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.batch, _op_list(ops))

    # BaseStore's own methods check namespaces with LangGraph's rules before they
    # reach batch, and raise LangGraph's error; each runs here as written, and what
    # it refuses raises InvalidStoreNamespaceError, which is LangGraph's error and ours.

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """BaseStore's ``get``: the item under ``key`` (see ``basestore``), or None.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.get(("user", "a"), "food") is None
        True
        """
        check_namespace_type(namespace)
        with langgraph_namespace_errors():
            return super().get(namespace, key, refresh_ttl=refresh_ttl)

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """BaseStore's ``aget``: async :meth:`get`."""
        check_namespace_type(namespace)
        with langgraph_namespace_errors():
            return await super().aget(namespace, key, refresh_ttl=refresh_ttl)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """BaseStore's ``search``: items under ``namespace_prefix`` (see ``basestore``)."""
        check_namespace_type(namespace_prefix, "namespace_prefix")
        with langgraph_namespace_errors():
            return super().search(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """BaseStore's ``asearch``: async :meth:`search`."""
        check_namespace_type(namespace_prefix, "namespace_prefix")
        with langgraph_namespace_errors():
            return await super().asearch(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """BaseStore's ``put``: add or update the item under ``key`` (see ``basestore``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph.store.base import InvalidNamespaceError
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.put(("user", "a"), "food", {"text": "Likes ramen."})
        >>> try:
        ...     s.put(("user", "a.b"), "food", {"text": "Likes ramen."})
        ... except InvalidNamespaceError as exc:  # what code for any LangGraph store catches
        ...     print(type(exc).__name__)
        InvalidStoreNamespaceError
        """
        check_namespace_type(namespace)
        with langgraph_namespace_errors():
            super().put(namespace, key, value, index, ttl=ttl)

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """BaseStore's ``aput``: async :meth:`put`."""
        check_namespace_type(namespace)
        with langgraph_namespace_errors():
            await super().aput(namespace, key, value, index, ttl=ttl)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """BaseStore's ``delete``: archive the item under ``key`` (it stays in history)."""
        check_namespace_type(namespace)
        with langgraph_namespace_errors():
            super().delete(namespace, key)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """BaseStore's ``adelete``: async :meth:`delete`."""
        check_namespace_type(namespace)
        with langgraph_namespace_errors():
            await super().adelete(namespace, key)

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """BaseStore's ``list_namespaces``: the namespaces that hold data (see ``basestore``)."""
        _check_paths(prefix, suffix)
        with langgraph_namespace_errors():
            return super().list_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """BaseStore's ``alist_namespaces``: async :meth:`list_namespaces`."""
        _check_paths(prefix, suffix)
        with langgraph_namespace_errors():
            return await super().alist_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )

    @_fresh
    def sweep_ttl(self, *, now: datetime | None = None) -> int:
        """Archive every BaseStore item whose TTL ran out (see ``store/ttl.py``);
        returns how many. Each closes at its expiry time and stays in ``history``.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.put(("user", "a"), "k", {"text": "Likes tea."}, ttl=10)
        >>> s.sweep_ttl(), s.get(("user", "a"), "k") is not None
        (0, True)
        """
        when = utc(now, "now") if now is not None else now_utc()
        return ttl_sweep.sweep(self._core, when)

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Run :meth:`sweep_ttl` now and every ``sweep_interval_minutes`` (default: the
        TTLConfig's, else 5) in a daemon thread, until :meth:`stop_ttl_sweeper` or
        ``close()``. The future resolves when the thread ends.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> done = s.start_ttl_sweeper(60)
        >>> s.stop_ttl_sweeper(timeout=10), done.result(timeout=10)
        (True, None)
        """
        configured = (self.ttl_config or {}).get("sweep_interval_minutes")
        return self._sweeper.start(
            sweep_interval_minutes or configured or ttl_sweep.DEFAULT_SWEEP_MINUTES
        )

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the TTL sweeper thread; True once it has ended."""
        return self._sweeper.stop(check_seconds(timeout))


def check_store(store: object, what: str = "store") -> MemoryStore:
    """``store`` if it is a MemoryStore; otherwise an error that says what to pass
    (the functions that take one would fail deep inside, some after part of their work).

    >>> check_store("user:a")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidTypeError: store must be a MemoryStore, got str; ...
    """
    return check_instance(store, MemoryStore, what, "pass the MemoryStore(...) it should use")


def _check_location(path: object, client: object) -> None:
    """Refuse a ``path`` or ``client`` that cannot name a store, before any is opened."""
    if path is not None:
        location = os.fspath(path) if isinstance(path, os.PathLike) else path
        if not isinstance(location, str):
            raise InvalidTypeError(
                f"path must be a str or a pathlib.Path naming a directory, "
                f"got {type(path).__name__}: {path!r}"
            )
        if "\x00" in location:
            raise InvalidArgumentError(f"path {location!r} contains a NUL character; fix the path")
    if client is not None and not isinstance(client, ClientAPI):
        raise InvalidTypeError(
            f"client must be a chromadb client, e.g. chromadb.HttpClient(host=..., port=...), "
            f"got {type(client).__name__}"
        )


def _check_embeddings(embeddings: object) -> None:
    """Refuse an embedder that has not the two methods every read and write calls
    (any object with them will do, not only a subclass of LangChain's Embeddings)."""
    if embeddings is None:
        return
    if not all(callable(getattr(embeddings, m, None)) for m in ("embed_documents", "embed_query")):
        raise InvalidTypeError(
            f"embeddings must be a LangChain Embeddings (with embed_documents and "
            f"embed_query), got {type(embeddings).__name__}; leave it out for the offline default"
        )


def _op_list(ops: Iterable[Op]) -> list[Op]:
    """``ops`` as a list, or an error that says what batch() takes."""
    if not isinstance(ops, Iterable):
        raise InvalidTypeError(
            f"batch() takes a list of LangGraph store ops (GetOp, PutOp ...), "
            f"got {type(ops).__name__}: {ops!r}"
        )
    return list(ops)


def _check_paths(*paths: object) -> None:
    """``list_namespaces``' prefix and suffix: a tuple each, or None."""
    for name, path in zip(("prefix", "suffix"), paths, strict=True):
        if path is not None:
            check_namespace_type(path, name)
