"""The lock servers the tests start: PostgreSQL and Redis on 127.0.0.1, each in a temp
directory of its own, stopped (and the directory removed) on exit.

They are ``benchmarks/servers.py``'s (the multi-process benchmark starts the same). A
binary that is not installed skips the test, naming the Debian package that has it
(``.ci/run`` installs both); a server that does not start fails it; nothing else skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from processes import in_pytest

from benchmarks import servers
from benchmarks.servers import LockServer

__all__ = ["LockServer", "running_postgres", "running_redis"]


@contextmanager
def running_postgres() -> Iterator[LockServer]:
    """A PostgreSQL server on a free loopback port; ``url`` reaches its ``postgres`` db."""
    with in_pytest(), servers.running_postgres() as server:
        yield server


@contextmanager
def running_redis() -> Iterator[LockServer]:
    """A redis-server on a free loopback port, no persistence."""
    with in_pytest(), servers.running_redis() as server:
        yield server
