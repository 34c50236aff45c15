"""Crafted exports, generated: whatever a file says, importing it into one scope,
approving what it proposes and purging that scope leaves every other scope as it was.

Hypothesis builds each export from a real one of Mallory's and mixes in what an
attacker can write: reviews between any scopes (sideways, down, into the scope,
out of it), with any status and with ids taken from other people's memories,
copies and reviews; versions whose ``replaces`` or provenance names other scopes'
records; decisions about them; pending turns of other scopes. The store is on a
real `chroma run` server (a fresh database per test), with victims in user,
session, agent and org scopes and a real approved review between two of them.
``IMPORT_FUZZ_EXAMPLES`` sets how many exports (default 60).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import MemoryKitError, MemoryStore
from langgraph_memory.scope import Scope

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
MALLORY = "user:mallory"
SETTINGS = settings(
    max_examples=int(os.environ.get("IMPORT_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
#: Scopes an export may name: its own, the victims', new ones of every kind.
SCOPES = [
    MALLORY,
    "user:bob",
    "user:alice",
    "session:s1",
    "session:m1",
    "agent:support",
    "agent:new",
    "org:acme",
    "org:new",
]


@dataclass
class World:
    store: MemoryStore
    template: dict[str, Any]
    #: Ids that name real records of other scopes: memories, copies, reviews, decisions.
    ids: list[str]
    #: The ids of other scopes' memories (the copy an approval made among them).
    victims: list[str]
    texts: list[str]
    review_ids: list[str]


@pytest.fixture
def world(chroma_server: Any) -> Iterator[World]:
    client = chroma_server.client(f"db{uuid.uuid4().hex}")
    store = MemoryStore(client=client, embeddings=DeterministicFakeEmbedding(size=8))
    with store.admin() as admin:
        said = {
            "user:bob": ["Bob's passport number is K4471920.", "Bob lives in Lisbon."],
            "user:alice": ["Alice prefers email over phone calls."],
            "session:s1": ["The user is planning a trip to Oslo."],
            "agent:support": ["Refunds take five working days."],
            "org:acme": ["The office closes at 6pm on Fridays."],
        }
        made = [admin.add(scope, text, now=T0) for scope, texts in said.items() for text in texts]
        bob_home = made[1]
        updated = admin.update("user:bob", made[0].id, "Bob's passport is K4471921.", now=T0 + DAY)
        approved = admin.reviews.approve(
            store.reviews.propose("user:bob", bob_home.id, "agent:support", now=T0).id, now=T0 + DAY
        )
        pending = store.reviews.propose("user:alice", made[2].id, "org:acme", now=T0)
        mine = admin.add(MALLORY, "Mallory likes green tea.", now=T0)
        admin.update(MALLORY, mine.id, "Mallory likes black tea.", now=T0 + DAY)
        template = json.loads(json.dumps(admin.export(MALLORY)))
        admin.purge(MALLORY)
    logged = [d.id or "" for s in SCOPES for d in store.decisions(s)]
    memories = [m.id for m in made] + [updated.id, approved.result_id or ""]
    ids = [i for i in memories + logged if i]
    texts = [m.text for m in made]
    try:
        yield World(
            store, template, ids, [i for i in memories if i], texts, [approved.id, pending.id]
        )
    finally:
        store.close()


def anything(world: World) -> st.SearchStrategy[str]:
    """An id a crafted file might use: another scope's record, one of its own, a new one."""
    own = [m["id"] for m in world.template["memories"]]
    fresh = st.text("0123456789abcdef", min_size=8, max_size=8)
    return st.one_of(st.sampled_from(world.ids + world.review_ids + own), fresh)


#: What a tampering can change in a review that the store itself would have written.
MUTATIONS = ("to_scope", "inward", "memory_id", "text", "status", "result_id", "decided", "id")


@st.composite
def review(draw: st.DrawFn, world: World, versions: list[dict[str, Any]]) -> dict[str, Any]:
    """A review as the store writes one (from the export's scope, of one of its
    versions, into a wider scope), then up to three things changed in it."""
    ids = anything(world)
    base = draw(st.sampled_from(versions))
    memory = {k: v for k, v in base.items() if k not in ("key", "key_created_at", "value_json")}
    status = draw(st.sampled_from(["pending", "approved", "rejected"]))
    record: dict[str, Any] = {
        "id": draw(st.text("0123456789abcdef", min_size=8, max_size=8)),
        "from_scope": MALLORY,
        "memory_id": base["id"],
        "to_scope": draw(st.sampled_from(["agent:support", "agent:new", "org:acme", "org:new"])),
        "memory": memory,
        "created_at": T0.isoformat(),
        "status": status,
        "decided_at": None if status == "pending" else (T0 + DAY).isoformat(),
        "result_id": draw(st.one_of(st.sampled_from(world.victims), ids))
        if status == "approved"
        else None,
    }
    changes = st.lists(st.sampled_from(MUTATIONS), max_size=2, unique=True)
    for change in draw(st.one_of(st.just([]), changes)):
        if change == "to_scope":
            record["to_scope"] = draw(st.sampled_from(SCOPES))
        elif change == "inward":
            record["from_scope"], record["to_scope"] = draw(st.sampled_from(SCOPES)), MALLORY
        elif change in ("memory_id", "result_id", "id"):
            record[change] = draw(ids)
        elif change == "text":
            memory["text"] = draw(st.sampled_from(world.texts))
        elif change == "status":
            record["status"] = draw(st.sampled_from(["pending", "approved", "rejected"]))
        else:
            record["decided_at"] = None if record["decided_at"] else (T0 + DAY).isoformat()
    memory["id"], memory["scope"] = record["memory_id"], record["from_scope"]
    return record


@st.composite
def crafted(draw: st.DrawFn, world: World) -> tuple[dict[str, Any], str | None, bool]:
    """An export of Mallory's, tampered with; the scope to import it into; admin or not."""
    data = json.loads(json.dumps(world.template))
    ids = anything(world)
    versions = data["memories"]
    for version in versions:
        change = draw(st.sampled_from(["none"] * 6 + ["replaces", "provenance", "scope"]))
        if change == "replaces":
            version["replaces"] = draw(st.one_of(st.none(), ids))
        elif change == "provenance":
            version["metadata"] = {
                "review_id": draw(st.one_of(st.sampled_from(world.review_ids), ids)),
                "reviewed_from": draw(st.sampled_from(SCOPES)),
                "reviewed_memory": draw(ids),
            }
        elif change == "scope":
            version["scope"] = draw(st.sampled_from(SCOPES))
    data["reviews"] = draw(st.lists(review(world, list(versions)), max_size=3))
    for proposed in data["reviews"]:
        if draw(st.booleans()):  # the decision `propose` logs, which approving looks for
            data["decisions"].append(
                {
                    "id": draw(st.text("0123456789abcdef", min_size=8, max_size=8)),
                    "op": "NOOP",
                    "fact": proposed["memory"]["text"],
                    "target_id": proposed["memory_id"],
                    "note": f"review {proposed['id']}: proposed for {proposed['to_scope']}",
                    "created_at": T0.isoformat(),
                }
            )
    if draw(st.booleans()):
        review_id = draw(st.sampled_from(world.review_ids))
        data["decisions"].append(
            {
                "id": draw(st.text("0123456789abcdef", min_size=8, max_size=8)),
                "op": "NOOP",
                "fact": draw(st.sampled_from(world.texts)),
                "target_id": draw(ids),
                "result_id": draw(ids),
                "note": f"review {review_id}: proposed for agent:support",
                "created_at": T0.isoformat(),
            }
        )
    if draw(st.integers(0, 3)) == 0:
        data["pending_turns"].append(
            {
                "t": "turn",
                "v": 1,
                "id": "t1",
                "scope": draw(st.sampled_from([MALLORY, *SCOPES])),
                "messages": [["user", "I moved to Porto."]],
                "when": T0.isoformat(),
            }
        )
    into = draw(st.sampled_from([None, None, "user:mallory2", "agent:mallory", "session:m2"]))
    return data, into, draw(st.booleans())


def everything_but(store: MemoryStore, mine: str) -> dict[str, dict[str, Any]]:
    return {s.key: store.export(s) for s in store.scopes() if s.key != mine}


@given(data=st.data())
@SETTINGS
def test_importing_and_purging_a_crafted_export_changes_no_other_scope(
    world: World, data: st.DataObject
) -> None:
    store = world.store
    payload, into, as_admin = data.draw(crafted(world))
    mine = into or MALLORY
    before = everything_but(store, mine)
    reviews_before = store.reviews(status=None)
    view = store.admin() if as_admin else store
    try:
        counts = view.import_scope(payload, scope=into, requeue=lambda turn: None)
        event(f"imported, {counts['reviews']} reviews")
    except MemoryKitError as exc:  # refused whole: the checks below say nothing leaked
        event(f"refused: {type(exc).__name__}")
    # Whatever came in: approve what it proposes, as an admin would.
    with store.admin() as admin:
        for review in admin.reviews(status="pending", from_scope=mine):
            try:
                admin.reviews.approve(review.id, now=T0 + 2 * DAY)
                event("approved a review it proposed")
            except MemoryKitError as exc:
                event(f"approval refused: {type(exc).__name__}")
        admin.purge(Scope.parse(mine))
    after = everything_but(store, mine)
    new_scopes = set(after) - set(before)
    assert {k: v for k, v in after.items() if k in before} == before
    for scope in new_scopes:  # an approval made a scope: only its (purged) copy was there
        assert after[scope]["memories"] == [] and after[scope]["decisions"] == []
    assert store.reviews(status=None) == reviews_before
