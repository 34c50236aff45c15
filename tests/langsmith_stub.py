"""A stand-in LangSmith API on 127.0.0.1 that records the runs a client sends.

Only the stdlib. It answers what the langsmith client uses for tracing:

- ``GET /info``: server info, telling the client to use the multipart endpoint
  without zstd compression (so the bodies are readable here);
- ``POST /runs/multipart``: multipart/form-data, one part per run operation
  (``post.<id>``, ``patch.<id>``) and one per large field
  (``post.<id>.inputs``, ``patch.<id>.outputs``, ``.extra``, ``.events`` ...);
- ``POST /runs/batch`` (``{"post": [...], "patch": [...]}``), ``POST /runs`` and
  ``PATCH /runs/<id>``: the JSON endpoints older clients and fallbacks use.

Anything else gets ``200 {}`` and is only noted in ``requests``. Runs are merged
by id, later operations over earlier ones. Bounded: bodies over
``MAX_BODY_BYTES`` get 413 and at most ``MAX_RUNS`` runs are kept.

>>> with LangSmithStub() as stub:
...     stub.url.startswith("http://127.0.0.1:"), stub.runs
(True, [])
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_RUNS = 10_000
INFO = {
    "version": "0.0.0-stub",
    "license_expiration_time": None,
    "batch_ingest_config": {
        "use_multipart_endpoint": True,
        "scale_up_qsize_trigger": 1000,
        "scale_up_nthreads_limit": 1,
        "scale_down_nempty_trigger": 4,
        "size_limit": 100,
        "size_limit_bytes": 20_971_520,
    },
    # No zstd: compressed bodies would need a third-party decoder here.
    "instance_flags": {"zstd_compression_enabled": False},
}


class LangSmithStub:
    """The server; use as a context manager (it stops on exit)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, str]] = []  # (method, path, content type)
        self.errors: list[str] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the client's session expects

            def do_GET(self) -> None:
                stub._note(self)
                self._reply(200, INFO if self.path.split("?")[0] == "/info" else {})

            def do_POST(self) -> None:
                self._handle()

            def do_PATCH(self) -> None:
                self._handle()

            def _handle(self) -> None:
                stub._note(self)
                body = self._body()
                if body is None:
                    self._reply(413, {"detail": "body too large for the stub"})
                    return
                try:
                    stub._ingest(
                        self.command, self.path, self.headers.get("Content-Type", ""), body
                    )
                except Exception as exc:  # recorded for the test to see, not fatal here
                    stub.errors.append(f"{self.command} {self.path}: {exc!r}")
                    self._reply(400, {"detail": repr(exc)})
                    return
                self._reply(200 if self.command == "PATCH" else 202, {})

            def _body(self) -> bytes | None:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks, size = [], 0
                    while True:
                        length = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if length == 0:
                            self.rfile.readline()
                            break
                        size += length
                        if size > MAX_BODY_BYTES:
                            return None
                        chunks.append(self.rfile.read(length))
                        self.rfile.readline()
                    body = b"".join(chunks)
                else:
                    length = int(self.headers.get("Content-Length") or 0)
                    if length > MAX_BODY_BYTES:
                        return None
                    body = self.rfile.read(length)
                if self.headers.get("Content-Encoding", "").lower() == "zstd":
                    import zstandard  # only if a client compresses anyway

                    body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
                return body

            def _reply(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the test reads `requests`

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle --

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> LangSmithStub:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=10)
        self._server.server_close()

    # -- what was recorded --

    @property
    def runs(self) -> list[dict[str, Any]]:
        """Every run seen, posts and patches merged, in the order first seen."""
        with self._lock:
            return [dict(r) for r in self._runs.values()]

    def named(self, name: str) -> list[dict[str, Any]]:
        """The runs called ``name``."""
        return [r for r in self.runs if r.get("name") == name]

    def clear(self) -> None:
        """Forget what was recorded."""
        with self._lock:
            self._runs.clear()
            self.requests.clear()
            self.errors.clear()

    def wait_for(self, done: Callable[[LangSmithStub], bool], timeout: float = 10.0) -> bool:
        """Poll until ``done(self)`` (the client sends from a background thread)."""
        deadline = time.monotonic() + timeout
        while not done(self):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    # -- ingestion --

    def _note(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            if len(self.requests) < MAX_RUNS:
                content_type = handler.headers.get("Content-Type", "").split(";")[0]
                self.requests.append((handler.command, handler.path, content_type))

    def _ingest(self, method: str, path: str, content_type: str, body: bytes) -> None:
        path = path.split("?")[0].rstrip("/")
        if path == "/runs/multipart":
            for name, value in _multipart(content_type, body):
                head, _, rest = name.partition(".")
                run_id, _, field = rest.partition(".")
                if head in ("post", "patch") and run_id:
                    self._merge(run_id, {field: value} if field else value)
        elif path == "/runs/batch":
            payload = json.loads(body)
            for run in [*payload.get("post", []), *payload.get("patch", [])]:
                self._merge(str(run["id"]), run)
        elif path == "/runs" and method == "POST":
            run = json.loads(body)
            self._merge(str(run["id"]), run)
        elif path.startswith("/runs/") and method == "PATCH":
            self._merge(path.rsplit("/", 1)[1], json.loads(body))

    def _merge(self, run_id: str, fields: dict[str, Any]) -> None:
        with self._lock:
            if run_id not in self._runs and len(self._runs) >= MAX_RUNS:
                return
            run = self._runs.setdefault(run_id, {"id": run_id})
            for key, value in fields.items():
                if value is not None or key not in run:
                    run[key] = value


def _multipart(content_type: str, body: bytes) -> Iterator[tuple[str, Any]]:
    """(part name, parsed JSON) for each part of a multipart/form-data body."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        raise ValueError(f"not a multipart body: {content_type!r}")
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if not isinstance(name, str) or not isinstance(payload, bytes):
            continue
        is_json = part.get_content_type() == "application/json"
        yield name, json.loads(payload) if is_json else payload
