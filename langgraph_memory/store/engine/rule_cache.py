"""A scope's rules (procedural memories), read once per change of the scope.

Rules are not ranked against a question: every read renders all of them that fit
(``read.render``), so every read needs them, and they change rarely. Reading them
from Chroma (a metadata-filtered ``get``) costs a millisecond or more; here they are
kept per scope with the generation of the scope's lexical index, which changes with
every write the index follows (this process's, and on a Chroma server the other
processes' it has synced before the read): an unchanged generation means unchanged
rules, and the read costs a dictionary lookup.

>>> cache = RuleCache()
>>> cache.get("user:a", 7) is None
True
>>> cache.put("user:a", 7, ())
>>> cache.get("user:a", 7), cache.get("user:a", 8)
((), None)
"""

from __future__ import annotations

import threading

from langgraph_memory.records import Kind, Memory
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import ScopeCollections, fetch

__all__ = ["RuleCache", "read_rules"]

#: Scopes whose rules are kept by default (a store's comes from its budget); past it
#: the least recently read go.
MAX_SCOPES = 1024


class RuleCache:
    """The rules of recently read scopes, each with the index generation it was read at."""

    def __init__(self, max_scopes: int = MAX_SCOPES) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, tuple[int, tuple[Memory, ...]]] = {}
        self._max = max(1, max_scopes)

    def get(self, scope: str, generation: int) -> tuple[Memory, ...] | None:
        """The rules read at ``generation``, or None when they were read at another."""
        with self._lock:
            held = self._held.pop(scope, None)
            if held is None:
                return None
            self._held[scope] = held  # most recently read last
            return held[1] if held[0] == generation else None

    def put(self, scope: str, generation: int, found: tuple[Memory, ...]) -> None:
        """Keep the rules read at ``generation``."""
        with self._lock:
            self._held.pop(scope, None)
            self._held[scope] = (generation, found)
            while len(self._held) > self._max:
                del self._held[next(iter(self._held))]

    def forget(self, scope: str) -> None:
        """Drop a scope's rules (a purge)."""
        with self._lock:
            self._held.pop(scope, None)


def read_rules(cols: ScopeCollections, scope: Scope) -> tuple[Memory, ...]:
    """The scope's active rules, read from Chroma (the collection ``cols.active``):
    pinned first, then the most recent first."""
    found = [v.memory for v in fetch(cols.active, scope, where={"kind": Kind.PROCEDURAL.value})]
    return tuple(sorted(found, key=lambda m: (not m.pinned, -m.created_at.timestamp(), m.id)))
