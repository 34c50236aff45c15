"""The write path: extract, compare, decide, apply — and log every decision.

>>> from langgraph_memory.write import MemoryWriter, RulesModel
"""

from langgraph_memory.write.background import BackgroundWriter, QueueFullError
from langgraph_memory.write.chat_model import ChatMemoryModel
from langgraph_memory.write.extract import extract
from langgraph_memory.write.gate import may_hold_fact
from langgraph_memory.write.offline import RulesModel
from langgraph_memory.write.prompts import Prompts
from langgraph_memory.write.reconcile import candidates, validate
from langgraph_memory.write.structured import ask
from langgraph_memory.write.types import Choice, Extraction, Fact, MemoryModel, Role, Turn
from langgraph_memory.write.writer import MemoryWriter, Mode, memory_model

__all__ = [
    "BackgroundWriter",
    "ChatMemoryModel",
    "Choice",
    "Extraction",
    "Fact",
    "MemoryModel",
    "MemoryWriter",
    "Mode",
    "Prompts",
    "QueueFullError",
    "Role",
    "RulesModel",
    "Turn",
    "ask",
    "candidates",
    "extract",
    "may_hold_fact",
    "memory_model",
    "validate",
]
