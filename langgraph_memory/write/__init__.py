"""The write path: extract, compare, decide, apply — and log every decision.

``MemoryWriter`` runs it inline; ``BackgroundWriter`` queues turns and runs it
in a worker. Each turn's words are kept too, as episodes the facts link to, for as
long as a ``Retention`` says (``retain_episodes``; ``archive_logged`` archives with
a logged reason); words said again are recorded on the episode that holds them
(``said_key`` is what tells them apart), and a turn that only asks (``asks_only``)
is kept, read below statements and never for itself asked again. A ``MemoryModel``
is what the writer asks (extract facts, choose ADD/UPDATE/DELETE/NOOP):
``ChatMemoryModel`` over any LangChain chat model, or the offline ``RulesModel``.
``MemoryInstructions`` says what the app wants remembered: guidance for a chat
model's extraction, and topics to keep or skip, which the writer applies to any model.

>>> from langgraph_memory.write import MemoryWriter, RulesModel
"""

from langgraph_memory.write.app_instructions import MemoryInstructions
from langgraph_memory.write.background import BackgroundWriter
from langgraph_memory.write.chat_model import ChatMemoryModel
from langgraph_memory.write.episodes import said_key
from langgraph_memory.write.gate import asks_only
from langgraph_memory.write.prompts import Prompts
from langgraph_memory.write.retention import Retention, archive_logged, retain_episodes
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.types import Choice, Extraction, Fact, MemoryModel, Turn
from langgraph_memory.write.writer import MemoryWriter

__all__ = [
    "BackgroundWriter",
    "ChatMemoryModel",
    "Choice",
    "Extraction",
    "Fact",
    "MemoryInstructions",
    "MemoryModel",
    "MemoryWriter",
    "Prompts",
    "Retention",
    "RulesModel",
    "Turn",
    "archive_logged",
    "asks_only",
    "retain_episodes",
    "said_key",
]
