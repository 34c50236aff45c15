"""Purge is a hard delete: afterwards no file under the persist directory holds
the purged text or ids, and everything else is intact.

Chroma keeps deleted bytes in several places (see store/chroma/compaction.py); these
tests scan every file byte by byte. The embedded scenarios run in a child
process whose environment has no ``GLIBC_TUNABLES`` (the guarantee must not
depend on the user setting it), and so the directory is also scanned after
the process let go of it. The repeated scenario also covers the decision log
(decisions without memory ids, ``shown_ids``), a BackgroundWriter's journal, a
reflection, and reviews into an agent scope (approved: its copy and the
decisions there; rejected; pending).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import running_server
from langchain_core.embeddings import DeterministicFakeEmbedding
from test_backup import holding

from langgraph_memory import (
    BackgroundWriter,
    CompactionError,
    Decision,
    DecisionOp,
    MemoryStore,
    MemoryWriter,
    Scope,
    Status,
)
from langgraph_memory.store import compact_directory, internals
from langgraph_memory.store.engine.engine import PURGE_MARK
from langgraph_memory.write import RulesModel

# Byte scans of every file after purges in child processes (twenty purges): slow tier.
pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve()


def files_holding(root: Path, needles: list[str]) -> dict[str, list[str]]:
    """Every file under ``root`` that contains one of ``needles`` (UTF-8 or UTF-16), as
    written or case-folded (the lexical index holds case-folded terms)."""
    found: dict[str, list[str]] = {}
    patterns = {
        n: [
            form.encode(e)
            for form in {n, n.casefold()}
            for e in ("utf-8", "utf-16-le", "utf-16-be")
        ]
        for n in needles
    }
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        for needle, encodings in patterns.items():
            if any(e in data for e in encodings):
                found.setdefault(needle, []).append(str(path.relative_to(root)))
    return found


def fill(store: MemoryStore, scope: str, marker: str, filler: int) -> list[str]:
    """Memories, versions and log entries that hold ``marker``, among filler; their ids."""
    store.add_many(scope, [f"Filler memory {i} about ordinary things." for i in range(filler)])
    secret = store.add(scope, f"User's passport number is {marker}-A.")
    newer = store.update(scope, secret.id, f"User's passport number is {marker}-B.")
    other = store.add(scope, f"User's locker code is {marker}-C.", metadata={"note": marker})
    internals(store).log(
        scope,
        [
            Decision(op=DecisionOp.ADD, fact=f"passport {marker}", result_id=secret.id),
            Decision(
                op=DecisionOp.UPDATE,
                fact=f"new passport {marker}",
                target_id=secret.id,
                result_id=newer.id,
                raw=json.dumps({"text": marker}),
            ),
            Decision(op=DecisionOp.ADD, fact=f"locker {marker}", result_id=other.id),
        ],
    )
    # A BaseStore item of two index fields: a vector per field in its record, and kept
    # in memory once a search read them.
    namespace = Scope.parse(scope).namespace
    fields = {"title": f"Trip {marker}-E.", "body": f"Visa {marker}-F."}
    store.put(namespace, "trip", fields, index=["title", "body"])
    assert [i.key for i in store.search(namespace, query=f"Visa {marker}-F.", limit=1)] == ["trip"]
    [trip] = [m for m in store.active(scope) if m.text == f"Trip {marker}-E. Visa {marker}-F."]
    return [secret.id, newer.id, other.id, trip.id]


def unscrubbed_env() -> dict[str, str]:
    """This environment without the glibc settings that scrub freed memory, and with
    this checkout first on the path (the child imports the package under test)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "MALLOC_PERTURB_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parents[1]), env.get("PYTHONPATH")]))
    return env


def repeated_scenario(directory: Path, rounds: int) -> dict[str, object]:
    """Run in a child process: ``rounds`` times, in one store, fill a scope with a
    fresh marker (memories, versions, decisions with and without ids, a decision
    that showed it, a journaled turn and its episode, a reflection, reviews of each
    status) and purge it, by ids and whole; scan after each for the marker, the
    ids, the copy an approval made, the reviews and (whole) the scope's key."""
    found: dict[str, object] = {}
    markers: list[str] = []
    store = MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=32))
    keep = store.add("user:bob", "Bob keeps his umbrella in the hall.")
    shared = store.add("agent:shared", "Agents sign with their first name.")
    writer = MemoryWriter(store, model=RulesModel())
    with BackgroundWriter(writer, journal=directory / "turns.jsonl") as bg:
        for r in range(rounds):
            for mode in ("ids", "scope"):
                marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
                markers.append(marker)
                scope = f"user:alice{r}{mode}"
                ids = fill(store, scope, marker, filler=1100 if mode == "ids" and r == 0 else 20)
                turn = "t" + uuid.uuid4().hex[:8]
                internals(store).log(
                    scope,
                    [
                        Decision(op=DecisionOp.ADD, fact=marker, result_id=ids[0], turn_id=turn),
                        Decision(
                            op=DecisionOp.NOOP,
                            fact=f"{marker} again",
                            status=Status.FAILED,
                            turn_id=turn,
                        ),
                        Decision(
                            op=DecisionOp.NOOP,
                            fact="User keeps a diary.",
                            shown_ids=(ids[2],),
                            shown_texts=(f"User's locker code is {marker}-C.",),
                        ),
                    ],
                )
                bg.submit(scope, [("user", f"My passport number is {marker}.")])
                assert bg.flush(timeout=120)
                # What the turn said is an episode of its own: purged by its id too.
                ids += [m.id for m in store.active(scope) if m.is_episode]
                # A reflection resting on the passport (purged with what it rests on).
                store.add(
                    scope,
                    f"User guards the passport {marker}-R closely.",
                    kind="reflection",
                    source="reflection",
                    sources=(ids[1],),
                )
                elsewhere = reviewed(store, scope, marker, ids)
                store.purge(scope, ids if mode == "ids" else None)
                whole = [scope] if mode == "scope" else []  # its registry entry, its reviews
                hits = files_holding(directory, [marker, *ids, *elsewhere, *whole])
                if hits:
                    found[f"{r}/{mode}"] = hits
                if mode == "ids":  # what was not purged stays, with the purged id replaced
                    left = [d for d in store.decisions(scope) if d.fact == "User keeps a diary."]
                    assert [d.shown_ids for d in left] == [("[purged]",)], left
    assert [m.id for m in store.active("user:bob")] == [keep.id]
    assert [m.id for m in store.active("agent:shared")] == [shared.id]
    assert store.reviews(status=None) == [] and store.decisions("agent:shared") == []
    store.close()
    return {"found": found, "markers": markers}


def reviewed(store: MemoryStore, scope: str, marker: str, ids: list[str]) -> list[str]:
    """Reviews of the scope's marked memories into an agent scope: one approved (its
    copy there), one rejected, one pending (a memory added to ``ids``). Returns what
    the scan must not find after the purge: the copy's id and the reviews' ids."""
    gate = store.add(scope, f"User's gate code is {marker}-D.")
    ids.append(gate.id)
    approved = store.reviews.approve(store.reviews.propose(scope, ids[1], "agent:shared").id)
    rejected = store.reviews.reject(
        store.reviews.propose(scope, ids[2], "agent:shared").id, reason=marker
    )
    pending = store.reviews.propose(scope, gate.id, "agent:shared", note=marker)
    assert approved.result_id is not None
    return [approved.result_id, approved.id, rejected.id, pending.id]


def purge_through_the_page(store: MemoryStore, scope: str, ids: list[str] | None) -> None:
    """Purge as a person does in the memory inspector: each memory's "Delete for
    good" (one request a memory; a chain goes whole), or the scope's typed purge."""
    import re
    from urllib.parse import quote

    from starlette.testclient import TestClient

    from langgraph_memory.inspector import create_app

    token = uuid.uuid4().hex
    page = TestClient(create_app(store, token=token), base_url="http://127.0.0.1:8765")
    html = page.get(f"/person?scope={quote(scope)}&token={token}").text
    [csrf] = set(re.findall(r'name="csrf" value="([^"]+)"', page.get(f"/purge?scope={scope}").text))
    assert scope in html
    for memory_id in ids or []:
        form = {"csrf": csrf, "scope": scope, "id": memory_id, "confirm": "yes"}
        done = page.post("/purge-memory", data=form, follow_redirects=False)
        assert done.status_code == 303, done.text
    if ids is None:
        form = {"csrf": csrf, "scope": scope, "confirm": scope}
        done = page.post("/purge", data=form, follow_redirects=False)
        assert done.status_code == 303, done.text


def embedded_scenario(directory: Path, mode: str) -> dict[str, object]:
    """Run in a child process: fill, purge (``ids``, ``scope``; ``page-ids`` and
    ``page-scope`` through the memory inspector), scan; then the parent scans again."""
    marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
    with MemoryStore(directory) as store:
        keep = store.add("user:bob", "Bob keeps his umbrella in the hall.")
        # 1,200 filler records push the vector index past its 1,000-record flush.
        by_ids = mode.endswith("ids")
        ids = fill(store, "user:alice", marker, filler=1200 if by_ids else 30)
        # Alice in a bucket beside Bob (30 filler), or in collections of her own with an
        # index file (1,200): the scan must see the marker before the purge either way.
        seen = files_holding(directory / ("lexical" if by_ids else ""), [marker])
        assert seen, "the scan must see the marker before the purge"
        if mode.startswith("page-"):
            # ids[0] and ids[1] are one chain: deleting the newer version takes both.
            purge_through_the_page(store, "user:alice", ids[1:] if by_ids else None)
        else:
            store.purge("user:alice", ids if by_ids else None)
        survivors = len(store.active("user:alice"))
        while_open = files_holding(directory, [marker, *ids])
        bob = [m.id for m in store.active("user:bob")]
        hit = internals(store).nearest("user:bob", "Where is the umbrella?", k=1)[0].memory.id
    return {
        "marker": marker,
        "ids": ids,
        "while_open": while_open,
        "survivors": survivors,
        "bob": bob,
        "keep": keep.id,
        "hit": hit,
    }


@pytest.mark.parametrize("mode", ["ids", "scope", "page-ids", "page-scope"])
def test_embedded_purge_leaves_no_trace(tmp_path: Path, mode: str) -> None:
    directory = tmp_path / "memory"
    out = subprocess.run(
        [sys.executable, str(HERE), str(directory), mode],
        capture_output=True,
        text=True,
        timeout=600,
        env=unscrubbed_env(),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["while_open"] == {}, f"found after purge: {result['while_open']}"
    assert files_holding(directory, [result["marker"], *result["ids"]]) == {}
    assert result["survivors"] == (1200 if mode.endswith("ids") else 0)
    assert result["bob"] == [result["keep"]] and result["hit"] == result["keep"]


def index_files(directory: Path) -> dict[str, int]:
    """Each vector index file of the store and when it was last written (ns)."""
    return {str(f.relative_to(directory)): f.stat().st_mtime_ns for f in directory.rglob("*.bin")}


@pytest.mark.parametrize("by_ids", [False, True])
def test_the_store_process_writes_no_index_file_when_it_reads_after_a_purge(
    tmp_path: Path, by_ids: bool
) -> None:
    """A purge rebuilds what held the purged records in a child whose freed memory is
    scrubbed. The store's own process must then not write those index files again: its
    freed memory may still hold the purged text, which an index file's unused bytes can
    carry. Chroma wrote the registry's index (whose vectors are placeholders, written
    only now and then) on each process's first load of it: the scan found purged ids
    in it in 1 run of 10 (``test_embedded_purge_leaves_no_trace``). A purge by ids
    rebuilds no registry, and so wrote none: its next load did, here, until the child
    wrote it whole for every purge. Deterministic here: reads after the purge leave
    every index file as the child wrote it."""
    directory = tmp_path / "memory"
    with MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        alice = store.add_many("user:alice", ["Alice's passport is X-12.", "Alice likes tea."])
        keep = store.add("user:bob", "Bob keeps his umbrella in the hall.")
        store.purge("user:alice", [alice[0].id] if by_ids else None)
        written = index_files(directory)
        assert written  # the rebuilt registry and bucket have index files
        assert [s.key for s in store.scopes()] == ["user:alice", "user:bob"][1 - by_ids :]
        assert len(store.active("user:alice")) == by_ids
        assert [m.id for m in store.active("user:bob")] == [keep.id]
        assert internals(store).nearest("user:bob", "umbrella", k=1)[0].memory.id == keep.id
        assert index_files(directory) == written


def run_repeated(directory: Path, env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(HERE), str(directory), "repeat", "20"],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_twenty_purges_of_each_kind_leave_no_trace_without_glibc_tunables(tmp_path: Path) -> None:
    """20 id purges and 20 scope purges in one process that runs without heap
    scrubbing: when each purge returns, and after the process let go of the store
    (index files it wrote after a purge are rebuilt in a scrubbed child then),
    no file holds a purged text or id."""
    directory = tmp_path / "memory"
    result = run_repeated(directory, unscrubbed_env())
    assert result["found"] == {}, f"found after purge: {result['found']}"
    assert files_holding(directory, result["markers"]) == {}
    assert not (directory / PURGE_MARK).exists()


def test_a_purge_takes_the_scopes_queued_turns_out_of_the_journal(tmp_path: Path) -> None:
    """A turn accepted and not applied yet is the person's data too: in the export,
    then gone from the journal file with the purge of its scope."""
    directory = tmp_path / "memory"
    journal = tmp_path / "turns.jsonl"
    marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
    with (
        MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=32)) as store,
        holding(store, journal=journal) as background,
    ):
        background.submit("user:other", [("user", "I like tea.")])  # the worker holds it
        background.submit("user:alice", [("user", f"My PIN is {marker}.")])  # queued
        [turn] = store.export("user:alice")["pending_turns"]
        assert marker in json.dumps(turn) and marker in journal.read_text(encoding="utf-8")
        store.purge("user:alice")
        assert files_holding(tmp_path, [marker]) == {}
        assert store.export("user:alice")["pending_turns"] == []
    assert files_holding(tmp_path, [marker]) == {}


CRASH_AFTER_PURGE = """
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
store = MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=8))
store.purge("user:a", [store.add("user:a", "Secret.").id])
store.add_many("user:b", [f"Later write {i}." for i in range(50)])
os._exit(0)  # no close: the index files written after the purge are not rebuilt yet
"""


def test_a_process_that_stops_after_a_purge_is_scrubbed_after_on_the_next_open(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "memory"
    out = subprocess.run(
        [sys.executable, "-c", CRASH_AFTER_PURGE, str(directory)],
        capture_output=True,
        text=True,
        timeout=300,
        env=unscrubbed_env(),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert (directory / PURGE_MARK).exists()
    with MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        assert not (directory / PURGE_MARK).exists()
        assert len(store.active("user:b")) == 50 and store.active("user:a") == []


@pytest.mark.server
@pytest.mark.parametrize("mode", ["ids", "scope"])
def test_server_purge_leaves_no_trace(tmp_path: Path, embedder: Any, mode: str) -> None:
    """Through HTTP the store rebuilds the collections it touched; the file-level
    steps need the directory, closed: the operator stops the server, compacts its
    --path (refused while it runs), and starts it again."""
    marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
    path = tmp_path / "server"
    with running_server(path) as server:
        store = MemoryStore(client=server.client(), embeddings=embedder)
        keep = store.add("user:bob", "Bob keeps his umbrella in the hall.")
        ids = fill(store, "user:alice", marker, filler=30)
        assert files_holding(path, [marker]), "the scan must see the marker before"
        store.purge("user:alice", ids if mode == "ids" else None)
        with pytest.raises(CompactionError, match="stop it"):
            compact_directory(path)
    compact_directory(path)
    assert files_holding(path, [marker, *ids]) == {}
    with running_server(path) as server:
        store = MemoryStore(client=server.client(), embeddings=embedder)
        assert [m.id for m in store.active("user:bob")] == [keep.id]
        assert len(store.active("user:alice")) == (30 if mode == "ids" else 0)


if __name__ == "__main__":
    if sys.argv[2] == "repeat":
        print(json.dumps(repeated_scenario(Path(sys.argv[1]), int(sys.argv[3]))))
    else:
        print(json.dumps(embedded_scenario(Path(sys.argv[1]), sys.argv[2])))
