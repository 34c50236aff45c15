"""A chat model that fails, as one line: what failed, and how to run offline instead.

``demo``, ``chat`` and ``maintain`` call the chat model the environment names
(``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``). An endpoint that is down, refuses the key
or has no such model is an expected failure: it ends the command with one line, not a
traceback, after the client's own bounded retries.

>>> from langgraph_memory.errors import InvalidArgumentError
>>> with model_failures():
...     raise InvalidArgumentError("not a model's error")
Traceback (most recent call last):
...
langgraph_memory.errors.InvalidArgumentError: not a model's error
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph_memory.cli.errors import CommandError
from langgraph_memory.text import for_terminal

__all__ = ["model_failures", "model_named"]

#: The longest reason quoted from the model's error.
MAX_REASON = 200


@contextmanager
def model_failures() -> Iterator[None]:
    """Turn a chat model's error (LangChain's ``ModelError``, the OpenAI client's
    ``OpenAIError``) raised inside the block into a CommandError that names the
    endpoint and says how to run offline."""
    from langchain_core.exceptions import LangChainException

    failures: tuple[type[BaseException], ...] = (LangChainException,)
    try:
        import openai

        failures += (openai.OpenAIError,)
    except ImportError:  # another provider's model: LangChain's own error still counts
        pass
    try:
        yield
    except failures as exc:
        where = os.environ.get("OPENAI_BASE_URL") or "the OpenAI API"
        reason = for_terminal(str(exc).strip().splitlines()[0] if str(exc).strip() else "")
        reason = reason[:MAX_REASON] or type(exc).__name__
        raise CommandError(
            f"the chat model at {for_terminal(where)} failed ({type(exc).__name__}: {reason}): "
            "check OPENAI_BASE_URL, OPENAI_API_KEY and LANGGRAPH_MEMORY_MODEL, or unset "
            "OPENAI_API_KEY and OPENAI_BASE_URL to run offline with the rules model"
        ) from None


def model_named(name: str | None) -> Any:
    """``--model``: ``"rules"`` for the offline rules model; else the name as it is,
    ``"provider:model"`` or None for the environment's (the writer resolves it).

    >>> model_named("rules").name, model_named(None)
    ('rules', None)
    """
    if name == "rules":
        from langgraph_memory.write import RulesModel

        return RulesModel()
    return name
