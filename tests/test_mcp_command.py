"""``langgraph-memory mcp`` as a user runs it, in a subprocess, driven by the official
SDK's client: over stdio (the client starts the command, as Claude Desktop does) and over
streamable HTTP (bearer tokens bound to scopes, Host and Origin checked, SIGTERM ends it
with its queue written). In the slow tier: each starts the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_calls import call
from processes import free_port, serving

from langgraph_memory import MemoryStore

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ALICE_TOKEN = "alice-token-0123456789"
BOB_TOKEN = "bob-token-0123456789"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    },
}
JSON_AND_SSE = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def env() -> dict[str, str]:
    """This checkout imported, no chat model (the offline rules write)."""
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    base.pop("LANGGRAPH_MEMORY_PATH", None)
    return {**base, "PYTHONPATH": str(ROOT)}


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "langgraph_memory.cli", "mcp", *args]


@asynccontextmanager
async def http_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session over streamable HTTP, with the bearer token."""
    async with (
        httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as s,
    ):
        await s.initialize()
        yield s


def test_stdio_remembers_in_one_session_and_recalls_in_the_next(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=command("--path", str(tmp_path / "m"), "--user", "alice")[1:],
        env=env(),
        cwd=str(tmp_path),
    )

    async def session(script: Any) -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await script(s)

    async def first(s: ClientSession) -> None:
        tools = await s.list_tools()
        assert {t.name for t in tools.tools} == {
            "search_memories",
            "remember",
            "forget",
            "what_do_you_remember_about_me",
            "why",
        }
        error, said = await call(s, "remember", {"text": "I'm allergic to peanuts."})
        assert not error and said.startswith("Queued to remember")
        error, said = await call(s, "search_memories", {"query": "x", "user_id": "bob"})
        assert error and "bound to user:alice" in said

    async def second(s: ClientSession) -> None:  # another process, the same store
        error, found = await call(s, "search_memories", {"query": "what am I allergic to?"})
        assert not error and '"User is allergic to peanuts."' in found

    async def main() -> None:
        await session(first)
        await session(second)

    anyio.run(main)


@contextmanager
def http_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(
        json.dumps(
            {
                "tokens": [
                    {"name": "alice-laptop", "scope": "user:alice", "token": ALICE_TOKEN},
                    {"name": "bob", "scope": "user:bob", "token": BOB_TOKEN, "trust": "high"},
                ]
            }
        )
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    def ready() -> bool:
        try:
            return httpx.post(url, json=INITIALIZE, headers=JSON_AND_SSE).status_code == 401
        except httpx.TransportError:
            return False

    store = str(tmp_path / "m")
    with serving(
        command(
            "--transport",
            "http",
            "--port",
            str(port),
            "--tokens",
            str(tokens),
            "--path",
            store,
            "--name",
            "memory.test",
        ),
        ready=ready,
        log_path=tmp_path / "mcp.log",
        what="langgraph-memory mcp",
        env=env(),
    ) as proc:
        yield url, proc


def test_http_binds_each_token_to_its_scope_and_refuses_the_rest(tmp_path: Path) -> None:
    with http_server(tmp_path) as (url, _):

        async def as_(token: str, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
            async with http_session(url, token) as s:
                return await call(s, tool, args)

        async def main() -> None:
            error, _ = await as_(ALICE_TOKEN, "remember", {"text": "I live in Pune."})
            assert not error
            error, found = await as_(ALICE_TOKEN, "search_memories", {"query": "where I live"})
            assert not error and '"User lives in Pune."' in found
            error, found = await as_(BOB_TOKEN, "search_memories", {"query": "where I live"})
            assert not error and "Pune" not in found  # bob's token reaches bob's memory only
            error, said = await as_(
                BOB_TOKEN, "what_do_you_remember_about_me", {"user_id": "alice"}
            )
            assert error and "bound to user:bob" in said

        anyio.run(main)

        def post(**headers: str) -> httpx.Response:
            return httpx.post(url, json=INITIALIZE, headers={**JSON_AND_SSE, **headers})

        assert post().status_code == 401  # no token
        assert post(Authorization="Bearer not-a-token-at-all").status_code == 401
        assert post(Authorization=f"Bearer {ALICE_TOKEN}"[:-1]).status_code == 401
        # DNS rebinding: a page on another site reaching this loopback port.
        bad_host = post(Authorization=f"Bearer {ALICE_TOKEN}", Host="evil.example")
        assert bad_host.status_code == 421
        bad_origin = post(Authorization=f"Bearer {ALICE_TOKEN}", Origin="http://evil.example")
        assert bad_origin.status_code == 403
        port = url.removeprefix("http://127.0.0.1").removesuffix("/mcp")  # ":port"
        named = post(Authorization=f"Bearer {ALICE_TOKEN}", Host=f"memory.test{port}")
        assert named.status_code == 200  # a name given with --name
        opened = post(Authorization=f"Bearer {ALICE_TOKEN}", Origin=url.removesuffix("/mcp"))
        assert opened.status_code == 200
        # A session opened with alice's token is not bob's to use.
        session = opened.headers["mcp-session-id"]
        listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        hijack = httpx.post(
            url,
            json=listed,
            headers={
                **JSON_AND_SSE,
                "Authorization": f"Bearer {BOB_TOKEN}",
                "Mcp-Session-Id": session,
                "Mcp-Protocol-Version": "2025-06-18",
            },
        )
        assert hijack.status_code in (403, 404), hijack.text
        assert "Bearer" not in (tmp_path / "mcp.log").read_text()
        assert ALICE_TOKEN not in (tmp_path / "mcp.log").read_text()


def test_http_stops_on_sigterm_with_what_it_queued_written(tmp_path: Path, embedder: Any) -> None:
    with http_server(tmp_path) as (url, proc):

        async def main() -> None:
            async with http_session(url, ALICE_TOKEN) as s:
                error, _ = await call(s, "remember", {"text": "I'm vegan."})
                assert not error

        anyio.run(main)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        assert [m.text for m in store.active("user:alice")] == ["User is vegan."]


def run_command(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args), capture_output=True, text=True, timeout=120, env={**env(), **extra}
    )


def test_http_refuses_a_remote_address_unless_asked_and_needs_tokens(tmp_path: Path) -> None:
    tokens = tmp_path / "t.json"
    tokens.write_text(json.dumps({"tokens": [{"name": "a", "scope": "user:a", "token": "x" * 20}]}))
    done = run_command("--transport", "http", "--host", "0.0.0.0", "--tokens", str(tokens))
    assert done.returncode == 2 and "--allow-remote" in done.stderr
    done = run_command("--transport", "http", "--path", str(tmp_path / "m"))
    assert done.returncode == 2 and "--tokens FILE" in done.stderr
    done = run_command("--path", str(tmp_path / "m"))  # stdio without a scope
    assert done.returncode == 2 and "--user ID" in done.stderr
    assert not (tmp_path / "m").exists()  # nothing was created


def test_without_the_extra_it_says_what_to_install(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "mcp.py").write_text("raise ImportError(\"No module named 'mcp'\", name='mcp')\n")
    done = run_command(
        "--user", "alice", "--path", str(tmp_path / "m"), PYTHONPATH=f"{shadow}{os.pathsep}{ROOT}"
    )
    assert done.returncode == 1
    assert "pip install 'langgraph-memory-kit[mcp]'" in done.stderr
