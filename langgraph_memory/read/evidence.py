"""What a read shows as one item: a fact with the words that said it, and what is outdated.

An episode is the evidence of the facts taken from it, and follows them:

- an episode whose fact is open is shown with that fact, as what said it, and takes
  no place of its own: the two are one item, which ranks where the better of them does;
- an episode whose facts were all replaced (its words are carried by a later version
  that another turn said: ``Memory.said_in``) is outdated evidence: shown under the
  current fact that replaced it, marked earlier, never above it;
- an episode whose fact was deleted with nothing in its place (``Memory.retracted``) is
  shown on its own, marked earlier;
- any other episode (words no fact was taken from, or said again after the fact that
  replaced them) is shown on its own, as what was said.

The same words said twice (episodes stored before the write path kept one record per
saying) are one item.

>>> from datetime import datetime, timezone
>>> t = datetime(2026, 3, 1, tzinfo=timezone.utc)
>>> def said(i, text, day):
...     return Memory(id=i, text=text, scope="user:a", created_at=t.replace(day=day),
...                   kind="episodic", metadata={"episode": True})
>>> berlin, madrid = said("e1", "I live in Berlin.", 1), said("e2", "I live in Madrid now.", 2)
>>> fact = Memory(id="f2", text="User lives in Madrid.", scope="user:a",
...               created_at=t.replace(day=2), replaces="f1", sources=("e1", "e2"),
...               metadata={"said_in": "e2"})
>>> [(g.head.id, [m.id for m in g.said], [m.id for m in g.earlier])
...  for g in group([berlin, madrid, fact], {fact.id: fact}, citing_of([fact]))]
[('f2', ['e2'], ['e1'])]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from langgraph_memory.records import SAID, Memory
from langgraph_memory.text import said_digest

__all__ = ["MAX_EARLIER", "MAX_SAID", "Group", "citing_of", "group"]

#: Episodes shown with a fact, at most: those that said it, and earlier ones it replaced
#: (the best ranked first; the others are still part of the item, unshown).
MAX_SAID = 2
MAX_EARLIER = 1


@dataclass
class Group:
    """One item of a read: ``head`` (a fact, or an episode shown on its own), the
    episodes that said it (``said``) and the earlier ones it replaced (``earlier``)
    shown with it, and ``members``, the ids of every memory it stands for (those
    shown and those folded into it). ``outdated`` marks an episode shown on its own
    whose fact was deleted with nothing in its place."""

    head: Memory
    said: list[Memory] = field(default_factory=list)
    earlier: list[Memory] = field(default_factory=list)
    members: list[str] = field(default_factory=list)
    outdated: bool = False


def citing_of(memories: Iterable[Memory]) -> dict[str, tuple[str, ...]]:
    """For each id the ``sources`` of ``memories`` name, the memories that name it
    (what ``Internals.citing`` reads from the store's index, from memories in hand).

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> citing_of([Memory(id="f1", text="x", scope="user:a", created_at=t, sources=("e1",))])
    {'e1': ('f1',)}
    """
    found: dict[str, list[str]] = {}
    for m in memories:
        for source in m.sources:
            found.setdefault(source, []).append(m.id)
    return {i: tuple(by) for i, by in found.items()}


def group(
    ranked: Sequence[Memory],
    facts: Mapping[str, Memory],
    citing: Mapping[str, Sequence[str]],
) -> list[Group]:
    """The items that ``ranked`` (memories, best first) make, best first: each item is
    placed where its best-ranked member is.

    ``facts`` holds the facts an episode may follow (those ``citing`` names for it,
    ranked or not; the current ones: active, or valid at the time a read looks back
    to), by id; ``citing`` maps an episode's id to the memories whose ``sources`` name it.
    """
    place = {m.id: n for n, m in enumerate(ranked)}
    groups: dict[str, Group] = {}
    said_before: dict[str, str] = {}  # words of a lone episode -> its item
    for memory in ranked:
        if not memory.is_episode:
            _join(groups, memory).members.append(memory.id)
            continue
        cited = [facts[i] for i in citing.get(memory.id, ()) if i in facts]
        cited = [f for f in cited if not f.is_episode]
        own = [f for f in cited if memory.id in f.said_in]
        # Its words are carried by a version another turn said, made after it was said.
        later = [f for f in cited if f not in own and memory.last_said <= f.created_at]
        if own:
            item = _join(groups, _first(own, place, groups))
            if len(item.said) < MAX_SAID:
                item.said.append(memory)
        elif later:
            item = _join(groups, _first(later, place, groups))
            if len(item.earlier) < MAX_EARLIER:
                item.earlier.append(memory)
        else:
            words = _said(memory)
            if words in said_before:
                item = groups[said_before[words]]
            else:
                said_before[words] = memory.id
                item = _join(groups, memory)
                item.outdated = memory.retracted
        item.members.append(memory.id)
    return list(groups.values())


def _said(episode: Memory) -> str:
    """The key of an episode's words: the one the write path stored, or (an episode
    stored before keys were) the same key made from its text."""
    key = episode.metadata.get(SAID)
    if isinstance(key, str):
        return key
    speaker = episode.metadata.get("speaker")
    named = speaker if isinstance(speaker, str) else ""
    return said_digest(episode.text, episode.source.value, named)


def _join(groups: dict[str, Group], head: Memory) -> Group:
    """The item of ``head``, made now (after every item made before) if it has none."""
    item = groups.get(head.id)
    if item is None:
        item = groups[head.id] = Group(head)
    return item


def _first(facts: list[Memory], place: Mapping[str, int], groups: Mapping[str, Group]) -> Memory:
    """Of the facts an episode follows: one that is an item already, else the best
    ranked, else the newest."""
    items = list(groups)  # in the order they were made: best first
    made = [f for f in facts if f.id in groups]
    if made:
        return min(made, key=lambda f: items.index(f.id))
    ranked = [f for f in facts if f.id in place]
    if ranked:
        return min(ranked, key=lambda f: place[f.id])
    return max(facts, key=lambda f: (f.created_at, f.id))
