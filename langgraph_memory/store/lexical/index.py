"""One scope's lexical index: BM25 over its active records, in SQLite FTS5, and a copy of
those records (vector, text and metadata) that a read takes instead of asking Chroma.

One index per scope, in a SQLite database of its own (a file of the store's directory, or
memory), so a query's cost depends on its scope's size alone. It knows nothing of
Chroma: ``indexes`` keeps it in step with the scope's active collection.

An entry is a record's id, its own terms (see ``entries``), the ids it names as its
``sources`` and, when known, the record as Chroma holds it: its vector (float32 bytes),
its document and its metadata (JSON). A read finds the vectors of what the keyword side
found, and the records of what it ranks, here: one lookup each by id in a local file,
where the same reads from Chroma took longer than the nearest-neighbour query itself.

An episodic record is indexed under its own terms plus those of every entry that names
it (fact-augmented keys: a fact taken from a turn makes the turn findable by the fact's
words); any other record under its own terms.

FTS5 gets the terms already tokenised (its ``ascii`` tokenizer splits them on the
spaces between them only), so a query's terms are looked up exactly as indexed.
``bm25()`` ranks (k1 = 1.2, b = 0.75); :meth:`LexicalIndex.search` scales its scores
into [0, 1] by the query's attainable maximum (see there).

>>> index = LexicalIndex(None)
>>> index.put([Entry("e1", "adopt puppy", episodic=True), Entry("f1", "own dog", ("e1",))])
>>> [(i, round(s, 2)) for i, s in index.search(["dog"], 5)]
[('f1', 0.57), ('e1', 0.38)]
>>> index.remove(["f1"])
>>> index.search(["dog"], 5), index.ids()
([], {'e1'})
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.store.chroma import SQLITE_FILE
from langgraph_memory.store.lexical.postings import K1, Postings

__all__ = [
    "COMMON_MIN_RECORDS",
    "COMMON_SHARE",
    "K1",
    "POSTINGS_FROM",
    "SCHEMA",
    "Entry",
    "LexicalIndex",
    "erase",
    "open_derived",
]

log = logging.getLogger("langgraph_memory")

#: The generations of this process's indexes: one sequence, so none repeats.
_GENERATIONS = itertools.count(1)
#: A document's change in a transaction: its rowid, its entry's id, and its terms (None
#: when it was removed).
Change = tuple[int, str, str | None]

#: A term found in more than this share of a scope's records weighs nothing in BM25
#: (FTS5 floors its idf at 1e-6): it is left out of the query, which then reads
#: fewer postings...
COMMON_SHARE = 0.5
#: ... once the scope holds this many records (a small scope keeps every term).
COMMON_MIN_RECORDS = 20
#: From this many records a search ranks from postings in memory (``postings``), built
#: in a thread at the index's first search; FTS5 answers until they are ready. Below it
#: FTS5's own ranking costs well under a millisecond.
POSTINGS_FROM = 2_000
#: The postings are rebuilt (in a thread) once the documents changed since their build
#: exceed this share of them, or ``REBUILD_MIN``: each changed document holding a query
#: term costs a search a few microseconds of Python until then. Beyond ``BULK`` times
#: that (an import), FTS5 ranks until the rebuild is done.
REBUILD_SHARE = 0.02
REBUILD_MIN = 200
BULK = 4
#: The layout of an index file and the way its terms are made: bump it whenever either
#: changes (``text.words``, the stop words, the stemmer of ``text.stemming``, ``entries``),
#: and older files are rebuilt from Chroma (``tests/test_text.py`` pins the terms).
SCHEMA = 5
#: An episode is also indexed under this many episodes before and after it in its
#: thread: the evidence for a question is often a short reply whose topic sits in the
#: turn before it ("Yes, last Friday!").
CONTEXT = 2

_SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rec(
    n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, episodic INTEGER NOT NULL, own TEXT NOT NULL,
    thread TEXT, at REAL NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0, speaker TEXT,
    vec BLOB, document TEXT, meta TEXT
);
CREATE INDEX IF NOT EXISTS rec_thread ON rec(thread, at) WHERE thread IS NOT NULL;
CREATE INDEX IF NOT EXISTS rec_pinned ON rec(id) WHERE pinned = 1;
CREATE TABLE IF NOT EXISTS link(
    episode TEXT NOT NULL, fact TEXT NOT NULL, PRIMARY KEY(episode, fact)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS link_fact ON link(fact);
CREATE VIRTUAL TABLE IF NOT EXISTS doc USING fts5(body, tokenize='ascii');
CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(doc, 'row');
"""


@dataclass(frozen=True)
class Entry:
    """One active record as the index holds it."""

    id: str
    terms: str  # its own terms, space-separated (``" ".join(tokenize(...))``)
    sources: tuple[str, ...] = ()  # ids it names as where it came from
    episodic: bool = False
    thread: str | None = None  # an episode's conversation (thread id), if known
    at: float = 0.0  # an episode's time (epoch seconds): its place in the thread
    pinned: bool = False  # read first (the store lists pinned ids from here, not a scan)
    speaker: str | None = None  # who said it (``metadata["speaker"]``), if known
    vector: bytes | None = None  # its vector as Chroma holds it: float32, native order
    document: str | None = None  # its document (the memory's text) ...
    meta: str | None = None  # ... and its Chroma metadata as JSON (``codec``)


class LexicalIndex:
    """BM25 over one scope's entries: a SQLite file at ``path``, or memory (None).

    Thread-safe (one lock per index). A file is opened by one process at a time: the
    store's directory lock sees to that. It is never Chroma's database, nor beside it
    (a second SQLite connection to the file Chroma has open corrupted stores): such a
    path is refused.

    >>> import tempfile
    >>> LexicalIndex(Path(tempfile.mkdtemp()) / SQLITE_FILE)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: a lexical index never opens Chroma's ...
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.RLock()
        self._con = self._open()
        self._count = int(self._con.execute("SELECT count(*) FROM rec").fetchone()[0])
        #: From this many records a search ranks from postings (``POSTINGS_FROM``).
        self.postings_from = POSTINGS_FROM
        self._postings: Postings | None = None
        # While postings are being built: the changes committed since their snapshot.
        self._backlog: list[Change] | None = None
        self._changes: list[Change] = []  # of the open transaction
        #: Changes with every committed transaction, and differs between two indexes
        #: of a process: what a cache derived from the entries compares
        #: (``store/engine/rule_cache.py``).
        self.generation = next(_GENERATIONS)

    def _open(self) -> sqlite3.Connection:
        con = open_derived(self.path)
        try:
            con.executescript(_SCHEMA_SQL)
            con.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA),)
            )
        except BaseException:
            con.close()
            raise
        return con

    def close(self) -> None:
        """Close the database (a file's WAL is folded back into it)."""
        with self.lock:
            self._con.close()
            self._postings = self._backlog = None

    def __len__(self) -> int:
        return self._count

    def schema(self) -> int:
        """The layout version the database was made with."""
        with self.lock:
            row = self._con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        return int(row[0])

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self._changes = []
            self._con.execute("BEGIN")
            try:
                yield self._con
            except BaseException:
                self._con.execute("ROLLBACK")
                self._count = int(self._con.execute("SELECT count(*) FROM rec").fetchone()[0])
                # Built again from what FTS5 holds when next needed.
                self._postings = self._backlog = None
                raise
            self._con.execute("COMMIT")
            self.generation = next(_GENERATIONS)
            for rowid, entry, document in self._changes:
                if self._postings is not None:
                    self._postings.changed(rowid, entry, document)
            if self._backlog is not None:
                self._backlog += self._changes
            self._changes = []

    def _document(self, con: sqlite3.Connection, rowid: int, entry: str, body: str | None) -> None:
        """Write (or, with None, delete) the full-text document at ``rowid``; the
        postings in memory follow once the transaction commits."""
        con.execute("DELETE FROM doc WHERE rowid = ?", (rowid,))
        if body is not None:
            con.execute("INSERT INTO doc(rowid, body) VALUES (?, ?)", (rowid, body))
        self._changes.append((rowid, entry, body))

    # -- writes ----------------------------------------------------------------------

    def put(self, entries: Sequence[Entry]) -> None:
        """Add entries (an id already held is replaced), and index again the episodes
        they name, in one transaction."""
        if not entries:
            return
        with self._transaction() as con:
            touched = self._delete(con, [e.id for e in entries])
            for e in entries:
                (n,) = con.execute(
                    "INSERT INTO rec(id, episodic, own, thread, at, pinned, speaker, vec, "
                    "document, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING n",
                    (
                        e.id,
                        int(e.episodic),
                        e.terms,
                        e.thread if e.episodic else None,
                        e.at,
                        int(e.pinned),
                        e.speaker,
                        e.vector,
                        e.document,
                        e.meta,
                    ),
                ).fetchone()
                con.executemany(
                    "INSERT OR IGNORE INTO link(episode, fact) VALUES (?, ?)",
                    [(s, e.id) for s in e.sources if s != e.id],
                )
                self._count += 1
                if e.episodic:
                    touched[e.id] = None  # its linked entries may be here already
                    touched.update(dict.fromkeys(self._around(con, e.id)))
                else:
                    self._document(con, n, e.id, e.terms)
                touched.update(dict.fromkeys(e.sources))
            self._reindex(con, touched)

    def remove(self, ids: Iterable[str]) -> None:
        """Drop entries (unknown ids are skipped), and index again the episodes they named."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return
        with self._transaction() as con:
            self._reindex(con, self._delete(con, wanted))

    def patch(self, changes: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge metadata changes into the records of these ids (a None value removes
        the key), as Chroma's ``update`` of the same records did.

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "tea", document="Likes tea.", meta='{"x": 1, "y": 2}')])
        >>> index.patch({"a1": {"x": 3, "y": None}, "zz": {"x": 0}})
        >>> index.records(["a1"])
        [('a1', 'Likes tea.', '{"x":3}')]
        """
        if not changes:
            return
        with self._transaction() as con:
            con.executemany(
                "UPDATE rec SET meta = json_patch(meta, ?) WHERE id = ? AND meta NOTNULL",
                [(json.dumps(dict(fields)), i) for i, fields in changes.items()],
            )

    def _delete(self, con: sqlite3.Connection, ids: list[str]) -> dict[str, None]:
        """Delete the entries and their links as facts; the episodes they named."""
        named: dict[str, None] = {}
        for record_id in ids:
            named.update(dict.fromkeys(self._around(con, record_id)))
            row = con.execute("SELECT n FROM rec WHERE id = ?", (record_id,)).fetchone()
            episodes = con.execute("SELECT episode FROM link WHERE fact = ?", (record_id,))
            named.update(dict.fromkeys(e for (e,) in episodes))
            con.execute("DELETE FROM link WHERE fact = ?", (record_id,))
            if row is not None:
                self._document(con, row[0], record_id, None)
                con.execute("DELETE FROM rec WHERE n = ?", row)
                self._count -= 1
        return named

    def _around(self, con: sqlite3.Connection, record_id: str) -> list[str]:
        """The ids of the ``CONTEXT`` episodes before and after an episode in its thread."""
        row = con.execute(
            "SELECT thread, at, n FROM rec WHERE id = ? AND thread IS NOT NULL", (record_id,)
        ).fetchone()
        if row is None:
            return []
        thread, at, n = row
        before = con.execute(
            "SELECT id FROM rec WHERE thread = ? AND (at < ? OR (at = ? AND n < ?)) "
            "ORDER BY at DESC, n DESC LIMIT ?",
            (thread, at, at, n, CONTEXT),
        )
        after = con.execute(
            "SELECT id FROM rec WHERE thread = ? AND (at > ? OR (at = ? AND n > ?)) "
            "ORDER BY at, n LIMIT ?",
            (thread, at, at, n, CONTEXT),
        )
        return [i for (i,) in before] + [i for (i,) in after]

    def _reindex(self, con: sqlite3.Connection, ids: Iterable[str]) -> None:
        """Write the documents of the episodes among ``ids``: their own terms (twice:
        what was said weighs more than its context), the terms of the episodes around
        them in their thread, and those of the facts taken from them."""
        for record_id in ids:
            row = con.execute(
                "SELECT n, own FROM rec WHERE id = ? AND episodic = 1", (record_id,)
            ).fetchone()
            if row is None:
                continue
            linked = con.execute(
                "SELECT r.own FROM link l JOIN rec r ON r.id = l.fact "
                "WHERE l.episode = ? ORDER BY r.n",
                (record_id,),
            )
            around = [
                con.execute("SELECT own FROM rec WHERE id = ?", (i,)).fetchone()[0]
                for i in self._around(con, record_id)
            ]
            body = " ".join([row[1], row[1], *around, *(own for (own,) in linked)])
            self._document(con, row[0], record_id, body)

    def scrub(self) -> None:
        """Leave nothing of removed entries in the file: rebuild the full-text index
        from what it holds now (its old segments still carry removed terms), compact
        the file, and empty the WAL. Deleted rows were zeroed already (secure_delete)."""
        with self.lock:
            self._con.execute("INSERT INTO doc(doc) VALUES ('rebuild')")
            self._con.execute("VACUUM")
            self._con.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reads -----------------------------------------------------------------------

    def ids(self) -> set[str]:
        """The ids of every entry."""
        with self.lock:
            return {i for (i,) in self._con.execute("SELECT id FROM rec")}

    def held(self, ids: Sequence[str]) -> list[str]:
        """The ids among ``ids`` that have an entry, in no particular order.

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "tea")])
        >>> index.held(["a1", "zz"])
        ['a1']
        """
        return [i for (i,) in self._lookup("id", "1", ids)]

    def pinned(self) -> list[str]:
        """The ids of the pinned entries.

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "nut allergy", pinned=True), Entry("b2", "tea")])
        >>> index.pinned()
        ['a1']
        """
        with self.lock:
            return [i for (i,) in self._con.execute("SELECT id FROM rec WHERE pinned = 1")]

    def speakers(self, ids: Sequence[str]) -> dict[str, str]:
        """The speaker of each listed entry that has one.

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "hike", speaker="Ann"), Entry("b2", "tea")])
        >>> index.speakers(["a1", "b2", "zz"])
        {'a1': 'Ann'}
        """
        return dict(self._lookup("id, speaker", "speaker NOTNULL", ids))

    def citing(self, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The entries whose sources name each listed id, in the order they were put;
        an id nothing names is left out.

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("e1", "pune", episodic=True), Entry("f1", "live pune", ("e1",))])
        >>> index.citing(["e1", "f1"])
        {'e1': ('f1',)}
        """
        found: dict[str, list[str]] = {}
        with self.lock:
            for start in range(0, len(ids), 500):  # well under SQLite's variable limit
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                rows = self._con.execute(
                    "SELECT l.episode, l.fact FROM link l JOIN rec r ON r.id = l.fact "
                    f"WHERE l.episode IN ({marks}) ORDER BY r.n",
                    part,
                ).fetchall()
                for named, by in rows:
                    found.setdefault(named, []).append(by)
        return {i: tuple(found[i]) for i in ids if i in found}

    def marked(self, ids: Sequence[str], key: str) -> dict[str, str]:
        """The listed entries whose record's metadata holds ``key`` set to true, with
        their documents (an entry that does not keep its record counts as not marked).

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "x", document="Where?", meta='{"m.asks": true}'),
        ...            Entry("b2", "y", document="Here.", meta="{}")])
        >>> index.marked(["a1", "b2", "zz"], "m.asks")
        {'a1': 'Where?'}
        """
        path = "$." + json.dumps(key)  # a JSON path member, quoted: a key may hold a dot
        rows = self._lookup("id, document", "json_extract(meta, ?) = 1", ids, (path,))
        return {i: document or "" for i, document in rows}

    def vectors(self, ids: Sequence[str]) -> tuple[list[str], Any]:
        """The listed entries' ids that have a vector, and their vectors (a float32
        matrix, one row per id); the others are left out.

        >>> import numpy as np
        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "tea", vector=np.float32([0.6, 0.8]).tobytes())])
        >>> found, rows = index.vectors(["a1", "b2"])
        >>> found, rows.tolist()
        (['a1'], [[0.6000000238418579, 0.800000011920929]])
        """
        return _stacked(self._lookup("id, vec", "vec NOTNULL", ids))

    def all_vectors(self) -> tuple[list[str], Any] | None:
        """Every entry's id and vector (a float32 matrix, one row per id), or None
        when an entry lacks its vector (an index built before it kept them).

        >>> import numpy as np
        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "tea", vector=np.float32([0.6, 0.8]).tobytes())])
        >>> found, rows = index.all_vectors()
        >>> found, rows.shape
        (['a1'], (1, 2))
        >>> index.put([Entry("b2", "coffee")])
        >>> index.all_vectors() is None
        True
        """
        with self.lock:
            rows = self._con.execute("SELECT id, vec FROM rec").fetchall()
        if any(vec is None for _, vec in rows):
            return None
        return _stacked(rows)

    def records(self, ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """``(id, document, metadata JSON)`` of the listed entries that hold their
        record, in no particular order."""
        return [(i, d, m) for i, d, m in self._lookup("id, document, meta", "meta NOTNULL", ids)]

    def all_records(self) -> tuple[list[tuple[str, str, str]], list[str]]:
        """``(id, document, metadata JSON)`` of every entry that holds its record, and
        the ids of the entries that do not (an index built before it kept them).

        >>> index = LexicalIndex(None)
        >>> index.put([Entry("a1", "tea", document="Likes tea.", meta='{"kind": "semantic"}'),
        ...            Entry("b2", "coffee")])
        >>> index.all_records()
        ([('a1', 'Likes tea.', '{"kind": "semantic"}')], ['b2'])
        """
        with self.lock:
            rows = self._con.execute("SELECT id, document, meta FROM rec").fetchall()
        held = [(i, d, m) for i, d, m in rows if m is not None]
        return held, [i for i, _, m in rows if m is None]

    def _lookup(
        self, columns: str, where: str, ids: Sequence[str], params: Sequence[Any] = ()
    ) -> list[Any]:
        """``columns`` of the listed entries that meet ``where`` (its ``?`` bound to
        ``params``)."""
        rows: list[Any] = []
        with self.lock:
            for start in range(0, len(ids), 500):  # well under SQLite's variable limit
                part = list(ids[start : start + 500])
                marks = ",".join("?" * len(part))
                query = f"SELECT {columns} FROM rec WHERE {where} AND id IN ({marks})"
                rows += self._con.execute(query, [*params, *part]).fetchall()
        return rows

    def search(self, terms: Sequence[str], k: int) -> list[tuple[str, float]]:
        """The ``k`` best entries for ``terms`` by BM25, best first, scores in [0, 1].

        A score is ``bm25 / sum(idf(t) * (k1 + 1))`` over the query's terms: BM25's
        bound for a record that holds every term infinitely often, so 1 would mean
        "all of the query, as strongly as BM25 can say it", and scores of one query
        keep BM25's order and ratios. Terms too common to weigh anything are left
        out (see ``COMMON_SHARE``).
        """
        wanted = list(dict.fromkeys(t for t in terms if t))
        with self.lock:
            total = self._count
            if not wanted or not total:
                return []
            postings = self._ready_postings()
            df = {t: self._document_frequency(t, postings) for t in wanted}
            kept = [
                t
                for t in wanted
                if df[t] and not (total >= COMMON_MIN_RECORDS and df[t] > COMMON_SHARE * total)
            ]
            if not kept:
                return []
            bound = sum(_idf(total, df[t]) for t in kept) * (K1 + 1.0)
            if postings is None:
                rows = self._fts5_top(kept, k)
            else:
                documents, tokens = postings.totals()
                idf = {t: _idf(documents, df[t]) for t in kept}
                best = postings.top(idf, tokens / documents if documents else 0.0, k)
                rows = [(record_id, -score) for record_id, score in best]
        return [(record_id, min(1.0, max(0.0, -score / bound))) for record_id, score in rows]

    def _fts5_top(self, kept: Sequence[str], k: int) -> list[tuple[str, float]]:
        """FTS5's own ranking: ids and ``bm25()`` (negative) of the ``k`` best."""
        match = " OR ".join(f'"{t}"' for t in kept)  # terms hold letters and digits only
        # The k best rowids first, then their ids: joining before the sort would
        # look up every match's id (a third of a 100k-record query's time).
        rows: list[tuple[str, float]] = self._con.execute(
            "SELECT rec.id, s FROM (SELECT rowid AS r, bm25(doc) AS s FROM doc "
            "WHERE doc MATCH ? ORDER BY s LIMIT ?) JOIN rec ON rec.n = r ORDER BY s, rec.n",
            (match, k),
        ).fetchall()
        return rows

    # -- postings in memory (see ``postings``) --------------------------------------------

    def _ready_postings(self) -> Postings | None:
        """The postings to rank from, when the index is big enough and they are built;
        starts their build (or rebuild, once they carry many changes) in a thread."""
        if self._count < self.postings_from:
            return None
        postings = self._postings
        limit = max(REBUILD_MIN, REBUILD_SHARE * len(postings)) if postings is not None else 0
        if (postings is None or postings.drift > limit) and self._backlog is None:
            self._start_build()
        if postings is not None and postings.drift > BULK * limit:
            return None
        return postings

    def _start_build(self) -> None:
        """Snapshot FTS5's documents (with the lock held) and build their postings in a
        thread; the changes committed meanwhile are kept and applied before they serve."""
        documents = self._documents()
        backlog: list[Change] = []
        self._backlog = backlog

        def build() -> None:
            try:
                built = Postings.build(documents)
            except Exception as exc:  # FTS5 keeps answering; the next search tries again
                log.warning("langgraph_memory: lexical postings not built (%r)", exc)
                built = None
            with self.lock:
                if self._backlog is not backlog:  # rolled back or closed meanwhile
                    return
                self._backlog = None
                if built is not None:
                    for rowid, entry, document in backlog:
                        built.changed(rowid, entry, document)
                    self._postings = built

        threading.Thread(target=build, name="langgraph-memory-postings", daemon=True).start()

    def build_postings(self) -> None:
        """Build the postings now, in this thread (a search would start it in another);
        for an index of any size."""
        with self.lock:
            self._postings = Postings.build(self._documents())
            self._backlog = None

    def _documents(self) -> list[tuple[int, str, str]]:
        """Every full-text document: its rowid, its terms and its entry's id."""
        rows: list[tuple[int, str, str]] = self._con.execute(
            "SELECT doc.rowid, doc.body, rec.id FROM doc JOIN rec ON rec.n = doc.rowid"
        ).fetchall()
        return rows

    def shares(self, terms: Sequence[str]) -> dict[str, float]:
        """Each term's share of the entries (its document frequency over their count)."""
        with self.lock:
            total = self._count
            postings = self._ready_postings()
            return {
                t: self._document_frequency(t, postings) / total if total else 0.0 for t in terms
            }

    def _document_frequency(self, term: str, postings: Postings | None) -> int:
        if postings is not None:
            return postings.df(term)
        row = self._con.execute("SELECT doc FROM vocab WHERE term = ?", (term,)).fetchone()
        return int(row[0]) if row else 0


def open_derived(
    path: Path | None, *, page_size: int | None = None, pragmas: Sequence[str] = ()
) -> sqlite3.Connection:
    """A connection to a SQLite file of data derived from Chroma (memory when ``path``
    is None), as every such file of the store is opened: never Chroma's database nor a
    file beside it (a second connection to the file Chroma has open corrupted stores);
    WAL, so a crashed process leaves the file whole; no fsync per write (the data is
    repaired from Chroma); deleted rows zeroed and nothing spilled to /tmp. A new
    file's ``page_size`` is set first (WAL fixes it), ``pragmas`` last.

    >>> import tempfile
    >>> open_derived(Path(tempfile.mkdtemp()) / SQLITE_FILE)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: a lexical index never opens Chroma's ...
    """
    if path is not None:
        where = path.resolve()
        if where.name.startswith(SQLITE_FILE) or (where.parent / SQLITE_FILE).exists():
            raise InvalidArgumentError(
                "a lexical index never opens Chroma's database or a file beside it: "
                f"{path}; keep index files in a folder of their own"
            )
    target = ":memory:" if path is None else str(path)
    con = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    try:
        first = [] if page_size is None else [f"page_size={page_size}"]
        standard = ["journal_mode=WAL", "synchronous=NORMAL", "secure_delete=ON"]
        for pragma in [*first, *standard, "temp_store=MEMORY", *pragmas]:
            con.execute(f"PRAGMA {pragma}")
    except BaseException:
        con.close()
        raise
    return con


def _stacked(rows: Sequence[tuple[str, bytes]]) -> tuple[list[str], Any]:
    """``(id, float32 bytes)`` rows as their ids and one matrix, a row per id."""
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.frombuffer(b"".join(vec for _, vec in rows), dtype=np.float32)
    return [i for i, _ in rows], matrix.reshape(len(rows), -1)


def _idf(total: int, df: int) -> float:
    """FTS5's idf: ``log((N - df + 0.5) / (df + 0.5))``, floored at 1e-6 as it does."""
    value = math.log((total - df + 0.5) / (df + 0.5))
    return value if value > 0 else 1e-6


def erase(path: Path) -> None:
    """Delete an index file and its WAL companions, overwritten with zeros first."""
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            size = part.stat().st_size
            with open(part, "r+b") as f:
                f.write(b"\0" * size)
                f.flush()
                os.fsync(f.fileno())
            part.unlink()
