"""The many-process deployment of docs/guide/production.md ("Many app processes"), run
as written: its bash block, with this machine's servers put in for the addresses it names (a real
`chroma run`, a real PostgreSQL), four `examples/chat_server.py` processes, and the
curl requests. What they answer must be what the guide's comments say, and the
memory they share must hold the user's fact once."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings
from conftest import ChromaServer, running_server
from doc_blocks import DOCS
from lock_servers import LockServer, running_postgres
from processes import free_port

from langgraph_memory import MemoryStore

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Many app processes"
PORTS = ("8081", "8082", "8083", "8084")

pytestmark = pytest.mark.server


def bash_block() -> str:
    text = (DOCS / "guide" / "production.md").read_text()
    section = text[text.index(HEADING) :]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ChromaServer, LockServer]]:
    with (
        running_server(tmp_path_factory.mktemp("deploy-chroma")) as chroma,
        running_postgres() as postgres,
    ):
        yield chroma, postgres


def as_run_here(
    block: str, chroma: ChromaServer, postgres: LockServer, ports: dict[str, str]
) -> str:
    """The block with this machine's servers and free ports in place of the guide's
    (its own install and `chroma run` lines are done already: the servers run)."""
    script = []
    for line in block.splitlines():
        if line.startswith(("pip install", "chroma run")):
            continue
        script.append(line)
    text = "\n".join(script)
    text = text.replace("127.0.0.1:8000", f"{chroma.host}:{chroma.port}")
    text = re.sub(r'"postgresql://[^"]+"', f'"{postgres.url}"', text)
    # All at once: one by one, a free port that held a later guide port's digits (a
    # free port 58083 for 8081, then 8083 replaced) was changed again, into no port.
    if ports:
        pattern = "|".join(re.escape(port) for port in sorted(ports, key=len, reverse=True))
        text = re.sub(pattern, lambda found: ports[found.group(0)], text)
    text = text.replace("python examples/", f"{sys.executable} {ROOT}/examples/")
    # The workers end with the script, however it ends: SIGTERM each, then wait for them
    # (they flush their turns), so nothing outlives the test.
    return f"trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT\n{text}\n"


def test_the_readme_deployment_runs_four_processes_on_one_memory(
    servers: tuple[ChromaServer, LockServer], tmp_path: Path
) -> None:
    if shutil.which("curl") is None:
        pytest.skip("`curl` is not installed (apt-get install -y curl)")
    chroma, postgres = servers
    block = bash_block()
    assert block.count("examples/chat_server.py") == 1 and all(p in block for p in PORTS)
    ports = {p: str(free_port()) for p in PORTS}
    expected = [line[2:] for line in block.splitlines() if line.startswith("# {")]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LANGGRAPH_"))}
    env |= {"PYTHONPATH": str(ROOT), "LANGSMITH_TRACING": "false"}
    # A session of its own: a timeout kills the script's whole process group, workers
    # included, not bash alone (its trap then never runs).
    script = subprocess.Popen(
        ["bash", "-c", as_run_here(block, chroma, postgres, ports)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = script.communicate(timeout=300)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.communicate()
    assert script.returncode == 0, stderr
    answers = [line for line in stdout.splitlines() if line.startswith("{")]
    assert answers == expected, stdout + stderr
    assert stdout.count("serving on http://") == 4, stdout
    client = chromadb.HttpClient(
        host=chroma.host, port=chroma.port, settings=Settings(anonymized_telemetry=False)
    )
    with MemoryStore(client=client) as store:
        [fact] = store.active("user:alice", episodes=False)  # once, though four processes wrote
        assert fact.text == "User lives in Pune."
        versions = [m.text for m in store.history("user:alice", fact.id)]
        assert versions == ["User lives in Delhi.", "User lives in Pune."]  # in order
