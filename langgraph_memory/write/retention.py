"""Retention: how long a scope keeps its episodes; and archiving with a logged reason.

Episodes grow with every turn. A ``Retention`` bounds them per scope by age
(``max_age``: older than that, measured from the last time its words were said)
and/or by count (``max_count``: the most recently said that many stay). What falls
outside is archived, never deleted: it leaves what the read path sees, and stays in
``history`` and in ``export`` (``purge`` is the hard delete). Facts are never touched.

Every archive is a logged decision: op ``DELETE`` (what the write path logs when a
memory stops being current), ``status`` applied, the reason in ``note``.
``archive_logged`` is that step on its own, for any policy that retires memories.

>>> import tempfile
>>> from datetime import datetime, timedelta, timezone
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.write import MemoryWriter, RulesModel
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> writer = MemoryWriter(store, model=RulesModel())
>>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> for day, said in enumerate(["hi!", "I'm vegan.", "thanks!"]):
...     _ = writer.write_turn("user:a", [("user", said)], now=t + timedelta(days=day))
>>> done = retain_episodes(store, "user:a", now=t + timedelta(days=2), max_count=1)
>>> [(d.op.value, d.fact) for d in done]
[('DELETE', 'hi!'), ('DELETE', "I'm vegan.")]
>>> done[0].note
'retention: beyond the newest 1 episodes (max_count)'
>>> [m.text for m in store.active("user:a")]
['User is vegan.', 'thanks!']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.records import EPISODE, Decision, DecisionOp, Memory, now_utc, utc
from langgraph_memory.scope import Scope, ScopeLike

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["Retention", "archive_decision", "archive_logged", "retain_episodes"]

#: How much of an archived memory's text its decision repeats as ``fact``
#: (the memory itself, in ``history``, keeps all of it).
FACT_CHARS = 200


@dataclass(frozen=True)
class Retention:
    """How many episodes a scope keeps, and for how long.

    ``max_age``: episodes whose turn is older than this are archived;
    ``max_count``: only the newest this many stay. Either or both. A writer
    applies it on a scope's first turn and then every ``every`` turns of that
    scope, so between two passes a scope may hold up to ``every`` episodes more
    than ``max_count``, or some up to ``every`` turns past ``max_age``: a pass
    reads every episode's record, which a turn should not pay each time.

    Args:
        max_age: a positive ``timedelta``: an episode whose words were last said
            longer ago than this is archived; None: no age bound.
        max_count: at least 1: only the newest this many episodes of a scope stay;
            None: no count bound.
        every: how many turns of a scope pass between two applications, at least 1.

    Raises:
        InvalidArgumentError: neither ``max_age`` nor ``max_count`` is given, or one
            of the three is out of range.

    >>> Retention(max_age=timedelta(days=365), max_count=10_000).every
    100
    >>> Retention()
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: Retention needs max_age, max_count or both; ...
    """

    max_age: timedelta | None = None
    max_count: int | None = None
    every: int = 100

    def __post_init__(self) -> None:
        if self.max_age is None and self.max_count is None:
            raise InvalidArgumentError(
                "Retention needs max_age, max_count or both; to keep no episodes at all, "
                "pass MemoryWriter(episodes=False)"
            )
        check_limits(self.max_age, self.max_count)
        if isinstance(self.every, bool) or not isinstance(self.every, int) or self.every < 1:
            raise InvalidArgumentError(f"every must be an int >= 1, got {self.every!r}")


def check_limits(max_age: timedelta | None, max_count: int | None) -> None:
    """Refuse a ``max_age`` that is not a positive timedelta, a ``max_count`` below 1.

    >>> check_limits(timedelta(days=-1), None)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: max_age must be a positive timedelta, ...
    """
    if max_age is not None and (not isinstance(max_age, timedelta) or max_age <= timedelta(0)):
        raise InvalidArgumentError(f"max_age must be a positive timedelta, got {max_age!r}")
    if max_count is not None and (
        isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1
    ):
        raise InvalidArgumentError(
            f"max_count must be an int >= 1, got {max_count!r} (to keep no episodes, "
            "pass MemoryWriter(episodes=False))"
        )


def retain_episodes(
    store: MemoryStore,
    scope: ScopeLike,
    *,
    now: datetime | None = None,
    max_age: timedelta | None = None,
    max_count: int | None = None,
) -> list[Decision]:
    """Archive the scope's episodes older than ``max_age`` (at ``now``) and those
    beyond the newest ``max_count``; returns the logged decisions, oldest episode
    first. Runs under the scope's lock, so two passes never archive one twice.

    Cost: one indexed read for the age, one read of the episodes' ids for the
    count, and a read of every episode only when there are more than ``max_count``.
    """
    stores.check_store(store)
    scope = Scope.of(scope)
    check_limits(max_age, max_count)
    when = utc(now, "now") if now is not None else now_utc()
    mark = {EPISODE: True}
    done: list[Decision] = []
    with stores.internals(store).scope_lock(scope):
        if max_age is not None:
            cutoff = when - max_age
            old = stores.internals(store).find(scope, metadata=mark, created_before=cutoff)
            old = [m for m in old if m.last_said < cutoff]  # words said again are as new as then
            reason = f"retention: older than {_duration(max_age)} (max_age)"
            done += archive_logged(store, scope, old, reason=reason, now=when)
        if max_count is not None and store.count(scope, metadata=mark) > max_count:
            kept = stores.internals(store).find(scope, metadata=mark)
            kept.sort(key=lambda m: (m.last_said, m.created_at, m.id))  # least recently said first
            excess = kept[: len(kept) - max_count]
            reason = f"retention: beyond the newest {max_count} episodes (max_count)"
            done += archive_logged(store, scope, excess, reason=reason, now=when)
    return done


def archive_logged(
    store: MemoryStore,
    scope: ScopeLike,
    memories: Sequence[Memory],
    *,
    reason: str | Callable[[Memory], str],
    now: datetime | None = None,
    turn_id: str | None = None,
) -> list[Decision]:
    """Archive ``memories`` (active ones of ``scope``) in one batch and log why:
    one ``DELETE`` decision per memory, ``reason`` as its ``note`` (a function
    gives each memory its own), with ``turn_id`` when a job marks its decisions.
    Returns the logged decisions. Nothing is deleted: ``history`` keeps every version.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "User liked jazz in 2019.")
    >>> [d.note for d in archive_logged(s, "user:a", [m], reason="decay: unused for 3 years")]
    ['decay: unused for 3 years']
    >>> s.active("user:a"), s.decisions("user:a", m.id)[0].target_id == m.id
    ([], True)
    """
    stores.check_store(store)
    if isinstance(memories, Memory) or not all(isinstance(m, Memory) for m in memories):
        raise InvalidTypeError(
            f"memories must be a list of Memory (e.g. from store.active(scope)), got {memories!r}"
        )
    if not (isinstance(reason, str) or callable(reason)):
        raise InvalidTypeError(
            f"reason must be a str or a function of the memory, got {type(reason).__name__}"
        )
    if not memories:
        return []
    when = utc(now, "now") if now is not None else now_utc()
    # Before the archive: a reason function that fails leaves every memory active.
    notes = [reason(m) if callable(reason) else reason for m in memories]
    archived = store.archive_many(scope, [m.id for m in memories], now=when)
    decisions = [
        archive_decision(closed, note, turn_id=turn_id)
        for note, closed in zip(notes, archived, strict=True)
    ]
    return stores.internals(store).log(scope, decisions, now=when)


def archive_decision(memory: Memory, reason: str, *, turn_id: str | None = None) -> Decision:
    """The ``DELETE`` decision that says why ``memory`` is archived (unlogged: what
    ``archive_logged`` logs, and what a dry run shows).

    >>> from datetime import timezone
    >>> m = Memory(id="0a1b2c3d", text="Likes jazz.", scope="user:a",
    ...            created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    >>> d = archive_decision(m, "decay: unused")
    >>> d.op.value, d.target_id, d.note
    ('DELETE', '0a1b2c3d', 'decay: unused')
    """
    return Decision(
        op=DecisionOp.DELETE,
        fact=_clip(memory.text),
        target_id=memory.id,
        note=reason,
        turn_id=turn_id,
    )


def _clip(text: str) -> str:
    return text if len(text) <= FACT_CHARS else text[: FACT_CHARS - 1].rstrip() + "…"


def _duration(span: timedelta) -> str:
    """A retention span as people say it: whole days in days, else as Python writes it.

    >>> _duration(timedelta(days=365)), _duration(timedelta(days=1)), _duration(timedelta(hours=36))
    ('365 days', '1 day', '1 day, 12:00:00')
    """
    if span % timedelta(days=1):
        return str(span)
    return "1 day" if span.days == 1 else f"{span.days} days"
