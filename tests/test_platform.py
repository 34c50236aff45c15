"""LangGraph Platform: ``graphs/langgraph.json`` served by the in-memory server
(``langgraph dev``), one turn through the SDK, and the Platform's store API
sees what the turn wrote, because the graph runs on the store the file declares.
The README's Platform example runs here, against that server."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import free_port, serving
from readme_blocks import block_under

pytest.importorskip("langgraph_api", reason="needs langgraph-cli[inmem] (langgraph dev)")
pytest.importorskip("langgraph_runtime_inmem", reason="needs langgraph-cli[inmem] (langgraph dev)")
sdk = pytest.importorskip("langgraph_sdk", reason="needs langgraph-sdk (langgraph-cli[inmem])")

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = ROOT / "graphs"
STARTUP_S = 120


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


def test_the_readme_example_runs_against_the_server(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = block_under("LangGraph Platform")
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
