"""An exclusive, per-process lock on an embedded store's directory.

Two processes writing one Chroma ``PersistentClient`` directory have corrupted
it (a later open segfaulted), so the embedded store refuses a second process.
Inside one process several ``MemoryStore`` objects may share a directory:
Chroma itself shares one client per path in a process, and the lock is counted.

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
from langgraph_memory.errors import InvalidArgumentError, StoreLockedError

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
                raise StoreLockedError(
                    f"the memory store at {path} is in use by another process (pid {holder}). "
                    "An embedded store serves one process only: two writers corrupt it. "
                    "To share memory between processes, run a Chroma server "
                    f"(`chroma run --path {path} --port 8000`) and open it with "
                    "MemoryStore(client=chromadb.HttpClient(host='localhost', port=8000))."
                )
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            cls._held[path] = (handle, 1)
            return cls(path)

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
