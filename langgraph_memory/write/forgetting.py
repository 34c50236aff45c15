"""Forget one memory a caller names in words: its id (``0a1b2c3d``, ``[0a1b2c3d]``)
or a description, answered in one line a model or a person reads. The ``forget``
tools of a graph (``graph.tools``) and of the MCP server (``mcp_server``) both answer
with it: archive the one memory meant, or say that several match (with their ids, to
call again with one) or none does; never guess.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write import MemoryWriter, RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> m = store.add("user:a", "User likes tea.")
>>> forget_named(MemoryWriter(store, model=RulesModel()), "user:a", f"[{m.id}]")
'Forgot [...]: User likes tea.'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from langgraph_memory.errors import AmbiguousMemoryError, MemoryKitError, MemoryNotFoundError
from langgraph_memory.records import Memory
from langgraph_memory.scope import ScopeLike
from langgraph_memory.text import for_prompt
from langgraph_memory.write.writer import MemoryWriter

__all__ = ["forget_named"]

_ID = re.compile(r"^\s*\[?([0-9a-f]{8})\]?\s*$")


def forget_named(
    writer: MemoryWriter,
    scope: ScopeLike,
    memory: str,
    *,
    refuse: Callable[[Memory], str | None] | None = None,
) -> str:
    """Archive the memory ``memory`` names (an id, or words from its text), and say so.

    Args:
        writer: the write path whose ``forget`` archives it (a logged DELETE).
        scope: the memory's scope.
        memory: its id (``0a1b2c3d`` or ``[0a1b2c3d]``) or a description of it.
        refuse: called with the memory found before it is archived: a reason not to
            (then nothing changes), or None to go on.

    Returns:
        One line: ``Forgot [id]: text``, ``Not forgotten [id]: reason.``, the matches to
        choose from by id, that nothing matches, or what was wrong.
    """
    match = _ID.match(memory)
    memory_id, query = (match.group(1), None) if match else (None, memory)
    try:
        target = writer.find_one(scope, memory_id, query=query)
        refused = None if refuse is None else refuse(target)
        if refused is not None:
            return f"Not forgotten [{target.id}]: {refused}."
        decision = writer.forget(scope, memory_id, query=query)
    except AmbiguousMemoryError as exc:
        listed = "; ".join(
            f"[{m.id}] {for_prompt(m.text)}" for m in exc.matches if isinstance(m, Memory)
        )
        return f"Several memories match; call forget with one id: {listed}"
    except MemoryNotFoundError:
        return f"No memory matches {memory!r}."
    except MemoryKitError as exc:
        return f"Could not forget that: {exc}"
    return f"Forgot [{decision.target_id}]: {decision.shown_texts[0]}"
