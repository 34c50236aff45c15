"""Reads for an event loop: ``aretrieve``, and the read threads they run on.

An async app (``graph.ainvoke``, an ASGI server) runs every conversation on one event
loop. A read of memory is work for a processor (the question's embedding, the nearest
records, the ranking) and waits on Chroma, and it must not run on the loop: everything
else there would wait for it. LangGraph runs a sync node on its default executor.
``aretrieve`` and the async read node (``memory_read_node(..., run="async")``) run the
read on the kit's read threads: ``READ_THREADS`` in the process, its own so that reads
never queue behind the app's other blocking calls in the default executor, and reads
past them wait as futures on the loop, not as threads. What runs in them is
``retrieve`` itself: one read path, whichever way it is called. Measured with 200 people
at a chat's pace on 2 cores, LangGraph's threads for the sync node kept the loop's stall
at p99 9 ms (embedded) and 2.4 ms (a server): the async node is for async code that
calls the read itself, not a fix the sync node needs.

>>> import asyncio, tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory import MemoryStore
>>> with MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8)) as s:
...     _ = s.add("user:bob", "Bob is vegetarian.")
...     [r.memory.text for r in asyncio.run(aretrieve(s, "user:bob", "food"))]
['Bob is vegetarian.']
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from langgraph_memory.read.retrieve import Retrieved, retrieve
from langgraph_memory.scope import ScopeLike

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["READ_THREADS", "aretrieve", "run_read"]

#: The read threads of a process: as many as asyncio's default executor has (cores plus
#: four, at most 32). Measured (``python -m benchmarks concurrency``, 200 people, 2 cores):
#: with one thread per core, reads of a store on a Chroma server, which wait on the network
#: more than they compute, queued behind each other (turn p95 956 ms against 131 ms).
READ_THREADS = min(32, (os.cpu_count() or 1) + 4)

_T = TypeVar("_T")
_pool: ThreadPoolExecutor | None = None
_pool_guard = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    global _pool
    with _pool_guard:
        if _pool is None:  # made on first use: importing the package starts no thread
            _pool = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="langgraph_memory-read")
        return _pool


async def run_read(call: Callable[[], _T]) -> _T:
    """``call()`` on the read threads, awaited; the caller's context (LangGraph's run,
    a LangSmith trace) goes with it.

    >>> import asyncio
    >>> asyncio.run(run_read(lambda: 6 * 7))
    42
    """
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_threads(), context.run, call)


async def aretrieve(
    store: MemoryStore, scope: ScopeLike, query: str, **options: Any
) -> list[Retrieved]:
    """``retrieve(store, scope, query, **options)`` for an event loop: the same read,
    on the read threads (see the module docstring), so the loop serves other requests
    meanwhile. Its arguments, results and errors are ``retrieve``'s.

    Args:
        store: the ``MemoryStore`` to read.
        scope: the scope to read (``"user:alice"``, a ``Scope`` or a namespace tuple).
        query: what to look for.
        **options: ``retrieve``'s keywords (``k``, ``now``, ``as_of`` ...).

    Returns:
        What ``retrieve`` returns.
    """
    return await run_read(functools.partial(retrieve, store, scope, query, **options))
