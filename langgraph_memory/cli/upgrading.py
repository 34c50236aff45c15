"""The command that brings a store to this release's format: ``migrate``.

    langgraph-memory migrate --path ./.langgraph_memory --dry-run   # the steps, nothing changed
    langgraph-memory migrate --path ./.langgraph_memory             # backs up, then migrates
    langgraph-memory migrate --server localhost:8000 --backup ./before-upgrade

It runs ``store.upgrade.upgrade``: takes the embedded store's directory lock (no app
may have it open), backs the store up (``--backup DIR``, default beside it), runs the
numbered steps of ``store.migrations`` and prints what each touched.

>>> from langgraph_memory.store import MigrationReport
>>> print(lines(MigrationReport(1, 1, [(2, "stamp the format", 8)], None, dry_run=True)))
format 1 (langgraph-memory-kit 0.1.0 or earlier); this release writes format 6
  step 2: stamp the format: 8 records
dry run: nothing changed
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from langgraph_memory.cli.location import check_is_store, server_client, store_directory
from langgraph_memory.cli.output import progress
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.store import MigrationReport

__all__ = ["lines", "migrate"]


def migrate(args: argparse.Namespace) -> int:
    """Bring a store an earlier release wrote to this release's format (backs it up first)."""
    from langgraph_memory.store import upgrade

    if args.server is None:
        directory = store_directory(args.path)
        check_is_store(directory)
        where = f"the store at {for_terminal(str(directory))}"
        with progress(f"migrating {where}"):
            report = upgrade(directory, backup=args.backup, dry_run=args.dry_run)
    else:
        where = f"the store on the Chroma server at {args.server}"
        print(
            "note: no lock keeps other processes from writing to a Chroma server during a "
            "migration yet: stop every app that uses this database first",
            file=sys.stderr,
        )
        client = server_client(args.server, args.database)
        with progress(f"migrating {where}"):
            report = upgrade(client=client, backup=args.backup, dry_run=args.dry_run)
    print(f"{where}: {lines(report)}")
    return 0


def lines(report: MigrationReport) -> str:
    """What a migration found and did, a line a step."""
    from langgraph_memory.store import FORMAT, RELEASES

    written = RELEASES.get(report.found, "an unknown release")
    head = f"format {report.found} ({written}); this release writes format {FORMAT}"
    if not report.steps:
        return f"{head}: nothing to migrate"
    out = [head] + [f"  step {to}: {what}: {n} records" for to, what, n in report.steps]
    if report.dry_run:
        out.append("dry run: nothing changed")
    else:
        kept = for_terminal(str(report.backup))
        out.append(f"migrated to format {report.format}; the store as it was is kept at {kept}")
    return "\n".join(out)
