"""A durable journal of accepted turns, so a crash cannot lose one.

The background writer accepts a turn by appending it here and ``fsync``-ing the
file before ``submit`` returns: once accepted, a turn is on disk. When the turn
is applied (or finally recorded as failed), a *done* record follows. On start,
the turns without a done record are the ones to replay, in their original order.

The file is JSON lines, one record a line (a turn is a ``TurnRecord``, see
``langgraph_memory.turn_record``)::

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

A damaged line elsewhere (a disk error, a hand edit, a record of a newer
version of langgraph-memory-kit, a field of the wrong type) neither stops the
writer for good nor vanishes: opening the journal first keeps a copy of the
file as it is, ``<name>.damaged-<UTC time>`` beside it (fsynced, never deleted),
then replays every line it can read and logs a warning that names the copy and
each skipped line with what is wrong with it; ``Journal.damage`` says the same.
A skipped *done* record only makes its turn replay again, which the writer
detects; a skipped *turn* is in the copy, to be repaired and submitted again by
hand. If the copy cannot be written, opening fails with ``JournalError`` and
changes nothing.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from langgraph_memory.checks import check_instance, check_int
from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidTypeError,
    JournalError,
    StoreFormatError,
    StoreLockedError,
)
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import try_lock
from langgraph_memory.turn_record import VERSION as TURN_VERSION
from langgraph_memory.turn_record import TurnRecord, check_turn_id
from langgraph_memory.write.types import Turn

__all__ = ["Journal", "JournalDamage", "JournalEntry", "JournalError"]

log = logging.getLogger("langgraph_memory")

#: Rewrite the file after this many done records (a done turn is dead weight).
COMPACT_EVERY = 1000


@dataclass(frozen=True)
class JournalDamage:
    """What opening a damaged journal skipped, and where the file as it was is kept.

    ``lines`` holds ``(line number, what is wrong)`` for each skipped line.
    """

    copy: Path
    lines: tuple[tuple[int, str], ...]


class JournalEntry(TurnRecord):
    """One accepted turn, as the journal keeps it: a ``TurnRecord`` (the format,
    shared with an export's ``pending_turns``) that turns back into a ``Turn``.

    >>> from datetime import datetime, timezone
    >>> e = JournalEntry("t1", "user:a", (("user", "I'm vegan."),),
    ...                  datetime(2026, 1, 5, tzinfo=timezone.utc))
    >>> e.turn().user_text(), e.turn().id
    ("I'm vegan.", 't1')
    """

    @classmethod
    def of(cls, scope_key: str, turn: Turn) -> JournalEntry:
        """The entry for ``turn`` in the scope ``scope_key``."""
        messages = tuple(
            (m.role, m.content) if m.name is None else (m.role, m.content, m.name)
            for m in turn.messages
        )
        return cls(turn.id, scope_key, messages, turn.when, turn.thread_id, turn.remember)

    def turn(self) -> Turn:
        """The turn back, with its ids, time, speakers' names and remember request."""
        said = [dict(zip(("role", "content", "name"), m, strict=False)) for m in self.messages]
        return Turn.of(
            said,
            when=self.when,
            turn_id=self.turn_id,
            thread_id=self.thread_id,
            remember=self.remember,
        )


class Journal:
    """An append-only, fsynced file of accepted turns and their done markers.

    Thread-safe. See the module docstring for the format and guarantees.
    """

    def __init__(self, path: str | os.PathLike[str], *, compact_every: int = COMPACT_EVERY):
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidTypeError(
                f"the journal's path must be a str or a path, got {type(path).__name__}"
            )
        check_int(compact_every, "compact_every")
        self.path = Path(path)
        self.compact_every = compact_every
        self._lock = threading.Lock()
        self._pending: dict[str, JournalEntry] = {}  # insertion order = acceptance order
        self._done_since_compact = 0
        self._file: IO[bytes] | None = None
        #: What opening skipped of a damaged file, and where the file was kept (None: no damage).
        self.damage: JournalDamage | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._guard = _lock_file(self.path)
        try:
            content = self.path.read_bytes() if self.path.exists() else b""
            self._pending, skipped = _read(content, self.path)
            if skipped:
                # Kept before the rewrite below replaces the file: a crash in
                # between leaves the original, and the next open does this again.
                self.damage = JournalDamage(_keep_copy(self.path, content, skipped), skipped)
                _warn(self.path, self.damage)
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
        check_instance(entry, TurnRecord, "a journal entry", "pass JournalEntry.of(scope, turn)")
        line = _line(entry.record())
        with self._lock:
            if entry.turn_id in self._pending:
                raise InvalidArgumentError(
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

    def discard(self, scope: ScopeLike) -> int:
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
        key = Scope.of(scope).key
        with self._lock:
            doomed = [i for i, e in self._pending.items() if e.scope == key]
            for turn_id in doomed:
                del self._pending[turn_id]
            if not self._guard.closed:
                self._rewrite()
            return len(doomed)

    # -- a store's companion, when no background writer runs on the journal ------------

    def pending_turns(self, scope: ScopeLike) -> list[dict[str, Any]]:
        """The scope's pending turns as records: what an export of the scope holds
        (``MemoryStore.attach``; a ``BackgroundWriter`` answers for its own journal).

        >>> import tempfile
        >>> from datetime import datetime, timezone
        >>> from pathlib import Path
        >>> j = Journal(Path(tempfile.mkdtemp()) / "turns.jsonl")
        >>> when = datetime(2026, 1, 5, tzinfo=timezone.utc)
        >>> j.append(JournalEntry("t1", "user:alice", (("user", "I'm vegan."),), when))
        >>> [t["id"] for t in j.pending_turns(Scope.parse("user:alice"))]
        ['t1']
        """
        key = Scope.of(scope).key
        return [e.record() for e in self.pending() if e.scope == key]

    def purged(self, scope: ScopeLike, memory_ids: list[str] | None) -> None:
        """After a purge: a whole scope's pending turns go (``discard``); any purge
        rewrites the file, so the words of turns already done leave it."""
        if memory_ids is None:
            self.discard(Scope.of(scope).key)
        else:
            self.compact()

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
            raise JournalError(f"the journal {self.path} is closed; open a new Journal on it")
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


def _read(
    content: bytes, path: Path
) -> tuple[dict[str, JournalEntry], tuple[tuple[int, str], ...]]:
    """The pending turns of a journal file, in order, and its damaged lines.

    A torn last line is ignored, not counted as damage: with no newline after it,
    it is an append a crash cut short, a turn that was never accepted.
    """
    pending: dict[str, JournalEntry] = {}
    skipped: list[tuple[int, str]] = []
    lines = content.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = _record(raw)
            if data.get("t") == "turn":
                if number < len(lines):  # a torn last line is no record (below)
                    _check_not_newer(data, path, number)
                entry = JournalEntry.from_record(data)
                pending[entry.turn_id] = entry
            else:  # a done record, checked by _record
                pending.pop(data["id"], None)
        except JournalError as exc:
            if number == len(lines):  # no newline after it: an append cut short by a crash
                log.warning("langgraph_memory: ignoring a torn last line of the journal %s", path)
                continue
            skipped.append((number, str(exc)))
    return pending, tuple(skipped)


def _record(raw: bytes) -> dict[str, Any]:
    """One line as a turn or done record, its type checked (a turn's fields are not)."""
    try:
        data = json.loads(raw)
    except RecursionError:  # json raises it on deep nesting, long before any limit of ours
        raise JournalError("nested too deeply to be a journal record") from None
    except ValueError as exc:  # bad JSON or bad UTF-8
        raise JournalError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise JournalError(f"a JSON {type(data).__name__}, not a record")
    kind = data.get("t")
    if kind == "done":
        check_turn_id(data.get("id"))
    elif kind != "turn":
        raise JournalError(
            f"record type {kind!r} is unknown (a newer version of langgraph-memory-kit may "
            "have written it)"
        )
    return data


def _check_not_newer(data: Mapping[str, Any], path: Path, number: int) -> None:
    """Refuse a journal holding a turn a newer release wrote: skipped as damage, it
    would leave the file when the journal is rewritten (never read, never written)."""
    version = data.get("v")
    if type(version) is int and version > TURN_VERSION:
        raise StoreFormatError(
            f"the journal {path} holds a turn (line {number}) written by a newer release "
            f"(record version {version}; this release reads up to {TURN_VERSION}): upgrade "
            "langgraph-memory-kit to replay it. Nothing was read or written."
        )


def _keep_copy(path: Path, content: bytes, skipped: Sequence[tuple[int, str]]) -> Path:
    """Write ``content`` to a new ``<name>.damaged-<UTC time>`` beside ``path``, durably."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, 1000):
        copy = path.with_name(f"{path.name}.damaged-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            with open(copy, "xb") as out:
                try:
                    out.write(content)
                    out.flush()
                    os.fsync(out.fileno())
                except OSError:
                    copy.unlink()  # a partial copy keeps nothing; the original is untouched
                    raise
            _fsync_dir(path.parent)
            return copy
        except FileExistsError:
            continue
        except OSError as exc:
            raise JournalError(
                f"the journal {path} has damaged lines ({_listed(skipped)}), and a copy of it "
                f"could not be kept at {copy} ({exc}); nothing was changed. Make room or fix "
                "the permissions there and start again."
            ) from exc
    raise JournalError(f"too many damaged copies of the journal {path} at {stamp}; start again")


def _listed(skipped: Sequence[tuple[int, str]], most: int = 10) -> str:
    shown = "; ".join(f"line {number}: {what}" for number, what in skipped[:most])
    return shown + (f"; and {len(skipped) - most} more" if len(skipped) > most else "")


def _warn(path: Path, damage: JournalDamage) -> None:
    log.warning(
        "langgraph_memory: the journal %s had %d damaged line(s), skipped: %s. Every other "
        "accepted turn is replayed. The file as it was is kept at %s: a turn on a skipped "
        "line can be repaired there and submitted again by hand.",
        path,
        len(damage.lines),
        _listed(damage.lines),
        damage.copy,
    )


def _lock_file(path: Path) -> IO[str]:
    handle = open(path.with_name(path.name + ".lock"), "a+", encoding="utf-8")  # noqa: SIM115
    if not try_lock(handle):
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
