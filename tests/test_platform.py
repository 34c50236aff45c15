"""LangGraph Platform: ``graphs/langgraph.json`` served by the in-memory server
(``langgraph dev``), one turn through the SDK, and the Platform's store API
sees what the turn wrote, because the graph runs on the store the file declares.
The Platform example of docs/guide/building.md runs here, against that server, and so do the
deferred writes of docs/platform.md: background runs queued per scope."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from doc_blocks import DOCS, block_under, blocks
from processes import free_port, serving

from graphs.write_memory import scope_thread_id, write_later

pytest.importorskip("langgraph_api", reason="needs langgraph-cli[inmem] (langgraph dev)")
pytest.importorskip("langgraph_runtime_inmem", reason="needs langgraph-cli[inmem] (langgraph dev)")
sdk = pytest.importorskip("langgraph_sdk", reason="needs langgraph-sdk (langgraph-cli[inmem])")

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = ROOT / "graphs"
PLATFORM_DOC = ROOT / "docs" / "platform.md"
STARTUP_S = 120
JOBS = 4  # runs at once; `langgraph dev` runs one unless told, which would order every run


def served_config(folder: Path) -> Path:
    """graphs/langgraph.json with its paths made absolute, so the server can run in
    ``folder`` (its own state goes to ``folder/.langgraph_api``, not into graphs/)."""
    config = json.loads((GRAPHS / "langgraph.json").read_text())

    def absolute(ref: str) -> str:
        path, _, name = ref.rpartition(":")
        return f"{(GRAPHS / path).resolve()}:{name}"

    config["graphs"] = {k: absolute(v) for k, v in config["graphs"].items()}
    if "path" in config.get("store", {}):
        config["store"]["path"] = absolute(config["store"]["path"])
    config["dependencies"] = [str((GRAPHS / d).resolve()) for d in config["dependencies"]]
    config.pop("env", None)  # ../.env: this test's environment is set below
    target = folder / "langgraph.json"
    target.write_text(json.dumps(config))
    return target


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp_path = tmp_path_factory.mktemp("platform")
    cli = Path(sys.executable).with_name("langgraph")
    if not cli.exists():
        pytest.skip("the `langgraph` command (langgraph-cli) is not installed")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LANGSMITH_"))}
    env |= {
        "PYTHONPATH": str(ROOT),  # this checkout's package, not an installed one
        "LANGGRAPH_MEMORY_PATH": str(tmp_path / "memory"),
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
    }
    url = f"http://127.0.0.1:{port}"
    command = [str(cli), "dev", "--no-browser", "--no-reload", "--port", str(port)]
    command += ["--n-jobs-per-worker", str(JOBS)]
    with serving(
        [*command, "--config", str(served_config(tmp_path))],
        ready=lambda: _ready(url),
        log_path=tmp_path / "server.log",
        what="langgraph dev",
        timeout=STARTUP_S,
        cwd=tmp_path,
        env=env,
    ):
        yield url


@pytest.mark.slow  # an app in a subprocess
def test_the_readme_example_runs_against_the_server(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = block_under("LangGraph Platform", DOCS / "guide" / "building.md")
    assert "http://127.0.0.1:2024" in code, "the example names langgraph dev's address"
    exec(code.replace("http://127.0.0.1:2024", server), {})
    assert "User lives in Pune." in capsys.readouterr().out


def test_the_platforms_store_api_sees_what_a_turn_remembered(server: str) -> None:
    client = sdk.get_sync_client(url=server)
    thread = client.threads.create()
    out = client.runs.wait(
        thread["thread_id"],
        "chat_with_memory",
        input={"messages": [{"role": "user", "content": "I live in Delhi."}]},
        context={"user_id": "carol"},
    )
    assert out["messages"][-1]["type"] == "ai", out
    found = client.store.search_items(("user", "carol"))["items"]
    facts = [i["value"]["text"] for i in found if i["value"]["kind"] != "episodic"]
    assert facts == ["User lives in Delhi."]
    assert all(tuple(i["namespace"]) == ("user", "carol") for i in found)
    assert client.store.search_items(("user", "dave"))["items"] == []
    client.runs.wait(
        thread["thread_id"],
        "chat_with_memory",
        input={"messages": [{"role": "user", "content": "Where do I live?"}]},
        config={"configurable": {"user_id": "carol"}},
    )
    state = client.threads.get_state(thread["thread_id"])
    assert "User lives in Delhi." in state["values"]["memories"], "the read node read it back"


def test_the_maintenance_graph_runs_on_the_platforms_store_and_takes_a_cron(server: str) -> None:
    client = sdk.get_sync_client(url=server)
    for _ in range(2):  # the same fact stored twice, through the Platform's store API
        client.store.put_item(
            ("user", "erin"), key=os.urandom(4).hex(), value={"text": "Erin is vegan."}
        )
    out = client.runs.wait(None, "maintenance", input={"scope": "user:erin"})
    assert out["report"]["totals"]["merged"] == 1, out
    assert [i["value"]["text"] for i in client.store.search_items(("user", "erin"))["items"]] == [
        "Erin is vegan."
    ]
    cron = client.crons.create("maintenance", schedule="0 3 * * *", input={})
    client.crons.delete(cron["cron_id"])


def test_the_platform_docs_example_runs_against_the_server(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    [code] = [b.code for b in blocks(PLATFORM_DOC)]
    assert "http://127.0.0.1:2024" in code, "the example names langgraph dev's address"
    names: dict[str, Any] = {}
    exec(code.replace("http://127.0.0.1:2024", server), names)
    assert "User lives in Pune." in capsys.readouterr().out
    # The example's thread is graphs/write_memory.py's: both queue a scope's turns together.
    assert names["run"]["thread_id"] == scope_thread_id("user:alice")


def _said(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def _facts(client: Any, scope: str) -> list[str]:
    items = client.store.search_items(tuple(scope.split(":")))["items"]
    return sorted(i["value"]["text"] for i in items if i["value"]["kind"] != "episodic")


def _finished(client: Any, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each run once done: its status, when it was created, started (its first
    checkpoint on the thread) and ended (its last status change), and its decisions
    (the values of its last checkpoint). The run record has no start time of its own."""
    for run in runs:
        client.runs.join(run["thread_id"], run["run_id"])
    out = []
    for run in runs:
        record = client.runs.get(run["thread_id"], run["run_id"])
        history = client.threads.get_history(run["thread_id"], limit=100)
        mine = sorted(
            (c for c in history if c["metadata"].get("run_id") == run["run_id"]),
            key=lambda c: c["created_at"],
        )
        assert mine, f"run {run['run_id']} left no checkpoint"
        out.append(
            {
                "status": record["status"],
                "created": datetime.fromisoformat(record["created_at"]),
                "started": datetime.fromisoformat(mine[0]["created_at"]),
                "ended": datetime.fromisoformat(record["updated_at"]),
                "decisions": mine[-1]["values"]["decisions"],
            }
        )
    return out


def test_one_scopes_deferred_writes_queue_on_its_thread_and_apply_in_order(server: str) -> None:
    client = sdk.get_sync_client(url=server)
    said = ["I live in Delhi.", "I moved to Pune.", "I moved to Mumbai.", "I moved to Chennai."]
    runs = [write_later(client, "user:frank", _said(text)) for text in said]  # back to back
    assert {r["thread_id"] for r in runs} == {scope_thread_id("user:frank")}
    done = _finished(client, runs)

    assert [r["status"] for r in done] == ["success"] * 4
    assert all(a["created"] < b["created"] for a, b in pairwise(done))
    for before, after in pairwise(done):  # one at a time, in the order created
        assert before["ended"] <= after["started"], (before, after)
    ops = [[d["op"] for d in r["decisions"]] for r in done]
    assert ops == [["ADD"], ["UPDATE"], ["UPDATE"], ["UPDATE"]], ops
    for before, after in pairwise(done):  # each turn saw, and replaced, the one before
        [made], [update] = before["decisions"], after["decisions"]
        assert update["target_id"] == made["result_id"]
        assert made["text"] in update["shown_texts"]
    assert _facts(client, "user:frank") == ["User lives in Chennai."]


@pytest.mark.slow  # waits on deferred writers
def test_two_scopes_deferred_writes_run_side_by_side(server: str) -> None:
    client = sdk.get_sync_client(url=server)
    said = {
        "user:grace": ["I live in Paris.", "I moved to Rome.", "I moved to Oslo."],
        "user:heidi": ["I live in Lima.", "I moved to Quito.", "I moved to Bogota."],
    }
    runs: dict[str, list[dict[str, Any]]] = {scope: [] for scope in said}
    for i in range(3):  # as an app sends them: the two users' turns interleaved
        for scope, texts in said.items():
            runs[scope].append(write_later(client, scope, _said(texts[i])))
    assert runs["user:grace"][0]["thread_id"] != runs["user:heidi"][0]["thread_id"]
    grace, heidi = (_finished(client, runs[scope]) for scope in said)

    for done in (grace, heidi):  # each scope on its own: in order, one at a time
        assert [r["status"] for r in done] == ["success"] * 3
        ops = [[d["op"] for d in r["decisions"]] for r in done]
        assert ops == [["ADD"], ["UPDATE"], ["UPDATE"]], ops
        assert all(a["ended"] <= b["started"] for a, b in pairwise(done))
    # With JOBS workers, one scope's queue does not wait for the other's to drain
    # (the control for the test above: runs on different threads do overlap).
    assert heidi[0]["started"] < grace[-1]["ended"]
    assert grace[0]["started"] < heidi[-1]["ended"]
    assert _facts(client, "user:grace") == ["User lives in Oslo."]
    assert _facts(client, "user:heidi") == ["User lives in Bogota."]


def test_a_fact_restated_on_several_queued_runs_is_stored_once(server: str) -> None:
    client = sdk.get_sync_client(url=server)
    said = ["I am vegetarian.", "I am vegetarian.", "I'm a vegetarian."]
    runs = [
        write_later(client, "user:ivan", _said(text), turn_id=f"t{i}")
        for i, text in enumerate(said)
    ]
    runs.append(write_later(client, "user:ivan", _said(said[0]), turn_id="t0"))  # a retried turn
    done = _finished(client, runs)

    assert [r["status"] for r in done] == ["success"] * 4
    assert [[d["op"] for d in r["decisions"]] for r in done] == [["ADD"], ["NOOP"], ["NOOP"], []]
    assert _facts(client, "user:ivan") == ["User is vegetarian."]
    items = client.store.search_items(("user", "ivan"))["items"]
    episodes = {
        i["value"]["text"]: i["value"]["metadata"].get("said_count", 1)
        for i in items
        if i["value"]["kind"] == "episodic"
    }
    # The same words said twice are one episode said twice; the retried turn counts once.
    assert episodes == {"I am vegetarian.": 2, "I'm a vegetarian.": 1}
