"""Servers the tests start: a free port, and a process that is ready or fails the test.

The starters themselves live in ``benchmarks/servers.py`` (the multi-process benchmark
starts the same servers); here a server that does not start fails the test.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from benchmarks import servers
from benchmarks.servers import free_port

__all__ = ["free_port", "in_pytest", "serving"]


@contextmanager
def in_pytest() -> Iterator[None]:
    """A server's binary that is not installed skips the test; one that does not start
    fails it (with the end of its log)."""
    try:
        yield
    except servers.ServerMissing as exc:
        pytest.skip(str(exc))
    except servers.ServerFailed as exc:
        pytest.fail(str(exc))


@contextmanager
def serving(command: list[str], **kw: Any) -> Iterator[subprocess.Popen[bytes]]:
    """``benchmarks.servers.serving``: ``command`` run until ready, stopped on exit; a
    process that exits or is not ready in time fails the test with the end of its log."""
    with in_pytest(), servers.serving(command, **kw) as proc:
        yield proc
