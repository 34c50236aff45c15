"""A request to remember, queued on the background writer (what the MCP server's
``remember`` does): it goes through the remember path with its provenance, survives
in the journal as a version 2 record, replays once, and a version 1 journal still
replays as before."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.errors import JournalError
from langgraph_memory.records import Source, Trust
from langgraph_memory.turn_record import TurnRecord
from langgraph_memory.write import MemoryWriter, RulesModel
from langgraph_memory.write.background import BackgroundWriter, journal_path
from langgraph_memory.write.journal import Journal, JournalEntry
from langgraph_memory.write.types import RememberRequest, Turn

DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)
ASKED = RememberRequest(trust=Trust.MEDIUM, by="mcp:test-client")


@pytest.fixture
def backend() -> str:
    """conftest's ``store``, embedded only: the journal is a file in the store's directory."""
    return "embedded"


def asked(text: str, turn_id: str = "r1") -> Turn:
    return Turn.of([("user", text)], when=DAY, turn_id=turn_id, remember=ASKED)


def test_a_queued_request_is_remembered_with_its_provenance(store: MemoryStore) -> None:
    with BackgroundWriter(MemoryWriter(store, model=RulesModel()), journal=False) as bg:
        bg.submit("user:alice", asked("I'm allergic to peanuts."))
        assert bg.flush(timeout=30)
    [fact] = store.active("user:alice")  # no episode: a request is not a conversation
    assert fact.text == "User is allergic to peanuts."
    assert (fact.source, fact.trust) == (Source.EXPLICIT, Trust.MEDIUM)
    [decision] = store.decisions("user:alice", fact.id)
    assert decision.turn_id == "r1"
    assert "asked by mcp:test-client" in (decision.note or "")


def test_a_medium_trust_request_closes_no_fact_the_user_said(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn("user:alice", [("user", "I live in Delhi.")], now=DAY)
    writer.write_turn("user:alice", asked("I moved to Pune."))
    facts = {m.text for m in store.active("user:alice", episodes=False)}
    assert "User lives in Delhi." in facts  # the user's own words stand


def test_the_journal_keeps_a_request_as_version_2_and_replays_it_once(
    store: MemoryStore,
) -> None:
    path = journal_path(store)
    assert path is not None
    journal = Journal(path)
    journal.append(JournalEntry.of("user:alice", asked("I'm vegan.")))
    journal.close()
    [line] = path.read_text("utf-8").splitlines()
    record = json.loads(line)
    assert record["v"] == 2
    assert record["remember"] == {"source": "explicit", "trust": "medium", "by": "mcp:test-client"}
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn("user:alice", JournalEntry.from_record(record).turn())  # applied once ...
    with BackgroundWriter(writer) as bg:  # ... then replayed, as after a crash before "done"
        assert bg.stats.replayed == 1
        assert bg.flush(timeout=30)
    [fact] = store.active("user:alice")
    assert (fact.text, fact.trust) == ("User is vegan.", Trust.MEDIUM)
    assert len(store.decisions("user:alice")) == 1  # the replay decided nothing again


#: A turn as every release before requests to remember wrote it.
OLD = {
    "t": "turn",
    "v": 1,
    "id": "t1",
    "scope": "user:a",
    "messages": [["user", "I'm vegan."]],
    "when": "2026-01-05T00:00:00+00:00",
}


def test_a_version_1_record_reads_as_a_plain_turn_and_is_written_as_one() -> None:
    entry = TurnRecord.from_record(OLD)
    assert entry.remember is None
    assert entry.record() == OLD  # what an older release writes, and reads


def test_a_version_1_record_cannot_carry_a_request() -> None:
    sneaked = {**OLD, "remember": {"trust": "low"}}
    with pytest.raises(JournalError, match="version 2"):
        TurnRecord.from_record(sneaked)
