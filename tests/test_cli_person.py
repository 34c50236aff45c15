"""The reviewer's commands (`reviews`, `approve`, `reject`) and a person's data
(`export`, `import`, `purge` with its question), driven in a subprocess as a
user drives them, on an embedded store and on a `chroma run` server."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import ChromaServer
from test_cli import ROOT, cli, env, failed, ok
from test_purge_no_trace import files_holding

from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.store.chroma.layout import JOURNAL_FILE
from langgraph_memory.write.journal import Journal, JournalEntry

# The CLI driven in subprocesses, as a person drives it: the slow tier.
pytestmark = pytest.mark.slow


def proposals(store: MemoryStore) -> dict[str, str]:
    """Two memories of Alice proposed for the support agent, one agent memory for the org."""
    email = store.add("user:alice", "Customers prefer email to phone calls.")
    manager = store.add("user:alice", "User's manager is Raj.")
    shared = store.add("agent:support", "Refunds take five working days.")
    return {
        "email": store.reviews.propose(
            "user:alice", email.id, "agent:support", note="heard often"
        ).id,
        "manager": store.reviews.propose("user:alice", manager.id, "agent:support").id,
        "org": store.reviews.propose("agent:support", shared.id, "org:acme").id,
        "email_id": email.id,
    }


def review_commands(where: list[str], ids: dict[str, str]) -> None:
    listed = ok("reviews", *where, "--to", "agent:support")
    assert f"[{ids['email']}] pending  user:alice -> agent:support" in listed
    assert "Customers prefer email to phone calls." in listed and "note: heard often" in listed
    assert ids["org"] not in listed
    as_json = json.loads(ok("reviews", *where, "--json"))
    assert [r["id"] for r in as_json] == [ids["email"], ids["manager"], ids["org"]]
    done = ok("approve", *where, ids["email"], "--reason", "true of most customers")
    assert done.startswith(f"approved review {ids['email']}: [{ids['email_id']}] of user:alice")
    assert "copied into agent:support as [" in done
    assert ok("reject", *where, ids["manager"], "--reason", "personal").startswith(
        f"rejected review {ids['manager']}"
    )
    assert "decided once" in failed("approve", *where, ids["manager"])
    assert "no review 'nope'" in failed("approve", *where, "nope")
    # An org scope: only with --admin.
    assert "add --admin" in failed("approve", *where, ids["org"])
    assert ok("approve", *where, ids["org"], "--admin").startswith(f"approved review {ids['org']}")
    assert ok("reviews", *where) == "no pending reviews\n"
    decided = ok("reviews", *where, "--status", "all", "--from", "user:alice")
    assert "approved" in decided and "rejected" in decided and "personal" in decided


def test_a_reviewer_lists_approves_and_rejects(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as store:
        ids = proposals(store)
    review_commands(["--path", str(path)], ids)
    with MemoryStore(path, embeddings=embedder) as store:
        assert [m.text for m in store.active("org:acme")] == ["Refunds take five working days."]
        assert len(store.active("agent:support")) == 2


@pytest.mark.server
def test_a_reviewer_works_on_a_server_beside_the_app(
    chroma_server: ChromaServer, embedder: LocalMiniLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # approve and reject write, so with no lock they would warn that the server has none
    # (tests/test_cli.py: test_import_and_purge_on_a_server); this test is about reviews.
    monkeypatch.setenv("LANGGRAPH_MEMORY_LOCK_URL", "in-process")
    database = f"db{uuid.uuid4().hex}"
    with MemoryStore(client=chroma_server.client(database), embeddings=embedder) as app:
        ids = proposals(app)
        where = ["--server", f"{chroma_server.host}:{chroma_server.port}", "--database", database]
        review_commands(where, ids)
        assert [r.status.value for r in app.reviews(status=None)] == [
            "approved",
            "rejected",
            "approved",
        ]


def test_import_into_an_org_scope_takes_admin(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as store:
        with store.admin() as admin:
            admin.add("org:acme", "Refunds take five working days.")
        backup = tmp_path / "acme.json"
        backup.write_text(json.dumps(store.export("org:acme")), encoding="utf-8")
    where = ["--path", str(path), "--scope", "org:copy", "--in", str(backup)]
    assert "only an admin writes" in failed("import", *where)
    assert ok("import", *where, "--admin").startswith("restored 1 memory version (")
    purge = ["purge", "--path", str(path), "--scope", "org:copy", "--yes"]
    assert "only an admin writes" in failed(*purge)
    assert ok(*purge, "--admin").startswith("purged 1 memory version,")


# -- a person's data through the command line ------------------------------------------


def test_export_import_export_is_byte_identical(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path, copy_path = tmp_path / "store", tmp_path / "copy"
    with MemoryStore(path, embeddings=embedder) as store:
        ids = proposals(store)
        store.reviews.approve(ids["email"])
        store.update("user:alice", ids["email_id"], "Customers prefer email.")
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    ok("export", "--path", str(path), "--user", "alice", "--out", str(first))
    restored = ok("import", "--path", str(copy_path), "--user", "alice", "--in", str(first))
    assert "and 2 reviews" in restored
    ok("export", "--path", str(copy_path), "--user", "alice", "--out", str(second))
    assert second.read_bytes() == first.read_bytes()


def on_a_terminal(args: list[str], answer: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI with a terminal as stdin, typing ``answer`` into it."""
    controller, terminal = pty.openpty()
    try:
        os.write(controller, answer.encode() + b"\n")
        return subprocess.run(
            [sys.executable, "-m", "langgraph_memory.cli", *args],
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
            env=env(),
        )
    finally:
        os.close(terminal)
        os.close(controller)


def test_purge_asks_on_a_terminal_and_refuses_without_one(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    path = tmp_path / "store"
    with MemoryStore(path, embeddings=embedder) as store:
        proposals(store)
    where = ["purge", "--path", str(path), "--user", "alice"]
    no_terminal = cli(*where)  # stdin is not a terminal here
    assert no_terminal.returncode == 2 and "add --yes" in no_terminal.stderr
    wrong = on_a_terminal(where, "user:bob")
    assert wrong.returncode == 1, wrong.stderr
    assert "Type user:alice to confirm" in wrong.stderr and "2 reviews" in wrong.stderr
    assert wrong.stderr.strip().endswith("nothing purged") and wrong.stdout == ""
    with MemoryStore(path, embeddings=embedder) as store:
        assert len(store.active("user:alice")) == 2 and len(store.reviews()) == 3
    right = on_a_terminal(where, "user:alice")
    assert right.returncode == 0, right.stderr
    assert right.stdout == "purged 2 memory versions, 2 decisions and 2 reviews\n"
    with MemoryStore(path, embeddings=embedder) as store:
        assert store.scopes("user") == [] and [r.from_scope for r in store.reviews()] == [
            "agent:support"
        ]


def test_a_stopped_writers_journal_is_exported_and_purged(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    """Turns a background writer accepted and never applied (it stopped first) wait
    in the store's journal: an export holds them, a purge takes them out of it."""
    path = tmp_path / "store"
    marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
    with MemoryStore(path, embeddings=embedder) as store:
        store.add("user:alice", "Customers prefer email to phone calls.")
    journal = Journal(path / JOURNAL_FILE)  # what a writer that stopped leaves behind
    said = (("user", f"My PIN is {marker}."),)
    journal.append(JournalEntry("t1", "user:alice", said, datetime.now(timezone.utc)))
    journal.append(JournalEntry("t2", "user:carol", said, datetime.now(timezone.utc)))
    journal.close()
    exported = json.loads(ok("export", "--path", str(path), "--user", "alice"))
    assert [t["id"] for t in exported["pending_turns"]] == ["t1"]
    # Carol's only data is her queued turn: hers to export and purge too.
    assert [
        t["id"]
        for t in json.loads(ok("export", "--path", str(path), "--user", "carol"))["pending_turns"]
    ] == ["t2"]
    ok("purge", "--path", str(path), "--user", "alice", "--yes")
    ok("purge", "--path", str(path), "--user", "carol", "--yes")
    assert files_holding(path, [marker]) == {}
