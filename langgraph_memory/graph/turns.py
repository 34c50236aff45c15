"""Reading a turn out of graph state: the last user message and what followed.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> msgs = [HumanMessage("hi"), AIMessage("hello")]
>>> msgs += [HumanMessage("I live in Pune."), AIMessage("Noted!")]
>>> [m.content for m in last_turn(msgs)]
['I live in Pune.', 'Noted!']
>>> last_user_text(msgs)
'I live in Pune.'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage


def messages_of(state: Any) -> list[BaseMessage]:
    """The ``messages`` of a graph state (a dict or an object)."""
    found = (
        state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    )
    if found is None:
        raise KeyError(
            "the graph state has no 'messages': memory nodes read the conversation from "
            "state['messages'] (use MessagesState or MemoryState)"
        )
    return list(found)


def _is_user(message: BaseMessage) -> bool:
    return message.type == "human"


def last_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The last human message and everything after it (tool calls and results included)."""
    for i in range(len(messages) - 1, -1, -1):
        if _is_user(messages[i]):
            return list(messages[i:])
    return []


def last_user_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message, or '' when there is none."""
    for message in reversed(messages):
        if _is_user(message):
            content = message.content
            if isinstance(content, str):
                return content
            return " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return ""
