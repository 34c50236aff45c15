"""MemoryStore conformance suite: every test runs on an embedded store and on a
real `chroma run` server (see the ``store`` fixture in conftest.py)."""

from __future__ import annotations

import json
import re
import threading
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from langgraph_memory import (
    Decision,
    DecisionOp,
    EmbeddingMismatchError,
    InvalidMemoryError,
    InvalidScopeError,
    Kind,
    MemoryArchivedError,
    MemoryNotFoundError,
    MemoryStore,
    Scope,
    Source,
    Trust,
)
from langgraph_memory.store import internals
from langgraph_memory.store.engine.engine import CLOSED_MARK

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def snapshot(store: MemoryStore, scope: str) -> dict[str, Any]:
    """Everything stored in a scope, for "nothing changed" checks."""
    return store.export(scope)


# -- add / get --


def test_add_then_get_returns_every_field(store: MemoryStore) -> None:
    m = store.add(
        "user:alice",
        "User is allergic to peanuts.",
        importance=0.9,
        kind="procedural",
        pinned=True,
        source="explicit",
        trust="medium",
        event_time=T0 - DAY,
        sources=("aaaaaaaa",),
        metadata={"topic": "health", "n": 3, "ok": True, "w": 0.25},
        now=T0,
    )
    assert re.fullmatch(r"[0-9a-f]{8}", m.id)
    got = store.get_memory("user:alice", m.id)
    assert got == m
    assert (
        got.kind is Kind.PROCEDURAL and got.source is Source.EXPLICIT and got.trust is Trust.MEDIUM
    )
    assert got.created_at == T0 and got.valid_until is None and got.active
    assert got.metadata == {"topic": "health", "n": 3, "ok": True, "w": 0.25}


def test_defaults(store: MemoryStore) -> None:
    m = store.add(Scope("user", "bob"), "User likes tea.")
    assert (m.importance, m.kind, m.pinned, m.source, m.trust) == (
        0.5,
        Kind.SEMANTIC,
        False,
        Source.USER,
        Trust.HIGH,
    )
    assert m.scope == "user:bob" and m.replaces is None and m.sources == ()


def test_add_many_validates_every_item_before_writing(store: MemoryStore) -> None:
    store.add("user:a", "User likes tea.", now=T0)
    before = snapshot(store, "user:a")
    with pytest.raises(InvalidMemoryError, match="item 1"):
        store.add_many("user:a", ["User has a cat.", {"text": "x", "importance": 3}])
    assert snapshot(store, "user:a") == before
    added = store.add_many(
        "user:a", ["User has a cat.", {"text": "User has a dog.", "pinned": True}]
    )
    assert [m.text for m in added] == ["User has a cat.", "User has a dog."]
    assert len({m.id for m in added}) == 2


def test_many_threads_adding_to_one_scope_get_distinct_ids(store: MemoryStore) -> None:
    results: list[str] = []

    def work(i: int) -> None:
        results.extend(m.id for m in store.add_many("user:t", [f"Fact {i}-{j}." for j in range(5)]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == len(set(results)) == 20
    assert len(store.active("user:t")) == 20


# -- update / close / history --


def test_update_closes_the_old_version_and_opens_a_new_one(store: MemoryStore) -> None:
    old = store.add(
        "user:a", "User lives in Delhi.", importance=0.8, pinned=True, metadata={"a": 1}, now=T0
    )
    new = store.update(
        "user:a", old.id, "User lives in Pune.", importance=0.3, metadata={"b": 2}, now=T0 + DAY
    )
    assert new.id != old.id and new.replaces == old.id
    assert new.importance == 0.8, "an update never lowers importance"
    assert new.pinned, "pinned carries over"
    assert new.metadata == {"a": 1, "b": 2}
    closed = store.get_memory("user:a", old.id)
    assert closed.valid_until == T0 + DAY and closed.text == "User lives in Delhi."
    assert [m.text for m in store.active("user:a")] == ["User lives in Pune."]


def test_update_can_raise_importance_and_change_fields(store: MemoryStore) -> None:
    old = store.add("user:a", "User runs.", importance=0.2, pinned=True, now=T0)
    new = store.update(
        "user:a",
        old.id,
        "User runs daily.",
        importance=0.9,
        pinned=False,
        kind="episodic",
        now=T0 + DAY,
    )
    assert (new.importance, new.pinned, new.kind) == (0.9, False, Kind.EPISODIC)


def test_history_is_the_whole_chain_oldest_first_from_any_version(store: MemoryStore) -> None:
    v1 = store.add("user:a", "User lives in Delhi.", now=T0)
    v2 = store.update("user:a", v1.id, "User lives in Pune.", now=T0 + DAY)
    v3 = store.update("user:a", v2.id, "User lives in Mumbai.", now=T0 + 2 * DAY)
    other = store.add("user:a", "User likes tea.", now=T0)
    for any_id in (v1.id, v2.id, v3.id):
        chain = store.history("user:a", any_id)
        assert [m.id for m in chain] == [v1.id, v2.id, v3.id]
    assert [m.valid_until for m in store.history("user:a", v3.id)] == [T0 + DAY, T0 + 2 * DAY, None]
    assert [m.id for m in store.history("user:a", other.id)] == [other.id]


def test_update_of_a_closed_version_names_the_current_one(store: MemoryStore) -> None:
    v1 = store.add("user:a", "User lives in Delhi.", now=T0)
    v2 = store.update("user:a", v1.id, "User lives in Pune.", now=T0 + DAY)
    before = snapshot(store, "user:a")
    with pytest.raises(MemoryArchivedError, match=v2.id):
        store.update("user:a", v1.id, "User lives in Goa.", now=T0 + 2 * DAY)
    assert snapshot(store, "user:a") == before


def test_close_archives_without_deleting(store: MemoryStore) -> None:
    m = store.add("user:a", "User is vegetarian.", now=T0)
    closed = store.archive("user:a", m.id, now=T0 + DAY)
    assert closed.valid_until == T0 + DAY
    assert store.active("user:a") == []
    assert store.get_memory("user:a", m.id).valid_until == T0 + DAY
    assert internals(store).nearest("user:a", "What does the user eat?", k=3) == []
    with pytest.raises(MemoryArchivedError):
        store.archive("user:a", m.id, now=T0 + 2 * DAY)


def test_a_version_cannot_close_before_it_opened(store: MemoryStore) -> None:
    m = store.add("user:a", "User is vegetarian.", now=T0)
    before = snapshot(store, "user:a")
    with pytest.raises(InvalidMemoryError, match="before"):
        store.update("user:a", m.id, "User eats fish.", now=T0 - DAY)
    with pytest.raises(InvalidMemoryError, match="before"):
        store.archive("user:a", m.id, now=T0 - DAY)
    assert snapshot(store, "user:a") == before


def test_update_rejects_unknown_fields(store: MemoryStore) -> None:
    m = store.add("user:a", "User is vegetarian.")
    with pytest.raises(TypeError, match="colour"):
        store.update("user:a", m.id, "x", colour="red")


# -- reads --


def test_nearest_ranks_by_similarity_and_scores_cosine(store: MemoryStore) -> None:
    store.add_many(
        "user:a",
        [
            "User's favourite food is sushi.",
            "User works as a tax lawyer.",
            "User's cat is called Miso.",
        ],
        now=T0,
    )
    hits = internals(store).nearest("user:a", "What food does the user like?", k=3)
    assert hits[0].memory.text == "User's favourite food is sushi."
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(-1.0 <= h.score <= 1.0 for h in hits)
    assert len(internals(store).nearest("user:a", "food", k=1)) == 1
    assert len(internals(store).nearest("user:a", "food", k=50)) == 3


def test_nearest_accepts_a_vector(store: MemoryStore) -> None:
    m = store.add("user:a", "User's favourite food is sushi.")
    vector = store.embeddings.embed_query("User's favourite food is sushi.")
    [hit] = internals(store).nearest("user:a", vector, k=1)
    assert hit.memory.id == m.id and hit.score == pytest.approx(1.0, abs=1e-4)


def test_as_of_reads_what_was_valid_then(store: MemoryStore) -> None:
    v1 = store.add("user:a", "User lives in Delhi.", now=T0)
    store.update("user:a", v1.id, "User lives in Pune.", now=T0 + 10 * DAY)
    q = "Where does the user live?"
    assert [h.memory.text for h in internals(store).nearest("user:a", q, as_of=T0 + DAY)] == [
        "User lives in Delhi."
    ]
    assert [h.memory.text for h in internals(store).nearest("user:a", q, as_of=T0 + 10 * DAY)] == [
        "User lives in Pune."
    ]
    assert [h.memory.text for h in internals(store).nearest("user:a", q)] == ["User lives in Pune."]
    assert internals(store).nearest("user:a", q, as_of=T0 - DAY) == []


def test_keyword_finds_exact_names_numbers_and_ids(store: MemoryStore) -> None:
    texts = [
        "Caroline went to the LGBTQ support group on 7 May 2023.",
        "Melanie painted a sunrise in 2022.",
        "User's flight LH-761 leaves at 7am.",
        "User likes long walks.",
    ]
    added = store.add_many("user:a", texts, now=T0)
    assert [h.memory.text for h in internals(store).keyword("user:a", ["caroline"], k=5)] == [
        texts[0]
    ]
    assert [
        h.memory.text for h in internals(store).keyword("user:a", "What did Melanie paint?")
    ] == [texts[1]]
    assert [h.memory.text for h in internals(store).keyword("user:a", ["2022"])] == [texts[1]]
    assert [
        h.memory.text for h in internals(store).keyword("user:a", "When does LH-761 leave?")
    ] == [texts[2]]
    assert [h.memory.id for h in internals(store).keyword("user:a", [added[3].id])] == [added[3].id]
    assert internals(store).keyword("user:a", ["Carol"]) == [], "whole words only"
    two = internals(store).keyword("user:a", ["Caroline", "LGBTQ", "Melanie"], k=5)
    assert [h.memory.text for h in two] == [texts[0], texts[1]], "two terms beat one"
    assert 0 < two[1].score < two[0].score <= 1


def test_keyword_sees_only_active_versions(store: MemoryStore) -> None:
    m = store.add("user:a", "User lives in Delhi.", now=T0)
    store.update("user:a", m.id, "User lives in Pune.", now=T0 + DAY)
    assert internals(store).keyword("user:a", ["Delhi"]) == []
    assert len(internals(store).keyword("user:a", ["Pune"])) == 1


def test_touch_refreshes_last_accessed_in_one_call(store: MemoryStore) -> None:
    a, b = store.add_many("user:a", ["A fact.", "B fact."], now=T0)
    internals(store).touch("user:a", [a.id, "ffffffff"], now=T0 + DAY)
    assert store.get_memory("user:a", a.id).last_accessed == T0 + DAY
    assert store.get_memory("user:a", b.id).last_accessed == T0


def test_scopes_lists_what_holds_data(store: MemoryStore) -> None:
    store.add("user:alice", "A.")
    with store.admin() as admin:
        admin.add("org:acme", "B.")
    internals(store).log("session:t1", Decision(op=DecisionOp.NOOP, fact="hi"))
    assert store.scopes() == [Scope("org", "acme"), Scope("session", "t1"), Scope("user", "alice")]
    assert store.scopes("user") == [Scope("user", "alice")]
    assert store.active("user:nobody") == [] and internals(store).nearest("user:nobody", "x") == []


# -- decision log --


def test_decisions_answer_why_for_a_whole_chain(store: MemoryStore) -> None:
    v1 = store.add("user:a", "User lives in Delhi.", now=T0)
    internals(store).log(
        "user:a", Decision(op=DecisionOp.ADD, fact="User lives in Delhi.", result_id=v1.id), now=T0
    )
    v2 = store.update("user:a", v1.id, "User lives in Pune.", now=T0 + DAY)
    internals(store).log(
        "user:a",
        [
            Decision(
                op=DecisionOp.UPDATE,
                fact="User moved to Pune.",
                text=v2.text,
                target_id=v1.id,
                result_id=v2.id,
                shown_ids=(v1.id,),
                shown_texts=(v1.text,),
                raw='{"op":"UPDATE"}',
            ),
            Decision(op=DecisionOp.NOOP, fact="User likes tea."),
        ],
        now=T0 + DAY,
    )
    why = store.decisions("user:a", v2.id)
    assert [d.op for d in why] == [DecisionOp.ADD, DecisionOp.UPDATE]
    assert why[1].shown_texts == ("User lives in Delhi.",) and why[1].raw == '{"op":"UPDATE"}'
    assert all(d.id and d.created_at for d in why)
    assert len(store.decisions("user:a")) == 3
    assert store.decisions("user:other") == []


def test_export_is_json_ready_and_complete(store: MemoryStore) -> None:
    v1 = store.add("user:a", "User lives in Delhi.", now=T0)
    store.update("user:a", v1.id, "User lives in Pune.", now=T0 + DAY)
    internals(store).log("user:a", Decision(op=DecisionOp.UPDATE, fact="moved", target_id=v1.id))
    data = json.loads(json.dumps(store.export("user:a")))
    assert data["scope"] == "user:a"
    assert [m["text"] for m in data["memories"]] == ["User lives in Delhi.", "User lives in Pune."]
    assert data["memories"][0]["valid_until"] is not None
    assert [d["op"] for d in data["decisions"]] == ["UPDATE"]


# -- purge --


def test_purge_ids_removes_every_version_and_log_entry(store: MemoryStore) -> None:
    v1 = store.add("user:a", "User's passport is X1.", now=T0)
    v2 = store.update("user:a", v1.id, "User's passport is X2.", now=T0 + DAY)
    keep = store.add("user:a", "User likes tea.", now=T0)
    internals(store).log(
        "user:a",
        [
            Decision(op=DecisionOp.UPDATE, fact="p", target_id=v1.id, result_id=v2.id),
            Decision(
                op=DecisionOp.NOOP,
                fact="User likes tea.",
                shown_ids=(keep.id, v2.id),
                shown_texts=(keep.text, v2.text),
                raw=f"saw {v2.text}",
            ),
        ],
    )
    assert store.purge("user:a", [v1.id]) == {"memories": 2, "decisions": 1, "reviews": 0}
    for gone in (v1.id, v2.id):
        with pytest.raises(MemoryNotFoundError):
            store.get_memory("user:a", gone)
    assert [m.id for m in store.active("user:a")] == [keep.id]
    [left] = store.decisions("user:a")
    assert left.shown_texts == (keep.text, "[purged]") and "X2" not in (left.raw or "")
    assert "X2" not in json.dumps(store.export("user:a"))
    # the store still works after the collections were rebuilt
    assert internals(store).nearest("user:a", "tea", k=1)[0].memory.id == keep.id
    store.add("user:a", "User likes coffee.")


def test_purge_with_an_unknown_id_deletes_nothing(store: MemoryStore) -> None:
    m = store.add("user:a", "User likes tea.", now=T0)
    before = snapshot(store, "user:a")
    with pytest.raises(MemoryNotFoundError):
        store.purge("user:a", [m.id, "ffffffff"])
    assert snapshot(store, "user:a") == before


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_scope_drops_it_and_nothing_else(store: MemoryStore) -> None:
    store.add("user:alice", "Alice fact.")
    internals(store).log("user:alice", Decision(op=DecisionOp.NOOP, fact="x"))
    bob = store.add("user:bob", "Bob fact.")
    assert store.purge("user:alice") == {"memories": 1, "decisions": 1, "reviews": 0}
    assert store.scopes() == [Scope("user", "bob")]
    assert store.active("user:alice") == [] and store.decisions("user:alice") == []
    assert [m.id for m in store.active("user:bob")] == [bob.id]
    store.add("user:alice", "Alice is back.")
    assert [m.text for m in store.active("user:alice")] == ["Alice is back."]


# -- bad input: a clear error, and nothing already stored changes --


class WrongSize(Embeddings):
    """Claims to be the store's embedder but returns vectors of another size."""

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[0.1] * self.size for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [0.1] * self.size


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda s, m: s.add("user:a", "x" * 100_000), InvalidMemoryError, "limit"),
        (lambda s, m: s.add("user:a", ""), InvalidMemoryError, "empty"),
        (lambda s, m: s.add("user:a", "ok", metadata={"k": None}), InvalidMemoryError, "None"),
        (lambda s, m: s.add("user:a", "ok", metadata={"k": {"n": 1}}), InvalidMemoryError, "dict"),
        (lambda s, m: s.add("user:a", "ok", importance=1.5), InvalidMemoryError, r"\[0, 1\]"),
        (lambda s, m: s.add("user:a", "ok", kind="gossip"), InvalidMemoryError, "kind"),
        (lambda s, m: s.add("user:a", "ok", trust="total"), InvalidMemoryError, "trust"),
        (lambda s, m: s.add("user:a", "ok", pinned="yes"), InvalidMemoryError, "pinned"),
        (lambda s, m: s.add("customer:a", "ok"), InvalidScopeError, "kind"),
        (lambda s, m: s.add("user:a/b", "ok"), InvalidScopeError, "'/'"),
        (lambda s, m: s.add(("langgraph", "x"), "ok"), InvalidScopeError, "reserves"),
        (lambda s, m: s.get_memory("user:a", "ffffffff"), MemoryNotFoundError, "ffffffff"),
        (lambda s, m: s.update("user:a", "ffffffff", "new"), MemoryNotFoundError, "ffffffff"),
        (lambda s, m: s.archive("user:a", "ffffffff"), MemoryNotFoundError, "ffffffff"),
        (lambda s, m: s.history("user:a", "ffffffff"), MemoryNotFoundError, "ffffffff"),
        (lambda s, m: s.update("user:a", m.id, "x" * 100_000), InvalidMemoryError, "limit"),
        (
            lambda s, m: s.update("user:a", m.id, "ok", metadata={"k": [1]}),
            InvalidMemoryError,
            "list",
        ),
        (
            lambda s, m: internals(s).nearest("user:a", [0.1] * 10),
            EmbeddingMismatchError,
            "10-dimensional",
        ),
        (lambda s, m: internals(s).nearest("user:a", "q", k=0), ValueError, "k must"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(
    store: MemoryStore, call: Any, error: type[Exception], message: str
) -> None:
    m = store.add("user:a", "User lives in Delhi.", now=T0)
    before = snapshot(store, "user:a")
    with pytest.raises(error, match=message):
        call(store, m)
    assert snapshot(store, "user:a") == before
    assert store.scopes() == [Scope("user", "a")]


def test_an_embedder_with_the_wrong_dimension_stores_nothing(store: MemoryStore) -> None:
    m = store.add("user:a", "User lives in Delhi.", now=T0)
    before = snapshot(store, "user:a")
    # A second store object on the same location, whose embedder claims the
    # store's name but returns vectors of another size.
    liar = WrongSize(internals(store).embedder_name, 12)
    where = {"client": internals(store).client} if store.path is None else {"path": store.path}
    with MemoryStore(**where, embeddings=liar) as other:
        with pytest.raises(EmbeddingMismatchError, match="12-dimensional"):
            other.add("user:a", "User lives in Pune.")
        with pytest.raises(EmbeddingMismatchError):
            other.update("user:a", m.id, "User lives in Pune.")
    assert snapshot(store, "user:a") == before


def test_another_embedder_is_refused_on_open(tmp_path: Path, embedder: Embeddings) -> None:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        s.add("user:a", "User likes tea.")
    with pytest.raises(EmbeddingMismatchError, match="all-MiniLM-L6-v2-onnx-int8"):
        MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=384))
    from test_lock import open_in_child

    assert open_in_child(tmp_path / "m").returncode == 0, "a refused open keeps no lock"
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        assert [m.text for m in s.active("user:a")] == ["User likes tea."]


def test_an_embedded_open_reads_no_record_of_the_registry_and_a_store_before_that_is_kept_up(
    tmp_path: Path, embedder: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Chroma loads a collection's whole vector index on its first read, and the
    # registry's has an entry per person: the settings an open checks are kept beside
    # the bucketed entries too, so a store of 100,000 people opens as fast as one of a
    # thousand.
    import sqlite3

    from langgraph_memory.store.chroma import door, layout
    from langgraph_memory.store.lexical import bucket_entries

    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        s.add("user:a", "User likes tea.")
    registry_reads: list[Any] = []
    real_read = door.ChromaCollection.read

    def counted(self: door.ChromaCollection, **kwargs: Any) -> Any:
        if self.name == layout.REGISTRY:
            registry_reads.append(kwargs.get("ids"))
        return real_read(self, **kwargs)

    monkeypatch.setattr(door.ChromaCollection, "read", counted)
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        assert registry_reads == [], "the open read the registry's records"
        assert [m.text for m in s.active("user:a")] == ["User likes tea."]
    with pytest.raises(EmbeddingMismatchError, match="all-MiniLM-L6-v2-onnx-int8"):
        MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=384))
    assert registry_reads == []

    # A store written before the settings were kept there (or whose file of bucketed
    # entries was erased, as an interrupted purge erases it): the registry's record is
    # read, checked, and kept from then on.
    with sqlite3.connect(tmp_path / "m" / "lexical" / bucket_entries.FILE) as con:
        con.execute("DELETE FROM meta WHERE key = 'config'")
    with pytest.raises(EmbeddingMismatchError, match="all-MiniLM-L6-v2-onnx-int8"):
        MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=384))
    assert registry_reads == [[layout.CONFIG_ID]], "the record is read when nothing else holds it"
    registry_reads.clear()
    # Kept as the registry says, not as the refused embedder said.
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        assert registry_reads == []
        s.add("user:a", "User likes coffee.")
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        assert registry_reads == []
        assert sorted(m.text for m in s.active("user:a")) == [
            "User likes coffee.",
            "User likes tea.",
        ]
        assert internals(s).nearest("user:a", "What does the user drink?", k=1)


def test_embedded_store_persists_across_reopen(tmp_path: Path, embedder: Embeddings) -> None:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        v1 = s.add("user:a", "User lives in Delhi.", now=T0)
        s.update("user:a", v1.id, "User lives in Pune.", now=T0 + DAY)
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        assert [m.text for m in s.history("user:a", v1.id)] == [
            "User lives in Delhi.",
            "User lives in Pune.",
        ]
        assert (
            internals(s).nearest("user:a", "Where does the user live?", k=1)[0].memory.text
            == "User lives in Pune."
        )


def test_default_path_comes_from_the_environment(
    tmp_path: Path, embedder: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANGGRAPH_MEMORY_PATH", str(tmp_path / "from-env"))
    with MemoryStore(embeddings=embedder) as s:
        assert s.path == tmp_path / "from-env"
        s.add("user:a", "x")
    assert (tmp_path / "from-env" / "chroma.sqlite3").exists()


# -- scope isolation, as a property --

SCOPES = ["user:alice", "user:bob", "org:acme"]
WORDS = ["Pune", "Delhi", "tea", "coffee", "cat", "dog", "2023", "chess"]

operation = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(SCOPES), st.sampled_from(WORDS)),
    st.tuples(st.just("update"), st.sampled_from(SCOPES), st.sampled_from(WORDS)),
    st.tuples(st.just("close"), st.sampled_from(SCOPES), st.just("")),
    st.tuples(st.just("read"), st.sampled_from(SCOPES), st.sampled_from(WORDS)),
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(operation, min_size=1, max_size=14))
def test_operations_never_cross_scopes(store: MemoryStore, ops: list[tuple[str, str, str]]) -> None:
    with store.admin() as admin:  # org scopes are written only by an admin
        operations_never_cross_scopes(admin, ops)


def operations_never_cross_scopes(store: MemoryStore, ops: list[tuple[str, str, str]]) -> None:
    run = uuid.uuid4().hex[:8]  # fresh scopes per example: the store outlives examples
    scoped = {s: f"{s}-{run}" for s in SCOPES}
    expected: dict[str, dict[str, str]] = {s: {} for s in SCOPES}  # active id -> text
    for i, (op, scope, word) in enumerate(ops):
        key = scoped[scope]
        mine = expected[scope]
        if op == "add":
            m = store.add(key, f"{scope} note {i} about {word}.")
            mine[m.id] = m.text
        elif op == "update" and mine:
            old = sorted(mine)[0]
            m = store.update(key, old, f"{scope} note {i} now about {word}.")
            del mine[old]
            mine[m.id] = m.text
        elif op == "close" and mine:
            old = sorted(mine)[-1]
            store.archive(key, old)
            del mine[old]
        elif op == "read":
            for hit in internals(store).nearest(key, word, k=10) + internals(store).keyword(
                key, [word], k=10
            ):
                assert hit.memory.scope == key and hit.memory.id in mine
            for other in SCOPES:
                if other != scope:
                    for foreign in expected[other]:
                        with pytest.raises(MemoryNotFoundError):
                            store.get_memory(key, foreign)
    for scope in SCOPES:
        active = store.active(scoped[scope])
        assert {m.id: m.text for m in active} == expected[scope]
        assert all(m.scope == scoped[scope] for m in active)


def test_a_basestore_key_works_wherever_an_id_does(store: MemoryStore) -> None:
    store.put(("user", "a"), "food", {"text": "User likes sushi."})
    store.put(("user", "a"), "food", {"text": "User likes ramen."})
    assert [m.text for m in store.history("user:a", "food")] == [
        "User likes sushi.",
        "User likes ramen.",
    ]
    assert store.get_memory("user:a", "food").text == "User likes ramen."
    newest = store.update("user:a", "food", "User likes udon.")
    assert store.get(("user", "a"), "food").value["text"] == "User likes udon."  # type: ignore[union-attr]
    assert newest.replaces is not None


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_takes_many_ids_and_keys_at_once(store: MemoryStore) -> None:
    added = store.add_many("user:a", [f"Fact number {i}." for i in range(30)], now=T0)
    store.put(("user", "a"), "pref", {"text": "User prefers tea."})
    doomed = [m.id for m in added[:20]] + ["pref"]
    assert store.purge("user:a", doomed) == {"memories": 21, "decisions": 0, "reviews": 0}
    assert sorted(m.id for m in store.active("user:a")) == sorted(m.id for m in added[20:])


def test_an_interrupted_close_is_completed_on_next_open(
    tmp_path: Path, embedder: Embeddings
) -> None:
    """A crash between writing the closed copy and deleting the active one."""
    from langgraph_memory.store.chroma import layout
    from langgraph_memory.store.chroma.door import client_of

    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        m = s.add("user:a", "User lives in Delhi.", now=T0)
        keep = s.add("user:a", "User likes tea.", now=T0)
        client = client_of(internals(s).client)
        cols = layout.open_scope(client, layout.open_registry(client), Scope("user", "a"))
        assert cols is not None
        record = cols.active.read(ids=[m.id], include=["embeddings", "documents", "metadatas"])
        assert record["metadatas"] is not None
        meta = {**record["metadatas"][0], "valid_until": (T0 + DAY).timestamp()}
        cols.history.add([m.id], record["embeddings"], record["documents"], [meta])
    # As a crash leaves it: the process never closed the store (user:a is in a bucket,
    # whose moves are finished at an open that follows a crash).
    (tmp_path / "m" / CLOSED_MARK).unlink()
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        assert [x.id for x in s.active("user:a")] == [keep.id]
        assert s.get_memory("user:a", m.id).valid_until == T0 + DAY


def test_reads_of_more_records_than_one_page_see_them_all(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma refuses to read ~32k records in one call, so the store reads in pages:
    a page of 3 here stands for one of 10,000."""
    from langgraph_memory.store.chroma import collection_io

    monkeypatch.setattr(collection_io, "PAGE", 3)
    added = store.add_many("user:a", [f"Memory number {i}." for i in range(10)], now=T0)
    assert sorted(m.id for m in store.active("user:a")) == sorted(m.id for m in added)
    assert len(store.export("user:a")["memories"]) == 10
    assert len(store.search(("user", "a"), limit=20)) == 10


def test_pin_makes_a_new_version_once_and_unpin_another(store: MemoryStore) -> None:
    m = store.add("user:a", "User is allergic to peanuts.", now=T0)
    pinned = store.pin("user:a", m.id, now=T0 + DAY)
    assert pinned.pinned and pinned.replaces == m.id and pinned.text == m.text
    assert store.pin("user:a", pinned.id) == pinned, "pinning a pinned memory changes nothing"
    assert [x.id for x in store.pinned("user:a")] == [pinned.id]
    unpinned = store.pin("user:a", pinned.id, pinned=False, now=T0 + 2 * DAY)
    assert store.pinned("user:a") == [] and not unpinned.pinned
    assert [v.pinned for v in store.history("user:a", m.id)] == [False, True, False]
    with pytest.raises(MemoryArchivedError):
        store.pin("user:a", m.id)  # an old version: only the current one changes
