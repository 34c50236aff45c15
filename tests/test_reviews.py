"""Scopes don't leak upward: a memory moves into a wider scope only through a
review that someone approves, and an org scope is written only by an admin.

Every test that takes ``store`` runs on an embedded store and on a `chroma run`
server (see conftest).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from langgraph_memory import (
    AdminRequiredError,
    BackgroundWriter,
    Decision,
    DecisionOp,
    InvalidArgumentError,
    MemoryArchivedError,
    MemoryNotFoundError,
    MemoryStore,
    MemoryWriter,
    ReviewDecidedError,
    ReviewNotFoundError,
    Status,
    memory_read_node,
    memory_tools,
    retrieve,
)
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.records import EPISODE, ReviewStatus
from langgraph_memory.store import internals
from langgraph_memory.write import RulesModel

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)
LESSON = "User prefers email over phone calls."
QUESTION = "How should we contact customers, email or phone?"


def lesson_of_alice(store: MemoryStore) -> str:
    """Alice says it in a conversation; the write path stores it in her scope."""
    writer = MemoryWriter(store, model=RulesModel())
    [decision] = writer.write_turn(
        "user:alice", [("user", "I prefer email over phone calls.")], now=T0
    )
    assert decision.op is DecisionOp.ADD and decision.text == LESSON and decision.result_id
    return decision.result_id


def texts(found: list[object]) -> list[str]:
    return [r.memory.text for r in found]  # type: ignore[attr-defined]


def test_a_lesson_from_one_user_stays_invisible_to_another_until_approved(
    store: MemoryStore,
) -> None:
    memory_id = lesson_of_alice(store)
    bob = {"configurable": {"user_id": "bob", "agent_id": "support"}}
    read_agent = memory_read_node(store, scope=("agent", "{agent_id}"))
    state = {"messages": [HumanMessage(QUESTION)]}

    def bob_sees() -> bool:
        """Through what Bob's turn reads: the agent scope both users share, and his own."""
        in_agent = texts(retrieve(store, "agent:support", QUESTION, now=T0 + 9 * HOUR))
        in_prompt = read_agent(state, bob)["memories"]
        mine = texts(retrieve(store, "user:bob", QUESTION, now=T0 + 9 * HOUR))
        assert LESSON not in mine  # never: a user scope is its user's alone
        assert (LESSON in in_agent) == (LESSON in in_prompt)
        return LESSON in in_agent

    assert LESSON in texts(retrieve(store, "user:alice", QUESTION, now=T0 + HOUR))
    assert not bob_sees(), "nothing moves up by itself"
    review = store.reviews.propose("user:alice", memory_id, "agent:support", now=T0 + 2 * HOUR)
    assert not bob_sees(), "a proposal is not an approval"
    assert [r.id for r in store.reviews("agent:support")] == [review.id]
    store.reviews.approve(review.id, reason="true of most customers", now=T0 + 3 * HOUR)
    assert bob_sees()
    assert store.reviews("agent:support") == []  # nothing pending any more


def test_approve_copies_with_provenance_and_logs_in_both_scopes(store: MemoryStore) -> None:
    memory_id = lesson_of_alice(store)
    review = store.reviews.propose(
        "user:alice", memory_id, "agent:support", note="three users said so", now=T0 + HOUR
    )
    assert (review.status, review.text, review.note) == (
        ReviewStatus.PENDING,
        LESSON,
        "three users said so",
    )
    done = store.reviews.approve(review.id, reason="a general preference", now=T0 + 2 * HOUR)
    assert done.status is ReviewStatus.APPROVED and done.decided_at == T0 + 2 * HOUR
    assert done.reason == "a general preference" and done.result_id
    copy = store.get_memory("agent:support", done.result_id)
    original = store.get_memory("user:alice", memory_id)
    assert copy.id != memory_id and copy.text == original.text
    assert (copy.kind, copy.importance, copy.source, copy.trust) == (
        original.kind,
        original.importance,
        original.source,
        original.trust,
    )
    assert copy.created_at == T0 + 2 * HOUR and copy.sources == ()
    assert {k: copy.metadata[k] for k in ("review_id", "reviewed_from", "reviewed_memory")} == {
        "review_id": review.id,
        "reviewed_from": "user:alice",
        "reviewed_memory": memory_id,
    }
    # The decision, logged in both scopes; the source's log tells the whole story.
    [added] = store.decisions("agent:support", done.result_id)
    assert added.op is DecisionOp.ADD and added.result_id == done.result_id
    assert "user:alice" in (added.note or "") and "a general preference" in (added.note or "")
    told = [d.note or "" for d in store.decisions("user:alice", memory_id)]
    assert any(f"review {review.id}: proposed for agent:support" in n for n in told)
    assert any(f"approved: copied into agent:support as {done.result_id}" in n for n in told)
    # A review is decided once; the original is untouched.
    with pytest.raises(ReviewDecidedError, match="decided once"):
        store.reviews.reject(review.id)
    assert store.get_memory("user:alice", memory_id) == original
    assert [r.id for r in store.reviews(status="approved")] == [review.id]
    assert [r.id for r in store.reviews(status=None, from_scope="user:alice")] == [review.id]


def test_reject_copies_nothing_and_records_why(store: MemoryStore) -> None:
    memory_id = lesson_of_alice(store)
    review = store.reviews.propose("user:alice", memory_id, "agent:support", now=T0 + HOUR)
    done = store.reviews.reject(review.id, reason="only Alice", now=T0 + 2 * HOUR)
    assert done.status is ReviewStatus.REJECTED and done.result_id is None
    assert store.active("agent:support") == []
    for scope in ("agent:support", "user:alice"):
        [refused] = [d for d in store.decisions(scope) if d.status is Status.REJECTED]
        assert refused.target_id == memory_id and "only Alice" in (refused.note or "")
    with pytest.raises(ReviewDecidedError):
        store.reviews.approve(review.id)
    assert store.reviews() == [] and store.reviews(status="rejected") == [done]


def test_what_a_review_refuses(store: MemoryStore) -> None:
    memory_id = lesson_of_alice(store)
    with pytest.raises(InvalidArgumentError, match="wider scope"):
        store.reviews.propose("user:alice", memory_id, "user:bob")  # sideways: never
    with pytest.raises(InvalidArgumentError, match="wider scope"):
        store.reviews.propose("user:alice", memory_id, "session:t1")
    with pytest.raises(MemoryNotFoundError):
        store.reviews.propose("user:alice", "0badc0de", "agent:support")
    episode = next(m for m in store.active("user:alice") if m.metadata.get(EPISODE))
    with pytest.raises(InvalidArgumentError, match="episode"):
        store.reviews.propose("user:alice", episode.id, "agent:support")
    first = store.reviews.propose("user:alice", memory_id, "agent:support")
    assert store.reviews.propose("user:alice", memory_id, "agent:support") == first  # not twice
    with pytest.raises(ReviewNotFoundError, match=r"store\.reviews"):
        store.reviews.approve("0badc0de")
    with pytest.raises(InvalidArgumentError, match="status must be one of"):
        store.reviews(status="done")
    # A version archived after it was proposed is not copied: the error says what to do.
    store.update("user:alice", memory_id, "User prefers phone calls.", now=T0 + HOUR)
    with pytest.raises(MemoryArchivedError, match="reject this review"):
        store.reviews.approve(first.id)
    assert store.active("agent:support") == []


def test_an_approval_cut_short_is_finished_without_a_second_copy(store: MemoryStore) -> None:
    memory_id = lesson_of_alice(store)
    review = store.reviews.propose("user:alice", memory_id, "agent:support")
    # What a crash between the copy and the review's update leaves behind:
    written = store.add("agent:support", LESSON, metadata={"review_id": review.id})
    assert store.reviews.approve(review.id).result_id == written.id
    assert [m.id for m in store.active("agent:support")] == [written.id]


def test_reviews_are_kept_in_the_store(tmp_path: Path, embedder: LocalMiniLM) -> None:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        memory_id = lesson_of_alice(store)
        review = store.reviews.propose("user:alice", memory_id, "agent:support", now=T0)
    with MemoryStore(tmp_path / "m", embeddings=embedder) as store:
        assert store.reviews("agent:support") == [review]
        assert store.reviews.approve(review.id).status is ReviewStatus.APPROVED


# -- org scopes: written only by an admin -----------------------------------------------


def test_an_org_scope_is_written_only_through_an_admin_view(store: MemoryStore) -> None:
    with store.admin() as admin:
        fact = admin.add("org:acme", "Refunds take five working days.")
    writes = {
        "add": lambda: store.add("org:acme", "Refunds take a day."),
        "add_many": lambda: store.add_many("org:acme", ["Refunds take a day."]),
        "update": lambda: store.update("org:acme", fact.id, "Refunds take a day."),
        "archive": lambda: store.archive("org:acme", fact.id),
        "log": lambda: internals(store).log("org:acme", Decision(op=DecisionOp.NOOP, fact="x")),
        "put": lambda: store.put(("org", "acme"), "k", {"text": "Refunds take a day."}),
        "delete": lambda: store.delete(("org", "acme"), fact.id),
        "import": lambda: store.import_scope(store.export("org:acme"), scope="org:other"),
        "purge": lambda: store.purge("org:acme"),
    }
    for name, write in writes.items():
        with pytest.raises(AdminRequiredError, match=r"store\.admin\(\)"):
            write()
        assert [m.id for m in store.active("org:acme")] == [fact.id], name
    # Reads, and the bookkeeping a read does, need no admin.
    assert texts(retrieve(store, "org:acme", "How long do refunds take?")) == [fact.text]
    with store.admin() as admin:
        changed = admin.update("org:acme", fact.id, "Refunds take a day.")
    assert changed.text == "Refunds take a day."
    assert [m.text for m in store.active("org:acme")] == ["Refunds take a day."]


def test_approving_into_an_org_scope_takes_an_admin(store: MemoryStore) -> None:
    memory_id = lesson_of_alice(store)
    agent_review = store.reviews.propose("user:alice", memory_id, "agent:support")
    copied = store.reviews.approve(agent_review.id).result_id
    assert copied is not None
    review = store.reviews.propose("agent:support", copied, "org:acme")  # proposing needs no admin
    for decide in (store.reviews.approve, store.reviews.reject):
        with pytest.raises(AdminRequiredError, match=r"store\.admin\(\)\.reviews\.approve"):
            decide(review.id)
    assert store.active("org:acme") == [] and store.reviews("org:acme") == [review]
    with store.admin() as admin:
        done = admin.reviews.approve(review.id)
    assert [m.text for m in store.active("org:acme")] == [LESSON]
    assert store.get_memory("org:acme", done.result_id or "").metadata["reviewed_from"] == (
        "agent:support"
    )


def test_the_write_path_and_its_tools_never_write_an_org_scope(store: MemoryStore) -> None:
    with store.admin() as admin:
        fact = admin.add("org:acme", "Refunds take five working days.")
        writer = MemoryWriter(admin, model=RulesModel())  # even on an admin view
        with pytest.raises(AdminRequiredError, match="write path never writes"):
            writer.write_turn("org:acme", [("user", "I live in Pune.")])
        with pytest.raises(AdminRequiredError, match="write path never writes"):
            writer.remember("org:acme", "I live in Pune.")
        with pytest.raises(AdminRequiredError, match="write path never writes"):
            writer.forget("org:acme", fact.id)
        with (
            BackgroundWriter(writer, journal=None) as background,
            pytest.raises(AdminRequiredError, match="write path never writes"),
        ):
            background.submit("org:acme", [("user", "I live in Pune.")])
        remember, forget, _recall = memory_tools(writer, scope=("org", "{org_id}"))
        config = {"configurable": {"org_id": "acme"}}
        said = remember.invoke({"text": "I live in Pune."}, config)
        assert said.startswith("Could not remember that:") and "write path never" in said
        said = forget.invoke({"memory": fact.id}, config)
        assert said.startswith("Could not forget that:")
    assert [m.id for m in store.active("org:acme")] == [fact.id]
    assert store.decisions("org:acme") == []


# -- a purge takes the reviews and what they copied ---------------------------------------


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purging_a_memory_takes_its_reviews_and_the_copies_approved_from_it(
    store: MemoryStore,
) -> None:
    memory_id = lesson_of_alice(store)
    other = store.add("user:alice", "User's order 4471 arrived late.")
    approved = store.reviews.approve(
        store.reviews.propose("user:alice", memory_id, "agent:support").id
    )
    rejected = store.reviews.reject(
        store.reviews.propose("user:alice", other.id, "agent:support").id
    )
    kept = store.add("agent:support", "Agents sign with their first name.")
    counts = store.purge("user:alice", [memory_id])
    assert counts["reviews"] == 1
    assert store.reviews(status=None) == [rejected]
    assert [m.id for m in store.active("agent:support")] == [kept.id]
    with pytest.raises(MemoryNotFoundError):
        store.get_memory("agent:support", approved.result_id or "")
    held = [d.fact for d in store.decisions("agent:support")]
    assert LESSON not in held and other.text in held
    # The whole scope: every review from it, and the decisions about them elsewhere.
    store.purge("user:alice")
    assert store.reviews(status=None) == []
    assert [d.fact for d in store.decisions("agent:support")] == []
    assert [m.id for m in store.active("agent:support")] == [kept.id]


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purging_a_target_scope_takes_the_reviews_into_it(store: MemoryStore) -> None:
    memory_id = lesson_of_alice(store)
    review = store.reviews.propose("user:alice", memory_id, "agent:support")
    assert store.purge("agent:support")["reviews"] == 1
    assert store.reviews(status=None) == []
    with pytest.raises(ReviewNotFoundError):
        store.reviews.approve(review.id)
    assert store.get_memory("user:alice", memory_id).active  # the source stays
