"""Reading a turn out of graph state: the last user message and what followed.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> msgs = [HumanMessage("hi"), AIMessage("hello")]
>>> msgs += [HumanMessage("I live in Pune.", id="m3"), AIMessage("Noted!")]
>>> turn = last_turn(msgs)
>>> [m.content for m in turn.messages], turn.id
(['I live in Pune.', 'Noted!'], 'm3')
>>> last_user_text(msgs)
'I live in Pune.'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage

from langgraph_memory.errors import MissingStateKeyError
from langgraph_memory.write.types import Turn


def messages_of(state: Any) -> list[BaseMessage]:
    """The ``messages`` of a graph state (a dict or an object)."""
    found = (
        state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    )
    if found is None:
        raise MissingStateKeyError(
            "the graph state has no 'messages': memory nodes read the conversation from "
            "state['messages'] (use MessagesState or MemoryState)"
        )
    return list(found)


def _is_user(message: BaseMessage) -> bool:
    return message.type == "human"


def last_turn(
    messages: Sequence[BaseMessage],
    *,
    when: datetime | None = None,
    thread_id: str | None = None,
) -> Turn | None:
    """The last human message and everything after it (tool calls and results
    included) as the write path's ``Turn``, or None when there is no human message.

    The human message's id is the turn's id, so a replayed turn is recognised;
    ``when`` (default: the clock) is the turn's time; ``thread_id`` the
    conversation's (the graph's ``configurable.thread_id``).
    """
    for i in range(len(messages) - 1, -1, -1):
        if _is_user(messages[i]):
            turn_id = messages[i].id or None
            return Turn.of(messages[i:], when=when, turn_id=turn_id, thread_id=thread_id)
    return None


def last_user_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message, or '' when there is none."""
    for message in reversed(messages):
        if _is_user(message):
            return message_text(message)
    return ""


def message_text(message: BaseMessage, sep: str = " ") -> str:
    """A message's text: its string, or its parts' texts joined by ``sep`` (a message
    of content blocks, as multimodal input or deepagents' system prompt is).

    >>> from langchain_core.messages import SystemMessage
    >>> message_text(SystemMessage([{"type": "text", "text": "a"}, "b"]), sep="\\n")
    'a\\nb'
    """
    content = message.content
    if isinstance(content, str):
        return content
    return sep.join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
