"""Which model a lifecycle job asks: a chat model, or none (the offline rules).

Reflection and consolidation take what the write path takes as ``model`` (a
LangChain chat model, a ``"provider:model"`` string, a ``ChatMemoryModel``, the
offline ``RulesModel``, or None for the environment's) and need from it either the
chat model to prompt or the word that the rules should run.

>>> from langgraph_memory.write import RulesModel
>>> chat_for(RulesModel(), job="consolidate", instead="a Merger") is None
True
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from langgraph_memory.errors import ModelConfigError
from langgraph_memory.write.chat_model import ChatMemoryModel
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.types import MemoryModel
from langgraph_memory.write.writer import memory_model

__all__ = ["chat_for"]


def chat_for(
    model: MemoryModel | BaseChatModel | str | None, *, job: str, instead: str
) -> BaseChatModel | None:
    """The chat model behind ``model``, or None when the offline rules should run (the
    ``RulesModel``, or nothing configured: the write path's warning says so). Any other
    ``MemoryModel`` is refused: the error names ``job`` and what to pass ``instead``.
    """
    resolved = memory_model(model)
    if isinstance(resolved, RulesModel):
        return None
    if isinstance(resolved, ChatMemoryModel):
        return resolved.chat
    raise ModelConfigError(
        f"cannot {job} with {type(model).__name__}: pass a LangChain chat model, "
        f"RulesModel(), or {instead}"
    )
