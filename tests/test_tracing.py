"""LangSmith tracing: a LangGraph invocation's run tree holds the memory steps
(``memory.retrieve``, ``memory.extract``, ``memory.reconcile``, ``memory.apply``)
with their decisions, the scope kind and never the scope id; with tracing off
nothing is sent and nothing changes; a broken tracer never breaks a step.

No network: ``LANGSMITH_ENDPOINT`` points at ``langsmith_stub.LangSmithStub``.
"""

from __future__ import annotations

import ast
import importlib
import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypedDict

import langsmith.run_helpers
import pytest
from langchain_core.embeddings import Embeddings
from langgraph.graph import END, START, StateGraph
from langsmith import Client, tracing_context
from langsmith.utils import get_env_var
from langsmith_stub import LangSmithStub

from langgraph_memory import MemoryStore, tracing
from langgraph_memory.read.retrieve import retrieve
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.tracing import traced
from langgraph_memory.write import MemoryWriter

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
U = "user:alice"
PROJECT = "langgraph-memory-tests"
STEPS = ("memory.retrieve", "memory.extract", "memory.reconcile", "memory.apply")


class State(TypedDict, total=False):
    query: str
    messages: list[tuple[str, str]]
    recalled: list[str]
    decisions: list[str]


def facts(*texts: str) -> dict[str, Any]:
    return {"facts": [{"text": t, "importance": 6, "speaker": "user"} for t in texts]}


def moved_to_pune() -> ScriptedChatModel:
    """Extraction, then reconciliation against the one memory shown."""
    return ScriptedChatModel(
        script=[
            facts("User moved to Pune."),
            {"op": "UPDATE", "id": 0, "text": "User lives in Pune."},
        ]
    )


def memory_graph(store: MemoryStore, writer: MemoryWriter) -> Any:
    """recall (retrieve) -> learn (write_turn): the two memory nodes of an agent graph."""

    def recall(state: State) -> State:
        found = retrieve(store, U, state["query"], now=T0 + DAY)
        return {"recalled": [r.memory.text for r in found]}

    def learn(state: State) -> State:
        decisions = writer.write_turn(U, state["messages"], now=T0 + DAY)
        return {"decisions": [f"{d.op.value} {d.status.value} {d.text}" for d in decisions]}

    builder = StateGraph(State)
    builder.add_node("recall", recall)
    builder.add_node("learn", learn)
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "learn")
    builder.add_edge("learn", END)
    return builder.compile()


TURN: State = {"query": "Where do I live?", "messages": [("user", "I moved to Pune.")]}


@pytest.fixture
def seeded(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    store = MemoryStore(tmp_path / "m", embeddings=embedder)
    store.add(U, "User lives in Delhi.", now=T0)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def stub() -> Iterator[LangSmithStub]:
    with LangSmithStub() as server:
        yield server


@pytest.fixture
def env(stub: LangSmithStub) -> Iterator[pytest.MonkeyPatch]:
    """LangSmith's environment pointed at the stub (tracing off until a test turns it on)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LANGSMITH_ENDPOINT", stub.url)
        mp.setenv("LANGSMITH_API_KEY", "test")
        mp.setenv("LANGSMITH_PROJECT", PROJECT)
        mp.setenv("LANGSMITH_TRACING", "false")
        # The stub cannot read zstd bodies; without this the client warns each time.
        mp.setenv("LANGSMITH_DISABLE_RUN_COMPRESSION", "true")
        for name in ("LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING", "LANGCHAIN_ENDPOINT"):
            mp.delenv(name, raising=False)
        get_env_var.cache_clear()  # langsmith caches what it read of the environment
        yield mp
    get_env_var.cache_clear()  # and must not keep this test's environment afterwards


def tracing_on(env: pytest.MonkeyPatch) -> None:
    env.setenv("LANGSMITH_TRACING", "true")
    get_env_var.cache_clear()


@pytest.fixture
def client(stub: LangSmithStub, env: pytest.MonkeyPatch) -> Iterator[Client]:
    """A client of its own: the process-wide cached one may predate this test's env."""
    tracing_on(env)
    ls = Client(api_url=stub.url, api_key="test")
    try:
        yield ls
    finally:
        ls.flush()
        ls.cleanup()  # stops the client's background sender thread


def sent(client: Client, stub: LangSmithStub, *names: str) -> dict[str, list[dict[str, Any]]]:
    """Flush the client (it sends from a background thread) and group the runs by name."""
    client.flush()
    assert stub.wait_for(lambda s: all(s.named(n) for n in names)), [r["name"] for r in stub.runs]
    assert not stub.errors
    grouped: dict[str, list[dict[str, Any]]] = {}
    for run in stub.runs:
        grouped.setdefault(run["name"], []).append(run)
    return grouped


def metadata(run: dict[str, Any]) -> dict[str, Any]:
    return dict(run.get("extra", {}).get("metadata", {}))


def test_a_graph_run_tree_holds_the_memory_steps_and_their_decisions(
    seeded: MemoryStore, stub: LangSmithStub, client: Client
) -> None:
    [delhi] = seeded.active(U, episodes=False)
    graph = memory_graph(seeded, MemoryWriter(seeded, model=moved_to_pune(), gate=False))
    with tracing_context(client=client, project_name=PROJECT, enabled=True):
        out = graph.invoke(TURN)
    assert out["decisions"] == ["UPDATE applied User lives in Pune."]

    runs = sent(client, stub, "LangGraph", *STEPS)
    by_id = {r["id"]: r for rs in runs.values() for r in rs}
    [root] = runs["LangGraph"]
    steps = {name: runs[name] for name in STEPS}
    assert {name: len(rs) for name, rs in steps.items()} == dict.fromkeys(STEPS, 1)
    for name, [run] in steps.items():
        # One trace: the graph's. Every step hangs under the graph's root run.
        assert run["trace_id"] == root["id"], name
        assert run["dotted_order"].startswith(root["dotted_order"] + "."), name
        assert metadata(run)["scope_kind"] == "user", name
        assert "alice" not in json.dumps(run), f"{name} leaks the scope id"
        assert not run.get("error"), name

    [ret] = steps["memory.retrieve"]
    assert ret["run_type"] == "retriever"
    assert by_id[ret["parent_run_id"]]["name"] == "recall"
    assert ret["inputs"] == {"query": "Where do I live?", "k": 5, "as_of": None, "pinned_limit": 5}
    [doc] = ret["outputs"]["documents"]
    assert (doc["page_content"], doc["type"], doc["metadata"]["id"]) == (
        "User lives in Delhi.",
        "Document",
        delhi.id,
    )
    assert set(doc["metadata"]) == {
        "id",
        "score",
        "recency",
        "relevance",
        "importance",
        "pinned",
        "created_at",
        "said_in",
        "earlier",
        "outdated",
    }

    [ext] = steps["memory.extract"]
    assert by_id[ext["parent_run_id"]]["name"] == "learn"
    assert [f["text"] for f in ext["outputs"]["facts"]] == ["User moved to Pune."]
    assert (ext["outputs"]["rejected"], ext["outputs"]["error"]) == ([], None)
    assert ext["inputs"]["messages"] == [{"role": "user", "content": "I moved to Pune."}]
    # The model's own run (inside the structured-output chain) nests under the step.
    assert any(
        r["run_type"] == "llm" and r["dotted_order"].startswith(ext["dotted_order"] + ".")
        for r in by_id.values()
    )

    [rec] = steps["memory.reconcile"]
    assert by_id[rec["parent_run_id"]]["name"] == "learn"
    assert rec["inputs"]["fact"]["text"] == "User moved to Pune."
    assert {k: rec["outputs"][k] for k in ("op", "target_id", "shown_ids", "status", "note")} == {
        "op": "UPDATE",
        "target_id": delhi.id,
        "shown_ids": [delhi.id],
        "status": "applied",
        "note": None,
    }
    assert metadata(rec)["memory_reconcile"] == "per_fact"

    [app] = steps["memory.apply"]
    assert by_id[app["parent_run_id"]]["name"] == "learn"
    [logged] = seeded.decisions(U)
    assert app["outputs"]["op"] == "UPDATE" and app["outputs"]["status"] == "applied"
    assert app["outputs"]["target_id"] == delhi.id
    [pune] = seeded.active(U, episodes=False)
    assert app["outputs"]["result_id"] == pune.id and pune.text == "User lives in Pune."
    assert app["outputs"]["id"] == logged.id
    assert set(app["inputs"]) == {"decision", "fact", "pinned"}


def test_batched_mode_is_one_reconcile_run_with_every_decision(
    seeded: MemoryStore, stub: LangSmithStub, client: Client
) -> None:
    model = ScriptedChatModel(
        script=[
            facts("User moved to Pune.", "User is vegan."),
            {
                "decisions": [
                    {"fact": 1, "op": "UPDATE", "id": 0, "text": "User lives in Pune."},
                    {"fact": 2, "op": "ADD", "id": None, "text": "User is vegan."},
                ]
            },
        ]
    )
    writer = MemoryWriter(seeded, model=model, reconcile="batched", gate=False)
    with tracing_context(client=client, project_name=PROJECT, enabled=True):
        decisions = writer.write_turn(U, [("user", "I moved to Pune. I'm vegan.")], now=T0 + DAY)
    runs = sent(client, stub, "memory.reconcile", "memory.apply")
    [rec] = runs["memory.reconcile"]
    assert [(d["op"], d["status"]) for d in rec["outputs"]["decisions"]] == [
        ("UPDATE", "applied"),
        ("ADD", "applied"),
    ]
    assert metadata(rec)["memory_reconcile"] == "batched"
    applied = sorted(runs["memory.apply"], key=lambda r: r["dotted_order"])
    assert [r["outputs"]["op"] for r in applied] == [d.op.value for d in decisions]
    assert [r["outputs"]["result_id"] for r in applied] == [d.result_id for d in decisions]


def outcome(store: MemoryStore, out: State) -> tuple[Any, ...]:
    """What a run did, without the ids and times that differ between stores."""
    decisions = [(d.op, d.status, d.fact, d.text, d.error) for d in store.decisions(U)]
    return (out, sorted(m.text for m in store.active(U, episodes=False)), decisions)


def test_tracing_off_sends_nothing_and_changes_nothing(
    tmp_path: Path, embedder: Embeddings, stub: LangSmithStub, env: pytest.MonkeyPatch
) -> None:
    results = []
    for traced_run in (False, True):
        store = MemoryStore(tmp_path / f"m{traced_run}", embeddings=embedder)
        try:
            store.add(U, "User lives in Delhi.", now=T0)
            model = moved_to_pune()
            graph = memory_graph(store, MemoryWriter(store, model=model, gate=False))
            if traced_run:
                tracing_on(env)
                client = Client(api_url=stub.url, api_key="test")
                with tracing_context(client=client, project_name=PROJECT, enabled=True):
                    out = graph.invoke(TURN)
                sent(client, stub, *STEPS)
                client.cleanup()
            else:
                out = graph.invoke(TURN)
                assert stub.requests == [], "tracing is off: not even /info"
            results.append((outcome(store, out), model.calls))
        finally:
            store.close()
    assert results[0] == results[1]


def test_a_broken_tracer_never_breaks_a_step(
    seeded: MemoryStore,
    stub: LangSmithStub,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("tracer down")

    # langsmith's own wrapper sets a run up in `_setup_run`; make that fail.
    monkeypatch.setattr(langsmith.run_helpers, "_setup_run", broken)
    model = moved_to_pune()
    graph = memory_graph(seeded, MemoryWriter(seeded, model=model, gate=False))
    with tracing_context(client=client, project_name=PROJECT, enabled=True):
        out = graph.invoke(TURN)
    assert out["recalled"] == ["User lives in Delhi."]
    assert out["decisions"] == ["UPDATE applied User lives in Pune."]
    assert model.calls == 2, "each step ran once, untraced"


def test_a_failing_summary_or_step_is_traced_and_the_result_kept(
    stub: LangSmithStub, client: Client
) -> None:
    def bad_summary(value: Any) -> dict[str, Any]:
        raise ValueError("cannot summarise")

    @traced("demo.ok", inputs=dict, outputs=bad_summary)
    def ok(n: int) -> int:
        return n + 1

    @traced("demo.fails", inputs=dict, outputs=dict)
    def fails(n: int) -> int:
        raise KeyError(n)

    with tracing_context(client=client, project_name=PROJECT, enabled=True):
        assert ok(1) == 2
        with pytest.raises(KeyError):
            fails(3)
    runs = sent(client, stub, "demo.ok", "demo.fails")
    [good], [bad] = runs["demo.ok"], runs["demo.fails"]
    assert good["inputs"] == {"n": 1}
    assert "could not summarise outputs" in good["outputs"]["trace_error"]
    assert "KeyError" in bad["error"]


def test_tracing_only_opens_runs_and_each_step_owns_its_summary() -> None:
    """tracing.py knows no step: it imports no step's module and mirrors none of their
    types (no class but its own bookkeeping); each step module declares its own run."""
    tree = ast.parse(Path(tracing.__file__).read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    steps = {f"langgraph_memory.{p}" for p in ("read", "write", "store", "graph", "lifecycle")}
    assert [m for m in imported if ".".join(m.split(".")[:2]) in steps] == []
    classes = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    assert classes == ["_Outcome"]
    for module, run in (
        ("langgraph_memory.read.retrieve", "memory.retrieve"),
        ("langgraph_memory.write.extract", "memory.extract"),
        ("langgraph_memory.write.reconcile", "memory.reconcile"),
        ("langgraph_memory.write.apply", "memory.apply"),
    ):
        source = Path(importlib.import_module(module).__file__ or "").read_text()
        assert f'"{run}"' in source, f"{module} declares no {run} run"
