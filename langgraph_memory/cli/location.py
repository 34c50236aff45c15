"""Where a command's store is: an embedded directory (``--path``) or a Chroma
server (``--server HOST:PORT``), opened with an error that says what to do when
it cannot be.

A command that only reads never creates a store: a mistyped ``--path`` is an
error, not a new empty store. The embedded store serves one process; while an
app holds it, the error says how to serve it with ``chroma run`` instead. On a
server, a command that only reads says it needs no cross-process lock (it stores
nothing twice), so only a command that writes warns that the server has none.

>>> parse_server("localhost:8000")
Server(host='localhost', port=8000, ssl=False)
>>> parse_server("https://chroma.example.com")
Server(host='chroma.example.com', port=443, ssl=True)
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from langgraph_memory.cli.errors import CommandError
from langgraph_memory.errors import MemoryNotFoundError, StoreLockedError
from langgraph_memory.scope import Scope
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore, RawClient

__all__ = [
    "Server",
    "check_is_store",
    "existing_scope",
    "held_scope",
    "known_ids",
    "open_store",
    "parse_server",
    "server_client",
    "stopped_journal",
    "store_directory",
]

#: The file every embedded Chroma directory holds: a directory without it is no store.
CHROMA_DATABASE = "chroma.sqlite3"
#: The port ``chroma run`` listens on unless told otherwise.
CHROMA_PORT = 8000


@dataclass(frozen=True)
class Server:
    """A Chroma server's address."""

    host: str
    port: int
    ssl: bool

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_server(text: str) -> Server:
    """``--server``: ``HOST:PORT``, ``HOST`` (port 8000) or an ``http(s)://`` URL.

    >>> parse_server("127.0.0.1")
    Server(host='127.0.0.1', port=8000, ssl=False)
    >>> parse_server("[::1]:9000")
    Server(host='::1', port=9000, ssl=False)
    >>> parse_server("localhost:eighty")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'localhost:eighty' is not HOST:PORT (e.g. localhost:8000)
    """
    parts = urlsplit(text if "://" in text else f"//{text}")
    wrong = argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. localhost:8000)")
    if parts.scheme not in ("", "http", "https") or not parts.hostname or parts.path:
        raise wrong
    try:
        port = parts.port
    except ValueError:
        raise wrong from None
    ssl = parts.scheme == "https"
    return Server(parts.hostname, port or (443 if ssl else CHROMA_PORT), ssl)


def store_directory(path: str | None) -> Path:
    """The embedded store's directory: ``--path``, else the store's own default.

    >>> store_directory("/tmp/memory")
    PosixPath('/tmp/memory')
    """
    from langgraph_memory.store import DEFAULT_PATH, PATH_ENV

    return Path(path or os.environ.get(PATH_ENV) or DEFAULT_PATH).absolute()


def open_store(
    args: argparse.Namespace, *, create: bool = False, admin: bool = False, reads: bool = False
) -> MemoryStore:
    """The store the command line names; ``create=False`` (every command that only
    reads, and purge) refuses a directory that holds no store instead of making one.
    ``admin=True`` (``--admin``): its admin view, which may write org scopes.
    ``reads=True``: the command only reads (see the module docstring)."""
    store = _open(args, create=create, reads=reads)
    if not admin:
        return store
    view = store.admin()
    store.close()  # the view holds the store open
    return view


def _open(args: argparse.Namespace, *, create: bool, reads: bool) -> MemoryStore:
    from langgraph_memory.store import IN_PROCESS, QUEUE_URL_ENV, MemoryStore

    if args.server is not None:
        client = server_client(args.server, args.database)
        if reads and not os.environ.get(QUEUE_URL_ENV):  # a queue: its Postgres locks
            # Nothing this process does needs a cross-process lock: say so, rather than
            # warn the user to set one for every command that shows what is stored.
            return MemoryStore(client=client, lock=IN_PROCESS)
        return MemoryStore(client=client)
    directory = store_directory(args.path)
    if not create:
        check_is_store(directory)
    try:
        return MemoryStore(directory)
    except StoreLockedError as exc:
        # The store's message says how to serve the directory with `chroma run`;
        # what this command then needs is --server.
        raise CommandError(
            f"{exc} Then run this command with --server localhost:{CHROMA_PORT} "
            "(or stop the app first)."
        ) from None


def check_is_store(directory: Path) -> None:
    """Refuse, with what to check, a directory that holds no embedded store."""
    shown = for_terminal(str(directory))
    if directory.is_file():
        raise CommandError(f"the store path {shown} is a file, not a directory: check --path")
    if not directory.is_dir():
        raise CommandError(
            f"no memory store at {shown}: check --path (default: $LANGGRAPH_MEMORY_PATH, "
            "else ./.langgraph_memory), or pass --server HOST:PORT for a Chroma server"
        )
    if not (directory / CHROMA_DATABASE).is_file():
        raise CommandError(
            f"{shown} is not a memory store (it holds no {CHROMA_DATABASE}): check --path"
        )


def server_client(server: Server, database: str | None) -> RawClient:
    """A client of the Chroma server (and database), or a CommandError saying why not."""
    from langgraph_memory.store import MissingCollectionError, chroma_server

    try:
        return chroma_server(server.host, server.port, ssl=server.ssl, database=database)
    except MissingCollectionError as exc:  # the database (or tenant) is not on that server
        raise CommandError(f"the Chroma server at {server}: {exc} Check --database.") from None
    except ValueError as exc:  # nothing answered, or something that is not Chroma
        raise CommandError(
            f"cannot reach a Chroma server at {server} ({exc}): start one with "
            f"`chroma run --path DIR --port {server.port}`, or check --server"
        ) from None


@contextmanager
def stopped_journal(store: MemoryStore) -> Iterator[None]:
    """The background journal a writer left in the store's directory, attached to
    the store while a command runs: the turns it accepted and never applied (it
    stopped first) are in an export, and a purge takes them out of the file.

    An embedded store serves one process, so while a command holds it no writer
    runs on it; a writer on a server keeps its journal where its app runs.
    """
    from langgraph_memory.store import JOURNAL_FILE

    path = None if store.path is None else store.path / JOURNAL_FILE
    if path is None or not path.exists():
        yield
        return
    from langgraph_memory.store import internals
    from langgraph_memory.write.journal import Journal

    journal = Journal(path)
    try:
        internals(store).attach(journal)
        yield
    finally:
        journal.close()


def existing_scope(store: MemoryStore, key: str) -> Scope:
    """``key``'s scope, or a CommandError naming the scopes the store does hold
    (a mistyped user id reads as an unknown scope, not as one with no memories)."""
    scope = Scope.parse(key)
    if scope in store.scopes(scope.kind):
        return scope
    held = [s.key for s in store.scopes()]
    if not held:
        raise CommandError(f"{for_terminal(scope.key)} holds nothing: this store is empty")
    listed = ", ".join(held[:10]) + (f" and {len(held) - 10} more" if len(held) > 10 else "")
    raise CommandError(
        f"{for_terminal(scope.key)} holds nothing in this store; it holds "
        f"{for_terminal(listed)} (`langgraph-memory scopes` lists them)"
    )


def held_scope(store: MemoryStore, key: str) -> Scope:
    """``key``'s scope when it holds data, or only turns queued in a journal (see
    :func:`stopped_journal`); else the error of :func:`existing_scope`."""
    try:
        return existing_scope(store, key)
    except CommandError:
        from langgraph_memory.store import internals

        scope = Scope.parse(key)
        if internals(store).pending_turns(scope):
            return scope
        raise


def known_ids(store: MemoryStore, scope: Scope, ids: list[str]) -> None:
    """Raise a CommandError naming every id that is no memory of ``scope``."""
    missing = []
    for memory_id in ids:
        try:
            store.get_memory(scope, memory_id)
        except MemoryNotFoundError:
            missing.append(memory_id)
    if missing:
        named = ", ".join(for_terminal(repr(i)) for i in missing)
        raise CommandError(
            f"no memory {named} in {for_terminal(scope.key)}: "
            f"`langgraph-memory show --scope {for_terminal(scope.key)}` lists its ids"
        )
