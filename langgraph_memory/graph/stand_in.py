"""An offline stand-in for the agent's chat model, for the demo and tests.

It cannot think: it says "Noted." to statements and answers questions by
quoting the remembered line that shares the most words with the question (the
read node put the memories in its system prompt), or says it does not know.
It is there so the demo shows memory at work with no model and no network.

>>> from langchain_core.messages import HumanMessage, SystemMessage
>>> chat = StandInChatModel()
>>> memories = 'What you remember about this user:\\n- [2026-06-01] "User lives in Pune."'
>>> chat.invoke([SystemMessage(memories), HumanMessage("Where do I live?")]).content
'From what I remember: you live in Pune.'
>>> chat.invoke([SystemMessage(memories), HumanMessage("What's my favourite colour?")]).content
"I don't know that yet. Tell me, and I'll remember."
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable

from langgraph_memory.graph.turns import message_text
from langgraph_memory.text import spoken_words

_STOP = frozenset(
    """a an and are at be do does did for from have has i in is it me my now of on or the to
    what where when which who why how you your user user's with about was were will would""".split()  # noqa: SIM905
)
_QUESTION = re.compile(
    r"\?\s*$|^(what|where|when|who|which|how|why|do|does|did|is|are|can)\b", re.I
)
#: A memory's line, and the lines under it: the words said that a fact came from.
_LINE = re.compile(r"^\s*- \[[^\]]*\] (.+)$", re.M)
#: A line of words said: who said them (marked earlier, said several times), then the words.
_SAID = re.compile(r'^(?:earlier, )?(?:"[^"]*"|\w+) said(?: \([^)]*\))?: (".*")$')


def _words(text: str) -> set[str]:
    # A crude stem ("lives" ~ "live") is enough to match a question to a memory.
    words = (w for w in spoken_words(text.lower()) if w not in _STOP)
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words}


def _unquoted(line: str) -> str:
    # The read node quotes each memory as a JSON string (see ``read.render``).
    if line.startswith('"'):
        try:
            text = json.loads(line)
        except ValueError:
            return line
        return text if isinstance(text, str) else line
    return line


def _remembered(line: str) -> tuple[str, bool]:
    """A memory line's text, and whether it is words said (``... said: "..."``)."""
    said = _SAID.match(line)
    if said is None:
        return _unquoted(line), False
    return _unquoted(said.group(1)), True


def _answers(system: str) -> list[str]:
    """What the memories in the prompt could answer with, as the reply says them: facts
    in the second person, words said quoted; never a question asked before (quoting
    it back answers nothing)."""
    found = []
    for line in _LINE.findall(system):
        text, said = _remembered(line)
        if _QUESTION.search(text.strip()):
            continue
        found.append(f'you said "{text}"' if said else _second_person(text))
    return found


def _second_person(text: str) -> str:
    text = re.sub(r"\bUser's\b", "your", text)
    text = re.sub(r"\bUser is\b", "you are", text)
    text = re.sub(r"\bUser (\w+)s\b", r"you \1", text)
    return text[:1].lower() + text[1:]


class StandInChatModel(BaseChatModel):
    """Replies from the memories in its prompt; no model, no network."""

    @property
    def _llm_type(self) -> str:
        return "offline-memory-echo"

    def bind_tools(  # type: ignore[override]  # it never calls tools
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[Any, BaseMessage]:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # A system prompt of content blocks (deepagents leaves one) is read line by line too.
        system = " ".join(message_text(m, sep="\n") for m in messages if m.type == "system")
        asked = next((message_text(m) for m in reversed(messages) if m.type == "human"), "")
        reply = "Noted."
        if _QUESTION.search(asked.strip()):
            wanted = _words(asked)
            lines = _answers(system)
            best = max(lines, key=lambda line: len(wanted & _words(line)), default=None)
            if best is not None and wanted & _words(best):
                reply = f"From what I remember: {best}"
            else:
                reply = "I don't know that yet. Tell me, and I'll remember."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])
