"""The command line (demo, inspection, purge) and the quickstart notebook, offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from langgraph_memory.cli import main

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "langgraph_memory.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=OFFLINE,
    )


def test_demo_runs_offline_and_shows_the_story(tmp_path: Path) -> None:
    out = run_cli("demo", "--path", str(tmp_path / "demo"))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("Model: none configured") and "rules model" in text
    assert "UPDATE [" in text and "User lives in Pune." in text  # the move
    assert "NOOP   [" in text  # the restated preference
    assert "User's sister lives in Mumbai." in text and "User plans to move to Bangalore" in text
    assert "I don't know that yet" in text  # the question nothing answers
    assert "History of [" in text and "until 2026-06-01" in text
    assert "What I remember about you:" in text


def test_inspection_commands_on_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "store")
    assert run_cli("demo", "--path", path).returncode == 0
    assert main(["show", "--path", path, "--user", "priya"]) == 0
    shown = capsys.readouterr().out
    assert "What you remember about this user" in shown and "User lives in Pune." in shown
    assert main(["show", "--path", path, "--user", "priya", "--ids"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "Pune." in x)
    memory_id = line.split("[")[1].split("]")[0]
    assert main(["history", "--path", path, "--user", "priya", memory_id]) == 0
    assert "User lives in Delhi." in capsys.readouterr().out
    assert main(["why", "--path", path, "--scope", "user:priya", memory_id]) == 0
    why = capsys.readouterr().out
    assert "UPDATE" in why and "shown [0]" in why
    out_file = tmp_path / "export.json"
    assert main(["export", "--path", path, "--user", "priya", "--out", str(out_file)]) == 0
    assert json.loads(out_file.read_text())["scope"] == "user:priya"
    assert main(["purge", "--path", path, "--user", "priya"]) == 2, "purge needs --yes"
    assert main(["purge", "--path", path, "--user", "priya", "--ids", memory_id, "--yes"]) == 0
    assert main(["history", "--path", path, "--user", "priya", memory_id]) == 1
    assert "error: no memory" in capsys.readouterr().err


def test_chat_reads_lines_until_eof(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "langgraph_memory.cli",
            "chat",
            "--path",
            str(tmp_path / "c"),
            "--user",
            "zoe",
        ],
        input="I live in Oslo.\nWhere do I live?\n",
        capture_output=True,
        text=True,
        timeout=300,
        env=OFFLINE,
    )
    assert out.returncode == 0, out.stderr
    assert "ADD" in out.stdout and "you live in Oslo" in out.stdout


def test_quickstart_notebook_runs_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    notebook = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())
    namespace: dict[str, object] = {}
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), "quickstart.ipynb", "exec"), namespace)
    answer = namespace["answer"]
    assert "Pune" in answer["messages"][-1].content  # type: ignore[index]
