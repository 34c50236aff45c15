"""What the rules read out of a sentence, before it becomes a ``Fact``.

>>> from langgraph_memory.records import Kind
>>> Found("User lives in Pune.", "location", "pune", "location", Kind.SEMANTIC, None).slot
'location'
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from langgraph_memory.records import Kind

__all__ = ["Found"]


@dataclass(frozen=True)
class Found:
    """One fact (or rule) read from one clause: its canonical text, the slot it fills
    and the value it fills it with, its family (for importance), its kind and time."""

    text: str
    slot: str
    value: str
    family: str
    kind: Kind
    at: datetime | None
