"""BackgroundWriter: per-scope order, parallel scopes, backpressure, retries, the
journal's crash recovery (a SIGKILLed child process), and concurrent writers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.errors import InvalidArgumentError, StoreLockedError
from langgraph_memory.records import Decision, DecisionOp, Status
from langgraph_memory.scope import Scope
from langgraph_memory.store import internals
from langgraph_memory.write import MemoryWriter, RulesModel
from langgraph_memory.write.background import (
    BackgroundWriter,
    QueueFullError,
    WriterClosedError,
    journal_path,
)
from langgraph_memory.write.journal import Journal, JournalEntry
from langgraph_memory.write.types import Turn

REPO = Path(__file__).resolve().parents[1]
# 30 allergens the rules model reads as 30 distinct facts ("User is allergic to X.").
# fmt: off
FOODS = [
    "peanuts", "shellfish", "eggs", "milk", "soy", "wheat", "sesame", "mustard", "celery",
    "lupin", "fish", "walnuts", "almonds", "cashews", "pecans", "pistachios", "hazelnuts",
    "strawberries", "kiwi", "bananas", "avocado", "tomatoes", "garlic", "onions", "corn",
    "oats", "rice", "chicken", "beef", "pork",
]
# fmt: on


@pytest.fixture
def store(tmp_path: Path, embedder: Any) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "m", embeddings=embedder)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def writer(store: MemoryStore) -> MemoryWriter:
    return MemoryWriter(store, model=RulesModel())


def wrap(writer: MemoryWriter, before: Callable[[Scope, Turn], object]) -> None:
    """Run ``before(scope, turn)`` ahead of every real ``write_turn``."""
    real = writer.write_turn

    def patched(scope: Any, messages: Any, **kw: Any) -> list[Decision]:
        before(Scope.of(scope), messages)
        return real(scope, messages, **kw)

    writer.write_turn = patched  # type: ignore[method-assign]


def said(text: str) -> list[tuple[str, str]]:
    return [("user", text)]


# -- order and parallelism ---------------------------------------------------------------


def test_turns_of_one_scope_apply_in_order(writer: MemoryWriter, store: MemoryStore) -> None:
    with BackgroundWriter(writer, workers=4) as bg:
        for scope in ("user:a", "user:b", "user:c"):
            bg.submit(scope, said("I live in Delhi."))
            bg.submit(scope, said("I moved to Pune."))
            bg.submit(scope, said("I moved to Mumbai."))
        assert bg.flush(timeout=30)
        assert bg.stats.applied == 9
    for scope in ("user:a", "user:b", "user:c"):
        assert [d.op for d in store.decisions(scope)] == [
            DecisionOp.ADD,
            DecisionOp.UPDATE,
            DecisionOp.UPDATE,
        ]
        assert [m.text for m in store.active(scope, episodes=False)] == ["User lives in Mumbai."]


def test_scopes_progress_in_parallel_but_a_scope_never_in_two_workers(
    writer: MemoryWriter, store: MemoryStore
) -> None:
    release_a, b_done = threading.Event(), threading.Event()
    running: Counter[str] = Counter()
    most: Counter[str] = Counter()
    guard = threading.Lock()

    def before(scope: Scope, turn: Turn) -> None:
        with guard:
            running[scope.key] += 1
            most[scope.key] = max(most[scope.key], running[scope.key])
        try:
            if scope.key == "user:a":
                assert release_a.wait(10)
            time.sleep(0.01)
        finally:
            with guard:
                running[scope.key] -= 1

    wrap(writer, before)
    real = writer.write_turn

    def then_signal(scope: Any, messages: Any, **kw: Any) -> list[Decision]:
        out = real(scope, messages, **kw)
        if Scope.of(scope).key == "user:b" and "Pune" in messages.user_text():
            b_done.set()
        return out

    writer.write_turn = then_signal  # type: ignore[method-assign]
    with BackgroundWriter(writer, workers=3) as bg:
        bg.submit("user:a", said("I live in Delhi."))
        bg.submit("user:a", said("I'm vegan."))
        bg.submit("user:b", said("I live in Delhi."))
        bg.submit("user:b", said("I moved to Pune."))
        assert b_done.wait(10), "scope b must not wait behind the blocked scope a"
        assert store.active("user:a", episodes=False) == []  # a's first turn is still in flight
        release_a.set()
        assert bg.flush(timeout=10)
    assert most == {"user:a": 1, "user:b": 1}
    assert len(store.active("user:a", episodes=False)) == 2


# -- backpressure ------------------------------------------------------------------------


def test_full_queue_raises_a_clear_error(writer: MemoryWriter) -> None:
    gate = threading.Event()
    wrap(writer, lambda scope, turn: gate.wait(10))
    bg = BackgroundWriter(writer, workers=1, max_pending=2, on_full="raise")
    try:
        bg.submit("user:a", said("I'm vegan."))
        bg.submit("user:b", said("I'm vegan."))
        with pytest.raises(QueueFullError, match=r"holds 2 turns, its max_pending \(2\)"):
            bg.submit("user:c", said("I'm vegan."))
        assert isinstance(QueueFullError("x"), RuntimeError)
    finally:
        gate.set()
        assert bg.close(timeout=10)
    assert bg.stats.applied == 2


def test_full_queue_waits_then_times_out_or_gets_room(writer: MemoryWriter) -> None:
    gate = threading.Event()
    wrap(writer, lambda scope, turn: gate.wait(10))
    bg = BackgroundWriter(writer, workers=1, max_pending=2, on_full="wait")
    try:
        bg.submit("user:a", said("I'm vegan."))
        bg.submit("user:b", said("I'm vegan."))
        started = time.monotonic()
        with pytest.raises(QueueFullError, match=r"no room came within 0.2 s"):
            bg.submit("user:c", said("I'm vegan."), timeout=0.2)
        assert time.monotonic() - started >= 0.2
        got: list[str] = []
        waiter = threading.Thread(
            target=lambda: got.append(bg.submit("user:c", said("I'm vegan."), turn_id="late"))
        )
        waiter.start()
        time.sleep(0.1)
        assert got == []  # still waiting for room
        gate.set()
        waiter.join(10)
        assert got == ["late"]
    finally:
        gate.set()
        assert bg.close(timeout=10)
    assert bg.stats.applied == 3


# -- flush, close ----------------------------------------------------------------------


def test_close_drains_and_refuses_new_turns(writer: MemoryWriter, store: MemoryStore) -> None:
    wrap(writer, lambda scope, turn: time.sleep(0.02))
    bg = BackgroundWriter(writer, workers=2)
    ids = [bg.submit(f"user:{i % 3}", said(f"I'm allergic to {FOODS[i]}.")) for i in range(9)]
    assert len(set(ids)) == 9
    assert bg.close(timeout=30)
    stats = bg.stats
    assert (stats.submitted, stats.applied, stats.pending) == (9, 9, 0)
    assert sum(len(store.active(f"user:{i}", episodes=False)) for i in range(3)) == 9
    with pytest.raises(WriterClosedError):
        bg.submit("user:0", said("I'm vegan."))
    assert bg.close()  # twice is fine


def test_flush_waits_for_what_was_submitted(writer: MemoryWriter, store: MemoryStore) -> None:
    wrap(writer, lambda scope, turn: time.sleep(0.05))
    with BackgroundWriter(writer) as bg:
        bg.submit("user:a", said("I'm vegan."))
        assert not bg.flush(timeout=0.001)
        assert bg.flush(timeout=10)
        assert [m.text for m in store.active("user:a", episodes=False)] == ["User is vegan."]


def test_a_turn_id_is_taken_once_while_pending(writer: MemoryWriter) -> None:
    gate = threading.Event()
    wrap(writer, lambda scope, turn: gate.wait(10))
    with BackgroundWriter(writer, workers=1) as bg:
        bg.submit("user:a", said("I'm vegan."), turn_id="t1")
        with pytest.raises(ValueError, match="already queued"):
            bg.submit("user:a", said("I'm vegan."), turn_id="t1")
        gate.set()


# -- failures ------------------------------------------------------------------------------


def test_store_errors_are_retried_with_backoff(writer: MemoryWriter, store: MemoryStore) -> None:
    calls: list[float] = []

    def flaky(scope: Scope, turn: Turn) -> None:
        calls.append(time.monotonic())
        if len(calls) <= 2:
            raise RuntimeError("store unavailable")

    wrap(writer, flaky)
    with BackgroundWriter(writer, backoff_s=0.05, backoff_factor=2.0) as bg:
        tid = bg.submit("user:a", said("I'm vegan."))
        assert bg.flush(timeout=10)
        assert (bg.stats.retries, bg.stats.applied, bg.stats.failed) == (2, 1, 0)
    assert calls[1] - calls[0] >= 0.05 and calls[2] - calls[1] >= 0.1
    assert [(d.op, d.turn_id) for d in store.decisions("user:a")] == [(DecisionOp.ADD, tid)]
    assert [m.text for m in store.active("user:a", episodes=False)] == ["User is vegan."]


def test_a_turn_that_keeps_failing_is_logged_as_failed(
    writer: MemoryWriter, store: MemoryStore
) -> None:
    def broken(scope: Scope, turn: Turn) -> None:
        raise RuntimeError("disk full")

    wrap(writer, broken)
    with BackgroundWriter(writer, max_attempts=3, backoff_s=0.01) as bg:
        tid = bg.submit("user:a", said("I'm vegan."))
        bg.submit("user:a", said("I live in Pune."))  # the next turn still gets its turn
        assert bg.flush(timeout=10)
        assert (bg.stats.failed, bg.stats.retries, bg.stats.applied) == (2, 4, 0)
    first = store.decisions("user:a")[0]
    assert (first.op, first.status, first.turn_id) == (DecisionOp.NOOP, Status.FAILED, tid)
    assert first.error and "after 3 attempts" in first.error and "disk full" in first.error
    assert first.fact == "user: I'm vegan."
    assert store.active("user:a", episodes=False) == []


def test_a_failure_that_cannot_be_logged_stays_in_the_journal(
    writer: MemoryWriter, store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("store gone")

    monkeypatch.setattr(writer, "write_turn", broken)
    monkeypatch.setattr(internals(store), "log", broken)
    journal = tmp_path / "turns.jsonl"
    with BackgroundWriter(writer, max_attempts=1, journal=journal) as bg:
        tid = bg.submit("user:a", said("I'm vegan."))
        # Neither applied nor recorded as failed: flush must not say all is done.
        assert not bg.flush(timeout=10)
        assert bg.stats.unrecorded == 1 and bg.stats.pending == 0
    j = Journal(journal)
    assert [e.turn_id for e in j.pending()] == [tid]
    j.close()


# -- the journal -----------------------------------------------------------------------------


def test_replay_applies_pending_turns_once_in_order(
    writer: MemoryWriter, store: MemoryStore, tmp_path: Path
) -> None:
    path = tmp_path / "turns.jsonl"
    j = Journal(path)
    entries = [
        JournalEntry.of("user:a", Turn.of(said(text), turn_id=f"t{i}"))
        for i, text in enumerate(["I live in Delhi.", "I moved to Pune.", "I'm vegan."])
    ]
    for e in entries:
        j.append(e)
    j.close()
    # t0 was applied before the "crash", but its done record never came.
    writer.write_turn("user:a", entries[0].turn())
    with BackgroundWriter(writer, journal=path) as bg:
        assert bg.flush(timeout=10)
        s = bg.stats
        assert (s.replayed, s.resumed, s.applied) == (3, 1, 3)
    assert [(d.op, d.turn_id) for d in store.decisions("user:a")] == [
        (DecisionOp.ADD, "t0"),
        (DecisionOp.UPDATE, "t1"),
        (DecisionOp.ADD, "t2"),
    ]
    assert path.read_text() == ""  # compacted on a clean close


def test_journal_ignores_a_torn_last_line_and_sets_a_damaged_middle_aside(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    good = JournalEntry.of("user:a", Turn.of(said("I'm vegan."), turn_id="t1")).record()
    path.write_text(json.dumps(good) + "\n" + '{"t": "turn", "id": "t2", "sco')
    j = Journal(path)
    assert [e.turn_id for e in j.pending()] == ["t1"] and j.damage is None
    with pytest.raises(StoreLockedError, match="in use by another background writer"):
        Journal(path)
    j.close()
    path.write_text("not json\n" + json.dumps(good) + "\n")
    j = Journal(path)  # more in tests/test_journal.py
    assert [e.turn_id for e in j.pending()] == ["t1"]
    assert j.damage is not None and j.damage.lines[0][0] == 1
    j.close()


CHILD = textwrap.dedent(
    """
    import json, sys, time
    from dataclasses import asdict
    from langgraph_memory import MemoryStore
    from langgraph_memory.write import MemoryWriter, RulesModel
    from langgraph_memory.write.background import BackgroundWriter

    phase, store_path, journal_path = sys.argv[1:4]
    foods = sys.argv[4].split(",")
    store = MemoryStore(store_path)
    writer = MemoryWriter(store, model=RulesModel())
    if phase == "crash":
        real = writer.write_turn

        def slow(scope, turn, **kw):
            time.sleep(0.05)
            out = real(scope, turn, **kw)
            if turn.id == "turn-05":  # applied, and the done record not yet written
                print("APPLIED turn-05", flush=True)
                time.sleep(60)
            return out

        writer.write_turn = slow
        bg = BackgroundWriter(writer, workers=2, journal=journal_path)
        for i, food in enumerate(foods):
            bg.submit("user:kill", [("user", f"I'm allergic to {food}.")], turn_id=f"turn-{i:02d}")
        print("ACCEPTED", flush=True)
        time.sleep(60)
    else:
        bg = BackgroundWriter(writer, workers=2, journal=journal_path)
        drained = bg.close(timeout=60)
        print(json.dumps({
            "drained": drained,
            "stats": asdict(bg.stats),
            "active": [m.text for m in store.active("user:kill", episodes=False)],
            "decisions": [[d.op.value, d.turn_id, d.status] for d in store.decisions("user:kill")],
        }))
    """
)


@pytest.mark.slow  # a killed subprocess
def test_a_sigkilled_writer_loses_nothing_and_applies_nothing_twice(tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    args = [str(tmp_path / "store"), str(tmp_path / "turns.jsonl"), ",".join(FOODS)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, str(script), "crash", *args],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )
    try:
        assert child.stdout is not None
        seen = [child.stdout.readline().strip() for _ in range(2)]
        assert sorted(seen) == ["ACCEPTED", "APPLIED turn-05"], seen
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    assert child.returncode == -signal.SIGKILL

    done = subprocess.run(
        [sys.executable, str(script), "replay", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["drained"]
    # turns 0-4 were done; 5 was applied but not marked done: replayed, resumed, and
    # its fact, already decided in that turn, not applied again.
    stats = out["stats"]
    assert (stats["replayed"], stats["resumed"], stats["applied"]) == (25, 1, 25)
    assert sorted(out["active"]) == sorted(f"User is allergic to {f}." for f in FOODS)
    assert sorted(out["decisions"]) == sorted(
        ["ADD", f"turn-{i:02d}", "applied"] for i in range(len(FOODS))
    )


# -- the default journal, exit, read-your-writes ---------------------------------------------


def test_the_journal_is_in_the_store_directory_by_default(
    writer: MemoryWriter, store: MemoryStore
) -> None:
    path = journal_path(store)
    assert path == store.path / "journal" / "turns.jsonl"  # type: ignore[operator]
    with BackgroundWriter(writer) as bg:
        bg.submit("user:a", said("I'm vegan."), turn_id="t1")
        assert b'"id":"t1"' in path.read_bytes(), "accepted means on disk"
        with pytest.raises(StoreLockedError, match=r"close it first .* journal=False"):
            BackgroundWriter(MemoryWriter(store, model=RulesModel()))
        assert bg.flush(timeout=10)
    assert path.read_text() == ""  # compacted on a clean close
    with BackgroundWriter(writer, journal=False) as bg:  # off on request
        bg.submit("user:a", said("I live in Pune."))
        assert bg.flush(timeout=10)
    assert path.read_text() == ""


def test_a_store_without_a_directory_has_no_journal_unless_given_one(
    embedder: Any, tmp_path: Path
) -> None:
    import chromadb

    server_like = MemoryStore(client=chromadb.EphemeralClient(), embeddings=embedder)
    writer = MemoryWriter(server_like, model=RulesModel())
    assert journal_path(server_like) is None
    with BackgroundWriter(writer) as bg:
        assert "journal=None" in repr(bg)
        bg.submit("user:a", said("I'm vegan."))
    with BackgroundWriter(writer, journal=tmp_path / "turns.jsonl") as bg:
        bg.submit("user:a", said("I live in Pune."))
        assert bg.flush(timeout=10)
    assert sorted(m.text for m in server_like.active("user:a", episodes=False)) == [
        "User is vegan.",
        "User lives in Pune.",
    ]


def test_exit_timeout_is_checked(writer: MemoryWriter) -> None:
    for bad in (-1.0, float("nan")):
        with pytest.raises(InvalidArgumentError, match="exit_timeout must be >= 0"):
            BackgroundWriter(writer, exit_timeout=bad)


def test_wait_is_for_one_scopes_turns_accepted_before_it(
    writer: MemoryWriter, store: MemoryStore
) -> None:
    gate = threading.Event()
    wrap(writer, lambda scope, turn: scope.key == "user:slow" and gate.wait(10))
    with BackgroundWriter(writer, workers=2) as bg:
        bg.submit("user:slow", said("I'm vegan."))
        bg.submit("user:a", said("I live in Pune."))
        assert bg.wait("user:a", timeout=10), "a scope does not wait behind another"
        assert [m.text for m in store.active("user:a", episodes=False)] == ["User lives in Pune."]
        started = time.monotonic()
        assert not bg.wait("user:slow", timeout=0.1)
        assert time.monotonic() - started >= 0.1
        assert bg.wait("user:nobody", timeout=0), "nothing pending: no wait"
        gate.set()
        assert bg.wait(Scope("user", "slow"), timeout=10)
        assert [m.text for m in store.active("user:slow", episodes=False)] == ["User is vegan."]


EXITING = textwrap.dedent(
    """
    import logging, sys, time
    from langgraph_memory import MemoryStore
    from langgraph_memory.write import MemoryWriter, RulesModel
    from langgraph_memory.write.background import BackgroundWriter

    store_path, journal, exit_timeout, delay = sys.argv[1:5]
    logging.basicConfig(stream=sys.stderr, format="%(levelname)s %(message)s")
    store = MemoryStore(store_path)
    writer = MemoryWriter(store, model=RulesModel())
    real = writer.write_turn

    def slow(scope, turn, **kw):
        time.sleep(float(delay))  # a slow model: turns are still queued at exit
        return real(scope, turn, **kw)

    writer.write_turn = slow
    bg = BackgroundWriter(
        writer, workers=1, journal=journal == "default", exit_timeout=float(exit_timeout)
    )
    bg.submit("user:exit", [("user", "I'm allergic to peanuts.")])
    bg.submit("user:exit", [("user", "I live in Pune.")])
    print("SUBMITTED", flush=True)
    # and the script ends: no flush(), no close()
    """
)


def run_child(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )


@pytest.mark.slow  # subprocesses
def test_a_process_that_exits_without_flush_writes_its_turns_at_exit(tmp_path: Path) -> None:
    store_path = str(tmp_path / "store")
    done = run_child(EXITING, store_path, "none", "10", "0.2")  # no journal, 10 s at exit
    assert done.returncode == 0 and "SUBMITTED" in done.stdout, done.stderr[-3000:]
    assert "not written" not in done.stderr
    with MemoryStore(store_path) as store:
        assert sorted(m.text for m in store.active("user:exit", episodes=False)) == [
            "User is allergic to peanuts.",
            "User lives in Pune.",
        ]


@pytest.mark.slow  # subprocesses
def test_turns_the_exit_could_not_wait_for_are_named_and_replayed_next_start(
    tmp_path: Path,
) -> None:
    store_path = str(tmp_path / "store")
    done = run_child(EXITING, store_path, "default", "0.1", "5")  # too slow for the exit
    assert done.returncode == 0 and "SUBMITTED" in done.stdout, done.stderr[-3000:]
    assert "WARNING" in done.stderr and "closed at interpreter exit with 2 turns" in done.stderr
    assert "kept in the journal" in done.stderr and "turns.jsonl" in done.stderr
    with MemoryStore(store_path) as store:
        assert store.active("user:exit", episodes=False) == []
        with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as bg:
            assert bg.stats.replayed == 2
            assert bg.flush(timeout=30)
        assert sorted(m.text for m in store.active("user:exit", episodes=False)) == [
            "User is allergic to peanuts.",
            "User lives in Pune.",
        ]


def test_eight_threads_stating_one_fact_make_one_memory(
    writer: MemoryWriter, store: MemoryStore
) -> None:
    barrier = threading.Barrier(8)
    with BackgroundWriter(writer, workers=4) as bg:

        def state() -> None:
            barrier.wait(10)
            bg.submit("user:same", said("I'm allergic to peanuts."))

        threads = [threading.Thread(target=state) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert bg.flush(timeout=30)
    assert [m.text for m in store.active("user:same", episodes=False)] == [
        "User is allergic to peanuts."
    ]
    assert Counter(d.op for d in store.decisions("user:same")) == {
        DecisionOp.ADD: 1,
        DecisionOp.NOOP: 7,
    }
