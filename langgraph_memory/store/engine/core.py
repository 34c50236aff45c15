"""The store's core, under both of its faces: the memory methods of
``MemoryStore`` and the LangGraph ``BaseStore`` ops (``basestore``).

It owns what both faces need and nothing else: the engine of a location (client,
collection handles, locks, gate, lexical indexes: see ``engine``), the embedder and
its bookkeeping, version lookups, the never-overwrite move of a version into
history, and the decision log. Every change of a scope's active versions goes
through ``add_active`` or ``replace``, which keep its lexical index in step. Neither
face touches Chroma's collections through anything but this object and the record
helpers it is built on.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> core = StoreCore(tempfile.mkdtemp(), None, DeterministicFakeEmbedding(size=8))
>>> core.embedder_name, len(core.embed(["Likes tea."])[0])
('langchain_core.embeddings.fake.DeterministicFakeEmbedding', 8)
>>> core.close()

**Reflections rest on other memories, and never outlive them.** A reflection (kind
``reflection``) is a conclusion drawn from other memories; it names them in
``sources``. When a version it rests on closes (archived, or replaced by an update)
the conclusion may no longer hold: ``StoreCore.replace`` archives the reflection
with it and logs why. When one is purged, the reflection is purged with it
(``purging``): a conclusion drawn from erased words keeps what they said.
Reflections resting on those reflections follow, in turn.

Chroma cannot match part of a metadata string (``sources`` is comma-joined), so
the scope's reflections are read, by kind, and matched here: one read per
collection, of reflections only.
"""

from __future__ import annotations

import copy
import functools
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any, NoReturn, TypeVar, cast

from langchain_core.embeddings import Embeddings

from langgraph_memory.checks import check_id, check_query, check_vector
from langgraph_memory.errors import (
    AdminRequiredError,
    EmbeddingMismatchError,
    InvalidMemoryError,
    InvalidScopeError,
    MemoryArchivedError,
    MemoryNotFoundError,
    StoreClosedError,
)
from langgraph_memory.records import Decision, DecisionOp, Kind, Memory, utc
from langgraph_memory.scope import (
    ADMIN_KINDS,
    NAMESPACE_KIND,
    OWNER_KINDS,
    Scope,
    ScopeKind,
    check_scope_kind,
)
from langgraph_memory.store.chroma import (
    CHAIN_KEY,
    MissingCollectionError,
    RawClient,
    VectorCollection,
    append_decisions,
    fetch,
    free_ids,
    insert,
    insert_shares,
    layout,
    log_id,
    max_batch,
    new_ids,
    read_decisions,
)
from langgraph_memory.store.engine import promotion
from langgraph_memory.store.engine.engine import Engine, open_engine
from langgraph_memory.store.engine.scope_locks import CrossProcessLocks
from langgraph_memory.store.version import Version, unindexed_vector

__all__ = [
    "REFLECTIONS",
    "StoreCore",
    "archive_decisions",
    "fresh_method",
    "read_method",
    "resting_on",
]

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])


class StoreCore:
    """Collections, embedding, versioning and the decision log of one store object.

    Every ``MemoryStore`` has one; the ``BaseStore`` ops run on it too. Several
    cores on one location share its engine (see ``engine``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        client: RawClient | None,
        embeddings: Embeddings,
        *,
        dims: int | None = None,
        lock: str | CrossProcessLocks | None = None,
        queue: str | None = None,
        cache_mb: int | float | None = None,
    ) -> None:
        from langgraph_memory.embeddings import embedder_name

        self.embeddings = embeddings
        self.embedder_name = embedder_name(embeddings)
        #: Whether this core may write org scopes (``MemoryStore.admin``).
        self.admin = False
        #: The dimension the caller says the embedder has (``index={"dims": ...}``).
        self.dims = dims
        self._closed = False
        #: How deep this thread is in operations (``fresh``): the outermost one's end
        #: may start a new Chroma client (``Engine.recycle_if_due``).
        self._running = threading.local()
        self.engine = open_engine(path, client, lock, queue, cache_mb)
        try:
            with self.engine.gate.shared():
                self._check_embedder()
            if dims is not None and self.engine.dimension not in (0, dims):
                self._dims_mismatch(self.engine.dimension, "this store holds")
        except BaseException:
            self.close()  # a refused open must not keep the directory locked
            raise

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        """Give back this core's hold on the engine; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.engine.close()

    def admin_view(self) -> StoreCore:
        """Another core on the same engine that may write org scopes; it holds the
        engine as one more user, so either may be closed first."""
        engine = self.live()
        engine.share()
        view = copy.copy(self)
        view.admin = True
        view._closed = False
        return view

    def check_write(self, scope: Scope) -> Scope:
        """``scope``, when this core may change it: an org scope only as an admin."""
        if scope.kind in ADMIN_KINDS and not self.admin:
            raise AdminRequiredError(
                f"{scope.key} is an {scope.kind} scope, which only an admin writes: use "
                "store.admin(), a view of the same store that may (`with store.admin() as "
                f"admin: admin.add({scope.key!r}, ...)`). To move a memory up into it, "
                f"store.reviews.propose(from_scope, memory_id, {scope.key!r}) and then "
                "store.admin().reviews.approve(review_id)"
            )
        return scope

    def live(self) -> Engine:
        """The engine, or StoreClosedError once this core or the engine is closed."""
        if self._closed or self.engine.closed:
            raise StoreClosedError(
                "this MemoryStore was closed; open it again (MemoryStore(path)) to use it"
            )
        return self.engine

    @contextmanager
    def reading(self) -> Iterator[Engine]:
        """Hold the gate shared: run beside other operations, never beside a purge."""
        engine = self.live()
        with engine.gate.shared():
            yield engine

    @contextmanager
    def writing(self, scope: Scope) -> Iterator[Engine]:
        """The scope's lock, then its bucket's across processes (``Engine.bucket_locks``),
        then the gate shared (always in this order: see ``engine``).

        Every store write method enters it right before it touches Chroma: the place
        of the fencing check (``ScopeLock.check``), which stops a write whose
        cross-process lock was lost before anything of it is applied. Its last step,
        still under the locks, moves a scope that outgrew its bucket (``promotion``)."""
        engine = self.live()
        with engine.scope_lock(scope) as held, ExitStack() as buckets:
            outermost = held.outermost
            if outermost:  # a re-entered hold has them already
                for lock in engine.bucket_locks([scope]):
                    buckets.enter_context(lock)
                buckets.callback(engine.unplace, scope)
            buckets.enter_context(engine.gate.shared())
            held.check()
            yield engine
            if outermost and scope.key in engine.grew:  # the write's last step
                promotion.promote_if_outgrown(engine, scope, engine.grew.pop(scope.key))

    def fresh(self, run: Callable[[], _T]) -> _T:
        """Run ``run`` again, with fresh collection handles, when Chroma says a
        collection it used is gone: a purge through another process (or another
        client) rebuilt it under a new id, or a scope moved out of its bucket. Every
        operation's first Chroma call is a read, so a retried write has not written
        anything yet.

        Up to ``FRESH_TRIES`` runs that find no new registry. A run that does find one
        is not counted: a whole-scope purge rebuilt the registry, and a write reads it
        (for its bucket) before it waits for the bucket's lock that purge holds, so
        a write behind a run of purges finds it stale once each purge ends. Those runs
        stop at the cross-process locks' wait (``lock_timeout``), as the wait for a lock
        itself does."""
        deadline: float | None = None  # set on the first failure: every operation runs this
        stale = 0
        outermost = not getattr(self._running, "depth", 0)
        while True:
            try:
                self._running.depth = getattr(self._running, "depth", 0) + 1
                try:
                    done = run()
                finally:
                    self._running.depth -= 1
                if outermost:
                    # Between two operations of this thread, none of another running:
                    # the moment to start a new Chroma client when one is due.
                    self.engine.recycle_if_due()
                return done
            except MissingCollectionError:
                engine = self.live()
                if deadline is None:
                    patience = getattr(engine.scope_locks.cross, "timeout", None)
                    deadline = time.monotonic() + (patience or FRESH_PATIENCE)
                if not engine.forget_handles():
                    stale += 1
                if stale >= FRESH_TRIES or time.monotonic() > deadline:
                    raise

    # -- embedding -------------------------------------------------------------------

    def _check_embedder(self) -> None:
        engine = self.engine
        # An embedded store keeps the settings beside its bucketed entries too: an open
        # then reads no registry record (see ``BucketEntries.config``).
        kept = engine.lexicon.buckets
        config = kept.config() if kept is not None else None
        if config is None:
            config = layout.read_config(engine.registry)
            if config is not None and kept is not None:
                kept.keep_config(
                    embedder=str(config.get("embedder")),
                    dimension=int(config.get("dimension", 0)),
                )
        if config is None:
            with engine.shared_lock():
                self._write_config(dimension=0)
            return
        if config.get("embedder") != self.embedder_name:
            raise EmbeddingMismatchError(
                f"this store was built with the embedder {config.get('embedder')!r} "
                f"({config.get('dimension')} dimensions) but you passed {self.embedder_name!r}. "
                "Vectors from different embedders cannot be compared: pass the same "
                "embedder, or open a new store path for the new one."
            )
        engine.dimension = int(config.get("dimension", 0))

    def _check_vectors(self, vectors: Sequence[Sequence[float]], expected: int) -> None:
        if len(vectors) != expected:
            raise EmbeddingMismatchError(
                f"the embedder returned {len(vectors)} vectors for {expected} texts"
            )
        engine = self.live()
        for vector in vectors:
            if self.dims is not None and len(vector) != self.dims:
                self._dims_mismatch(len(vector), "the embedder returned")
            if engine.dimension == 0:
                with engine.gate.shared(), engine.shared_lock():
                    self._write_config(dimension=len(vector))
                engine.dimension = len(vector)
            if len(vector) != engine.dimension:
                raise EmbeddingMismatchError(
                    f"got a {len(vector)}-dimensional vector, but this store holds "
                    f"{engine.dimension}-dimensional vectors from {self.embedder_name!r}; "
                    "use the embedder the store was built with"
                )

    def _write_config(self, *, dimension: int) -> None:
        """Record the store-wide settings in the registry, and beside the bucketed
        entries of an embedded store."""
        engine = self.engine
        layout.write_config(engine.registry, embedder=self.embedder_name, dimension=dimension)
        if engine.lexicon.buckets is not None:
            engine.lexicon.buckets.keep_config(embedder=self.embedder_name, dimension=dimension)

    def _dims_mismatch(self, found: int, what: str) -> NoReturn:
        raise EmbeddingMismatchError(
            f"index dims is {self.dims}, but {what} {found}-dimensional vectors from "
            f"{self.embedder_name!r}; set dims to {found} or pass the embedder you meant"
        )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One checked vector per text, in one embedder call."""
        if not texts:
            return []
        vectors = [
            check_vector(v, f"the embedder's vector for text {i}")
            for i, v in enumerate(self.embeddings.embed_documents(list(texts)))
        ]
        self._check_vectors(vectors, len(texts))
        return vectors

    def vectors_for(
        self, texts: Sequence[str], given: Sequence[Sequence[float]] | None
    ) -> list[list[float]]:
        """One checked vector per text: the ``given`` ones (the caller embedded the
        texts with this store's embedder, to batch them with other work), else
        embedded here in one call."""
        if given is None:
            return self.embed(texts)
        vectors = [check_vector(v, f"vectors[{i}]") for i, v in enumerate(given)]
        self._check_vectors(vectors, len(texts))
        return vectors

    def unindexed_vector(self) -> list[float]:
        """The vector of a record kept out of vector search (see ``Version.indexed``),
        of the store's dimension. A store that has embedded nothing yet learns its
        dimension from one fixed probe text, never from the item's own text."""
        if self.live().dimension == 0:
            self.embed(["dimension probe"])  # records the dimension (see _check_vectors)
        return unindexed_vector(self.live().dimension)

    def embed_query(self, query: str | Sequence[float]) -> list[float]:
        """A query's vector (a vector passes through, checked)."""
        if isinstance(query, str):
            query = check_query(query)
            vector = check_vector(self.embeddings.embed_query(query), "the embedder's query vector")
        else:
            vector = check_vector(query, "query (a str or a vector)")
        self._check_vectors([vector], 1)
        return vector

    # -- scopes and collections --------------------------------------------------------

    def collections(self, scope: Scope, *, create: bool = False) -> layout.ScopeCollections | None:
        """The scope's collections, or None when it has none (and ``create`` is False)."""
        return self.live().collections(scope, create=create)

    def writable(self, scope: Scope) -> layout.ScopeCollections:
        """The scope's collections, created on first write. Every write of memories
        or decisions asks for them, so an org scope is refused here to a core that
        is no admin (see ``check_write``)."""
        self.check_write(scope)
        cols = self.live().collections(scope, create=True)
        assert cols is not None
        return cols

    def scopes(self, kind: ScopeKind | None = None) -> list[Scope]:
        """Every scope that holds data, optionally only of one kind, sorted."""
        if kind is not None:
            kind = check_scope_kind(kind)
        return layout.registered_scopes(self.live().registry, kind)

    def scopes_under(self, prefix: tuple[str, ...]) -> list[Scope]:
        """The scopes whose namespace starts with ``prefix``, sorted: the scopes a
        BaseStore search of that prefix reads. Indexed lookups only, so a search of
        one user's namespace costs the same among a thousand users as alone."""
        if not prefix:
            return self.scopes()
        registry = self.live().registry
        found = layout.namespace_scopes_under(registry, prefix)
        if len(prefix) == 1 and prefix[0] in OWNER_KINDS:
            found += layout.registered_scopes(registry, check_scope_kind(prefix[0]))
        elif len(prefix) == 2 and prefix[0] in OWNER_KINDS:
            try:
                owner = Scope.from_namespace(prefix)
            except InvalidScopeError:  # no scope has this namespace: none is under it
                return found
            if owner.kind != NAMESPACE_KIND:
                found.append(owner)  # a scope never written has no collections: reads skip it
        return sorted(set(found))

    # -- versions --------------------------------------------------------------------

    def version(self, scope: Scope, memory_id: str, *, with_vector: bool = False) -> Version:
        """The version with this id; failing that, the current (or last) version
        of the chain with this key, so BaseStore keys work wherever ids do."""
        check_id(memory_id)
        cols = self.collections(scope)
        if cols is not None:
            for collection in (cols.active, cols.history):
                found = fetch(collection, scope, ids=[memory_id], with_vector=with_vector)
                if found:
                    return found[0]
            for collection in (cols.active, cols.history):
                found = fetch(
                    collection, scope, where={CHAIN_KEY: memory_id}, with_vector=with_vector
                )
                if found:
                    return max(found, key=lambda v: v.memory.created_at)
        raise MemoryNotFoundError(
            f"no memory {memory_id!r} in scope {scope.key}; "
            "store.active(scope) lists the current memories"
        )

    def active_version(self, scope: Scope, memory_id: str, *, with_vector: bool) -> Version:
        """As ``version``, but MemoryArchivedError (naming the current version) when
        the version found is archived: only active memories change."""
        version = self.version(scope, memory_id, with_vector=with_vector)
        if version.memory.active:
            return version
        current = [v.memory.id for v in self.chain(scope, version.key) if v.memory.active]
        hint = f"its current version is {current[0]!r}" if current else "it has no current version"
        until = version.memory.valid_until
        raise MemoryArchivedError(
            f"memory {memory_id!r} in scope {scope.key} was archived at "
            f"{until.isoformat() if until else '?'}; {hint}"
        )

    def by_key(
        self, scope: Scope, keys: Sequence[str], *, with_vector: bool = False
    ) -> dict[str, Version]:
        """The active version of each chain key that has one, in one read."""
        cols = self.collections(scope)
        if cols is None or not keys:
            return {}
        found = fetch(
            cols.active, scope, where={CHAIN_KEY: {"$in": list(keys)}}, with_vector=with_vector
        )
        return {v.key: v for v in found}

    def chain(self, scope: Scope, key: str) -> list[Version]:
        """Every version of the chain ``key``, oldest first."""
        cols = self.collections(scope)
        if cols is None:
            return []
        versions = fetch(cols.active, scope, where={CHAIN_KEY: key})
        versions += fetch(cols.history, scope, where={CHAIN_KEY: key})
        return sorted(versions, key=lambda v: (v.memory.created_at, v.memory.valid_until is None))

    def replace(
        self,
        cols: layout.ScopeCollections,
        pairs: Sequence[tuple[Version, Version | None]],
        when: datetime,
    ) -> None:
        """Archive each old version and open its successor (if any), in three writes.

        The order makes a crash safe: the archived copy is written to history
        first, the successor added next, the old active record deleted last.
        A crash in between leaves a record in both collections, which
        ``finish_interrupted_moves`` completes on the next open. Active
        reflections resting on a closed version are archived next, and the
        reason logged (see ``resting_on``): one more read, and three more writes
        when there are any.
        """
        for old, _ in pairs:
            if when < old.memory.created_at:
                raise InvalidMemoryError(
                    f"now={when.isoformat()} is before memory {old.memory.id} was created "
                    f"({old.memory.created_at.isoformat()}); a version cannot close before "
                    "it opens"
                )
        self._move(cols, pairs, when)
        self._archive_resting(cols, pairs, when)

    def _move(
        self,
        cols: layout.ScopeCollections,
        pairs: Sequence[tuple[Version, Version | None]],
        when: datetime,
    ) -> None:
        archived = [replace(old, memory=replace(old.memory, valid_until=when)) for old, _ in pairs]
        successors = [new for _, new in pairs if new is not None]

        def write() -> None:
            insert(cols.history, archived, upsert=True)
            if successors:
                insert(cols.active, successors)
            cols.active.remove(ids=[old.memory.id for old, _ in pairs])

        self._indexed(cols, write, successors, [old.memory.id for old, _ in pairs])

    def add_new(
        self,
        scope: Scope,
        built: Sequence[Memory],
        vectors: Sequence[Sequence[float]] | None = None,
    ) -> list[Memory]:
        """Store new memories (built, without ids) in one embedding call and one
        write; they get fresh ids, which are also their chain keys."""
        if not built:
            return []
        checked = self.vectors_for([m.text for m in built], vectors)
        with self.writing(scope):
            cols = self.writable(scope)
            ids = free_ids(cols, len(built))
            versions = [
                Version(replace(m, id=i), key=i, vector=v)
                for m, i, v in zip(built, ids, checked, strict=True)
            ]
            self.add_active(cols, versions)
        return [v.memory for v in versions]

    def add_people(
        self,
        people: Sequence[tuple[Scope, Sequence[Memory]]],
        vectors: Sequence[Sequence[Sequence[float]] | None],
    ) -> list[list[Memory]]:
        """New memories of many scopes (built, without ids), each with its vectors from
        this store's embedder or None: those are embedded here, in one call.

        People the store has never seen, each with at most ``layout.PROMOTE_AT``
        memories, are made together: listed in the registry in one write and their
        records written in one write per bucket (a bucket's worth of people at a time),
        where ``add_new`` for each would write the registry and rewrite the bucket's
        whole index once a person (a service's users imported from elsewhere, or a
        benchmark's: ~60 ms a person one by one here). Everyone else, and everyone on
        a store whose locks reach across processes (whose bucket locks a new person
        takes one at a time), is written as ``add_new`` writes them, one by one. Each
        group is its own write, run again with fresh handles on its own
        (``fresh``): a retry never writes a group twice."""
        for scope, _ in people:
            self.check_write(scope)
        unknown = [
            m.text
            for (_, built), v in zip(people, vectors, strict=True)
            if v is None
            for m in built
        ]
        embedded = iter(self.embed(unknown))
        split = [
            [next(embedded) for _ in built]
            if v is None
            else self.vectors_for([m.text for m in built], v)
            for (_, built), v in zip(people, vectors, strict=True)
        ]
        engine = self.live()
        together = engine.scope_locks.cross is None
        out: dict[int, list[Memory]] = {}
        small = [
            i for i, (_, b) in enumerate(people) if together and 0 < len(b) <= layout.PROMOTE_AT
        ]
        at_once = layout.BUCKET_SCOPES  # a bucket's worth: one or two buckets a write
        for start in range(0, len(small), at_once):
            group = small[start : start + at_once]
            made = self.fresh(
                functools.partial(
                    self._make_people, [(people[i][0], people[i][1], split[i]) for i in group]
                )
            )
            out.update((group[n], m) for n, m in enumerate(made) if m is not None)
        for i, (scope, built) in enumerate(people):
            if i not in out:
                out[i] = self.fresh(functools.partial(self.add_new, scope, built, split[i]))
        return [out[i] for i in range(len(people))]

    def _make_people(
        self, people: Sequence[tuple[Scope, Sequence[Memory], Sequence[Sequence[float]]]]
    ) -> list[list[Memory] | None]:
        """Make the people of one group not listed yet, under all their locks (scope
        key order, then the gate, as ``writing``); None for each found listed, whom
        the caller writes one by one."""
        engine = self.live()
        scopes = [scope for scope, _, _ in people]
        if not (unseen := self._unseen(engine, scopes)):
            return [None] * len(people)
        with ExitStack() as held:
            locks = [
                held.enter_context(engine.scope_lock(s))
                for s in sorted(unseen, key=lambda s: s.key)
            ]
            held.enter_context(engine.gate.shared())
            for lock in locks:
                lock.check()
            unseen = self._unseen(engine, unseen)  # again, now that no one else writes them
            if not unseen:
                return [None] * len(people)
            new = {cols.scope.key: cols for cols in engine.create_in_buckets(unseen)}
            parts = []
            for scope, built, vectors in people:
                if scope.key in new:
                    ids = new_ids(len(built))
                    versions = [
                        Version(replace(m, id=i), key=i, vector=list(v))
                        for m, i, v in zip(built, ids, vectors, strict=True)
                    ]
                    parts.append((new[scope.key], versions))
            try:
                insert_shares(parts)
            except BaseException:
                for cols, _ in parts:
                    engine.lexicon.stale(cols.scope)
                engine.whole = False
                raise
            for cols, versions in parts:
                engine.lexicon.written(cols, engine.registry, versions, [])
        made = {cols.scope.key: [v.memory for v in versions] for cols, versions in parts}
        return [made.get(scope.key) for scope in scopes]

    @staticmethod
    def _unseen(engine: Engine, scopes: Sequence[Scope]) -> list[Scope]:
        """Those of ``scopes`` the registry does not list (one read): a scope is listed
        before its collections are made (``layout.create_scope``)."""
        listed = layout.listed(engine.registry, scopes)
        return [s for s in scopes if s.key not in listed]

    def _archive_resting(
        self,
        cols: layout.ScopeCollections,
        pairs: Sequence[tuple[Version, Version | None]],
        when: datetime,
    ) -> None:
        """Archive the active reflections resting on the versions just closed, and
        log why (see ``resting_on``). One read of the scope's reflections."""
        closed = {
            old.memory.id: "archived" if new is None else "replaced by an update"
            for old, new in pairs
        }
        found = resting_on([cols.active], cols.scope, closed)
        if not found:
            return
        # Vectors go to history with the records: read them for these alone.
        resting = fetch(cols.active, cols.scope, ids=[v.memory.id for v in found], with_vector=True)
        # A reflection drawn after ``when`` (a replay's times) closes when it was drawn:
        # a version cannot close before it opens, and the source's archive must not fail.
        at = max([when, *(v.memory.created_at for v in resting)])
        self._move(cols, [(v, None) for v in resting], at)
        self.append_log(cols.scope, archive_decisions(resting, closed), at)

    def add_active(self, cols: layout.ScopeCollections, versions: Sequence[Version]) -> None:
        """Write new active versions, and index them."""
        if versions:
            self._indexed(cols, lambda: insert(cols.active, versions), versions, [])

    def recheck(self, scope: Scope) -> None:
        """Compare the scope's lexical index with Chroma on its next read: after a
        change of active versions made outside ``add_active`` and ``replace``."""
        self.live().lexicon.stale(scope)

    def _indexed(
        self,
        cols: layout.ScopeCollections,
        write: Callable[[], None],
        added: Sequence[Version],
        removed: Sequence[str],
    ) -> None:
        """Run a Chroma write of active versions, then make the lexical index follow it.

        Every change of a scope's active versions goes through here, so both faces
        of the store keep the index in step from one place. A write that fails
        midway leaves the index to be compared with Chroma on the scope's next read.
        """
        lexicon = self.live().lexicon
        try:
            write()
        except BaseException:
            lexicon.stale(cols.scope)
            self.engine.whole = False  # a move may be half made: see ``CLOSED_MARK``
            raise
        lexicon.written(cols, self.engine.registry, added, removed)
        if added and cols.bucket is not None:
            # See ``writing``: True when versions also moved to history (which grew).
            self.engine.grew[cols.scope.key] = bool(removed) or self.engine.grew.get(
                cols.scope.key, False
            )

    # -- decision log ----------------------------------------------------------------

    def append_log(
        self, scope: Scope, decisions: Sequence[Decision], when: datetime
    ) -> list[Decision]:
        """Log decisions; each gets an id and, unless it has one, ``created_at = when``."""
        logged = [
            d.with_(id=d.id or log_id(), created_at=utc(d.created_at or when, "created_at"))
            for d in decisions
        ]
        if logged:
            with self.writing(scope):
                append_decisions(self.writable(scope).log, logged, max_batch(self.engine.client))
        return logged

    def read_log(self, scope: Scope, where: dict[str, Any] | None = None) -> list[Decision]:
        """The scope's logged decisions matching ``where``, oldest first."""
        cols = self.collections(scope)
        return [] if cols is None else read_decisions(cols.log, where)


#: Runs of an operation ``StoreCore.fresh`` makes at most that find the registry unchanged.
FRESH_TRIES = 4

#: Seconds ``StoreCore.fresh`` runs an operation again behind purges, when the store has
#: no cross-process locks (then it has no other process's purges either).
FRESH_PATIENCE = 30.0


def fresh_method(method: _F) -> _F:
    """A method of a store face (any object whose ``_core`` is a ``StoreCore``: the
    store, its internals, its reviews ...) run again, once, with fresh collection
    handles when a purge elsewhere rebuilt a collection it used (``StoreCore.fresh``)."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        core: StoreCore = self._core
        return core.fresh(lambda: method(self, *args, **kwargs))

    return cast(_F, run)


def read_method(method: _F) -> _F:
    """A read of a store face: the gate held shared (never beside a purge), fresh
    handles on retry. Writes take their scope's lock first and then the gate
    (``StoreCore.writing``)."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        core: StoreCore = self._core
        with core.reading():
            return method(self, *args, **kwargs)

    return fresh_method(cast(_F, run))


# -- reflections and what they rest on ---------------------------------------------------

#: A Chroma ``where`` clause that finds reflections.
REFLECTIONS = {"kind": Kind.REFLECTION.value}


def resting_on(
    collections: Sequence[VectorCollection],
    scope: Scope,
    ids: Iterable[str],
) -> list[Version]:
    """The reflections in ``collections`` whose ``sources`` name any of ``ids``, and
    the reflections resting on those in turn; each once, none of ``ids`` itself."""
    gone = set(ids)
    if not gone:
        return []
    pool = [v for c in collections for v in fetch(c, scope, where=REFLECTIONS)]
    found: dict[str, Version] = {}
    frontier = gone
    while frontier:
        step = [
            v
            for v in pool
            if v.memory.id not in found
            and v.memory.id not in gone
            and frontier.intersection(v.memory.sources)
        ]
        found.update((v.memory.id, v) for v in step)
        frontier = {v.memory.id for v in step}
    return list(found.values())


def archive_decisions(resting: Sequence[Version], closed: Mapping[str, str]) -> list[Decision]:
    """One logged ``DELETE`` per reflection archived because what it rests on
    closed; ``closed`` maps each closed id to how it closed ("archived",
    "replaced by an update"). The note names the first source that closed, or the
    reflection it rests on that went first.

    >>> from datetime import datetime, timezone
    >>> from langgraph_memory.records import Kind, Memory
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> r = Memory(id="r1", text="User cares about health.", scope="user:a", created_at=t,
    ...            kind=Kind.REFLECTION, sources=("f1", "f2"))
    >>> [d.note for d in archive_decisions([Version(r, key="r1")], {"f2": "archived"})]
    ['reflection archived: memory f2, which it rests on, was archived']
    """
    how = dict(closed)
    for v in resting:
        how.setdefault(v.memory.id, "archived with the memories it rests on")
    out = []
    for v in resting:
        cause = next((s for s in v.memory.sources if s in how), None)
        note = (
            f"reflection archived: memory {cause}, which it rests on, was {how[cause]}"
            if cause is not None
            else "reflection archived: a memory it rests on was closed"
        )
        out.append(
            Decision(op=DecisionOp.DELETE, fact=v.memory.text, target_id=v.memory.id, note=note)
        )
    return out
