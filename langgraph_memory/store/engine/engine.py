"""The engine under every MemoryStore: one per store location in a process.

An engine owns what must be shared by everything that opens one location: the Chroma
client, the registry and collection handles, the scope locks, the gate, and the
scopes' lexical indexes (see ``lexical``). Two ``MemoryStore`` objects on one path
in one process get the same engine, so their scope locks agree (one fact is stored
once) and a purge through one never leaves the other holding dropped collections.

The gate is a readers-writer lock. Every store operation holds it shared, so
operations run in parallel; a purge holds it exclusively, so it runs alone:
it rebuilds collections (which gives them new ids) and compacts the directory,
and nothing may touch Chroma meanwhile. Lock order, to rule out deadlock:
a scope lock first, then the gate; a thread that holds the gate never waits
for a scope lock it does not already hold.

Opening an embedded store takes the directory's lock (waiting, bounded, for the
child of a purge whose process was killed: ``directory_lock.purge_wait``), then,
before Chroma opens, finishes what a process that purged left undone: the
rebuild and compaction of a purge it was killed in
(``compaction.finish_interrupted_rebuild``), and the scrub of what it wrote
after a purge (``scrub_after_purge``). Every open, on a
server too, then finishes or undoes a rebuild of the registry or the reviews a
kill stopped halfway (``compaction.recover_staged``) before the registry is read;
a scope's collections are recovered so when the scope is opened and not found.

A store on a Chroma server opened with neither a cross-process lock nor a shared
queue says so once per process and server (``warn_unlocked``): other processes
may write that server, and two of them writing one scope at once store a fact
twice. ``lock="in-process"`` says this process is the only writer, and silences it.

>>> import tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> a, b = open_engine(d, None), open_engine(d, None)
>>> a is b, a.users
(True, 2)
>>> a.close(), b.close()
(False, True)
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol

from langgraph_memory.errors import (
    InvalidArgumentError,
    LockConfigError,
    NestedPurgeError,
    QueueConfigError,
    StoreClosedError,
)
from langgraph_memory.records import Scalar
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import (
    DirectoryLock,
    RawClient,
    VectorClient,
    VectorCollection,
    compaction,
    door,
    finish_interrupted_bucket_moves,
    finish_interrupted_moves,
    formats,
    layout,
    migrations,
    purge_wait,
    to_epoch,
)
from langgraph_memory.store.chroma import internals as chroma_internals
from langgraph_memory.store.engine.access_log import AccessLog
from langgraph_memory.store.engine.budget import Budget, resident_bytes
from langgraph_memory.store.engine.field_cache import FieldCache
from langgraph_memory.store.engine.rule_cache import RuleCache
from langgraph_memory.store.engine.scope_locks import (
    IN_PROCESS,
    LOCK_URL_ENV,
    CrossProcessLocks,
    ScopeLock,
    ScopeLocks,
    in_process,
    open_cross_process_locks,
    redacted,
)
from langgraph_memory.store.engine.shared_queue import QUEUE_URL_ENV, SharedQueue, queue_url
from langgraph_memory.store.lexical import OWN, Lexicon

log = logging.getLogger("langgraph_memory")

DEFAULT_PATH = ".langgraph_memory"
PATH_ENV = "LANGGRAPH_MEMORY_PATH"


class Gate:
    """Many operations at once, or one exclusive one (a purge) alone.

    Shared holds are re-entrant per thread (a store method that calls another
    does not queue behind a waiting purge), and a thread that holds the gate
    exclusively may take it shared. A waiting exclusive holder keeps new
    threads out, so a stream of reads cannot starve a purge.

    >>> g = Gate()
    >>> with g.shared():
    ...     with g.shared():
    ...         pass
    >>> with g.exclusive():
    ...     with g.shared():
    ...         pass
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer: int | None = None  # the exclusive holder's thread id
        self._waiting = 0  # exclusive holders waiting
        self._local = threading.local()

    def _depth(self) -> int:
        return int(getattr(self._local, "depth", 0))

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Hold the gate with other operations."""
        me = threading.get_ident()
        depth = self._depth()
        if depth or self._writer == me:  # already inside: never queue behind a purge
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth = depth
            return
        with self._cond:
            while self._writer is not None or self._waiting:
                self._cond.wait()
            self._readers += 1
        self._local.depth = 1
        try:
            yield
        finally:
            self._local.depth = 0
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    def inside(self) -> bool:
        """Whether this thread holds the gate (shared or alone).

        >>> g = Gate()
        >>> with g.shared():
        ...     g.inside()
        True
        >>> g.inside()
        False
        """
        return bool(self._depth()) or self._writer == threading.get_ident()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the gate alone: wait for running operations, keep new ones out."""
        me = threading.get_ident()
        if self._writer == me:
            yield
            return
        if self._depth():
            # Waiting for ourselves to leave would never end.
            raise NestedPurgeError(
                "a purge cannot run inside another store operation of the same thread: "
                "call it after that operation returns"
            )
        with self._cond:
            self._waiting += 1
            try:
                while self._writer is not None or self._readers:
                    self._cond.wait()
            finally:
                self._waiting -= 1
                self._cond.notify_all()
            self._writer = me
        try:
            yield
        finally:
            with self._cond:
                self._writer = None
                self._cond.notify_all()


class Companion(Protocol):
    """Something that keeps a store's data outside it (a BackgroundWriter's queue
    and journal): told of every purge, asked for its turns on export."""

    def purged(self, scope: Scope, memory_ids: list[str] | None) -> None:
        """Drop what is kept about ``memory_ids`` of ``scope`` (None: the whole scope)."""
        ...

    def pending_turns(self, scope: Scope) -> list[dict[str, Any]]:
        """Turns of ``scope`` accepted and not yet applied, as JSON-ready records."""
        ...


class Engine:
    """The shared state of one store location; see the module docstring."""

    _open: ClassVar[dict[Hashable, Engine]] = {}
    _open_guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        key: Hashable,
        client: VectorClient,
        path: Path | None,
        *,
        owns_client: bool,
        lock: DirectoryLock | None,
        scope_locks: ScopeLocks | None = None,
        lock_source: str | CrossProcessLocks | None = None,
        shared_queue: SharedQueue | None = None,
        budget: Budget | None = None,
        found: ChromaFiles | None = None,
    ) -> None:
        """``found``: an embedded store's Chroma files as they were before its client
        opened them (``chroma_files``), to compare with what the last close recorded."""
        self.key = key
        #: What the engine keeps per scope, from the store's ``cache_mb`` (see ``budget``).
        self.budget = budget if budget is not None else Budget.of(None)
        self.client = client
        self.path = path
        self.owns_client = owns_client
        self.users = 1
        self.closed = False
        #: How many times this engine started a new Chroma client (``recycle_if_due``),
        #: the client's ``opened`` when it last looked, and the resident memory it
        #: counts growth from.
        self.recycled = 0
        self._opened_seen = 0
        self._resident_mark = resident_bytes() or 0
        self.gate = Gate()
        self.dimension = 0
        self._lock = lock
        self._guard = threading.Lock()
        self._opening = threading.Lock()
        #: The scopes' write locks: in-process, and across processes when configured.
        self.scope_locks = scope_locks if scope_locks is not None else ScopeLocks(None)
        #: What configured them (``lock=`` or ``$LANGGRAPH_MEMORY_LOCK_URL``; None: in-process).
        self.lock_source = lock_source
        #: Where deferred turns wait when processes share them (``queue=``; None: each
        #: background writer's own queue and journal). See ``shared_queue``.
        self.shared_queue = shared_queue
        self._erasures: dict[str, int] = {}  # scope key -> whole-scope purges in this process
        # The scopes' handles, least recently used first (at most ``budget.handles``).
        self._scopes: OrderedDict[str, layout.ScopeCollections] = OrderedDict()
        self._companions: list[weakref.ref[Any]] = []
        if shared_queue is not None:
            self.attach(shared_queue)  # exports list its turns (held by the line above)
        #: Scopes in a bucket a write under way added versions to: the write's end
        #: checks whether they outgrew it (``StoreCore.writing``, ``promotion``).
        self.grew: dict[str, bool] = {}
        #: The bucket a new scope's first write locked, to be made in (``bucket_locks``).
        self._placing: dict[str, str] = {}
        #: Access times reads noted, written after the read (see ``access_log``).
        self.access = AccessLog(self.touch)
        where = f"the store at {path}" if path is not None else "the store on this Chroma client"
        # Before the registry is read (or created): a rebuild killed after it dropped
        # the registry left the whole copy under another name. With the directory
        # locked, nothing else can be rebuilding, so unfinished copies go too.
        compaction.recover_staged(
            client, exclusive=path is not None, names=(layout.REGISTRY, layout.REVIEWS)
        )
        # Of this release's format, or migrated to it, or refused (see ``migrations``).
        self.registry: VectorCollection = migrations.open_current_registry(client, where)
        #: No write of this process failed midway (see ``CLOSED_MARK``).
        self.whole = True
        #: The last process closed this embedded store whole, and nothing wrote its Chroma
        #: files since: no scope holds a half-made move, and its lexical files hold what
        #: Chroma holds (see ``CLOSED_MARK``).
        self.found_whole = path is not None and _finish_moves_unless_closed(client, path, found)
        #: The scopes' lexical indexes: files in the directory, or memory for a server.
        self.lexicon = Lexicon(
            path,
            max_open=self.budget.lexical,
            in_memory=self.in_bucket,
            trusted=self.found_whole,
        )
        #: The scopes' rules, read once per change (``rules``).
        self.rules = RuleCache(self.budget.rules)
        #: BaseStore items' vectors per field, read once (``field_cache``).
        self.field_vectors = FieldCache(self.budget.field_bytes)

    # -- opening and closing ----------------------------------------------------------

    def share(self) -> None:
        """Take one more user's hold (a view of a store on this engine)."""
        with Engine._open_guard:
            if self.closed or self.users < 1:
                raise StoreClosedError(
                    "this MemoryStore was closed; open it again (MemoryStore(path)) to use it"
                )
            self.users += 1

    def close(self) -> bool:
        """Give back one user's hold; True when it was the last and the engine closed."""
        with Engine._open_guard:
            self.users -= 1
            if self.users > 0:
                return False
            Engine._open.pop(self.key, None)
        self.access.close()  # before the gate: its writes hold the gate shared
        with self.gate.exclusive():  # let running operations finish first
            self.closed = True
            self.lexicon.close()
            if self.owns_client:
                # Another process may take the directory now, so this process must
                # stop using it: close Chroma's shared client for the path.
                self.client.close()
                if self.path is not None:
                    scrub_after_purge(self.path)
            if self._lock is not None:
                if self.whole and self.path is not None:
                    _mark_closed(self.path)
                self._lock.release()
                self._lock = None
            self.scope_locks.close()
            if self.shared_queue is not None:
                self.shared_queue.close()
        return True

    @contextmanager
    def client_released(self) -> Iterator[bool]:
        """Close this process's Chroma client for the directory, then open a new one.

        Yields True when the directory is closed in this process, so a child
        process may write it; False when it cannot be (a client passed in by the
        caller, or another client of Chroma's still holding the path). The new
        client starts with no cached handles. Call it with the gate held
        exclusively.
        """
        closed = self.owns_client and self.path is not None and self.client.close()
        try:
            if closed:
                chroma_internals.return_free_memory()
            yield closed
        finally:
            if closed:
                assert self.path is not None
                _mark_purge(self.path)
                self.client = door.persistent(self.path, indexes=self.budget.indexes)
                self.forget_handles()

    def recycle_if_due(self) -> bool:
        """Start a new Chroma client once this process grew by Chroma's share of the
        budget (``Budget.chroma_bytes``) since the store opened or last did this: True
        when it did. Checked only after an operation that opened a collection (the
        count is the client's ``opened``), by the thread that ran it once it is inside
        no other.

        An embedded Chroma keeps memory for the collections it wrote lately beyond what
        its cache's count of indexes says (at least 64 of them, ~4.5 MB for a bucket
        written): 300 adds to random people of a 10,000-person store grew a process by
        ~300 MB, 500 more by 77 MB more, and it gives that back only when its client
        closes. So an embedded store that owns its client closes it, hands the freed
        memory back, and opens a new one, as a purge does (``client_released``), with
        the gate held alone (taken as a purge takes it, from a thread inside no other
        operation): no handle of the old client is in use, and every scope's is opened
        again on its next use. A client passed in, a server's (which holds the
        indexes in its own process), or a store with locks across processes (which read
        the registry before the gate) is left as it is."""
        if not self.owns_client or self.path is None or self.scope_locks.cross is not None:
            return False
        opened = self.client.opened
        if opened == self._opened_seen or self.gate.inside():
            return False
        now = resident_bytes()
        if now is None or now - self._resident_mark < self.budget.chroma_bytes:
            self._opened_seen = opened
            return False
        # As a purge: the running operations end first, new ones wait (a few ms).
        with self.gate.exclusive():
            again = resident_bytes() or now
            if self.closed or again - self._resident_mark < self.budget.chroma_bytes:
                return False  # another thread's operation did it meanwhile
            self.client.close()
            chroma_internals.return_free_memory()
            self.client = door.persistent(self.path, indexes=self.budget.indexes)
            self.forget_handles()
            self.recycled += 1
            self._opened_seen = self.client.opened
            self._resident_mark = resident_bytes() or again
        return True

    # -- locks ------------------------------------------------------------------------

    def scope_lock(self, scope: Scope) -> ScopeLock:
        """The re-entrant lock that serialises writes to ``scope``: in this process, and
        across processes when a lock URL is configured (see ``scope_locks``)."""
        return self.scope_locks.get(scope.key)

    def touch(self, scope: Scope, ids: Sequence[str], when: datetime) -> None:
        """Set ``last_accessed`` of the active memories among ``ids`` (others are
        skipped) in one write (see ``patch``)."""
        stamp = {"last_accessed": to_epoch(when)}
        self.patch(scope, dict.fromkeys(ids, stamp))

    def patch(self, scope: Scope, changes: Mapping[str, Mapping[str, Scalar]]) -> None:
        """Merge metadata changes (Chroma's keys, as ``codec`` lays them out) into the
        active memories they name (others are skipped), in place and in one write:
        bookkeeping that is no new version (when a memory was read, how many times an
        episode was said). Under the scope's lock and the gate like every write, once
        more with fresh handles if another process's purge rebuilt a collection."""
        if not changes:
            return
        for attempt in (1, 2):
            try:
                with self.scope_lock(scope) as held, ExitStack() as buckets:
                    for lock in self.bucket_locks([scope]):
                        buckets.enter_context(lock)
                    buckets.enter_context(self.gate.shared())
                    held.check()  # the fencing check, as in ``StoreCore.writing``
                    cols = self.collections(scope, create=False)
                    if cols is None:
                        return
                    present = self.lexicon.active_among(cols, self.registry, list(changes))
                    if present is None:
                        present = cols.active.read(ids=list(changes))["ids"]
                    if present:
                        cols.active.patch(present, [changes[i] for i in present])
                        self.lexicon.patched(scope, {i: changes[i] for i in present})
                return
            except door.MissingCollectionError:
                if attempt == 2:
                    raise
                self.forget_handles()

    def bucket_locks(self, scopes: Iterable[Scope]) -> list[ScopeLock]:
        """The locks of the buckets ``scopes`` live in or left, in key order, when
        locks reach across processes: a purge rebuilds a bucket's collections by
        copying them, and a write of another scope of the bucket landing in the old
        copy meanwhile would be lost. Writes of a scope in a bucket hold its lock
        (``StoreCore.writing``), a purge every lock of the buckets it rebuilds, after
        the scopes' locks. In one process the gate already keeps writes out of a
        purge, so there are none."""
        if self.scope_locks.cross is None:
            return []
        buckets: set[str] = set()
        for scope in scopes:
            entry = layout.registry_entry(self.registry, scope)
            if entry is None:
                # A new scope: it will be made in the bucket locked here, whichever
                # bucket another process fills meanwhile (``collections``).
                placed = self._placing[scope.key] = layout.next_bucket(self.registry)
                buckets.add(placed)
                continue
            buckets.update(layout.buckets_of(entry))
        return [self.scope_locks.get(f"{BUCKET_KEY} {b}") for b in sorted(buckets)]

    def unplace(self, scope: Scope) -> None:
        """Forget the bucket a write of a new scope locked (see ``bucket_locks``): the
        write is over, made or not."""
        self._placing.pop(scope.key, None)

    def moved(self, cols: layout.ScopeCollections) -> None:
        """Use ``cols`` for its scope from now on: it moved out of its bucket (see
        ``promotion``); its lexical index in memory goes, to be opened as a file."""
        with self._guard:
            self._scopes[cols.scope.key] = cols
        self.lexicon.drop(cols.scope)

    def shared_lock(self) -> ScopeLock:
        """The lock of what every scope shares: the registry and the reviews. Writes to
        them hold it, and a purge holds it while it deletes from them and rebuilds them,
        so that, across processes on one server, no registration or review lands in a
        collection a purge is copying (it would be lost with the old copy). Always the
        innermost lock (taken with the gate held, never waiting for a scope lock or the
        gate while held): no deadlock with either. Its key is no scope's (no colon)."""
        return self.scope_locks.get(SHARED_KEY)

    def erasures(self, scope: Scope) -> int:
        """How many times this process purged the whole ``scope`` (see ``erased``)."""
        with self._guard:
            return self._erasures.get(scope.key, 0)

    def registered_at(self, scope: Scope) -> float | None:
        """When the scope's registry entry was made, read from Chroma now (None: it
        has none): another process's whole-scope purge changes it."""
        return layout.registered_at(self.registry, scope)

    def erased(self, scope: Scope) -> None:
        """Count a whole-scope purge: a write that began before it sees the count change."""
        with self._guard:
            self._erasures[scope.key] = self._erasures.get(scope.key, 0) + 1

    # -- collections ------------------------------------------------------------------

    def collections(self, scope: Scope, *, create: bool) -> layout.ScopeCollections | None:
        """The scope's collections (created if asked), or None when it has none."""
        cached = self._cached(scope)
        if cached is not None:
            return cached
        # Not the scope lock: a caller holds the gate, and must never wait for a
        # scope lock a purge may hold while it waits for the gate.
        with self._opening:  # one thread creates, the others reuse
            cached = self._cached(scope)
            if cached is not None:
                return cached
            home = self.lexicon.home(scope)
            cols = None
            if home == OWN:
                # An embedded store's scope of its own, vouched for: its collections are
                # opened by their names, without the registry's get.
                with suppress(door.MissingCollectionError):
                    cols = layout.open_own(self.client, scope, create=False)
                if cols is None:  # not as vouched: the registry says where it lives
                    self.lexicon.stale(scope)
            elif home is not None:
                # An embedded store's bucketed scope whose rows the buckets' file holds,
                # its bucket with them: its read asks Chroma nothing (the registry's get
                # and the three collections' opens grew with the store: 1.1 -> 4.8 ms
                # and 0.3 -> 0.42 ms each, from 1,000 to 100,000 people).
                return self._keep(layout.open_bucket_later(scope, home, self._opener(scope)))
            if cols is None:
                cols = layout.open_scope(self.client, self.registry, scope)
            if cols is None and compaction.recover_staged(
                self.client,
                exclusive=self.path is not None,
                names=layout.names_holding(self.registry, scope),
            ):
                cols = layout.open_scope(
                    self.client, self.registry, scope
                )  # a rebuild a kill stopped
            if cols is None:
                if not create:
                    return None
                with self.shared_lock():  # the registry entry: see ``shared_lock``
                    cols = layout.create_scope(
                        self.client, self.registry, scope, bucket=self._placing.pop(scope.key, None)
                    )
                _persist_every_write(cols)
                if cols.bucket is not None:
                    self.lexicon.created(scope, cols.bucket)
            else:
                # A scope another process made in a newer format is never read nor written.
                formats.check_readable(formats.stored_format(cols.active.metadata), scope.key)
                _persist_every_write(cols)
                if cols.bucket is not None and self.path is not None:
                    self.lexicon.placed(scope, cols.bucket)
                elif self.path is None or not self.found_whole:  # see CLOSED_MARK
                    finish_interrupted_moves(cols)
            return self._keep(cols)

    def create_in_buckets(self, scopes: Sequence[Scope]) -> list[layout.ScopeCollections]:
        """New scopes made at once in the buckets being filled (``layout.create_in_buckets``),
        as ``collections(create=True)`` makes one. The caller holds every scope's lock
        and the gate, and found none of them listed."""
        with self._opening, self.shared_lock():
            made = layout.create_in_buckets(self.client, self.registry, scopes)
        for cols in made:
            _persist_every_write(cols)  # nothing for a bucket whose collections do already
            assert cols.bucket is not None
            self.lexicon.created(cols.scope, cols.bucket)
            self._keep(cols)
        return made

    def _keep(self, cols: layout.ScopeCollections) -> layout.ScopeCollections:
        with self._guard:
            self._scopes[cols.scope.key] = cols
            while len(self._scopes) > self.budget.handles:
                self._scopes.popitem(last=False)  # reopened on its scope's next use
        return cols

    def _opener(self, scope: Scope) -> Callable[[str], door.VectorCollection]:
        """How a bucket's collection is opened on its first use by a scope placed by the
        buckets' file: checked as ``collections`` checks one it opens at once. One found
        missing (which no store closed whole leaves) sends the scope back to the
        registry: its rows and its bucket are compared with Chroma on its next use."""

        def open_shared(name: str) -> door.VectorCollection:
            try:
                collection = self.client.open(name)
            except door.MissingCollectionError:
                self.lexicon.stale(scope)
                with self._guard:
                    self._scopes.pop(scope.key, None)
                raise
            formats.check_readable(formats.stored_format(collection.metadata), scope.key)
            collection.persist_every_write()
            return collection

        return open_shared

    def in_bucket(self, scope: Scope) -> bool:
        """Whether ``scope`` lives in a bucket's collections (see ``layout``)."""
        cols = self._cached(scope)
        if cols is not None:
            return cols.bucket is not None
        entry = layout.registry_entry(self.registry, scope) or {}
        return isinstance(entry.get(layout.HOME_KEY), str)

    def _cached(self, scope: Scope) -> layout.ScopeCollections | None:
        with self._guard:
            cols = self._scopes.get(scope.key)
            if cols is not None:
                self._scopes.move_to_end(scope.key)
            return cols

    def forget_handles(self) -> bool:
        """Drop cached collection handles and reopen the registry: after a purge
        rebuilt collections, or when another process did. Whether the registry is a
        new one (a purge of a whole scope rebuilt it since it was opened)."""
        with self._guard:
            self._scopes.clear()
        before = self.registry.uid
        self.registry = layout.open_registry(self.client)
        return self.registry.uid != before

    # -- companions -------------------------------------------------------------------

    def attach(self, companion: Companion) -> None:
        """Keep ``companion`` informed (held weakly: it may go away)."""
        with self._guard:
            self._companions = [r for r in self._companions if r() is not None]
            self._companions.append(weakref.ref(companion))

    def companions(self) -> list[Companion]:
        """The live companions."""
        with self._guard:
            alive = [r() for r in self._companions]
        return [companion for companion in alive if companion is not None]


def _persist_every_write(cols: layout.ScopeCollections) -> None:
    """Make a scope's collections write their index on every write (Chroma may let an
    index go: see ``door``). Before anything reads them: Chroma takes how often to write
    an index from the collection when it loads it, and a read loads it."""
    for collection in (cols.active, cols.history, cols.log):
        collection.persist_every_write()


#: The key of ``Engine.shared_lock``: no scope key, which always has a colon.
SHARED_KEY = "langgraph_memory registry and reviews"
#: The start of a bucket lock's key (``Engine.bucket_locks``): no colon either.
BUCKET_KEY = "langgraph_memory bucket"

#: Chroma's database files in an embedded store's directory: every write of Chroma's
#: changes the first, or the second while a process has it open (SQLite's write-ahead log).
CHROMA_FILES = ("chroma.sqlite3", "chroma.sqlite3-wal")
#: Each of ``CHROMA_FILES``'s size and time of last change in nanoseconds (0, 0: none).
ChromaFiles = tuple[tuple[int, int], ...]


def chroma_files(directory: Path) -> ChromaFiles:
    """How an embedded store's Chroma files stand (see ``CLOSED_MARK``).

    >>> import tempfile
    >>> chroma_files(Path(tempfile.mkdtemp()))
    ((0, 0), (0, 0))
    """
    found = []
    for name in CHROMA_FILES:
        try:
            stat = (directory / name).stat()
            found.append((stat.st_size, stat.st_mtime_ns))
        except FileNotFoundError:
            found.append((0, 0))
    return tuple(found)


#: A file in an embedded store's directory, written by a process's first purge,
#: removed when that process lets go of the store: while it is there, index
#: files written since the time it holds may carry bytes of purged records.
PURGE_MARK = "langgraph_memory.purged"


#: Written when a process lets go of an embedded store with every write of it whole,
#: taken away when one opens it. Missing at open, the last process was killed or a write
#: of it failed midway, and may have left a version in both its scope's history and
#: active collections (``StoreCore.replace``): every bucket is put right then, at once
#: (``finish_interrupted_bucket_moves``), and each scope with collections of its own on
#: its first open (``finish_interrupted_moves``). Found, no scope is checked: a check read
#: Chroma twice, and loaded the collection's whole vector index (a bucket's history, on
#: nearly every person's first read; at 100,000 people, a scope of its own's first read
#: took 72 ms, against 12 at 1,000). A store on a server checks each scope on its first
#: open in a process, as it cannot know how the others ended.
#:
#: The mark holds how Chroma's files stood once the process let go of them
#: (``chroma_files``). Found otherwise at the next open (before its client opens them),
#: something else wrote the directory since: a ``chroma run --path`` serving it (as
#: docs/mcp.md says to do), whose writes the lexical files never saw. The store is then
#: taken as not closed whole, and the buckets' file starts a new generation: every
#: person is compared with Chroma on their next use. A mark of a release before (a bare
#: time) holds no such record, and is taken as it was.
CLOSED_MARK = "langgraph_memory.closed"


def _mark_closed(directory: Path) -> None:
    """Write ``CLOSED_MARK``, with the state of Chroma's files now (its client closed)."""
    said = {"closed_at": time.time(), "chroma_files": chroma_files(directory)}
    (directory / CLOSED_MARK).write_text(json.dumps(said), encoding="utf-8")


def _closed_whole(mark: Path, found: ChromaFiles | None) -> bool:
    """Whether ``mark`` (``CLOSED_MARK``) says the store was closed whole, with its
    Chroma files as they are ``found`` (None: not known, as for a mark of the release
    before)."""
    try:
        said = json.loads(mark.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return False  # unreadable: as a crash, every bucket is put right
    if not isinstance(said, dict) or found is None:
        return True  # a bare time (a release before) or not known here
    recorded = said.get("chroma_files")
    return isinstance(recorded, list) and [tuple(f) for f in recorded] == list(found)


def _finish_moves_unless_closed(
    client: door.VectorClient, directory: Path, found: ChromaFiles | None
) -> bool:
    """Finish the moves in every bucket unless the last process closed the store whole
    and nothing wrote Chroma's files since (see ``CLOSED_MARK``), and say which; either
    way, no mark stays while this process has it open."""
    mark = directory / CLOSED_MARK
    whole = _closed_whole(mark, found)
    mark.unlink(missing_ok=True)
    if whole:
        return True
    for bucket in layout.buckets(client):
        finish_interrupted_bucket_moves(client, bucket)
    return False


def _mark_purge(directory: Path) -> None:
    mark = directory / PURGE_MARK
    if not mark.exists():  # the first purge's time covers every later one
        mark.write_text(repr(time.time()), encoding="utf-8")


def finish_interrupted_rebuild(directory: Path) -> None:
    """Finish the rebuild and compaction that a process killed during a purge left
    (see ``compaction.finish_interrupted_rebuild``); nothing if none was. Runs with
    Chroma closed. A failure is logged and the journal kept, so the next open
    tries again: the records are whole either way, only the purged bytes wait.

    >>> import tempfile
    >>> finish_interrupted_rebuild(Path(tempfile.mkdtemp()))
    """
    try:
        compaction.finish_interrupted_rebuild(directory)
    except Exception as exc:
        log.error(
            "langgraph_memory: could not finish the rebuild of %s that a purge left "
            "undone (%r); purged text may remain in its files until the next open",
            directory,
            exc,
        )


def scrub_after_purge(directory: Path) -> None:
    """Rebuild, in a scrubbed child, the collections this process (or one that
    stopped before it could do this) wrote after a purge; nothing if none purged.

    Index files come from the writing process's heap, which may still hold the
    bytes of records it purged earlier: ``GLIBC_TUNABLES`` would scrub it, but
    the guarantee must not depend on the user setting it. Runs with Chroma
    closed. A failure is logged and the mark kept, so the next open tries again.
    """
    mark = directory / PURGE_MARK
    if not mark.exists():
        return
    try:
        compaction.scrub_written_since(directory, float(mark.read_text(encoding="utf-8")))
    except Exception as exc:
        log.error(
            "langgraph_memory: could not rebuild what was written to %s after a purge (%r); "
            "purged text may remain in its index files until the next open of the store",
            directory,
            exc,
        )
        return
    mark.unlink()


def is_open(directory: Path) -> bool:
    """Whether a store of this process has the embedded store at ``directory`` open."""
    with Engine._open_guard:
        return ("path", str(directory.resolve())) in Engine._open


def open_engine(
    path: str | os.PathLike[str] | None,
    client: RawClient | None,
    lock: str | CrossProcessLocks | None = None,
    queue: str | None = None,
    cache_mb: int | float | None = None,
) -> Engine:
    """The engine of a location: shared with every store open on it in this process.

    ``client=None`` opens an embedded store at ``path`` (default:
    ``$LANGGRAPH_MEMORY_PATH`` or ``./.langgraph_memory``). A persistent client
    passed in shares the engine of its directory; any other client gets an
    engine of its own object. ``lock`` (default ``$LANGGRAPH_MEMORY_LOCK_URL``)
    names the cross-process scope locks (see ``scope_locks``); a second store on
    a location must name the same ones. ``queue`` (default
    ``$LANGGRAPH_MEMORY_QUEUE_URL``) names a shared queue of deferred turns (see
    ``shared_queue``); without a lock, its Postgres serves as the lock too.
    ``lock="in-process"`` says this process is the only writer: the in-process
    lock, and no warning on a server (see ``warn_unlocked``). ``cache_mb`` (default
    ``$LANGGRAPH_MEMORY_CACHE_MB``, else 256) bounds what it keeps per scope (see
    ``budget``); a second store on a location that names another is refused.
    """
    budget = Budget.of(cache_mb)
    queue = queue_url(queue)
    source = lock if lock is not None else (os.environ.get(LOCK_URL_ENV) or queue)
    single_writer = in_process(source)
    if single_writer:
        if queue is not None:
            raise LockConfigError(
                f"lock={IN_PROCESS!r} says this process is the only one that writes the "
                f"store, and queue={redacted(queue)!r} shares its deferred turns with other "
                "processes, whose writes need a cross-process lock: leave lock= (and "
                "$LANGGRAPH_MEMORY_LOCK_URL) unset, and the queue's Postgres locks too, or "
                "drop the queue"
            )
        source = None  # the in-process lock, as when nothing is set
    if client is None:
        directory: Path | None = Path(path or os.environ.get(PATH_ENV) or DEFAULT_PATH).resolve()
    else:
        directory = door.client_of(client).directory
    key: Hashable = ("path", str(directory)) if directory is not None else ("client", id(client))
    with Engine._open_guard:
        engine = Engine._open.get(key)
        if engine is not None:
            if (source is not None or single_writer) and source != engine.lock_source:
                raise InvalidArgumentError(
                    "this store location is open in this process with scope locks "
                    f"{engine.scope_locks.describe()!r}; every store on one location in a "
                    "process shares them: pass the same lock= (or none) to each"
                )
            if queue is not None and (
                engine.shared_queue is None or engine.shared_queue.url != queue
            ):
                raise InvalidArgumentError(
                    "this store location is open in this process with "
                    f"{'no shared queue' if engine.shared_queue is None else 'another queue'}; "
                    "every store on one location in a process shares it: pass the same "
                    "queue= (or none) to each"
                )
            if cache_mb is not None and budget.mb != engine.budget.mb:
                raise InvalidArgumentError(
                    f"this store location is open in this process with cache_mb="
                    f"{engine.budget.mb}; every store on one location in a process shares "
                    "its cache: pass the same cache_mb= (or none) to each"
                )
            engine.users += 1
            return engine
        engine = _start(key, directory, client, source, queue, budget)
        Engine._open[key] = engine
    if engine.lock_source is None:  # in-process locks only (a queue's Postgres locks too)
        warn_unlocked(engine.client, only_writer=single_writer)
    return engine


def _start(
    key: Hashable,
    directory: Path | None,
    raw: RawClient | None,
    source: str | CrossProcessLocks | None,
    queue: str | None,
    budget: Budget,
) -> Engine:
    client = None if raw is None else door.client_of(raw)
    data_name = "" if client is None else client.data_name
    if queue is not None and (directory is not None or not data_name):
        raise QueueConfigError(
            f"queue={redacted(queue)!r} serves processes that share a store on a Chroma "
            "server; this store is embedded (one process's alone), and a background "
            "writer's journal keeps its turns: leave queue= and $LANGGRAPH_MEMORY_QUEUE_URL "
            "unset, or build the store with MemoryStore(client=chromadb.HttpClient(...))"
        )
    wait = purge_wait() if directory is not None else 0.0  # a bad value: refused first
    # Before the directory's lock: a bad lock URL must not leave the directory locked.
    cross = open_cross_process_locks(source)
    scope_locks = ScopeLocks(cross, data_name)
    try:
        shared = None if queue is None else SharedQueue(queue, data_name)
    except BaseException:
        scope_locks.close()
        raise
    try:
        lock = DirectoryLock.acquire(directory, wait=wait) if directory is not None else None
    except BaseException:
        scope_locks.close()
        if shared is not None:
            shared.close()
        raise
    owns = client is None
    found: ChromaFiles | None = None
    try:
        if client is None:
            assert directory is not None
            # What a process that purged left undone, killed mid-purge or before close.
            finish_interrupted_rebuild(directory)
            scrub_after_purge(directory)
            found = chroma_files(directory)  # before Chroma opens them: see CLOSED_MARK
            client = door.persistent(directory, indexes=budget.indexes)
        return Engine(
            key,
            client,
            directory,
            owns_client=owns,
            lock=lock,
            scope_locks=scope_locks,
            lock_source=source,
            shared_queue=shared,
            budget=budget,
            found=found,
        )
    except BaseException:
        if lock is not None:
            lock.release()  # a refused open must not keep the directory locked
        scope_locks.close()
        if shared is not None:
            shared.close()
        raise


#: The Chroma servers this process has said it writes with no cross-process lock.
_UNLOCKED_SAID: set[str] = set()
_UNLOCKED_GUARD = threading.Lock()


def warn_unlocked(client: VectorClient, *, only_writer: bool = False) -> bool:
    """Say, once per process and server, that a store on a Chroma server has neither a
    cross-process lock nor a shared queue; True when it said so now. Nothing for a
    store in this process (a directory, which is locked to one process, or memory),
    nor when this process said it is the server's only writer.

    Measured: three processes writing one ``chroma run`` with no lock stored one fact
    2-3 times in 12 of 15 scopes, and nothing told the user. On the ``langgraph_memory``
    logger, not ``warnings.warn``: it is a deployment's configuration that risks data,
    reported where an operator reads (as "no chat model configured" is), not a misuse
    of code, and ``warnings`` keeps one message per line of code where this needs one
    per server; unconfigured logging still prints it to stderr.

    Args:
        client: the store's client (the door's ``VectorClient``).
        only_writer: the store was opened with ``lock="in-process"``: this process is
            the only one that writes the server; nothing is said, now or for its
            later stores there.

    Returns:
        True when the warning was logged by this call.

    >>> from langgraph_memory.store.chroma import persistent
    >>> import tempfile
    >>> warn_unlocked(persistent(tempfile.mkdtemp()))  # embedded: never
    False
    """
    server = client.server
    if not server or client.directory is not None:
        return False
    with _UNLOCKED_GUARD:
        if server in _UNLOCKED_SAID:
            return False
        _UNLOCKED_SAID.add(server)
    if only_writer:
        return False
    log.warning(
        "langgraph_memory: the store on the Chroma server at %s has no cross-process lock: "
        "two processes writing one person's memory at once can store a fact twice or lose "
        "an update. Give every process that writes it one lock, "
        "MemoryStore(client=..., lock='postgresql://...' or 'redis://...') or $%s, or a "
        "shared queue (queue= or $%s, whose Postgres locks too). If this process is the "
        "only one that writes it, say so: lock=%r (or %s=%s) silences this warning, which "
        "this process gives once per server",
        server,
        LOCK_URL_ENV,
        QUEUE_URL_ENV,
        IN_PROCESS,
        LOCK_URL_ENV,
        IN_PROCESS,
    )
    return True
