"""Purge is a hard delete: afterwards no file under the persist directory holds
the purged text or ids, and everything else is intact.

Chroma keeps deleted bytes in several places (see store/compaction.py); these
tests scan every file byte by byte. The embedded scenario runs in a child
process so that it can start with glibc's heap scrubbing on (``PERTURB_ENV``;
glibc reads it at start-up), and so the directory is also scanned after the
process let go of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from conftest import PERTURB_ENV

from langgraph_memory import Decision, MemoryStore, Op
from langgraph_memory.store.compaction import compact_directory

HERE = Path(__file__).resolve()


def files_holding(root: Path, needles: list[str]) -> dict[str, list[str]]:
    """Every file under ``root`` that contains one of ``needles`` (UTF-8 or UTF-16)."""
    found: dict[str, list[str]] = {}
    patterns = {n: [n.encode(), n.encode("utf-16-le"), n.encode("utf-16-be")] for n in needles}
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
    store.log(
        scope,
        [
            Decision(op=Op.ADD, fact=f"passport {marker}", result_id=secret.id),
            Decision(
                op=Op.UPDATE,
                fact=f"new passport {marker}",
                target_id=secret.id,
                result_id=newer.id,
                raw=json.dumps({"text": marker}),
            ),
            Decision(op=Op.ADD, fact=f"locker {marker}", result_id=other.id),
        ],
    )
    return [secret.id, newer.id, other.id]


def embedded_scenario(directory: Path, mode: str) -> dict[str, object]:
    """Run in a child process: fill, purge, scan; then the parent scans again."""
    marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
    with MemoryStore(directory) as store:
        keep = store.add("user:bob", "Bob keeps his umbrella in the hall.")
        # 1,200 filler records push the vector index past its 1,000-record flush.
        ids = fill(store, "user:alice", marker, filler=1200 if mode == "ids" else 30)
        if mode == "ids":
            store.purge("user:alice", ids)
            survivors = len(store.active("user:alice"))
        else:
            store.purge("user:alice")
            survivors = len(store.active("user:alice"))
        while_open = files_holding(directory, [marker, *ids])
        bob = [m.id for m in store.active("user:bob")]
        hit = store.nearest("user:bob", "Where is the umbrella?", k=1)[0].memory.id
    return {
        "marker": marker,
        "ids": ids,
        "while_open": while_open,
        "survivors": survivors,
        "bob": bob,
        "keep": keep.id,
        "hit": hit,
    }


@pytest.mark.parametrize("mode", ["ids", "scope"])
def test_embedded_purge_leaves_no_trace(tmp_path: Path, mode: str) -> None:
    directory = tmp_path / "memory"
    out = subprocess.run(
        [sys.executable, str(HERE), str(directory), mode],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **PERTURB_ENV},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["while_open"] == {}, f"found after purge: {result['while_open']}"
    assert files_holding(directory, [result["marker"], *result["ids"]]) == {}
    assert result["survivors"] == (1200 if mode == "ids" else 0)
    assert result["bob"] == [result["keep"]] and result["hit"] == result["keep"]


@pytest.mark.parametrize("mode", ["ids", "scope"])
def test_server_purge_leaves_no_trace(chroma_server, embedder, mode: str) -> None:  # type: ignore[no-untyped-def]
    marker = f"PURGEMARK{uuid.uuid4().hex[:12]}"
    store = MemoryStore(client=chroma_server.client(f"db{uuid.uuid4().hex}"), embeddings=embedder)
    keep = store.add("user:bob", "Bob keeps his umbrella in the hall.")
    ids = fill(store, "user:alice", marker, filler=30)
    assert files_holding(chroma_server.path, [marker]), "the scan must see the marker before"
    store.purge("user:alice", ids if mode == "ids" else None)
    # Through HTTP the store rebuilds the collections it touched; the file-level
    # steps need the server's directory, which its operator runs:
    compact_directory(chroma_server.path)
    assert files_holding(chroma_server.path, [marker, *ids]) == {}
    assert [m.id for m in store.active("user:bob")] == [keep.id]
    assert len(store.active("user:alice")) == (30 if mode == "ids" else 0)


if __name__ == "__main__":
    print(json.dumps(embedded_scenario(Path(sys.argv[1]), sys.argv[2])))
