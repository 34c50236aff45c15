"""The chat models the runners are given on their command lines (``--model``, ``--base-url``).

Any OpenAI-compatible server will do (OpenAI itself, vLLM, llama.cpp, Ollama ...); with no
``--model`` a runner takes the environment's model (``llm.resolve_chat_model``), if any.

>>> import os
>>> env = {k: os.environ.pop(k) for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL") if k in os.environ}
>>> chat_model(None, None)
(None, '')
>>> os.environ.update(env)
>>> chat_model("openai:qwen", "http://localhost:8000/v1")[1]
'qwen'
"""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel

from langgraph_memory.llm import DEFAULT_MODEL, MODEL_ENV, resolve_chat_model


def default_model_name() -> str:
    """The model name the environment asks for (``LANGGRAPH_MEMORY_MODEL``), else the default.

    >>> isinstance(default_model_name(), str)
    True
    """
    return os.environ.get(MODEL_ENV) or DEFAULT_MODEL


def named_chat_model(name: str, base_url: str | None) -> tuple[BaseChatModel, str]:
    """``"openai:NAME"`` or a bare ``NAME``: ``ChatOpenAI`` on ``base_url`` (OpenAI's when
    None), at temperature 0, and its name; another provider prefix is refused."""
    provider, sep, model = name.partition(":")
    if not sep:
        provider, model = "openai", name
    if provider != "openai":
        raise SystemExit(f"--model {name!r}: only openai:MODEL (any OpenAI-compatible server)")
    from langchain_openai import ChatOpenAI

    # A local OpenAI-compatible server often needs no key; the client insists on one.
    key = os.environ.get("OPENAI_API_KEY") or "not-needed"
    chat = ChatOpenAI(model=model, base_url=base_url, api_key=key, temperature=0)  # type: ignore[arg-type]
    return chat, model


def chat_model(name: str | None, base_url: str | None) -> tuple[BaseChatModel | None, str]:
    """The named model (:func:`named_chat_model`) and its name, for caches and reports; with
    no name, the environment's model (``base_url`` is then not used), else ``(None, "")``."""
    if name:
        return named_chat_model(name, base_url)
    resolved = resolve_chat_model()
    if resolved is None:
        return None, ""
    return resolved, str(getattr(resolved, "model_name", "") or type(resolved).__name__)
