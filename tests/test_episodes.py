"""Episodes: what was said in each turn, kept verbatim beside the facts taken from it,
with no model call; idempotent by turn id, switchable, bounded by a retention that
archives with a logged reason, and covered by export and purge."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from conftest import ChromaServer
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, HumanMessage

from langgraph_memory import (
    DecisionOp,
    InvalidArgumentError,
    Kind,
    Memory,
    MemoryNotFoundError,
    MemoryStore,
    Retention,
    Source,
    Trust,
)
from langgraph_memory.graph import memory_read_node, memory_write_node
from langgraph_memory.store import internals
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel, retain_episodes
from langgraph_memory.write.episodes import said_key
from langgraph_memory.write.journal import Journal, JournalEntry
from langgraph_memory.write.types import Turn

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
U = "user:alice"
ALICE = {"configurable": {"user_id": "alice", "thread_id": "chat-9"}}


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def episodes(store: MemoryStore, scope: str = U) -> list[Memory]:
    return [m for m in store.active(scope) if m.is_episode]


def scripted(*answers: Any) -> ScriptedChatModel:
    return ScriptedChatModel(script=list(answers))


def facts(*texts: str) -> dict[str, Any]:
    return {"facts": [{"text": t, "importance": 6, "speaker": "user"} for t in texts]}


ADD = {"op": "ADD", "id": None, "text": None}


class CountingEmbeddings(Embeddings):
    """The shared embedder, with its calls counted."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.documents: list[int] = []  # texts per embed_documents call
        self.queries = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.append(len(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return self.inner.embed_query(text)


# -- what an episode holds ---------------------------------------------------------------


def test_a_turn_keeps_what_the_user_said_and_its_facts_link_to_it(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    said = [("user", "I'm vegan."), ("assistant", "Noted!")]
    writer.write_turn(U, said, now=T0, turn_id="t1", thread_id="chat-1")
    [episode] = episodes(store)
    assert episode.text == "I'm vegan."
    assert (episode.kind, episode.source, episode.trust) == (Kind.EPISODIC, Source.USER, Trust.HIGH)
    assert episode.event_time == T0 == episode.created_at
    said = said_key("I'm vegan.", source="user")
    assert episode.metadata == {
        "episode": True,
        "turn_id": "t1",
        "thread_id": "chat-1",
        "said": said,
    }
    [fact] = store.active(U, episodes=False)
    assert fact.text == "User is vegan." and fact.sources == (episode.id,)


def test_a_speakers_name_is_metadata_not_part_of_the_words(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn(U, [HumanMessage("I adopted a dog.", name="Caroline")], now=T0)
    writer.write_turn(U, [{"role": "user", "content": "Me too!", "name": " "}], now=T0 + DAY)
    named, unnamed = episodes(store)
    assert named.text == "I adopted a dog." and named.metadata["speaker"] == "Caroline"
    assert "speaker" not in unnamed.metadata, "a blank name is no name"


def test_episodes_cost_no_model_call_and_are_kept_when_the_gate_skips_a_turn(
    store: MemoryStore,
) -> None:
    store.add(U, "User lives in Pune.", now=T0)  # a fact to compare with: reconcile asks
    model = scripted(facts("User is vegan."), ADD)
    writer = MemoryWriter(store, model=model)  # type: ignore[arg-type]
    writer.write_turn(U, [("user", "Can you help me write a poem?")], now=T0)
    assert model.calls == 0, "the gate skipped the question: no model call"
    writer.write_turn(U, [("user", "I'm vegan.")], now=T0 + DAY)
    assert model.calls == 2, "one extraction and one reconcile, nothing for the episode"
    assert [e.text for e in episodes(store)] == ["Can you help me write a poem?", "I'm vegan."]


def test_a_blank_message_stores_no_episode(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    assert writer.write_turn(U, [("user", "  \n "), ("assistant", "Hello!")], now=T0) == []
    assert store.active(U) == []


def test_the_assistants_words_are_episodes_only_when_asked_for(store: MemoryStore) -> None:
    turn = [("user", "I'm vegan."), ("assistant", "Then try the lentil soup.")]
    MemoryWriter(store, model=RulesModel()).write_turn(U, turn, now=T0)
    assert [e.text for e in episodes(store)] == ["I'm vegan."]
    both = MemoryWriter(store, model=RulesModel(), episode_roles=("user", "assistant"))
    both.write_turn("user:bob", turn, now=T0, turn_id="t1")
    by_source = {e.source: e for e in episodes(store, "user:bob")}
    reply = by_source[Source.ASSISTANT]
    assert reply.text == "Then try the lentil soup." and reply.trust is Trust.MEDIUM
    assert by_source[Source.USER].trust is Trust.HIGH
    [fact] = store.active("user:bob", episodes=False)
    assert fact.sources == (by_source[Source.USER].id,), "a user's fact cites the user's words"
    with pytest.raises(InvalidArgumentError, match="episode_roles"):
        MemoryWriter(store, model=RulesModel(), episode_roles=("narrator",))  # type: ignore[arg-type]


def test_switched_off_no_episode_is_stored_and_facts_cite_none(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel(), episodes=False)
    writer.write_turn(U, [("user", "I'm vegan.")], now=T0)
    writer.write_turn(U, [("user", "thanks!")], now=T0 + DAY)
    [fact] = store.active(U)
    assert fact.text == "User is vegan." and fact.sources == () and not fact.is_episode


# -- links, reconciliation and embedding ------------------------------------------------------


def test_an_update_adds_its_turns_episode_to_the_sources(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn(U, [("user", "I live in Delhi.")], now=T0, turn_id="t1")
    [upd] = writer.write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY, turn_id="t2")
    assert upd.op is DecisionOp.UPDATE
    said = {e.metadata["turn_id"]: e.id for e in episodes(store)}
    new = store.get_memory(U, upd.result_id or "")
    old = store.get_memory(U, upd.target_id or "")
    assert new.sources == (said["t1"], said["t2"]) and old.sources == (said["t1"],)


def test_the_model_is_never_shown_an_episode(store: MemoryStore) -> None:
    model = scripted(
        facts("User lives in Delhi."),  # an empty scope: added without a reconcile call
        facts("User lives in Pune."),
        {"op": "UPDATE", "id": 0, "text": "User lives in Pune."},
    )
    writer = MemoryWriter(store, model=model, gate=False)  # type: ignore[arg-type]
    [add] = writer.write_turn(U, [("user", "I live in Delhi.")], now=T0)
    [upd] = writer.write_turn(U, [("user", "I live in Delhi, no, Pune now.")], now=T0 + DAY)
    assert upd.shown_ids == (add.result_id,), "the episode that says 'Delhi' is not a candidate"
    assert upd.op is DecisionOp.UPDATE and upd.target_id == add.result_id


def test_a_turn_embeds_its_episode_and_new_facts_in_one_call(
    tmp_path: Path, embedder: Embeddings
) -> None:
    counting = CountingEmbeddings(embedder)
    with MemoryStore(tmp_path / "m", embeddings=counting) as store:
        model = scripted(facts("User is vegan.", "User lives in Pune."), ADD, ADD)
        writer = MemoryWriter(store, model=model)  # type: ignore[arg-type]
        writer.write_turn(U, [("user", "I'm vegan and I live in Pune.")], now=T0)
        assert counting.documents == [3] and counting.queries == 0
        [episode] = episodes(store)
        assert all(f.sources == (episode.id,) for f in store.active(U, episodes=False))
        # The stored vectors are the embedder's own: each fact is its own nearest.
        for fact in store.active(U, episodes=False):
            [hit] = internals(store).nearest(U, fact.text, k=1, episodes=False)
            assert hit.memory.id == fact.id and hit.score > 0.99


HISTORY = [
    "I live in Delhi.",
    "hi!",
    "I moved to Pune.",
    "I'm vegan.",
    "What a day.",
    "I work at Acme.",
]


def history_turns(prefix: str = "t") -> list[Turn]:
    return [
        Turn.of([("user", said)], when=T0 + i * DAY, turn_id=f"{prefix}{i}", thread_id="chat-1")
        for i, said in enumerate(HISTORY)
    ]


def test_write_turns_does_what_write_turn_on_each_does_with_fewer_embedder_calls(
    tmp_path: Path, embedder: Embeddings
) -> None:
    counting = CountingEmbeddings(embedder)
    with MemoryStore(tmp_path / "m", embeddings=counting) as store:
        writer = MemoryWriter(store, model=RulesModel())
        one_by_one = [
            writer.write_turn(U, t, now=t.when, turn_id=t.id, thread_id=t.thread_id)
            for t in history_turns()
        ]
        calls_one_by_one = len(counting.documents)
        counting.documents.clear()
        batched = writer.write_turns("user:bob", history_turns(), batch=4)
        assert [d.op for d in batched] == [d.op for ds in one_by_one for d in ds]
        # The first 4 turns' episodes and facts are embedded in one call.
        assert counting.documents[0] == 4 + 3 and len(counting.documents) < calls_one_by_one

        def kept(scope: str) -> list[tuple[str, bool, datetime, tuple[str, ...]]]:
            texts = {m.id: m.text for m in store.active(scope)}
            return sorted(
                (m.text, m.is_episode, m.created_at, tuple(texts[s] for s in m.sources))
                for m in store.active(scope)
            )

        # The same facts and episodes, each dated by its own turn, linked the same way.
        assert kept("user:bob") == kept(U)
        assert {e.created_at for e in episodes(store, "user:bob")} == {
            T0 + i * DAY for i in range(len(HISTORY))
        }


def test_write_turns_replayed_stores_nothing_new(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turns(U, history_turns()[:3])
    before = {m.id for m in store.active(U)}
    # A replay of the whole history (after a crash mid-import) adds only the turns not seen.
    writer.write_turns(U, history_turns())
    assert before <= {m.id for m in store.active(U)}
    assert sorted(e.metadata["turn_id"] for e in episodes(store)) == [
        f"t{i}" for i in range(len(HISTORY))
    ]
    assert writer.write_turns(U, history_turns()) == []


def test_write_turns_refuses_messages_that_are_not_turns(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    with pytest.raises(InvalidArgumentError, match=r"Turn\.of"):
        writer.write_turns(U, [[("user", "I live in Pune.")]])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError, match="batch"):
        writer.write_turns(U, history_turns(), batch=0)
    assert store.active(U) == []


def test_forget_by_description_forgets_the_fact_not_the_words(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn(U, [("user", "I live in Pune.")], now=T0)
    [fact] = store.active(U, episodes=False)
    done = writer.forget(U, query="User lives in Pune", now=T0 + DAY)
    assert done.target_id == fact.id and store.active(U, episodes=False) == []
    assert [e.text for e in episodes(store)] == ["I live in Pune."]


# -- replays ------------------------------------------------------------------------------


def test_a_replayed_turn_stores_nothing_new(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    turn = [("user", "I'm vegan. Can you suggest a recipe?")]
    writer.write_turn(U, turn, now=T0, turn_id="t1")
    before = {m.id for m in store.active(U)}
    assert writer.write_turn(U, turn, now=T0, turn_id="t1") == []
    assert {m.id for m in store.active(U)} == before and len(before) == 2
    writer.write_turn(U, [("user", "thanks!")], now=T0 + DAY, turn_id="t2")
    writer.write_turn(U, [("user", "thanks!")], now=T0 + DAY, turn_id="t2")
    assert [e.metadata["turn_id"] for e in episodes(store)] == ["t1", "t2"]


def test_a_journal_replay_after_a_crash_stores_one_episode(
    tmp_path: Path, store: MemoryStore
) -> None:
    path = tmp_path / "turns.jsonl"
    turn = Turn.of([("user", "I'm vegan.")], when=T0, turn_id="t1", thread_id="chat-1")
    journal = Journal(path)
    journal.append(JournalEntry.of(U, turn))  # accepted ...
    journal.close()
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn(U, turn)  # ... applied, and the process died before its done record
    with BackgroundWriter(writer, journal=path) as bg:
        assert bg.flush(timeout=60)
        assert (bg.stats.replayed, bg.stats.resumed) == (1, 1)
    [episode] = episodes(store)
    assert episode.metadata["turn_id"] == "t1" and episode.metadata["thread_id"] == "chat-1"
    assert [m.text for m in store.active(U, episodes=False)] == ["User is vegan."]


def test_the_journal_keeps_a_turns_thread_and_speakers(tmp_path: Path) -> None:
    said = [HumanMessage("hi", name="Caroline"), AIMessage("Hello!")]
    turn = Turn.of(said, when=T0, turn_id="t1", thread_id="chat-1")
    record = JournalEntry.of(U, turn).record()
    assert record["thread"] == "chat-1"
    assert record["messages"] == [["user", "hi", "Caroline"], ["assistant", "Hello!"]]
    assert JournalEntry.from_record(record).turn() == turn
    del record["thread"]  # a record written before threads were kept
    assert JournalEntry.from_record(record).turn().thread_id is None


# -- the graph ------------------------------------------------------------------------------


def test_the_write_node_keeps_the_thread_and_the_read_node_reads_episodes(
    store: MemoryStore,
) -> None:
    write = memory_write_node(MemoryWriter(store, model=RulesModel()))
    state = {"messages": [HumanMessage("I'm vegan.", id="m1"), AIMessage("Noted!")]}
    write(state, ALICE)
    write(state, ALICE)  # the same turn again (a re-run): nothing new
    [episode] = episodes(store)
    said = said_key("I'm vegan.", source="user")
    assert episode.metadata == {
        "episode": True,
        "turn_id": "m1",
        "thread_id": "chat-9",
        "said": said,
    }
    read = memory_read_node(store)
    shown = read({"messages": [HumanMessage("What do I eat?")]}, ALICE)["memories"]
    assert "User is vegan." in shown and "I'm vegan." in shown


def test_a_deferred_write_keeps_the_thread(store: MemoryStore) -> None:
    with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as bg:
        write = memory_write_node(bg, write="deferred")
        write({"messages": [HumanMessage("I live in Pune.", id="m7")]}, ALICE)
        assert bg.flush(timeout=60)
    [episode] = episodes(store)
    assert (episode.metadata["turn_id"], episode.metadata["thread_id"]) == ("m7", "chat-9")


# -- retention ------------------------------------------------------------------------------


def test_retention_by_count_archives_the_oldest_and_logs_why(store: MemoryStore) -> None:
    policy = Retention(max_count=2, every=1)
    writer = MemoryWriter(store, model=RulesModel(), episode_retention=policy)
    said = ["hello!", "I'm vegan.", "thanks!", "How are you?"]
    for day, text in enumerate(said):
        writer.write_turn(U, [("user", text)], now=T0 + day * DAY)
    assert [e.text for e in episodes(store)] == ["thanks!", "How are you?"]
    assert [m.text for m in store.active(U, episodes=False)] == ["User is vegan."], "facts stay"
    archived = [
        m
        for m in internals(store).find(U, metadata={"episode": True}, archived=True)
        if not m.active
    ]
    assert sorted(m.text for m in archived) == ["I'm vegan.", "hello!"], "archived, not deleted"
    for m in archived:
        [why] = store.decisions(U, m.id)
        assert (why.op, why.target_id, why.fact) == (DecisionOp.DELETE, m.id, m.text)
        assert why.note == "retention: beyond the newest 2 episodes (max_count)"


def test_retention_by_age_archives_what_is_older_than_max_age(store: MemoryStore) -> None:
    policy = Retention(max_age=timedelta(days=30), every=1)
    writer = MemoryWriter(store, model=RulesModel(), episode_retention=policy)
    for when, text in [(T0, "hello!"), (T0 + 20 * DAY, "hi again"), (T0 + 45 * DAY, "hey")]:
        writer.write_turn(U, [("user", text)], now=when)
    assert [e.text for e in episodes(store)] == ["hi again", "hey"]
    [old] = [
        m
        for m in internals(store).find(U, metadata={"episode": True}, archived=True)
        if not m.active
    ]
    assert old.text == "hello!" and old.valid_until == T0 + 45 * DAY
    [why] = store.decisions(U, old.id)
    assert why.note == "retention: older than 30 days (max_age)"


def test_retention_runs_on_a_scopes_first_turn_and_then_every_n_turns(
    store: MemoryStore,
) -> None:
    writer = MemoryWriter(
        store, model=RulesModel(), episode_retention=Retention(max_count=1, every=3)
    )
    counts = []
    for day in range(7):
        writer.write_turn(U, [("user", f"message {day}")], now=T0 + day * DAY)
        counts.append(len(episodes(store)))
    assert counts == [1, 2, 3, 1, 2, 3, 1]


def test_retain_episodes_runs_on_its_own_and_checks_its_limits(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    for day in range(3):
        writer.write_turn(U, [("user", f"message {day}")], now=T0 + day * DAY)
    assert retain_episodes(store, U, now=T0 + 2 * DAY, max_count=5) == []
    done = retain_episodes(store, U, now=T0 + 2 * DAY, max_age=timedelta(hours=36), max_count=1)
    assert [d.fact for d in done] == ["message 0", "message 1"]
    assert [d.note for d in done] == [
        "retention: older than 1 day, 12:00:00 (max_age)",
        "retention: beyond the newest 1 episodes (max_count)",
    ]
    for bad in ({"max_count": 0}, {"max_age": timedelta(0)}, {}):
        with pytest.raises(InvalidArgumentError):
            Retention(**bad)
    with pytest.raises(InvalidArgumentError, match="Retention"):
        MemoryWriter(store, model=RulesModel(), episode_retention=365)  # type: ignore[arg-type]


# -- export and purge ------------------------------------------------------------------------


def test_export_and_import_carry_episodes_and_their_links(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn(U, [("user", "I'm vegan.")], now=T0, turn_id="t1", thread_id="chat-1")
    store.import_scope(store.export(U), scope="user:copy")
    assert store.active("user:copy") == [
        Memory.from_dict({**m.to_dict(), "scope": "user:copy"}) for m in store.active(U)
    ]
    [fact] = store.active("user:copy", episodes=False)
    assert store.get_memory("user:copy", fact.sources[0]).metadata["thread_id"] == "chat-1"


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purging_an_episode_leaves_its_facts_without_a_dangling_link(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn(U, [("user", "I live in Delhi.")], now=T0)
    writer.write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY)
    first = episodes(store)[0]
    assert store.purge(U, [first.id])["memories"] == 1
    with pytest.raises(MemoryNotFoundError):
        store.get_memory(U, first.id)
    [fact] = store.active(U, episodes=False)
    older = [m for m in store.history(U, fact.id) if not m.active]
    assert first.id not in fact.sources and len(fact.sources) == 1
    assert all(first.id not in m.sources for m in older)


class PurgingModel(RulesModel):
    """The rules model, with the scope purged while it reads the turn: a turn in
    flight (a deferred write being applied) when the user's data is erased."""

    def __init__(self, store: MemoryStore) -> None:
        super().__init__()
        self.store = store

    def extract(self, turn: Turn, *, roles: Any) -> Any:
        self.store.purge(U)
        return super().extract(turn, roles=roles)


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_a_turn_in_flight_when_its_scope_is_purged_writes_nothing(store: MemoryStore) -> None:
    MemoryWriter(store, model=RulesModel()).write_turn(U, [("user", "I live in Delhi.")], now=T0)
    writer = MemoryWriter(store, model=PurgingModel(store))
    # A fact the extraction refuses is a logged decision too: none of it may land.
    said = [("user", "I'm vegan. My colleague Sam said I hate tea.")]
    assert writer.write_turn(U, said, now=T0 + DAY) == []
    assert U not in {s.key for s in store.scopes()}
    assert store.active(U) == [] and store.decisions(U) == []
    # The next turn, read after the purge, is written as usual.
    writer.model = RulesModel()
    assert [d.op for d in writer.write_turn(U, [("user", "I live in Pune.")], now=T0 + DAY)]
    assert {m.text for m in store.active(U)} == {"I live in Pune.", "User lives in Pune."}


def test_a_turn_in_flight_when_another_process_purges_its_scope_writes_nothing(
    chroma_server: ChromaServer, embedder: Embeddings
) -> None:
    # Two stores on one Chroma server, each with its own client: two processes as far
    # as the store can tell (no shared counter, no shared cache).
    database = f"db{uuid.uuid4().hex}"
    first = chroma_server.client(database)  # creates the database
    second = chromadb.HttpClient(
        host=chroma_server.host,
        port=chroma_server.port,
        database=database,
        settings=Settings(anonymized_telemetry=False),
    )
    with (
        MemoryStore(client=first, embeddings=embedder) as here,
        MemoryStore(client=second, embeddings=embedder) as there,
    ):
        MemoryWriter(here, model=RulesModel()).write_turn(U, [("user", "I live in Delhi.")])
        writer = MemoryWriter(here, model=PurgingModel(there))
        assert writer.write_turn(U, [("user", "I'm vegan.")], now=T0 + DAY) == []
        assert here.active(U) == [] and there.active(U) == []
        assert U not in {s.key for s in there.scopes()}
        # Turns read after the purge are written as usual, in a new life of the scope,
        # batch after batch (the first batch makes the scope again).
        writer.model = RulesModel()
        said = [Turn.of([("user", t)], when=T0 + DAY) for t in ("I live in Pune.", "I'm vegan.")]
        assert writer.write_turns(U, said, batch=1)
        assert {m.text for m in there.active(U) if m.is_episode} == {
            "I live in Pune.",
            "I'm vegan.",
        }


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purging_a_fact_purges_the_words_it_was_taken_from(store: MemoryStore) -> None:
    model = scripted(facts("User's PIN is 4321.", "User lives in Pune."), ADD, ADD)
    writer = MemoryWriter(store, model=model)  # type: ignore[arg-type]
    writer.write_turn(U, [("user", "My PIN is 4321 and I live in Pune.")], now=T0)
    writer.write_turn(U, [("user", "Nice weather today.")], now=T0 + DAY)
    by_text = {m.text: m for m in store.active(U, episodes=False)}
    pin, pune = by_text["User's PIN is 4321."], by_text["User lives in Pune."]
    assert store.purge(U, [pin.id])["memories"] == 2, "the fact and the episode that said it"
    assert [e.text for e in episodes(store)] == ["Nice weather today."]
    assert store.get_memory(U, pune.id).sources == ()
    store.purge(U)
    assert store.active(U) == []


# -- the store's side --------------------------------------------------------------------------


def test_the_stores_episode_filters_and_batch_archive(store: MemoryStore) -> None:
    MemoryWriter(store, model=RulesModel()).write_turn(U, [("user", "I live in Pune.")], now=T0)
    [fact] = store.active(U, episodes=False)
    assert [h.memory.id for h in internals(store).nearest(U, "Pune", k=5, episodes=False)] == [
        fact.id
    ]
    assert [h.memory.id for h in internals(store).keyword(U, "Pune", episodes=False)] == [fact.id]
    assert len(internals(store).keyword(U, "Pune")) == 2 and store.count(U) == 2
    assert store.count(U, metadata={"episode": True}) == 1
    [episode] = episodes(store)
    with pytest.raises(MemoryNotFoundError):
        store.archive_many(U, [episode.id, "deadbeef"], now=T0 + DAY)
    assert store.count(U) == 2, "a refused batch archives nothing"
    with pytest.raises(Exception, match="2 vectors for 1 items"):
        store.add_many(U, ["x"], vectors=[[0.0], [0.0]])
