"""A job a ``BackgroundWriter`` runs when its queue is idle (opt-in: ``when_idle=``).

The job is any callable that takes the writer and says how often it wants to run
(``every``); ``lifecycle.Maintenance`` is the one this package ships (decay,
consolidation, reflection, the episode retention). ``IdleRunner`` runs it on a
thread of its own, first ``every`` after the writer starts and then at most once
per ``every``, only at a moment when no turn is queued or in flight (checked every
``poll_s``): turns are never held up behind it, and a turn that arrives while it
runs is written beside it (every store write takes its scope's lock). An exception
from the job is logged, and the next run comes ``every`` later.

>>> import tempfile, time
>>> from datetime import timedelta
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write.rules import RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> class Count:
...     every = timedelta(milliseconds=20)
...     runs = 0
...     def __call__(self, writer):
...         self.runs += 1
>>> job = Count()
>>> runner = IdleRunner(job, MemoryWriter(store, model=RulesModel()), busy=lambda: False)
>>> runner.start(); time.sleep(0.5); runner.stop(); job.runs > 0
True
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Protocol

from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.write.writer import MemoryWriter

__all__ = ["IdleJob", "IdleRunner"]

log = logging.getLogger("langgraph_memory")

#: Longest wait between two looks at the queue.
POLL_S = 1.0


class IdleJob(Protocol):
    """What a ``BackgroundWriter`` can run when idle: called with its ``MemoryWriter``,
    at most once per ``every``."""

    @property
    def every(self) -> timedelta:
        """The shortest time between two runs."""
        ...

    def __call__(self, writer: MemoryWriter) -> object:
        """Do the job (its result is not used)."""
        ...


class IdleRunner:
    """Runs ``job(writer)`` on its own thread when ``busy()`` is False and the job is
    due (see the module docstring), once ``start`` is called; ``stop`` ends the thread.
    A job that is not one is refused when the runner is made."""

    def __init__(
        self,
        job: IdleJob,
        writer: MemoryWriter,
        busy: Callable[[], bool],
        *,
        poll_s: float = POLL_S,
    ) -> None:
        every = getattr(job, "every", None)
        if not callable(job) or not isinstance(every, timedelta) or every <= timedelta(0):
            raise InvalidArgumentError(
                "when_idle must be a callable with a positive timedelta `every`, e.g. "
                f"langgraph_memory.lifecycle.Maintenance(every=timedelta(hours=6)); got {job!r}"
            )
        self.job = job
        self.every_s = every.total_seconds()
        self.poll_s = min(poll_s, self.every_s)
        self.runs = 0
        self._writer = writer
        self._busy = busy
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="langgraph-memory-idle", daemon=True
        )

    def start(self) -> None:
        """Start the thread (the job's first run comes ``every`` later)."""
        self._thread.start()

    def _loop(self) -> None:
        due = time.monotonic() + self.every_s
        while not self._stop.wait(max(0.0, min(self.poll_s, due - time.monotonic()))):
            if time.monotonic() < due or self._busy():
                continue
            try:
                self.job(self._writer)
            except Exception as exc:  # the writer goes on; the next run may succeed
                log.warning("langgraph_memory: the background writer's idle job failed: %r", exc)
            self.runs += 1
            due = time.monotonic() + self.every_s

    def stop(self, timeout: float | None = None) -> None:
        """Start no new run, and wait up to ``timeout`` seconds for one that is running."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
