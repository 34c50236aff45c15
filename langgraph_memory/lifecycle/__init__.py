"""Lifecycle jobs over a store's memories: decay (``forget_stale``), consolidation of
near-duplicates (``consolidate``), and ``maintain``, which runs them over a scope or
every scope (from a LangGraph Platform cron, an app's scheduler, or a
``BackgroundWriter`` when idle: ``Maintenance``).

Imported eagerly, on purpose: the functions ``consolidate`` and ``maintain`` share
their names with their modules, and a lazy lookup would find the module once
anything had imported it. (``import langgraph_memory`` does not import this package.)

>>> from langgraph_memory.lifecycle import consolidate, maintain
>>> callable(consolidate), callable(maintain)
(True, True)
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

__all__ = [
    "Maintenance",
    "MaintenanceReport",
    "Merger",
    "ScopeReport",
    "consolidate",
    "forget_stale",
    "maintain",
    "protection",
    "strength",
]
