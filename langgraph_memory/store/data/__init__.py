"""What acts on a whole scope's data: export and import, purge, upgrade.

``export_format`` is the export file's format; ``import_checks`` every check an
import makes on one before it touches the store; ``exports`` exports a scope and
imports one into an empty scope (with the links it may keep to other scopes);
``purging`` erases chains for good; ``upgrade`` migrates a store by hand, with a
backup first (``langgraph-memory migrate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_memory.lazy import faces

if TYPE_CHECKING:
    from langgraph_memory.store.data.export_format import load_export as load_export
    from langgraph_memory.store.data.upgrade import MigrationReport as MigrationReport
    from langgraph_memory.store.data.upgrade import upgrade as upgrade

#: Where each name the other rooms use lives: loaded on first use (PEP 562), so that
#: importing one module of the room loads no other.
_LAZY = {
    "MigrationReport": "langgraph_memory.store.data.upgrade",
    "load_export": "langgraph_memory.store.data.export_format",
    "upgrade": "langgraph_memory.store.data.upgrade",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = faces(__name__, _LAZY, globals())
