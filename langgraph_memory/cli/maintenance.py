"""The command that tends a store: ``maintain`` (decay, consolidation, reflection).

    langgraph-memory maintain                      # every scope of the store
    langgraph-memory maintain --user alice --dry-run   # what it would change, nothing changed
    langgraph-memory maintain --json               # the report as JSON (for cron and scripts)

It runs ``lifecycle.maintain`` with a chat model from the environment
(``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``), ``--model provider:name``, or the offline
rules (``--model rules``; also what runs when nothing is configured, with a warning),
prints each scope's changes as decision lines and a summary, and exits 1 when a scope
failed. A progress bar shows on a terminal's stderr.

>>> from langgraph_memory.lifecycle.maintain import MaintenanceReport, ScopeReport
>>> print(summary(MaintenanceReport((ScopeReport("user:a"),), dry_run=True, seconds=0.2)))
maintained 1 scope in 0.2 s (dry run: nothing changed): archived by decay 0, merged 0 \
(duplicates archived 0), episodes archived 0, reflections 0
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from langgraph_memory.cli.location import existing_scope, open_store
from langgraph_memory.cli.models import model_failures, model_named
from langgraph_memory.cli.output import decision_line, dumps, progress
from langgraph_memory.records import DecisionOp
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.lifecycle import MaintenanceReport, ScopeReport

__all__ = ["maintain", "scope_lines", "summary"]

#: The decisions a scope's lines show: the changes (a cluster kept apart is logged, not shown).
CHANGES = (DecisionOp.ADD, DecisionOp.UPDATE, DecisionOp.DELETE)


def maintain(args: argparse.Namespace) -> int:
    """Decay, consolidation and reflection over one scope or every scope."""
    from langgraph_memory.lifecycle import maintain as run

    model = model_named(args.model)
    with open_store(args) as store, model_failures():
        scopes = [existing_scope(store, args.scope)] if args.scope else store.scopes()
        with progress("maintaining", total=len(scopes), enabled=not args.json) as advance:
            report = run(
                store,
                scopes[0] if args.scope else None,
                model=model,
                dry_run=args.dry_run,
                on_scope=lambda _: advance(),
            )
    if args.json:
        print(dumps(report.to_dict()))
    else:
        lines = [line for r in report.scopes for line in scope_lines(r)]
        print("\n".join([*lines, summary(report)]))
    return 1 if report.errors else 0


def scope_lines(report: ScopeReport) -> list[str]:
    """A scope's changes: a heading with its counts, then one line per change."""
    counts = {k: v for k, v in report.counts().items() if v}
    changes = [d for d in report.decisions() if d.op in CHANGES]
    if not counts and report.error is None:
        return []
    listed = ", ".join(f"{name.replace('_', ' ')} {n}" for name, n in counts.items())
    lines = [f"{for_terminal(report.scope)}: {listed or 'no change'}"]
    lines += [decision_line(d) for d in changes]
    if report.error is not None:
        lines.append(f"    failed: {for_terminal(report.error)}")
    return lines


def summary(report: MaintenanceReport) -> str:
    """One line: how many scopes, how long, and the totals; then what was skipped."""
    t = report.totals()
    n = len(report.scopes)
    line = (
        f"maintained {n} scope{'s' if n != 1 else ''} in {report.seconds:.1f} s"
        + (" (dry run: nothing changed)" if report.dry_run else "")
        + f": archived by decay {t['decayed']}, merged {t['merged']} (duplicates archived "
        f"{t['duplicates_archived']}), episodes archived {t['episodes_archived']}, "
        f"reflections {t['reflections']}"
    )
    notes = [f"skipped {s}" for s in report.skipped]
    notes += [f"{for_terminal(k)} failed: {for_terminal(v)}" for k, v in report.errors.items()]
    return "\n".join([line, *notes])
