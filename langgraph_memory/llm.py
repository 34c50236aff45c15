"""Which chat model the write path uses.

In order: a ``BaseChatModel`` instance you pass; a ``"provider:model"`` string
(``"openai:gpt-4o-mini"``); else ``ChatOpenAI`` when ``OPENAI_API_KEY`` or
``OPENAI_BASE_URL`` is set (model from ``LANGGRAPH_MEMORY_MODEL``, default
``gpt-4o-mini``); else None, and the write path falls back to the offline rules
model and says so (see ``write.writer.memory_model``).

>>> import os
>>> env = {k: os.environ.pop(k) for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL") if k in os.environ}
>>> resolve_chat_model(None) is None
True
>>> os.environ.update(env)
"""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel

from langgraph_memory.errors import ModelConfigError

__all__ = ["DEFAULT_MODEL", "MODEL_ENV", "REQUEST_TIMEOUT_S", "configured", "resolve_chat_model"]

#: The OpenAI model used when the environment names an endpoint but no model.
DEFAULT_MODEL = "gpt-4o-mini"
#: The environment variable that names the model (``LANGGRAPH_MEMORY_MODEL``).
MODEL_ENV = "LANGGRAPH_MEMORY_MODEL"
#: Seconds one request to the environment's endpoint may take (the OpenAI client's own
#: default is 600): an endpoint that accepts and never answers fails within about
#: three times this, with the client's two retries, instead of half an hour.
REQUEST_TIMEOUT_S = 60.0


def configured() -> bool:
    """Whether the environment names an OpenAI-compatible endpoint.

    >>> isinstance(configured(), bool)
    True
    """
    return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))


def _openai(model: str) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    # A local OpenAI-compatible server often needs no key; the client insists on one.
    key = os.environ.get("OPENAI_API_KEY") or "not-needed"
    return ChatOpenAI(
        model=model,
        api_key=key,  # type: ignore[arg-type]
        temperature=0,
        timeout=REQUEST_TIMEOUT_S,
        max_retries=2,
    )


def resolve_chat_model(model: BaseChatModel | str | None = None) -> BaseChatModel | None:
    """The chat model to use, or None when none is given or configured.

    >>> from langchain_core.language_models import FakeListChatModel
    >>> chat = FakeListChatModel(responses=["hi"])
    >>> resolve_chat_model(chat) is chat
    True
    """
    if isinstance(model, BaseChatModel):
        return model
    if isinstance(model, str):
        provider, sep, name = model.partition(":")
        if not sep:
            provider, name = "openai", model
        if provider != "openai":
            raise ModelConfigError(
                f"provider {provider!r} is not built in; pass a LangChain chat model instance "
                f"instead (e.g. from langchain-{provider})"
            )
        return _openai(name)
    if model is not None:
        raise ModelConfigError(
            f"model must be a LangChain chat model, a 'provider:model' string or None, "
            f"got {type(model).__name__}"
        )
    if configured():
        return _openai(os.environ.get(MODEL_ENV) or DEFAULT_MODEL)
    return None
