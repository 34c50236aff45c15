"""What a person may change from the inspector, each through the store's own API.

Every change but a purge is a new version or a closed one, never an overwrite,
and each is logged as a decision (``note`` says the person made it here), so
``why`` shows it beside the write path's decisions. The two purges (one memory,
:func:`purge_memory`; a whole person, :func:`purge_person`) are the store's
``purge``: they leave no trace, the log included. One word, one meaning: to
archive closes a version (a DELETE decision, kept in the history); to purge
destroys.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> wrong = store.add("user:alice", "User lives in Delhi.")
>>> fixed = correct(store, "user:alice", wrong.id, "User lives in Pune.")
>>> fixed.text, fixed.source.value, store.decisions("user:alice")[-1].op.value
('User lives in Pune.', 'user_correction', 'UPDATE')
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.records import Decision, DecisionOp, Memory, Source, Trust
from langgraph_memory.scope import Scope, ScopeLike

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["BY_PERSON", "archive", "correct", "delete", "pin", "purge_memory", "purge_person"]

#: The note on every decision made from the inspector.
BY_PERSON = "made by the person in the memory inspector"


def _log(store: MemoryStore, scope: Scope, decision: Decision) -> None:
    from langgraph_memory.store import internals

    internals(store).log(scope, decision)


def _log_replaced(store: MemoryStore, scope: Scope, old: Memory, new: Memory, what: str) -> None:
    """Log the person's change of ``old`` into ``new`` as an UPDATE decision."""
    update = Decision(
        op=DecisionOp.UPDATE,
        fact=new.text,
        text=new.text,
        target_id=old.id,
        result_id=new.id,
        note=f"{what}, {BY_PERSON}",
    )
    _log(store, scope, update)


def correct(store: MemoryStore, scope: ScopeLike, memory_id: str, text: str) -> Memory:
    """Replace an active fact's or rule's text with the person's own: a new version
    of source ``user_correction`` and high trust (the old one stays in ``history``),
    logged as an UPDATE. What was said (an episode) stays as said: purge it instead.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> correct(s, "user:a", m.id, "Likes green tea.").replaces == m.id
    True
    """
    scope = Scope.of(scope)
    old = store.get_memory(scope, memory_id)
    if old.is_episode:
        raise InvalidArgumentError(
            f"[{memory_id}] is an episode, what was said, kept as said: it cannot be "
            "corrected; purge it, or correct the facts drawn from it"
        )
    new = store.update(scope, old.id, text, source=Source.USER_CORRECTION, trust=Trust.HIGH)
    _log_replaced(store, scope, old, new, "corrected")
    return new


def pin(store: MemoryStore, scope: ScopeLike, memory_id: str, pinned: bool = True) -> Memory:
    """Pin (or unpin) an active memory: a new version with the same text, logged as
    an UPDATE.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Allergic to nuts.")
    >>> pin(s, "user:a", m.id).pinned
    True
    """
    scope = Scope.of(scope)
    old = store.get_memory(scope, memory_id)
    new = store.pin(scope, old.id, pinned)
    if new.id != old.id:  # a memory already so is returned unchanged: nothing to log
        _log_replaced(store, scope, old, new, "pinned" if pinned else "unpinned")
    return new


def archive(store: MemoryStore, scope: ScopeLike, memory_id: str) -> Memory:
    """Retire an active memory (it stays in ``history``), logged as a DELETE.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> archive(s, "user:a", m.id).active
    False
    """
    scope = Scope.of(scope)
    closed = store.archive(scope, memory_id)
    _log(
        store,
        scope,
        Decision(
            op=DecisionOp.DELETE,
            fact=closed.text,
            target_id=closed.id,
            note=f"archived, {BY_PERSON}",
        ),
    )
    return closed


def purge_memory(store: MemoryStore, scope: ScopeLike, memory_id: str) -> dict[str, int]:
    """Purge one memory: every version and every trace of it (the store's ``purge``
    of that id); what was removed, counted.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> _ = purge_memory(s, "user:a", m.id)
    >>> s.active("user:a")
    []
    """
    scope = Scope.of(scope)
    store.get_memory(scope, memory_id)  # an unknown id: MemoryNotFoundError, nothing purged
    return store.purge(scope, [memory_id])


def delete(store: MemoryStore, scope: ScopeLike, memory_id: str) -> dict[str, int]:
    """Deprecated, until 0.4.0: :func:`purge_memory` (here "delete" destroyed, where
    everywhere else it archives).

    >>> import tempfile, warnings
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     _ = delete(s, "user:a", m.id)
    >>> str(said[0].message)
    'inspector.actions.delete is purge_memory now (the old name goes in 0.4.0)'
    """
    warnings.warn(
        "inspector.actions.delete is purge_memory now (the old name goes in 0.4.0)",
        DeprecationWarning,
        stacklevel=2,
    )
    return purge_memory(store, scope, memory_id)


def purge_person(store: MemoryStore, scope: ScopeLike, typed: str) -> dict[str, int]:
    """Purge a whole scope once the person typed its key (``typed``) exactly.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = s.add("user:a", "Likes tea.")
    >>> purge_person(s, "user:a", "user:b")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: type user:a exactly to confirm the purge; ...
    """
    scope = Scope.of(scope)
    if typed.strip() != scope.key:
        raise InvalidArgumentError(
            f"type {scope.key} exactly to confirm the purge; got {typed.strip()!r}"
        )
    return store.purge(scope)
