"""Migrating a store by hand, with a backup first: what ``langgraph-memory migrate`` runs.

A store whose migration is small and additive migrates when it is opened (see
``migrations``); any other older store is refused on open until this runs. It:

1. takes the store for itself: an embedded store's directory lock (no app may
   have it open), or, on a Chroma server, nothing yet: stop every app process
   writing to that database first (a cross-process lock is future work);
2. reads the store's format: a newer one is refused; the current one needs
   nothing;
3. with ``dry_run``, reports each step and how many records it would touch, and
   stops there;
4. otherwise backs the store up (``backup``, default beside the store: an
   embedded store's directory is copied whole; a server's collections are copied,
   vectors and all, into a new embedded Chroma directory) and runs the steps,
   each recorded as done only once it completes.

``restore_backup`` puts a server's backup back. An embedded store's backup is a
copy of its directory: move it back into place.

>>> import tempfile
>>> from pathlib import Path
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> d = Path(tempfile.mkdtemp()) / "memory"
>>> MemoryStore(d, embeddings=DeterministicFakeEmbedding(size=8)).close()
>>> report = upgrade(d, dry_run=True)
>>> report.found, report.steps, report.backup
(6, [], None)
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from langgraph_memory.errors import InvalidArgumentError, StoreFormatError
from langgraph_memory.store.chroma import (
    LOCK_FILE,
    SQLITE_FILE,
    DirectoryLock,
    MissingCollectionError,
    RawClient,
    VectorClient,
    client_of,
    copy_collection,
    formats,
    layout,
    migrations,
    persistent,
    recover_staged,
)
from langgraph_memory.store.engine import engine

__all__ = ["MigrationReport", "restore_backup", "upgrade"]


@dataclass(frozen=True)
class MigrationReport:
    """What ``upgrade`` found and did: the format before and after, each step
    (its format, what it does, the records it touched or would touch), the backup."""

    found: int
    format: int
    steps: list[tuple[int, str, int]] = field(default_factory=list)
    backup: Path | None = None
    dry_run: bool = False


def upgrade(
    path: str | os.PathLike[str] | None = None,
    *,
    client: RawClient | None = None,
    backup: str | os.PathLike[str] | None = None,
    dry_run: bool = False,
) -> MigrationReport:
    """Migrate the embedded store at ``path``, or the store on ``client`` (a Chroma
    server), to this release's format, backing it up first into ``backup``
    (default: beside the store). See the module docstring.

    >>> import tempfile
    >>> upgrade(Path(tempfile.mkdtemp()) / "none")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: no memory store at ...
    """
    if (path is None) == (client is None):
        raise InvalidArgumentError("upgrade takes the path of an embedded store or a client")
    if client is not None:
        server = client_of(client)
        return _run("the store on the Chroma server", lambda: server, None, backup, dry_run)
    directory = Path(path).resolve()  # type: ignore[arg-type]
    if not (directory / SQLITE_FILE).exists():
        raise InvalidArgumentError(f"no memory store at {directory}: nothing to migrate")
    if engine.is_open(directory):
        raise StoreFormatError(
            f"the store at {directory} is open in this process: close every MemoryStore "
            "on it before migrating it"
        )
    lock = DirectoryLock.acquire(directory)  # no app process may have it open meanwhile
    try:
        where = f"the store at {directory}"
        return _run(where, lambda: persistent(directory), directory, backup, dry_run)
    finally:
        lock.release()


def _run(
    where: str,
    connect: Callable[[], VectorClient],
    directory: Path | None,
    backup: str | os.PathLike[str] | None,
    dry_run: bool,
) -> MigrationReport:
    source = connect()
    try:
        # A registry whose rebuild was killed after the drop is its whole copy: rename
        # it back first, or the store would look empty (see ``rebuild``).
        recover_staged(source, exclusive=directory is not None)
        try:
            registry = source.open(layout.REGISTRY)
        except MissingCollectionError:
            raise InvalidArgumentError(
                f"{where} holds no memory store: nothing to migrate"
            ) from None
        found = migrations.store_format(registry)
        formats.check_readable(found, where)
        steps = [(s.to, s.what, n) for s, n in migrations.plan(source)]
        if dry_run or not steps:
            return MigrationReport(found, found, steps, None, dry_run)
        target = _backup_path(backup, directory, found)
        if directory is not None:
            source.close()  # copied with Chroma closed: a consistent file
            shutil.copytree(directory, target, ignore=shutil.ignore_patterns(LOCK_FILE))
            source = connect()
        else:
            copy = persistent(target)
            try:
                _copy_collections(source, copy, migrations.store_collections(source))
            finally:
                copy.close()
        done = migrations.migrate(source, where)
        return MigrationReport(found, formats.FORMAT, [(s.to, s.what, n) for s, n in done], target)
    finally:
        if directory is not None:
            source.close()


def restore_backup(backup: str | os.PathLike[str], client: RawClient) -> list[str]:
    """Put a server's backup (a directory ``upgrade`` wrote) back on ``client``:
    the store's collections there are replaced by the backup's. Returns their
    names. Stop every app writing to that database first.

    >>> import tempfile, chromadb
    >>> restore_backup(tempfile.mkdtemp(), chromadb.EphemeralClient())
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: ... holds no langgraph-memory store backup
    """
    source = persistent(Path(backup))
    target = client_of(client)
    try:
        names = migrations.store_collections(source)
        if not names:
            raise InvalidArgumentError(f"{backup} holds no langgraph-memory store backup")
        for name in migrations.store_collections(target):
            target.drop(name)
        _copy_collections(source, target, names)
    finally:
        source.close()
    return names


def _backup_path(backup: str | os.PathLike[str] | None, directory: Path | None, found: int) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"backup-format{found}-{stamp}"
    if backup is not None:
        target = Path(backup).resolve()
    elif directory is not None:
        target = directory.with_name(f"{directory.name}.{name}")
    else:
        target = Path.cwd() / f"langgraph-memory-{name}"
    if target.exists() and any(target.iterdir()):
        raise InvalidArgumentError(
            f"the backup directory {target} is not empty: name a new one (--backup DIR)"
        )
    return target


def _copy_collections(source: VectorClient, target: VectorClient, names: list[str]) -> None:
    """Copy collections whole (metadata, index settings, records with their vectors)."""
    for name in names:
        copy_collection(source.open(name), target, name)
