"""Processes writing one memory on one `chroma run` (benchmarks/multiprocess.py), quick
mode: real worker processes, real PostgreSQL and Redis, SIGKILL while a lock is held.

Under either lock, and with deferred turns on the shared Postgres queue, no acknowledged
turn is lost, no fact is live twice, and every scope was decided in one order; a killed
holder frees its scope at once (Postgres) or within its 1 s lease (Redis), and a killed
process's queued turns are written once by another. The checks themselves are shown to
fail on a store that is wrong.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ChromaServer
from langchain_core.embeddings import DeterministicFakeEmbedding
from lock_servers import LockServer, running_postgres, running_redis

from benchmarks import multiprocess as mp
from langgraph_memory import MemoryStore, MemoryWriter
from langgraph_memory.write import RulesModel

pytestmark = pytest.mark.server
#: Kills per lock kind in the quick run.
KILLS = 2


def fake_store(tmp_path: Any) -> MemoryStore:
    return MemoryStore(tmp_path / "s", embeddings=DeterministicFakeEmbedding(size=8))


def test_every_phrasing_of_a_step_is_read_as_one_fact(tmp_path: Any) -> None:
    """The script's restatements are duplicates only if the rules read them alike."""
    with fake_store(tmp_path) as store:
        writer = MemoryWriter(store, RulesModel())
        for step, phrasings in enumerate(mp.SCRIPT):
            facts = set()
            for n, said in enumerate(phrasings):
                decisions = writer.write_turn("user:a", [("user", said)], turn_id=f"t{step}-{n}")
                assert len(decisions) == 1, (said, decisions)
                facts.add(mp.slot_of(decisions[0].fact))
            assert len(facts) == 1 and facts <= set(mp.SLOTS.values()), (step, facts)
        live = [mp.slot_of(m.text) for m in store.active("user:a", episodes=False)]
        assert sorted(live) == ["employer", "location"]


class Exported:
    """A store that exports one made-up scope."""

    def __init__(self, memories: list[dict[str, Any]], decisions: list[dict[str, Any]]) -> None:
        self.data = {"memories": memories, "decisions": decisions}

    def export(self, scope: str) -> dict[str, Any]:
        return self.data


def fact(mid: str, text: str, *, key: str = "", closed: bool = False) -> dict[str, Any]:
    return {
        "id": mid,
        "key": key or mid,
        "text": text,
        "valid_until": "2026-01-01T00:00:00+00:00" if closed else None,
        "metadata": {},
    }


def decision(op: str, turn: str, target: str | None = None, said: str = "") -> dict[str, Any]:
    return {
        "op": op,
        "turn_id": turn,
        "fact": said or f"fact of {turn}",
        "target_id": target,
        "status": "applied",
    }


def test_the_checks_find_duplicates_lost_turns_and_two_orders() -> None:
    right = Exported(
        [fact("a", "User lives in Delhi.", closed=True), fact("b", "User lives in Pune.", key="a")],
        [decision("ADD", "t1"), decision("UPDATE", "t2", "a")],
    )
    assert mp.check_scopes(right, {"user:a": ["t1", "t2"]}) == mp.Checked()
    # Two processes both UPDATE the Delhi version: two live versions of it, closed twice.
    forked = Exported(
        [
            fact("a", "User lives in Delhi.", closed=True),
            fact("b", "User lives in Pune.", key="a"),
            fact("c", "User lives in Pune.", key="a"),
            fact("d", "User works at Acme."),
            fact("e", "User works at Acme."),
        ],
        [decision("ADD", "t1"), decision("UPDATE", "t2", "a"), decision("UPDATE", "t3", "a")],
    )
    found = mp.check_scopes(forked, {"user:a": ["t1", "t2", "t3", "t4"]})
    assert (found.duplicates, found.duplicate_scopes, found.lost) == (2, 1, 1)
    assert found.order_violations == 2 and not found.order_ok
    # A replayed turn that decided its fact again: written twice.
    replayed = Exported(
        [fact("a", "User lives in Delhi.")],
        [
            decision("ADD", "t1", said="User lives in Delhi."),
            decision("NOOP", "t1", "a", said="User lives in Delhi."),
        ],
    )
    found = mp.check_scopes(replayed, {"user:a": ["t1"]})
    assert (found.decided_twice, found.duplicates, found.order_ok) == (1, 0, False)


# -- the quick run ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lock_urls() -> Iterator[dict[str, LockServer]]:
    with running_postgres() as postgres, running_redis() as redis:
        yield {"postgres": postgres, "redis": redis}


@pytest.fixture(scope="module")
def quick(chroma_server: ChromaServer, lock_urls: dict[str, LockServer]) -> dict[str, Any]:
    """One quick run: 2 workers x 8 new scopes per lock kind, ``KILLS`` kills per lock."""
    locks: dict[str, str | None] = {k: s.url for k, s in lock_urls.items()}
    locks["none"] = None
    locks["deferred"] = lock_urls["postgres"].url
    return mp.measure(chroma_server, locks, workers=[2], scopes=8, kills=KILLS)


def load_row(report: dict[str, Any], kind: str) -> dict[str, Any]:
    [row] = [r for r in report["load"] if r["lock"] == kind]
    return row


@pytest.mark.parametrize("kind", ["postgres", "redis", "deferred"])
def test_under_a_lock_every_turn_is_written_once_in_one_order(
    quick: dict[str, Any], kind: str
) -> None:
    row = load_row(quick, kind)
    assert row["acknowledged"] == row["turns"] == 2 * 8 * len(mp.SCRIPT), row["errors"]
    assert (row["duplicates"], row["lost"], row["dropped_as_purged"]) == (0, 0, 0), row
    assert row["order_ok"], row
    assert row["failed_decisions"] == 0, row["failed_errors"]
    assert row["turns_per_s"] > 0 and 0 < row["p50_ms"] <= row["p95_ms"]


@pytest.mark.parametrize("kind", ["postgres", "redis", "deferred"])
def test_a_holder_killed_mid_write_loses_nothing_and_frees_the_scope(
    quick: dict[str, Any], kind: str
) -> None:
    [row] = [r for r in quick["fault"] if r["lock"] == kind]
    assert row["kills"] == len(row["unblock_ms"]) == KILLS
    if kind == "deferred":  # each victim submitted every step to three scopes
        assert row["acknowledged"] == KILLS * 3 * len(mp.SCRIPT), row
        assert len(row["drained_ms"]) == KILLS and row["decided_twice"] == 0, row
    else:  # each victim's two turns before the held one; this process's one after
        assert row["acknowledged"] >= KILLS * 3, row
    assert (row["lost"], row["duplicates"], row["order_ok"]) == (0, 0, True), row
    assert row["failed_decisions"] == 0, row["failed_errors"]
    # Postgres frees a dead session's locks at once; Redis waits out the 1 s lease. The
    # deferred run's first hold also opens this process's lock session.
    bound_ms = 1000 if kind == "postgres" else 1000 * mp.FAULT_LEASE_S + 1000
    assert row["unblock_max_ms"] < bound_ms, row["unblock_ms"]


def test_the_baseline_without_a_lock_is_measured(quick: dict[str, Any]) -> None:
    row = load_row(quick, "none")
    assert row["acknowledged"] + row["refused"] == row["turns"]
    if row["duplicates"] + row["order_violations"] == 0:
        # Seen in every run so far, but a race: not asserted.
        warnings.warn("this run's no-lock baseline made no duplicate", stacklevel=1)
    assert "none" not in [r["lock"] for r in quick["fault"]]  # no fault run unlocked
