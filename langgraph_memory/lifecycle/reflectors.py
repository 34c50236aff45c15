"""What draws conclusions from memories: any LangChain chat model behind the
reflection prompt (``ChatReflector``), or the offline rules (``RulesReflector``).

A ``Reflector`` gets the memories shown to it, in order, and proposes conclusions
citing them by their position; ``lifecycle.reflect`` checks what it proposes.
``reflector`` picks one for what a caller passes, as the write path picks its model.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.records import Memory
>>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> shown = [Memory(id=f"m{i}", text=text, scope="user:a", created_at=t) for i, text in
...          enumerate(["User is vegetarian.", "User lives in Pune.", "User is allergic to nuts."])]
>>> [(c.text, c.sources) for c in RulesReflector().conclude(shown, today=t, limit=3).conclusions]
[('User has dietary needs to keep in mind when suggesting food or restaurants.', [0, 2])]
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from langgraph_memory.lifecycle.chat import chat_for
from langgraph_memory.lifecycle.prompts import reflect as prompt
from langgraph_memory.lifecycle.prompts.reflect import ProposedConclusion
from langgraph_memory.records import Memory
from langgraph_memory.write.chat_model import render_memories
from langgraph_memory.write.rules.slots import slot_of
from langgraph_memory.write.structured import ask
from langgraph_memory.write.types import MemoryModel

__all__ = ["ChatReflector", "Proposals", "Reflector", "RulesReflector", "reflector"]


@dataclass(frozen=True)
class Proposals:
    """What a reflector proposed, unchecked, and its raw output (for the log).
    ``parsed`` is False when the answer could not be read at all."""

    conclusions: tuple[ProposedConclusion, ...]
    raw: str
    parsed: bool = True


@runtime_checkable
class Reflector(Protocol):
    """Anything that proposes conclusions from memories shown as [0], [1] ..."""

    name: str

    def conclude(self, shown: Sequence[Memory], *, today: datetime, limit: int) -> Proposals:
        """At most ``limit`` conclusions, each citing positions in ``shown``."""
        ...


class ChatReflector:
    """The reflection prompt on a LangChain chat model (structured output where it
    has it, else JSON read from its text: ``write.structured.ask``).

    >>> from datetime import datetime, timezone
    >>> from langgraph_memory.testing import ScriptedChatModel
    >>> chat = ScriptedChatModel(script=[{"conclusions": [{"text": "User eats out.",
    ...                                                      "sources": [0]}]}])
    >>> t = datetime(2026, 3, 2, tzinfo=timezone.utc)
    >>> m = Memory(id="m0", text="User dines out weekly.", scope="user:a", created_at=t)
    >>> ChatReflector(chat).conclude([m], today=t, limit=3).conclusions[0].sources
    [0]
    """

    def __init__(self, chat: BaseChatModel, system: str = prompt.SYSTEM) -> None:
        self.chat = chat
        self.system = system
        self.name = f"chat:{getattr(chat, 'model_name', None) or type(chat).__name__}"

    def conclude(self, shown: Sequence[Memory], *, today: datetime, limit: int) -> Proposals:
        """Ask the model; an exception from it (a time-out ...) propagates."""
        system = self.system.format(today=today.date().isoformat(), limit=limit)
        human = prompt.HUMAN.format(memories=render_memories(shown))
        parsed, raw = ask(
            self.chat, [SystemMessage(system), HumanMessage(human)], prompt.ReflectionOutput
        )
        if parsed is None:
            return Proposals((), raw, parsed=False)
        return Proposals(tuple(parsed.conclusions), raw)


#: The offline rules' conclusions: a theme (slot families, see ``write.rules.slots``)
#: and what follows when at least ``MIN_SUPPORT`` memories shown fall under it.
THEMES: tuple[tuple[frozenset[str], str], ...] = (
    (
        frozenset({"diet", "allergy", "intolerance", "eats"}),
        "User has dietary needs to keep in mind when suggesting food or restaurants.",
    ),
    (
        frozenset({"pet"}),
        "User's pets are part of their daily life; plans and travel may need to account for them.",
    ),
)
MIN_SUPPORT = 2


def _family(text: str) -> str | None:
    slot = slot_of(text)
    return None if slot is None else re.split(r"[:.]", slot[0])[0]


class RulesReflector:
    """Deterministic, no model: a fixed conclusion for each theme that at least
    ``MIN_SUPPORT`` memories shown fall under (see ``THEMES``); nothing else. It
    understands what the offline rules model stores, and little more."""

    name = "rules"

    def conclude(self, shown: Sequence[Memory], *, today: datetime, limit: int) -> Proposals:
        """The themes' conclusions, citing the memories under each (``today`` unused)."""
        families = [_family(m.text) for m in shown]
        found = []
        for members, text in THEMES:
            cited = [i for i, family in enumerate(families) if family in members]
            if len(cited) >= MIN_SUPPORT:
                found.append(ProposedConclusion(text=text, sources=list(cited)))
        found = found[:limit]
        raw = json.dumps(
            {"model": "rules", "conclusions": [c.model_dump() for c in found]}, ensure_ascii=False
        )
        return Proposals(tuple(found), raw)


def reflector(model: Reflector | MemoryModel | BaseChatModel | str | None = None) -> Reflector:
    """The ``Reflector`` for ``model``: a Reflector as is; the offline ``RulesModel``
    as ``RulesReflector``; a chat model (an instance, a ``"provider:model"`` string,
    a ``ChatMemoryModel``, or None for the environment's) behind the prompt; with
    nothing configured, the offline rules (with the write path's warning).

    >>> from langgraph_memory.write import RulesModel
    >>> reflector(RulesModel()).name
    'rules'
    """
    if isinstance(model, Reflector):
        return model
    instead = "an object with a conclude() method (a lifecycle Reflector)"
    chat = chat_for(model, job="reflect", instead=instead)
    return RulesReflector() if chat is None else ChatReflector(chat)
