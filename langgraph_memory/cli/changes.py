"""The commands that change a store: import (which may create it) and purge.

A purge asks first, on the terminal: the scope's name must be typed back.
``--yes`` skips the question; without a terminal to ask on (a script, a pipe)
a purge without ``--yes`` is refused before anything is opened. ``--dry-run``
lists what a purge would delete, and deletes nothing.

>>> from types import SimpleNamespace
>>> purge(SimpleNamespace(yes=False, ids=None, dry_run=False))  # no terminal: refused
2
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from langgraph_memory.cli.location import (
    existing_scope,
    held_scope,
    known_ids,
    open_store,
    stopped_journal,
)
from langgraph_memory.cli.output import counted, memory_lines, progress
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.scope import Scope
    from langgraph_memory.store import MemoryStore

__all__ = ["import_", "purge"]


def import_(args: argparse.Namespace) -> int:
    """Restore an export into an empty scope (refuses one that holds data)."""
    from langgraph_memory.store import load_export

    limit = args.max_mb * 1024 * 1024
    try:
        raw = _read_bounded(args.infile, limit)
    except OSError as exc:
        print(f"error: cannot read {args.infile}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    # Untrusted bytes: not UTF-8, too large or too deep becomes one line, exit 1.
    data = load_export(raw, max_bytes=limit, name=for_terminal(args.infile))
    # Every text is embedded again: the long part of a large import.
    with (
        progress(f"importing into {args.scope}"),
        open_store(args, create=True, admin=args.admin) as store,
    ):
        counts = store.import_scope(
            data,
            scope=args.scope,
            allow_embedder_change=args.allow_embedder_change,
            requeue=lambda record: _apply_turn(store, record),
        )
    print(
        f"restored {counted(counts['memories'], 'memory version')} ({counts['active']} active, "
        f"{counts['closed']} closed) and {counted(counts['decisions'], 'decision')} into "
        f"{args.scope}"
        + (f", and {counted(counts['reviews'], 'review')}" if counts["reviews"] else "")
        + (
            f"; applied its {counted(counts['pending_turns'], 'pending turn')} through the "
            "write path"
            if counts["pending_turns"]
            else ""
        )
    )
    return 0


def _read_bounded(infile: str, limit: int) -> bytes:
    """The bytes of ``infile`` ('-': stdin), at most ``limit`` + 1 of them: one byte
    over is enough for ``load_export`` to refuse, and the rest is never read."""
    if infile != "-":
        with open(infile, "rb") as handle:
            return handle.read(limit + 1)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        return bytes(stream.read(limit + 1))
    # A text stream without bytes under it (a test's StringIO): its text, as UTF-8.
    return sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")


def _apply_turn(store: MemoryStore, record: Any) -> None:
    """A pending turn of an export, applied now: no background writer runs here."""
    from langgraph_memory.write import MemoryWriter
    from langgraph_memory.write.journal import JournalEntry

    entry = JournalEntry.from_record(record)
    MemoryWriter(store).write_turn(entry.scope, entry.turn())


def purge(args: argparse.Namespace) -> int:
    """Hard-delete memories (with their versions, log entries and reviews) or a whole
    scope; asks on the terminal unless --yes."""
    if args.ids is not None and not args.ids:
        # `--ids` with nothing after it must not fall through to "the whole scope".
        print(
            "error: --ids names no memory; give the ids to purge (see `show`), "
            "or leave out --ids to purge the whole scope",
            file=sys.stderr,
        )
        return 2
    if args.dry_run:
        return _dry_run(args)
    if not args.yes and not sys.stdin.isatty():
        print(
            "error: purge deletes for good, and there is no terminal to ask on: "
            "add --yes to confirm",
            file=sys.stderr,
        )
        return 2
    with open_store(args, admin=args.admin) as store, stopped_journal(store):
        scope = existing_scope(store, args.scope) if args.ids else held_scope(store, args.scope)
        if args.ids:
            known_ids(store, scope, args.ids)
        if not args.yes and not _confirmed(store, scope, args.ids):
            print("nothing purged", file=sys.stderr)
            return 1
        # Closing the store is part of the work: it rebuilds what was written after
        # the purge.
        with progress(f"purging {scope.key} and compacting the store"):
            counts = store.purge(scope, args.ids)
            store.close()
    print(
        f"purged {counted(counts['memories'], 'memory version')}, "
        f"{counted(counts['decisions'], 'decision')} and {counted(counts['reviews'], 'review')}"
    )
    return 0


def _dry_run(args: argparse.Namespace) -> int:
    """``purge --dry-run``: what the purge would delete, listed; nothing changes."""
    with open_store(args, admin=args.admin, reads=True) as store, stopped_journal(store):
        scope = existing_scope(store, args.scope) if args.ids else held_scope(store, args.scope)
        if args.ids:
            known_ids(store, scope, args.ids)
        print(f"The purge would delete for good {_what(store, scope, args.ids)}:")
        for memory_id in args.ids or [m.id for m in store.active(scope)]:
            print("\n".join(memory_lines(store.history(scope, memory_id))))
        if args.ids is None:
            archived = store.count(scope, archived=True) - store.count(scope)
            if archived:
                print(f"  and {counted(archived, 'archived version')} of memories no longer active")
    print("Nothing was deleted (--dry-run).")
    return 0


def _what(store: MemoryStore, scope: Scope, ids: list[str] | None) -> str:
    """What a purge deletes for good."""
    reviews = len(store.reviews(status=None, from_scope=scope))
    proposed = f", {counted(reviews, 'review')}" if reviews else ""
    if ids:
        what = f"{counted(len(ids), 'memory', 'memories')} of {scope.key}, every version of them"
        return (
            f"{for_terminal(what)}, their decisions{proposed}, the episodes they were taken "
            "from, the reflections drawn from them and what approvals copied from them into "
            "other scopes"
        )
    versions = store.count(scope, archived=True)
    what = f"all of {scope.key}: {counted(versions, 'memory version')}"
    return (
        f"{for_terminal(what)}, every decision{proposed}, the turns queued for it and what "
        "approvals copied from it into other scopes"
    )


def _confirmed(store: MemoryStore, scope: Scope, ids: list[str] | None) -> bool:
    """Ask on the terminal; True when the scope's key is typed back."""
    what = _what(store, scope, ids)
    sys.stderr.write(f"This deletes for good {what}.\nType {for_terminal(scope.key)} to confirm: ")
    sys.stderr.flush()
    return sys.stdin.readline().strip() == scope.key
