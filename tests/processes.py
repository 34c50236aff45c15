"""Servers the tests start: a free port, and a process that is ready or fails the test."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    command: list[str],
    *,
    ready: Callable[[], bool],
    log_path: Path,
    what: str,
    timeout: float = 60,
    stop: signal.Signals = signal.SIGTERM,
    **popen: Any,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` (output to ``log_path``) until ``ready()``; stop it on exit.
    A process that exits or is not ready in ``timeout`` seconds fails the test
    with the end of its log. ``stop`` is the signal that asks it to end (Postgres
    ends at once on SIGINT, but waits for its clients on SIGTERM)."""
    log = open(log_path, "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, **popen)
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-4000:]
                pytest.fail(f"{what} did not start:\n{tail}")
            time.sleep(0.2)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(stop)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
