"""Decay: a memory nobody uses fades, and once weak enough it is archived (never deleted).

A memory's ``strength`` at ``now`` is its importance halved every
``half_life x (0.5 + importance)`` of idle time (since it was last read, else since
it was made): with the base half-life of 30 days, an unused fact of importance 0.5
halves every 30 days, one of 0.8 every 39, one of 0.2 every 21. ``forget_stale``
archives the scope's facts whose strength fell below ``threshold`` (default 0.02),
each with a logged ``DELETE`` decision that says why. At that threshold an unused
fact is archived after about:

========== ====== ====== ====== ======
importance 0.2    0.5    0.7    0.8
idle days  70     139    185    208
========== ====== ====== ====== ======

What never decays, whatever its use (``protection`` says why):

- a pinned memory;
- a safety-relevant one: importance ``>= SAFETY_IMPORTANCE`` (0.9: the write path
  gives allergies and intolerances 0.9) or metadata ``{"safety": True}`` (``SAFETY``:
  tag a medical fact or a hard constraint that the write path rated lower); the same
  rule by which the write path lets only the user's own words close one
  (``write.guards.protected``);
- an episode: the words a fact was taken from are evidence, kept by the writer's
  ``Retention`` (``retain_episodes``), not by use.

Reading a memory through ``retrieve`` refreshes its ``last_accessed`` (``touch``).

>>> import tempfile
>>> from datetime import datetime, timedelta, timezone
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> _ = store.add_many("user:a", [{"text": "User liked a jazz gig.", "importance": 0.3},
...                               {"text": "User is allergic to nuts.", "importance": 0.9}], now=t)
>>> [d.note for d in forget_stale(store, "user:a", now=t + timedelta(days=150))]
['decay: strength 0.00394 < 0.02 (importance 0.3, unused for 150 days)']
>>> [m.text for m in store.active("user:a")]
['User is allergic to nuts.']
"""

from __future__ import annotations

from datetime import datetime, timedelta

from langgraph_memory import telemetry
from langgraph_memory.checks import check_instance
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.records import Decision, Memory, now_utc, utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import MemoryStore, check_store, internals
from langgraph_memory.write.guards import PROTECTED_IMPORTANCE, SAFETY
from langgraph_memory.write.reconcile import decision_attributes
from langgraph_memory.write.retention import archive_decision, archive_logged

__all__ = [
    "DECAY",
    "HALF_LIFE",
    "SAFETY",
    "SAFETY_IMPORTANCE",
    "THRESHOLD",
    "forget_stale",
    "protection",
    "strength",
]

#: Base half-life of an unused memory's strength (scaled by 0.5 + importance).
HALF_LIFE = timedelta(days=30)
#: Strength below which ``forget_stale`` archives a memory.
THRESHOLD = 0.02
#: Importance from which a memory counts as safety-relevant and never decays, and the
#: metadata key that marks one whatever its importance (``metadata={"safety": True}``:
#: a medical fact, a hard constraint): the write path's own (``write.guards``), so what
#: a turn may not close is also what never decays.
SAFETY_IMPORTANCE = PROTECTED_IMPORTANCE
#: The ``turn_id`` of every decision decay logs (``store.decisions(scope, turn_id=DECAY)``).
DECAY = "decay"


def protection(memory: Memory) -> str | None:
    """Why ``memory`` never decays (pinned, safety-relevant, an episode), or None.

    >>> from datetime import timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> m = Memory(id="0a1b2c3d", text="Takes insulin.", scope="user:a", created_at=t,
    ...            metadata={SAFETY: True})
    >>> protection(m), protection(Memory(id="1b2c3d4e", text="Likes tea.", scope="user:a",
    ...                                  created_at=t))
    ('safety (metadata safety=True)', None)
    """
    check_instance(memory, Memory, "memory", "pass one from store.active(scope)")
    if memory.pinned:
        return "pinned"
    if memory.importance >= SAFETY_IMPORTANCE:
        return f"safety (importance >= {SAFETY_IMPORTANCE})"
    if memory.metadata.get(SAFETY) is True:
        return f"safety (metadata {SAFETY}=True)"
    if memory.is_episode:
        return "episode (kept by the writer's Retention)"
    return None


def idle_time(memory: Memory, now: datetime) -> timedelta:
    """How long ``memory`` has gone unused at ``now``: since ``last_accessed``,
    else since it was made (never negative).

    >>> from datetime import timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> idle_time(Memory(id="0a1b2c3d", text="x", scope="user:a", created_at=t),
    ...           t + timedelta(days=3)).days
    3
    """
    seen = memory.last_accessed or memory.created_at
    return max(timedelta(0), utc(now, "now") - seen)


def strength(memory: Memory, now: datetime, *, half_life: timedelta = HALF_LIFE) -> float:
    """``importance x 0.5 ** (idle hours / (half-life hours x (0.5 + importance)))``;
    a memory that never decays (see ``protection``) keeps its importance.

    >>> from datetime import timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> m = Memory(id="0a1b2c3d", text="Likes jazz.", scope="user:a", created_at=t)
    >>> strength(m, t), strength(m, t + timedelta(days=30)), strength(m, t + timedelta(days=60))
    (0.5, 0.25, 0.125)
    >>> pinned = Memory(id="1b2c3d4e", text="x", scope="user:a", created_at=t, pinned=True)
    >>> strength(pinned, t + timedelta(days=3650))
    0.5
    """
    check_instance(memory, Memory, "memory", "pass one from store.active(scope)")
    now = utc(now, "now")
    _check_half_life(half_life)
    if protection(memory) is not None:
        return memory.importance
    scale = half_life * (0.5 + memory.importance)
    return float(memory.importance * 0.5 ** (idle_time(memory, now) / scale))


@telemetry.spanned(  # a span with OpenTelemetry: the decisions it logged
    "memory.decay",
    telemetry.StepSpec(operation=telemetry.DELETE_MEMORY, result=decision_attributes),
)
def forget_stale(
    store: MemoryStore,
    scope: ScopeLike,
    *,
    now: datetime | None = None,
    threshold: float = THRESHOLD,
    half_life: timedelta = HALF_LIFE,
    dry_run: bool = False,
) -> list[Decision]:
    """Archive the scope's active memories whose ``strength`` at ``now`` is below
    ``threshold``, never one that ``protection`` keeps; one logged ``DELETE``
    decision each, its ``note`` the strength and why, ``turn_id`` ``DECAY``.
    Nothing is deleted (``history`` keeps them; ``purge`` is the hard delete).

    With ``dry_run`` nothing changes: the decisions it would log come back unlogged
    (no ``id``). Runs under the scope's lock (one read of the scope's facts, one
    archive, one log write), so a turn written meanwhile waits for it.
    """
    check_store(store)
    scope = Scope.of(scope)
    when = utc(now, "now") if now is not None else now_utc()
    _check_threshold(threshold)
    _check_half_life(half_life)
    internals(store).flush_access(scope)  # reads noted and not written yet count as use

    def reason(m: Memory) -> str:
        days = idle_time(m, when) / timedelta(days=1)
        return (
            f"decay: strength {strength(m, when, half_life=half_life):.3g} < {threshold:g} "
            f"(importance {m.importance:g}, unused for {days:.0f} days)"
        )

    with internals(store).scope_lock(scope):
        weak = [
            m
            for m in store.active(scope, episodes=False)
            if protection(m) is None and strength(m, when, half_life=half_life) < threshold
        ]
        if dry_run:
            return [archive_decision(m, reason(m), turn_id=DECAY) for m in weak]
        return archive_logged(store, scope, weak, reason=reason, now=when, turn_id=DECAY)


def _check_threshold(threshold: object) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise InvalidArgumentError(f"threshold must be a number in (0, 1), got {threshold!r}")
    if not 0 < threshold < 1:
        raise InvalidArgumentError(
            f"threshold must be a number in (0, 1) (a strength: importance x decay), "
            f"got {threshold!r}"
        )


def _check_half_life(half_life: object) -> None:
    if not isinstance(half_life, timedelta) or half_life <= timedelta(0):
        raise InvalidArgumentError(
            f"half_life must be a positive timedelta (e.g. timedelta(days=30)), got {half_life!r}"
        )
