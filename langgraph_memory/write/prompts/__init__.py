"""Prompts of the write path, each module a prompt with its response schema beside it.

Prompts are data: versioned strings with ``{placeholders}``, overridable by
passing other text to ``ChatMemoryModel(prompts=Prompts(...))``.

>>> from langgraph_memory.write.prompts import Prompts
>>> Prompts().version
'2026-12-02'
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph_memory.write.prompts import extract, reconcile


@dataclass(frozen=True)
class Prompts:
    """The prompt texts a ChatMemoryModel uses; replace any of them."""

    extract_system: str = extract.SYSTEM
    reconcile_system: str = reconcile.SYSTEM
    reconcile_batch_system: str = reconcile.BATCH_SYSTEM
    version: str = "2026-12-02"


__all__ = ["Prompts", "extract", "reconcile"]
