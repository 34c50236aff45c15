"""The lock servers the tests start: PostgreSQL and Redis on 127.0.0.1, each in a temp
directory of its own, stopped (and the directory removed) on exit.

PostgreSQL refuses to run as root, so as root the server runs as ``nobody`` (in a
directory given to it); as any other user, as that user. A binary that is not
installed skips the test, naming the Debian package that has it (``.ci/run``
installs both); nothing else skips.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from processes import free_port, serving


def _binary(name: str, package: str, *extra: str) -> str:
    found = shutil.which(name) or next(
        (p for pattern in extra for p in sorted(glob.glob(pattern)) if os.access(p, os.X_OK)),
        None,
    )
    if found is None:
        pytest.skip(f"`{name}` is not installed (apt-get install -y {package})")
    return found


def _postgres_answers(url: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=2):
            return True
    except psycopg.Error:
        return False


def _redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_timeout=2).ping())
    except redis.RedisError:
        return False


@dataclass
class LockServer:
    url: str
    proc: subprocess.Popen[bytes]


def _run_as() -> dict[str, Any]:
    """Popen's keywords that drop root to ``nobody`` (nothing for any other user)."""
    if os.geteuid() != 0:
        return {}
    return {"user": "nobody", "group": pwd.getpwnam("nobody").pw_gid}


@contextmanager
def _owned_directory() -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="langgraph-memory-lock-"))
    try:
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(directory, nobody.pw_uid, nobody.pw_gid)
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@contextmanager
def running_postgres() -> Iterator[LockServer]:
    """A PostgreSQL server on a free loopback port; ``url`` reaches its ``postgres`` db."""
    where = ("/usr/lib/postgresql/*/bin/initdb",)
    initdb = _binary("initdb", "postgresql", *where)
    postgres = str(Path(initdb).with_name("postgres"))
    user = _run_as()
    with _owned_directory() as directory:
        data = directory / "data"
        done = subprocess.run(
            [initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
            capture_output=True,
            check=False,
            **user,
        )
        if done.returncode:
            pytest.fail(f"initdb failed:\n{done.stdout.decode()}{done.stderr.decode()}")
        port = free_port()
        command = [
            postgres,
            "-D",
            str(data),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-k",
            str(directory),  # its unix socket, in its own directory
            "-c",
            "fsync=off",
        ]
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        with serving(
            command,
            ready=lambda: _postgres_answers(url),
            log_path=directory / "postgres.log",
            what="PostgreSQL",
            stop=signal.SIGINT,  # "fast" shutdown: SIGTERM would wait for every client
            **user,
        ) as proc:
            yield LockServer(url, proc)


@contextmanager
def running_redis() -> Iterator[LockServer]:
    """A redis-server on a free loopback port, no persistence."""
    redis_server = _binary("redis-server", "redis-server")
    with _owned_directory() as directory:
        port = free_port()
        command = [
            redis_server,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
        ]
        url = f"redis://127.0.0.1:{port}/0"
        with serving(
            command,
            ready=lambda: _redis_answers(url),
            log_path=directory / "redis.log",
            what="redis-server",
            **_run_as(),
        ) as proc:
            yield LockServer(url, proc)
