"""An exclusive, per-process lock on an embedded store's directory.

Two processes writing one Chroma ``PersistentClient`` directory have corrupted
it (a later open segfaulted), so the embedded store refuses a second process.
Inside one process several ``MemoryStore`` objects may share a directory:
Chroma itself shares one client per path in a process, and the lock is counted.

The lock is an ``flock`` on ``langgraph_memory.lock``, which holds the pid of
the process that took it. An ``flock`` belongs to the open file, not to the
process: a child process started with the lock file's descriptor
(:meth:`DirectoryLock.fileno`, passed with ``pass_fds``) holds the lock as long
as it runs, even after the process that took it has died. The children a purge
starts (see ``compaction``) run that way, so no second process can open the
directory while one of them still writes it.

An app restarted after it was killed mid-purge meets such a child: the pid in
the file has ended, and the lock is still held. ``DirectoryLock.acquire(...,
wait=seconds)`` (the store passes ``purge_wait()``: ``$LANGGRAPH_MEMORY_PURGE_WAIT``,
120 s by default) then waits for the child to end, saying so in one line on the
``langgraph_memory`` logger, and takes the lock; past the bound it raises
``StoreLockedError``, which says how long it waited. A lock held by a live
process (a second app) is refused at once, as is one taken by a live process
while the open waited.

Why not ``filelock`` (issue 21 asked; checked against filelock 4.3): its
``release`` calls ``flock(LOCK_UN)`` on the descriptor before closing it, and an
``flock`` belongs to the open file description that a purge child shares through
``pass_fds``, so releasing the parent's lock would release the child's too, and a
second process could open the directory while the child still rewrites it. Here
the lock ends only when the last descriptor closes. filelock also falls back to a
soft lock (a marker file) where ``flock`` is missing, keeps its descriptor
private (the child needs it, and the holder writes its pid through it for the
message a refused process gets), and counts per lock object, not per directory
and process. So the lock stays this module's ~40 lines.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> lock = DirectoryLock.acquire(d)
>>> lock.release()
True
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, ClassVar

from langgraph_memory.checks import check_chars
from langgraph_memory.errors import InvalidArgumentError, StoreClosedError, StoreLockedError

LOCK_FILE = "langgraph_memory.lock"
#: Seconds an open of an embedded store waits for the purge child of an ended process to
#: end (see the module docstring); 0 refuses at once. Unset: ``DEFAULT_PURGE_WAIT``.
PURGE_WAIT_ENV = "LANGGRAPH_MEMORY_PURGE_WAIT"
#: A purge's children take seconds on a small store, minutes on a large one: an open waits
#: out the common case, and past it fails with a message rather than hang for as long as
#: a compaction may take (a service manager's start timeout may be shorter: set the
#: variable below it).
DEFAULT_PURGE_WAIT = 120.0
#: How often a waiting open tries the lock again.
_POLL_S = 0.1

log = logging.getLogger("langgraph_memory")


def try_lock(handle: IO[str]) -> bool:
    """Take an exclusive, non-blocking lock on an open file; False when another holds it.

    >>> import tempfile
    >>> with tempfile.TemporaryFile("w+") as f:
    ...     try_lock(f)
    True
    """
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def processes_holding(path: Path) -> set[int]:
    """The processes with ``path`` open, where ``/proc`` tells (Linux); else none.

    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     os.getpid() in processes_holding(Path(f.name)) or os.name != "posix"
    True
    """
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return set()
    target = str(path)
    found: set[int] = set()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # gone, or not ours to read
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    found.add(int(entry.name))
                    break
            except OSError:  # closed since listed (this process's listing is one)
                continue
    return found


def has_ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie, waiting for its parent to
    collect it, has ended too); False when that cannot be told.

    >>> has_ended(os.getpid())
    False
    """
    if os.name == "nt":  # pragma: no cover - there os.kill(pid, 0) would end the process
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, but another user's; or no such call here
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False  # no /proc: it answered the signal, so it runs
    # The state follows the command name, which is in parentheses and may hold any byte.
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def held_by_child_of_ended(path: Path, holder: str) -> tuple[bool, set[int]]:
    """Whether the lock of ``path``, refused to this process, is held by the child of
    an ended process (``holder``, the pid the lock file names, has ended), and which
    processes have the lock file open (where ``/proc`` tells; this one left out).

    >>> import tempfile
    >>> held_by_child_of_ended(Path(tempfile.mkdtemp()), str(os.getpid()))
    (False, set())
    """
    # Whoever has the lock file open, but this process (it opened it to ask).
    holders = processes_holding(path / LOCK_FILE) - {os.getpid()}
    # Ended: gone, or its pid now another process's that does not hold the file.
    ended = holder.isdigit() and (
        has_ended(int(holder)) or (bool(holders) and int(holder) not in holders)
    )
    return ended, holders


def purge_wait(value: str | None = None) -> float:
    """Seconds an open of an embedded store waits for the purge child of an ended
    process to let go of the directory: ``value``, else ``$LANGGRAPH_MEMORY_PURGE_WAIT``,
    else ``DEFAULT_PURGE_WAIT`` (120). 0 refuses at once, as before the wait existed.

    Args:
        value: a number of seconds >= 0, as text (what the variable holds); None:
            read the variable.

    Returns:
        The seconds, a finite float >= 0.

    Raises:
        InvalidArgumentError: ``value`` (or the variable) is no such number.

    >>> purge_wait("30"), purge_wait("0")
    (30.0, 0.0)
    >>> purge_wait("soon")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: $LANGGRAPH_MEMORY_PURGE_WAIT='soon' ...
    """
    if value is None:
        value = os.environ.get(PURGE_WAIT_ENV)
        if value is None or not value.strip():
            return DEFAULT_PURGE_WAIT
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise InvalidArgumentError(
            f"${PURGE_WAIT_ENV}={value!r} must be a number of seconds >= 0: how long "
            "opening an embedded store waits for a killed purge's child process to finish "
            f"(0: do not wait; unset: {DEFAULT_PURGE_WAIT:g})"
        )
    return seconds


def locked_message(path: Path, holder: str) -> str:
    """What a process refused the lock of ``path`` is told; ``holder`` is the pid
    the lock file names. When that process has ended, the lock is held by a child
    it started for a purge (see the module docstring): say so, and what to do.

    >>> print(locked_message(Path("/m"), "unknown"))  # doctest: +ELLIPSIS
    the memory store at /m is in use by another process (pid unknown). ...
    """
    ended, holders = held_by_child_of_ended(path, holder)
    if not ended:
        return (
            f"the memory store at {path} is in use by another process (pid {holder}). "
            "An embedded store serves one process only: two writers corrupt it. "
            "To share memory between processes, run a Chroma server "
            f"(`chroma run --path {path} --port 8000`) and open it with "
            "MemoryStore(client=chromadb.HttpClient(host='localhost', port=8000))."
        )
    which = f" (pid {', '.join(map(str, sorted(holders)))})" if holders else ""
    return (
        f"the memory store at {path} is locked by a child process{which} of process "
        f"{holder}, which has ended: a purge that process started is finishing its "
        "rebuild and compaction of the store's files in that child, which holds the "
        "lock until it is done (no second process may write the directory meanwhile). "
        "Open the store again when it has ended; it usually takes seconds, minutes "
        "for a large store."
    )


def _say_waiting(path: Path, holder: str, wait: float) -> None:
    # The logger, not ``warnings``: it reports what this start is doing (as the background
    # writer's exit does), and an app that stalls at start must say why even with logging
    # unconfigured (logging's last-resort handler prints a warning to stderr).
    holders = processes_holding(path / LOCK_FILE) - {os.getpid()}
    which = f" (pid {', '.join(map(str, sorted(holders)))})" if holders else ""
    log.warning(
        "langgraph_memory: waiting up to %g s for a child process%s of process %s, which "
        "has ended, to finish the purge it started in the memory store at %s and let go "
        "of its lock ($%s sets how long)",
        wait,
        which,
        holder,
        path,
        PURGE_WAIT_ENV,
    )


def _check_directory(path: Path) -> None:
    """Refuse, before anything is created, a path that cannot hold a store."""
    # A name that is not valid UTF-8 (bytes kept as surrogates) is one Chroma cannot open.
    check_chars(str(path), "the store path", controls=False)
    if path.exists() and not path.is_dir():
        raise InvalidArgumentError(
            f"the store path {path} is a file, not a directory: pass a directory "
            "(it is created if missing)"
        )


@dataclass
class DirectoryLock:
    """A counted handle on the process's lock of one directory."""

    path: Path
    _held: ClassVar[dict[Path, tuple[IO[str], int]]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def acquire(cls, directory: str | os.PathLike[str], *, wait: float = 0.0) -> DirectoryLock:
        """Lock ``directory`` for this process, or raise StoreLockedError.

        ``wait``: seconds to wait when the lock is held by the child of a process
        that has ended (a killed purge's, see the module docstring), with one line
        on the ``langgraph_memory`` logger; a live holder is refused at once.
        """
        path = Path(directory).resolve()
        _check_directory(path)
        path.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        ended: str | None = None  # the pid of the ended holder waited for, once known
        while True:
            holder = cls._try_acquire(path)
            if holder is None:
                return cls(path)
            if holder != ended:  # first refusal, or another process took the lock
                if wait <= 0 or not held_by_child_of_ended(path, holder)[0]:
                    raise StoreLockedError(locked_message(path, holder))
                if ended is None:
                    _say_waiting(path, holder, wait)
                ended = holder
            waited = time.monotonic() - started
            if waited >= wait:
                raise StoreLockedError(
                    f"{locked_message(path, holder)} This open waited {wait:g} s for it "
                    f"(${PURGE_WAIT_ENV} sets how long, in seconds; {DEFAULT_PURGE_WAIT:g} "
                    "by default)."
                )
            time.sleep(min(_POLL_S, wait - waited))

    @classmethod
    def _try_acquire(cls, path: Path) -> str | None:
        """Take (or count) this process's lock of ``path``: None; else the pid the lock
        file names (``unknown`` when it names none)."""
        with cls._guard:
            if path in cls._held:
                handle, count = cls._held[path]
                cls._held[path] = (handle, count + 1)
                return None
            # The handle outlives this call: closing it is what releases the lock.
            handle = open(path / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115
            if not try_lock(handle):
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                handle.close()
                return holder
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            cls._held[path] = (handle, 1)
            return None

    def fileno(self) -> int:
        """The lock file's descriptor: a child process started with it
        (``pass_fds``) holds the lock until it ends, whatever happens to this one.

        >>> import tempfile
        >>> lock = DirectoryLock.acquire(tempfile.mkdtemp())
        >>> lock.fileno() >= 0, lock.release()
        (True, True)
        """
        with self._guard:
            entry = self._held.get(self.path)
            if entry is None:
                raise StoreClosedError(
                    f"the lock on {self.path} was released; acquire it again to use it"
                )
            return entry[0].fileno()

    def release(self) -> bool:
        """Give back this handle; True when it was the last one and the lock is gone."""
        with self._guard:
            entry = self._held.get(self.path)
            if entry is None:
                return False
            handle, count = entry
            if count > 1:
                self._held[self.path] = (handle, count - 1)
                return False
            del self._held[self.path]
            handle.close()  # closing the file releases the flock
            return True
