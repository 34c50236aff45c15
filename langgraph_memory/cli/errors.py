"""What a command can get wrong, by the exit status it ends with.

>>> str(CommandError("no memory store at ./x"))
'no memory store at ./x'
"""

from __future__ import annotations

from langgraph_memory.errors import MemoryKitError

__all__ = ["CommandError", "UsageError"]


class UsageError(MemoryKitError):
    """A command line that cannot work as given; ``main`` prints it and exits 2."""


class CommandError(MemoryKitError):
    """A command that cannot do what was asked (no such store, scope or memory, a
    locked store, a server it cannot reach); ``main`` prints it and exits 1."""
