"""The ``langgraph-memory`` command: a demo, a chat, and tools to inspect a store.

    langgraph-memory demo                      # a scripted multi-session conversation
    langgraph-memory chat --user alice         # talk to an agent that remembers you
    langgraph-memory show --user alice         # what it remembers about you
    langgraph-memory history --user alice ID   # every version of one memory
    langgraph-memory why --user alice ID       # the decisions behind it
    langgraph-memory export --user alice       # everything, as JSON
    langgraph-memory import --user alice --in F  # restore an export into an empty scope
    langgraph-memory purge --user alice --yes  # hard-delete (all, or --ids ...)

>>> parser().parse_args(["show", "--user", "alice"]).scope
'user:alice'
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph_memory.model import Decision, Memory, Status
from langgraph_memory.text_safety import for_terminal

# Each command imports what it uses, when it runs: `--help` and a mistyped command
# answer at once instead of loading Chroma, LangGraph and the embedder first.
if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

#: The demo: a move between cities, a restated preference, a sister's city, a
#: plan, and a question nothing answers; four sessions months apart.
DEMO: list[tuple[str, list[str]]] = [
    (
        "2026-01-05T09:00",
        ["Hi! I'm Priya.", "I live in Delhi and I work at Infosys.", "I prefer metric units."],
    ),
    ("2026-02-10T18:30", ["My sister lives in Mumbai.", "I prefer metric units, by the way."]),
    ("2026-06-01T08:15", ["I moved to Pune last week.", "I might move to Bangalore next year."]),
    ("2026-06-15T20:00", ["Where do I live now?", "What's my favourite colour?"]),
]


def _model_line() -> str:
    from langgraph_memory.llm import configured

    if configured():
        return "Model: an OpenAI-compatible chat model from OPENAI_API_KEY / OPENAI_BASE_URL."
    return (
        "Model: none configured (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one), so the "
        "offline rules model writes memory and an offline stand-in answers. They understand "
        "simple first-person statements only."
    )


# What the CLI prints of a store went in from users, tools and documents: every
# such field goes through for_terminal, so it cannot move the cursor, clear the
# screen, reorder a line or start a fake one.
def _decision_line(d: Decision) -> str:
    what = for_terminal(d.text or d.fact)
    target = f" [{for_terminal(d.target_id)}]" if d.target_id else ""
    result = f" -> [{for_terminal(d.result_id)}]" if d.result_id else ""
    why = d.error or d.note  # a failure's error; a rejection's reason, or a correction
    label = "note" if d.status is Status.APPLIED else d.status.value
    note = f"  ({label}: {for_terminal(why)})" if why else ""
    return f"    {d.op.value:<6}{target}{result} {what}{note}"


def _memory_lines(memories: Sequence[Memory]) -> list[str]:
    return [
        f"  [{for_terminal(m.id)}] {for_terminal(m.text)}  (since {m.created_at.date().isoformat()}"
        + (f", until {m.valid_until.date().isoformat()})" if m.valid_until else ")")
        for m in memories
    ]


def _reply(message: Any) -> str:
    # A model's reply may run over lines (and may echo a memory): keep its lines only.
    return for_terminal(str(message.content), multiline=True)


def _open(args: argparse.Namespace) -> MemoryStore:
    from langgraph_memory.store import MemoryStore

    return MemoryStore(args.path) if args.path else MemoryStore()


def _graph(store: MemoryStore) -> Any:
    from langgraph_memory.graph.agent import build_chat_graph

    return build_chat_graph(store)


def demo(args: argparse.Namespace) -> int:
    """Replay the scripted conversation through the real graph."""
    from langgraph_memory.scope import Scope
    from langgraph_memory.store import MemoryStore

    print(_model_line())
    directory = args.path or tempfile.mkdtemp(prefix="langgraph-memory-demo-")
    print(f"Store: {directory}\n")
    scope = Scope("user", "priya")
    with MemoryStore(directory) as store:
        graph = _graph(store)
        for session, (when, lines) in enumerate(DEMO, start=1):
            print(f"Session {session} ({when[:10]})")
            for text in lines:
                seen = len(store.decisions(scope))
                configurable = {
                    "user_id": scope.id,
                    "thread_id": f"s{session}",
                    "memory_now": when + "+00:00",
                }
                out = graph.invoke({"messages": [("user", text)]}, {"configurable": configurable})
                print(f"  user:  {text}")
                print(f"  agent: {_reply(out['messages'][-1])}")
                for d in store.decisions(scope)[seen:]:
                    print(_decision_line(d))
            print()
        active = store.active(scope)
        print("What I remember about you:")
        print("\n".join(_memory_lines(active)))
        moved = next((m for m in active if m.replaces), None)
        if moved is not None:
            print(f"\nHistory of [{for_terminal(moved.id)}]:")
            print("\n".join(_memory_lines(store.history(scope, moved.id))))
            print(f"\nWhy [{for_terminal(moved.id)}]:")
            print("\n".join(_decision_line(d) for d in store.decisions(scope, moved.id)))
    return 0


def chat(args: argparse.Namespace) -> int:
    """An interactive session; 'exit' or Ctrl-D ends it."""
    from langchain_core.messages import HumanMessage

    from langgraph_memory.scope import Scope

    print(_model_line())
    with _open(args) as store:
        graph = _graph(store)
        scope = Scope.parse(args.scope)
        config = {"configurable": {"user_id": scope.id, "thread_id": args.thread}}
        while True:
            try:
                text = input("you> ").strip()
            except EOFError:
                print()
                return 0
            if text in ("exit", "quit"):
                return 0
            if not text:
                continue
            message = HumanMessage(text, id=uuid.uuid4().hex)  # its id names the turn
            out = graph.invoke({"messages": [message]}, config)
            print(f"agent> {_reply(out['messages'][-1])}")
            for d in store.decisions(scope):
                if d.turn_id == message.id:
                    print(_decision_line(d))


def show(args: argparse.Namespace) -> int:
    """The active memories of a scope."""
    from langgraph_memory.read import render

    with _open(args) as store:
        memories = store.active(args.scope)
        if args.ids:
            print("\n".join(_memory_lines(memories)))
        else:  # what the model sees; render made it one line per memory already
            print(for_terminal(render(memories), multiline=True))
    return 0


def history(args: argparse.Namespace) -> int:
    """Every version of one memory."""
    with _open(args) as store:
        print("\n".join(_memory_lines(store.history(args.scope, args.memory_id))))
    return 0


def why(args: argparse.Namespace) -> int:
    """The decisions that made a memory what it is."""
    with _open(args) as store:
        for d in store.decisions(args.scope, args.memory_id):
            when = d.created_at.isoformat() if d.created_at else "?"
            print(f"{when}  turn {for_terminal(d.turn_id or '-')}")
            print(_decision_line(d))
            for i, (sid, text) in enumerate(zip(d.shown_ids, d.shown_texts, strict=False)):
                print(f"      shown [{i}] = {for_terminal(sid)}: {for_terminal(text)}")
    return 0


class UsageError(Exception):
    """A command line that cannot work as given; main() prints it and exits 2."""


def _output_file(out: str) -> Path:
    """``--out``, checked before anything is read: a file in a directory that exists."""
    path = Path(out)
    if path.is_dir():
        raise UsageError(f"--out {out} is a directory; name a file, e.g. {path / 'export.json'}")
    if not path.parent.is_dir():
        raise UsageError(
            f"--out {out}: the directory {path.parent} does not exist; create it first"
        )
    return path


def export(args: argparse.Namespace) -> int:
    """Every version and decision of a scope, as JSON."""
    out = _output_file(args.out) if args.out else None
    with _open(args) as store:
        data = json.dumps(store.export(args.scope), indent=2, ensure_ascii=False)
    if out is not None:
        out.write_text(data + "\n", encoding="utf-8")
    else:
        print(data)
    return 0


def import_(args: argparse.Namespace) -> int:
    """Restore an export into an empty scope (refuses one that holds data)."""
    from langgraph_memory.errors import InvalidMemoryError

    try:
        text = sys.stdin.read() if args.infile == "-" else Path(args.infile).read_text("utf-8")
    except OSError as exc:
        print(f"error: cannot read {args.infile}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidMemoryError(f"{args.infile} is not a JSON export: {exc}") from None
    with _open(args) as store:
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
            "error: --ids names no memory; give the ids to purge (see `show --ids`), "
            "or leave out --ids to purge the whole scope",
            file=sys.stderr,
        )
        return 2
    with _open(args) as store:
        counts = store.purge(args.scope, args.ids)
    print(f"purged {counts['memories']} memory versions and {counts['decisions']} decisions")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    top = argparse.ArgumentParser(prog="langgraph-memory", description=__doc__.split("\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    def command(name: str, run: Any, *, scoped: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=run.__doc__)
        sub.set_defaults(run=run)
        sub.add_argument(
            "--path",
            help="store directory (default: $LANGGRAPH_MEMORY_PATH or "
            "./.langgraph_memory; demo: a new temporary directory)",
        )
        if scoped:
            who = sub.add_mutually_exclusive_group(required=True)
            who.add_argument(
                "--user",
                dest="scope",
                type=lambda v: f"user:{v}",
                help="the user id (the scope user:ID)",
            )
            who.add_argument("--scope", dest="scope", help="any scope, as kind:id")
        return sub

    command("demo", demo, scoped=False)
    command("chat", chat).add_argument("--thread", default="cli", help="thread id")
    command("show", show).add_argument("--ids", action="store_true", help="list with ids")
    command("history", history).add_argument("memory_id")
    command("why", why).add_argument("memory_id")
    command("export", export).add_argument("--out", help="write to this file")
    p = command("import", import_)
    p.add_argument("--in", dest="infile", required=True, help="export file ('-': stdin)")
    p.add_argument(
        "--allow-embedder-change",
        action="store_true",
        help="accept an export made with another embedder (texts are embedded again)",
    )
    p = command("purge", purge)
    p.add_argument("--ids", nargs="*", help="memory ids (default: the whole scope)")
    p.add_argument("--yes", action="store_true", help="confirm the hard delete")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; errors of this package print as one clear line."""
    from langgraph_memory.errors import MemoryKitError

    given = list(sys.argv[1:] if argv is None else argv)
    for arg in given:
        if not _is_utf8(arg):
            print(
                f"error: argument {_shown(arg)} is not valid UTF-8; pass UTF-8 text",
                file=sys.stderr,
            )
            return 2
    args = parser().parse_args(given)
    try:
        return int(args.run(args))
    except MemoryKitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or directory the command cannot use
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _is_utf8(arg: str) -> bool:
    # Python keeps argv bytes that are not UTF-8 as lone surrogates (surrogateescape).
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(arg: str) -> str:
    """An argument as the bytes that were typed, where they can be recovered."""
    try:
        return repr(arg.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return ascii(arg)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
