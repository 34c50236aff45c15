"""Reflections rest on other memories, and never outlive them.

A reflection (kind ``reflection``) is a conclusion drawn from other memories; it
names them in ``sources``. When a version it rests on closes (archived, or
replaced by an update) the conclusion may no longer hold: ``StoreCore.replace``
archives the reflection with it and logs why. When one is purged, the reflection
is purged with it (``purging``): a conclusion drawn from erased words keeps what
they said. Reflections resting on those reflections follow, in turn.

Chroma cannot match part of a metadata string (``sources`` is comma-joined), so
the scope's reflections are read, by kind, and matched here: one read per
collection, of reflections only.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Kind, Memory
>>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> r = Memory(id="r1", text="User cares about health.", scope="user:a", created_at=t,
...            kind=Kind.REFLECTION, sources=("f1", "f2"))
>>> [d.note for d in archive_decisions([Version(r, key="r1")], {"f2": "archived"})]
['reflection archived: memory f2, which it rests on, was archived']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from langgraph_memory.records import Decision, DecisionOp, Kind
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import VectorCollection, fetch
from langgraph_memory.store.version import Version

__all__ = ["REFLECTIONS", "archive_decisions", "resting_on"]

#: A Chroma ``where`` clause that finds reflections.
REFLECTIONS = {"kind": Kind.REFLECTION.value}


def resting_on(
    collections: Sequence[VectorCollection],
    scope: Scope,
    ids: Iterable[str],
) -> list[Version]:
    """The reflections in ``collections`` whose ``sources`` name any of ``ids``, and
    the reflections resting on those in turn; each once, none of ``ids`` itself."""
    gone = set(ids)
    if not gone:
        return []
    pool = [v for c in collections for v in fetch(c, scope, where=REFLECTIONS)]
    found: dict[str, Version] = {}
    frontier = gone
    while frontier:
        step = [
            v
            for v in pool
            if v.memory.id not in found
            and v.memory.id not in gone
            and frontier.intersection(v.memory.sources)
        ]
        found.update((v.memory.id, v) for v in step)
        frontier = {v.memory.id for v in step}
    return list(found.values())


def archive_decisions(resting: Sequence[Version], closed: Mapping[str, str]) -> list[Decision]:
    """One logged ``DELETE`` per reflection archived because what it rests on
    closed; ``closed`` maps each closed id to how it closed ("archived",
    "replaced by an update"). The note names the first source that closed, or the
    reflection it rests on that went first."""
    how = dict(closed)
    for v in resting:
        how.setdefault(v.memory.id, "archived with the memories it rests on")
    out = []
    for v in resting:
        cause = next((s for s in v.memory.sources if s in how), None)
        note = (
            f"reflection archived: memory {cause}, which it rests on, was {how[cause]}"
            if cause is not None
            else "reflection archived: a memory it rests on was closed"
        )
        out.append(
            Decision(op=DecisionOp.DELETE, fact=v.memory.text, target_id=v.memory.id, note=note)
        )
    return out
