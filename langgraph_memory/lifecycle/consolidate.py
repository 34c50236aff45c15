"""Consolidation: near-duplicate facts merged into one memory, the originals archived.

``consolidate`` clusters the scope's active facts whose stored vectors have a cosine
of ``threshold`` or more (the same kind and trust only: a merge never raises a
memory's trust; episodes are evidence and stay as they are; reflections rest on the
memories they name, and ``reflect`` refuses a conclusion that repeats one held), shows
each cluster to a ``Merger`` (see ``lifecycle.mergers``: a chat model behind the
consolidation prompt, or the offline rules, which merge texts that are the same once
normalised) and applies each merge it can check, never overwriting:

- ``store.update`` on the group's oldest member: a new version with the merged
  text, the highest importance, pinned if any was, the metadata of all (the oldest's
  first; ``safety`` kept), and in ``sources`` the originals' ids with every episode
  they cited; its ``last_accessed`` is the members' latest, so a merge does not
  reset decay. One logged ``UPDATE`` decision (what was shown, the raw answer);
- the other members archived, each with a logged ``DELETE`` decision naming the
  merged memory (``write.retention.archive_logged``);
- a cluster whose members the merger kept apart (some or all) gets one logged
  ``NOOP`` decision listing what remains of it; a later run skips a cluster that
  such a decision covers, so a second run right after changes nothing and asks no
  model. A cluster that gains a member is shown again.

Every decision has ``turn_id`` ``CONSOLIDATION``. The model is asked outside the
scope's lock (writes go on meanwhile); a merge is applied under it only if all its
members are still active.

>>> import tempfile
>>> from datetime import datetime, timezone
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.write import RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> a, b = store.add_many("user:a", ["User is vegan.", "User is vegan."], now=t)
>>> [(d.op.value, d.note) for d in consolidate(store, "user:a", RulesModel(), now=t)]
... # doctest: +NORMALIZE_WHITESPACE
[('UPDATE', 'consolidation by rules: 2 near-duplicates merged into one'),
 ('DELETE', 'consolidation: merged into ...')]
>>> [merged] = store.active("user:a")
>>> merged.text, sorted(merged.sources) == sorted([a.id, b.id])
('User is vegan.', True)
>>> consolidate(store, "user:a", RulesModel(), now=t)
[]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel

from langgraph_memory import telemetry
from langgraph_memory.checks import check_ids
from langgraph_memory.errors import InvalidArgumentError, InvalidMemoryError
from langgraph_memory.lifecycle.decay import SAFETY
from langgraph_memory.lifecycle.mergers import MergePlan, Merger, merger
from langgraph_memory.lifecycle.prompts.consolidate import ProposedMerge
from langgraph_memory.records import (
    SAID_IN,
    Decision,
    DecisionOp,
    Kind,
    Memory,
    Scalar,
    Status,
    check_text,
    now_utc,
    utc,
)
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import MemoryStore, check_store, internals
from langgraph_memory.write.reconcile import decision_attributes
from langgraph_memory.write.retention import archive_decision, archive_logged
from langgraph_memory.write.types import MemoryModel

__all__ = ["CONSOLIDATION", "MAX_CLUSTER", "THRESHOLD", "consolidate", "near_duplicates"]

#: Cosine of two stored vectors from which two facts may be the same fact.
THRESHOLD = 0.9
#: Most memories shown to the model at once; a larger cluster is shown in parts.
MAX_CLUSTER = 20
#: The ``turn_id`` of every decision consolidation logs.
CONSOLIDATION = "consolidation"
#: Rows of the similarity matrix computed at once (bounds the memory it takes).
BLOCK = 512

ModelLike = Merger | MemoryModel | BaseChatModel | str | None


def near_duplicates(
    memories: Sequence[Memory],
    vectors: dict[str, list[float]],
    threshold: float = THRESHOLD,
    *,
    max_cluster: int = MAX_CLUSTER,
) -> list[list[Memory]]:
    """Clusters of ``memories`` linked by a cosine of ``threshold`` or more between
    their ``vectors`` (by id; a memory without one is left out), within one kind and
    trust; each oldest first, cut into parts of at most ``max_cluster``.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> ms = [Memory(id=f"m{i}", text=str(i), scope="user:a", created_at=t) for i in range(3)]
    >>> vs = {"m0": [1.0, 0.0], "m1": [0.99, 0.1], "m2": [0.0, 1.0]}
    >>> [[m.id for m in c] for c in near_duplicates(ms, vs, 0.9)]
    [['m0', 'm1']]
    """
    groups: dict[tuple[str, str], list[Memory]] = {}
    for m in memories:
        if m.id in vectors:
            groups.setdefault((m.kind.value, m.trust.value), []).append(m)
    clusters: list[list[Memory]] = []
    for members in groups.values():
        for component in _components(np.asarray([vectors[m.id] for m in members]), threshold):
            ordered = sorted((members[i] for i in component), key=_oldest_first)
            clusters += [ordered[i : i + max_cluster] for i in range(0, len(ordered), max_cluster)]
    return [c for c in clusters if len(c) > 1]


def _oldest_first(memory: Memory) -> tuple[datetime, str, str]:
    """Oldest first; memories made at one moment (one ``add_many``) by their text, not
    by their random ids, so which one a merge updates is the same on every run."""
    return (memory.created_at, memory.text, memory.id)


def _components(vectors: Any, threshold: float) -> list[list[int]]:
    """Connected components of the graph linking rows with a cosine >= threshold."""
    n = len(vectors)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1.0, norms)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for start in range(0, n, BLOCK):
        similar = unit[start : start + BLOCK] @ unit.T >= threshold
        for a, b in zip(*np.nonzero(similar), strict=True):
            i, j = root(start + int(a)), root(int(b))
            if i != j:
                parent[max(i, j)] = min(i, j)
    found: dict[int, list[int]] = {}
    for i in range(n):
        found.setdefault(root(i), []).append(i)
    return [c for c in found.values() if len(c) > 1]


@telemetry.spanned(  # a span with OpenTelemetry: the decisions it logged
    "memory.consolidate",
    telemetry.StepSpec(operation=telemetry.UPDATE_MEMORY, result=decision_attributes),
)
def consolidate(
    store: MemoryStore,
    scope: ScopeLike,
    model: ModelLike = None,
    *,
    now: datetime | None = None,
    threshold: float = THRESHOLD,
    dry_run: bool = False,
    max_cluster: int = MAX_CLUSTER,
    exclude: Collection[str] = (),
) -> list[Decision]:
    """Merge the scope's near-duplicate facts (see the module docstring); returns the
    logged decisions, cluster by cluster.

    ``model``: a LangChain chat model (or ``"provider:model"``, or None for the
    environment's), the offline ``RulesModel``, or a ``Merger``. One model call per
    cluster not judged before; none with the rules. With ``dry_run`` the merger is
    asked but nothing changes: the decisions come back unlogged (no ``id``; an
    ``UPDATE`` without ``result_id``). An exception from the model propagates;
    what was merged before it stays merged. ``exclude``: ids to leave out (what an
    earlier step of a dry run would have archived).
    """
    check_store(store)
    scope = Scope.of(scope)
    when = utc(now, "now") if now is not None else now_utc()
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise InvalidArgumentError(f"threshold must be a cosine in (0, 1], got {threshold!r}")
    if not 0 < threshold <= 1:
        raise InvalidArgumentError(f"threshold must be a cosine in (0, 1], got {threshold!r}")
    if isinstance(max_cluster, bool) or not isinstance(max_cluster, int) or max_cluster < 2:
        raise InvalidArgumentError(f"max_cluster must be an int >= 2, got {max_cluster!r}")
    exclude = set(check_ids(exclude, "exclude"))
    chosen = merger(model)
    internals(store).flush_access(scope)  # a merge keeps the members' latest use
    facts = [
        m
        for m in store.active(scope, episodes=False)
        if m.kind is not Kind.REFLECTION and m.id not in exclude
    ]
    vectors = internals(store).vectors(scope, [m.id for m in facts])
    judged = _judged(store, scope)
    decisions: list[Decision] = []
    for cluster in near_duplicates(facts, vectors, threshold, max_cluster=max_cluster):
        if any({m.id for m in cluster} <= seen for seen in judged):
            continue
        plan = chosen.merge(cluster, today=when)
        with internals(store).scope_lock(scope):
            decisions += _apply(store, scope, cluster, plan, chosen.name, when, dry_run)
    return decisions


def _judged(store: MemoryStore, scope: Scope) -> list[set[str]]:
    """The id sets earlier runs kept apart (their ``NOOP`` decisions)."""
    return [
        set(d.shown_ids)
        for d in store.decisions(scope, turn_id=CONSOLIDATION)
        if d.op is DecisionOp.NOOP and d.status is Status.APPLIED
    ]


def _apply(
    store: MemoryStore,
    scope: Scope,
    cluster: list[Memory],
    plan: MergePlan,
    merged_by: str,
    when: datetime,
    dry_run: bool,
) -> list[Decision]:
    """Check and apply one cluster's plan; the decisions, logged unless ``dry_run``."""
    base = Decision(
        op=DecisionOp.NOOP,
        fact=f"consolidation of {len(cluster)} similar memories",
        shown_ids=tuple(m.id for m in cluster),
        shown_texts=tuple(m.text for m in cluster),
        raw=plan.raw,
        turn_id=CONSOLIDATION,
    )
    if not plan.parsed:
        failed = base.with_(
            status=Status.FAILED, error="the model's answer could not be read as merges"
        )
        return [failed] if dry_run else internals(store).log(scope, failed, now=when)
    groups, dropped = _checked(plan.merges, cluster)
    active = set(internals(store).vectors(scope, [m.id for m in cluster])) if not dry_run else None
    decisions: list[Decision] = []
    remaining = list(cluster)
    changed = False
    for members, text in groups:
        if active is not None and not all(m.id in active for m in members):
            dropped.append(f"merge of {[m.id for m in members]}: a member changed meanwhile")
            changed = True
            continue
        note = f"consolidation by {merged_by}: {len(members)} near-duplicates merged into one"
        update = base.with_(
            op=DecisionOp.UPDATE, fact=text, text=text, target_id=members[0].id, note=note
        )
        rest = members[1:]
        if dry_run:
            reason = f"consolidation: merged into the new version of {members[0].id}"
            decisions += [
                update,
                *(archive_decision(m, reason, turn_id=CONSOLIDATION) for m in rest),
            ]
            merged = members[0]
        else:
            merged = _merge(store, scope, members, text, when)
            decisions += internals(store).log(scope, update.with_(result_id=merged.id), now=when)
            decisions += archive_logged(
                store,
                scope,
                rest,
                reason=f"consolidation: merged into {merged.id}",
                now=when,
                turn_id=CONSOLIDATION,
            )
        remaining = [m for m in remaining if m not in members] + [merged]
    if len(remaining) > 1 or dropped:
        # What remains of the cluster, so that a later run knows it was judged.
        kept = base.with_(
            fact=f"consolidation: {len(remaining)} similar memories kept apart",
            note="; ".join([f"consolidation by {merged_by}: kept apart", *dropped]),
            shown_ids=tuple(m.id for m in remaining),
            shown_texts=tuple(m.text for m in remaining),
        )
        if changed:  # not a judgement: what is left is shown again next run
            kept = kept.with_(status=Status.FAILED, error="a member changed while the model ran")
        decisions += [kept] if dry_run else internals(store).log(scope, kept, now=when)
    return decisions


def _checked(
    merges: Sequence[ProposedMerge], cluster: list[Memory]
) -> tuple[list[tuple[list[Memory], str]], list[str]]:
    """The merges that check out (two or more members shown, none in two merges, a
    valid text), oldest member first; and why each other one was dropped."""
    groups: list[tuple[list[Memory], str]] = []
    dropped: list[str] = []
    used: set[int] = set()
    for n, proposal in enumerate(merges):
        members = sorted({i for i in proposal.members if 0 <= i < len(cluster)} - used)
        if len(members) < 2:
            dropped.append(f"merge {n}: fewer than two memories shown ({proposal.members})")
            continue
        try:
            text = check_text(proposal.text)
        except InvalidMemoryError as exc:
            dropped.append(f"merge {n}: unusable text ({exc})")
            continue
        used.update(members)
        groups.append(([cluster[i] for i in members], text))
    return groups, dropped


def _merge(
    store: MemoryStore, scope: Scope, members: list[Memory], text: str, when: datetime
) -> Memory:
    """The new version of ``members[0]`` that stands for them all."""
    metadata: dict[str, Scalar] = {}
    for m in reversed(members):  # the oldest member's values win
        metadata.update(m.metadata)
    if any(m.metadata.get(SAFETY) is True for m in members):
        metadata[SAFETY] = True
    # It states what each member stated: their turns are its own, not earlier ones.
    metadata[SAID_IN] = ",".join(dict.fromkeys(e for m in members for e in m.said_in))
    sources = [m.id for m in members] + [s for m in members for s in m.sources]
    merged = store.update(
        scope,
        members[0].id,
        text,
        now=when,
        importance=max(m.importance for m in members),
        pinned=any(m.pinned for m in members),
        sources=list(dict.fromkeys(sources)),
        metadata=metadata,
    )
    # Merging is not using: the merged memory decays from its members' latest use.
    used = max(m.last_accessed or m.created_at for m in members)
    internals(store).touch(scope, [merged.id], now=used)
    return replace(merged, last_accessed=used)
