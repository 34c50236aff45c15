"""``langgraph-memory inspect``: serve the memory inspector (a local web page) over a
store, and print its URL, token included, on one line.

It needs the ``inspect`` extra. It binds 127.0.0.1 unless ``--host`` says otherwise;
``--port 0`` takes any free port. On an embedded store it holds the directory while it
runs (as any command does): beside a running app, point it at the app's Chroma server
with ``--server``.

>>> url_of("127.0.0.1", 8765, "abc")
'http://127.0.0.1:8765/?token=abc'
>>> url_of("::1", 8765, "abc")
'http://[::1]:8765/?token=abc'
"""

from __future__ import annotations

import argparse
import errno
import secrets
import socket
import sys

from langgraph_memory.cli.errors import CommandError
from langgraph_memory.cli.location import open_store, stopped_journal
from langgraph_memory.text import for_terminal

__all__ = ["DEFAULT_PORT", "inspect", "listen", "url_of"]

#: The port the inspector asks for unless ``--port`` says otherwise.
DEFAULT_PORT = 8765
#: What to install when the inspector's libraries are missing.
EXTRA = 'pip install "langgraph-memory-kit[inspect]"'


def url_of(host: str, port: int, token: str) -> str:
    """The address to open, token included."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening, or a CommandError saying what to
    change (a port in use, an address this machine does not have).

    >>> s = listen("127.0.0.1", 0)
    >>> s.getsockname()[1] > 0
    True
    >>> s.close()
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise CommandError(
                f"port {port} on {host} is in use: pass --port N (--port 0: any free port)"
            ) from None
        raise CommandError(
            f"cannot listen on {host}:{port} ({exc.strerror}): check --host"
        ) from None
    return sock


def inspect(args: argparse.Namespace) -> int:
    """Serve a local web page to see, correct and delete what the store remembers."""
    try:
        import uvicorn

        from langgraph_memory.inspector import create_app
    except ImportError as exc:
        raise CommandError(
            f"the inspector needs its extra ({exc.name} is missing): {EXTRA}"
        ) from None
    sock = listen(args.host, args.port)
    try:
        with open_store(args) as store, stopped_journal(store):
            port = int(sock.getsockname()[1])
            token = secrets.token_urlsafe(24)
            app = create_app(
                store, token=token, read_only=args.read_only, host=args.host, port=port
            )
            where = for_terminal(str(store.path or args.server))
            mode = " (read-only)" if args.read_only else ""
            url = url_of(args.host, port, token)
            print(f"Memory inspector for {where}{mode}: {url}", flush=True)
            print("Open that URL in a browser; Ctrl+C stops the inspector.", file=sys.stderr)
            if args.host not in ("127.0.0.1", "localhost", "::1"):
                print(
                    f"warning: listening on {args.host}: anyone who can reach it and holds "
                    "the token can read and change this store",
                    file=sys.stderr,
                )
            config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return 0
