"""Asking a chat model for JSON that fits a schema, with or without tool calling.

``ask`` uses the model's ``with_structured_output`` when it has one; for a model
without tool calling, or when its structured answer does not parse, it reads a
JSON object out of the plain text answer. It returns the parsed object (or
None) and the raw output, which the decision log keeps.

>>> parse_json_object('Sure! ```json\\n{"op": "NOOP"}\\n``` done')
{'op': 'NOOP'}
>>> parse_json_object("no json here") is None
True
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (fenced or bare), or None."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in [i for i, ch in enumerate(candidate) if ch == "{"][:20]:
            try:
                value, _ = decoder.raw_decode(candidate[start:])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def raw_text(message: Any) -> str:
    """What a model said, as text: tool-call arguments as JSON, else the content."""
    if isinstance(message, AIMessage) and message.tool_calls:
        return json.dumps([c["args"] for c in message.tool_calls], ensure_ascii=False)
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, default=str)


def _validate(schema: type[T], data: Any) -> T | None:
    if not isinstance(data, dict):
        return None
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None


def _structured(model: BaseChatModel, schema: type[T]) -> Any:
    """``with_structured_output`` by tool calling where the model lets us choose.

    Tool calling keeps the raw answer when it does not parse, so the plain-JSON
    fallback can still read it; OpenAI's default strict ``json_schema`` mode
    raises inside the call instead and loses the answer.
    """
    kwargs: dict[str, Any] = {"include_raw": True}
    if "method" in inspect.signature(model.with_structured_output).parameters:
        kwargs["method"] = "function_calling"
    return model.with_structured_output(schema, **kwargs)


def ask(
    model: BaseChatModel, messages: Sequence[BaseMessage], schema: type[T]
) -> tuple[T | None, str]:
    """Ask ``model`` and parse its answer into ``schema``: ``(parsed or None, raw)``.

    Tries structured output first; if the model has none, or the structured
    call fails, asks again for plain text (the prompts ask for JSON only) and
    reads the JSON out of it. An exception from that plain call propagates:
    the caller logs it as a failed decision.

    >>> from langchain_core.messages import HumanMessage
    >>> from pydantic import BaseModel
    >>> from langgraph_memory.testing import ScriptedChatModel
    >>> class Verdict(BaseModel):
    ...     label: str
    >>> ask(ScriptedChatModel(script=[{"label": "CORRECT"}]), [HumanMessage("Right?")], Verdict)
    (Verdict(label='CORRECT'), '[{"label": "CORRECT"}]')
    >>> ask(ScriptedChatModel(script=['Sure: {"label": "WRONG"}']), [HumanMessage("?")], Verdict)
    (Verdict(label='WRONG'), 'Sure: {"label": "WRONG"}')
    """
    try:
        structured = _structured(model, schema)
    except (NotImplementedError, AttributeError, TypeError, ValueError):
        structured = None  # no tool calling: plain text it is
    if structured is not None:
        try:
            out: Any = structured.invoke(list(messages))
        except Exception as exc:
            if not _answer_problem(exc):
                raise  # time-outs, lost connections: not something plain text fixes
            out = None
        if out is not None:
            raw = raw_text(out.get("raw")) if isinstance(out, dict) else raw_text(out)
            parsed = out.get("parsed") if isinstance(out, dict) else out
            if isinstance(parsed, schema):
                return parsed, raw
            return _validate(schema, _json_in(raw)), raw
    answer = model.invoke(list(messages))
    raw = raw_text(answer)
    return _validate(schema, _json_in(raw)), raw


def _answer_problem(exc: Exception) -> bool:
    """Whether a failed structured call is worth asking again in plain text:
    the answer did not parse (ValueError and its kin: ValidationError,
    OutputParserException), or the server refused the request's shape (an
    HTTP 400, as from a server without tool calling)."""
    return isinstance(exc, ValueError) or type(exc).__name__ in ("BadRequestError",)


def _json_in(raw: str) -> dict[str, Any] | None:
    """The JSON object in a raw answer: tool-call arguments or text."""
    if raw.startswith("["):  # tool-call arguments, as raw_text writes them
        try:
            calls = json.loads(raw)
        except json.JSONDecodeError:
            calls = None
        if isinstance(calls, list) and calls and isinstance(calls[0], dict):
            return calls[0]
    return parse_json_object(raw)
