"""A queue of deferred turns in Postgres, shared by every process that writes one memory.

A ``BackgroundWriter`` keeps its queue in its own process by default (in memory, with a
journal file on this machine's disk). A store on a Chroma server built with
``MemoryStore(client=..., queue=URL)`` (or with ``$LANGGRAPH_MEMORY_QUEUE_URL`` set) has
its deferred turns in a Postgres table instead: every ``BackgroundWriter`` on such a
store puts them there and drains them from there, so that:

- **any process drains any scope.** A turn accepted by one app process is written by
  whichever worker of any process takes it; one that dies before writing it leaves the
  turn in the table, and another writes it.
- **in order per scope, one at a time.** A worker takes only the oldest turn of a scope
  (its head), and only while it holds the scope's cross-process lock (``MemoryStore(
  lock=...)``), so two workers never write one scope at once and a scope's turns apply
  in the order they were accepted. Turns of one scope are numbered in the order their
  inserts commit (each insert takes a transaction-level advisory lock on the scope).
- **exactly once.** A worker claims the head with ``SELECT ... FOR UPDATE SKIP
  LOCKED`` and keeps that row locked, in an open transaction, while it writes; when the
  write is done it deletes the row and commits. A worker that dies mid-write loses its
  session, Postgres rolls the claim back, and the next worker finds the turn again: the
  write path then skips the facts the decision log already has for that turn id (the
  same replay check as the journal's; see ``background``).
- **purges reach it.** The store owns the queue, so a purge in any process (the CLI's
  too, where no writer runs) deletes the scope's queued turns, and an export lists them.
  The purge deletes them while it holds the scope's lock, before it erases anything:
  no worker holds them then (workers claim under that lock), and no turn accepted
  before the purge can be written after it.

One table serves many stores: rows carry the store's data name (a Chroma server's
tenant and database), and a worker drains only its own store's turns. The table and its
schema version are made on first use (``SCHEMA``); a table written by a newer release
is refused, never read.

Connections: one per worker thread (its claim's transaction), one for submits and
queries, and one that listens for new turns (``LISTEN``), so idle workers wake when a
turn arrives in any process rather than at their next poll.

The queue needs writes serialised across processes, so a store with a queue and no
``lock=`` takes its scope locks from the queue's own Postgres (``MemoryStore``).
Requires the ``postgres`` extra (``pip install 'langgraph-memory-kit[postgres]'``).

>>> import os
>>> os.environ.pop(QUEUE_URL_ENV, None) and None
>>> queue_url(None) is None  # no URL: this process's own queue
True
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    QueueConfigError,
    QueueError,
    StoreFormatError,
)
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store.engine.scope_locks import import_extra, redacted
from langgraph_memory.turn_record import TurnRecord

__all__ = ["QUEUE_URL_ENV", "SCHEMA", "Claim", "SharedQueue", "queue_url"]

log = logging.getLogger("langgraph_memory")

QUEUE_URL_ENV = "LANGGRAPH_MEMORY_QUEUE_URL"
#: The table layout this release writes; a table stamped with a later one is refused.
SCHEMA = 1
TABLE = "langgraph_memory_turns"
VERSION_TABLE = "langgraph_memory_turns_schema"
#: Postgres NOTIFY channel: a payload names the data name whose queue got a turn.
CHANNEL = "langgraph_memory_turns"

_WHAT_TO_PASS = (
    "pass queue='postgresql://user:password@host:5432/db' (a table there, shared by every "
    "process), or leave queue= and $LANGGRAPH_MEMORY_QUEUE_URL unset for this process's "
    "own queue and journal"
)

_CREATE = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    seq bigserial PRIMARY KEY,
    data_name text NOT NULL,
    scope text NOT NULL,
    turn_id text NOT NULL,
    record jsonb NOT NULL,
    accepted_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (data_name, turn_id)
);
CREATE INDEX IF NOT EXISTS {TABLE}_by_scope ON {TABLE} (data_name, scope, seq);
CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version int NOT NULL);
"""

# The oldest turn of each scope (its head), oldest first, skipping heads another
# worker has claimed (locked) and the scopes this process is busy with already.
_PEEK = f"""
SELECT t.scope FROM {TABLE} t
WHERE t.data_name = %(data)s AND t.scope <> ALL(%(skip)s)
  AND t.seq = (SELECT min(u.seq) FROM {TABLE} u
               WHERE u.data_name = t.data_name AND u.scope = t.scope)
ORDER BY t.seq
LIMIT 1
FOR UPDATE SKIP LOCKED
"""

# Not SKIP LOCKED: the claimer holds the scope's lock, so only a peek can hold the head,
# for an instant; skipping it would take the scope's second turn before its first.
_CLAIM = f"""
SELECT seq, record FROM {TABLE}
WHERE data_name = %(data)s AND scope = %(scope)s
ORDER BY seq
LIMIT 1
FOR UPDATE
"""


def queue_url(queue: str | None) -> str | None:
    """The shared queue's URL: ``queue``, or ``$LANGGRAPH_MEMORY_QUEUE_URL`` when it is
    None; None when neither is set. A URL of another kind raises ``QueueConfigError``.

    >>> queue_url("postgresql://app@db:5432/memory")
    'postgresql://app@db:5432/memory'
    >>> queue_url("mysql://x")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.QueueConfigError: queue='mysql://x' is not a queue URL ...
    """
    if queue is None:
        queue = os.environ.get(QUEUE_URL_ENV) or None
        if queue is None:
            return None
    if not isinstance(queue, str):
        raise InvalidTypeError(
            f"queue must be a URL (str), got {type(queue).__name__}: {_WHAT_TO_PASS}"
        )
    parts = urlsplit(queue)
    if parts.scheme.lower() not in ("postgresql", "postgres") or not parts.netloc:
        raise QueueConfigError(
            f"queue={redacted(queue)!r} is not a queue URL this kit knows: {_WHAT_TO_PASS}"
        )
    return queue


@dataclass
class Claim:
    """The head turn of a scope (a turn record), held by a worker until its block ends:
    deleted then, unless the worker calls ``give_back``."""

    seq: int
    record: dict[str, Any]
    kept: bool = False

    def give_back(self) -> None:
        """Leave the turn in the queue, unwritten, for the next worker."""
        self.kept = True


class SharedQueue:
    """The queue of one store's deferred turns in a Postgres table (module docstring).

    Thread-safe: each worker thread claims on a connection of its own (``claims``).
    """

    def __init__(self, url: str, data_name: str) -> None:
        if not isinstance(data_name, str) or not data_name:
            raise InvalidArgumentError(
                "a shared queue serves the store of one Chroma server's tenant and database; "
                f"got no data name ({data_name!r})"
            )
        self.psycopg = import_extra("psycopg", "postgres", "shared queue")
        self.url = url
        self.data_name = data_name
        # Listeners compare it with NOTIFY payloads; a hash keeps the payload short.
        self._channel_key = hashlib.blake2b(data_name.encode(), digest_size=8).hexdigest()
        self._guard = threading.Lock()  # the shared connection: one statement at a time
        self._closed = False
        self._conn = self.connect()  # a bad URL fails here, not at the first turn
        self._prepare()

    def describe(self) -> str:
        """Where the queue is, for messages (no password)."""
        return f"the Postgres queue at {redacted(self.url)}"

    def connect(self) -> Any:
        """A new autocommit connection to the queue's database."""
        try:
            return self.psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except self.psycopg.Error as exc:
            raise QueueConfigError(
                f"{self.describe()} does not answer ({exc}): start it or fix the URL; "
                f"{_WHAT_TO_PASS}"
            ) from exc

    def _prepare(self) -> None:
        """Make the table (once, under a lock: processes starting together race on
        CREATE), stamp its schema version, and refuse one a newer release stamped."""
        with self._guard, self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_key("schema"),))
            self._conn.execute(_CREATE)
            row = self._conn.execute(f"SELECT max(version) FROM {VERSION_TABLE}").fetchone()
            version = row[0] if row else None
            if version is None:
                self._conn.execute(f"INSERT INTO {VERSION_TABLE} VALUES (%s)", (SCHEMA,))
            elif version > SCHEMA:
                raise StoreFormatError(
                    f"{self.describe()} holds a queue table of schema {version}, written by a "
                    f"newer release (this one reads up to {SCHEMA}): upgrade "
                    "langgraph-memory-kit on every process that shares it. Nothing was read "
                    "or written."
                )

    # -- submitting and asking ----------------------------------------------------------

    def put(self, entry: TurnRecord) -> int:
        """Queue one turn, committed before this returns; its sequence number."""
        from psycopg.types.json import Jsonb

        try:
            with self._guard:
                conn = self._shared()
                with conn.transaction():
                    # Per scope, seq order = commit order: a worker never sees a later
                    # turn of the scope before an earlier one is committed.
                    conn.execute(
                        "SELECT pg_advisory_xact_lock(%s)",
                        (_key(f"{self.data_name} {entry.scope}"),),
                    )
                    row = conn.execute(
                        f"INSERT INTO {TABLE} (data_name, scope, turn_id, record) "
                        "VALUES (%s, %s, %s, %s) RETURNING seq",
                        (self.data_name, entry.scope, entry.turn_id, Jsonb(entry.record())),
                    ).fetchone()
                    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self._channel_key))
        except self.psycopg.errors.UniqueViolation:
            raise InvalidArgumentError(
                f"turn id {entry.turn_id!r} is already queued; give each turn its own id"
            ) from None
        except (self.psycopg.Error, QueueConfigError) as exc:
            raise QueueError(
                f"{self.describe()} did not accept turn {entry.turn_id} ({exc}); nothing was "
                "queued: retry the submit"
            ) from exc
        return int(row[0])

    def _shared(self) -> Any:
        """The connection for submits and queries (caller holds ``_guard``), opened
        again after the server dropped it (a restart)."""
        if self._closed:
            raise QueueError(f"{self.describe()} was closed with its store; open the store again")
        if self._conn.closed or self._conn.broken:
            self._conn = self.connect()
        return self._conn

    def _query(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        try:
            with self._guard:
                return list(self._shared().execute(sql, params).fetchall())
        except (self.psycopg.Error, QueueConfigError) as exc:
            raise QueueError(f"{self.describe()} did not answer ({exc}); try again") from exc

    def depth(self) -> int:
        """Turns of this store queued or being written now, by every process."""
        rows = self._query(f"SELECT count(*) FROM {TABLE} WHERE data_name = %(d)s", self._d())
        return int(rows[0][0])

    def last(self, scope: str | None = None) -> int:
        """The highest sequence number queued now (of ``scope``), 0 when none."""
        where = "" if scope is None else " AND scope = %(s)s"
        rows = self._query(
            f"SELECT coalesce(max(seq), 0) FROM {TABLE} WHERE data_name = %(d)s{where}",
            {**self._d(), "s": scope},
        )
        return int(rows[0][0])

    def left(self, seqs: Collection[int]) -> set[int]:
        """Which of ``seqs`` are still queued (not written yet)."""
        if not seqs:
            return set()
        rows = self._query(
            f"SELECT seq FROM {TABLE} WHERE data_name = %(d)s AND seq = ANY(%(q)s)",
            {**self._d(), "q": list(seqs)},
        )
        return {int(r[0]) for r in rows}

    def any_left(self, scope: str, upto: int) -> bool:
        """Whether a turn of ``scope`` numbered ``upto`` or lower is still queued."""
        rows = self._query(
            f"SELECT 1 FROM {TABLE} WHERE data_name = %(d)s AND scope = %(s)s "
            "AND seq <= %(u)s LIMIT 1",
            {**self._d(), "s": scope, "u": upto},
        )
        return bool(rows)

    def pending_turns(self, scope: ScopeLike) -> list[dict[str, Any]]:
        """The scope's queued turns as turn records, oldest first (the one a worker is
        writing too): what an export of the scope keeps of them."""
        rows = self._query(
            f"SELECT record FROM {TABLE} WHERE data_name = %(d)s AND scope = %(s)s ORDER BY seq",
            {**self._d(), "s": Scope.of(scope).key},
        )
        return [dict(r[0]) for r in rows]

    def purged(self, scope: ScopeLike, memory_ids: list[str] | None) -> None:
        """A store's companion hears of purges after them; the queue needs no word:
        the purge deleted the scope's turns under its lock (``discard``)."""

    def discard(self, scope: str) -> int:
        """Delete the scope's queued turns; their count. The purge calls it holding the
        scope's lock, so no worker holds them (workers claim under that lock)."""
        try:
            with self._guard:
                cursor = self._shared().execute(
                    f"DELETE FROM {TABLE} WHERE data_name = %s AND scope = %s",
                    (self.data_name, scope),
                )
                return int(cursor.rowcount)
        except (self.psycopg.Error, QueueConfigError) as exc:
            raise QueueError(
                f"the queued turns of {scope} could not be deleted from {self.describe()} "
                f"({exc}): nothing was purged; purge again when it answers"
            ) from exc

    def _d(self) -> dict[str, Any]:
        return {"d": self.data_name}

    # -- the workers ------------------------------------------------------------------------

    def peek(self, conn: Any, skip: Collection[str]) -> str | None:
        """The scope of the oldest head no worker holds, skipping ``skip``; None when
        there is none. Holds nothing: the worker claims under the scope's lock."""
        with conn.transaction():
            row = conn.execute(_PEEK, {"data": self.data_name, "skip": list(skip)}).fetchone()
        return None if row is None else str(row[0])

    @contextmanager
    def claim(self, conn: Any, scope: str) -> Iterator[Claim | None]:
        """Hold the scope's head turn on ``conn`` (None: nothing queued); call it holding
        the scope's lock, as every worker does. The row is
        deleted when the block ends, unless given back (``Claim.give_back``) or the block
        raises."""
        with conn.transaction():
            row = conn.execute(_CLAIM, {"data": self.data_name, "scope": scope}).fetchone()
            if row is None:
                yield None
                return
            claim = Claim(int(row[0]), dict(row[1]))
            yield claim
            if not claim.kept:
                conn.execute(f"DELETE FROM {TABLE} WHERE seq = %s", (claim.seq,))

    def listen(self, conn: Any) -> None:
        """Subscribe ``conn`` to the channel on which every submit announces a turn."""
        conn.execute(f"LISTEN {CHANNEL}")

    def announced(self, conn: Any, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds on a listening ``conn``; whether a turn of
        this store was announced meanwhile."""
        heard = False
        for note in conn.notifies(timeout=timeout, stop_after=1):
            heard = heard or note.payload == self._channel_key
        return heard

    def close(self) -> None:
        """Close the shared connection (with the store); workers close their own."""
        with self._guard:
            self._closed = True
            self._conn.close()

    def __repr__(self) -> str:
        return f"SharedQueue({redacted(self.url)!r}, data={self.data_name!r})"


def _key(what: str) -> int:
    """A stable signed 64-bit advisory lock key (a bigint) for ``what``."""
    digest = hashlib.blake2b(f"langgraph_memory queue {what}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
