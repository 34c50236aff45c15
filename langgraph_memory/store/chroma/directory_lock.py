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
directory while one of them still writes it. A process refused while the pid
in the file has ended is told that it waits for such a child.

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

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, ClassVar

from langgraph_memory.checks import check_chars
from langgraph_memory.errors import InvalidArgumentError, StoreClosedError, StoreLockedError

LOCK_FILE = "langgraph_memory.lock"


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


def locked_message(path: Path, holder: str) -> str:
    """What a process refused the lock of ``path`` is told; ``holder`` is the pid
    the lock file names. When that process has ended, the lock is held by a child
    it started for a purge (see the module docstring): say so, and what to do.

    >>> print(locked_message(Path("/m"), "unknown"))  # doctest: +ELLIPSIS
    the memory store at /m is in use by another process (pid unknown). ...
    """
    # Whoever has the lock file open, but this process (it opened it to ask).
    holders = processes_holding(path / LOCK_FILE) - {os.getpid()}
    # Ended: gone, or its pid now another process's that does not hold the file.
    ended = holder.isdigit() and (
        has_ended(int(holder)) or (bool(holders) and int(holder) not in holders)
    )
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
    def acquire(cls, directory: str | os.PathLike[str]) -> DirectoryLock:
        """Lock ``directory`` for this process, or raise StoreLockedError."""
        path = Path(directory).resolve()
        _check_directory(path)
        path.mkdir(parents=True, exist_ok=True)
        with cls._guard:
            if path in cls._held:
                handle, count = cls._held[path]
                cls._held[path] = (handle, count + 1)
                return cls(path)
            # The handle outlives this call: closing it is what releases the lock.
            handle = open(path / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115
            if not try_lock(handle):
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                handle.close()
                raise StoreLockedError(locked_message(path, holder))
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            cls._held[path] = (handle, 1)
            return cls(path)

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
