"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests that go through real HTTP.

``OpenAIStub`` serves ``POST /v1/chat/completions`` (plain or ``stream: true``) and
``GET /v1/models`` from a queue of scripted answers, one per completion request:

- a ``str`` is answered verbatim as the assistant's text content;
- a ``dict`` is a structured answer, shaped the way the request asked for one: a call
  of the requested tool (``tools`` + ``tool_choice``) with the dict as its JSON
  ``arguments``; JSON ``content`` for a ``response_format`` (``json_schema`` or
  ``json_object``); JSON text content otherwise;
- a callable gets the request body and returns one of the above.

``default`` (an answer or a callable) answers every request once the queue is empty,
for tests that must not depend on how many requests the client makes.

Every request body is recorded (``stub.requests``) for assertions. A request with no
answer left gets an HTTP 400 (which the OpenAI client does not retry) and is counted in
``stub.unanswered``. Requests are bounded: a body size limit, a socket timeout, and a
cap on the number of requests; ``serve()`` stops the server when its block ends.

>>> import json, urllib.request
>>> with serve(["hello"]) as stub:
...     body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
...     req = urllib.request.Request(stub.base_url + "/chat/completions", body.encode(),
...                                  {"Content-Type": "application/json"})
...     answer = json.load(urllib.request.urlopen(req, timeout=5))
>>> answer["choices"][0]["message"]["content"], stub.requests[0]["model"], stub.remaining
('hello', 'm', 0)
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | dict[str, Any]
Answer = Reply | Callable[[dict[str, Any]], Reply]

MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_REQUESTS = 500
SOCKET_TIMEOUT_S = 10.0


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class OpenAIStub:
    """The scripted server's state: the answers left and the requests seen."""

    def __init__(
        self,
        answers: Iterable[Answer] = (),
        *,
        default: Answer | None = None,
        models: Iterable[str] = (),
    ) -> None:
        self._answers: deque[Answer] = deque(answers)
        self.default = default
        self._lock = threading.Lock()
        self.models = list(models) or ["stub-model"]
        self.requests: list[dict[str, Any]] = []
        self.paths: list[tuple[str, str]] = []  # (method, path) of every request
        self.unanswered = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    # -- script ----------------------------------------------------------------------------

    def add(self, *answers: Answer) -> None:
        """Queue more answers."""
        with self._lock:
            self._answers.extend(answers)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._answers)

    def _next(self, body: dict[str, Any]) -> Reply | None:
        with self._lock:
            self.requests.append(body)
            self._counter += 1
            if self._answers:
                answer: Answer | None = self._answers.popleft()
            else:
                answer = self.default
                if answer is None:
                    self.unanswered += 1
                    return None
        return answer(body) if callable(answer) else answer

    def _next_id(self) -> int:
        with self._lock:
            return self._counter

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the stub is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The URL to give an OpenAI client as its base URL (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIStub:
        if self._server is not None:
            return self
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    # -- answers ---------------------------------------------------------------------------

    def completion(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON body answering one chat completion request."""
        answer = self._next(body)
        if answer is None:
            return 400, {
                "error": {
                    "message": "openai_stub: no scripted answer left for this request",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "stub_script_exhausted",
                }
            }
        message, finish = self.message(body, answer)
        prompt = sum(_tokens(json.dumps(m, default=str)) for m in body.get("messages", []))
        said = message.get("content") or json.dumps(message.get("tool_calls") or "")
        return 200, {
            "id": f"chatcmpl-stub{self._next_id()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or self.models[0]),
            "system_fingerprint": "fp_stub",
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": _tokens(said),
                "total_tokens": prompt + _tokens(said),
            },
        }

    def message(self, body: dict[str, Any], answer: Reply) -> tuple[dict[str, Any], str]:
        """The assistant message for ``answer``, shaped as ``body`` asked; and finish_reason."""
        if isinstance(answer, str):
            return {"role": "assistant", "content": answer, "refusal": None}, "stop"
        tool = _requested_tool(body)
        if tool is not None:
            call = {
                "id": f"call_stub{self._next_id()}",
                "type": "function",
                "function": {"name": tool, "arguments": json.dumps(answer)},
            }
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]}
            return message, "tool_calls"
        return {"role": "assistant", "content": json.dumps(answer), "refusal": None}, "stop"

    def chunks(self, status_body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """A completion as stream chunks: the message as one delta, then the finish."""
        choice = status_body["choices"][0]
        message = dict(choice["message"])
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        if message.get("tool_calls"):
            delta["tool_calls"] = [
                {"index": i, **call} for i, call in enumerate(message["tool_calls"])
            ]
        base = {k: status_body[k] for k in ("id", "created", "model", "system_fingerprint")}
        base["object"] = "chat.completion.chunk"
        yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        yield {
            **base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
        }
        yield {**base, "choices": [], "usage": status_body["usage"]}


def _requested_tool(body: dict[str, Any]) -> str | None:
    """The function a request with ``tools`` forces or offers, if any."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    if not tools:
        return None
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        named = (choice.get("function") or {}).get("name") or choice.get("name")
        if named:
            return str(named)
    if choice == "none":
        return None
    first = tools[0].get("function") or tools[0]
    return str(first.get("name") or "") or None


def _handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT_S  # a stalled client cannot hold a thread for long

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _path(self) -> str:
            path = self.path.split("?", 1)[0].rstrip("/")
            return path[3:] if path.startswith("/v1/") else path

        def _over_limit(self) -> bool:
            stub.paths.append((self.command, self.path))
            if len(stub.paths) > MAX_REQUESTS:
                self._send(429, {"error": {"message": "openai_stub: request cap reached"}})
                return True
            return False

        def do_GET(self) -> None:
            if self._over_limit():
                return
            if self._path() == "/models":
                data = [
                    {"id": m, "object": "model", "created": 0, "owned_by": "openai_stub"}
                    for m in stub.models
                ]
                self._send(200, {"object": "list", "data": data})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if self._over_limit():
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self._send(413, {"error": {"message": "openai_stub: body too large"}})
                return
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as exc:
                self._send(400, {"error": {"message": f"openai_stub: bad JSON: {exc}"}})
                return
            if self._path() != "/chat/completions" or not isinstance(body, dict):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            status, payload = stub.completion(body)
            if status != 200 or not body.get("stream"):
                self._send(status, payload)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()  # HTTP/1.0: the body ends when the connection closes
            for chunk in stub.chunks(payload):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


@contextmanager
def serve(
    answers: Iterable[Answer] = (),
    *,
    default: Answer | None = None,
    models: Iterable[str] = (),
) -> Iterator[OpenAIStub]:
    """A running stub for the length of the block; stopped (and its port freed) after it."""
    stub = OpenAIStub(answers, default=default, models=models).start()
    try:
        yield stub
    finally:
        stub.stop()
