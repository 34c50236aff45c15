"""Prompts of the write path, each module a prompt with its response schema beside it.

Prompts are data: versioned strings with ``{placeholders}``, overridable by
passing other text to ``ChatMemoryModel(prompts=Prompts(...))``.

>>> from langgraph_memory.write.prompts import Prompts
>>> Prompts().version
'2026-12-02'
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.write.prompts import extract, reconcile

#: The placeholders each prompt is filled with (``str.format``).
PLACEHOLDERS = {
    "extract_system": ("today", "weekday", "speakers"),
    "reconcile_system": ("today",),
    "reconcile_batch_system": ("today",),
}


@dataclass(frozen=True)
class Prompts:
    """The prompt texts a ChatMemoryModel uses; replace any of them. Each is checked
    here, so a placeholder the model cannot fill fails now, not at the first turn.

    >>> Prompts(reconcile_system="Today is {date}.")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: Prompts.reconcile_system cannot be filled ...
    """

    extract_system: str = extract.SYSTEM
    reconcile_system: str = reconcile.SYSTEM
    reconcile_batch_system: str = reconcile.BATCH_SYSTEM
    version: str = "2026-12-02"

    def __post_init__(self) -> None:
        for name, keys in PLACEHOLDERS.items():
            text = getattr(self, name)
            if not isinstance(text, str):
                raise InvalidTypeError(f"Prompts.{name} must be a str, got {type(text).__name__}")
            try:
                text.format(**dict.fromkeys(keys, ""))
            except (KeyError, IndexError, ValueError, AttributeError) as exc:
                allowed = ", ".join("{" + key + "}" for key in keys)
                raise InvalidArgumentError(
                    f"Prompts.{name} cannot be filled in ({type(exc).__name__}: {exc}): it may "
                    f"use {allowed}; write a literal brace twice ({{{{ or }}}})"
                ) from None
        if not isinstance(self.version, str):
            raise InvalidTypeError(
                f"Prompts.version must be a str, got {type(self.version).__name__}"
            )


__all__ = ["PLACEHOLDERS", "Prompts", "extract", "reconcile"]
