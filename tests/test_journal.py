"""The background writer's journal on a damaged file: what it replays, what it keeps
aside, and what it says about each line it cannot read."""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.errors import StoreFormatError
from langgraph_memory.records import DecisionOp
from langgraph_memory.write import MemoryWriter, RulesModel
from langgraph_memory.write.background import BackgroundWriter
from langgraph_memory.write.journal import Journal, JournalEntry, JournalError
from langgraph_memory.write.types import Turn


def turn(turn_id: str, text: str = "I'm vegan.", scope: str = "user:a") -> dict[str, Any]:
    return JournalEntry.of(scope, Turn.of([("user", text)], turn_id=turn_id)).record()


def line(record: Any) -> bytes:
    return json.dumps(record).encode() + b"\n"


def with_fields(**fields: Any) -> bytes:
    return line({**turn("bad"), **fields})


DEEP = b"[" * 100_000 + b"]" * 100_000 + b"\n"
#: A damaged line, and what the journal must say about it (a regular expression).
DAMAGED = {
    "not json": (b"not json\n", r"not JSON"),
    "bad utf-8": (b'{"t": "turn", "id": "\xff\xfe"}\n', r"not JSON"),
    "deep nesting": (DEEP, r"nested too deeply"),
    "deep in a field": (
        with_fields(messages="DEEP").replace(b'"DEEP"', DEEP.rstrip(b"\n")),
        r"nested too deeply",
    ),
    "not an object": (b"[1, 2]\n", r"a JSON list, not a record"),
    "unknown type": (line({"t": "purge", "id": "x"}), r"record type 'purge' is unknown"),
    "no version": (with_fields(v=None), r"record version None is not a version number"),
    "bad scope": (with_fields(scope="nope"), r"scope 'nope' is not kind:id"),
    "bad scope kind": (with_fields(scope="robot:x"), r"scope 'robot:x' is not kind:id"),
    "scope not a string": (with_fields(scope=7), r"scope 7 is not kind:id"),
    "bad role": (
        with_fields(messages=[["robot", "hi"]]),
        r"message 0 has the unknown role 'robot'",
    ),
    "messages not a list": (
        with_fields(messages="hi"),
        r"messages must be a list of \[role, text\]",
    ),
    "not a pair": (with_fields(messages=[["user"]]), r"message 0 is not a \[role, text\] pair"),
    "text not a string": (
        with_fields(messages=[["user", 5]]),
        r"message 0 is not a \[role, text\]",
    ),
    "when not iso": (with_fields(when="yesterday"), r"when 'yesterday' is not an ISO 8601 time"),
    "when missing": (with_fields(when=None), r"when None is not an ISO 8601 time"),
    "empty id": (with_fields(id=""), r"turn id '' is not a non-empty string"),
    "done without id": (line({"t": "done"}), r"turn id None is not a non-empty string"),
}


@pytest.mark.parametrize("case", DAMAGED, ids=list(DAMAGED))
def test_a_damaged_middle_line_is_skipped_named_and_kept_aside(
    case: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bad, wrong = DAMAGED[case]
    path = tmp_path / "turns.jsonl"
    original = line(turn("t1")) + bad + line(turn("t2")) + line({"t": "done", "id": "t1"})
    path.write_bytes(original)
    with caplog.at_level(logging.WARNING, logger="langgraph_memory"):
        j = Journal(path)
    # Every readable accepted turn is replayed: the writer starts.
    assert [e.turn_id for e in j.pending()] == ["t2"]
    assert j.damage is not None
    [(number, what)] = j.damage.lines
    assert number == 2
    assert re.search(wrong, what), what
    # The file as it was is kept beside the journal, byte for byte.
    assert j.damage.copy.parent == tmp_path
    assert j.damage.copy.name.startswith("turns.jsonl.damaged-")
    assert j.damage.copy.read_bytes() == original
    # The warning names the copy and the line, with what is wrong with it.
    [warning] = [r.getMessage() for r in caplog.records if "damaged line" in r.getMessage()]
    assert str(j.damage.copy) in warning and "line 2: " in warning
    assert len(warning) < 2000
    j.close()
    # The journal holds the pending turn only, so the next start is clean and quiet.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="langgraph_memory"):
        again = Journal(path)
    assert [e.turn_id for e in again.pending()] == ["t2"] and again.damage is None
    assert caplog.records == []
    again.close()


def test_every_damaged_line_is_named_and_each_start_keeps_its_own_copy(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    lines = [
        line(turn("t1")),
        b"x\n",
        with_fields(scope="nope"),
        line(turn("t2")),
        with_fields(when="soon"),
    ]
    path.write_bytes(b"".join(lines))
    j = Journal(path)
    assert j.damage is not None
    assert [n for n, _ in j.damage.lines] == [2, 3, 5]
    assert [e.turn_id for e in j.pending()] == ["t1", "t2"]
    first_copy = j.damage.copy
    j.close()
    path.write_bytes(b"x\n" + line(turn("t3")))  # damaged again, within the same second
    j = Journal(path)
    assert j.damage is not None and j.damage.copy != first_copy
    assert first_copy.read_bytes() == b"".join(lines)  # never overwritten
    assert [e.turn_id for e in j.pending()] == ["t3"]
    j.close()


def test_a_turn_a_newer_release_wrote_refuses_the_journal_untouched(tmp_path: Path) -> None:
    """Skipped as damage, it would leave the file at the next rewrite: a journal
    holding one is never read nor written (upgrade to replay it)."""
    path = tmp_path / "turns.jsonl"
    original = line(turn("t1")) + with_fields(v=99) + line(turn("t2"))
    path.write_bytes(original)
    with pytest.raises(StoreFormatError, match=r"line 2\) written by a newer release"):
        Journal(path)
    assert path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["turns.jsonl", "turns.jsonl.lock"]
    Journal(tmp_path / "other.jsonl").close()  # the lock was let go: nothing is held


def test_a_torn_last_line_is_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_bytes(line(turn("t1")) + with_fields(v=99).rstrip(b"\n"))
    j = Journal(path)
    assert [e.turn_id for e in j.pending()] == ["t1"] and j.damage is None
    assert list(tmp_path.glob("*.damaged-*")) == []
    j.close()


def test_if_no_copy_can_be_kept_nothing_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "turns.jsonl"
    original = line(turn("t1")) + b"x\n" + line(turn("t2"))
    path.write_bytes(original)

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(JournalError, match=r"line 2: not JSON.*could not be kept.*No space left"):
        Journal(path)
    monkeypatch.undo()
    assert path.read_bytes() == original
    assert list(tmp_path.glob("*.damaged-*")) == []
    j = Journal(path)  # released: the next start, with room, goes ahead
    assert [e.turn_id for e in j.pending()] == ["t1", "t2"]
    j.close()


def test_from_record_says_what_is_wrong() -> None:
    with pytest.raises(JournalError, match="scope 'nope' is not kind:id"):
        JournalEntry.from_record({**turn("t1"), "scope": "nope"})
    assert JournalEntry.from_record(turn("t1")).turn_id == "t1"


@pytest.fixture
def store(tmp_path: Path, embedder: Any) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "m", embeddings=embedder)
    try:
        yield s
    finally:
        s.close()


def test_a_background_writer_starts_on_a_damaged_journal_and_replays_the_rest(
    store: MemoryStore, tmp_path: Path
) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_bytes(
        line(turn("t1", "I live in Delhi."))
        + with_fields(scope="nope")  # refused the writer's start before, with no line number
        + with_fields(messages=[["robot", "I'm an admin."]])
        + line(turn("t2", "I moved to Pune."))
    )
    with BackgroundWriter(MemoryWriter(store, model=RulesModel()), journal=path) as bg:
        assert bg.flush(timeout=30)
        assert bg.stats.replayed == 2
    assert [(d.op, d.turn_id) for d in store.decisions("user:a")] == [
        (DecisionOp.ADD, "t1"),
        (DecisionOp.UPDATE, "t2"),
    ]
    [copy] = tmp_path.glob("turns.jsonl.damaged-*")
    assert b"I'm an admin." in copy.read_bytes()
