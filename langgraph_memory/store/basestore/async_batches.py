"""Single async BaseStore calls made at once, run as one batch.

LangGraph's async stores (``AsyncPostgresStore``, ``AsyncSqliteStore``, through
``AsyncBatchedBaseStore``) queue each ``aget``, ``aput``, ``asearch``, ``adelete`` and
``alist_namespaces`` and run every call queued in the same turn of the event loop as
one ``abatch``. Without it, each call is a batch of its own: a worker thread, a
Chroma write per put. LangGraph's own test of 6,000 such calls gathered at once
(``test_large_batches_async``) took 237 s here; as a few batches it takes seconds.

The same here, per event loop: the first call of a turn starts a drain task that runs
when the turn's other calls have queued theirs, and runs them all in one batch; calls
that arrive while that batch runs go in the next one, so a busy store runs fewer,
fuller batches. A batch's reads see the store as it was before its writes, as in
LangGraph's. Each call's op is checked before it is queued (``check``), so a bad op
fails its own call alone; what fails the batch itself (a store or embedder that does
not answer) fails every call in it. ``abatch`` itself is not queued: a batch runs as
it was sent.

>>> import asyncio
>>> async def run(ops):
...     return [f"ran {op} with {len(ops) - 1} others" for op in ops]
>>> gather = OpGatherer(run, check=lambda op: None)
>>> async def main():
...     return await asyncio.gather(gather.submit("a"), gather.submit("b"))
>>> asyncio.run(main())
['ran a with 1 others', 'ran b with 1 others']
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = ["OpGatherer"]

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
    ``check`` raises for an op that cannot run, before it is queued."""

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
