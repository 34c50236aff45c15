"""The command line: its parser, and ``main``, which turns every failure into one
line on stderr and an exit status (0 done, 1 failed, 2 wrong command line).

>>> parser().parse_args(["show", "--user", "alice", "--server", "localhost:8000"]).server
Server(host='localhost', port=8000, ssl=False)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from langgraph_memory.cli import (
    changes,
    conversation,
    inspecting,
    inspection,
    maintenance,
    reviews,
    serving,
    upgrading,
)
from langgraph_memory.cli.errors import CommandError, UsageError
from langgraph_memory.cli.location import parse_server
from langgraph_memory.scope import SCOPE_KINDS

__all__ = ["main", "parser"]

#: The first line of ``--help``.
DESCRIPTION = "Long-term memory for LangGraph agents: a demo, a chat, and tools to inspect a store."


def parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    from langgraph_memory.release import RELEASE

    top = argparse.ArgumentParser(prog="langgraph-memory", description=DESCRIPTION)
    top.add_argument("--version", action="version", version=f"langgraph-memory-kit {RELEASE}")
    commands = top.add_subparsers(dest="command", required=True)

    def command(name: str, run: Any, *, scoped: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=run.__doc__, description=run.__doc__)
        sub.set_defaults(run=run)
        where = sub.add_mutually_exclusive_group()
        where.add_argument(
            "--path",
            help="store directory (default: $LANGGRAPH_MEMORY_PATH or "
            "./.langgraph_memory; demo: a new temporary directory)",
        )
        where.add_argument(
            "--server",
            type=parse_server,
            metavar="HOST:PORT",
            help="a Chroma server (`chroma run --path DIR --port 8000`) instead of a directory: "
            "works while an app uses the store through that server",
        )
        sub.add_argument("--database", help="the database on the --server (default: Chroma's)")
        if scoped:
            who = sub.add_mutually_exclusive_group(required=True)
            who.add_argument(
                "--user",
                dest="scope",
                metavar="ID",
                type=lambda v: f"user:{v}",
                help="the user id (the scope user:ID)",
            )
            who.add_argument(
                "--scope", dest="scope", metavar="KIND:ID", help="any scope, as kind:id"
            )
        return sub

    def json_flag(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument("--json", action="store_true", help="print JSON (for scripts)")
        return sub

    def serve_flags(
        sub: argparse.ArgumentParser, port: int, which: str = ""
    ) -> argparse.ArgumentParser:
        sub.add_argument(
            "--host",
            default="127.0.0.1",
            help=f"{which}the address to serve on (default: 127.0.0.1, this machine only)",
        )
        sub.add_argument(
            "--port",
            type=_port,
            default=port,
            help=f"{which}the port (default: {port}; 0: any free port)",
        )
        return sub

    def admin_flag(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument(
            "--admin",
            action="store_true",
            help="act as an admin: the only way to write an org scope",
        )
        return sub

    command("demo", conversation.demo, scoped=False).add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary store (without --path it is removed at the end)",
    )
    command("chat", conversation.chat).add_argument("--thread", default="cli", help="thread id")
    p = json_flag(command("show", inspection.show))
    p.add_argument(
        "--prompt", action="store_true", help="print them as the model sees them, without ids"
    )
    p.add_argument("--ids", action="store_true", help=argparse.SUPPRESS)  # ids show anyway now
    json_flag(command("history", inspection.history)).add_argument("memory_id")
    json_flag(command("why", inspection.why)).add_argument("memory_id")
    p = json_flag(command("scopes", inspection.scopes, scoped=False))
    p.add_argument("--kind", choices=SCOPE_KINDS, help="only this kind")
    command("export", inspection.export).add_argument("--out", help="write to this file")
    p = serve_flags(command("inspect", inspecting.inspect, scoped=False), inspecting.DEFAULT_PORT)
    p.add_argument(
        "--read-only", action="store_true", help="show everything, change nothing (no actions)"
    )
    p = command("mcp", serving.mcp, scoped=False)
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--user",
        dest="scope",
        metavar="ID",
        type=lambda v: f"user:{v}",
        help="stdio: the user whose memory the client reaches (the scope user:ID)",
    )
    who.add_argument("--scope", dest="scope", metavar="KIND:ID", help="stdio: any scope")
    p.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default: the client starts this command) or http (streamable HTTP)",
    )
    p.add_argument(
        "--trust",
        choices=("high", "medium", "low"),
        default="medium",
        help="stdio: the trust of what the client asks to remember (default: medium; over "
        "HTTP each token's entry says)",
    )
    p.add_argument(
        "--tokens",
        metavar="FILE",
        help="http: a JSON file binding each bearer token to a scope (see docs/mcp.md)",
    )
    serve_flags(p, serving.DEFAULT_PORT, "http: ")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="http: allow a --host other than loopback (plain HTTP: put TLS in front)",
    )
    p.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="HOST",
        help="http: another name clients reach the server by (its Host and Origin are "
        "accepted; others get 421/403), e.g. the machine's name with --host 0.0.0.0",
    )
    p.add_argument(
        "--model",
        help="the write path's model: 'provider:name' or 'rules' (default: the "
        "environment's chat model, else the rules)",
    )
    p = admin_flag(command("import", changes.import_))
    p.add_argument("--in", dest="infile", required=True, help="export file ('-': stdin)")
    p.add_argument(
        "--allow-embedder-change",
        action="store_true",
        help="accept an export made with another embedder (texts are embedded again)",
    )
    p.add_argument(
        "--max-mb",
        type=_positive_int,
        default=1024,
        metavar="MB",
        help="refuse a file larger than this (default: 1024 MB; parsing takes several times "
        "as much memory)",
    )
    p = json_flag(command("maintain", maintenance.maintain, scoped=False))
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--user", dest="scope", metavar="ID", type=lambda v: f"user:{v}", help="only user:ID"
    )
    who.add_argument(
        "--scope", dest="scope", metavar="KIND:ID", help="only this scope (default: all)"
    )
    p.add_argument("--dry-run", action="store_true", help="show what would change; change nothing")
    p.add_argument(
        "--model",
        help="'provider:name' (e.g. openai:gpt-4o-mini) or 'rules' for the offline rules "
        "(default: the environment's chat model, else the rules)",
    )
    p = command("migrate", upgrading.migrate, scoped=False)
    p.add_argument(
        "--backup",
        metavar="DIR",
        help="where the store as it was is kept (default: beside it; for a server, a new "
        "directory here)",
    )
    p.add_argument("--dry-run", action="store_true", help="print each step and what it would touch")
    p = admin_flag(command("purge", changes.purge))
    p.add_argument("--ids", nargs="*", help="memory ids (default: the whole scope)")
    p.add_argument(
        "--yes",
        action="store_true",
        help="confirm the hard delete (else it is asked on the terminal; refused without one)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="list what would be deleted; delete nothing"
    )
    p = json_flag(command("reviews", reviews.reviews, scoped=False))
    p.add_argument("--to", metavar="SCOPE", help="only reviews into this scope (kind:id)")
    p.add_argument(
        "--from", dest="from_", metavar="SCOPE", help="only reviews from this scope (kind:id)"
    )
    p.add_argument(
        "--status",
        choices=reviews.STATUSES,
        default="pending",
        help="which reviews (default: pending)",
    )
    for name, run in (("approve", reviews.approve), ("reject", reviews.reject)):
        p = admin_flag(command(name, run, scoped=False))
        p.add_argument("review_id", help="the review's id (see `reviews`)")
        p.add_argument("--reason", help="why, logged with the decision in both scopes")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; errors print as one clear line, never as a traceback."""
    from langgraph_memory.errors import MemoryKitError
    from langgraph_memory.install_check import check_install

    try:
        # The package's own __init__ checks this too, but the other project's files
        # may have replaced it: the command's check does not depend on it.
        check_install()
    except MemoryKitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

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
        if args.database is not None and args.server is None:
            raise UsageError(
                "--database names a database on a Chroma server: add --server HOST:PORT"
            )
        code = int(args.run(args))
        sys.stdout.flush()  # here, where a closed pipe can still be answered quietly
        return code
    except BrokenPipeError:
        # `langgraph-memory export | head`: the reader has gone. Python's advice:
        # send what is left to devnull, so the flush at exit cannot fail again. Exit
        # 0, as when the output fit in the pipe before the reader left: whether a
        # write met the closed pipe is timing, and the reader stopping is no failure.
        _stdout_to_devnull()
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except UsageError as exc:  # a MemoryKitError too: caught first, for its status
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (MemoryKitError, CommandError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file or directory the command cannot use
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _positive_int(text: str) -> int:
    """An argument that must be a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _port(text: str) -> int:
    """A port number, 0 to 65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0: any free port)")
    return value


def _stdout_to_devnull() -> None:
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


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
