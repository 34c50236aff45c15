"""One app process of a deployment with many: a chat agent with memory behind HTTP.

Start as many as you like (README, "Many app processes"); they share one memory:

- the memories live on one Chroma server (``--chroma HOST:PORT``);
- each turn is written after the answer, by a ``BackgroundWriter``; with
  ``$LANGGRAPH_MEMORY_QUEUE_URL`` set, its turns wait in a Postgres table that every
  process drains, one scope at a time, in order (``store/engine/shared_queue.py``), and the
  same Postgres locks each scope's writes across processes;
- a turn's read waits for the user's earlier turns, whichever process took them.

Requests::

    POST /chat  {"user": "alice", "message": "I live in Delhi."}  ->  {"answer": "Noted."}
    GET  /ok    ->  200 when the process serves

The chat model comes from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` when set, else an
offline stand-in answers from memory (and the offline rules model writes it). SIGTERM
or Ctrl-C stops taking requests, then gives the queued turns up to 10 s.

Each request is a thread of its own (no checkpointer): what carries from one request
to the next is long-term memory. For conversation threads across processes, compile
the graph with LangGraph's ``PostgresSaver`` on the same Postgres.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import chromadb
from chromadb.config import Settings

from langgraph_memory import BackgroundWriter, MemoryStore, MemoryWriter
from langgraph_memory.graph.agent import build_chat_graph


def serve(chroma: str, port: int, host: str = "127.0.0.1") -> None:
    """Serve the agent on ``host:port`` until SIGTERM or Ctrl-C."""
    chroma_host, _, chroma_port = chroma.rpartition(":")
    client = chromadb.HttpClient(
        host=chroma_host, port=int(chroma_port), settings=Settings(anonymized_telemetry=False)
    )
    store = MemoryStore(client=client)  # lock= and queue= from the environment
    background = BackgroundWriter(MemoryWriter(store))
    graph = build_chat_graph(store, writer=background, write="deferred")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer(200 if self.path == "/ok" else 404, {})

        def do_POST(self) -> None:
            if self.path != "/chat":
                self._answer(404, {"error": "POST /chat"})
                return
            try:
                asked = json.loads(self.rfile.read(int(self.headers["Content-Length"] or 0)))
                user, message = str(asked["user"]), str(asked["message"])
            except (ValueError, KeyError, TypeError):
                self._answer(400, {"error": 'send {"user": "...", "message": "..."}'})
                return
            config = {"configurable": {"user_id": user, "thread_id": uuid.uuid4().hex}}
            out = graph.invoke({"messages": [("user", message)]}, config)
            self._answer(200, {"answer": str(out["messages"][-1].content)})

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = (json.dumps(body) + "\n").encode()  # a line of its own in a terminal
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per request is noise here

    server = ThreadingHTTPServer((host, port), Handler)

    def stop(*_: object) -> None:
        # shutdown() waits for serve_forever to return: not from the thread running it.
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    print(f"serving on http://{host}:{port} (memory: {store!r})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        background.close(timeout=10)  # what is left stays in the shared queue for the others
        store.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chroma", required=True, metavar="HOST:PORT", help="the Chroma server")
    parser.add_argument("--port", type=int, required=True, help="this process's HTTP port")
    parser.add_argument("--host", default="127.0.0.1", help="the address to bind")
    args = parser.parse_args(argv)
    serve(args.chroma, args.port, args.host)


if __name__ == "__main__":
    main()
