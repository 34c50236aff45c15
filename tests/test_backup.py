"""Export is a backup: a scope exported and imported into an empty store comes
back exactly (every test that takes ``store`` runs embedded and on a server)."""

from __future__ import annotations

import copy
import io
import json
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import (
    BackgroundWriter,
    Decision,
    DecisionOp,
    EmbeddingMismatchError,
    InvalidMemoryError,
    MemoryStore,
    MemoryWriter,
    ScopeNotEmptyError,
    Status,
)
from langgraph_memory.cli import main
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.store import internals
from langgraph_memory.store.engine import core as store_core
from langgraph_memory.write import RulesModel

T0 = datetime(2023, 5, 8, 13, 56, 7, 123456, tzinfo=timezone.utc)
DAY = timedelta(days=1)
ALICE = ("user", "alice")

MakeStore = Callable[[], MemoryStore]


@pytest.fixture
def new_store(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, embedder: LocalMiniLM
) -> Iterator[MakeStore]:
    """Fresh, empty stores on the same backend as the ``store`` fixture."""
    made: list[MemoryStore] = []

    def make() -> MemoryStore:
        if backend == "embedded":
            s = MemoryStore(tmp_path / f"other-{len(made)}", embeddings=embedder)
        else:
            server = request.getfixturevalue("chroma_server")
            s = MemoryStore(client=server.client(f"db{uuid.uuid4().hex}"), embeddings=embedder)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


@pytest.fixture
def local(tmp_path: Path, embedder: LocalMiniLM) -> Iterator[MemoryStore]:
    """An embedded store, for tests of what is refused before any write."""
    with MemoryStore(tmp_path / "local", embeddings=embedder) as s:
        yield s


def fill(store: MemoryStore, scope: str = "user:alice") -> dict[str, str]:
    """A scope with every kind of record: adds, an update, a close, BaseStore
    puts with extra fields (one deleted), a touch, and logged decisions."""
    home = store.add(
        scope,
        "User lives in Delhi.",
        importance=0.7,
        kind="semantic",
        pinned=True,
        source="explicit",
        trust="medium",
        event_time=T0 - DAY,
        sources=("aaaaaaaa", "bbbbbbbb"),
        metadata={"topic": "home", "n": 3, "ok": True, "w": 0.25},
        now=T0,
    )
    tea = store.add(scope, "User likes green tea.", kind="procedural", now=T0)
    job = store.add(scope, "User works at Infosys.", importance=0.4, now=T0 + DAY / 3)
    moved = store.update(
        scope, home.id, "User lives in Pune.", metadata={"topic": "move"}, now=T0 + DAY
    )
    store.archive(scope, job.id, now=T0 + 2 * DAY)
    internals(store).touch(scope, [tea.id], now=T0 + 3 * DAY)
    namespace = tuple(scope.split(":"))
    store.put(namespace, "food", {"text": "Likes sushi.", "rating": 5, "tags": ["fish"]})
    store.put(namespace, "food", {"text": "Likes ramen.", "rating": 4, "tags": ["noodles"]})
    store.put(namespace, "pet", {"content": "Has a cat named Miso.", "since": 2019})
    store.delete(namespace, "pet")
    internals(store).log(
        scope,
        [
            Decision(op=DecisionOp.ADD, fact="lives in Delhi", result_id=home.id, turn_id="t1"),
            Decision(
                op=DecisionOp.UPDATE,
                fact="moved to Pune",
                text="User lives in Pune.",
                target_id=home.id,
                result_id=moved.id,
                shown_ids=(home.id, tea.id),
                shown_texts=("User lives in Delhi.", "User likes green tea."),
                raw='{"op": "UPDATE", "id": 0}',
                turn_id="t2",
                created_at=T0 + DAY,
            ),
            Decision(
                op=DecisionOp.DELETE, fact="quit", target_id=job.id, status="failed", error="boom"
            ),
        ],
        now=T0 + 2 * DAY,
    )
    return {"home": home.id, "moved": moved.id, "tea": tea.id, "job": job.id}


def test_export_holds_every_field(store: MemoryStore) -> None:
    ids = fill(store)
    data = json.loads(json.dumps(store.export("user:alice")))
    assert data["version"] == 3 and data["pending_turns"] == [] and data["reviews"] == []
    by_id = {m["id"]: m for m in data["memories"]}
    assert len(by_id) == 7  # 4 adds/updates + 2 food versions + 1 pet version
    assert {m["key"] for m in data["memories"]} == {ids["home"], ids["tea"], ids["job"]} | {
        "food",
        "pet",
    }
    food = [m for m in data["memories"] if m["key"] == "food"]
    assert [json.loads(m["value_json"]) for m in food] == [
        {"text": "Likes sushi.", "rating": 5, "tags": ["fish"]},
        {"text": "Likes ramen.", "rating": 4, "tags": ["noodles"]},
    ]
    assert food[0]["key_created_at"] == food[1]["key_created_at"] == food[0]["created_at"]
    moved = by_id[ids["moved"]]
    assert moved["key"] == ids["home"] and moved["key_created_at"] == T0.isoformat()
    assert by_id[ids["tea"]]["last_accessed"] == (T0 + 3 * DAY).isoformat()
    assert by_id[ids["job"]]["valid_until"] == (T0 + 2 * DAY).isoformat()
    update = next(d for d in data["decisions"] if d["op"] == "UPDATE")
    assert update["shown_ids"] == [ids["home"], ids["tea"]] and update["turn_id"] == "t2"
    assert update["id"] and update["created_at"] == (T0 + DAY).isoformat()


def test_round_trip_into_an_empty_store_is_exact(store: MemoryStore, new_store: MakeStore) -> None:
    ids = fill(store)
    original = store.export("user:alice")
    copy_ = new_store()
    counts = copy_.import_scope(json.loads(json.dumps(original)))
    assert counts == {
        "memories": 7,
        "active": 3,
        "closed": 4,
        "decisions": 3,
        "reviews": 0,
        "pending_turns": 0,
    }
    again = copy_.export("user:alice")
    assert json.dumps(again, sort_keys=True) == json.dumps(original, sort_keys=True)
    # The restored scope works as the original did.
    for memory_id in ids.values():
        assert copy_.history("user:alice", memory_id) == store.history("user:alice", memory_id)
        assert copy_.decisions("user:alice", memory_id) == store.decisions("user:alice", memory_id)
    assert copy_.decisions("user:alice", turn_id="t2") == store.decisions(
        "user:alice", turn_id="t2"
    )
    food, food_copy = store.get(ALICE, "food"), copy_.get(ALICE, "food")
    assert food is not None and food_copy is not None
    assert food_copy.value == {"text": "Likes ramen.", "rating": 4, "tags": ["noodles"]}
    assert (food_copy.created_at, food_copy.updated_at) == (food.created_at, food.updated_at)
    assert copy_.get(ALICE, "pet") is None and copy_.get(ALICE, ids["home"]) is not None

    def found(s: MemoryStore) -> list[tuple[str, dict[str, Any], float]]:
        hits = s.search(ALICE, query="What food does Alice like?", limit=5)
        return [(h.key, h.value, round(h.score or 0.0, 5)) for h in hits]

    assert found(copy_) == found(store) and found(copy_)[0][0] == "food"

    def near(s: MemoryStore, **kw: Any) -> list[tuple[str, float]]:
        return [
            (h.memory.id, round(h.score, 5))
            for h in internals(s).nearest("user:alice", "city", 3, **kw)
        ]

    assert near(copy_) == near(store)
    assert near(copy_, as_of=T0 + DAY / 2) == near(store, as_of=T0 + DAY / 2)
    # and keeps working: the next update closes the restored version.
    newer = copy_.update("user:alice", ids["moved"], "User lives in Mumbai.")
    assert [m.text for m in copy_.history("user:alice", newer.id)][-2:] == [
        "User lives in Pune.",
        "User lives in Mumbai.",
    ]


def test_import_into_another_scope_rewrites_the_scope(store: MemoryStore) -> None:
    ids = fill(store)
    original = store.export("user:alice")
    store.import_scope(original, scope="user:bob")
    expected = copy.deepcopy(original)
    expected["scope"] = "user:bob"
    for m in expected["memories"]:
        m["scope"] = "user:bob"
    assert store.export("user:bob") == expected
    assert store.export("user:alice") == original  # untouched
    bob = store.get(("user", "bob"), "food")
    assert bob is not None and bob.namespace == ("user", "bob") and bob.value["rating"] == 4
    assert store.history("user:bob", ids["moved"])[0].scope == "user:bob"


def test_import_refuses_a_scope_that_holds_data(store: MemoryStore) -> None:
    fill(store)
    backup = store.export("user:alice")
    with pytest.raises(ScopeNotEmptyError, match="already holds 7 memory versions, 3 decisions"):
        store.import_scope(backup)
    internals(store).log("user:carol", Decision(op=DecisionOp.NOOP, fact="only a decision"))
    before = store.export("user:carol")
    with pytest.raises(ScopeNotEmptyError, match="user:carol already holds 1 decisions"):
        store.import_scope(backup, scope="user:carol")
    assert store.export("user:carol") == before
    assert store.export("user:alice") == backup


def test_failed_write_leaves_the_scope_empty(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(store)
    backup = store.export("user:alice")

    def broken_log(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    with monkeypatch.context() as patch:
        # The log is written after the versions: a failure there must undo them.
        patch.setattr(store_core, "append_decisions", broken_log)
        with pytest.raises(RuntimeError, match="disk full"):
            store.import_scope(backup, scope="user:dan")
    assert store.export("user:dan")["memories"] == []
    assert store.import_scope(backup, scope="user:dan")["memories"] == 7


def set_path(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("format",), "something-else", "not a langgraph-memory export"),
        (("version",), 4, "export version 4 is not one this release reads"),
        (("scope",), "nobody", "export scope 'nobody'"),
        (("memories", 1, "importance"), 7, r"memories\[1\] \(id '.+'\): importance must be"),
        (("memories", 2, "text"), "  ", r"memories\[2\] .*memory text is empty"),
        (("memories", 0, "kind"), "gossip", r"memories\[0\] .*kind must be one of"),
        (("memories", 0, "created_at"), "yesterday", r"memories\[0\] .*ISO 8601"),
        (("memories", 0, "metadata"), {"x": [1]}, r"memories\[0\] .*metadata\['x'\]"),
        (("memories", 0, "value_json"), "{not json", r"memories\[0\] .*not valid JSON"),
        (("memories", 0, "colour"), "red", r"memories\[0\] .*unknown fields \['colour'\]"),
        (("memories", 0, "scope"), "user:eve", r"memories\[0\] .*the export is of 'user:alice'"),
        (("decisions", 0, "op"), "MERGE", r"decisions\[0\] .*op must be one of"),
        (("decisions", 0, "status"), "done", r"decisions\[0\] .*status must be one of"),
        (("decisions", 1, "shown_ids"), "abc", r"decisions\[1\] .*shown_ids must be a list"),
        (("decisions", 2, "created_at"), None, r"decisions\[2\] .*created_at is missing"),
    ],
)
def test_a_bad_payload_is_refused_before_any_write(
    local: MemoryStore, path: tuple[Any, ...], value: Any, message: str
) -> None:
    fill(local)
    data = local.export("user:alice")
    set_path(data, path, value)
    with pytest.raises(InvalidMemoryError, match=message):
        local.import_scope(data, scope="user:zed")
    assert [s.key for s in local.scopes()] == ["user:alice"]  # nothing written


def test_duplicates_and_two_current_versions_are_refused(local: MemoryStore) -> None:
    fill(local)
    data = local.export("user:alice")
    twice = copy.deepcopy(data)
    twice["memories"].append(dict(twice["memories"][0]))
    with pytest.raises(InvalidMemoryError, match=r"memories\[7\]: memory id .* appears twice"):
        local.import_scope(twice, scope="user:zed")
    reopened = copy.deepcopy(data)
    for m in reopened["memories"]:
        m["valid_until"] = None  # every version of a chain current at once
    with pytest.raises(InvalidMemoryError, match="already has the active version"):
        local.import_scope(reopened, scope="user:zed")
    assert local.export("user:zed")["memories"] == []


def test_another_embedder_needs_consent(local: MemoryStore) -> None:
    fill(local)
    data = local.export("user:alice")
    data["embedder"] = "some-other-model"
    with pytest.raises(EmbeddingMismatchError, match="allow_embedder_change=True"):
        local.import_scope(data, scope="user:zed")
    assert local.import_scope(data, scope="user:zed", allow_embedder_change=True)["active"] == 3
    assert internals(local).nearest("user:zed", "Where does the user live?", 1)[0].memory.text == (
        "User lives in Pune."
    )


def test_pending_turns_are_never_dropped_silently(local: MemoryStore) -> None:
    local.add("user:alice", "User likes tea.", now=T0)
    data = local.export("user:alice")
    data["pending_turns"] = [
        {
            "t": "turn",
            "v": 1,
            "id": "t9",
            "scope": "user:alice",
            "messages": [["user", "I moved to Goa."]],
            "when": T0.isoformat(),
        }
    ]
    with pytest.raises(InvalidMemoryError, match="1 pending turns"):
        local.import_scope(data, scope="user:zed")
    got: list[Any] = []
    assert local.import_scope(data, scope="user:zed", requeue=got.append)["pending_turns"] == 1
    # each turn goes to the scope imported into
    assert got == [{**turn, "scope": "user:zed"} for turn in data["pending_turns"]]


def test_turns_a_background_writer_holds_travel_with_the_export(
    tmp_path: Path, local: MemoryStore, embedder: LocalMiniLM
) -> None:
    """A turn accepted but not applied yet is in the export, and the import queues
    it again on the target's background writer, where it is applied."""
    local.add("user:alice", "User likes tea.", now=T0)
    with holding(local) as bg:
        first = bg.submit("user:alice", [("user", "I live in Delhi.")], now=T0 + DAY)
        second = bg.submit("user:alice", [("user", "I am vegan.")], now=T0 + 2 * DAY)
        data = json.loads(json.dumps(local.export("user:alice")))
    assert [t["id"] for t in data["pending_turns"]] == [first, second]
    target = MemoryStore(tmp_path / "target", embeddings=embedder)
    with BackgroundWriter(MemoryWriter(target, model=RulesModel())) as bg2:
        counts = target.import_scope(data, scope="user:bob", requeue=bg2.requeue)
        assert counts["pending_turns"] == 2 and bg2.flush(timeout=60)
    assert sorted(m.text for m in target.active("user:bob")) == [
        "I am vegan.",  # the turns' episodes
        "I live in Delhi.",
        "User is vegan.",
        "User likes tea.",
        "User lives in Delhi.",
    ]
    assert {d.turn_id for d in target.decisions("user:bob")} >= {first, second}
    target.close()


def test_a_version_1_export_imports(local: MemoryStore) -> None:
    ids = fill(local)
    data = local.export("user:alice")
    data["version"] = 1
    del data["pending_turns"]
    for m in data["memories"]:
        del m["key_created_at"], m["value_json"]
    local.import_scope(data, scope="user:old")
    moved = next(m for m in local.export("user:old")["memories"] if m["id"] == ids["moved"])
    assert moved["key_created_at"] == T0.isoformat()  # its chain's oldest version
    food = local.get(("user", "old"), "food")
    assert food is not None and food.value["text"] == "Likes ramen." and "rating" not in food.value


def test_an_export_from_before_the_note_field_imports(local: MemoryStore) -> None:
    fill(local)
    data = local.export("user:alice")
    for d in data["decisions"]:
        del d["note"]
        if d["turn_id"] == "t2":
            d.update(status="corrected", error="UPDATE of unshown id 7 -> ADD")
    local.import_scope(data, scope="user:old")
    corrected = local.decisions("user:old", turn_id="t2")[0]
    assert (corrected.status, corrected.note, corrected.error) == (
        Status.APPLIED,
        "UPDATE of unshown id 7 -> ADD",
        None,
    )


def test_cli_import_applies_the_pending_turns_of_an_export(
    tmp_path: Path,
    embedder: LocalMiniLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    source, target = str(tmp_path / "source"), str(tmp_path / "target")
    with MemoryStore(source, embeddings=embedder) as s:
        s.add("user:alice", "User likes tea.", now=T0)
        data = s.export("user:alice")
    turn = {"t": "turn", "v": 1, "id": "t9", "scope": "user:alice"}
    turn |= {"messages": [["user", "I am vegan."]], "when": (T0 + DAY).isoformat()}
    data["pending_turns"] = [turn]
    backup = tmp_path / "alice.json"
    backup.write_text(json.dumps(data))
    assert main(["import", "--path", target, "--user", "alice", "--in", str(backup)]) == 0
    assert "applied its 1 pending turn through" in capsys.readouterr().out
    with MemoryStore(target, embeddings=embedder) as t:
        assert sorted(m.text for m in t.active("user:alice")) == [
            "I am vegan.",  # the turn's episode
            "User is vegan.",
            "User likes tea.",
        ]
        assert [d.turn_id for d in t.decisions("user:alice") if d.turn_id] == ["t9"]


def test_cli_import_restores_and_refuses_a_full_scope(
    tmp_path: Path,
    embedder: LocalMiniLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source, target = str(tmp_path / "source"), str(tmp_path / "target")
    with MemoryStore(source, embeddings=embedder) as s:
        fill(s)
        original = s.export("user:alice")
    backup = tmp_path / "alice.json"
    assert main(["export", "--path", source, "--user", "alice", "--out", str(backup)]) == 0
    assert main(["import", "--path", target, "--user", "alice", "--in", str(backup)]) == 0
    assert capsys.readouterr().out.strip() == (
        "restored 7 memory versions (3 active, 4 closed) and 3 decisions into user:alice"
    )
    assert main(["import", "--path", target, "--user", "alice", "--in", str(backup)]) == 1
    assert "error: scope user:alice already holds 7 memory versions" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(backup.read_text()))
    assert main(["import", "--path", target, "--scope", "user:bob", "--in", "-"]) == 0
    assert "into user:bob" in capsys.readouterr().out
    with MemoryStore(target, embeddings=embedder) as t:
        assert t.export("user:alice") == original
        assert t.export("user:bob")["memories"][0]["scope"] == "user:bob"
    (tmp_path / "bad.json").write_text("{not json")
    assert (
        main(["import", "--path", target, "--user", "carol", "--in", str(tmp_path / "bad.json")])
        == 1
    )
    assert "is not a JSON export" in capsys.readouterr().err
    assert main(["import", "--path", target, "--user", "carol", "--in", str(tmp_path / "no")]) == 1
    assert "error: cannot read" in capsys.readouterr().err


# -- a person's whole data, across backends, to the byte --------------------------------


@contextmanager
def holding(store: MemoryStore, **options: Any) -> Iterator[BackgroundWriter]:
    """A background writer on ``store`` (one worker, ``options``) that accepts turns
    and applies none of them until the block ends: its turns stay pending."""
    release = threading.Event()
    writer = MemoryWriter(store, model=RulesModel())
    real = writer.write_turn

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(timeout=120)
        return real(*args, **kwargs)

    writer.write_turn = held  # type: ignore[method-assign]
    background = BackgroundWriter(writer, workers=1, **options)
    try:
        yield background
    finally:
        release.set()
        background.close()


def person(store: MemoryStore) -> None:
    """Alice's data of every kind: versions, BaseStore values, decisions, a turn
    through the write path (its episode), a reflection, and reviews into an agent
    scope, approved, rejected and pending."""
    ids = fill(store)
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn("user:alice", [("user", "I prefer email over phone calls.")], now=T0)
    store.add(
        "user:alice",
        "User settles in wherever they move.",
        kind="reflection",
        source="reflection",
        trust="medium",
        sources=(ids["moved"],),
        now=T0 + DAY,
    )
    email = next(m for m in store.active("user:alice") if m.text.startswith("User prefers"))
    approved = store.reviews.propose("user:alice", email.id, "agent:support", note="common", now=T0)
    store.reviews.approve(approved.id, reason="general", now=T0 + DAY)
    rejected = store.reviews.propose("user:alice", ids["tea"], "agent:support", now=T0)
    store.reviews.reject(rejected.id, reason="personal", now=T0 + DAY)
    store.reviews.propose("user:alice", ids["moved"], "org:acme", now=T0 + 2 * DAY)


def exported(store: MemoryStore, scope: str) -> str:
    return json.dumps(store.export(scope), ensure_ascii=False, indent=2)


def round_trip(data: dict[str, str], target: MemoryStore) -> dict[str, str]:
    """Import every export into the empty ``target`` (its pending turns queued on a
    writer that holds them), and export again."""
    with holding(target) as background:
        for text in data.values():
            target.import_scope(json.loads(text), requeue=background.requeue)
        return {scope: exported(target, scope) for scope in data}


@pytest.mark.server
def test_a_persons_export_is_byte_identical_embedded_to_server_and_back(
    tmp_path: Path, embedder: LocalMiniLM, chroma_server: Any
) -> None:
    """Every version, decision, review and queued turn: export -> import into an
    empty store -> export gives the same JSON, byte for byte, from an embedded
    store to a server and back to an embedded one."""
    source = MemoryStore(tmp_path / "source", embeddings=embedder)
    person(source)
    with holding(source) as background:
        background.submit("user:alice", [("user", "I moved to Goa.")], now=T0 + 5 * DAY)
        background.submit("user:alice", [("user", "I am vegan.")], now=T0 + 6 * DAY)
        first = {scope: exported(source, scope) for scope in ("user:alice", "agent:support")}
    alice = json.loads(first["user:alice"])
    assert len(alice["pending_turns"]) == 2 and len(alice["reviews"]) == 3
    assert {r["status"] for r in alice["reviews"]} == {"pending", "approved", "rejected"}
    assert any(m["kind"] == "reflection" for m in alice["memories"])
    source.close()
    server = MemoryStore(client=chroma_server.client(f"db{uuid.uuid4().hex}"), embeddings=embedder)
    on_server = round_trip(first, server)
    assert on_server == first
    server.close()
    back = MemoryStore(tmp_path / "back", embeddings=embedder)
    assert round_trip(on_server, back) == first
    back.close()
