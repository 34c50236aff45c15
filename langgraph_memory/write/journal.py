"""A durable journal of accepted turns, so a crash cannot lose one.

The background writer accepts a turn by appending it here and ``fsync``-ing the
file before ``submit`` returns: once accepted, a turn is on disk. When the turn
is applied (or finally recorded as failed), a *done* record follows. On start,
the turns without a done record are the ones to replay, in their original order.

The file is JSON lines, one record a line::

    {"t": "turn", "v": 1, "id": "...", "scope": "user:alice",
     "messages": [["user", "I live in Pune."]], "when": "2026-01-05T00:00:00+00:00"}
    {"t": "done", "id": "..."}

Done records are flushed but not fsynced: losing one in a crash only makes the
writer look at the turn again on replay, and the writer checks the store's
decision log before it re-applies a replayed turn (see ``background``).

Opening a journal rewrites it to hold only the pending turns (atomically: a
temporary file, fsync, rename, fsync of the directory). That drops done turns,
and a torn last line left by a crash in the middle of an append (a turn whose
``submit`` never returned, so it was never accepted). The file grows again as
turns come and go, so it is rewritten again every ``compact_every`` done
records and on ``compact()``. A journal file serves one writer: a second
``Journal`` on the same path, in this process or another, raises
``StoreLockedError``.

>>> import tempfile
>>> from datetime import datetime, timezone
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "turns.jsonl"
>>> when = datetime(2026, 1, 5, tzinfo=timezone.utc)
>>> j = Journal(path)
>>> j.append(JournalEntry("t1", "user:alice", (("user", "I live in Pune."),), when))
>>> j.append(JournalEntry("t2", "user:alice", (("user", "I'm vegan."),), when))
>>> j.done("t1")
>>> j.close()
>>> [e.turn_id for e in Journal(path).pending()]
['t2']
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from langgraph_memory.errors import MemoryKitError, StoreLockedError
from langgraph_memory.model import utc
from langgraph_memory.store.lock import _try_lock
from langgraph_memory.write.types import Turn

__all__ = ["Journal", "JournalEntry", "JournalError"]

log = logging.getLogger("langgraph_memory")

VERSION = 1
#: Rewrite the file after this many done records (a done turn is dead weight).
COMPACT_EVERY = 1000


class JournalError(MemoryKitError, ValueError):
    """A journal file that cannot be read back (damaged in its middle)."""


@dataclass(frozen=True)
class JournalEntry:
    """One accepted turn, as the journal keeps it.

    >>> from datetime import datetime, timezone
    >>> e = JournalEntry("t1", "user:a", (("user", "I'm vegan."),),
    ...                  datetime(2026, 1, 5, tzinfo=timezone.utc))
    >>> e.turn().user_text(), e.turn().id
    ("I'm vegan.", 't1')
    """

    turn_id: str
    scope: str
    messages: tuple[tuple[str, str], ...]
    when: datetime

    @classmethod
    def of(cls, scope_key: str, turn: Turn) -> JournalEntry:
        """The entry for ``turn`` in the scope ``scope_key``."""
        return cls(turn.id, scope_key, tuple((m.role, m.content) for m in turn.messages), turn.when)

    def turn(self) -> Turn:
        """The turn back, with its id and time."""
        return Turn.of(self.messages, when=self.when, turn_id=self.turn_id)

    def record(self) -> dict[str, Any]:
        """The JSON-ready record for the file."""
        return {
            "t": "turn",
            "v": VERSION,
            "id": self.turn_id,
            "scope": self.scope,
            "messages": [list(m) for m in self.messages],
            "when": self.when.isoformat(),
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> JournalEntry:
        """Read back what :meth:`record` wrote."""
        return cls(
            turn_id=str(data["id"]),
            scope=str(data["scope"]),
            messages=tuple((str(r), str(c)) for r, c in data["messages"]),
            when=utc(datetime.fromisoformat(str(data["when"]))),
        )


class Journal:
    """An append-only, fsynced file of accepted turns and their done markers.

    Thread-safe. See the module docstring for the format and guarantees.
    """

    def __init__(self, path: str | os.PathLike[str], *, compact_every: int = COMPACT_EVERY):
        if compact_every < 1:
            raise ValueError(f"compact_every must be >= 1, got {compact_every}")
        self.path = Path(path)
        self.compact_every = compact_every
        self._lock = threading.Lock()
        self._pending: dict[str, JournalEntry] = {}  # insertion order = acceptance order
        self._done_since_compact = 0
        self._file: IO[bytes] | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._guard = _lock_file(self.path)
        try:
            self._pending = _read(self.path)
            self._rewrite()
        except BaseException:
            self._guard.close()
            raise

    def pending(self) -> list[JournalEntry]:
        """Accepted turns without a done record, oldest first."""
        with self._lock:
            return list(self._pending.values())

    def append(self, entry: JournalEntry) -> None:
        """Write ``entry`` and fsync it: when this returns, the turn is durable."""
        line = _line(entry.record())
        with self._lock:
            if entry.turn_id in self._pending:
                raise ValueError(
                    f"turn id {entry.turn_id!r} is already in the journal and not done yet; "
                    "give each turn its own id"
                )
            handle = self._open()
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
            self._pending[entry.turn_id] = entry

    def done(self, turn_id: str) -> None:
        """Mark a turn done (flushed, not fsynced: see the module docstring).

        A no-op for an unknown id and after ``close``.
        """
        with self._lock:
            if self._guard.closed or self._pending.pop(turn_id, None) is None:
                return
            handle = self._open()
            handle.write(_line({"t": "done", "id": turn_id}))
            handle.flush()
            self._done_since_compact += 1
            if self._done_since_compact >= self.compact_every:
                self._rewrite()

    def discard(self, scope: str) -> int:
        """Drop the pending turns of ``scope`` and rewrite the file without them
        (a purged scope's words must not survive in the journal); their count.

        >>> import tempfile
        >>> from datetime import datetime, timezone
        >>> from pathlib import Path
        >>> j = Journal(Path(tempfile.mkdtemp()) / "turns.jsonl")
        >>> when = datetime(2026, 1, 5, tzinfo=timezone.utc)
        >>> j.append(JournalEntry("t1", "user:alice", (("user", "My PIN is 1234."),), when))
        >>> j.discard("user:alice"), j.pending(), b"1234" in j.path.read_bytes()
        (1, [], False)
        """
        with self._lock:
            doomed = [i for i, e in self._pending.items() if e.scope == scope]
            for turn_id in doomed:
                del self._pending[turn_id]
            if not self._guard.closed:
                self._rewrite()
            return len(doomed)

    def compact(self) -> None:
        """Rewrite the file with the pending turns only."""
        with self._lock:
            if not self._guard.closed:
                self._rewrite()

    def close(self) -> None:
        """Close the file and release it to another writer; safe to call twice."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
            self._guard.close()

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r}, pending={len(self._pending)})"

    def _open(self) -> IO[bytes]:
        if self._guard.closed:
            raise ValueError(f"the journal {self.path} is closed")
        if self._file is None:
            self._file = open(self.path, "ab")  # noqa: SIM115 - kept open, closed in close()
        return self._file

    def _rewrite(self) -> None:
        """Replace the file by one holding the pending turns, atomically."""
        if self._file is not None:
            self._file.close()
            self._file = None
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as out:
            for entry in self._pending.values():
                out.write(_line(entry.record()))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)  # the rename itself must survive a crash
        self._done_since_compact = 0


def _line(record: Mapping[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _read(path: Path) -> dict[str, JournalEntry]:
    """The pending turns of a journal file, in order; a torn last line is ignored."""
    pending: dict[str, JournalEntry] = {}
    if not path.exists():
        return pending
    lines = path.read_bytes().split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            if data["t"] == "turn":
                entry = JournalEntry.from_record(data)
                pending[entry.turn_id] = entry
            elif data["t"] == "done":
                pending.pop(str(data["id"]), None)
        except (ValueError, KeyError, TypeError) as exc:
            if number == len(lines):  # no newline after it: an append cut short by a crash
                log.warning("langgraph_memory: ignoring a torn last line of the journal %s", path)
                continue
            raise JournalError(
                f"line {number} of the journal {path} cannot be read ({exc}); its accepted "
                "turns cannot be replayed safely. Move the file aside to start afresh, or "
                "repair that line by hand."
            ) from exc
    return pending


def _lock_file(path: Path) -> IO[str]:
    handle = open(path.with_name(path.name + ".lock"), "a+", encoding="utf-8")  # noqa: SIM115
    if not _try_lock(handle):
        handle.close()
        raise StoreLockedError(
            f"the journal {path} is in use by another background writer; a journal "
            "serves one writer at a time: give each writer its own journal file"
        )
    return handle


def _fsync_dir(directory: Path) -> None:
    if os.name == "nt":  # pragma: no cover - directories cannot be opened on Windows
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
