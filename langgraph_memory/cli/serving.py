"""``langgraph-memory mcp``: serve a store's memory to MCP clients (Claude Desktop,
Cursor, IDE agents, LangGraph through ``langchain-mcp-adapters``).

Over stdio (the default: the client starts the command) one scope is bound at start
(``--user alice`` or ``--scope kind:id``); over streamable HTTP (``--transport http``)
each bearer token of the ``--tokens`` file is bound to its scope, and the server binds
127.0.0.1 unless ``--host`` names another address and ``--allow-remote`` says so.
Requests to remember are queued on a background writer (its journal is in the store's
directory), written by ``--model`` (default: the environment's chat model, else the
offline rules). It needs the ``mcp`` extra. See docs/mcp.md.

>>> endpoint("127.0.0.1", 8808)
'http://127.0.0.1:8808/mcp'
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from langgraph_memory.cli.errors import CommandError, UsageError
from langgraph_memory.cli.inspecting import listen
from langgraph_memory.cli.location import open_store
from langgraph_memory.cli.models import model_named
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.mcp_server import Answers

__all__ = ["DEFAULT_PORT", "EXTRA", "LOOPBACK", "endpoint", "mcp"]

#: The port the HTTP server asks for unless ``--port`` says otherwise.
DEFAULT_PORT = 8808
#: What to install when the MCP SDK is missing.
EXTRA = "pip install 'langgraph-memory-kit[mcp]'"
#: The addresses that reach this machine only.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: Where the streamable HTTP endpoint is (the SDK's default path).
PATH = "/mcp"


def endpoint(host: str, port: int) -> str:
    """The URL a client connects to."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{PATH}"


def mcp(args: argparse.Namespace) -> int:
    """Serve this store's memory to MCP clients (stdio, or HTTP with bearer tokens)."""
    try:
        import mcp as _sdk  # noqa: F401  (checked here: the error names the extra)
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise CommandError(
            f"the MCP server needs its extra ({exc.name} is missing): {EXTRA}"
        ) from None
    from langgraph_memory.mcp_server import Binding, TokenTable
    from langgraph_memory.records import Trust
    from langgraph_memory.scope import Scope, check_path_scope

    if args.transport == "stdio":
        if args.scope is None:
            raise UsageError("mcp over stdio serves one scope: pass --user ID or --scope KIND:ID")
        if args.tokens is not None:
            raise UsageError("--tokens is for --transport http; over stdio pass --user ID")
        binding = Binding(check_path_scope(Scope.parse(args.scope)), Trust(args.trust))
        with _answers(args) as answers:
            _serve_stdio(answers, binding)
        return 0
    if args.scope is not None:
        raise UsageError(
            "over HTTP each token names its scope (--tokens FILE): drop --user/--scope"
        )
    if args.tokens is None:
        raise UsageError("mcp over HTTP needs --tokens FILE (each bearer token and its scope)")
    if args.host not in LOOPBACK and not args.allow_remote:
        raise UsageError(
            f"--host {args.host} serves beyond this machine, over plain HTTP: add "
            "--allow-remote to mean it (better: keep 127.0.0.1 behind a TLS proxy)"
        )
    table = TokenTable.read(args.tokens)
    sock = listen(args.host, args.port)
    try:
        with _answers(args) as answers:
            _serve_http(answers, table, args, sock)
    finally:
        sock.close()
    return 0


@contextmanager
def _answers(args: argparse.Namespace) -> Iterator[Answers]:
    """The store, its background writer and the tools' work; on the way out the queued
    requests are written (bounded by the writer's exit timeout), then the store closes."""
    from langgraph_memory.mcp_server import Answers
    from langgraph_memory.write import BackgroundWriter, MemoryWriter

    with open_store(args, create=True) as store:
        writer = MemoryWriter(store, model=model_named(args.model))
        answers = Answers(BackgroundWriter(writer))
        try:
            yield answers
        finally:
            answers.close()


def _serve_stdio(answers: Answers, binding: Any) -> None:
    import anyio

    from langgraph_memory.mcp_server import create_server

    server = create_server(answers, lambda: binding)
    # stdout carries the protocol: anything said to a person goes to stderr.
    print(
        f"langgraph-memory mcp: serving {binding.scope.key} over stdio", file=sys.stderr, flush=True
    )
    anyio.run(server.run_stdio_async)
    if sys.stdout.closed:  # the SDK closes stdout when the client goes: nothing more to say
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (the process's own, until exit)


def _serve_http(answers: Answers, table: Any, args: argparse.Namespace, sock: Any) -> None:
    import uvicorn

    from langgraph_memory.mcp_server import create_server, token_bound

    port = int(sock.getsockname()[1])
    server = create_server(
        answers, token_bound(table), tokens=table, host=args.host, port=port, names=args.name
    )
    where = for_terminal(str(answers.store.path or args.server))
    print(f"MCP server for {where}: {endpoint(args.host, port)}", flush=True)
    print(
        f"{len(table.entries)} token(s) from {for_terminal(args.tokens)}; Ctrl+C stops it.",
        file=sys.stderr,
        flush=True,
    )
    if args.host not in LOOPBACK:
        print(
            f"warning: listening on {args.host} over plain HTTP: a token sent over a network "
            "can be read on the way; put a TLS proxy in front",
            file=sys.stderr,
        )
    config = uvicorn.Config(
        server.streamable_http_app(), log_level="warning", access_log=False, lifespan="on"
    )
    # uvicorn stops gracefully on SIGTERM, then raises it again for the handler it found:
    # as an exit rather than the default death, the queued requests are written and
    # the store closes (the journal would keep them anyway).
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(0)
