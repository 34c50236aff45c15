"""The lifecycle jobs as a user relies on them: decay archives what nobody uses (never
what is pinned or safety-relevant, never deleting, always saying why), consolidation
merges near-duplicates into one memory that lists its originals (and a second run
changes nothing), and ``maintain`` runs them over every scope, from Python, from the
``langgraph-memory maintain`` command, from a ``BackgroundWriter`` when idle and from
the Platform's maintenance graph.

Models are scripted (``ScriptedChatModel``) or the offline rules; the unit tests embed
with a bag of words, so that two texts are as similar as the words they share.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage

from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.lifecycle import (
    Maintenance,
    consolidate,
    forget_stale,
    maintain,
    protection,
    strength,
)
from langgraph_memory.lifecycle.consolidate import CONSOLIDATION
from langgraph_memory.lifecycle.decay import DECAY, SAFETY
from langgraph_memory.lifecycle.mergers import MergePlan
from langgraph_memory.records import EPISODE, DecisionOp, Kind, Memory, Status
from langgraph_memory.store import internals
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import BackgroundWriter, MemoryWriter, Retention, RulesModel

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
DAY = timedelta(days=1)


class WordsEmbeddings(Embeddings):
    """Unit vectors of the words a text holds (case, punctuation and articles
    ignored): texts with the same words have a cosine of 1, "lives in Pune" and
    "lives in Delhi" share three words of four."""

    name = "test-words-256"
    dim = 256

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        words = [w for w in re.findall(r"\w+", text.casefold()) if w not in ("a", "an", "the")]
        for w in words or ["<empty>"]:
            vector[zlib.crc32(w.encode()) % self.dim] += 1.0
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=WordsEmbeddings()) as s:
        yield s


def memory(importance: float = 0.5, **fields: Any) -> Memory:
    return Memory(
        id="0a1b2c3d", text="User likes jazz.", scope="user:a", created_at=T0,
        importance=importance, **fields,
    )  # fmt: skip


def merges(*groups: tuple[list[int], str]) -> dict[str, Any]:
    return {"merges": [{"members": m, "text": t} for m, t in groups]}


# -- decay ----------------------------------------------------------------------------


def test_strength_halves_every_half_life_scaled_by_importance() -> None:
    m = memory(0.5)
    assert strength(m, T0) == pytest.approx(0.5)
    assert strength(m, T0 + 30 * DAY) == pytest.approx(0.25)
    assert strength(m, T0 + 90 * DAY) == pytest.approx(0.0625)
    strong = memory(0.8)  # half-life 30 x 1.3 = 39 days
    assert strength(strong, T0 + 39 * DAY) == pytest.approx(0.4)
    assert strength(strong, T0 + 10 * DAY) > strength(memory(0.5), T0 + 10 * DAY)
    assert strength(m, T0 + 30 * DAY, half_life=timedelta(days=60)) == pytest.approx(0.5 * 2**-0.5)


def test_strength_counts_idle_time_from_the_last_read() -> None:
    read_lately = memory(0.5, last_accessed=T0 + 60 * DAY)
    assert strength(read_lately, T0 + 90 * DAY) == pytest.approx(0.25)
    assert strength(read_lately, T0 + 30 * DAY) == pytest.approx(0.5), "never above importance"
    with pytest.raises(InvalidArgumentError, match="half_life"):
        strength(read_lately, T0, half_life=timedelta(0))


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"pinned": True, "importance": 0.1}, "pinned"),
        ({"importance": 0.9}, "safety (importance >= 0.9)"),
        ({"importance": 0.2, "metadata": {SAFETY: True}}, "safety (metadata safety=True)"),
        ({"kind": Kind.EPISODIC, "metadata": {EPISODE: True}}, "episode"),
    ],
)
def test_pinned_safety_and_episodes_never_decay(fields: dict[str, Any], why: str) -> None:
    fields = {"importance": 0.5, **fields}
    m = memory(**fields, last_accessed=T0 - 3650 * DAY)  # unread for ten years
    assert protection(m) is not None and protection(m).startswith(why)  # type: ignore[union-attr]
    assert strength(m, T0 + 3650 * DAY) == m.importance


def test_forget_stale_archives_only_the_weak_unprotected_and_logs_why(store: MemoryStore) -> None:
    kept = store.add_many(
        "user:a",
        [
            {"text": "User is allergic to peanuts.", "importance": 0.9},
            {"text": "User takes insulin.", "importance": 0.3, "metadata": {SAFETY: True}},
            {"text": "User must not fly.", "importance": 0.1, "pinned": True},
            {"text": "I saw a film.", "kind": "episodic", "metadata": {EPISODE: True}},
        ],
        now=T0,
    )
    stale, fresh = store.add_many("user:a", ["User saw a jazz gig.", "User likes tea."], now=T0)
    now = T0 + 400 * DAY
    internals(store).touch("user:a", [fresh.id], now=now - DAY)  # read yesterday
    versions = store.count("user:a", archived=True)

    done = forget_stale(store, "user:a", now=now)

    assert [d.target_id for d in done] == [stale.id]
    [d] = done
    assert (d.op, d.status, d.turn_id) == (DecisionOp.DELETE, Status.APPLIED, DECAY)
    assert d.id is not None, "logged"
    assert d.note == "decay: strength 4.84e-05 < 0.02 (importance 0.5, unused for 400 days)"
    assert store.decisions("user:a", stale.id) == [d]
    assert {m.id for m in store.active("user:a")} == {m.id for m in [*kept, fresh]}
    archived = store.get_memory("user:a", stale.id)
    assert archived.valid_until == now and archived.text == "User saw a jazz gig."
    assert store.count("user:a", archived=True) == versions, "nothing deleted"
    assert forget_stale(store, "user:a", now=now) == []


def test_forget_stale_dry_run_changes_nothing(store: MemoryStore) -> None:
    m = store.add("user:a", "User saw a jazz gig.", now=T0)
    [d] = forget_stale(store, "user:a", now=T0 + 400 * DAY, dry_run=True)
    assert (d.op, d.target_id, d.id) == (DecisionOp.DELETE, m.id, None)
    assert store.active("user:a") == [m] and store.decisions("user:a") == []
    with pytest.raises(InvalidArgumentError, match="threshold"):
        forget_stale(store, "user:a", threshold=2)


# -- consolidation ----------------------------------------------------------------------


def vegan_cluster(store: MemoryStore) -> list[Memory]:
    """Two statements of one fact (each citing its episode) and a fact about another."""
    e1, e2 = store.add_many(
        "user:a",
        [
            {"text": "I'm vegan.", "kind": "episodic", "metadata": {EPISODE: True}},
            {"text": "I eat vegan food.", "kind": "episodic", "metadata": {EPISODE: True}},
        ],
        now=T0,
    )
    return store.add_many(
        "user:a",
        [
            {"text": "User is vegan.", "importance": 0.6, "sources": [e1.id], "now": T0},
            {"text": "User eats vegan.", "importance": 0.8, "sources": [e2.id], "now": T0 + DAY},
            {"text": "User is not vegan now.", "now": T0 + 2 * DAY},
        ],
    )


def test_consolidation_merges_a_cluster_into_one_memory_that_lists_its_originals(
    store: MemoryStore,
) -> None:
    a, b, c = vegan_cluster(store)
    episodes = [*a.sources, *b.sources]
    chat = ScriptedChatModel(script=[merges(([0, 1], "User is vegan and eats vegan food."))])

    done = consolidate(store, "user:a", chat, now=T0 + 10 * DAY, threshold=0.5)

    assert chat.calls == 1
    shown = chat.prompts[0][-1].content
    assert "[0] User is vegan." in shown and "[2] User is not vegan now." in shown
    assert a.id not in shown, "the model sees numbers, never ids"
    update, delete, kept = done
    assert (update.op, update.target_id, update.turn_id) == (DecisionOp.UPDATE, a.id, CONSOLIDATION)
    merged = store.get_memory("user:a", update.result_id)  # type: ignore[arg-type]
    assert merged.text == "User is vegan and eats vegan food."
    assert merged.replaces == a.id, "an UPDATE of the oldest member: never an overwrite"
    assert set(merged.sources) == {a.id, b.id, *episodes}
    assert merged.importance == 0.8
    assert merged.last_accessed == b.created_at, "merging is not a use"
    assert set(update.shown_ids) == {a.id, b.id, c.id} and update.raw
    assert (delete.op, delete.target_id) == (DecisionOp.DELETE, b.id)
    assert delete.note == f"consolidation: merged into {merged.id}"
    assert (
        not store.get_memory("user:a", a.id).active and not store.get_memory("user:a", b.id).active
    )
    assert (kept.op, set(kept.shown_ids)) == (DecisionOp.NOOP, {merged.id, c.id})
    facts = {m.text for m in store.active("user:a", episodes=False)}
    assert facts == {"User is vegan and eats vegan food.", "User is not vegan now."}
    assert all(d.id is not None for d in done), "every decision logged"


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purging_a_merged_memory_purges_the_originals_it_was_merged_from(
    store: MemoryStore,
) -> None:
    a, b, c = vegan_cluster(store)
    chat = ScriptedChatModel(script=[merges(([0, 1], "User is vegan and eats vegan food."))])
    update, _, _ = consolidate(store, "user:a", chat, now=T0 + 10 * DAY, threshold=0.5)
    merged = update.result_id
    assert merged is not None

    store.purge("user:a", [merged])

    # The archived originals said what the merged memory said: a hard delete takes them too,
    # and leaves the memory that was never merged.
    texts = json.dumps(store.export("user:a"))
    assert "User is vegan" not in texts and "User eats vegan" not in texts
    assert [m.id for m in store.active("user:a", episodes=False)] == [c.id]
    for gone in (a.id, b.id, merged):
        assert gone not in texts


def test_a_second_run_right_after_changes_nothing_and_asks_no_model(store: MemoryStore) -> None:
    vegan_cluster(store)
    chat = ScriptedChatModel(script=[merges(([0, 1], "User is vegan."))])
    consolidate(store, "user:a", chat, now=T0 + 10 * DAY, threshold=0.5)
    before = (store.active("user:a"), store.decisions("user:a"))

    assert consolidate(store, "user:a", chat, now=T0 + 10 * DAY, threshold=0.5) == []

    assert chat.calls == 1
    assert (store.active("user:a"), store.decisions("user:a")) == before


def test_a_cluster_kept_apart_is_not_asked_again_until_it_grows(store: MemoryStore) -> None:
    store.add_many("user:a", ["User lives in Pune.", "User lives in Delhi."], now=T0)
    chat = ScriptedChatModel(script=[merges(), merges()])
    [kept] = consolidate(store, "user:a", chat, threshold=0.5)
    assert (kept.op, kept.note) == (
        DecisionOp.NOOP,
        "consolidation by chat:ScriptedChatModel: kept apart",
    )
    assert consolidate(store, "user:a", chat, threshold=0.5) == [] and chat.calls == 1
    store.add("user:a", "User lives in Mumbai.")
    consolidate(store, "user:a", chat, threshold=0.5)
    assert chat.calls == 2, "a new member: the cluster is shown again"


def test_merges_the_model_may_not_make_are_dropped_and_noted(store: MemoryStore) -> None:
    a, b, c = vegan_cluster(store)
    answer = {
        "merges": [
            {"members": [0, 7], "text": "User is vegan."},  # 7 was never shown
            {"members": [1], "text": "User eats vegan."},  # one member: nothing to merge
            {"members": [0, 1], "text": "   "},  # no text
        ]
    }
    [kept] = consolidate(store, "user:a", ScriptedChatModel(script=[answer]), threshold=0.5)
    assert kept.op is DecisionOp.NOOP
    assert "fewer than two memories shown ([0, 7])" in (kept.note or "")
    assert "unusable text" in (kept.note or "")
    assert {m.id for m in store.active("user:a", episodes=False)} == {a.id, b.id, c.id}


def test_an_unreadable_answer_is_a_failed_decision_and_is_asked_again(store: MemoryStore) -> None:
    vegan_cluster(store)
    chat = ScriptedChatModel(script=["no idea", "still no idea"])
    [failed] = consolidate(store, "user:a", chat, threshold=0.5)
    assert (failed.op, failed.status, failed.raw) == (DecisionOp.NOOP, Status.FAILED, "no idea")
    consolidate(store, "user:a", chat, threshold=0.5)
    assert chat.calls == 2


def test_a_member_changed_while_the_model_thought_is_not_merged(store: MemoryStore) -> None:
    a, b, _ = vegan_cluster(store)

    def answer(_: list[BaseMessage]) -> dict[str, Any]:
        store.archive("user:a", b.id)  # a forget() lands meanwhile
        return merges(([0, 1], "User is vegan."))

    chat = ScriptedChatModel(script=[answer, merges()])
    [kept] = consolidate(store, "user:a", chat, threshold=0.5)
    assert "a member changed meanwhile" in (kept.note or "")
    assert kept.status is Status.FAILED, "not a judgement: asked again"
    assert store.get_memory("user:a", a.id).active
    consolidate(store, "user:a", chat, threshold=0.5)
    assert chat.calls == 2


def test_only_facts_of_one_kind_and_trust_are_merged_never_reflections(store: MemoryStore) -> None:
    store.add_many(
        "user:a",
        [
            {"text": "User is vegan.", "kind": "episodic", "metadata": {EPISODE: True}},
            "User is vegan.",
            {"text": "User is vegan.", "trust": "low"},
            {"text": "User is vegan.", "kind": "reflection", "source": "reflection"},
            {"text": "User is vegan.", "kind": "reflection", "source": "reflection"},
        ],
    )

    class Refuse:
        name = "refuse"

        def merge(self, cluster: Sequence[Memory], *, today: datetime) -> MergePlan:
            raise AssertionError(f"nothing to merge, but shown {[m.text for m in cluster]}")

    assert consolidate(store, "user:a", Refuse()) == []


def test_the_offline_rules_merge_same_texts_and_keep_values_apart(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    short, long, pune, delhi = store.add_many(
        "user:a",
        [
            {"text": "user is vegan", "now": T0},
            {"text": "The user is vegan.", "now": T0 + DAY, "pinned": True},
            "User lives in Pune.",
            "User lives in Delhi.",
        ],
        now=T0,
    )
    done = consolidate(store, "user:a", None, threshold=0.5)  # nothing configured: the rules
    update = next(d for d in done if d.op is DecisionOp.UPDATE)
    merged = store.get_memory("user:a", update.result_id)  # type: ignore[arg-type]
    assert merged.text == "The user is vegan.", "the longer text"
    assert merged.replaces == short.id and set(merged.sources) == {short.id, long.id}
    assert merged.pinned, "pinned if any member was"
    assert {m.text for m in store.active("user:a")} == {"The user is vegan.", pune.text, delhi.text}
    assert consolidate(store, "user:a", RulesModel(), threshold=0.5) == []


def test_consolidation_dry_run_asks_but_changes_nothing(store: MemoryStore) -> None:
    store.add_many("user:a", ["User is vegan.", "user is vegan"])
    before = store.active("user:a")
    update, delete = consolidate(store, "user:a", RulesModel(), dry_run=True)
    assert (update.op, update.result_id, delete.op) == (DecisionOp.UPDATE, None, DecisionOp.DELETE)
    assert store.active("user:a") == before and store.decisions("user:a") == []


# -- maintain -----------------------------------------------------------------------------


def test_maintain_runs_over_every_scope(store: MemoryStore) -> None:
    for scope in ("user:a", "user:b", "session:s1"):
        later = {"text": "User is vegan!", "now": T0 + 81 * DAY}  # as long, and newer
        store.add_many(scope, ["User is vegan.", later], now=T0 + 80 * DAY)
        store.add(scope, "User saw a film.", importance=0.2, now=T0)
    seen: list[str] = []

    report = maintain(
        store, model=RulesModel(), now=T0 + 90 * DAY, on_scope=lambda r: seen.append(r.scope)
    )

    assert seen == [r.scope for r in report.scopes] == ["session:s1", "user:a", "user:b"]
    assert report.totals() == {
        "decayed": 3, "merged": 3, "duplicates_archived": 3, "episodes_archived": 0,
        "reflections": 0,
    }  # fmt: skip
    for scope in seen:
        assert [m.text for m in store.active(scope)] == ["User is vegan!"]
    again = maintain(store, model=RulesModel(), now=T0 + 90 * DAY)
    assert again.totals() == dict.fromkeys(again.totals(), 0)
    only = maintain(store, "user:a", model=RulesModel(), steps=("decay",))
    assert [r.scope for r in only.scopes] == ["user:a"]
    json.dumps(report.to_dict())


def test_maintain_reflects_when_a_reflection_is_due(store: MemoryStore) -> None:
    facts = ["User is vegetarian.", "User is allergic to peanuts."]
    facts += [f"User visited town number {i}." for i in range(10)]
    store.add_many("user:a", [{"text": t, "importance": 0.9} for t in facts], now=T0)
    preview = maintain(store, model=RulesModel(), now=T0 + DAY, dry_run=True)
    assert preview.skipped == ("reflect: a reflection cannot be previewed (dry run)",)
    report = maintain(store, model=RulesModel(), now=T0 + DAY)
    [added] = [d for d in report.scopes[0].reflected if d.op is DecisionOp.ADD]
    assert store.get_memory("user:a", added.result_id).kind is Kind.REFLECTION  # type: ignore[arg-type]
    assert report.totals()["reflections"] == 1
    assert maintain(store, model=RulesModel(), now=T0 + DAY).totals()["reflections"] == 0


def test_maintain_runs_the_writers_episode_retention_and_decay_spares_episodes(
    store: MemoryStore,
) -> None:
    writer = MemoryWriter(store, model=RulesModel())
    for day, said in enumerate(["hi!", "thanks!", "bye!"]):
        writer.write_turn("user:a", [("user", said)], now=T0 + day * DAY)
    now = T0 + 3650 * DAY
    report = maintain(store, model=RulesModel(), now=now, retention=Retention(max_count=2))
    [scope] = report.scopes
    assert [d.fact for d in scope.episodes] == ["hi!"]
    assert scope.decayed == ()
    assert [m.text for m in store.active("user:a")] == ["thanks!", "bye!"]
    with pytest.raises(InvalidArgumentError, match="no dry run"):
        maintain(store, dry_run=True, retention=Retention(max_count=2))


def test_maintain_dry_run_previews_without_changing(store: MemoryStore) -> None:
    store.add_many("user:a", ["User is vegan.", "user is vegan"], now=T0)
    store.add_many("user:b", ["User likes tea.", "user likes tea"], now=T0 + 85 * DAY)
    before = {s: store.active(s) for s in ("user:a", "user:b")}
    report = maintain(store, model=RulesModel(), now=T0 + 200 * DAY, dry_run=True)
    assert report.dry_run and all(d.id is None for r in report.scopes for d in r.decisions())
    a, b = report.scopes
    assert (len(a.decayed), a.consolidated) == (2, ()), "what decay takes is not merged"
    assert [d.op for d in b.consolidated] == [DecisionOp.UPDATE, DecisionOp.DELETE]
    assert {s: store.active(s) for s in before} == before
    assert store.decisions("user:a") == store.decisions("user:b") == []


def test_a_failing_scope_is_reported_and_the_others_go_on(store: MemoryStore) -> None:
    store.add_many("user:a", ["User is vegan.", "User is vegan."])
    store.add_many("user:b", ["User likes tea.", "User likes tea."])
    chat = ScriptedChatModel(script=[TimeoutError("model timed out"), merges(([0, 1], "x y"))])
    report = maintain(store, model=chat)
    assert report.errors == {"user:a": "TimeoutError: model timed out"}
    assert report.totals()["merged"] == 1
    with pytest.raises(InvalidArgumentError, match="steps"):
        maintain(store, steps=("decay", "defrag"))  # type: ignore[arg-type]


def test_the_background_writer_maintains_when_idle(store: MemoryStore) -> None:
    store.add_many("user:a", ["User is vegan.", "User is vegan."])
    writer = MemoryWriter(store, model=RulesModel())
    with BackgroundWriter(writer, when_idle=Maintenance(every=timedelta(milliseconds=50))) as bg:
        bg.submit("user:b", [("user", "I live in Pune.")])
        deadline = time.monotonic() + 20
        while len(store.active("user:a")) > 1 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert [m.text for m in store.active("user:a")] == ["User is vegan."]
    [update] = [d for d in store.decisions("user:a") if d.op is DecisionOp.UPDATE]
    assert update.turn_id == CONSOLIDATION
    with pytest.raises(InvalidArgumentError, match="when_idle"):
        BackgroundWriter(writer, when_idle=lambda w: None)  # type: ignore[arg-type]


def test_the_platform_maintenance_graph_maintains_the_graphs_store(store: MemoryStore) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from graphs.maintenance import build_maintenance_graph
    finally:
        sys.path.remove(str(ROOT))
    store.add_many("user:a", ["User is vegan.", "User is vegan."])
    store.add_many("user:b", ["User is vegan.", "User is vegan."])
    graph = build_maintenance_graph(store=store)
    preview = graph.invoke({"dry_run": True})["report"]
    assert preview["dry_run"] and preview["totals"]["merged"] == 2
    assert graph.invoke({"scope": "user:a"})["report"]["totals"]["merged"] == 1
    assert len(store.active("user:a")) == 1 and len(store.active("user:b")) == 2
    with pytest.raises(InvalidArgumentError, match="no store"):
        build_maintenance_graph().invoke({})


# -- the command ----------------------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run(
        [sys.executable, "-m", "langgraph_memory.cli", "maintain", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.slow  # the command in subprocesses
def test_the_maintain_command(tmp_path: Path, embedder: LocalMiniLM) -> None:
    path = tmp_path / "memory"
    old = datetime(2025, 1, 1, tzinfo=timezone.utc)
    with MemoryStore(path, embeddings=embedder) as s:
        s.add_many("user:alice", ["User is vegan.", "user is vegan"])
        s.add("user:alice", "User saw a film.", importance=0.2, now=old)
        s.add("user:bob", "User likes tea.")

    preview = cli("--path", str(path), "--model", "rules", "--dry-run")
    assert preview.returncode == 0, preview.stderr
    assert "(dry run: nothing changed): archived by decay 1, merged 1" in preview.stdout

    done = cli("--path", str(path), "--model", "rules", "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    report = json.loads(done.stdout)
    assert report["totals"]["decayed"] == 1 and report["totals"]["merged"] == 1
    assert [s["scope"] for s in report["scopes"]] == ["user:alice", "user:bob"]
    with MemoryStore(path, embeddings=embedder) as s:
        assert [m.text for m in s.active("user:alice")] == ["User is vegan."]

    text = cli("--path", str(path), "--user", "alice")  # no model configured: the rules
    assert text.returncode == 0, text.stderr
    assert "no chat model configured" in text.stderr
    assert text.stdout.startswith("maintained 1 scope in ")

    unknown = cli("--path", str(path), "--user", "carol", "--model", "rules")
    assert unknown.returncode == 1
    assert "user:carol holds nothing in this store" in unknown.stderr


def test_an_idle_job_waits_while_turns_are_pending(store: MemoryStore) -> None:
    from langgraph_memory.write.idle import IdleRunner

    runs: list[int] = []
    busy = [True]

    class Job:
        every = timedelta(milliseconds=20)

        def __call__(self, writer: MemoryWriter) -> None:
            runs.append(1)

    runner = IdleRunner(Job(), MemoryWriter(store, model=RulesModel()), busy=lambda: busy[0])
    runner.start()
    try:
        time.sleep(0.3)
        assert runs == [], "never while the queue holds turns"
        busy[0] = False
        deadline = time.monotonic() + 10
        while not runs and time.monotonic() < deadline:
            time.sleep(0.02)
        assert runs
    finally:
        runner.stop()
