"""The store's internals (``internals(store)``): what the package's own read and
write paths need of the engine under a ``MemoryStore``, and what the store's users
do not.

``MemoryStore`` is the user's face (add, get, retrieve through ``read.retrieve``,
archive, purge, export ...). Beneath it the read path needs candidates from the
dense and the lexical index, the records of the ones it keeps, and a write of when
they were read; the write path needs the scope's lock and generation, the memories
similar to a fact, the query vector computed once, and the decision log. They are
here, on the ``Internals`` that ``internals(store)`` returns, so that none of them widens
the store's face. Lifecycle jobs, the CLI and the benchmarks' ablations (dense
alone, BM25 alone) use it too; it follows the store's releases but promises less:
a method may change when the read or write path needs it to. Its two jobs live in
the engine's room: what the read path asks of a scope (``engine/searches.py``)
and what writers coordinate with (``engine/coordination.py``).

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore, internals
>>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> _ = s.add("user:bob", "User is vegetarian.")
>>> [h.memory.text for h in internals(s).nearest("user:bob", "What does Bob eat?", k=1)]
['User is vegetarian.']
"""

from __future__ import annotations

from typing import cast

from langgraph_memory.store.chroma import RawClient
from langgraph_memory.store.engine import Coordination, Searches, StoreCore

__all__ = ["Internals"]


class Internals(Searches, Coordination):
    """The internals of one ``MemoryStore`` (see the module's docstring);
    ``internals(store)`` gives it. It shares the store's core: closing the store
    closes it, and an admin view's handle writes as an admin.
    """

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    @property
    def embedder_name(self) -> str:
        """The name under which the store records its embedder (another is refused)."""
        return self._core.embedder_name

    @property
    def client(self) -> RawClient:
        """The Chroma client this store writes through (Chroma's own, not the door:
        for a caller that reaches its collections directly)."""
        return cast(RawClient, self._core.engine.client.raw)

    @property
    def data_name(self) -> str:
        """What other processes' stores on the same data share: a Chroma server's tenant
        and database (``"tenant/database"``), or ``""`` for an embedded store, which is
        one process's alone. Shared locks and queues key their entries by it.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore, internals
        >>> internals(MemoryStore(tempfile.mkdtemp(),
        ...                       embeddings=DeterministicFakeEmbedding(size=8))).data_name
        ''
        """
        return self._core.engine.scope_locks.where
