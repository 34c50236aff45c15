"""The commands that change a store: import (which may create it) and purge.

>>> from types import SimpleNamespace
>>> purge(SimpleNamespace(yes=False))  # asks for --yes before it opens anything
2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph_memory.cli.location import existing_scope, known_ids, open_store
from langgraph_memory.cli.output import progress
from langgraph_memory.errors import InvalidMemoryError

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["import_", "purge"]


def import_(args: argparse.Namespace) -> int:
    """Restore an export into an empty scope (refuses one that holds data)."""
    try:
        text = sys.stdin.read() if args.infile == "-" else Path(args.infile).read_text("utf-8")
    except OSError as exc:
        print(f"error: cannot read {args.infile}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidMemoryError(f"{args.infile} is not a JSON export: {exc}") from None
    # Every text is embedded again: the long part of a large import.
    with progress(f"importing into {args.scope}"), open_store(args, create=True) as store:
        counts = store.import_scope(
            data,
            scope=args.scope,
            allow_embedder_change=args.allow_embedder_change,
            requeue=lambda record: _apply_turn(store, record),
        )
    print(
        f"restored {counts['memories']} memory versions ({counts['active']} active, "
        f"{counts['closed']} closed) and {counts['decisions']} decisions into {args.scope}"
        + (
            f"; applied its {counts['pending_turns']} pending turns through the write path"
            if counts["pending_turns"]
            else ""
        )
    )
    return 0


def _apply_turn(store: MemoryStore, record: Any) -> None:
    """A pending turn of an export, applied now: no background writer runs here."""
    from langgraph_memory.write import MemoryWriter
    from langgraph_memory.write.journal import JournalEntry

    entry = JournalEntry.from_record(record)
    MemoryWriter(store).write_turn(entry.scope, entry.turn())


def purge(args: argparse.Namespace) -> int:
    """Hard-delete memories (with their versions and log entries) or a whole scope."""
    if not args.yes:
        print("purge deletes for good; add --yes to confirm", file=sys.stderr)
        return 2
    if args.ids is not None and not args.ids:
        # `--ids` with nothing after it must not fall through to "the whole scope".
        print(
            "error: --ids names no memory; give the ids to purge (see `show`), "
            "or leave out --ids to purge the whole scope",
            file=sys.stderr,
        )
        return 2
    # Closing the store is part of the work: it rebuilds what was written after the purge.
    with progress(f"purging {args.scope} and compacting the store"), open_store(args) as store:
        scope = existing_scope(store, args.scope)
        if args.ids:
            known_ids(store, scope, args.ids)
        counts = store.purge(scope, args.ids)
    print(f"purged {counts['memories']} memory versions and {counts['decisions']} decisions")
    return 0
