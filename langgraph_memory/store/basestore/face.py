"""The LangGraph ``BaseStore`` methods of MemoryStore: LangGraph's calls in, one
batch of ops out.

``MemoryStore`` is a ``BaseStoreFace``: every BaseStore method LangGraph or a
user calls (``get``, ``put``, ``search``, ``delete``, ``list_namespaces`` and
their async twins) checks its namespace with LangGraph's rules, raising
``InvalidStoreNamespaceError`` (LangGraph's error and the kit's), and reaches
``batch``, which runs the ops (``ops.run_ops``). Single async calls made at once
run together as one batch (below). The memory methods of the store
are ``memory_store``'s; both faces share the store's core (``engine/core.py``).

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> isinstance(s, BaseStoreFace)
True

**Single async calls in one batch.** LangGraph's async stores
(``AsyncPostgresStore``, ``AsyncSqliteStore``, through ``AsyncBatchedBaseStore``)
queue each ``aget``, ``aput``, ``asearch``, ``adelete`` and ``alist_namespaces`` and
run every call queued in the same turn of the event loop as one ``abatch``. Without
it, each call is a batch of its own: a worker thread, a Chroma write per put.
LangGraph's own test of 6,000 such calls gathered at once
(``test_large_batches_async``) took 237 s here; as a few batches it takes seconds.

The same here, per event loop: the first call of a turn starts a drain task that runs
when the turn's other calls have queued theirs, and runs them all in one batch; calls
that arrive while that batch runs go in the next one, so a busy store runs fewer,
fuller batches. A batch's reads see the store as it was before its writes, as in
LangGraph's. Each call's op is checked before it is queued (``check``), so a bad op
fails its own call alone; what fails the batch itself (a store or embedder that does
not answer) fails every call in it. ``abatch`` itself is not queued: a batch runs as
it was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    Item,
    NamespacePath,
    NotProvided,
    Op,
    Result,
    SearchItem,
)

from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.store.basestore.namespaces import langgraph_namespace_errors, namespace_tuple
from langgraph_memory.store.basestore.ops import check_ops, run_ops
from langgraph_memory.store.engine import StoreCore, fresh_method

__all__ = ["BaseStoreFace", "OpGatherer"]

_Face = TypeVar("_Face", bound="BaseStoreFace")


class BaseStoreFace(BaseStore):
    """LangGraph's ``BaseStore`` methods on the store's core: what ``MemoryStore``
    inherits for LangGraph (its own methods are the memory face)."""

    #: What a subclass sets up: the core and the indexed fields.
    _core: StoreCore
    _fields: tuple[str, ...] | None
    #: This object's gatherer of single async calls (``_gather_calls``).
    _gathered: OpGatherer[Op]

    def _gather_calls(self) -> None:
        """Give this object a gatherer of its own (its ``__init__`` calls it)."""
        self._gathered = OpGatherer(self._run_gathered, check=self._check_op)

    def __copy__(self: _Face) -> _Face:
        """A copy (``MemoryStore.admin``'s view) with a gatherer of its own: the
        original's would run the copy's async calls as the original."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied._gather_calls()
        return copied

    @fresh_method
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations (see ``basestore``). A namespace that
        LangGraph's stores refuse raises ``InvalidStoreNamespaceError`` (LangGraph's
        ``InvalidNamespaceError`` too), and nothing of the batch is written."""
        return run_ops(self._core, _op_list(ops), fields=self._fields)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async ``batch``: the same code, run in a worker thread. The single async
        calls (``aget``, ``aput``, ``asearch``, ``adelete``, ``alist_namespaces``) made
        at once run together, as one batch (see ``OpGatherer``); a batch sent here
        runs as it was sent."""
        listed = _op_list(ops)
        if len(listed) == 1 and _SINGLE_CALL.get():
            return [await self._gathered.submit(listed[0])]
        return await asyncio.to_thread(self.batch, listed)

    async def _run_gathered(self, ops: list[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, ops)

    def _check_op(self, op: Op) -> None:
        check_ops(self._core, [op], fields=self._fields)

    # BaseStore's own methods check namespaces with LangGraph's rules before they
    # reach batch, and raise LangGraph's error; each runs here as written, and what
    # it refuses raises InvalidStoreNamespaceError, which is LangGraph's error and ours.

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """BaseStore's ``get``: the item under ``key`` (see ``basestore``), or None.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.get(("user", "a"), "food") is None
        True
        """
        namespace = namespace_tuple(namespace)
        with langgraph_namespace_errors():
            return super().get(namespace, key, refresh_ttl=refresh_ttl)

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """BaseStore's ``aget``: async :meth:`get`."""
        namespace = namespace_tuple(namespace)
        with langgraph_namespace_errors(), _single_call():
            return await super().aget(namespace, key, refresh_ttl=refresh_ttl)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """BaseStore's ``search``: items under ``namespace_prefix`` (see ``basestore``)."""
        namespace_prefix = namespace_tuple(namespace_prefix, "namespace_prefix")
        with langgraph_namespace_errors():
            return super().search(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """BaseStore's ``asearch``: async :meth:`search`."""
        namespace_prefix = namespace_tuple(namespace_prefix, "namespace_prefix")
        with langgraph_namespace_errors(), _single_call():
            return await super().asearch(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """BaseStore's ``put``: add or update the item under ``key`` (see ``basestore``).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> from langgraph.store.base import InvalidNamespaceError
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.put(("user", "a"), "food", {"text": "Likes ramen."})
        >>> try:
        ...     s.put(("user", "a.b"), "food", {"text": "Likes ramen."})
        ... except InvalidNamespaceError as exc:  # what code for any LangGraph store catches
        ...     print(type(exc).__name__)
        InvalidStoreNamespaceError
        """
        namespace = namespace_tuple(namespace)
        with langgraph_namespace_errors():
            super().put(namespace, key, value, index, ttl=ttl)

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """BaseStore's ``aput``: async :meth:`put`."""
        namespace = namespace_tuple(namespace)
        with langgraph_namespace_errors(), _single_call():
            await super().aput(namespace, key, value, index, ttl=ttl)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """BaseStore's ``delete``: archive the item under ``key`` (it stays in history)."""
        namespace = namespace_tuple(namespace)
        with langgraph_namespace_errors():
            super().delete(namespace, key)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """BaseStore's ``adelete``: async :meth:`delete`."""
        namespace = namespace_tuple(namespace)
        with langgraph_namespace_errors(), _single_call():
            await super().adelete(namespace, key)

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """BaseStore's ``list_namespaces``: the namespaces that hold data (see ``basestore``)."""
        prefix, suffix = _paths(prefix, suffix)
        with langgraph_namespace_errors():
            return super().list_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """BaseStore's ``alist_namespaces``: async :meth:`list_namespaces`."""
        prefix, suffix = _paths(prefix, suffix)
        with langgraph_namespace_errors(), _single_call():
            return await super().alist_namespaces(
                prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
            )


#: Set while one of the BaseStore face's single async calls runs: the one op that
#: BaseStore's method then sends to ``abatch`` is gathered with the others made at once.
_SINGLE_CALL: ContextVar[bool] = ContextVar("langgraph_memory_single_call", default=False)


@contextlib.contextmanager
def _single_call() -> Iterator[None]:
    token = _SINGLE_CALL.set(True)
    try:
        yield
    finally:
        _SINGLE_CALL.reset(token)


def _op_list(ops: Iterable[Op]) -> list[Op]:
    """``ops`` as a list, or an error that says what batch() takes."""
    if not isinstance(ops, Iterable):
        raise InvalidTypeError(
            f"batch() takes a list of LangGraph store ops (GetOp, PutOp ...), "
            f"got {type(ops).__name__}: {ops!r}"
        )
    return list(ops)


def _paths(
    prefix: NamespacePath | None, suffix: NamespacePath | None
) -> tuple[NamespacePath | None, NamespacePath | None]:
    """``list_namespaces``' prefix and suffix: each a tuple (a list made one), or None."""
    return (
        None if prefix is None else namespace_tuple(prefix, "prefix"),
        None if suffix is None else namespace_tuple(suffix, "suffix"),
    )


# -- single async calls in one batch -----------------------------------------------------

_Op = TypeVar("_Op")


@dataclass
class _Queue(Generic[_Op]):
    """One event loop's calls waiting for the next batch."""

    waiting: list[tuple[asyncio.Future[Any], _Op]] = field(default_factory=list)
    #: The drain (held here: the loop keeps only a weak reference to a task); a new one
    #: starts when it is done.
    drain: asyncio.Task[None] | None = None


class OpGatherer(Generic[_Op]):
    """Runs the ops of concurrent ``submit`` calls of one event loop as one batch
    (see the module). ``run`` takes the ops and returns a result per op, in order;
    ``check`` raises for an op that cannot run, before it is queued.

    >>> import asyncio
    >>> async def run(ops):
    ...     return [f"ran {op} with {len(ops) - 1} others" for op in ops]
    >>> gather = OpGatherer(run, check=lambda op: None)
    >>> async def main():
    ...     return await asyncio.gather(gather.submit("a"), gather.submit("b"))
    >>> asyncio.run(main())
    ['ran a with 1 others', 'ran b with 1 others']
    """

    def __init__(
        self,
        run: Callable[[list[_Op]], Awaitable[Sequence[Any]]],
        *,
        check: Callable[[_Op], None],
    ) -> None:
        self._run = run
        self._check = check
        self._lock = threading.Lock()  # the map of loops: each loop's queue is its own
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue[_Op]] = (
            weakref.WeakKeyDictionary()
        )

    async def submit(self, op: _Op) -> Any:
        """The result of ``op``, run in a batch with the ops submitted beside it."""
        self._check(op)
        loop = asyncio.get_running_loop()
        with self._lock:
            queue = self._queues.get(loop)
            if queue is None:
                queue = self._queues[loop] = _Queue()
        done: asyncio.Future[Any] = loop.create_future()
        queue.waiting.append((done, op))
        if queue.drain is None or queue.drain.done():
            # A task, not a call now: it first runs when the calls started in this turn
            # of the loop (an asyncio.gather's) have queued theirs.
            queue.drain = loop.create_task(self._drain(queue))
        return await done

    async def _drain(self, queue: _Queue[_Op]) -> None:
        calls: list[tuple[asyncio.Future[Any], _Op]] = []  # the batch running
        try:
            while queue.waiting:
                taken, queue.waiting = queue.waiting, []
                calls = [(done, op) for done, op in taken if not done.done()]  # not cancelled
                if not calls:
                    continue
                try:
                    results = await self._run([op for _, op in calls])
                    # A wrong count of results is a ValueError here, given to every call.
                    answered = list(zip(calls, results, strict=True))
                except Exception as exc:  # every call of the batch gets what it raised
                    for done, _ in calls:
                        if not done.done():
                            done.set_exception(exc)
                else:
                    for (done, _), result in answered:
                        if not done.done():
                            done.set_result(result)
                calls = []
        finally:
            # Only when the drain itself was cancelled (the loop is closing): no call
            # may wait for a batch that will not run, or will not report.
            for done, _ in [*calls, *queue.waiting]:
                if not done.done():
                    done.cancel()
            queue.waiting = []
