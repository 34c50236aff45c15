"""The write path with scripted chat models: the patterns it must get right, and
what it does with bad model output (a safe result and a log entry, never a lost
memory)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import Embeddings

from langgraph_memory import (
    AmbiguousMemoryError,
    DecisionOp,
    InvalidArgumentError,
    MemoryStore,
    Status,
)
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import MemoryWriter
from langgraph_memory.write.reconcile import NOTHING_SIMILAR

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)  # a Monday
DAY = timedelta(days=1)
U = "user:alice"


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def facts(*texts: str, importance: int = 6) -> dict[str, Any]:
    return {"facts": [{"text": t, "importance": importance, "speaker": "user"} for t in texts]}


def writer(
    store: MemoryStore, *script: Any, reconcile: str = "per_fact"
) -> tuple[MemoryWriter, ScriptedChatModel]:
    model = ScriptedChatModel(script=list(script))
    w = MemoryWriter(store, model=model, reconcile=reconcile, gate=False)  # type: ignore[arg-type]
    return w, model


def texts(store: MemoryStore, scope: str = U) -> list[str]:
    return [m.text for m in store.active(scope, episodes=False)]


# -- the patterns --


def test_genuine_change_closes_the_old_version_and_history_answers_where_before(
    store: MemoryStore,
) -> None:
    w, _ = writer(
        store,
        facts("User lives in Delhi."),  # nothing to compare with: added without a call
        facts("User moved to Pune."),
        {"op": "UPDATE", "id": 0, "text": "User lives in Pune."},
    )
    [add] = w.write_turn(U, [("user", "I live in Delhi.")], now=T0)
    [upd] = w.write_turn(U, [("user", "I moved to Pune.")], now=T0 + 30 * DAY)
    assert (add.op, upd.op, upd.target_id) == (DecisionOp.ADD, DecisionOp.UPDATE, add.result_id)
    assert add.note == NOTHING_SIMILAR and upd.note is None
    assert texts(store) == ["User lives in Pune."]
    before = [m for m in store.history(U, upd.result_id) if not m.active]
    assert [(m.text, m.valid_until) for m in before] == [("User lives in Delhi.", T0 + 30 * DAY)]


def test_refinement_stores_the_merged_text(store: MemoryStore) -> None:
    w, _ = writer(
        store,
        facts("User has a dog."),
        facts("User's dog is a beagle named Rex."),
        {"op": "UPDATE", "id": 0, "text": "User has a beagle named Rex."},
    )
    w.write_turn(U, [("user", "I have a dog.")], now=T0)
    w.write_turn(U, [("user", "My dog Rex is a beagle.")], now=T0 + DAY)
    assert texts(store) == ["User has a beagle named Rex."]


def test_someone_elses_fact_leaves_the_users_untouched(store: MemoryStore) -> None:
    w, model = writer(
        store,
        facts("User lives in Pune."),
        facts("User's sister lives in Delhi."),
        {"op": "ADD", "text": "User's sister lives in Delhi."},
    )
    w.write_turn(U, [("user", "I live in Pune.")], now=T0)
    w.write_turn(U, [("user", "My sister lives in Delhi.")], now=T0 + DAY)
    assert sorted(texts(store)) == ["User lives in Pune.", "User's sister lives in Delhi."]
    assert all(m.active for m in store.history(U, store.active(U, episodes=False)[0].id))
    # the model was shown the user's location as a neighbour, as a small integer
    assert "[0] User lives in Pune." in str(model.prompts[-1][-1].content)


def test_a_plan_is_its_own_memory_and_the_current_state_stays(store: MemoryStore) -> None:
    w, _ = writer(
        store,
        facts("User lives in Delhi."),
        facts("User plans to move to Pune in 2027."),
        {"op": "ADD", "text": "User plans to move to Pune in 2027."},
    )
    w.write_turn(U, [("user", "I live in Delhi.")], now=T0)
    w.write_turn(U, [("user", "I may move to Pune next year.")], now=T0 + DAY)
    assert sorted(texts(store)) == ["User lives in Delhi.", "User plans to move to Pune in 2027."]


def test_restatement_is_a_noop_and_never_lowers_importance(store: MemoryStore) -> None:
    w, _ = writer(
        store,
        facts("User is allergic to peanuts.", importance=9),
        facts("User is allergic to peanuts.", importance=2),
        {"op": "NOOP", "id": 0},
    )
    [first] = w.write_turn(U, [("user", "I'm allergic to peanuts.")], now=T0)
    [again] = w.write_turn(U, [("user", "Peanuts, I'm allergic.")], now=T0 + DAY)
    assert again.op is DecisionOp.NOOP and again.target_id == first.result_id
    [m] = store.active(U, episodes=False)
    assert m.id == first.result_id and m.importance == 0.9


def test_the_same_fact_twice_in_one_turn_is_one_memory_and_one_call(store: MemoryStore) -> None:
    store.add(U, "User lives in Delhi.", now=T0)
    w, model = writer(
        store,
        facts("User is vegan.", "User is vegan.", "user is vegan"),
        {"op": "ADD"},
    )
    decisions = w.write_turn(U, [("user", "I'm vegan. Did I say I'm vegan?")], now=T0)
    assert [d.op for d in decisions] == [DecisionOp.ADD]
    assert sorted(texts(store)) == ["User is vegan.", "User lives in Delhi."]
    assert model.calls == 2


def test_a_later_fact_sees_what_an_earlier_one_wrote(store: MemoryStore) -> None:
    w, model = writer(
        store,
        facts("User is vegan.", "User eats no animal products."),
        {"op": "NOOP", "id": 0},
    )
    w.write_turn(U, [("user", "I'm vegan: no animal products.")], now=T0)
    assert texts(store) == ["User is vegan."]
    assert "[0] User is vegan." in str(model.prompts[-1][-1].content)


def test_a_fact_with_nothing_to_compare_is_added_without_a_model_call(store: MemoryStore) -> None:
    w, model = writer(store, facts("User is vegan."), facts("User likes jazz.", "User has a cat."))
    [d] = w.write_turn(U, [("user", "I'm vegan.")], now=T0)
    assert (d.op, d.status, d.shown_ids, d.note) == (
        DecisionOp.ADD,
        Status.APPLIED,
        (),
        NOTHING_SIMILAR,
    )
    assert model.calls == 1, "the extraction only"
    [logged] = store.decisions(U, d.result_id)
    assert logged.note == NOTHING_SIMILAR, "the log says why no model was asked"
    # Batched: two facts into an empty scope cost the extraction only.
    w, model = writer(store, facts("User likes jazz.", "User has a cat."), reconcile="batched")
    decisions = w.write_turn("user:bob", [("user", "I like jazz and have a cat.")], now=T0)
    assert [(d.op, d.note) for d in decisions] == [(DecisionOp.ADD, NOTHING_SIMILAR)] * 2
    assert model.calls == 1


def test_always_reconcile_shows_the_model_every_fact(store: MemoryStore) -> None:
    model = ScriptedChatModel(script=[facts("User is bored."), {"op": "NOOP"}])
    w = MemoryWriter(store, model=model, gate=False, always_reconcile=True)
    [d] = w.write_turn(U, [("user", "I'm bored.")], now=T0)
    assert (d.op, d.note, model.calls) == (DecisionOp.NOOP, None, 2), "the model may drop a fact"
    assert "(none)" in str(model.prompts[-1][-1].content) and texts(store) == []


def test_relative_dates_are_resolved_against_the_turn_date(store: MemoryStore) -> None:
    w, model = writer(store, facts("User has a dentist appointment on 2026-03-06."), {"op": "ADD"})
    w.write_turn(U, [("user", "I have the dentist next Friday.")], now=T0)
    system = str(model.prompts[0][0].content)
    assert "2026-03-02 (Monday)" in system and "next Friday" in system
    assert texts(store) == ["User has a dentist appointment on 2026-03-06."]


def test_every_decision_is_logged_with_what_the_model_saw(store: MemoryStore) -> None:
    w, _ = writer(
        store,
        facts("User lives in Delhi."),
        facts("User moved to Pune."),
        {"op": "UPDATE", "id": 0, "text": "User lives in Pune."},
    )
    w.write_turn(U, [("user", "I live in Delhi.")], now=T0, turn_id="turn-1")
    [upd] = w.write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY, turn_id="turn-2")
    why = store.decisions(U, upd.result_id)
    assert [(d.op, d.turn_id, d.created_at) for d in why] == [
        (DecisionOp.ADD, "turn-1", T0),
        (DecisionOp.UPDATE, "turn-2", T0 + DAY),
    ]
    assert why[1].fact == "User moved to Pune." and why[1].shown_texts == ("User lives in Delhi.",)
    assert json.loads(why[1].raw or "")[0]["op"] == "UPDATE"


def test_structured_output_falls_back_to_json_in_plain_text(store: MemoryStore) -> None:
    # plain text answers (a model without tool calling), fenced and chatty
    w, _ = writer(
        store,
        'Here you go:\n```json\n{"facts": [{"text": "User is vegan.", "importance": 7}]}\n```',
        'I think {"op": "ADD", "id": null, "text": "User is vegan."} is right.',
    )
    [d] = w.write_turn(U, [("user", "I'm vegan.")], now=T0)
    assert d.op is DecisionOp.ADD and texts(store) == ["User is vegan."]


# -- bad model output --


@pytest.fixture
def seeded(store: MemoryStore) -> MemoryStore:
    store.add(U, "User lives in Delhi.", importance=0.7, now=T0)
    store.add("user:bob", "User lives in Oslo.", now=T0)
    return store


def run_bad(store: MemoryStore, *script: Any) -> list[Any]:
    w, _ = writer(store, *script)
    before = {m.id for m in store.active(U, episodes=False)}
    decisions = w.write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY)
    after = {m.id for m in store.active(U, episodes=False)}
    deleted = [
        d.target_id for d in decisions if d.op is DecisionOp.DELETE and d.status is Status.APPLIED
    ]
    updated = [
        d.target_id
        for d in decisions
        if d.op is DecisionOp.UPDATE and d.status is not Status.FAILED
    ]
    assert before - after <= set(deleted) | set(updated), "a memory was lost"
    assert [m.text for m in store.active("user:bob", episodes=False)] == ["User lives in Oslo."]
    logged = store.decisions(U)
    assert len(logged) == len(decisions) and decisions, "each outcome is in the log"
    return decisions


def test_malformed_extraction_json(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, '{"facts": [{"text": "User lives in Pu')
    assert d.status is Status.FAILED and "JSON" in (d.error or "")
    assert texts(seeded) == ["User lives in Delhi."]


def test_missing_keys(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, facts("User lives in Pune."), {"id": 0, "text": "User lives in Pune."})
    assert (d.op, d.status) == (DecisionOp.NOOP, Status.FAILED)
    assert texts(seeded) == ["User lives in Delhi."]


def test_a_bad_reconcile_value_is_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidArgumentError, match="reconcile must be 'per_fact' or 'batched'"):
        MemoryWriter(store, model=ScriptedChatModel(script=[]), reconcile="per_turn")  # type: ignore[arg-type]


def test_unknown_op(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, facts("User lives in Pune."), {"op": "MERGE", "id": 0})
    assert (d.op, d.status, d.error) == (DecisionOp.NOOP, Status.APPLIED, None) and "MERGE" in (
        d.note or ""
    )


@pytest.mark.parametrize("bad_id", [42, -1, "7", "[9]", "abc", 1.5, True])
def test_hallucinated_id_on_update_becomes_add(seeded: MemoryStore, bad_id: Any) -> None:
    [d] = run_bad(
        seeded,
        facts("User lives in Pune."),
        {"op": "UPDATE", "id": bad_id, "text": "User lives in Pune."},
    )
    assert d.op is DecisionOp.ADD and d.target_id is None
    assert sorted(texts(seeded)) == ["User lives in Delhi.", "User lives in Pune."]


def test_hallucinated_id_on_delete_becomes_noop(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, facts("User no longer lives in Delhi."), {"op": "DELETE", "id": 5})
    assert d.op is DecisionOp.NOOP and texts(seeded) == ["User lives in Delhi."]


def test_an_id_from_another_scope_never_touches_it(seeded: MemoryStore) -> None:
    oslo = seeded.active("user:bob", episodes=False)[0].id
    decisions = run_bad(
        seeded,
        facts("User lives in Pune.", "User moved to Pune."),
        {"op": "UPDATE", "id": oslo, "text": "User lives in Pune."},
        {"op": "DELETE", "id": oslo},
    )
    assert [d.op for d in decisions] == [DecisionOp.ADD, DecisionOp.NOOP]
    assert all(oslo not in (d.target_id, d.result_id) for d in decisions)


def test_importance_out_of_range_is_clamped(seeded: MemoryStore) -> None:
    w, _ = writer(
        seeded,
        {
            "facts": [
                {"text": "User is vegan.", "importance": 42},
                {"text": "User likes jazz.", "importance": -3},
            ]
        },
        {"op": "ADD"},
        {"op": "ADD"},
    )
    w.write_turn(U, [("user", "I'm vegan and like jazz.")], now=T0)
    importance = {m.text: m.importance for m in seeded.active(U, episodes=False)}
    assert importance["User is vegan."] == 1.0 and importance["User likes jazz."] == 0.1


def test_a_ten_thousand_character_fact_is_rejected_and_logged(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, facts("x" * 10_000))
    assert d.status is Status.REJECTED and "10,000 characters" in (d.note or "")
    assert texts(seeded) == ["User lives in Delhi."]


def test_a_ten_thousand_character_update_text_falls_back_to_the_fact(seeded: MemoryStore) -> None:
    [d] = run_bad(
        seeded, facts("User lives in Pune."), {"op": "UPDATE", "id": 0, "text": "y" * 10_000}
    )
    assert d.op is DecisionOp.UPDATE and texts(seeded) == ["User lives in Pune."]


def test_an_empty_list_costs_no_reconcile_call(seeded: MemoryStore) -> None:
    w, model = writer(seeded, {"facts": []})
    assert w.write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY) == []
    assert model.calls == 1 and texts(seeded) == ["User lives in Delhi."]


def test_an_exception_in_extraction_is_logged(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, TimeoutError("model timed out"))
    assert d.status is Status.FAILED and "TimeoutError" in (d.error or "")


def test_an_exception_in_reconcile_is_logged_with_the_fact(seeded: MemoryStore) -> None:
    [d] = run_bad(seeded, facts("User lives in Pune."), ConnectionError("boom"))
    assert (d.op, d.status, d.fact) == (DecisionOp.NOOP, Status.FAILED, "User lives in Pune.")
    assert "ConnectionError" in (d.raw or "")
    assert texts(seeded) == ["User lives in Delhi."]


def test_facts_from_the_assistant_are_dropped_unless_asked_for(store: MemoryStore) -> None:
    said = {"facts": [{"text": "User lives in Pune.", "speaker": "assistant", "importance": 5}]}
    w, _ = writer(store, said)
    [d] = w.write_turn(U, [("user", "hi"), ("assistant", "You live in Pune.")], now=T0)
    assert d.status is Status.REJECTED and store.active(U, episodes=False) == []
    model = ScriptedChatModel(script=[said, {"op": "ADD"}])
    opted = MemoryWriter(store, model=model, roles=("user", "assistant"), gate=False)
    opted.write_turn(U, [("user", "hi"), ("assistant", "You live in Pune.")], now=T0)
    [m] = store.active(U, episodes=False)
    assert (m.source.value, m.trust.value) == ("assistant", "medium")


# -- cost mode --


def test_batched_mode_is_one_reconcile_call_with_in_order_semantics(store: MemoryStore) -> None:
    store.add(U, "User lives in Delhi.", now=T0)
    w, model = writer(
        store,
        facts("User lives in Pune.", "User lives in Pune since March.", "User is vegan."),
        {
            "decisions": [
                {"fact": 1, "op": "UPDATE", "id": 0, "text": "User lives in Pune."},
                {"fact": 2, "op": "UPDATE", "id": 0, "text": "User lives in Pune (since March)."},
                {"fact": 3, "op": "ADD", "id": None, "text": "User is vegan."},
            ]
        },
        reconcile="batched",
    )
    said = "I moved to Pune in March. And I'm vegan."
    decisions = w.write_turn(U, [("user", said)], now=T0 + DAY)
    assert model.calls == 2, "one extraction call, one reconcile call"
    assert [d.op for d in decisions] == [DecisionOp.UPDATE, DecisionOp.UPDATE, DecisionOp.ADD]
    assert decisions[1].target_id == decisions[0].result_id, "the second follows the first's result"
    assert sorted(texts(store)) == ["User is vegan.", "User lives in Pune (since March)."]


def test_batched_mode_with_a_short_answer_fails_the_missing_facts_only(store: MemoryStore) -> None:
    store.add(U, "User lives in Delhi.", now=T0)  # something to compare with: the model is asked
    w, _ = writer(
        store,
        facts("User is vegan.", "User likes jazz."),
        {"decisions": [{"fact": 1, "op": "ADD"}]},
        reconcile="batched",
    )
    decisions = w.write_turn(U, [("user", "I'm vegan and like jazz.")], now=T0)
    assert [(d.op, d.status) for d in decisions] == [
        (DecisionOp.ADD, Status.APPLIED),
        (DecisionOp.NOOP, Status.FAILED),
    ]


def test_the_gate_skips_turns_without_a_model_call(store: MemoryStore) -> None:
    model = ScriptedChatModel(script=[])
    w = MemoryWriter(store, model=model)
    for said in ["thanks!", "ok", "Hi there", "What's the capital of France?"]:
        assert w.write_turn(U, [("user", said)], now=T0) == []
    assert model.calls == 0


# -- explicit paths --


def test_remember_goes_through_reconciliation(store: MemoryStore) -> None:
    store.add(U, "User prefers imperial units.", now=T0)
    w, _ = writer(
        store,
        facts("User prefers metric units."),
        {"op": "UPDATE", "id": 0, "text": "User prefers metric units."},
    )
    [d] = w.remember(U, "I prefer metric units", pinned=True, now=T0 + DAY)
    assert d.op is DecisionOp.UPDATE
    [m] = store.active(U, episodes=False)
    assert (m.text, m.pinned, m.source.value) == ("User prefers metric units.", True, "explicit")


def test_forget_by_id_and_by_clear_description(store: MemoryStore) -> None:
    a = store.add(U, "User's locker code is 4711.", now=T0)
    b = store.add(U, "User likes jazz.", now=T0)
    w, _ = writer(store)
    d = w.forget(U, a.id, now=T0 + DAY)
    assert d.op is DecisionOp.DELETE and d.target_id == a.id and store.decisions(U, a.id)
    d = w.forget(U, query="jazz music", now=T0 + DAY)
    assert d.target_id == b.id and store.active(U, episodes=False) == []


def test_forget_with_an_ambiguous_description_lists_the_candidates(store: MemoryStore) -> None:
    store.add_many(U, ["User's sister lives in Delhi.", "User's brother lives in Delhi."], now=T0)
    w, _ = writer(store)
    with pytest.raises(AmbiguousMemoryError, match="forget one by id") as info:
        w.forget(U, query="sibling who lives in Delhi")
    assert len(info.value.matches) == 2 and len(store.active(U, episodes=False)) == 2


# -- a property over arbitrary model output --

model_output = st.one_of(
    st.fixed_dictionaries(
        {
            "op": st.one_of(
                st.sampled_from(["ADD", "UPDATE", "DELETE", "NOOP", "add", "merge", ""]),
                st.none(),
                st.integers(),
            ),
            "id": st.one_of(
                st.none(),
                st.integers(-3, 12),
                st.text(max_size=10),
                st.sampled_from(["0", "[1]", "bob-id"]),
            ),
            "text": st.one_of(st.none(), st.text(max_size=40), st.just("z" * 5000)),
        }
    ),
    st.text(max_size=60),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(output=model_output)
def test_no_model_output_closes_a_memory_it_was_not_shown(store: MemoryStore, output: Any) -> None:
    if not store.active(U, episodes=False):
        store.add_many(U, [f"User fact number {i} about topic {i}." for i in range(12)], now=T0)
        store.add("user:bob", "User lives in Oslo.", now=T0)
    if isinstance(output, dict) and output["id"] == "bob-id":
        output = {**output, "id": store.active("user:bob", episodes=False)[0].id}
    w, _ = writer(store, facts("User fact number 3 about topic 3, revised."), output)
    before = {m.id for m in store.active(U, episodes=False)}
    [d] = w.write_turn(U, [("user", "anything")], now=T0 + DAY)
    after = {m.id for m in store.active(U, episodes=False)}
    shown = set(d.shown_ids)
    assert before - after <= shown, "only shown memories may close"
    if len(after) < len(before):
        assert d.op is DecisionOp.DELETE and d.target_id in shown
    assert [m.text for m in store.active("user:bob", episodes=False)] == ["User lives in Oslo."]


# -- model resolution and the async face --------------------------------------------------------


def test_no_model_configured_means_the_rules_model_and_a_warning(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with caplog.at_level("WARNING", logger="langgraph_memory"):
        w = MemoryWriter(store)
    assert w.model.name == "rules"
    assert "offline rules model" in caplog.text
    # and the rules model really writes: the Delhi -> Pune change, offline
    w.write_turn(U, [("user", "I live in Delhi.")], now=T0)
    [d] = w.write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY)
    assert d.op is DecisionOp.UPDATE and texts(store) == ["User lives in Pune."]


def test_remember_with_the_rules_model_updates_an_older_preference(store: MemoryStore) -> None:
    from langgraph_memory.write import RulesModel

    w = MemoryWriter(store, model=RulesModel())
    w.write_turn(U, [("user", "I prefer imperial units.")], now=T0)
    [d] = w.remember(U, "I prefer metric units", now=T0 + DAY)
    assert d.op is DecisionOp.UPDATE and texts(store) == ["User prefers metric units."]


def test_async_write_turn_is_the_same_path(store: MemoryStore) -> None:
    import asyncio

    w, model = writer(store, facts("User is vegan."))
    [d] = asyncio.run(w.awrite_turn(U, [("user", "I'm vegan.")], now=T0))
    assert d.op is DecisionOp.ADD and model.calls == 1 and texts(store) == ["User is vegan."]


def test_eight_threads_stating_one_new_fact_make_one_memory(store: MemoryStore) -> None:
    import threading

    from langgraph_memory.write import RulesModel

    w = MemoryWriter(store, model=RulesModel())
    threads = [
        threading.Thread(target=w.write_turn, args=(U, [("user", "I'm allergic to peanuts.")]))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert texts(store) == ["User is allergic to peanuts."]
    assert sorted(d.op.value for d in store.decisions(U)) == ["ADD"] + ["NOOP"] * 7


def test_a_replayed_turn_applies_only_what_a_crash_cut_off(store: MemoryStore) -> None:
    """A turn with three facts crashed after the first: the replay (same turn id)
    decides the other two and leaves the first alone."""
    store.add(U, "User lives in Delhi.", now=T0)  # each fact has something to compare with
    three = facts("User is vegan.", "User likes jazz.", "User has a cat.")
    w, _ = writer(store, three, {"op": "ADD"}, ConnectionError("crash"))
    first = w.write_turn(U, [("user", "I'm vegan, like jazz, have a cat.")], now=T0, turn_id="t9")
    assert [(d.op, d.status) for d in first[:2]] == [
        (DecisionOp.ADD, Status.APPLIED),
        (DecisionOp.NOOP, Status.FAILED),
    ]
    w, model = writer(store, three, {"op": "ADD"}, {"op": "ADD"})
    again = w.write_turn(U, [("user", "I'm vegan, like jazz, have a cat.")], now=T0, turn_id="t9")
    assert [d.fact for d in again] == ["User likes jazz.", "User has a cat."]
    assert model.calls == 3, "one extraction, two reconciles: the decided fact costs nothing"
    assert sorted(texts(store)) == [
        "User has a cat.",
        "User is vegan.",
        "User likes jazz.",
        "User lives in Delhi.",
    ]
    assert [d.fact for d in store.decisions(U, turn_id="t9") if d.status is Status.APPLIED] == [
        "User is vegan.",
        "User likes jazz.",
        "User has a cat.",
    ]
