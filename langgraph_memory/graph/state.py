"""State for graphs with memory: ``MessagesState`` plus the rendered memories.

>>> sorted(MemoryState.__annotations__)
['memories', 'messages']
"""

from __future__ import annotations

from langgraph.graph import MessagesState


class MemoryState(MessagesState):
    """Messages, and what the read node found for this turn (a prompt block)."""

    memories: str
