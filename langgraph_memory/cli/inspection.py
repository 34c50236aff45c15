"""The commands that read a store: show, history, why, scopes, export.

None of them creates a store or a scope, embeds a text, or loads LangGraph's
graph or a chat model. Each reads what it needs, closes the store, then prints
(``--json``: one JSON document on stdout).

>>> from langgraph_memory.records import Memory
>>> from datetime import datetime, timezone
>>> m = Memory(id="m1", text="Likes tea.", scope="user:a",
...            created_at=datetime(2026, 1, 5, tzinfo=timezone.utc))
>>> print("\\n".join(show_lines([m])))
Facts (1):
  [m1] Likes tea.  (since 2026-01-05)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from langgraph_memory.cli.errors import UsageError
from langgraph_memory.cli.location import (
    existing_scope,
    held_scope,
    known_ids,
    open_store,
    stopped_journal,
)
from langgraph_memory.cli.output import decision_line, dumps, memory_lines, progress
from langgraph_memory.records import EPISODE, Kind, Memory
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.scope import Scope
    from langgraph_memory.store import MemoryStore

T = TypeVar("T")

__all__ = ["export", "history", "output_file", "scopes", "show", "show_lines", "why"]


def show_lines(memories: Sequence[Memory]) -> list[str]:
    """The rules, the facts, then the episodes (what was said), each with its id.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
    >>> rule = Memory(id="0a1b2c3d", text="User wants PRs as drafts.", scope="user:a",
    ...               created_at=t, kind="procedural")
    >>> show_lines([rule])[0]
    'Rules, how to work with this user (1):'
    """
    rules = [m for m in memories if m.kind == Kind.PROCEDURAL]
    facts = [m for m in memories if not m.is_episode and m.kind != Kind.PROCEDURAL]
    episodes = [m for m in memories if m.is_episode]
    if not memories:
        return ["No active memories (archived versions: `langgraph-memory export`)."]
    lines = (
        [f"Rules, how to work with this user ({len(rules)}):", *memory_lines(rules)]
        if rules
        else []
    )
    lines += [f"Facts ({len(facts)}):", *memory_lines(facts)] if facts else []
    if episodes:
        lines += [f"Episodes, what was said ({len(episodes)}):", *memory_lines(episodes)]
    return lines


def show(args: argparse.Namespace) -> int:
    """The active memories of a scope, with their ids."""
    with open_store(args, reads=True) as store:
        memories = store.active(existing_scope(store, args.scope))
    if args.json:
        print(dumps([m.to_dict() for m in memories]))
    elif args.prompt:  # what the model sees; render made it one line per memory already
        from langgraph_memory.read import render

        print(for_terminal(render(memories), multiline=True))
    else:
        print("\n".join(show_lines(memories)))
    return 0


def _about_memory(args: argparse.Namespace, read: Callable[[MemoryStore, Scope, str], T]) -> T:
    """What ``read`` finds about ``args.memory_id``, once its scope and the id are known."""
    with open_store(args, reads=True) as store:
        scope = existing_scope(store, args.scope)
        known_ids(store, scope, [args.memory_id])
        return read(store, scope, args.memory_id)


def history(args: argparse.Namespace) -> int:
    """Every version of one memory."""
    versions = _about_memory(args, lambda store, scope, i: store.history(scope, i))
    if args.json:
        print(dumps([m.to_dict() for m in versions]))
    else:
        print("\n".join(memory_lines(versions)))
    return 0


def why(args: argparse.Namespace) -> int:
    """The decisions that made a memory what it is."""
    decisions = _about_memory(args, lambda store, scope, i: store.decisions(scope, i))
    if args.json:
        print(dumps([d.to_dict() for d in decisions]))
        return 0
    if not decisions:
        print(_no_decision(args))
    for d in decisions:
        when = d.created_at.isoformat() if d.created_at else "?"
        print(f"{when}  turn {for_terminal(d.turn_id or '-')}")
        print(decision_line(d))
        for i, (sid, text) in enumerate(zip(d.shown_ids, d.shown_texts, strict=False)):
            print(f"      shown [{i}] = {for_terminal(sid)}: {for_terminal(text)}")
    return 0


def _no_decision(args: argparse.Namespace) -> str:
    """Why a memory has no decision: what was said is kept as said, and a fact stored
    directly never met the write path's choice."""
    with open_store(args, reads=True) as store:
        memory = store.get_memory(existing_scope(store, args.scope), args.memory_id)
    shown = for_terminal(args.memory_id)
    if memory.is_episode:
        turn = memory.metadata.get("turn_id")
        return (
            f"[{shown}] is an episode: what was said, kept word for word when the turn "
            f"{for_terminal(str(turn)) + ' ' if turn else ''}was written. No decision makes an "
            "episode; the facts taken from it have theirs (`why` on a fact's id)"
        )
    return (
        f"[{shown}] was stored directly (MemoryStore.add, a BaseStore put or an import), "
        "not by the write path: no decision made it"
    )


def scopes(args: argparse.Namespace) -> int:
    """Every scope of the store (users among them), with how much each holds."""
    from langgraph_memory.read import rules_of

    rows: list[dict[str, str | int]] = []
    with open_store(args, reads=True) as store:
        found = store.scopes(args.kind)
        with progress("counting memories", total=len(found), enabled=not args.json) as advance:
            for scope in found:
                active = store.count(scope)
                episodes = store.count(scope, metadata={EPISODE: True})
                rules = len(rules_of(store, scope))  # procedural memories: no fact
                archived = store.count(scope, archived=True) - active
                rows.append(
                    {
                        "scope": scope.key,
                        "facts": active - episodes - rules,
                        "rules": rules,
                        "episodes": episodes,
                        "archived": archived,
                    }
                )
                advance()
    if args.json:
        print(dumps(rows))
    elif not rows:
        print(
            "no scopes: this store holds no memories"
            + (f" of kind {args.kind}" if args.kind else "")
        )
    else:
        print("\n".join(_table(rows)))
    return 0


def _table(rows: list[dict[str, str | int]]) -> list[str]:
    """Rows as columns: the scope left-aligned, the counts right-aligned."""
    header: dict[str, str | int] = {name: name.upper() for name in rows[0]}
    cells = [[for_terminal(str(v)) for v in row.values()] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return [
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]


def output_file(out: str) -> Path:
    """``--out``, checked before anything is read: a file in a directory that exists.

    >>> output_file("/")
    Traceback (most recent call last):
    ...
    langgraph_memory.cli.errors.UsageError: --out / is a directory; name a file, e.g. /export.json
    """
    path = Path(out)
    if path.is_dir():
        raise UsageError(f"--out {out} is a directory; name a file, e.g. {path / 'export.json'}")
    if not path.parent.is_dir():
        raise UsageError(
            f"--out {out}: the directory {path.parent} does not exist; create it first"
        )
    return path


def export(args: argparse.Namespace) -> int:
    """Every version, decision, review and queued turn of a scope, as JSON."""
    out = output_file(args.out) if args.out else None
    with open_store(args, reads=True) as store, stopped_journal(store):
        scope = held_scope(store, args.scope)
        with progress(f"exporting {scope.key}"):
            data = dumps(store.export(scope))
            if out is not None:
                out.write_text(data + "\n", encoding="utf-8")
    if out is None:
        print(data)
    return 0
