"""Per-scope write locks: in this process always, across processes when a URL says where.

Every write to a scope (the write path's read-decide-write, the tools, BaseStore puts,
lifecycle jobs, purge, import) holds the scope's lock, taken through
``Engine.scope_lock``. A ``ScopeLock`` is two locks taken in order: the process's own
re-entrant lock first, so the threads of one process queue locally, then, on the
outermost hold of a thread only, a cross-process lock from the engine's
``CrossProcessLocks`` (none for the embedded store, whose directory is locked to one
process anyway). Store methods called while a thread holds it take it again at no cost.

Which cross-process lock, from one URL: ``MemoryStore(..., lock=URL)`` or
``$LANGGRAPH_MEMORY_LOCK_URL``:

- ``postgresql://user:pass@host/db``: a session-level ``pg_advisory_lock`` keyed by a
  stable 64-bit hash of the scope key (``lock_id``), held on a connection of its own
  while the lock is held. A process that dies drops its session, and Postgres
  releases the lock with it: a killed holder never blocks the scope.
- ``redis://host:6379/0``: a lease, ``SET key token NX PX lease``, renewed by a
  thread while held and deleted on release only if it still holds our token. A
  killed holder blocks the scope for at most one lease.

- ``in-process`` (``IN_PROCESS``): no cross-process lock, said on purpose: this process
  is the only one that writes the store. The same locks as leaving both unset; a store on a
  Chroma server opened with neither a lock nor a queue warns once that it has none (see
  ``engine``), and this says the warning is not needed. A shared queue, which serves many
  processes, refuses it.

Both URLs take query parameters of their own, stripped before the URL reaches the client:
``lock_timeout`` (seconds a write waits for its lock; default 30) and, for Redis,
``lease`` (seconds; default 10).

A write that cannot take its lock within ``lock_timeout`` raises ``ScopeLockError``
and writes nothing: it never goes on unlocked. The bound holds for each part: a thread
queued behind another thread of its own process waits no longer than it would for
another process (the in-process lock alone, with no URL, waits as long as it takes).

The fencing check. Chroma cannot check a fencing token, so the check runs on our side,
at the last point before a write is applied: ``StoreCore.writing``, entered by every
store write method right before it touches Chroma, calls ``ScopeLock.check``. For
Redis it reads the key in one script and requires our token with more than a margin
(a fifth of the lease) left; for Postgres it runs a statement on the lock's session
(alive session: lock still held). A failed check raises ``ScopeLockError`` before
anything is written. What it cannot rule out: a process paused for longer than the
margin between the check and Chroma's acknowledgement of the write.

>>> locks = ScopeLocks(None)
>>> lock = locks.get("user:a")
>>> with lock:
...     with lock:  # re-entrant within a thread
...         lock.check()
>>> locks.describe()
'in-process'
>>> open_cross_process_locks("mysql://x")
Traceback (most recent call last):
...
langgraph_memory.errors.LockConfigError: lock='mysql://x' is not a lock URL this store knows: ...
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
import uuid
import weakref
from types import TracebackType
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from langgraph_memory.errors import (
    InvalidTypeError,
    LockConfigError,
    MissingDependencyError,
    ScopeLockError,
)

__all__ = [
    "DEFAULT_LEASE",
    "DEFAULT_TIMEOUT",
    "IN_PROCESS",
    "LOCK_URL_ENV",
    "CrossProcessLocks",
    "Held",
    "PostgresLocks",
    "RedisLocks",
    "ScopeLock",
    "ScopeLocks",
    "import_extra",
    "in_process",
    "lock_id",
    "open_cross_process_locks",
    "redacted",
]

log = logging.getLogger("langgraph_memory")

LOCK_URL_ENV = "LANGGRAPH_MEMORY_LOCK_URL"
#: ``lock=`` (or ``$LANGGRAPH_MEMORY_LOCK_URL``) that says this process is the only writer:
#: the in-process lock alone, and no warning that a server store has no lock.
IN_PROCESS = "in-process"
#: Seconds a write waits for its scope's cross-process lock before it fails.
DEFAULT_TIMEOUT = 30.0
#: Seconds a Redis lease lasts unless renewed (a killed holder blocks no longer).
DEFAULT_LEASE = 10.0

_WHAT_TO_PASS = (
    "pass lock='postgresql://user:password@host:5432/db' (Postgres advisory locks) or "
    "lock='redis://host:6379/0' (a Redis lease), optionally with ?lock_timeout=SECONDS "
    "(and ?lease=SECONDS for Redis), or lock='in-process' when this process is the only "
    "one that writes the store (the in-process lock alone)"
)


class Held(Protocol):
    """One thread's hold of one scope's cross-process lock."""

    def check(self) -> None:
        """Raise ``ScopeLockError`` when the hold is no longer ours (the fencing check)."""
        ...

    def release(self) -> None:
        """Give the lock back; never raises (a lock that is gone is released)."""
        ...


@runtime_checkable
class CrossProcessLocks(Protocol):
    """Locks per scope key shared by every process that reaches one server."""

    def acquire(self, key: str) -> Held:
        """Hold ``key``'s lock, waiting at most the bound; ``ScopeLockError`` past it."""
        ...

    def describe(self) -> str:
        """What the locks are, for messages (no password)."""
        ...

    def close(self) -> None:
        """Free connections and threads; held locks are released."""
        ...


def lock_id(key: str) -> int:
    """A stable signed 64-bit number for a scope key (Postgres advisory lock keys are
    bigint): the same in every process and release.

    >>> lock_id("user:a") == lock_id("user:a") != lock_id("user:b")
    True
    >>> -(2**63) <= lock_id("user:a") < 2**63
    True
    """
    digest = hashlib.blake2b(f"langgraph_memory scope {key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class ScopeLock:
    """One scope's lock: the process's re-entrant lock, then (outermost hold of a
    thread only) the cross-process lock. Used with ``with``."""

    def __init__(self, key: str, cross: CrossProcessLocks | None) -> None:
        self.key = key
        self._cross = cross
        self._local = threading.RLock()
        self._depth = 0  # changed only by the thread holding _local
        self._held: Held | None = None

    def __enter__(self) -> ScopeLock:
        # With a cross-process lock, a thread queued behind this process's own holder
        # waits no longer than the cross-process wait would: a write never waits
        # without bound for either (the embedded store's in-process lock alone does).
        bound = getattr(self._cross, "timeout", None)
        if not self._local.acquire(timeout=-1 if bound is None else bound):
            raise ScopeLockError(
                f"the lock of scope {self.key} was not free within {bound:g} s: another "
                "thread of this process is writing it; nothing was written, retry the write "
                "(or raise lock_timeout in the lock URL)"
            )
        if self._depth == 0 and self._cross is not None:
            try:
                self._held = self._cross.acquire(self.key)
            except BaseException:
                self._local.release()
                raise
        self._depth += 1
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._held is not None:
                held, self._held = self._held, None
                held.release()
        finally:
            self._local.release()

    @property
    def outermost(self) -> bool:
        """Whether the thread holding the lock holds it once (not re-entered)."""
        return self._depth == 1

    def check(self) -> None:
        """The fencing check: ``ScopeLockError`` when the cross-process hold was lost.
        Call it holding the lock, right before a write is applied."""
        if self._held is not None:
            self._held.check()


class ScopeLocks:
    """The scope locks of one engine: one ``ScopeLock`` per scope key.

    ``where`` names the data the scopes live in (a Chroma server's tenant and
    database), so that stores on other databases sharing one lock server never
    wait for each other: the cross-process key is the scope key ``in`` it.
    """

    def __init__(self, cross: CrossProcessLocks | None, where: str = "") -> None:
        self.cross = cross
        self.where = where
        self._guard = threading.Lock()
        # Held weakly: a lock lives while a thread holds it or waits for it (both keep
        # a reference), so the map holds the scopes in use, not every scope ever written.
        self._locks: weakref.WeakValueDictionary[str, ScopeLock] = weakref.WeakValueDictionary()

    def get(self, key: str) -> ScopeLock:
        """The lock of the scope with key ``key`` (one object while anyone uses it)."""
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                shared = f"{key} in {self.where}" if self.where else key
                lock = self._locks[key] = ScopeLock(shared, self.cross)
            return lock

    def describe(self) -> str:
        """``in-process``, or what the cross-process locks are."""
        return IN_PROCESS if self.cross is None else self.cross.describe()

    def close(self) -> None:
        if self.cross is not None:
            self.cross.close()


# -- from a URL ---------------------------------------------------------------------------


def open_cross_process_locks(
    lock: str | CrossProcessLocks | None,
) -> CrossProcessLocks | None:
    """The cross-process locks ``lock`` names (a URL, or locks built already), or those
    of ``$LANGGRAPH_MEMORY_LOCK_URL`` when ``lock`` is None; None when neither is set or
    it says ``IN_PROCESS`` (the in-process lock alone). A URL of an unknown kind, or a
    server that does not answer, raises ``LockConfigError`` saying what to pass."""
    if lock is None:
        lock = os.environ.get(LOCK_URL_ENV) or None
        if lock is None:
            return None
    if isinstance(lock, CrossProcessLocks) and not isinstance(lock, str):
        return lock
    if in_process(lock):
        return None
    if not isinstance(lock, str):
        raise InvalidTypeError(
            f"lock must be a URL (str), got {type(lock).__name__}: {_WHAT_TO_PASS}"
        )
    parts = urlsplit(lock)
    scheme = parts.scheme.lower()
    if scheme not in ("postgresql", "postgres", "redis", "rediss") or not parts.netloc:
        raise LockConfigError(
            f"lock={redacted(lock)!r} is not a lock URL this store knows: {_WHAT_TO_PASS}"
        )
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    timeout = _seconds(options.pop("lock_timeout", None), DEFAULT_TIMEOUT, "lock_timeout", lock)
    lease = _seconds(options.pop("lease", None), DEFAULT_LEASE, "lease", lock)
    url = urlunsplit(parts._replace(query=urlencode(options)))
    if scheme.startswith("postgres"):
        return PostgresLocks(url, timeout=timeout)
    return RedisLocks(url, timeout=timeout, lease=lease)


def in_process(lock: object) -> bool:
    """Whether ``lock`` says this process is the only writer (``IN_PROCESS``, in any
    case, spaces around it ignored): the in-process lock alone, chosen on purpose.

    >>> in_process("in-process"), in_process(" In-Process "), in_process(None)
    (True, True, False)
    >>> open_cross_process_locks("in-process") is None
    True
    """
    return isinstance(lock, str) and lock.strip().lower() == IN_PROCESS


def _seconds(value: str | None, default: float, name: str, url: str) -> float:
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise LockConfigError(
            f"{name}={value!r} in lock={redacted(url)!r} must be a positive number of seconds"
        )
    return seconds


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs.

    >>> redacted("postgresql://app:s3cret@db:5432/memory")
    'postgresql://app:***@db:5432/memory'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def import_extra(module: str, extra: str, what: str = "scope lock") -> Any:
    """``module``, or ``MissingDependencyError`` naming the extra that installs it.

    >>> import_extra("json", "postgres").__name__
    'json'
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"a {extra} {what} needs {module}: pip install 'langgraph-memory-kit[{extra}]'"
        ) from exc


# -- Postgres -----------------------------------------------------------------------------


class PostgresLocks:
    """Session-level advisory locks (``pg_advisory_lock(lock_id(key))``), each held on a
    connection of its own, so Postgres frees it when the holder's session drops.
    Connections are kept between holds (a few, as many as threads held at once)."""

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.psycopg = import_extra("psycopg", "postgres")
        self.url = url
        self.timeout = timeout
        self._guard = threading.Lock()
        self._idle: list[Any] = []
        self._closed = False
        self._pid = os.getpid()
        self._idle.append(self._connect())  # a bad URL fails here, not at the first write

    def describe(self) -> str:
        return f"Postgres advisory locks at {redacted(self.url)}"

    def _connect(self) -> Any:
        try:
            return self.psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except self.psycopg.Error as exc:
            raise LockConfigError(
                f"the scope lock's Postgres at {redacted(self.url)} does not answer ({exc}): "
                f"start it or fix the URL; {_WHAT_TO_PASS}"
            ) from exc

    def _connection(self) -> Any:
        with self._guard:
            if os.getpid() != self._pid:
                # A forked child (gunicorn --preload, multiprocessing): the kept
                # connections are its parent's sessions, and a session holds an
                # advisory lock for everyone using it. Leave them to the parent
                # (closing one here would end the parent's session) and open our own.
                self._idle, self._pid = [], os.getpid()
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
        try:
            return self._connect()
        except LockConfigError as exc:
            raise ScopeLockError(f"no scope lock taken: {exc}") from exc

    def give_back(self, conn: Any) -> None:
        with self._guard:
            if not self._closed and not conn.closed and os.getpid() == self._pid:
                self._idle.append(conn)
                return
        conn.close()

    def acquire(self, key: str) -> Held:
        try:
            return self._acquire(key, self._connection())
        except self.psycopg.OperationalError:
            pass  # a kept connection the server dropped meanwhile (a restart): one new try
        try:
            return self._acquire(key, self._connection())
        except self.psycopg.OperationalError as exc:
            raise ScopeLockError(
                f"could not take the lock of scope {key} ({self.describe()}: {exc}); "
                "nothing was written, retry the write"
            ) from exc

    def _acquire(self, key: str, conn: Any) -> Held:
        number = lock_id(key)
        errors = self.psycopg.errors
        try:
            # lock_timeout bounds the wait; Postgres queues waiters in order.
            conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{self.timeout}s",))
            conn.execute("SELECT pg_advisory_lock(%s)", (number,))
        except errors.LockNotAvailable as exc:
            self.give_back(conn)
            raise ScopeLockError(
                f"the lock of scope {key} was not free within {self.timeout:g} s "
                f"({self.describe()}): another process is writing it; nothing was written, "
                "retry the write (or raise lock_timeout in the lock URL)"
            ) from exc
        except self.psycopg.OperationalError:
            conn.close()
            raise  # acquire tries once more on a new connection
        except self.psycopg.Error as exc:
            conn.close()
            raise ScopeLockError(
                f"could not take the lock of scope {key} ({self.describe()}: {exc}); "
                "nothing was written, retry the write"
            ) from exc
        return _PostgresHeld(self, conn, key, number)

    def close(self) -> None:
        with self._guard:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class _PostgresHeld:
    def __init__(self, owner: PostgresLocks, conn: Any, key: str, number: int) -> None:
        self._owner = owner
        self._conn = conn
        self._key = key
        self._number = number

    def check(self) -> None:
        # A session-level advisory lock goes only when released or when its session
        # ends: a session that answers still holds it.
        try:
            self._conn.execute("SELECT 1")
        except self._owner.psycopg.Error as exc:
            raise ScopeLockError(
                f"the lock of scope {self._key} was lost: its Postgres session dropped "
                f"({exc}); nothing more was written, retry the write"
            ) from exc

    def release(self) -> None:
        try:
            self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._number,))
        except self._owner.psycopg.Error as exc:
            # The session is gone, and the lock with it.
            log.warning("langgraph_memory: releasing the lock of %s: %s", self._key, exc)
            self._conn.close()
            return
        self._owner.give_back(self._conn)


# -- Redis --------------------------------------------------------------------------------

# KEYS[1] the lease, ARGV[1] our token, ARGV[2] the lease in ms.
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
# The lease's remaining ms when it still holds our token, else -3.
_REMAINING = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pttl', KEYS[1])
end
return -3
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class RedisLocks:
    """A lease per scope key: ``SET key token NX PX lease``, renewed every third of the
    lease by a thread while held, checked (token and time left) before each write is
    applied, deleted on release only while it holds our token."""

    def __init__(
        self, url: str, *, timeout: float = DEFAULT_TIMEOUT, lease: float = DEFAULT_LEASE
    ) -> None:
        redis = import_extra("redis", "redis")
        self.url = url
        self.timeout = timeout
        self.lease_ms = max(int(lease * 1000), 30)
        self.redis_error: type[Exception] = redis.RedisError
        try:
            self.client = redis.Redis.from_url(url, socket_timeout=10)
            self.client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise LockConfigError(
                f"the scope lock's Redis at {redacted(url)} does not answer ({exc}): "
                f"start it or fix the URL; {_WHAT_TO_PASS}"
            ) from exc
        self.renew = self.client.register_script(_RENEW)
        self.remaining = self.client.register_script(_REMAINING)
        self.delete = self.client.register_script(_RELEASE)

    def describe(self) -> str:
        return f"a Redis lease at {redacted(self.url)}"

    @staticmethod
    def name(key: str) -> str:
        """The Redis key of a scope's lease."""
        return f"langgraph_memory:scope-lock:{key}"

    def acquire(self, key: str) -> Held:
        name, token = self.name(key), uuid.uuid4().hex
        deadline = time.monotonic() + self.timeout
        pause = 0.002
        while True:
            try:
                if self.client.set(name, token, nx=True, px=self.lease_ms):
                    return _RedisHeld(self, key, name, token)
            except self.redis_error as exc:
                raise ScopeLockError(
                    f"could not take the lock of scope {key} ({self.describe()}: {exc}); "
                    "nothing was written, retry the write"
                ) from exc
            left = deadline - time.monotonic()
            if left <= 0:
                raise ScopeLockError(
                    f"the lock of scope {key} was not free within {self.timeout:g} s "
                    f"({self.describe()}): another process is writing it; nothing was "
                    "written, retry the write (or raise lock_timeout in the lock URL)"
                )
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.05)

    def close(self) -> None:
        self.client.close()


class _RedisHeld:
    def __init__(self, owner: RedisLocks, key: str, name: str, token: str) -> None:
        self._owner = owner
        self._key = key
        self._name = name
        self._token = token
        self._lost: str | None = None
        self._done = threading.Event()
        self._renewer = threading.Thread(
            target=self._keep, name=f"langgraph_memory lease {key}", daemon=True
        )
        self._renewer.start()

    def _keep(self) -> None:
        owner = self._owner
        while not self._done.wait(owner.lease_ms / 3000):
            try:
                renewed = owner.renew(keys=[self._name], args=[self._token, owner.lease_ms])
            except owner.redis_error as exc:
                log.warning("langgraph_memory: renewing the lease of %s: %s", self._key, exc)
                continue  # the next try may reach it; check() judges the time left
            if not renewed:
                self._lost = "the lease ran out and another holder may have taken it"
                return

    def check(self) -> None:
        owner = self._owner
        if self._lost is None:
            try:
                left = int(owner.remaining(keys=[self._name], args=[self._token]))
            except owner.redis_error as exc:
                left, reason = -3, f"Redis does not answer ({exc})"
            else:
                reason = "the lease ran out and another holder may have taken it"
            # A fifth of the lease is the margin the write has to be applied in.
            if left < owner.lease_ms // 5:
                self._lost = reason if left < 0 else f"the lease has only {left} ms left"
        if self._lost is not None:
            raise ScopeLockError(
                f"the lock of scope {self._key} was lost ({owner.describe()}): {self._lost}; "
                "nothing more was written, retry the write"
            )

    def release(self) -> None:
        self._done.set()
        self._renewer.join()
        try:
            self._owner.delete(keys=[self._name], args=[self._token])
        except self._owner.redis_error as exc:
            # The lease runs out by itself.
            log.warning("langgraph_memory: releasing the lease of %s: %s", self._key, exc)
