"""What runs under both of the store's faces.

``engine`` is one per store location in a process (the client, collection handles,
the gate, lexical indexes); ``core`` is what both faces share (embedder, writes
under a scope's lock, version chains, reflections archived with what they rest
on); ``scope_locks`` and ``shared_queue`` are the
locks and the Postgres queue processes share; ``access_log``, ``field_cache`` and
``rule_cache`` are what the engine keeps in memory between calls; ``searches``
(with a read's candidates) and ``coordination`` are what ``internals(store)``
gives the read path and the writers; ``building`` makes memory versions
from a caller's arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_memory.lazy import faces

if TYPE_CHECKING:
    from langgraph_memory.store.engine.access_log import AccessLog as AccessLog
    from langgraph_memory.store.engine.building import UPDATE_FIELDS as UPDATE_FIELDS
    from langgraph_memory.store.engine.building import check_items as check_items
    from langgraph_memory.store.engine.building import item_fields as item_fields
    from langgraph_memory.store.engine.building import new_memory as new_memory
    from langgraph_memory.store.engine.building import successor as successor
    from langgraph_memory.store.engine.coordination import Coordination as Coordination
    from langgraph_memory.store.engine.core import StoreCore as StoreCore
    from langgraph_memory.store.engine.core import fresh_method as fresh_method
    from langgraph_memory.store.engine.core import read_method as read_method
    from langgraph_memory.store.engine.core import resting_on as resting_on
    from langgraph_memory.store.engine.engine import DEFAULT_PATH as DEFAULT_PATH
    from langgraph_memory.store.engine.engine import PATH_ENV as PATH_ENV
    from langgraph_memory.store.engine.engine import Companion as Companion
    from langgraph_memory.store.engine.engine import Engine as Engine
    from langgraph_memory.store.engine.field_cache import FieldCache as FieldCache
    from langgraph_memory.store.engine.scope_locks import CrossProcessLocks as CrossProcessLocks
    from langgraph_memory.store.engine.scope_locks import ScopeLock as ScopeLock
    from langgraph_memory.store.engine.searches import Candidates as Candidates
    from langgraph_memory.store.engine.searches import Searches as Searches
    from langgraph_memory.store.engine.searches import every_version as every_version
    from langgraph_memory.store.engine.searches import gather as gather
    from langgraph_memory.store.engine.searches import records as records
    from langgraph_memory.store.engine.shared_queue import SharedQueue as SharedQueue

#: Where each name the other rooms use lives: loaded on first use (PEP 562), so that
#: importing one module of the room loads no other.
_LAZY = {
    "resting_on": "langgraph_memory.store.engine.core",
    "Coordination": "langgraph_memory.store.engine.coordination",
    "Searches": "langgraph_memory.store.engine.searches",
    "AccessLog": "langgraph_memory.store.engine.access_log",
    "Candidates": "langgraph_memory.store.engine.searches",
    "Companion": "langgraph_memory.store.engine.engine",
    "CrossProcessLocks": "langgraph_memory.store.engine.scope_locks",
    "DEFAULT_PATH": "langgraph_memory.store.engine.engine",
    "Engine": "langgraph_memory.store.engine.engine",
    "FieldCache": "langgraph_memory.store.engine.field_cache",
    "PATH_ENV": "langgraph_memory.store.engine.engine",
    "ScopeLock": "langgraph_memory.store.engine.scope_locks",
    "SharedQueue": "langgraph_memory.store.engine.shared_queue",
    "StoreCore": "langgraph_memory.store.engine.core",
    "UPDATE_FIELDS": "langgraph_memory.store.engine.building",
    "check_items": "langgraph_memory.store.engine.building",
    "every_version": "langgraph_memory.store.engine.searches",
    "fresh_method": "langgraph_memory.store.engine.core",
    "gather": "langgraph_memory.store.engine.searches",
    "item_fields": "langgraph_memory.store.engine.building",
    "new_memory": "langgraph_memory.store.engine.building",
    "read_method": "langgraph_memory.store.engine.core",
    "records": "langgraph_memory.store.engine.searches",
    "successor": "langgraph_memory.store.engine.building",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = faces(__name__, _LAZY, globals())
