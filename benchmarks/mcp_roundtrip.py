"""What MCP costs a search: the ``search_memories`` round trip through the official SDK's
client to ``langgraph-memory mcp`` over stdio and over streamable HTTP (a subprocess each,
as a user runs it), against the same search in process (``Answers.search``: the wait for
queued writes, ``retrieve``, ``render`` with the rules), on one store.

One scope holds a LoCoMo conversation's turns (real chat, each turn a memory on its
session's date, the shipped MiniLM's vectors, which the command uses too); the
conversation's questions are searched with shipped defaults. An embedded store serves one
process, so the sides take turns in phases: in each round, in process, stdio, HTTP, then in
process again (the order rotated from round to round, so that a drift of the machine falls
on every side alike); "in process again" against "in process" (A/A) is the noise the
ratios are read against. Each phase asks every question once before it times (a fresh
server caches its vectors, as a long-running one has them); a server's start is not timed.
Reported: each side's median round trip, the ratios over in process, and the differences
in ms::

    python -m benchmarks mcp --data ../shared/data --out docs/results/mcp.json

Options: ``--conversation 0 --questions 50 --rounds 4`` (each question's searches a side
and round: one).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from benchmarks.datasets import DATASETS, load_locomo, missing_data
from benchmarks.reports import machine, publish
from langgraph_memory import Scope
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.mcp_server import Answers, Binding
from langgraph_memory.store import MemoryStore
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel

__all__ = ["SIDES", "main", "render_markdown", "run"]

ROOT = Path(__file__).resolve().parents[1]
USER = "locomo"
#: The sides, in the order of the first round.
SIDES = ("in_process", "stdio", "http", "in_process_again")
Search = Callable[[str], Awaitable[None]]


def _command(folder: Path, *args: str) -> list[str]:
    """``langgraph-memory mcp`` on the store, from this checkout, with the offline rules."""
    cli = [sys.executable, "-m", "langgraph_memory.cli", "mcp", "--path", str(folder)]
    return [*cli, *args, "--model", "rules"]


def _env() -> dict[str, str]:
    quiet = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return {**quiet, "PYTHONPATH": str(ROOT)}


def _searcher(session: ClientSession) -> Search:
    async def search(question: str) -> None:
        result = await session.call_tool("search_memories", {"query": question})
        if result.isError:
            raise RuntimeError(f"search_memories failed: {result.content}")

    return search


@asynccontextmanager
async def _in_process(folder: Path) -> AsyncIterator[Search]:
    store = MemoryStore(folder)
    answers = Answers(BackgroundWriter(MemoryWriter(store, model=RulesModel())))
    who = Binding(Scope("user", USER))

    async def search(question: str) -> None:
        answers.search(who, question)

    try:
        yield search
    finally:
        answers.close()
        store.close()


@asynccontextmanager
async def _stdio(folder: Path) -> AsyncIterator[Search]:
    command = _command(folder, "--user", USER)
    params = StdioServerParameters(command=command[0], args=command[1:], env=_env())
    with open(os.devnull, "w") as quiet:  # the server's stderr: its start line, its logs
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield _searcher(session)


@contextmanager
def _http_server(folder: Path, token: str) -> Iterator[str]:
    tokens = folder.parent / "tokens.json"
    tokens.write_text(
        json.dumps({"tokens": [{"name": "bench", "scope": f"user:{USER}", "token": token}]})
    )
    command = _command(folder, "--transport", "http", "--port", "0", "--tokens", str(tokens))
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=_env()
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if "http://" not in line:
            raise RuntimeError(f"langgraph-memory mcp --transport http did not start: {line!r}")
        yield line.split()[-1]
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@asynccontextmanager
async def _http(folder: Path) -> AsyncIterator[Search]:
    token = secrets.token_urlsafe(24)
    with _http_server(folder, token) as url:
        async with (
            httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield _searcher(session)


PHASES: dict[str, Callable[[Path], Any]] = {
    "in_process": _in_process,
    "stdio": _stdio,
    "http": _http,
    "in_process_again": _in_process,
}


async def _phase(side: str, folder: Path, questions: Sequence[str]) -> list[float]:
    """Each question once untimed, then once timed: the round trips' seconds."""
    async with PHASES[side](folder) as search:
        for question in questions:
            await search(question)
        timed = []
        for question in questions:
            started = time.perf_counter()
            await search(question)
            timed.append(time.perf_counter() - started)
        return timed


def _ms(seconds: Sequence[float]) -> float:
    return statistics.median(seconds) * 1000.0


def run(data: Path, *, conversation: int, questions: int, rounds: int) -> dict[str, Any]:
    """Fill the scope, then time the sides in rotated phases; the report without its
    total time."""
    chat = load_locomo(data / DATASETS["locomo"])[conversation]
    asked = [q.question for q in chat.questions[:questions]]
    timed: dict[str, list[float]] = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory() as workdir:
        folder = Path(workdir) / "store"
        with MemoryStore(folder) as store:  # the shipped embedder, as the command's
            for session in chat.sessions:
                texts = [f"{t.speaker}: {t.text}" for t in session.turns if t.text.strip()]
                store.add_many(f"user:{USER}", texts, now=session.date)
            memories = len(store.active(f"user:{USER}"))
        for n in range(rounds):
            for side in SIDES[n % len(SIDES) :] + SIDES[: n % len(SIDES)]:
                timed[side] += anyio.run(_phase, side, folder, asked)
    base = _ms(timed["in_process"])
    medians = {side: _ms(seconds) for side, seconds in timed.items()}
    return {
        "conversation": chat.sample_id,
        "memories": memories,
        "questions": len(asked),
        "rounds": rounds,
        "searches_per_side": len(timed["in_process"]),
        **{f"{side}_p50_ms": ms for side, ms in medians.items()},
        "ratio_stdio_in_process": medians["stdio"] / base,
        "ratio_http_in_process": medians["http"] / base,
        "ratio_in_process_again_in_process": medians["in_process_again"] / base,
        "stdio_minus_in_process_ms": medians["stdio"] - base,
        "http_minus_in_process_ms": medians["http"] - base,
        **machine(embedder_name(LocalMiniLM())),
    }


def render_markdown(report: dict[str, Any]) -> str:
    """The report as a small Markdown table.

    >>> print(render_markdown({"conversation": "c", "memories": 3, "searches_per_side": 2,
    ...     "in_process_p50_ms": 4.0, "stdio_p50_ms": 6.0, "http_p50_ms": 8.0,
    ...     "ratio_stdio_in_process": 1.5, "ratio_http_in_process": 2.0,
    ...     "stdio_minus_in_process_ms": 2.0, "http_minus_in_process_ms": 4.0,
    ...     "ratio_in_process_again_in_process": 1.01}).splitlines()[-1])
    | 1.500 | 2.000 | 2.000 | 4.000 | 1.010 |
    """
    return "\n".join(
        [
            f"search_memories on LoCoMo {report['conversation']} ({report['memories']} "
            f"memories), {report['searches_per_side']} searches a side; medians: in process "
            f"{report['in_process_p50_ms']:.2f} ms, stdio {report['stdio_p50_ms']:.2f} ms, "
            f"HTTP {report['http_p50_ms']:.2f} ms",
            "",
            "| ratio stdio / in process | ratio HTTP / in process | stdio - in process ms "
            "| HTTP - in process ms | A/A ratio (noise) |",
            "| --- | --- | --- | --- | --- |",
            f"| {report['ratio_stdio_in_process']:.3f} | {report['ratio_http_in_process']:.3f} "
            f"| {report['stdio_minus_in_process_ms']:.3f} "
            f"| {report['http_minus_in_process_ms']:.3f} "
            f"| {report['ratio_in_process_again_in_process']:.3f} |",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks mcp``; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks mcp", description=__doc__)
    p.add_argument("--data", type=Path, required=True, help="the datasets' folder")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    p.add_argument("--conversation", type=int, default=0, help="which LoCoMo conversation")
    p.add_argument("--questions", type=int, default=50)
    p.add_argument("--rounds", type=int, default=4, help="phases of each side")
    args = p.parse_args(argv)
    if problem := missing_data(args.data, DATASETS["locomo"]):
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    report = run(
        args.data, conversation=args.conversation, questions=args.questions, rounds=args.rounds
    )
    return publish(report, began=began, out=args.out, render=render_markdown)
