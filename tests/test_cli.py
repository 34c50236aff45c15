"""The `langgraph-memory` command, driven as a user drives it: in a subprocess.

Each test runs `python -m langgraph_memory.cli` with this checkout first on the
path, on a small store (embedded, or on a real `chroma run` server), and checks
what a person or a script relies on: ids to pass on, JSON to parse, exit
statuses, errors that say what to do, no traceback when a pipe closes, no store
made by a typo.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import ChromaServer

from langgraph_memory import MemoryStore
from langgraph_memory.cli import output
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.records import EPISODE, Decision, DecisionOp
from langgraph_memory.store import internals

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 1, 5, tzinfo=timezone.utc)
SAID = datetime(2026, 5, 31, tzinfo=timezone.utc)
T1 = datetime(2026, 6, 1, tzinfo=timezone.utc)


def env(**extra: str) -> dict[str, str]:
    """The environment of a CLI run: this checkout imported, no model, no store path."""
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    base.pop("LANGGRAPH_MEMORY_PATH", None)
    return {**base, "PYTHONPATH": str(ROOT), **extra}


def cli(
    *args: str, cwd: Path = ROOT, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "langgraph_memory.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env(**(extra_env or {})),
    )


def ok(*args: str) -> str:
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    return done.stdout


def failed(*args: str, cwd: Path = ROOT, extra_env: dict[str, str] | None = None) -> str:
    """The one error line of a command that must fail with status 1."""
    done = cli(*args, cwd=cwd, extra_env=extra_env)
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert done.stdout == ""
    return lines[0]


def fill(store: MemoryStore) -> dict[str, str]:
    """Alice: a fact that moved (two versions, a decision), a fact, an episode; Bob: one
    fact and one rule."""
    delhi = store.add("user:alice", "User lives in Delhi.", now=T0)
    tea = store.add("user:alice", "User likes tea.", now=T0)
    said = store.add(
        "user:alice", "I moved to Pune.", metadata={EPISODE: True, "turn_id": "t1"}, now=SAID
    )
    pune = store.update("user:alice", delhi.id, "User lives in Pune.", now=T1)
    internals(store).log(
        "user:alice",
        Decision(
            op=DecisionOp.UPDATE,
            fact="User lives in Pune.",
            text="User lives in Pune.",
            target_id=delhi.id,
            result_id=pune.id,
            shown_ids=(delhi.id,),
            shown_texts=("User lives in Delhi.",),
            turn_id="t1",
        ),
        now=T1,
    )
    store.add("user:bob", "User is vegan.", now=T0)
    store.add("user:bob", "User wants answers in metric units.", kind="procedural", now=T0)
    return {"delhi": delhi.id, "pune": pune.id, "tea": tea.id, "said": said.id}


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, str]]:
    """A small embedded store, made once (the commands below only read it)."""
    path = tmp_path_factory.mktemp("cli") / "store"
    with MemoryStore(path, embeddings=LocalMiniLM()) as store:
        ids = fill(store)
    return str(path), ids


# -- reading ----------------------------------------------------------------------------


@pytest.mark.slow  # the CLI in subprocesses
def test_show_prints_the_ids_that_history_and_why_take(filled: tuple[str, dict[str, str]]) -> None:
    path, ids = filled
    shown = ok("show", "--path", path, "--user", "alice")
    assert shown.splitlines() == [
        "Facts (2):",
        f"  [{ids['tea']}] User likes tea.  (since 2026-01-05)",
        f"  [{ids['pune']}] User lives in Pune.  (since 2026-06-01)",
        "Episodes, what was said (1):",
        f"  [{ids['said']}] I moved to Pune.  (since 2026-05-31)",
    ]
    pune = shown.splitlines()[2].split("[")[1].split("]")[0]  # as a person copies it
    assert ok("history", "--path", path, "--user", "alice", pune).splitlines() == [
        f"  [{ids['delhi']}] User lives in Delhi.  (since 2026-01-05, until 2026-06-01)",
        f"  [{ids['pune']}] User lives in Pune.  (since 2026-06-01)",
    ]
    why = ok("why", "--path", path, "--scope", "user:alice", pune)
    assert f"UPDATE [{ids['delhi']}] -> [{ids['pune']}] User lives in Pune." in why
    assert f"shown [0] = {ids['delhi']}: User lives in Delhi." in why
    # A memory no decision made (stored directly) says so instead of printing nothing.
    tea = ok("why", "--path", path, "--user", "alice", ids["tea"])
    assert "stored directly" in tea and "not by the write path" in tea
    # An episode is what was said: no decision makes one, and it says so.
    said = ok("why", "--path", path, "--user", "alice", ids["said"])
    assert f"[{ids['said']}] is an episode: what was said, kept word for word" in said
    assert "turn t1" in said and "stored directly" not in said
    # What the model sees, on request.
    prompt = ok("show", "--path", path, "--user", "alice", "--prompt")
    assert '"User lives in Pune."' in prompt and ids["pune"] not in prompt


@pytest.mark.slow  # the CLI in subprocesses
def test_json_output_parses_and_holds_every_field(filled: tuple[str, dict[str, str]]) -> None:
    path, ids = filled
    memories = json.loads(ok("show", "--path", path, "--user", "alice", "--json"))
    assert [(m["id"], m["text"]) for m in memories] == [
        (ids["tea"], "User likes tea."),
        (ids["said"], "I moved to Pune."),
        (ids["pune"], "User lives in Pune."),
    ]
    assert memories[2]["replaces"] == ids["delhi"] and memories[1]["metadata"][EPISODE] is True
    versions = json.loads(ok("history", "--path", path, "--user", "alice", ids["pune"], "--json"))
    assert [(v["id"], v["valid_until"] is None) for v in versions] == [
        (ids["delhi"], False),
        (ids["pune"], True),
    ]
    decisions = json.loads(ok("why", "--path", path, "--user", "alice", ids["pune"], "--json"))
    assert [(d["op"], d["target_id"], d["result_id"]) for d in decisions] == [
        ("UPDATE", ids["delhi"], ids["pune"])
    ]
    assert json.loads(ok("why", "--path", path, "--user", "alice", ids["tea"], "--json")) == []


@pytest.mark.slow  # the CLI in subprocesses
def test_scopes_lists_users_with_counts(filled: tuple[str, dict[str, str]]) -> None:
    path, _ = filled
    assert json.loads(ok("scopes", "--path", path, "--json")) == [
        {"scope": "user:alice", "facts": 2, "rules": 0, "episodes": 1, "archived": 1},
        {"scope": "user:bob", "facts": 1, "rules": 1, "episodes": 0, "archived": 0},
    ]
    assert ok("scopes", "--path", path).splitlines() == [
        "SCOPE       FACTS  RULES  EPISODES  ARCHIVED",
        "user:alice      2      0         1         1",
        "user:bob        1      1         0         0",
    ]
    assert json.loads(ok("scopes", "--path", path, "--kind", "agent", "--json")) == []
    assert "no scopes" in ok("scopes", "--path", path, "--kind", "agent")


def test_a_read_loads_neither_the_embedder_nor_the_graph(
    filled: tuple[str, dict[str, str]],
) -> None:
    """What keeps `show` quick: no ONNX model, no LangGraph graph, no chat model."""
    path, _ = filled
    code = (
        "import sys\nfrom langgraph_memory.cli import main\n"
        f"assert main(['show', '--path', {path!r}, '--user', 'alice']) == 0\n"
        "heavy = ['onnxruntime', 'tokenizers', 'langchain_openai', 'langgraph.graph',"
        " 'langgraph_memory.graph', 'langgraph_memory.write']\n"
        "print('LOADED', [m for m in heavy if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env()
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "LOADED []"


# -- what cannot work says so ---------------------------------------------------------


@pytest.mark.slow  # the CLI in subprocesses
def test_unknown_ids_and_scopes_fail_with_a_pointer(filled: tuple[str, dict[str, str]]) -> None:
    path, ids = filled
    for command in ("why", "history"):
        line = failed(command, "--path", path, "--user", "alice", "nosuchid")
        assert "no memory 'nosuchid' in user:alice" in line
        assert "langgraph-memory show --scope user:alice" in line
    # An id of another scope is unknown in this one.
    assert "no memory" in failed("history", "--path", path, "--user", "bob", ids["pune"])
    line = failed("show", "--path", path, "--user", "alcie")
    assert "user:alcie holds nothing" in line and "user:alice, user:bob" in line
    assert "user:alcie holds nothing" in failed("why", "--path", path, "--user", "alcie", "x")
    assert "holds nothing" in failed("export", "--path", path, "--user", "alcie")


@pytest.mark.slow  # the CLI in subprocesses
def test_a_read_never_creates_a_store(tmp_path: Path) -> None:
    missing = tmp_path / "typo"
    for command in (["show", "--user", "a"], ["why", "--user", "a", "x"]):
        line = failed(*command, "--path", str(missing))
        assert f"no memory store at {missing}" in line and "--server" in line
    assert not missing.exists()
    # Not a store: a directory without Chroma's database, left as it was.
    (tmp_path / "notes").mkdir()
    line = failed("show", "--path", str(tmp_path / "notes"), "--user", "a")
    assert "is not a memory store" in line
    assert list((tmp_path / "notes").iterdir()) == []
    # The default location (./.langgraph_memory, or $LANGGRAPH_MEMORY_PATH) likewise.
    assert "no memory store at" in failed("scopes", cwd=tmp_path)
    assert not (tmp_path / ".langgraph_memory").exists()
    elsewhere = tmp_path / "from-env"
    line = failed("show", "--user", "a", extra_env={"LANGGRAPH_MEMORY_PATH": str(elsewhere)})
    assert str(elsewhere) in line and not elsewhere.exists()
    # A purge of a store that is not there creates nothing either.
    assert "no memory store" in failed("purge", "--path", str(missing), "--user", "a", "--yes")
    assert not missing.exists()


def test_a_store_held_by_an_app_says_to_use_a_server(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as app:  # this test process is the app
        app.add("user:alice", "User likes tea.")
        line = failed("show", "--path", str(path), "--user", "alice")
    assert "in use by another process" in line
    assert f"chroma run --path {path.resolve()}" in line and "--server localhost:8000" in line


def test_a_server_that_is_not_there_says_how_to_start_one() -> None:
    line = failed("scopes", "--server", "127.0.0.1:9")
    assert "cannot reach a Chroma server at 127.0.0.1:9" in line and "chroma run" in line
    done = cli("scopes", "--server", "localhost:port")
    assert done.returncode == 2 and "is not HOST:PORT" in done.stderr
    done = cli("scopes", "--server", "localhost:8000", "--path", "x")
    assert done.returncode == 2 and "not allowed with argument" in done.stderr
    done = cli("demo", "--database", "db1")
    assert done.returncode == 2 and done.stdout == "" and "add --server" in done.stderr


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_of_unknown_ids_purges_nothing(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as store:
        tea = store.add("user:alice", "User likes tea.")
    line = failed("purge", "--path", str(path), "--user", "alice", "--ids", tea.id, "nope", "--yes")
    assert "no memory 'nope' in user:alice" in line
    assert ok("purge", "--path", str(path), "--user", "alice", "--ids", tea.id, "--yes") == (
        "purged 1 memory version, 0 decisions and 0 reviews\n"
    )
    with MemoryStore(path, embeddings=embedder) as store:
        assert store.active("user:alice") == []


# -- pipes and terminals ----------------------------------------------------------------


@pytest.mark.slow  # the CLI in subprocesses
@pytest.mark.parametrize("command", [["export"], ["show"], ["show", "--json"]])
def test_a_closed_pipe_ends_quietly(command: list[str], filled: tuple[str, dict[str, str]]) -> None:
    """`langgraph-memory export | head`: the reader is gone before the first write."""
    path, _ = filled
    proc = subprocess.Popen(
        [sys.executable, "-m", "langgraph_memory.cli", *command, "--path", path, "--user", "alice"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    # 0, as when everything fit in the pipe before the reader left: the same status
    # whatever the timing (`export | head` under `set -o pipefail` works).
    assert proc.wait(timeout=300) == 0
    assert err == ""  # no BrokenPipeError, no traceback


def test_a_pipe_into_head_prints_no_traceback(filled: tuple[str, dict[str, str]]) -> None:
    path, _ = filled
    done = subprocess.run(
        f"{sys.executable} -m langgraph_memory.cli export --path {path} --user alice | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env(),
        timeout=300,
    )
    assert done.stdout == "{\n" and done.stderr == ""


def test_version_and_help_say_what_to_type() -> None:
    from langgraph_memory.release import RELEASE

    assert ok("--version") == f"langgraph-memory-kit {RELEASE}\n"
    # The release the package says is the one it is built as, and the one the docs name.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{RELEASE}"\n' in pyproject  # no tomllib on Python 3.10
    shown = ok("show", "--help")
    assert "--user ID" in shown and "--scope KIND:ID" in shown and "SCOPE" not in shown


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_dry_run_lists_and_deletes_nothing(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as store:
        ids = fill(store)
    whole = ok("purge", "--path", str(path), "--user", "alice", "--dry-run")
    assert whole.startswith("The purge would delete for good all of user:alice: 4 memory versions")
    assert "User lives in Pune." in whole and "I moved to Pune." in whole
    assert whole.endswith("Nothing was deleted (--dry-run).\n")
    some = ok("purge", "--path", str(path), "--user", "alice", "--ids", ids["pune"], "--dry-run")
    assert "1 memory of user:alice, every version of them" in some
    assert "User lives in Delhi." in some and "User likes tea." not in some  # its chain only
    with MemoryStore(path, embeddings=embedder) as store:
        assert len(store.active("user:alice")) == 3 and len(store.decisions("user:alice")) == 1


def test_progress_shows_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for shown in (True, False):
        screen = Terminal()
        monkeypatch.setattr(sys, "stderr", screen)
        with output.progress("purging user:alice", enabled=shown):
            time.sleep(output.PROGRESS_DELAY + 0.5)
        assert ("purging user:alice" in screen.getvalue()) is shown
    # Quicker than the delay: nothing flashes by.
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with output.progress("exporting"):
        pass
    assert screen.getvalue() == ""
    # Not a terminal (a pipe, a file, a CI log): nothing, however long it takes.
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with output.progress("exporting"):
        time.sleep(output.PROGRESS_DELAY + 0.5)
    assert piped.getvalue() == ""


@pytest.mark.slow  # the CLI in subprocesses
def test_json_on_a_terminal_stays_one_clean_document(tmp_path: Path, embedder: LocalMiniLM) -> None:
    """Stored text that would steer a terminal is escaped in JSON, and round-trips."""
    evil = "Likes tea.\u202e ok\u200b"
    note = "clear\x1b[2J and \x9b1m bold"  # decision fields may carry terminal controls
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as store:
        tea = store.add("user:eve", evil)
        internals(store).log(
            "user:eve", Decision(op=DecisionOp.ADD, fact=evil, result_id=tea.id, note=note)
        )
    out = ok("show", "--path", str(path), "--user", "eve", "--json")
    assert "\u202e" not in out and "\\u202e" in out
    assert json.loads(out)[0]["text"] == evil
    out = ok("why", "--path", str(path), "--user", "eve", tea.id, "--json")
    assert "\x1b" not in out and "\x9b" not in out and "\\u009b" in out
    assert json.loads(out)[0]["note"] == note


# -- a Chroma server --------------------------------------------------------------------


@pytest.fixture
def on_server(
    chroma_server: ChromaServer, embedder: LocalMiniLM
) -> Iterator[tuple[list[str], MemoryStore, dict[str, str]]]:
    """A fresh database on the session's server, filled and held open by this process
    (the running app), and the CLI arguments that name it."""
    database = f"db{uuid.uuid4().hex}"
    app = MemoryStore(client=chroma_server.client(database), embeddings=embedder)
    try:
        ids = fill(app)
        where = ["--server", f"{chroma_server.host}:{chroma_server.port}", "--database", database]
        yield where, app, ids
    finally:
        app.close()


@pytest.mark.server
def test_every_reading_command_works_on_a_server_beside_the_app(
    on_server: tuple[list[str], MemoryStore, dict[str, str]],
) -> None:
    where, app, ids = on_server
    assert json.loads(ok("scopes", *where, "--json"))[0] == {
        "scope": "user:alice",
        "facts": 2,
        "rules": 0,
        "episodes": 1,
        "archived": 1,
    }
    assert f"[{ids['pune']}] User lives in Pune." in ok("show", *where, "--user", "alice")
    versions = json.loads(ok("history", *where, "--user", "alice", ids["pune"], "--json"))
    assert [v["text"] for v in versions] == ["User lives in Delhi.", "User lives in Pune."]
    assert "UPDATE" in ok("why", *where, "--user", "alice", ids["pune"])
    exported = json.loads(ok("export", *where, "--user", "alice"))
    assert len(exported["memories"]) == 4
    assert "no memory 'nope'" in failed("why", *where, "--user", "alice", "nope")
    # The app sees a write made meanwhile, and the CLI sees the app's.
    app.add("user:carol", "User plays chess.")
    assert "User plays chess." in ok("show", *where, "--user", "carol")


@pytest.mark.server
def test_import_and_purge_on_a_server(
    on_server: tuple[list[str], MemoryStore, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    where, app, _ = on_server
    backup = tmp_path / "alice.json"
    assert ok("export", *where, "--user", "alice", "--out", str(backup)) == ""
    # A command that writes beside the app says, in one line, that the server has no
    # lock (tests/test_scope_locks.py); one that only reads says nothing (ok: above).
    done = cli("import", *where, "--scope", "user:alice2", "--in", str(backup))
    assert done.returncode == 0, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "has no cross-process lock" in done.stderr
    assert done.stdout.startswith("restored 4 memory versions (3 active, 1 closed)")
    monkeypatch.setenv("LANGGRAPH_MEMORY_LOCK_URL", "in-process")  # silenced from here
    assert "purged 4 memory versions" in ok("purge", *where, "--user", "alice", "--yes")
    assert [s.key for s in app.scopes()] == ["user:alice2", "user:bob"]
    assert "user:alice holds nothing" in failed("show", *where, "--user", "alice")
    line = failed("scopes", "--server", where[1], "--database", "nope")
    assert "Database [nope] not found" in line and "--database" in line


@pytest.mark.server
def test_chat_writes_to_a_server_that_the_app_reads(
    on_server: tuple[list[str], MemoryStore, dict[str, str]],
) -> None:
    where, app, _ = on_server
    done = subprocess.run(
        [sys.executable, "-m", "langgraph_memory.cli", "chat", *where, "--user", "dana"],
        input="I live in Oslo.\n",
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env(),
    )
    assert done.returncode == 0, done.stderr
    assert "ADD" in done.stdout
    assert "User lives in Oslo." in [m.text for m in app.active("user:dana", episodes=False)]


# -- the benchmark ------------------------------------------------------------------------


@pytest.mark.slow  # a benchmark's run
def test_the_startup_benchmark_runs_every_command(tmp_path: Path) -> None:
    """`python -m benchmarks cli` still runs (one round; benchmarks measure, tests do not)."""
    out = tmp_path / "cli.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "cli", "--repeat", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert {"show", "scopes", "why ID", "import chromadb"} <= set(report["commands"])
    assert report["commands"]["import chromadb"]["ratio_to_floor"] == 1.0
    assert "| show |" in done.stdout


def test_show_lists_rules_first_and_why_explains_a_rule(tmp_path: Path) -> None:
    from langgraph_memory.write import MemoryWriter, RulesModel

    path = str(tmp_path / "memory")
    when = datetime(2026, 3, 2, tzinfo=timezone.utc)
    with MemoryStore(path) as store:
        writer = MemoryWriter(store, model=RulesModel())
        writer.write_turn("user:ann", [("user", "Always answer in metric units.")], now=when)
        [decision] = writer.write_turn(
            "user:ann", [("user", "Always answer in imperial units.")], now=when
        )
    shown = ok("show", "--path", path, "--user", "ann").splitlines()
    assert shown[0] == "Rules, how to work with this user (1):"
    assert "always answer in imperial units" in shown[1]
    why = ok("why", "--path", path, "--user", "ann", str(decision.result_id))
    assert "UPDATE" in why and "always answer in metric units" in why  # what it replaced
