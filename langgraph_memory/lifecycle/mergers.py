"""What merges near-duplicate memories: any LangChain chat model behind the consolidation
prompt (``ChatMerger``), or the offline rules (``RulesMerger``).

A ``Merger`` gets a cluster of similar memories, in order, and proposes merges naming
their members by position; ``lifecycle.consolidate`` checks what it proposes and
applies it. ``merger`` picks one for what a caller passes, as the write path picks
its model.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory
>>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> cluster = [Memory(id=f"m{i}", text=text, scope="user:a", created_at=t) for i, text in
...            enumerate(["User is vegan.", "User lives in Pune.", "The user is vegan"])]
>>> [(m.members, m.text) for m in RulesMerger().merge(cluster, today=t).merges]
[([0, 2], 'The user is vegan')]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from langgraph_memory.lifecycle.chat import chat_for
from langgraph_memory.lifecycle.prompts import consolidate as prompt
from langgraph_memory.lifecycle.prompts.consolidate import ProposedMerge
from langgraph_memory.records import Memory
from langgraph_memory.text import words
from langgraph_memory.write.chat_model import render_memories
from langgraph_memory.write.structured import ask
from langgraph_memory.write.types import MemoryModel

__all__ = ["ChatMerger", "MergePlan", "Merger", "RulesMerger", "merger", "normalised"]

#: Words the rules ignore when they compare two texts.
ARTICLES = frozenset({"a", "an", "the"})


@dataclass(frozen=True)
class MergePlan:
    """What a merger proposed for one cluster, unchecked, and its raw output (for the
    log). ``parsed`` is False when the answer could not be read at all."""

    merges: tuple[ProposedMerge, ...]
    raw: str
    parsed: bool = True


@runtime_checkable
class Merger(Protocol):
    """Anything that proposes merges of similar memories shown as [0], [1] ..."""

    name: str

    def merge(self, cluster: Sequence[Memory], *, today: datetime) -> MergePlan:
        """Groups of positions in ``cluster`` that state one fact, each with its text."""
        ...


class ChatMerger:
    """The consolidation prompt on a LangChain chat model (structured output where it
    has it, else JSON read from its text: ``write.structured.ask``). One call per cluster.

    >>> from datetime import datetime, timezone
    >>> from langgraph_memory.testing import ScriptedChatModel
    >>> chat = ScriptedChatModel(script=[{"merges": [{"members": [0, 1],
    ...                                               "text": "User is vegan."}]}])
    >>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
    >>> pair = [Memory(id=f"m{i}", text="User is vegan.", scope="user:a", created_at=t)
    ...         for i in range(2)]
    >>> ChatMerger(chat).merge(pair, today=t).merges[0].members
    [0, 1]
    """

    def __init__(self, chat: BaseChatModel, system: str = prompt.SYSTEM) -> None:
        self.chat = chat
        self.system = system
        self.name = f"chat:{getattr(chat, 'model_name', None) or type(chat).__name__}"

    def merge(self, cluster: Sequence[Memory], *, today: datetime) -> MergePlan:
        """Ask the model; an exception from it (a time-out ...) propagates."""
        system = self.system.format(today=today.date().isoformat())
        human = prompt.HUMAN.format(memories=render_memories(cluster))
        parsed, raw = ask(
            self.chat, [SystemMessage(system), HumanMessage(human)], prompt.ConsolidationOutput
        )
        if parsed is None:
            return MergePlan((), raw, parsed=False)
        return MergePlan(tuple(parsed.merges), raw)


def normalised(text: str) -> str:
    """``text`` as the rules compare it: case-folded words, no punctuation, no articles.

    >>> normalised("The user is  vegan!") == normalised("User is vegan.")
    True
    """
    return " ".join(w for w in words(text.casefold()) if w not in ARTICLES)


class RulesMerger:
    """Deterministic, no model: merges the memories of a cluster whose texts are the
    same once ``normalised`` (case, punctuation, articles, spacing), keeping the
    longest text (the newest among equals). Anything else stays apart: telling a
    paraphrase from a change of value takes a model."""

    name = "rules"

    def merge(self, cluster: Sequence[Memory], *, today: datetime) -> MergePlan:
        """The groups of same-text members (``today`` unused)."""
        groups: dict[str, list[int]] = {}
        for i, memory in enumerate(cluster):
            groups.setdefault(normalised(memory.text), []).append(i)
        merges = []
        for members in groups.values():
            if len(members) > 1:
                kept = max(members, key=lambda i: (len(cluster[i].text), cluster[i].created_at))
                merges.append(ProposedMerge(members=members, text=cluster[kept].text))
        raw = json.dumps(
            {"model": "rules", "merges": [m.model_dump() for m in merges]}, ensure_ascii=False
        )
        return MergePlan(tuple(merges), raw)


def merger(model: Merger | MemoryModel | BaseChatModel | str | None = None) -> Merger:
    """The ``Merger`` for ``model``: a Merger as is; the offline ``RulesModel`` as
    ``RulesMerger``; a chat model (an instance, a ``"provider:model"`` string, a
    ``ChatMemoryModel``, or None for the environment's) behind the prompt; with
    nothing configured, the offline rules (with the write path's warning).

    >>> from langgraph_memory.write import RulesModel
    >>> merger(RulesModel()).name
    'rules'
    """
    if isinstance(model, Merger):
        return model
    instead = "an object with a merge() method (a lifecycle Merger)"
    chat = chat_for(model, job="consolidate", instead=instead)
    return RulesMerger() if chat is None else ChatMerger(chat)
