"""Servers a benchmark or a test starts on 127.0.0.1: `chroma run`, PostgreSQL and Redis.

Each runs in a temp directory of its own on a free loopback port, and is stopped (the
directory removed) when its ``with`` block ends. The tests use these too
(``tests/processes.py``, ``tests/lock_servers.py``, ``tests/conftest.py``), turning
``ServerMissing`` into a skip and ``ServerFailed`` into a failure.

PostgreSQL refuses to run as root, so as root it runs as ``nobody`` (in a directory
given to it); as any other user, as that user. A binary that is not installed raises
``ServerMissing`` naming the Debian package that has it.

>>> 1024 <= free_port() < 65536
True
>>> binary("no-such-server", "some-pkg")
Traceback (most recent call last):
...
benchmarks.servers.ServerMissing: `no-such-server` is not installed (apt-get install -y some-pkg)
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ChromaServer",
    "LockServer",
    "ServerFailed",
    "ServerMissing",
    "binary",
    "free_port",
    "running_chroma",
    "running_postgres",
    "running_redis",
    "serving",
]


class ServerMissing(RuntimeError):
    """The server's binary is not installed (the message names the package)."""


class ServerFailed(RuntimeError):
    """The server exited or was not ready in time (the message ends with its log)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
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

    A process that exits, or is not ready in ``timeout`` seconds, raises ``ServerFailed``
    with the end of its log. ``stop`` is the signal that asks it to end (Postgres ends
    at once on SIGINT, but waits for its clients on SIGTERM).
    """
    log = open(log_path, "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, **popen)
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-4000:]
                raise ServerFailed(f"{what} did not start:\n{tail}")
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


def binary(name: str, package: str, *patterns: str) -> str:
    """The path of executable ``name``: on ``$PATH``, else the first match of ``patterns``
    (globs); ``ServerMissing`` naming ``package`` when neither has it."""
    found = shutil.which(name) or next(
        (p for pattern in patterns for p in sorted(glob.glob(pattern)) if os.access(p, os.X_OK)),
        None,
    )
    if found is None:
        raise ServerMissing(f"`{name}` is not installed (apt-get install -y {package})")
    return found


# -- Chroma ----------------------------------------------------------------------------------


@dataclass
class ChromaServer:
    """A running `chroma run`: where it listens and the directory it keeps its data in."""

    host: str
    port: int
    path: Path

    def client(self, database: str | None = None) -> Any:
        """An ``HttpClient`` on it; with ``database``, that database is made first."""
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False)
        if database is not None:
            admin = chromadb.AdminClient(
                Settings(
                    chroma_api_impl="chromadb.api.fastapi.FastAPI",
                    chroma_server_host=self.host,
                    chroma_server_http_port=self.port,
                    anonymized_telemetry=False,
                )
            )
            admin.create_database(database)
            return chromadb.HttpClient(
                host=self.host, port=self.port, database=database, settings=settings
            )
        return chromadb.HttpClient(host=self.host, port=self.port, settings=settings)


def chroma_binary() -> str:
    """The `chroma` CLI of this Python's environment (chromadb installs it)."""
    found = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(found).exists():
        raise ServerMissing("the `chroma` CLI (from the chromadb package) is not installed")
    return found


def server_config(path: Path, port: int, cache_indexes: int) -> str:
    """A `chroma run` configuration file for ``path`` and ``port`` whose server keeps at
    most ``cache_indexes`` collections' vector indexes in memory (its default, 65,536,
    keeps every index it ever loaded: docs/scaling.md). Written beside ``path``; its path.

    >>> import tempfile
    >>> text = Path(server_config(Path(tempfile.mkdtemp()) / "db", 8000, 128)).read_text()
    >>> "capacity: 128" in text
    True
    """
    config = path.parent / f"chroma-server-{port}.yaml"
    config.write_text(
        f"persist_path: {json.dumps(str(path))}\n"
        f"port: {port}\n"
        'listen_address: "127.0.0.1"\n'
        "segment_manager:\n"
        "  hnsw_index_pool_cache_config:\n"
        "    memory:\n"
        f"      capacity: {int(cache_indexes)}\n",
        encoding="utf-8",
    )
    return str(config)


@contextmanager
def running_chroma(
    path: Path, *, env: dict[str, str] | None = None, cache_indexes: int | None = None
) -> Iterator[ChromaServer]:
    """A real `chroma run` server on ``path`` and a free loopback port, stopped on exit;
    ``env`` is added to its environment; ``cache_indexes`` bounds the indexes it keeps in
    memory (None: Chroma's default). Its log goes beside ``path``."""
    port = free_port()
    server = ChromaServer("127.0.0.1", port, path)
    command = [chroma_binary(), "run", "--path", str(path), "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    if cache_indexes is not None:
        command = [chroma_binary(), "run", server_config(path, port, cache_indexes)]

    def answers() -> bool:
        try:
            server.client().heartbeat()
            return True
        except Exception:
            return False

    with serving(
        command,
        ready=answers,
        log_path=path.parent / f"chroma-server-{port}.log",
        what="`chroma run` (its heartbeat)",
        env={**os.environ, **(env or {})},
    ):
        yield server


# -- lock servers ----------------------------------------------------------------------------


@dataclass
class LockServer:
    """A running lock server: the URL that reaches it, and its process."""

    url: str
    proc: subprocess.Popen[bytes]


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
    initdb = binary("initdb", "postgresql", "/usr/lib/postgresql/*/bin/initdb")
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
            raise ServerFailed(f"initdb failed:\n{done.stdout.decode()}{done.stderr.decode()}")
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
    redis_server = binary("redis-server", "redis-server")
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
