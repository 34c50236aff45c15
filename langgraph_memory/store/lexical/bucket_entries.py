"""The lexical entries of an embedded store's scopes in buckets, in one SQLite file.

A scope in a bucket (a small one, see ``store/chroma/layout``) keeps its lexical index
in memory, built on its first use in a process. Built from Chroma, that first use read
the scope's records with their vectors, and Chroma serves a vector from its
collection's whole vector index: a bucket's (thousands of vectors, megabytes), loaded
whenever its cache of 64 indexes does not hold it. With hundreds of buckets, nearly
every read of a person not read recently loaded one (read p50 x1.8 from 1,000 to
10,000 people). This file keeps every bucketed scope's entries (their records as
Chroma holds them: vector, document, metadata, and their terms), keyed by scope, so
that a first use is one indexed query of a local file.

A row is kept small, as the file holds every person (a five-memory person of real chat
took 12.4 kB here, a third of their disk): its vector in 8 bits a dimension with one
float32 scale (388 bytes of Chroma's 1,536 at 384 dimensions; a scope's index holds the
same rounded values, see :func:`rounded`, so that a ranking is the same before and after
a restart), and its terms, sources, document and metadata as one zlib stream with a
dictionary of the metadata's keys (672 -> 294 bytes a row of real chat). 12.4 -> 6.0 kB
per five-memory person with float16 vectors (``LAYOUT`` 2), 4.0 kB in 8 bits (3). A
cosine of rounded vectors is Chroma's to about 1e-3 (1.3e-3 off in a test's; float16:
5e-5): a bucketed scope holds at most a few dozen versions, where that reorders only
near ties. ``LAYOUT`` 4 keeps the bucket each scope lives in beside its rows
(:meth:`BucketEntries.home`), so that a read of it asks Chroma nothing at all.

``LAYOUT`` 5 also vouches for the scopes with collections of their own (:data:`OWN`,
:meth:`BucketEntries.trust_own`): their index files are compared with Chroma once per
generation, not on their first read in every process. That comparison, the registry
read that found their collections and the check for a half-made move took three reads
of Chroma, which grew with the store (a first read of such a person: 12 ms at 1,000
people, 72 ms at 100,000). Such a scope has no rows here, only its trust.

It is derived data, written by this process alone (the directory lock), after each
Chroma write, like an index file. Whether a scope's rows can be trusted:

- a scope's rows are trusted when they were compared with Chroma (or built from it)
  in the file's current **generation**, and written since by this process alone;
- a process that opens the file while the last one did not close it (a crash: a
  Chroma write may have landed without its rows) starts a new generation: every
  scope is compared with Chroma once on its next use, as an index file is; so does
  one that finds the store not closed whole, or its Chroma files written since by
  something else (a ``chroma run`` serving the directory: engine's ``CLOSED_MARK``);
- a write of rows that fails distrusts its scope at once, and the file is left
  marked open at close, so the next process compares every scope again;
- a release that did not know this file never opens the store: it is format 6
  (``store/chroma/formats``), and older releases refuse newer formats.

A purge erases the whole file (:meth:`BucketEntries.erase`: overwritten with zeros,
then deleted), and every bucketed scope is read from Chroma once more on its next use.
Deleting the purged rows would not do: ``secure_delete`` zeroes a deleted row where it
lies, but SQLite moves rows between pages as a tree rebalances and leaves the copies
it moved from in the pages' free space (``rebuildPage``), where a scan after a purge
found them; only a rewrite of the file removes those, and the file is shared by
thousands of people. (The per-scope index files are rewritten, ``VACUUM``, instead.)

>>> import tempfile
>>> entries = BucketEntries(Path(tempfile.mkdtemp()) / "buckets.db")
>>> entries.load("s1") is None  # never compared with Chroma: not trusted
True
>>> entries.replace("s1", [Entry("a1", "tea", document="Likes tea.", meta="{}")], home="b000000")
>>> [e.id for e in entries.load("s1")], entries.home("s1")
(['a1'], 'b000000')
>>> entries.put("s1", [Entry("b2", "coffee")], removed=["a1"])
>>> [e.terms for e in entries.load("s1")]
['coffee']
>>> entries.trust_own("s2")  # its own collections; its index file holds what Chroma does
>>> entries.home("s2") == OWN, entries.load("s2")
(True, [])
>>> entries = entries.erase()  # a purge's: nothing is trusted in the new file
>>> entries.load("s1") is None, entries.home("s1") is None
(True, True)
>>> entries.close()
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from langgraph_memory.store.lexical.index import SCHEMA, Entry, erase, open_derived

__all__ = ["FILE", "OWN", "BucketEntries", "rounded"]

#: The file's name, in the store's ``lexical/`` folder.
FILE = "buckets.db"
#: The layout of this file; with the terms' ``SCHEMA``, what a file must say to be read
#: (another is erased and built again from Chroma: a release that knows an older
#: layout only, so that it never takes :data:`OWN` for a bucket's name).
LAYOUT = 5
#: The home kept for a scope with collections of its own (a bucket's name is ``b`` and
#: its number): its registry entry names no bucket, and its index file held what
#: Chroma holds when it was compared, in the file's current generation.
OWN = "own"

_SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scope(
    hash TEXT PRIMARY KEY, generation INTEGER NOT NULL, home TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entry(
    scope TEXT NOT NULL, id TEXT NOT NULL, episodic INTEGER NOT NULL, thread TEXT,
    at REAL NOT NULL, pinned INTEGER NOT NULL, speaker TEXT, vec BLOB, packed BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS entry_scope ON entry(scope, id);
"""
#: The zlib dictionary of a row's packed fields: what every record's metadata says
#: (``codec``'s keys and common values), so that a short row compresses too. Part of
#: the layout: another dictionary needs another ``LAYOUT``.
_ZDICT = (
    b'"m.said_in": "", "m.asks": true, "replaces": "", "sources": "[]", "thread_id": "", '
    b'"speaker": "", "valid_from": 17, "valid_to": 17, "kind": "semantic", "kind": "rule", '
    b'"trust": "low", "source": "assistant", "source": "tool", "pinned": true, '
    b'"event_time": 17, "m.episode": true, "m.turn_id": "", "m.said": "", '
    b'{"key": "", "key_created_at": 17, "kind": "episodic", "importance": 0.5, '
    b'"created_at": 17, "pinned": false, "source": "user", "trust": "high", '
    b'"last_accessed": 17'
)
#: The file's page size, and the WAL's size once folded back (bytes).
PAGE_SIZE = 16 * 1024
WAL_LIMIT = 512 * 1024
_COLUMNS = "id, episodic, thread, at, pinned, speaker, vec, packed"


class BucketEntries:
    """The entries of every bucketed scope of one embedded store (see the module
    docstring), keyed by the scope's hash. Thread-safe (one lock)."""

    def __init__(self, path: Path, *, trusted: bool = True) -> None:
        """``trusted``: False to start a new generation whatever the last process did
        (Chroma's files were written since, by a process that kept no rows here)."""
        self.path = path
        self._lock = threading.Lock()
        #: A write failed in this process: leave the file marked open at close.
        self.failed = False
        #: Scopes whose rows a failed write left behind Chroma, in this process.
        self._distrusted: set[str] = set()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = self._open()
        except sqlite3.DatabaseError:  # damaged: it is derived, so start again
            erase(path)
            self._con = self._open()
        self.generation = self._start(again=not trusted)

    def _open(self) -> sqlite3.Connection:
        # Pages of 16 kB: a row holds a 1.5 kB vector and ~0.7 kB of text, so 4 kB pages
        # held one row each, half empty (18 kB of file for a five-memory person of real
        # chat, 12 kB now). The WAL is folded back every 512 kB and kept at that
        # (SQLite's 1,000 pages left megabytes of WAL beside the file).
        con = open_derived(
            self.path,
            page_size=PAGE_SIZE,
            pragmas=(
                f"wal_autocheckpoint={WAL_LIMIT // PAGE_SIZE}",
                f"journal_size_limit={WAL_LIMIT}",
            ),
        )
        try:
            con.executescript(_SCHEMA_SQL)
            layout = f"{LAYOUT}.{SCHEMA}"
            con.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('layout', ?)", (layout,))
            (found,) = con.execute("SELECT value FROM meta WHERE key = 'layout'").fetchone()
            if found in (f"3.{SCHEMA}", f"4.{SCHEMA}"):
                # Layout 3 kept no homes: its rows hold as they are, and each scope's
                # home is learnt on its next open (``place``), not rebuilt from Chroma
                # with every person's vectors. Layout 4 vouched for no scope of its own:
                # each is compared on its next use, and vouched for then.
                columns = {row[1] for row in con.execute("PRAGMA table_info(scope)")}
                if "home" not in columns:  # present: a process stopped between the two
                    con.execute("ALTER TABLE scope ADD COLUMN home TEXT")
                con.execute("UPDATE meta SET value = ? WHERE key = 'layout'", (layout,))
            elif found != layout:  # terms made otherwise: nothing here is of use
                con.close()
                erase(self.path)
                return self._open()
        except BaseException:
            con.close()
            raise
        return con

    def _start(self, *, again: bool) -> int:
        """This process's generation: a new one when the last process did not close
        the file (see the module docstring), or when ``again``; the file is marked open
        meanwhile."""
        with self._transaction() as con:
            rows = dict(con.execute("SELECT key, value FROM meta").fetchall())
            generation = int(rows.get("generation", "0"))
            if rows.get("open") == "1" or again:
                generation += 1
            con.executemany(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                [("generation", str(generation)), ("open", "1")],
            )
        return generation

    def close(self) -> None:
        """Mark the file closed (unless a write failed), fold its WAL back, close it."""
        with self._lock:
            try:
                if not self.failed:
                    self._con.execute("UPDATE meta SET value = '0' WHERE key = 'open'")
                self._con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._con.close()

    @contextlib.contextmanager
    def _transaction(self, scope: str | None = None) -> Iterator[sqlite3.Connection]:
        """One transaction; a failure distrusts ``scope`` (and the file at close)."""
        with self._lock:
            try:
                self._con.execute("BEGIN IMMEDIATE")
                try:
                    yield self._con
                except BaseException:
                    self._con.execute("ROLLBACK")
                    raise
                self._con.execute("COMMIT")
            except sqlite3.Error:
                self.failed = True
                if scope is not None:
                    self._distrusted.add(scope)
                raise

    # -- reads ---------------------------------------------------------------------------

    def load(self, scope: str) -> list[Entry] | None:
        """The scope's entries, or None when they are not to be trusted (see the
        module docstring): the scope is then compared with Chroma, and :meth:`replace`
        records what it holds."""
        with self._lock:
            if scope in self._distrusted:
                return None
            row = self._con.execute("SELECT generation FROM scope WHERE hash = ?", (scope,))
            found = row.fetchone()
            if found is None or found[0] != self.generation:
                return None
            rows = self._con.execute(
                f"SELECT {_COLUMNS} FROM entry WHERE scope = ?", (scope,)
            ).fetchall()
        return [_entry(row) for row in rows]

    def home(self, scope: str) -> str | None:
        """The bucket the scope lives in, as its registry entry in Chroma says, when
        its rows are trusted and the bucket was recorded with them (:meth:`replace`,
        :meth:`place`), or :data:`OWN` for a scope of its own vouched for
        (:meth:`trust_own`); else None, and the registry is to be asked. It holds as the
        rows hold: the entry changes only when the scope is made (rows made with it),
        moves out of its bucket (:meth:`remove`) or is purged (:meth:`erase`), all in
        the one process that has the store."""
        with self._lock:
            if scope in self._distrusted:
                return None
            found = self._con.execute(
                "SELECT generation, home FROM scope WHERE hash = ?", (scope,)
            ).fetchone()
        if found is None or found[0] != self.generation:
            return None
        return cast("str | None", found[1])

    def config(self) -> dict[str, Any] | None:
        """The store-wide settings (embedder name and dimension) as :meth:`keep_config`
        kept them, or None: then the registry's record is read (and kept here). An open
        reads them here, not from the registry: Chroma loads a collection's whole vector
        index on its first read, and the registry's has an entry per person (at 100,000
        people, 0.18 s of a 0.20 s open). They can go stale in one way only: a dimension
        of 0 (none yet) kept here that another release since recorded in the registry;
        the store then records it again on its next write, the same."""
        with self._lock:
            found = self._con.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        return cast("dict[str, Any]", json.loads(found[0])) if found is not None else None

    # -- writes --------------------------------------------------------------------------

    def keep_config(self, *, embedder: str, dimension: int) -> None:
        """Keep the store-wide settings the registry records (see :meth:`config`)."""
        config = {"embedder": embedder, "dimension": dimension}
        with self._transaction() as con:
            con.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('config', ?)",
                (json.dumps(config, sort_keys=True),),
            )

    def replace(self, scope: str, entries: Sequence[Entry], *, home: str | None = None) -> None:
        """Make the scope's rows ``entries`` (what Chroma holds), trusted from now on;
        ``home``: the bucket its registry entry names (see :meth:`home`)."""
        with self._transaction(scope) as con:
            con.execute("DELETE FROM entry WHERE scope = ?", (scope,))
            self._insert(con, scope, entries)
            con.execute(
                "INSERT OR REPLACE INTO scope(hash, generation, home) VALUES (?, ?, ?)",
                (scope, self.generation, home),
            )
        with self._lock:
            self._distrusted.discard(scope)

    def trust_own(self, scope: str) -> None:
        """Vouch for a scope with collections of its own, whose index file was just
        compared with Chroma (or built from it): its :meth:`home` is :data:`OWN`, trusted
        as rows are, until a failed write of it (:meth:`distrust`), its purge or a
        new generation. It holds no rows here: a move out of a bucket removed them."""
        with self._transaction(scope) as con:
            con.execute(
                "INSERT OR REPLACE INTO scope(hash, generation, home) VALUES (?, ?, ?)",
                (scope, self.generation, OWN),
            )
        with self._lock:
            self._distrusted.discard(scope)

    def place(self, scope: str, home: str) -> None:
        """Record the bucket a scope's registry entry names, read from Chroma just
        now, beside its rows when they are trusted and have none recorded yet (rows
        that a release before homes were kept made). A failure only leaves it
        unrecorded."""
        with contextlib.suppress(sqlite3.Error), self._lock:
            self._con.execute(  # one statement: its own transaction (autocommit)
                "UPDATE scope SET home = ? WHERE hash = ? AND generation = ? AND home IS NULL",
                (home, scope, self.generation),
            )

    def put(self, scope: str, entries: Sequence[Entry], removed: Iterable[str] = ()) -> None:
        """Follow a write of the scope: ``entries`` added (an id held is replaced),
        ``removed`` ids gone."""
        gone = list(removed)
        if not entries and not gone:
            return
        with self._transaction(scope) as con:
            con.executemany(
                "DELETE FROM entry WHERE scope = ? AND id = ?",
                [(scope, i) for i in [*gone, *(e.id for e in entries)]],
            )
            self._insert(con, scope, entries)

    def patch(self, scope: str, changes: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge metadata changes into the scope's rows, as ``LexicalIndex.patch``
        (a None value removes the key)."""
        if not changes:
            return
        with self._transaction(scope) as con:
            rows = con.execute(
                "SELECT id, packed FROM entry WHERE scope = ?", (scope,)
            ).fetchall()  # a bucketed scope is small: its rows, not a query per id
            updates = []
            for record_id, packed in rows:
                if record_id not in changes:
                    continue
                terms, sources, document, meta = _unpack(packed)
                if meta is None:
                    continue
                merged = json.loads(meta)
                for key, value in changes[record_id].items():
                    if value is None:
                        merged.pop(key, None)
                    else:
                        merged[key] = value
                fields = (terms, sources, document, json.dumps(merged))
                updates.append((_pack(*fields), scope, record_id))
            con.executemany("UPDATE entry SET packed = ? WHERE scope = ? AND id = ?", updates)

    def distrust(self, scope: str) -> None:
        """Compare the scope with Chroma on its next use, in this process and the next."""
        with self._lock:
            self._distrusted.add(scope)
        # If it fails, ``failed`` says so: the next process compares every scope.
        with contextlib.suppress(sqlite3.Error), self._transaction(scope) as con:
            con.execute("DELETE FROM scope WHERE hash = ?", (scope,))

    def remove(self, scope: str) -> None:
        """Delete every row of the scope, and its trust (a scope that moved out of its
        bucket). Not a purge's step: see :meth:`erase`."""
        with self._transaction(scope) as con:
            con.execute("DELETE FROM entry WHERE scope = ?", (scope,))
            con.execute("DELETE FROM scope WHERE hash = ?", (scope,))

    def erase(self) -> BucketEntries:
        """Close the file and erase it (zeros, then deleted), WAL and all: a purge's
        step (see the module docstring). Returns the new, empty file that replaces it,
        in which no scope is trusted."""
        self.failed = True  # nothing of this file is to be marked closed
        with self._lock:
            self._con.close()
        erase(self.path)
        return BucketEntries(self.path)

    @staticmethod
    def _insert(con: sqlite3.Connection, scope: str, entries: Sequence[Entry]) -> None:
        con.executemany(
            f"INSERT INTO entry(scope, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    scope,
                    e.id,
                    int(e.episodic),
                    e.thread,
                    e.at,
                    int(e.pinned),
                    e.speaker,
                    None if e.vector is None else _small(e.vector),
                    _pack(e.terms, list(e.sources), e.document, e.meta),
                )
                for e in entries
            ],
        )


def rounded(entries: Sequence[Entry]) -> list[Entry]:
    """``entries`` with their vectors rounded to the 8 bits a dimension this file keeps
    (still float32 bytes): what a bucketed scope's index holds, so that a vector read
    back from the file is the one the index ranked with before.

    >>> e = Entry("a1", "tea", vector=np.float32([0.1, 0.7, -0.7]).tobytes())
    >>> [round(float(x), 4) for x in np.frombuffer(rounded([e])[0].vector, dtype=np.float32)]
    [0.0992, 0.7, -0.7]
    """
    return [
        e if e.vector is None else dataclasses.replace(e, vector=_full(_small(e.vector)))
        for e in entries
    ]


def _small(vector: bytes) -> bytes:
    """A float32 vector as its scale (float32) and a signed byte a dimension: the
    largest magnitude maps to 127, the rest to the nearest step."""
    values = np.frombuffer(vector, dtype=np.float32)
    top = float(np.abs(values).max()) if values.size else 0.0
    scale = np.array([top / 127.0 if top > 0.0 else 1.0], dtype=np.float32)
    steps: np.ndarray[Any, np.dtype[np.int8]] = np.clip(
        np.rint(values / scale[0]), -127, 127
    ).astype(np.int8)
    return scale.tobytes() + steps.tobytes()


def _full(small: bytes) -> bytes:
    scale = np.frombuffer(small[:4], dtype=np.float32)
    values: np.ndarray[Any, np.dtype[np.float32]] = (
        np.frombuffer(small[4:], dtype=np.int8).astype(np.float32) * scale
    )
    return values.tobytes()


def _pack(terms: str, sources: list[str], document: str | None, meta: str | None) -> bytes:
    # The metadata goes in as the JSON object it is (not a string of it, whose quotes
    # would be escaped), so that the dictionary's keys match it.
    text = (
        f"[{json.dumps(terms)},{json.dumps(sources)},{json.dumps(document)},"
        f"{'null' if meta is None else meta}]"
    )
    packer = zlib.compressobj(6, zdict=_ZDICT)
    return packer.compress(text.encode()) + packer.flush()


def _unpack(packed: bytes) -> tuple[str, list[str], str | None, str | None]:
    unpacker = zlib.decompressobj(zdict=_ZDICT)
    terms, sources, document, meta = json.loads(unpacker.decompress(packed) + unpacker.flush())
    return terms, sources, document, None if meta is None else json.dumps(meta)


def _entry(row: Sequence[Any]) -> Entry:
    i, episodic, thread, at, pinned, speaker, vec, packed = row
    terms, sources, document, meta = _unpack(packed)
    return Entry(
        i,
        terms,
        tuple(sources),
        bool(episodic),
        thread=thread,
        at=at,
        pinned=bool(pinned),
        speaker=speaker,
        vector=None if vec is None else _full(vec),
        document=document,
        meta=meta,
    )
