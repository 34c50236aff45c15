"""One setting for what a store keeps in memory per person: its cache budget.

A service remembers many people and serves a few at a time. Whatever the store keeps
per scope to serve it fast (Chroma's vector index of each of its collections, the open
lexical index, the collection handles, the rules, BaseStore items' vectors per field)
lives under one budget in megabytes, least recently used out: ``MemoryStore(...,
cache_mb=256)`` or ``$LANGGRAPH_MEMORY_CACHE_MB``. A scope let go is read from disk on
its next use (a cold read); nothing stored is lost.

The budget is shared out by what each thing was measured to cost (384 dimensions): an
embedded Chroma's vector index of a person of a few hundred memories about 2.5 MB in
memory (1,000 collections read with 256 indexes kept took 486 MB more than with 64) and
four open files; an open lexical index about 0.2 MB and up to three files; a scope's
collection handles about 40 KB. Beside what the budget holds, an open store takes about
150 MB of its own (Chroma's database, threads and their heaps), however many people it
serves. Open files count too: at most
half of the process's limit goes to indexes, so a store never fails with "Too many open
files" however many people it reads (at the common limit of 1,024, Chroma's own default
failed past about 200). Chroma keeps whole shards of its cache (64 indexes, 256 files):
a process needs a limit of 1,024 open files or more.

Chroma counts its cache in indexes, not bytes: a person with 100k memories has an index
of about 170 MB, so a store of such people needs a budget sized to them. On a Chroma
server the server holds the indexes: its cache is set in its own configuration
(docs/scaling.md); the budget bounds this process's share.

>>> b = Budget.of(256, open_files=1024)
>>> b.mb, b.indexes, b.lexical
(256, 64, 59)
>>> Budget.of(None, open_files=65536).mb == DEFAULT_CACHE_MB
True
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass

from langgraph_memory.errors import InvalidArgumentError

__all__ = [
    "CACHE_MB_ENV",
    "DEFAULT_CACHE_MB",
    "MIN_CACHE_MB",
    "Budget",
    "cache_mb",
    "resident_bytes",
]

#: The environment variable ``cache_mb=None`` reads.
CACHE_MB_ENV = "LANGGRAPH_MEMORY_CACHE_MB"
#: The budget when none is set: with the model and Python, a process serving any number
#: of people stays under 1 GB (docs/results/users.md).
DEFAULT_CACHE_MB = 256
#: The least budget taken: below it a store keeps too little to serve one person warm.
MIN_CACHE_MB = 16

#: What one of each costs in memory, measured (see the module docstring), in MB.
_INDEX_MB = 2.5
_LEXICAL_MB = 0.2
_HANDLES_MB = 0.04
#: The budget's shares: Chroma's indexes, lexical indexes, handles, vectors per field.
_SHARES = (0.6, 0.1, 0.05, 0.15)
#: The shards of Chroma's index cache (its ``FoyerCacheConfig`` default).
CHROMA_SHARDS = 64
#: Files a store leaves to everything else in the process (sockets, the model, logs).
_FILES_KEPT = 128


def cache_mb(value: int | float | None) -> int:
    """The budget ``cache_mb=`` asks for, in whole megabytes: ``value``, or
    ``$LANGGRAPH_MEMORY_CACHE_MB``, or ``DEFAULT_CACHE_MB``; at least ``MIN_CACHE_MB``.

    >>> cache_mb(512), cache_mb(1)
    (512, 16)
    >>> cache_mb("lots")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: cache_mb='lots' is no number of megabytes: ...
    """
    source = "cache_mb"
    if value is None:
        text = os.environ.get(CACHE_MB_ENV, "").strip()
        if not text:
            return DEFAULT_CACHE_MB
        source, value = f"${CACHE_MB_ENV}", text  # type: ignore[assignment]
    try:
        mb = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        mb = float("nan")
    if isinstance(value, bool) or not mb > 0 or mb == float("inf"):
        raise InvalidArgumentError(
            f"{source}={value!r} is no number of megabytes: pass the memory the store may "
            f"keep for the people it serves, e.g. cache_mb=256 (the default is "
            f"{DEFAULT_CACHE_MB}; at least {MIN_CACHE_MB} is used)"
        )
    return max(MIN_CACHE_MB, int(mb))


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux's ``/proc/self/statm``); None where
    it cannot be read.

    >>> (resident_bytes() or 1) > 0
    True
    """
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def open_file_limit() -> int:
    """The process's limit of open files (its soft limit)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft > 0 else 1024


@dataclass(frozen=True)
class Budget:
    """How many of each per-scope thing a store keeps, from one budget in MB."""

    #: The budget, in MB.
    mb: int
    #: Collections' vector indexes an embedded Chroma keeps in memory.
    indexes: int
    #: Scopes' lexical indexes kept open.
    lexical: int
    #: Scopes whose collection handles are kept.
    handles: int
    #: Scopes whose rules are kept.
    rules: int
    #: Bytes of BaseStore items' vectors per field kept.
    field_bytes: int
    #: Bytes an embedded store's process may grow by before the store starts a new
    #: Chroma client (``Engine.recycle_if_due``): Chroma's share of the budget. What
    #: Chroma keeps of the collections it wrote lately is not bounded by its cache's
    #: count of indexes.
    chroma_bytes: int

    @classmethod
    def of(cls, mb: int | float | None, *, open_files: int | None = None) -> Budget:
        """The budget of ``cache_mb=mb`` (see :func:`cache_mb`), in a process that may
        open ``open_files`` files (default: its limit)."""
        total = cache_mb(mb)
        if open_files is not None and (
            isinstance(open_files, bool) or not isinstance(open_files, int) or open_files < 1
        ):
            raise InvalidArgumentError(
                f"open_files={open_files!r} is no number of files: pass the process's limit "
                "of open files (an int >= 1), or None to read it"
            )
        files = max(0, (open_files if open_files is not None else open_file_limit()) - _FILES_KEPT)
        index_share, lexical_share, handle_share, field_share = _SHARES
        indexes = min(int(total * index_share / _INDEX_MB), files * 3 // 10 // 4)
        # Chroma's cache is 64 shards, each holding its part of the count, rounded up
        # (a count of 8 kept up to 64): a whole number of shards is what it keeps.
        indexes = max(CHROMA_SHARDS, indexes // CHROMA_SHARDS * CHROMA_SHARDS)
        lexical = min(int(total * lexical_share / _LEXICAL_MB), files * 2 // 10 // 3)
        handles = int(total * handle_share / _HANDLES_MB)
        return cls(
            chroma_bytes=int(total * index_share) << 20,
            mb=total,
            indexes=indexes,
            lexical=max(4, lexical),
            handles=max(16, handles),
            rules=max(16, handles),
            field_bytes=int(total * field_share) << 20,
        )
