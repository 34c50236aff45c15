"""A scripted chat model for tests and cost measurements: no network, no weights.

``ScriptedChatModel`` answers from a script, in order. Each entry is:

- a ``dict``: answered as a tool call when the model was bound to a tool
  (``bind_tools`` / ``with_structured_output``), else as JSON text;
- a ``str``: answered as plain text (malformed JSON included);
- an ``AIMessage``: returned as it is (to script tool calls of an agent);
- an ``Exception``: raised;
- a callable ``(messages) -> dict | str``: computed from the prompt.

It records every call and counts prompt tokens, so a test can assert how many
calls a turn cost.

>>> from pydantic import BaseModel
>>> class Answer(BaseModel):
...     op: str
>>> model = ScriptedChatModel(script=[{"op": "NOOP"}, '{"op": "ADD"}'])
>>> model.with_structured_output(Answer).invoke("hi").op
'NOOP'
>>> model.invoke("hi").content
'{"op": "ADD"}'
>>> model.calls
2
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from langgraph_memory.checks import check_query
from langgraph_memory.errors import ScriptExhaustedError

__all__ = ["ScriptedChatModel", "count_tokens"]

Answer = dict[str, Any] | str | Exception | Callable[[list[BaseMessage]], Any]


@functools.lru_cache(maxsize=1)
def _wordpiece() -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(
        files("langgraph_memory").joinpath("data/tokenizer.json").read_text(encoding="utf-8")
    )
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Tokens of ``text`` by the bundled WordPiece tokenizer (offline; on English
    it counts within about 15% of OpenAI's tokenizers, whose tables would have to
    be downloaded).

    >>> count_tokens("hello world")
    2
    """
    check_query(text, "text")  # the tokenizer's own TypeError names no text
    return len(_wordpiece().encode(text, add_special_tokens=False).ids)


class ScriptedChatModel(BaseChatModel):
    """A chat model that plays a script (see the module docstring)."""

    script: list[Any] = Field(default_factory=list)
    #: Answer used when the script runs out; None raises instead.
    default: Any = None
    tool_name: str | None = None
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _position: int = PrivateAttr(default=0)
    _log: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    #: The prompt tokens of the log's first calls, counted when first asked.
    _tokens: list[int] = PrivateAttr(default_factory=list)
    _origin: Any = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> int:
        """How many times the model was called."""
        return len(self._log)

    @property
    def prompts(self) -> list[list[BaseMessage]]:
        """The messages of every call, in order."""
        return list(self._log)

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens over all calls (counted when asked: a call costs no tokenizer
        run, so a benchmark's zero-latency model takes no time of its own). Each call
        is counted once: a replay that asks after every turn stays linear."""
        with self._lock:
            for call in self._log[len(self._tokens) :]:
                self._tokens.append(sum(count_tokens(str(m.content)) for m in call))
            return sum(self._tokens)

    def bind_tools(  # type: ignore[override]  # accepts any tool spec, like the real ones
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[Any, BaseMessage]:
        """Answer dict entries as calls of the (first) bound tool."""
        name = convert_to_openai_tool(tools[0])["function"]["name"] if tools else None
        return self.model_copy(update={"tool_name": name})._shared_with(self)

    def _shared_with(self, origin: ScriptedChatModel) -> ScriptedChatModel:
        # A bound copy plays the same script and records into the same log.
        self._lock = origin._lock
        self._log = origin._log
        self._tokens = origin._tokens
        self._origin = origin
        return self

    def _next(self) -> Any:
        origin: ScriptedChatModel = self._origin or self
        with origin._lock:
            position = origin._position
            origin._position += 1
        if position < len(self.script):
            return self.script[position]
        if self.default is None:
            raise ScriptExhaustedError(
                f"the script ran out after {len(self.script)} answers: add answers, "
                "or give the model a default"
            )
        return self.default

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._log.append(list(messages))
        answer = self._next()
        if callable(answer) and not isinstance(answer, Exception):
            answer = answer(messages)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, AIMessage):  # a scripted message, tool calls and all
            message = answer
        elif isinstance(answer, dict) and self.tool_name:
            message = AIMessage(
                content="",
                tool_calls=[{"name": self.tool_name, "args": answer, "id": f"call_{self.calls}"}],
            )
        elif isinstance(answer, dict):
            message = AIMessage(content=json.dumps(answer))
        else:
            message = AIMessage(content=str(answer))
        return ChatResult(generations=[ChatGeneration(message=message)])
