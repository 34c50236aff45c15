"""The lexical indexes of one store location, kept in step with Chroma.

Chroma 1.5 has no BM25 of its own outside its distributed and hosted editions (local
and ``chroma run`` refuse sparse indexes), and its ``$contains`` filter scans one
full-text table shared by every collection, so the store keeps a BM25 index per scope
itself (see ``index``). Chroma stays the truth: the index is derived from each
scope's active collection, and repaired from it.

- **Embedded store** (a directory): each scope's index is a SQLite file under
  ``lexical/`` in the store's directory, written by this process alone (the directory
  lock). Every write of the store updates it right after the Chroma write.
- **A scope in a bucket** (a small one, see ``layout``): its index is in this process's
  memory, built on its first use: a file per small scope cost more disk than its
  records. In an embedded store it is built from the scope's rows of one file that
  every bucketed scope shares (``bucket_entries``), kept in step with each write:
  from Chroma, a first use read the bucket's whole vector index.
- **A Chroma server** (or any client without a directory): other processes write the
  same collections, and share no disk with this one, so each scope's index lives in
  this process's memory. Every write also stamps the scope's registry record with a
  key of this process (``lex.<token>``: a time that only grows); a read compares the
  other processes' keys with those it last saw and, when they changed, brings the
  index in step with the collection: the active ids are compared, documents are
  fetched only for new ids, gone ids are dropped. A key per process (Chroma merges
  metadata updates key by key) means no process's stamp can overwrite another's.

In both, the first use of a scope in a process compares the index with the collection
the same way, which repairs what a crash between a Chroma write and the index write
left behind, in both directions. An embedded store's scope of its own is compared on
its first use in a generation of the buckets' file instead (``BucketEntries.trust_own``):
a process that closed the store whole left its files in step. A search only ever
returns ids, which the store then reads from the active collection, so an id the index
still holds but Chroma no longer does is never shown.

>>> lexicon = Lexicon(None)
>>> lexicon.shared, lexicon.stamp_key.startswith("lex.")
(True, True)
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_memory.records import Kind, Memory
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import (
    ScopeCollections,
    VectorCollection,
    chunks,
    fetch,
    scope_hash,
    version_metadata,
)
from langgraph_memory.store.lexical.bucket_entries import FILE as BUCKETS_FILE
from langgraph_memory.store.lexical.bucket_entries import OWN, BucketEntries, rounded
from langgraph_memory.store.lexical.index import SCHEMA, Entry, LexicalIndex, erase
from langgraph_memory.store.version import Version
from langgraph_memory.text import date_words, tokenize

__all__ = ["INDEX_DIR", "Lexicon"]

log = logging.getLogger("langgraph_memory")

#: The folder of an embedded store's lexical index files (one per scope).
INDEX_DIR = "lexical"
#: Open indexes kept per location by default (a store's come from its budget): files are
#: reopened when needed; an index in memory that is let go is rebuilt from Chroma on its
#: scope's next use.
MAX_OPEN = 128
#: A process's stamp older than this is removed from a scope's record by the next writer
#: (once per scope and process), so the record does not grow with every process ever run.
STAMP_MAX_AGE_S = 24 * 3600.0
STAMP_PREFIX = "lex."
#: SQLite's result code for a file it could not open (``sqlite3.SQLITE_CANTOPEN``).
_SQLITE_CANTOPEN = 14
#: Beside a scope's index file while a purge of the scope runs.
PURGE_SUFFIX = ".purging"


class _Slot:
    """One scope's open index and what this process knows of its freshness."""

    def __init__(self, index: LexicalIndex, bucketed: bool) -> None:
        self.index = index
        self.bucketed = bucketed  # its entries are kept in the buckets' file too
        self.users = 0
        self.synced = False  # compared with the collection since it was opened
        self.seen: dict[str, Any] | None = None  # other processes' stamps then (shared)


class Lexicon:
    """The per-scope lexical indexes of one store location (see the module docstring).

    ``directory`` is the embedded store's directory, or None for a store on a client
    without one (a Chroma server): its indexes are then in memory and shared-mode
    stamps keep them in step with other processes.
    """

    def __init__(
        self,
        directory: Path | None,
        *,
        max_open: int = MAX_OPEN,
        in_memory: Callable[[Scope], bool] | None = None,
        trusted: bool = True,
    ) -> None:
        """``trusted``: False when the store's Chroma files may hold what its lexical
        files never saw (the last process did not close it whole, or something else
        wrote them since): nothing of the buckets' file is trusted then."""
        self.directory = directory
        self.in_memory = in_memory
        self.max_open = max(1, max_open)
        self.shared = directory is None
        self.stamp_key = STAMP_PREFIX + secrets.token_hex(6)
        self._guard = threading.Lock()
        self._slots: OrderedDict[str, _Slot] = OrderedDict()
        self._last_stamp = 0.0
        self._pruned: set[str] = set()
        #: An embedded store's bucketed scopes' entries (``bucket_entries``).
        self.buckets: BucketEntries | None = None
        if directory is not None:
            if in_memory is not None:
                self.buckets = BucketEntries(directory / INDEX_DIR / BUCKETS_FILE, trusted=trusted)
            self._finish_purges(directory / INDEX_DIR)

    def _finish_purges(self, folder: Path) -> None:
        """Erase the index of every scope whose purge a crash interrupted, and its rows
        in the buckets' file: they may hold purged terms, and its scope's next use
        rebuilds them from Chroma."""
        for mark in folder.glob(f"*{PURGE_SUFFIX}"):
            hashed = mark.name[: -len(PURGE_SUFFIX)]
            erase(folder / (hashed + ".sqlite3"))
            if self.buckets is not None:  # it may hold purged rows: see ``bucket_entries``
                self.buckets = self.buckets.erase()
            mark.unlink()

    def close(self) -> None:
        """Close every index (files stay; memory ones are gone)."""
        with self._guard:
            slots = list(self._slots.values())
            self._slots.clear()
        for slot in slots:
            slot.index.close()
        if self.buckets is not None:
            self.buckets.close()

    # -- opening -----------------------------------------------------------------------

    def _file(self, scope: Scope) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / INDEX_DIR / f"{scope_hash(scope)}.sqlite3"

    def _open(self, scope: Scope) -> _Slot:
        path = self._file(scope)
        if path is None or (self.in_memory is not None and self.in_memory(scope)):
            return _Slot(LexicalIndex(None), bucketed=self.buckets is not None)
        index, begun = self._open_file(path)
        if begun and self.buckets is not None:
            # A file begun now holds nothing yet, whatever was vouched for the one
            # before it (gone, damaged): compared with Chroma on its first read.
            self.buckets.distrust(scope_hash(scope))
        return _Slot(index, bucketed=False)

    def _open_file(self, path: Path) -> tuple[LexicalIndex, bool]:
        """The index file at ``path``, and whether it was begun now (none was there,
        or the one there was of no use)."""
        path.parent.mkdir(exist_ok=True)
        existed = path.exists()
        try:
            index = LexicalIndex(path)
            if index.schema() == SCHEMA:
                return index, not existed
            index.close()
        except sqlite3.DatabaseError as exc:  # damaged: it is derived, so start again
            if getattr(exc, "sqlite_errorcode", None) == _SQLITE_CANTOPEN:
                raise  # not damaged: unopenable now (no file handle left, no access)
            log.warning("langgraph_memory: rebuilding the lexical index %s (%r)", path, exc)
        erase(path)
        return LexicalIndex(path), True

    @contextlib.contextmanager
    def _use(self, scope: Scope) -> Iterator[_Slot]:
        """The scope's slot, opened if needed, held open while in use."""
        with self._guard:
            slot = self._slots.get(scope.key)
            if slot is None:
                slot = self._open(scope)
                self._slots[scope.key] = slot
                self._evict()
            self._slots.move_to_end(scope.key)
            slot.users += 1
        try:
            yield slot
        finally:
            with self._guard:
                slot.users -= 1

    def _evict(self) -> None:
        idle = [key for key, slot in self._slots.items() if not slot.users]
        for key in idle[: max(0, len(self._slots) - self.max_open)]:
            self._slots.pop(key).index.close()

    # -- writes --------------------------------------------------------------------------

    def written(
        self,
        cols: ScopeCollections,
        registry: VectorCollection,
        added: Sequence[Version],
        removed: Sequence[str],
    ) -> None:
        """Follow a write that Chroma has taken: ``added`` active versions, ``removed``
        ids. A failure here is logged and leaves the scope to be compared again on its
        next read: the write itself is done and must not be reported as failed."""
        scope = cols.scope
        try:
            with self._use(scope) as slot, slot.index.lock:
                if slot.bucketed and not slot.synced:
                    # The file's rows of a scope are whole only once they were compared
                    # with Chroma in this generation: a person written and never read
                    # would have them compared on their first read of a next process.
                    self._load_after_write(cols, slot)
                entries = [entry_of(v) for v in added]
                if slot.bucketed:
                    entries = rounded(entries)  # as the buckets' file keeps them
                slot.index.remove(removed)
                slot.index.put(entries)
                if slot.bucketed and self.buckets is not None:
                    self.buckets.put(scope_hash(scope), entries, removed)
        except sqlite3.Error as exc:
            log.warning("langgraph_memory: lexical index of %s not updated (%r)", scope.key, exc)
            self.stale(scope)
        if self.shared:
            self._stamp(registry, scope)

    def created(self, scope: Scope, bucket: str) -> None:
        """A scope in ``bucket``, made just now: it holds no record yet, so its rows in
        the buckets' file (none) are whole, and its first write reads nothing from
        Chroma. A failure is logged: the first write then compares the scope with Chroma."""
        if self.buckets is None:
            return
        try:
            self.buckets.replace(scope_hash(scope), [], home=bucket)
        except sqlite3.Error as exc:
            log.warning("langgraph_memory: lexical rows of %s not started (%r)", scope.key, exc)

    def patched(self, scope: Scope, changes: Mapping[str, Mapping[str, Any]]) -> None:
        """Follow an update of records' metadata that Chroma has taken (a read's
        ``last_accessed``, a TTL's expiry: the only fields changed in place), so that
        the records the index holds stay Chroma's; a failure is logged and leaves the
        scope to be compared again."""
        try:
            with self._use(scope) as slot, slot.index.lock:
                slot.index.patch(changes)
                if slot.bucketed and self.buckets is not None:
                    self.buckets.patch(scope_hash(scope), changes)
        except sqlite3.Error as exc:
            log.warning("langgraph_memory: lexical index of %s not updated (%r)", scope.key, exc)
            self.stale(scope)

    def home(self, scope: Scope) -> str | None:
        """The bucket an embedded store's scope lives in, known without asking Chroma
        (see ``BucketEntries.home``); None when it is to be read from the registry."""
        return None if self.buckets is None else self.buckets.home(scope_hash(scope))

    def placed(self, scope: Scope, bucket: str) -> None:
        """The registry says the scope lives in ``bucket``: recorded beside its rows
        when they are trusted and say nothing of it yet (``BucketEntries.place``)."""
        if self.buckets is not None:
            self.buckets.place(scope_hash(scope), bucket)

    def stale(self, scope: Scope) -> None:
        """Compare the scope's index with its collection on its next read (after a
        write that failed midway, or that this process cannot follow)."""
        with self._guard:
            slot = self._slots.get(scope.key)
            if slot is not None:
                slot.synced = False
        if self.buckets is not None:
            self.buckets.distrust(scope_hash(scope))

    @contextlib.contextmanager
    def purging(self, scope: Scope) -> Iterator[None]:
        """Mark the scope's index while a purge runs: a crash before :meth:`purged`
        finished leaves the mark, and the next open erases the index (see
        ``_finish_purges``), so purged terms cannot outlive the crash."""
        path = self._file(scope)
        mark = None if path is None else path.with_name(path.stem + PURGE_SUFFIX)
        if mark is not None:
            mark.parent.mkdir(exist_ok=True)
            mark.touch()
        yield
        if mark is not None:
            mark.unlink()

    def purged(self, scope: Scope, ids: Sequence[str] | None, registry: VectorCollection) -> None:
        """Follow a purge: drop the ids (None: the whole scope) and leave nothing of
        them in any file; tell other processes (shared mode)."""
        if ids is None:
            self.drop(scope)
        else:
            with self._use(scope) as slot, slot.index.lock:
                slot.index.remove(ids)
                if not self.shared:
                    slot.index.scrub()
        if self.buckets is not None:
            # Erased whole, whoever the purged scope is (one that moved out of its
            # bucket may have left bytes of its rows): see ``bucket_entries``. The
            # purge holds the store's gate: nothing else uses the file meanwhile.
            self.buckets = self.buckets.erase()
        if self.shared and ids is not None:
            self._stamp(registry, scope)

    def drop(self, scope: Scope) -> None:
        """Forget the scope's index: closed, and its file erased."""
        with self._guard:
            slot = self._slots.pop(scope.key, None)
        if slot is not None:
            slot.index.close()
        path = self._file(scope)
        if path is not None:
            erase(path)
        if self.buckets is not None:
            self.buckets.remove(scope_hash(scope))

    def forget(self, scope: Scope) -> None:
        """Let go of a scope's index in memory (shared mode) when no one uses it: its
        scope is gone from the server. A file is never touched from a read."""
        if not self.shared:
            return
        with self._guard:
            slot = self._slots.get(scope.key)
            if slot is not None and not slot.users:
                del self._slots[scope.key]
                slot.index.close()

    def active_among(
        self, cols: ScopeCollections, registry: VectorCollection, ids: Sequence[str]
    ) -> list[str] | None:
        """The ids among ``ids`` that the scope's active collection holds, from its
        index where this process keeps it in step alone (an embedded store); None on a
        server, where Chroma is to be asked. An access time's write asked Chroma, which
        loads the collection's whole vector index: a bucket's, at 100,000 people mostly
        not in Chroma's cache (36 ms of the write's 82, against 2 of 16 at 1,000)."""
        if self.shared:
            return None
        with self.ready(cols, registry) as index:
            return index.held(ids)

    def held(self, scope: Scope) -> int | None:
        """How many active records the scope's open index holds, when it is open and was
        brought in step with Chroma since (None otherwise): this process's writes since
        are in it, another process's (a server) may not be."""
        with self._guard:
            slot = self._slots.get(scope.key)
            if slot is None or not slot.synced:
                return None
            index = slot.index
        with index.lock:
            return len(index.ids())

    # -- reads ---------------------------------------------------------------------------

    def search(
        self,
        cols: ScopeCollections,
        registry: VectorCollection,
        terms: Sequence[str],
        k: int,
    ) -> list[tuple[str, float]]:
        """The ``k`` best ids of the scope for ``terms`` (see ``LexicalIndex.search``),
        after bringing the index in step with the collection if it may not be."""
        with self.ready(cols, registry) as index:
            return index.search(terms, k)

    def shares(
        self, cols: ScopeCollections, registry: VectorCollection, terms: Sequence[str]
    ) -> dict[str, float]:
        """The share of the scope's active memories indexed under each term."""
        with self.ready(cols, registry) as index:
            return index.shares(terms)

    @contextlib.contextmanager
    def ready(self, cols: ScopeCollections, registry: VectorCollection) -> Iterator[LexicalIndex]:
        """The scope's index, brought in step with the collection if it may not be
        (one comparison for every lookup made with it)."""
        seen = self._stamps(registry, cols.scope) if self.shared else None
        with self._use(cols.scope) as slot:
            with slot.index.lock:
                if not slot.synced or slot.seen != seen:
                    if slot.bucketed:
                        self._load(cols, slot.index)
                    elif not self._vouched(cols.scope):
                        self._sync(cols, slot.index)
                        self._vouch(cols.scope)
                    slot.synced, slot.seen = True, seen
            yield slot.index

    def _vouched(self, scope: Scope) -> bool:
        """Whether an embedded store's scope of its own has its index file in step
        with Chroma without a comparison (see ``BucketEntries.trust_own``)."""
        return self.buckets is not None and self.buckets.home(scope_hash(scope)) == OWN

    def _vouch(self, scope: Scope) -> None:
        """Vouch for a scope of its own compared just now (an embedded store's); a
        failure is logged, and its next process compares it again."""
        if self.buckets is None:
            return
        try:
            self.buckets.trust_own(scope_hash(scope))
        except sqlite3.Error as exc:
            log.warning(
                "langgraph_memory: lexical index of %s not vouched for (%r)", scope.key, exc
            )

    def _load_after_write(self, cols: ScopeCollections, slot: _Slot) -> None:
        """:meth:`_load` for a write Chroma has taken (it finds that write, which the
        caller then applies again: no change). A failure is logged: the write is done,
        and the scope is loaded again on its next read."""
        try:
            self._load(cols, slot.index)
            slot.synced = True
        except Exception as exc:
            log.warning(
                "langgraph_memory: lexical index of %s not compared with Chroma (%r)",
                cols.scope.key,
                exc,
            )

    def _load(self, cols: ScopeCollections, index: LexicalIndex) -> None:
        """Make a bucketed scope's index hold its rows of the buckets' file, when they
        are trusted; else its records as Chroma holds them, which the file then
        keeps. Called with the index's lock held, as :meth:`_sync`."""
        assert self.buckets is not None
        hashed = scope_hash(cols.scope)
        held = index.ids()
        kept = self.buckets.load(hashed)
        if kept is None:
            kept = rounded([entry_of(v) for v in fetch(cols.active, cols.scope, with_vector=True)])
            self.buckets.replace(hashed, kept, home=cols.bucket)
            fresh = kept
        else:  # this process's writes since the index opened are in both already
            fresh = [e for e in kept if e.id not in held]
        extra = held - {e.id for e in kept}
        index.remove(extra)
        index.put(fresh)

    def _sync(self, cols: ScopeCollections, index: LexicalIndex) -> None:
        """Make the index hold the collection's active ids: fetch the missing, drop
        the extra. Called with the index's lock held, so a write of this process
        cannot land between the comparison and its repair."""
        held = index.ids()
        if not held:  # a new index (a scope in a bucket: each first use): one read of all
            found = fetch(cols.active, cols.scope, with_vector=True)
            index.put([entry_of(v) for v in found])
            return  # built, not repaired: nothing to say
        else:
            active = set(cols.active.read()["ids"])
            missing = sorted(active - held)
            extra = held - active
            for part in chunks(missing, 1000):
                found = fetch(cols.active, cols.scope, ids=list(part), with_vector=True)
                index.put([entry_of(v) for v in found])
        if extra:
            index.remove(extra)
            if not self.shared:
                index.scrub()  # the extra may be what an interrupted purge left
        if missing or extra:
            log.info(
                "langgraph_memory: lexical index of %s brought in step with Chroma "
                "(%d added, %d removed)",
                cols.scope.key,
                len(missing),
                len(extra),
            )

    # -- other processes' stamps (shared mode) --------------------------------------------

    def _stamps(self, registry: VectorCollection, scope: Scope) -> dict[str, Any]:
        """Other processes' stamps on the scope's registry record (empty when none)."""
        found = registry.read(ids=[scope_hash(scope)], include=["metadatas"])
        metas = found["metadatas"] or []
        meta = (metas[0] if metas else None) or {}
        return {k: v for k, v in meta.items() if k.startswith(STAMP_PREFIX) and k != self.stamp_key}

    def _stamp(self, registry: VectorCollection, scope: Scope) -> None:
        """Say that this process changed the scope: its own key, to a newer time."""
        with self._guard:
            now = time.time()
            self._last_stamp = stamp = max(now, self._last_stamp + 1e-3)
            prune = scope.key not in self._pruned
            self._pruned.add(scope.key)
        update: dict[str, Any] = {self.stamp_key: stamp}
        try:
            if prune:  # keys of processes that stopped writing a day ago and more
                old = self._stamps(registry, scope)
                update.update({k: None for k, v in old.items() if float(v) < now - STAMP_MAX_AGE_S})
            registry.patch([scope_hash(scope)], [update])
        except Exception as exc:  # the write is done; other processes see it on their next
            # comparison (a later write's stamp, or their first use of the scope)
            log.warning(
                "langgraph_memory: could not tell other processes that %s changed (%r)",
                scope.key,
                exc,
            )


def lexical_text(memory: Memory) -> str:
    """What a memory is indexed under: its text and the date of its event (else of
    its creation), in the words a question uses, so that "what happened in May
    2023?" finds it; both go through the package's one tokeniser
    (``text.words.tokenize``), as a query's words do. A speaker or any other
    metadata is not part of it.

    >>> from datetime import datetime, timezone
    >>> m = Memory(id="0a1b2c3d", text="Adopted a puppy.", scope="user:a",
    ...            created_at=datetime(2026, 1, 2, tzinfo=timezone.utc),
    ...            event_time=datetime(2023, 5, 8, tzinfo=timezone.utc))
    >>> lexical_text(m)
    'Adopted a puppy. 2023-05-08 8 May 2023'
    """
    return f"{memory.text} {date_words(memory.event_time or memory.created_at)}"


def entry_of(version: Version) -> Entry:
    """The index entry of a stored version, with its record as Chroma holds it (its
    vector only when the version carries it)."""
    m = version.memory
    thread = m.metadata.get("thread_id")
    speaker = m.metadata.get("speaker")
    return Entry(
        m.id,
        " ".join(tokenize(lexical_text(m))),
        m.sources,
        m.kind == Kind.EPISODIC,
        thread=thread if isinstance(thread, str) else None,
        at=(m.event_time or m.created_at).timestamp(),
        pinned=m.pinned,
        speaker=speaker if isinstance(speaker, str) else None,
        vector=None
        if version.vector is None
        else np.asarray(version.vector, dtype=np.float32).tobytes(),
        document=m.text,
        meta=json.dumps(version_metadata(version)),
    )
