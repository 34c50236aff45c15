"""The commands of reviews between scopes: list them, approve one, reject one.

A memory moves from a user's scope into an agent's or an org's only through a
review (``MemoryStore.propose``); these commands are the reviewer's side.
Approving into (or rejecting for) an org scope takes ``--admin``: the CLI's
explicit admin call, as ``store.admin()`` is the API's.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory, Review
>>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> m = Memory(id="0a1b2c3d", text="Refunds take 5 days.", scope="user:alice", created_at=t)
>>> r = Review(id="r1", from_scope="user:alice", memory_id=m.id, to_scope="agent:support",
...            memory=m, created_at=t, note="seen twice")
>>> print("\\n".join(review_lines([r])))
[r1] pending  user:alice -> agent:support  (proposed 2026-03-02)
    [0a1b2c3d] Refunds take 5 days.
    note: seen twice
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langgraph_memory.cli.errors import CommandError
from langgraph_memory.cli.location import open_store
from langgraph_memory.cli.output import dumps
from langgraph_memory.errors import AdminRequiredError
from langgraph_memory.scope import Scope
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.records import Review

__all__ = ["approve", "reject", "review_lines", "reviews"]

#: ``--status`` values: a review status, or every review.
STATUSES = ("pending", "approved", "rejected", "all")


def review_lines(found: Sequence[Review]) -> list[str]:
    """Each review: its id (for ``approve`` and ``reject``), status and scopes, then
    the proposed memory, the proposer's note, and what was decided."""
    lines = []
    for r in found:
        lines.append(
            f"[{for_terminal(r.id)}] {r.status.value}  {for_terminal(r.from_scope)} -> "
            f"{for_terminal(r.to_scope)}  (proposed {r.created_at.date().isoformat()})"
        )
        lines.append(f"    [{for_terminal(r.memory_id)}] {for_terminal(r.text)}")
        if r.note:
            lines.append(f"    note: {for_terminal(r.note)}")
        if r.decided_at is not None:
            copy = f", copied as [{for_terminal(r.result_id)}]" if r.result_id else ""
            why = f": {for_terminal(r.reason)}" if r.reason else ""
            lines.append(f"    {r.status.value} {r.decided_at.date().isoformat()}{copy}{why}")
    return lines


def reviews(args: argparse.Namespace) -> int:
    """The reviews waiting for a decision (or, with --status, any), oldest first."""
    to_scope = None if args.to is None else Scope.parse(args.to)
    from_scope = None if args.from_ is None else Scope.parse(args.from_)
    with open_store(args, reads=True) as store:
        found = store.reviews(
            to_scope,
            None if args.status == "all" else args.status,
            from_scope=from_scope,
        )
    if args.json:
        print(dumps([r.to_dict() for r in found]))
    elif not found:
        print(f"no {'' if args.status == 'all' else args.status + ' '}reviews")
    else:
        print("\n".join(review_lines(found)))
    return 0


def _decide(args: argparse.Namespace, approving: bool) -> Review:
    try:
        with open_store(args, admin=args.admin) as store:
            if approving:
                return store.reviews.approve(args.review_id, reason=args.reason)
            return store.reviews.reject(args.review_id, reason=args.reason)
    except AdminRequiredError:
        verb = "approving" if approving else "rejecting"
        raise CommandError(
            f"review {for_terminal(args.review_id)} is for an org scope, which only an admin "
            f"writes: add --admin to confirm {verb} it as one"
        ) from None


def approve(args: argparse.Namespace) -> int:
    """Approve a review: copy its memory into the wider scope it was proposed for."""
    done = _decide(args, approving=True)
    print(
        f"approved review {for_terminal(done.id)}: [{for_terminal(done.memory_id)}] of "
        f"{for_terminal(done.from_scope)} copied into {for_terminal(done.to_scope)} as "
        f"[{for_terminal(done.result_id or '')}]"
    )
    return 0


def reject(args: argparse.Namespace) -> int:
    """Reject a review: nothing is copied; the decision is logged in both scopes."""
    done = _decide(args, approving=False)
    print(
        f"rejected review {for_terminal(done.id)}: [{for_terminal(done.memory_id)}] stays in "
        f"{for_terminal(done.from_scope)} only"
    )
    return 0
