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

import copy
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    IndexConfig,
    TTLConfig,
)

from langgraph_memory import telemetry
from langgraph_memory.checks import (
    check_id,
    check_ids,
    check_instance,
    check_k,
)
from langgraph_memory.deprecation import REMOVED_IN
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
    Scalar,
    Source,
    Trust,
    check_text,
    now_utc,
    utc,
)
from langgraph_memory.scope import Scope, ScopeKind, ScopeLike
from langgraph_memory.store.basestore import (
    TTL,
    check_ttl_config,
    read_index,
)
from langgraph_memory.store.basestore.face import BaseStoreFace
from langgraph_memory.store.chroma import (
    NOT_EPISODE,
    RawClient,
    all_of,
    fetch,
    free_ids,
    is_raw_client,
    metadata_clauses,
    revalue,
)
from langgraph_memory.store.data import exports as backup
from langgraph_memory.store.data import purging
from langgraph_memory.store.engine import (
    DEFAULT_PATH,
    PATH_ENV,
    UPDATE_FIELDS,
    CrossProcessLocks,
    StoreCore,
    check_items,
    fresh_method,
    item_fields,
    new_memory,
    read_method,
    successor,
)
from langgraph_memory.store.internals_face import Internals
from langgraph_memory.store.reviews import Reviews

__all__ = ["DEFAULT_PATH", "PATH_ENV", "PUBLIC", "MemoryStore", "check_store", "internals"]

#: The store's own public names, besides LangGraph ``BaseStore``'s (README: "The
#: store's face"; ``tests/test_architecture.py`` holds the class to this list).
PUBLIC = (
    "add", "add_many", "update", "pin", "archive", "archive_many", "get_memory", "active",
    "pinned", "history", "count", "decisions", "scopes", "export", "import_scope",
    "purge", "reviews", "ttl", "admin", "close", "path", "embeddings",
)  # fmt: skip

#: Names the store answered before release 0.3.0, and where each lives now: on
#: ``internals(store)``, or on the ``reviews`` and ``ttl`` sub-objects. They answer
#: with a DeprecationWarning until the release ``deprecation.REMOVED_IN`` names.
_MOVED = {
    **{
        name: ("internals", name)
        for name in (
            "attach", "candidates", "client", "embed_query", "embedder_name", "find",
            "get_memories", "keyword", "log", "nearest", "pending_turns", "scope_generation",
            "scope_lock", "term_shares", "touch", "vectors",
        )
    },
    "propose": ("reviews", "propose"),
    "approve": ("reviews", "approve"),
    "reject": ("reviews", "reject"),
    "sweep_ttl": ("ttl", "sweep"),
    "start_ttl_sweeper": ("ttl", "start"),
    "stop_ttl_sweeper": ("ttl", "stop"),
}  # fmt: skip
#: The attribute that holds each new home of a moved name.
_HOLDERS = {"internals": "_internals", "reviews": "reviews", "ttl": "ttl"}


def _purged(counts: Mapping[str, int]) -> telemetry.Attributes:
    """A ``memory.purge`` span's counts: the memories erased, then every count by name.

    >>> _purged({"memories": 2, "decisions": 1})
    {'gen_ai.memory.record.count': 2, 'langgraph_memory.purged.memories': 2,
     'langgraph_memory.purged.decisions': 1}
    """
    out: telemetry.Attributes = {telemetry.RECORD_COUNT: counts.get("memories", 0)}
    out.update({f"langgraph_memory.purged.{name}": n for name, n in counts.items()})
    return out


#: A purge's span (OpenTelemetry): a ``delete_memory`` of a whole scope, or of some chains.
_PURGE_SPAN = telemetry.StepSpec(
    operation=telemetry.DELETE_MEMORY,
    arguments=lambda a: {"langgraph_memory.purge.whole_scope": a.get("ids") is None},
    result=_purged,
)


class MemoryStore(BaseStoreFace):
    """Long-term memory on Chroma: scopes, validity windows, history, decision log.

    ``MemoryStore()`` opens an embedded store at ``$LANGGRAPH_MEMORY_PATH`` or
    ``./.langgraph_memory`` and locks that directory for this process.
    ``MemoryStore(client=chromadb.HttpClient(...))`` uses a Chroma server,
    which many processes can share; ``lock=`` (default
    ``$LANGGRAPH_MEMORY_LOCK_URL``), a ``postgresql://`` or ``redis://`` URL,
    serialises their writes to each scope across processes (see
    ``store/engine/scope_locks.py``); without it, writes are serialised per scope
    within a process only, and a store on a server warns once that it has no lock
    (``lock="in-process"`` says this process is the only writer). ``queue=``
    (default ``$LANGGRAPH_MEMORY_QUEUE_URL``), a ``postgresql://`` URL, keeps the
    deferred turns of every process's ``BackgroundWriter`` in one table there,
    drained by any of them (see ``store/engine/shared_queue.py``; its Postgres
    serves as the lock when ``lock=`` is unset). ``embeddings`` is any LangChain
    ``Embeddings``; the default is the offline MiniLM embedder. The store
    records which embedder built it and refuses another.

    As a LangGraph ``BaseStore`` it takes LangGraph's ``index=`` (an
    ``IndexConfig``: ``embed``, ``dims``, ``fields``; see ``store/basestore/indexing.py``) and
    ``ttl=`` (a ``TTLConfig``; expiry archives, see ``store/basestore/ttl.py``), and
    namespaces of any depth (see ``scope``).

    Every method takes the scope first, as a ``Scope``, ``"kind:id"`` or a
    namespace tuple, and ``now=`` wherever time matters (default: the clock).
    Times must be timezone-aware (``datetime(..., tzinfo=timezone.utc)``): a naive
    one is refused, since the store cannot know which zone it meant.

    Args:
        path: the directory of an embedded store (a str or ``pathlib.Path``); None:
            ``$LANGGRAPH_MEMORY_PATH``, else ``./.langgraph_memory``. This process
            locks the directory while the store is open; held by the child of a
            purge whose app was killed, the open waits for it to end, up to
            ``$LANGGRAPH_MEMORY_PURGE_WAIT`` seconds (120 by default; 0: refuse at
            once). Give ``path`` or ``client``, not both.
        client: any chromadb client instead of a directory, e.g.
            ``chromadb.HttpClient(host=..., port=...)`` for a Chroma server that
            many processes share. None: the embedded store at ``path``.
        embeddings: any LangChain ``Embeddings`` (an object with
            ``embed_documents`` and ``embed_query``); None: the offline MiniLM
            embedder (``LocalMiniLM``), or ``index["embed"]``. A store keeps the
            name of the embedder that built it and refuses another.
        index: LangGraph's ``IndexConfig`` for the BaseStore face: ``embed`` (the
            embedder, instead of ``embeddings``), ``dims`` (checked against the
            vectors) and ``fields`` (the JSON paths of an item's value that ``put``
            embeds; see ``store/basestore/indexing.py``). None: ``value["text"]``,
            ``"content"`` or ``"memory"``, else the whole value as JSON.
        ttl: LangGraph's ``TTLConfig`` for BaseStore items, in minutes
            (``default_ttl``, ``refresh_on_read``, ``sweep_interval_minutes``, which
            starts a sweeper thread); an expired item is archived, not deleted (see
            ``store/basestore/ttl.py``). None: items never expire.
        lock: a ``postgresql://`` or ``redis://`` URL (or a ``CrossProcessLocks``)
            whose locks serialise the writes to each scope across processes; or
            ``"in-process"``: this process is the only one that writes the store,
            so the in-process lock is enough (and nothing warns). None:
            ``$LANGGRAPH_MEMORY_LOCK_URL`` (which takes the same values), else the
            Postgres of ``queue``, else writes are serialised per scope within this
            process only, and a store on a Chroma server says once per process
            and server, on the ``langgraph_memory`` logger, that processes writing
            one scope at once can store a fact twice.
        queue: a ``postgresql://`` URL where the ``BackgroundWriter`` of every
            process keeps its deferred turns, in one table any of them drains (see
            ``store/engine/shared_queue.py``); for a store on a Chroma server (``client``)
            only. None: ``$LANGGRAPH_MEMORY_QUEUE_URL``, else each writer keeps its
            own journal.
        cache_mb: the memory, in MB, the store keeps for the people it serves
            (Chroma's vector indexes, lexical indexes, handles, rules; see
            ``store/engine/budget.py``), least recently used out, so that memory does
            not grow with the number of people ever read. None:
            ``$LANGGRAPH_MEMORY_CACHE_MB``, else 256. Every store on one location in a
            process shares it.

    Raises:
        InvalidArgumentError: both ``path`` and ``client`` are given, ``index``
            or ``ttl`` holds a key or value the store cannot use, ``cache_mb`` is no
            positive number (or differs from the one the location is open with), or
            ``$LANGGRAPH_MEMORY_PURGE_WAIT`` is no number of seconds >= 0.
        InvalidTypeError: ``path``, ``client``, ``embeddings``, ``lock`` or
            ``queue`` is of a type the store cannot use.
        LockConfigError: ``lock`` is neither a lock URL the store knows nor
            ``"in-process"``, or is ``"in-process"`` beside a ``queue``.
        QueueConfigError: ``queue`` is not a Postgres URL, or the store is embedded.
        StoreLockedError: another process holds the embedded store's directory, or
            a killed purge's child still held it when the wait ran out.
        EmbeddingMismatchError: the store was built with another embedder.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> with MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8)) as s:
    ...     _ = s.add("user:bob", "User is vegetarian.", importance=0.8)
    ...     [m.text for m in s.active("user:bob")]
    ['User is vegetarian.']

    Its face is small on purpose (``PUBLIC`` lists it; README "The store's face"):
    memories (``add``, ``add_many``, ``update``, ``pin``, ``archive``, ``archive_many``,
    ``get_memory``, ``active``, ``pinned``, ``history``, ``count``), their
    ``decisions``, ``scopes``, ``export`` / ``import_scope``, ``purge``, the
    ``reviews`` and ``ttl`` sub-objects, ``admin()``, ``close()``, ``path`` and
    ``embeddings``, and LangGraph's ``BaseStore`` methods. Search is
    ``langgraph_memory.retrieve(store, scope, query)`` (or BaseStore's ``search``);
    what the read and write paths need beneath that is ``internals(store)``.
    """

    supports_ttl = True

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        client: RawClient | None = None,
        embeddings: Embeddings | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        lock: str | CrossProcessLocks | None = None,
        queue: str | None = None,
        cache_mb: int | float | None = None,
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
        self._core = StoreCore(
            path, client, embeddings, dims=indexing.dims, lock=lock, queue=queue, cache_mb=cache_mb
        )
        self._internals = Internals(self._core)
        # The single async calls of the BaseStore face made at once run as one batch.
        self._gather_calls()
        #: Reviews between scopes: call it to list them; propose, approve, reject.
        self.reviews = Reviews(self._core)
        #: TTL sweeps of BaseStore items: sweep, start, stop.
        self.ttl = TTL(self._core, self.ttl_config)
        minutes = (self.ttl_config or {}).get("sweep_interval_minutes")
        if minutes is not None:
            self.ttl.start(minutes)

    @property
    def embeddings(self) -> Embeddings:
        """The LangChain ``Embeddings`` this store embeds texts and queries with."""
        return self._core.embeddings

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
        self.ttl.stop()
        self._core.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    if not TYPE_CHECKING:  # type checkers see only the current names

        def __getattr__(self, name: str) -> Any:
            """A name the store answered before 0.3.0 (``_MOVED``): where it lives now,
            with a DeprecationWarning that says so."""
            moved = _MOVED.get(name)
            # vars(): never __getattr__ again, even on a store half built or copied.
            owner = None if moved is None else vars(self).get(_HOLDERS[moved[0]])
            if moved is None or owner is None:
                raise AttributeError(f"'MemoryStore' object has no attribute {name!r}")
            where = "internals(store)" if moved[0] == "internals" else f"store.{moved[0]}"
            warnings.warn(
                f"MemoryStore.{name} is now {where}.{moved[1]} "
                f"(from langgraph_memory.store); the old name goes away in {REMOVED_IN}",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(owner, moved[1])

    def __repr__(self) -> str:
        where = str(self.path) if self.path else type(self._core.engine.client).__name__
        admin = ", admin" if self._core.admin else ""
        return f"MemoryStore({where!r}, embedder={self._core.embedder_name!r}{admin})"

    def admin(self) -> MemoryStore:
        """A view of this store that may also write org scopes.

        An org scope holds what every agent and user of an organisation reads, so
        no write reaches it by accident: through a plain store, ``add``,
        ``update``, ``archive``, ``log``, ``import_scope``, ``purge``, BaseStore
        ``put`` and ``delete``, and ``reviews.approve``/``reject`` of a review for an org
        scope raise ``AdminRequiredError``; the write path and its tools refuse org
        scopes even on an admin view. The view shares this store's data and locks;
        close it when done (it holds the store open as one more user).

        Returns:
            A ``MemoryStore`` on the same data and locks whose writes may also reach
            org scopes; close it (or use it in a ``with`` block) when done.

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
        view._internals = Internals(view._core)
        view.reviews = Reviews(view._core)
        view.ttl = TTL(view._core, self.ttl_config, self.ttl.sweeper)
        return view

    # -- scopes and collections --------------------------------------------------

    @read_method
    def scopes(self, kind: ScopeKind | None = None) -> list[Scope]:
        """Every scope that holds data, optionally only of one kind, sorted.

        Args:
            kind: only the scopes of this kind (``"session"``, ``"user"``,
                ``"agent"``, ``"org"`` or ``"namespace"``); None: every scope.

        Returns:
            The scopes, as ``Scope`` objects, sorted by kind, then id.

        Raises:
            InvalidScopeError: ``kind`` is not a scope kind.

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

        Args:
            scope: the scope to write: a ``Scope``, ``"kind:id"`` (``"user:alice"``)
                or a namespace tuple; an org scope only through :meth:`admin`.
            text: what to remember: not blank, at most ``MAX_TEXT_CHARS`` (32,768)
                characters; surrounding whitespace is stripped.
            importance: how much it matters, from 0 to 1; reads rank by it.
            kind: a ``Kind`` or its value: ``"semantic"`` (a fact, the default),
                ``"episodic"``, ``"procedural"`` (a rule every read shows) or
                ``"reflection"``.
            pinned: True: every read of the scope shows it, whatever the question.
            source: where the text came from, a ``Source`` or its value.
            trust: how far it may be relied on, a ``Trust`` or its value; a
                low-trust memory is shown as an unverified note.
            event_time: when what it says happened (timezone-aware); None: unknown.
            sources: the ids of the memories it was taken from (e.g. the episodes
                that said it).
            metadata: your own fields: str keys, and str, int, float or bool values
                (not None); :meth:`count` filters by them. None: none.
            now: when it is stored (its ``created_at``; timezone-aware); None: the
                clock.

        Returns:
            The stored ``Memory``, with its new id.

        Raises:
            InvalidMemoryError: a field cannot be stored (a blank or too long text,
                an importance outside [0, 1], an unknown kind, bad metadata ...).
            InvalidArgumentError: ``now`` or ``event_time`` is naive.
            InvalidScopeError: ``scope`` names no scope.
            AdminRequiredError: ``scope`` is an org scope and this store is no
                admin view.

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

    @fresh_method
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

        Args:
            scope: the scope to write: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            items: the memories, each a text or a dict of :meth:`add`'s keyword
                arguments with its ``"text"``, e.g. ``{"text": ..., "pinned": True}``.
            now: when they are stored (timezone-aware), unless an item gives its
                own ``"now"``; None: the clock.
            vectors: one vector per item, in order, from this store's embedder;
                None: the store embeds the texts, in one call.

        Returns:
            The stored memories, in the order of ``items``.

        Raises:
            InvalidMemoryError: an item cannot be stored (the error names its
                index); nothing is written.
            EmbeddingMismatchError: ``vectors`` is not one vector per item, or not
                of this store's dimension.
            AdminRequiredError: ``scope`` is an org scope and this store is no
                admin view.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> [m.text for m in s.add_many("user:a", ["Likes tea.", {"text": "Has a cat."}])]
        ['Likes tea.', 'Has a cat.']
        """
        scope = Scope.of(scope)
        when = utc(now, "now") if now is not None else now_utc()
        built = _built(scope, items, when, "")
        if vectors is not None and len(vectors) != len(built):
            raise EmbeddingMismatchError(
                f"add_many got {len(vectors)} vectors for {len(built)} items; pass one per item"
            )
        return self._core.add_new(scope, built, vectors)

    @fresh_method
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

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_id: the id of the active version (or its chain key, a BaseStore
                item's key).
            text: the new version's text (as for :meth:`add`).
            now: when the old version closes and the new one opens
                (timezone-aware); None: the clock.
            **fields: other fields of :meth:`add` to change (``importance``,
                ``kind``, ``pinned``, ``source``, ``trust``, ``event_time``,
                ``sources``, ``metadata``: merged into the old); the rest carry
                over.

        Returns:
            The new version.

        Raises:
            MemoryNotFoundError: no memory has that id in the scope.
            MemoryArchivedError: the version named is archived (the error names
                the current one).
            InvalidTypeError: a field ``update`` does not take.
            InvalidMemoryError: a field cannot be stored.
            AdminRequiredError: ``scope`` is an org scope and this store is no
                admin view.

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
            # An item put with index=False stays out of vector search (and away from
            # the embedder), as its TTL carries over.
            if old.indexed:
                [vector] = self._core.embed([new.text])
            else:
                vector = self._core.unindexed_vector()
            value_json = revalue(old.value_json, new.text)
            # A BaseStore item's vector per field holds while its text and value do.
            same = new.text == old.memory.text and value_json is not None
            cols = self._core.writable(scope)
            [new_id] = free_ids(cols, 1)
            self._core.replace(
                cols,
                [
                    (
                        old,
                        old.successor(
                            replace(new, id=new_id),
                            vector,
                            value_json,
                            indexed=old.indexed,
                            fields=old.fields if same else None,
                        ),
                    )
                ],
                when,
            )
        return replace(new, id=new_id)

    def pin(
        self, scope: ScopeLike, memory_id: str, pinned: bool = True, *, now: datetime | None = None
    ) -> Memory:
        """Pin an active memory (``pinned=False``: unpin it). A pinned memory comes
        with every read of its scope, whatever the question (an allergy, a standing
        instruction). As every change, it is a new version with the same text (the
        old one stays in ``history``); a memory already so is returned as it is.

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_id: the id of the active version (or its chain key).
            pinned: True to pin, False to unpin.
            now: when the new version opens (timezone-aware); None: the clock.

        Returns:
            The new version, or the memory as it was when it was already so.

        Raises:
            MemoryNotFoundError: no memory has that id in the scope.
            MemoryArchivedError: the version named is archived.
            InvalidTypeError: ``pinned`` is not a bool.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "User is allergic to peanuts.")
        >>> pinned = s.pin("user:a", m.id)
        >>> [x.text for x in s.pinned("user:a")], s.pin("user:a", pinned.id) == pinned
        (['User is allergic to peanuts.'], True)
        """
        if not isinstance(pinned, bool):
            raise InvalidTypeError(f"pinned must be True or False, got {pinned!r}")
        if now is not None:
            utc(now, "now")  # refused before anything is read, changed or not
        scope = Scope.of(scope)
        # Under the scope's lock: two pins at once make one new version, not two.
        with self._core.live().scope_lock(scope):
            current = self._active_memory(scope, memory_id)
            if current.pinned == pinned:
                return current
            return self.update(scope, current.id, current.text, pinned=pinned, now=now)

    @read_method
    def _active_memory(self, scope: Scope, memory_id: str) -> Memory:
        return self._core.active_version(scope, memory_id, with_vector=False).memory

    def archive(self, scope: ScopeLike, memory_id: str, *, now: datetime | None = None) -> Memory:
        """Archive an active memory: ``valid_until = now``. Nothing is deleted.

        The closed version stays readable with ``get``, ``history`` and
        ``retrieve(..., as_of=...)``; ``purge`` is the hard delete. Reflections
        resting on it are archived with it, the reason logged (any version that
        closes, by an update too, takes them along: see ``store/engine/core.py``).

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_id: the id of the active version (or its chain key).
            now: when it stops being valid (timezone-aware); None: the clock.

        Returns:
            The archived version, its ``valid_until`` set.

        Raises:
            MemoryNotFoundError: no memory has that id in the scope.
            MemoryArchivedError: the version named is archived already.
            AdminRequiredError: ``scope`` is an org scope and this store is no
                admin view.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> s.archive("user:a", m.id).active, s.active("user:a")
        (False, [])
        """
        return self.archive_many(scope, [check_id(memory_id)], now=now)[0]

    @fresh_method
    def archive_many(
        self, scope: ScopeLike, memory_ids: Sequence[str], *, now: datetime | None = None
    ) -> list[Memory]:
        """Archive several active memories in three writes, however many; returns
        them closed, in the order given. Each id must name an active memory (or
        its chain key): otherwise nothing is archived and the error names it.

        Args:
            scope: the memories' scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_ids: the ids (or chain keys) of active memories, each once.
            now: when they stop being valid (timezone-aware); None: the clock.

        Returns:
            The archived versions, in the order of ``memory_ids`` (none for none).

        Raises:
            MemoryNotFoundError: an id names no memory of the scope.
            MemoryArchivedError: an id names an archived version.
            InvalidArgumentError: two ids name one memory.

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

    # -- reads ---------------------------------------------------------------------

    @read_method
    def get_memory(self, scope: ScopeLike, memory_id: str) -> Memory:
        """The memory version with this id (or chain key), active or archived.

        Raises ``MemoryNotFoundError`` for an unknown id. (``get(namespace, key)``
        is LangGraph's ``BaseStore.get``: the current ``Item`` under a key, or None.)

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_id: a version's id, or a chain key (then its current version,
                or its last one when all are archived).

        Returns:
            The ``Memory`` version (``.active`` says whether it is current).

        Raises:
            MemoryNotFoundError: no memory has that id in the scope.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:a", "Likes tea.")
        >>> s.get_memory("user:a", m.id).text, s.get(("user", "a"), m.id).value["text"]
        ('Likes tea.', 'Likes tea.')
        """
        return self._core.version(Scope.of(scope), memory_id).memory

    @read_method
    def active(self, scope: ScopeLike, *, episodes: bool = True) -> list[Memory]:
        """Every active memory of the scope, oldest first; ``episodes=False``
        leaves episodes out (see ``Memory.is_episode``): the facts alone.

        Args:
            scope: a ``Scope``, ``"kind:id"`` or a namespace tuple.
            episodes: False leaves out the episodes (the turns' words kept
                verbatim).

        Returns:
            The active memories, oldest first; none for a scope that holds none.

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

    @read_method
    def pinned(self, scope: ScopeLike, limit: int = 10) -> list[Memory]:
        """Active pinned memories of the scope, most important first, at most ``limit``.

        Args:
            scope: a ``Scope``, ``"kind:id"`` or a namespace tuple.
            limit: the most memories returned, from 1 to ``MAX_K`` (10,000).

        Returns:
            The pinned memories, most important first (then oldest).

        Raises:
            InvalidArgumentError: ``limit`` is out of range.

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

    @read_method
    def count(
        self,
        scope: ScopeLike,
        *,
        metadata: Mapping[str, Scalar] | None = None,
        archived: bool = False,
    ) -> int:
        """How many active memories the scope holds (whose ``metadata`` holds all
        the given values), without reading them; with ``archived=True``, closed
        versions too.

        Args:
            scope: a ``Scope``, ``"kind:id"`` or a namespace tuple.
            metadata: count only the memories whose metadata holds each of these
                values (a list of values matches any of them); None: all.
            archived: True counts the closed versions too.

        Returns:
            The number of memories (versions, with ``archived=True``); 0 for an
            empty scope.

        Raises:
            InvalidMemoryError: ``metadata`` holds a value metadata cannot have.

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
            return 0  # any of no values: none (Chroma refuses an empty $in)
        where = all_of(clauses)
        cols = self._core.collections(scope)
        if cols is None:
            return 0
        collections = [cols.active, cols.history] if archived else [cols.active]
        if where is None:
            return sum(c.size() for c in collections)
        return sum(len(c.read(where=where)["ids"]) for c in collections)

    @read_method
    def history(self, scope: ScopeLike, memory_id: str) -> list[Memory]:
        """Every version of the memory that ``memory_id`` belongs to, oldest first.

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_id: the id of any of its versions, or its chain key.

        Returns:
            Its versions, oldest first; the current one, if any, is last.

        Raises:
            MemoryNotFoundError: no memory has that id in the scope.

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

    @read_method
    def decisions(
        self, scope: ScopeLike, memory_id: str | None = None, *, turn_id: str | None = None
    ) -> list[Decision]:
        """The scope's decisions, oldest first; with ``memory_id``, those that
        created, changed or removed any version of that memory ("why does the
        agent think this?"). With ``turn_id``, only the decisions of that turn.

        Args:
            scope: a ``Scope``, ``"kind:id"`` or a namespace tuple.
            memory_id: the id of any version of a memory (one purged or unknown
                too); None: every decision of the scope.
            turn_id: only the decisions of this turn; None: of every turn.

        Returns:
            The ``Decision`` records, oldest first.

        Raises:
            InvalidArgumentError: ``memory_id`` or ``turn_id`` is not a valid id.

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

    # -- export and hard delete ------------------------------------------------------

    @fresh_method
    def export(self, scope: ScopeLike) -> dict[str, Any]:
        """Every version (active and closed) and decision of the scope, as a
        JSON-ready dict that :meth:`import_scope` restores exactly.

        Format ``langgraph-memory-export`` version 3 (``store/data/export_format.py``
        describes every field)::

            {"format": "langgraph-memory-export", "version": 3, "scope": "user:a",
             "embedder": NAME,
             "memories": [Memory.to_dict() + {"key", "key_created_at", "value_json"}],
             "decisions": [Decision.to_dict()], "reviews": [Review.to_dict()],
             "pending_turns": [turn record]}

        ``key`` is the chain (BaseStore item) key, ``key_created_at`` the
        chain's start, ``value_json`` the JSON of a BaseStore value or null.
        Vectors are left out: import embeds the texts again.

        Args:
            scope: the scope to export: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.

        Returns:
            The export, a dict of JSON types (``json.dumps`` writes it as it is).

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
        store can verify (``store/data/import_checks.py``); anything else refuses the
        whole import (InvalidMemoryError naming the record), before anything is
        written. Refuses a scope that holds data (ScopeNotEmptyError) and an
        export from another embedder unless ``allow_embedder_change=True``.
        Read a file with ``langgraph_memory.store.load_export`` (UTF-8, size and
        depth bounds). Returns counts (see ``store/data/exports.py``).

        Args:
            data: an :meth:`export`, as a dict (e.g. ``json.load``'s or
                ``load_export``'s).
            scope: the scope to fill: a ``Scope``, ``"kind:id"`` or a namespace
                tuple; None: the export's own.
            allow_embedder_change: True accepts an export made with another
                embedder (its texts are embedded with this store's either way).
            requeue: takes each pending turn of the export (a journal record) once
                the scope is written, e.g. ``BackgroundWriter.requeue``; None: an
                export that holds pending turns is refused.

        Returns:
            How many records were restored: ``memories``, ``active``, ``closed``,
            ``decisions``, ``reviews`` and ``pending_turns``.

        Raises:
            ScopeNotEmptyError: the scope already holds data.
            InvalidMemoryError: a record is malformed, belongs to another scope, or
                links to reviews the store cannot verify; or the export holds
                pending turns and ``requeue`` is None.
            EmbeddingMismatchError: the export was made with another embedder and
                ``allow_embedder_change`` is False.
            AdminRequiredError: the scope is an org scope and this store is no
                admin view.

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

    @telemetry.spanned("memory.purge", _PURGE_SPAN)
    @fresh_method
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

        Args:
            scope: the scope to purge from: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            ids: ids (or chain keys) of the memories to delete, every version of
                each; None: the whole scope.

        Returns:
            How many records were deleted: ``memories`` (versions), ``decisions``
            and ``reviews``.

        Raises:
            MemoryNotFoundError: an id names no memory of the scope; nothing is
                deleted.
            AdminRequiredError: ``scope`` is an org scope and this store is no
                admin view.
            NestedPurgeError: called from inside another store operation of the
                same thread, which it would wait for forever.

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


def _built(
    scope: Scope, items: Sequence[str | Mapping[str, Any]], when: datetime, where: str
) -> list[Memory]:
    """The new memories of ``items`` (``add_many``'s), each validated; an error names
    the item (after ``where``)."""
    built = []
    for i, item in enumerate(check_items(items)):
        fields = item_fields(i, item)
        try:
            # An item's own "now" (add's argument) dates it: a history imported in one
            # call keeps each turn's time.
            at = utc(fields.pop("now"), "now") if fields.get("now") is not None else when
            built.append(new_memory(scope, at, fields))
        except InvalidMemoryError as exc:
            raise InvalidMemoryError(f"{where}item {i}: {exc}") from None
    return built


def check_store(store: object, what: str = "store") -> MemoryStore:
    """``store`` if it is a MemoryStore; otherwise an error that says what to pass
    (the functions that take one would fail deep inside, some after part of their work).

    Args:
        store: the object to check.
        what: the argument's name, for the error.

    Returns:
        ``store`` itself, typed as a ``MemoryStore``.

    Raises:
        InvalidTypeError: ``store`` is not a ``MemoryStore``.

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
    if client is not None and not is_raw_client(client):
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


def internals(store: MemoryStore) -> Internals:
    """The internals under ``store`` that the read and write paths use (see
    ``store/internals_face.py``): dense and keyword searches apart, vectors, the scope's
    lock and generation, the decision log's writer.

    Args:
        store: the store whose internals are wanted.

    Returns:
        The store's ``Internals``.

    Raises:
        InvalidTypeError: ``store`` is not a ``MemoryStore``.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = s.add("user:a", "Flight LH-761 leaves at 7.")
    >>> [h.memory.text for h in internals(s).keyword("user:a", "LH-761")]
    ['Flight LH-761 leaves at 7.']
    """
    return check_store(store)._internals


def add_people(
    store: MemoryStore,
    people: Mapping[ScopeLike, Sequence[str | Mapping[str, Any]]],
    *,
    now: datetime | None = None,
    vectors: Mapping[ScopeLike, Sequence[Sequence[float]]] | None = None,
) -> dict[str, list[Memory]]:
    """Store many people's new memories at once: ``store.add_many`` for each scope of
    ``people``, in far fewer writes when they are new to the store.

    For importing a service's users (from another memory system, a database, a
    benchmark's corpus): people the store has never seen, each with at most 64
    memories, are listed and written a few dozen at a time, one write for each
    bucket they share, where ``add_many`` for each rewrites the bucket's index
    once a person. Anyone else (a person the store holds, or one with more), and
    everyone on a store whose locks reach across processes, is written as
    ``add_many`` writes them. Every item is validated first: one bad item
    stores nothing. What is stored is what ``add_many`` would have stored,
    read back the same way. A function beside the store, not one of its methods: the
    store's face stays narrow (docs/architecture.md).

    Args:
        store: the store to write.
        people: each scope (a ``Scope``, ``"kind:id"`` or a namespace tuple) with its
            items, each a text or a dict of ``add``'s keyword arguments with
            its ``"text"``. A scope given twice (in two spellings) is refused.
        now: when they are stored (timezone-aware), unless an item gives its own
            ``"now"``; None: the clock.
        vectors: for any scope, one vector per item from this store's embedder;
            the others are embedded here, in one call.

    Returns:
        Each scope's key (``"user:alice"``) with its stored memories, in the order
        of its items.

    Raises:
        InvalidMemoryError: an item cannot be stored (the error names its scope and
            index); nothing is written.
        InvalidArgumentError: a scope is given twice, or ``people`` (or ``vectors``) is
            no mapping of scopes.
        EmbeddingMismatchError: a scope's ``vectors`` are not one per item, or not
            of this store's dimension.
        AdminRequiredError: an org scope, and this store is no admin view; nothing
            is written.
        InvalidTypeError: ``store`` is not a ``MemoryStore``.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> made = add_people(s, {"user:a": ["Likes tea."], "user:b": ["Has a cat.", "In Oslo."]})
    >>> {key: [m.text for m in found] for key, found in made.items()}
    {'user:a': ['Likes tea.'], 'user:b': ['Has a cat.', 'In Oslo.']}
    >>> sorted(m.text for m in s.active("user:b"))
    ['Has a cat.', 'In Oslo.']
    """
    store = check_store(store)
    for name, value in (("people", people), ("vectors", vectors)):
        if value is not None and not isinstance(value, Mapping):
            raise InvalidArgumentError(
                f"{name} must map each scope to its {'items' if name == 'people' else 'vectors'}"
                f", e.g. {{'user:ann': ['Likes tea.']}}; got {type(value).__name__}"
            )
    when = utc(now, "now") if now is not None else now_utc()
    given = {Scope.of(k): v for k, v in (vectors or {}).items()}
    built: dict[Scope, list[Memory]] = {}
    for key, items in people.items():
        scope = Scope.of(key)
        if scope in built:
            raise InvalidArgumentError(
                f"{scope.key} is given twice to add_people (as {key!r} too): give each "
                "person once, with all their items"
            )
        built[scope] = _built(scope, items, when, f"{scope.key}, ")
        if scope in given and len(given[scope]) != len(built[scope]):
            raise EmbeddingMismatchError(
                f"add_people got {len(given[scope])} vectors for {scope.key}'s "
                f"{len(built[scope])} items; pass one per item"
            )
    order = list(built)
    made = store._core.add_people([(s, built[s]) for s in order], [given.get(s) for s in order])
    return {s.key: found for s, found in zip(order, made, strict=True)}
