"""Lifecycle jobs over a store's memories: decay (``forget_stale``), consolidation of
near-duplicates (``consolidate``), reflection (conclusions drawn from them), and
``maintain``, which runs them over a scope or every scope (from a LangGraph Platform
cron, an app's scheduler, or a ``BackgroundWriter`` when idle: ``Maintenance``).

Imported eagerly, on purpose: the functions ``consolidate``, ``maintain`` and
``reflect`` share their names with their modules, and a lazy lookup would find the
module once anything had imported it. (``import langgraph_memory`` does not import
this package.)

>>> from langgraph_memory.lifecycle import consolidate, due, maintain, reflect
>>> callable(consolidate), callable(maintain), callable(reflect)
(True, True, True)
"""

from langgraph_memory.lifecycle.consolidate import consolidate
from langgraph_memory.lifecycle.decay import forget_stale, protection, strength
from langgraph_memory.lifecycle.maintain import (
    Maintenance,
    MaintenanceReport,
    ScopeReport,
    maintain,
)
from langgraph_memory.lifecycle.mergers import Merger
from langgraph_memory.lifecycle.reflect import due, last_reflection, reflect
from langgraph_memory.lifecycle.reflectors import Reflector

__all__ = [
    "Maintenance",
    "MaintenanceReport",
    "Merger",
    "Reflector",
    "ScopeReport",
    "consolidate",
    "due",
    "forget_stale",
    "last_reflection",
    "maintain",
    "protection",
    "reflect",
    "strength",
]
