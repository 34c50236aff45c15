"""Several app processes writing one memory on one `chroma run` server: what the
cross-process scope lock keeps right, and what it costs (issue 22, point 4).

Starts `chroma run`, PostgreSQL and Redis on 127.0.0.1 (``benchmarks/servers.py``),
then::

    python -m benchmarks multiprocess --out docs/results/multiprocess.json
    python -m benchmarks multiprocess --quick            # 2 workers x 8 scopes, 3 kills

**Load.** For each lock kind (``postgres``: advisory locks; ``redis``: a lease; ``none``:
the in-process lock alone, the baseline) and each worker count W, W processes start
at once on a fresh database of the server and each writes every scope's script
through the product write path, ``MemoryWriter(store, RulesModel()).write_turn``,
each turn with a turn id of its own. All processes walk the scopes in the same order,
so they say the same things to the same scope at the same time, each in its own
words (``SCRIPT``: a fact restated three ways, a second fact, a move, a correction;
only phrasings the offline ``RulesModel`` reads as the same fact, so a second live
copy is a real duplicate). Then, per scope, from its export:

- ``duplicates``: live facts beyond one per slot (where the user lives, works ...);
- ``lost``: acknowledged turns (``write_turn`` returned) with no decision in the log;
- ``failed_decisions``: decisions logged as failed: the turn is in the log, but its
  fact was not applied (``failed_errors`` says why);
- ``order_ok``: no memory closed by two decisions and no two live versions of one
  memory: the history is one chain, decided in one order;
- ``turns_per_s`` (acknowledged turns over the time from the start signal to the last
  acknowledgement) and the p50/p95 of one ``write_turn``.

Without a cross-process lock, two processes both find "nothing like it" and both ADD,
or both UPDATE one version: the baseline shows the duplicates the lock prevents.

**Fault.** Per lock kind, ``--kills`` times: a process writes a few turns to a scope,
then takes the scope's lock (``internals(store).scope_lock``), starts one more
``write_turn`` under it and is SIGKILLed 0-100 ms later, mid-write or just after,
still holding. Meanwhile this process waits for the scope; the time from the kill to
its lock is the ``unblock`` time (Postgres frees a dead session's locks at once; a
Redis lease, here ``?lease=1``, runs out). It then writes a turn of its own. Checked
as above: no acknowledged turn lost, no duplicate, one order.

**Deferred** (lock kind ``deferred``): each process submits its turns to a
``BackgroundWriter`` on a store whose deferred turns sit in one Postgres table
(``MemoryStore(client=..., queue=URL)``; its scope locks are that Postgres's), and any
process's workers drain any scope. A turn is acknowledged when ``submit`` returns (the
p50/p95 are those of ``submit``); each process drains until the queue is empty, and
turns/s counts to the last process's drain. Its fault test kills a process that has
just submitted turns to three scopes (0-100 ms after, with its workers inside the
first): another process's ``BackgroundWriter`` writes them (``drained_ms``: from the
kill to an empty queue), each once (``decided_twice``: a turn with a fact decided
twice).

Each process's write path is one ``Writes``: ``InlineWrites`` (``write_turn``, a turn
acknowledged when it returns) or ``DeferredWrites`` (``submit``).

The embedder is the shipped offline default (``LocalMiniLM``, a few ms a turn here),
``--embedder hashed`` for a cheap stand-in.

>>> turn_text(0, 1), slot_of("User lives in Pune."), slot_of("User likes tea.")
("I'm based in Delhi.", 'location', 'User likes tea.')
>>> percentile([1.0, 2.0, 3.0, 4.0], 50)
2.5
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from benchmarks.reports import machine, publish
from benchmarks.servers import ChromaServer, running_chroma, running_postgres, running_redis

#: What the processes say to every scope, step by step: each process says a step in its
#: own words (``turn_text``). The offline RulesModel reads every phrasing of a step as
#: the same fact (checked in tests/test_multiprocess.py).
SCRIPT: tuple[tuple[str, ...], ...] = (
    ("I live in Delhi.", "I'm based in Delhi.", "I live in Delhi now."),  # a restatement
    ("I work at Acme.", "I work for Acme.", "I'm employed by Acme."),  # another fact
    ("I moved to Pune.", "I've just moved to Pune.", "I moved to Pune last week."),  # a move
    ("Actually I live in Mumbai.", "I'm based in Mumbai.", "I live in Mumbai."),  # a correction
)
#: The slot of a fact by its opening words: one live fact per slot is right.
SLOTS = {"User lives in ": "location", "User works at ": "employer"}
#: The lock kinds measured; ``none`` is the in-process lock alone; ``deferred`` is the
#: shared Postgres queue (with that Postgres's locks).
LOCK_KINDS = ("postgres", "redis", "none", "deferred")
#: How the tables name the lock kinds.
LABELS = {"none": "none (in-process)", "deferred": "postgres, deferred (shared queue)"}
#: Environment variables that would give a store a lock or a queue it was not given.
STORE_ENV = ("LANGGRAPH_MEMORY_LOCK_URL", "LANGGRAPH_MEMORY_QUEUE_URL")
#: How long a deferred process waits for the shared queue to drain.
DRAIN_TIMEOUT_S = 600.0
#: The lease of the fault test's Redis lock: a killed holder blocks the scope this long.
FAULT_LEASE_S = 1.0
#: The fault test's kill comes this long (at most, uniformly) after the lock is held.
KILL_DELAY_S = 0.1
#: The write path's warning for turns it drops because their scope was purged while
#: they were read: ``write_turn`` returns, so they count as lost. Until f7f0bfa a scope
#: another process made meanwhile was taken for a purge (the first runs here found it).
DROPPED = "dropped: the scope was purged while they were being written"
#: A process (its imports, the embedder, the store) must be ready within this.
START_TIMEOUT_S = 120.0


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[multiprocess] {message}", file=sys.stderr, flush=True)


def turn_text(step: int, worker: int) -> str:
    """What process ``worker`` says at ``step``: the step's phrasings in turn."""
    phrasings = SCRIPT[step % len(SCRIPT)]
    return phrasings[worker % len(phrasings)]


def slot_of(fact: str) -> str:
    """The slot a fact fills (its own text when it is not one of ``SLOTS``)."""
    return next((slot for start, slot in SLOTS.items() if fact.startswith(start)), fact)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile, linear between ranks (0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


# -- one worker process ----------------------------------------------------------------------


@dataclass
class WorkerSpec:
    """What one worker process does (passed to it as JSON)."""

    worker: int
    lock: str | None
    host: str
    port: int
    database: str
    scopes: list[str]
    steps: list[int]
    run: str
    ready: str  # touched once the store is open
    go: str  # the worker starts writing when this file exists
    acks: str  # one JSON line per acknowledged (or refused) turn
    embedder: str = "minilm"
    #: ``inline`` (``write_turn``) or ``deferred`` (``submit`` to the shared ``queue``).
    mode: str = "inline"
    queue: str | None = None
    #: Fault test, inline: take the last scope's lock before the last step's turn, touch
    #: ``held``, write the turn, and hold the lock until killed.
    hold_last: bool = False
    #: Fault test: touched once the lock is held (inline) or every turn is submitted
    #: (deferred, whose workers then write them until the process is killed).
    held: str = ""


def turn_id(run: str, worker: int, scope: str, step: int) -> str:
    """A turn id unique to one run, process, scope and step."""
    return f"{run}-w{worker}-{scope.replace(':', '_')}-s{step}"


class Writes(Protocol):
    """How a worker hands a turn to the write path."""

    def write(self, scope: str, text: str, turn: str) -> None:
        """Hand one user turn over; returning is the acknowledgement."""
        ...

    def drain(self) -> None:
        """Finish what was handed over and is not written yet."""
        ...


class InlineWrites:
    """``write_turn`` in the caller: a turn returned is a turn written."""

    def __init__(self, store: Any) -> None:
        from langgraph_memory import MemoryWriter
        from langgraph_memory.write import RulesModel

        self.writer = MemoryWriter(store, RulesModel())

    def write(self, scope: str, text: str, turn: str) -> None:
        self.writer.write_turn(scope, [("user", text)], turn_id=turn)

    def drain(self) -> None:
        pass


class DeferredWrites:
    """``BackgroundWriter.submit`` on a store with a shared queue: a turn returned is a
    turn in the Postgres table, written by whichever process's worker takes it."""

    def __init__(self, store: Any) -> None:
        from langgraph_memory import BackgroundWriter, MemoryWriter
        from langgraph_memory.write import RulesModel

        self.bg = BackgroundWriter(MemoryWriter(store, RulesModel()))

    def write(self, scope: str, text: str, turn: str) -> None:
        self.bg.submit(scope, [("user", text)], turn_id=turn)

    def drain(self) -> None:
        # Every process's turns, not only ours: each process drains until none is left.
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        while self.bg.pending and time.monotonic() < deadline:
            time.sleep(0.05)
        self.bg.close(timeout=DRAIN_TIMEOUT_S)


def writes_for(spec: WorkerSpec, store: Any) -> Writes:
    """The write path of ``spec.mode``."""
    if spec.mode == "deferred":
        return DeferredWrites(store)
    return InlineWrites(store)


def embedder(name: str) -> Any:
    """The embedder ``name`` (``minilm``: the shipped default; ``hashed``: a stand-in)."""
    if name == "hashed":
        from benchmarks.embedders import HashedUnitEmbeddings

        return HashedUnitEmbeddings()
    from langgraph_memory.embeddings import default_embeddings

    return default_embeddings()


def open_store(spec: WorkerSpec) -> Any:
    """The worker's store: on its own HTTP client, with the spec's lock and queue (or
    none)."""
    import chromadb
    from chromadb.config import Settings

    from langgraph_memory import MemoryStore

    client = chromadb.HttpClient(
        host=spec.host,
        port=spec.port,
        database=spec.database,
        settings=Settings(anonymized_telemetry=False),
    )
    return MemoryStore(
        client=client, embeddings=embedder(spec.embedder), lock=spec.lock, queue=spec.queue
    )


def run_worker(spec: WorkerSpec) -> None:
    """Write every scope's steps, appending one line per turn to ``spec.acks`` (and,
    once drained, a ``drained`` line); in a fault test, wait to be killed instead."""
    from langgraph_memory.store import internals

    store = open_store(spec)
    writes = writes_for(spec, store)
    Path(spec.ready).touch()
    while not Path(spec.go).exists():
        time.sleep(0.002)
    with open(spec.acks, "a", encoding="utf-8") as acks:

        def one(scope: str, step: int) -> None:
            turn = turn_id(spec.run, spec.worker, scope, step)
            started = time.perf_counter()
            try:
                writes.write(scope, turn_text(step, spec.worker), turn)
            except Exception as exc:  # measured, not fatal: the baseline may refuse writes
                line: dict[str, Any] = {"turn": turn, "scope": scope, "error": repr(exc)}
            else:
                took = (time.perf_counter() - started) * 1000
                line = {"turn": turn, "scope": scope, "ms": took, "at": time.time()}
            # One flushed line per turn: a kill loses at most the line being written.
            acks.write(json.dumps(line) + "\n")
            acks.flush()

        for scope in spec.scopes:
            steps = spec.steps[:-1] if spec.hold_last else spec.steps
            for step in steps:
                one(scope, step)
        if spec.hold_last:
            scope = spec.scopes[-1]
            with internals(store).scope_lock(scope):
                Path(spec.held).touch()
                one(scope, spec.steps[-1])
                while True:  # held until killed
                    time.sleep(60)
        if spec.held:  # deferred fault test: submitted; killed while the workers write
            Path(spec.held).touch()
            while True:
                time.sleep(60)
        writes.drain()
        acks.write(json.dumps({"drained": time.time()}) + "\n")
    store.close()


# -- the parent: processes, checks -------------------------------------------------------------


@dataclass
class Worker:
    """A started worker process and its files."""

    spec: WorkerSpec
    proc: subprocess.Popen[bytes]
    log_path: Path

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"worker {self.spec.worker} exited early:\n{self.tail()}")
        return Path(self.spec.ready).exists()

    def tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]


def spawn(spec: WorkerSpec) -> Worker:
    """Start a worker process for ``spec``; its output goes beside its acks file."""
    env = {k: v for k, v in os.environ.items() if k not in STORE_ENV}
    root = Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    log_path = Path(spec.acks).with_suffix(".log")
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.multiprocess", "worker", json.dumps(asdict(spec))],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=root,
        )
    return Worker(spec, proc, log_path)


def wait_ready(workers: Sequence[Worker]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not all(w.ready() for w in workers):
        if time.monotonic() > deadline:
            raise RuntimeError("workers were not ready in time")
        time.sleep(0.05)


def read_acks(paths: Sequence[str]) -> list[dict[str, Any]]:
    """Every complete line of the workers' acks files (a killed worker's last line may
    be cut off: it was not acknowledged)."""
    lines = []
    for path in paths:
        if not Path(path).exists():
            continue
        for raw in Path(path).read_text(encoding="utf-8").splitlines():
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                continue
    return [line for line in lines if "turn" in line]


def drained_at(paths: Sequence[str]) -> list[float]:
    """When each process that finished saw the queue drained (its acks file's last line)."""
    out = []
    for path in paths:
        for raw in Path(path).read_text(encoding="utf-8").splitlines():
            if raw.startswith('{"drained"'):
                out.append(float(json.loads(raw)["drained"]))
    return out


@dataclass
class Checked:
    """What the checks found in some scopes of one database."""

    duplicates: int = 0
    duplicate_scopes: int = 0
    lost: int = 0
    order_violations: int = 0
    failed_decisions: int = 0
    failed_errors: list[str] = field(default_factory=list)
    decided_twice: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def order_ok(self) -> bool:
        return self.order_violations == 0 and self.decided_twice == 0

    def report(self) -> dict[str, Any]:
        """The fields every run reports (load and fault alike)."""
        return {
            "duplicates": self.duplicates,
            "lost": self.lost,
            "order_violations": self.order_violations,
            "order_ok": self.order_ok,
            "decided_twice": self.decided_twice,
            "failed_decisions": self.failed_decisions,
            "failed_errors": self.failed_errors,
            "examples": self.examples,
        }


def spread(name: str, ms: list[float]) -> dict[str, Any]:
    """``ms`` under ``<name>_ms``, with its median and maximum (0 when empty)."""
    return {
        f"{name}_ms": ms,
        f"{name}_p50_ms": statistics.median(ms) if ms else 0.0,
        f"{name}_max_ms": max(ms, default=0.0),
    }


def check_scopes(store: Any, acknowledged: dict[str, list[str]]) -> Checked:
    """Duplicates, lost turns and order in each scope of ``acknowledged`` (scope ->
    turn ids acknowledged there), from the scope's export: every version and decision."""
    found = Checked()
    for scope, turns in acknowledged.items():
        export = store.export(scope)
        memories, decisions = export["memories"], export["decisions"]
        live = [
            m
            for m in memories
            if m["valid_until"] is None and not m["metadata"].get("episode", False)
        ]
        per_slot = Counter(slot_of(m["text"]) for m in live)
        extra = sum(n - 1 for n in per_slot.values() if n > 1)
        found.duplicates += extra
        found.duplicate_scopes += extra > 0
        if extra and len(found.examples) < 5:
            found.examples.append(f"{scope}: {sorted(m['text'] for m in live)}")
        decided = {d["turn_id"] for d in decisions}
        lost = [t for t in turns if t not in decided]
        found.lost += len(lost)
        if lost and len(found.examples) < 5:
            found.examples.append(f"{scope}: no decision for turns {lost}")
        failed = [d for d in decisions if d["status"] == "failed"]
        found.failed_decisions += len(failed)
        found.failed_errors += [f"{scope}: {d['error']}" for d in failed]
        # One order: no version closed by two decisions, and one live version per memory.
        closing = Counter(
            d["target_id"]
            for d in decisions
            if d["op"] in ("UPDATE", "DELETE") and d["status"] == "applied"
        )
        # A turn replayed (a killed worker's claim taken again) decides only what the
        # log does not have: a fact decided twice for one turn was written twice.
        twice = Counter((d["turn_id"], d["fact"]) for d in decisions if d["status"] != "failed")
        found.decided_twice += sum(n - 1 for n in twice.values() if n > 1)
        live_keys = Counter(m["key"] for m in live)
        found.order_violations += sum(n - 1 for n in closing.values() if n > 1)
        found.order_violations += sum(n - 1 for n in live_keys.values() if n > 1)
    return found


def dropped(logs: Sequence[Path]) -> int:
    """How many turns the workers' write path dropped as begun before a purge of their
    scope (its warning, ``DROPPED``, in their logs)."""
    return sum(
        int(line.split("langgraph_memory: ", 1)[1].split()[0])
        for path in logs
        for line in path.read_text(errors="replace").splitlines()
        if DROPPED in line and "langgraph_memory: " in line
    )


def by_scope(acks: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Acknowledged turn ids per scope (a refused turn is not acknowledged)."""
    out: dict[str, list[str]] = {}
    for a in acks:
        if "error" not in a:
            out.setdefault(a["scope"], []).append(a["turn"])
    return out


def server_store(
    chroma: ChromaServer,
    database: str,
    lock: str | None,
    emb: str,
    *,
    new: bool = True,
    queue: str | None = None,
) -> Any:
    """A store on ``database`` (made first when ``new``), on an HTTP client of its own
    (two of them in one process are what two processes are), with ``lock`` and
    ``queue``."""
    if new:
        chroma.client(database)
    spec = WorkerSpec(0, lock, chroma.host, chroma.port, database, [], [], "", "", "", "", emb)
    spec.queue = queue
    return open_store(spec)


def options(kind: str, url: str | None) -> dict[str, Any]:
    """A worker's lock, queue and mode for lock kind ``kind`` on server ``url``."""
    if kind == "deferred":
        # The queue's Postgres gives the store its scope locks too.
        return {"lock": None, "queue": url, "mode": "deferred"}
    return {"lock": url, "queue": None, "mode": "inline"}


def new_database(kind: str) -> str:
    return f"mp_{kind}_{uuid.uuid4().hex[:12]}"


def load_run(
    chroma: ChromaServer,
    kind: str,
    lock: str | None,
    workers: int,
    scopes: int,
    *,
    emb: str,
    root: Path,
) -> dict[str, Any]:
    """W processes writing every scope's script at once, their first turns making the
    scopes; what the checks found."""
    database = new_database(kind)
    store = server_store(chroma, database, None, emb)  # no lock: no worker is running yet
    run = uuid.uuid4().hex[:8]
    folder = root / f"load-{kind}-{workers}-{run}"
    folder.mkdir()
    go = folder / "go"
    names = [f"user:u{i}" for i in range(scopes)]
    started = [
        spawn(
            WorkerSpec(
                worker=w,
                host=chroma.host,
                port=chroma.port,
                database=database,
                scopes=names,
                steps=list(range(len(SCRIPT))),
                run=run,
                ready=str(folder / f"ready-{w}"),
                go=str(go),
                acks=str(folder / f"acks-{w}.jsonl"),
                embedder=emb,
                **options(kind, lock),
            )
        )
        for w in range(workers)
    ]
    try:
        wait_ready(started)
        began = time.time()
        go.touch()
        for w in started:
            if w.proc.wait() != 0:
                raise RuntimeError(f"worker {w.spec.worker} failed:\n{w.tail()}")
        acks = read_acks([w.spec.acks for w in started])
        written = [a for a in acks if "error" not in a]
        found = check_scopes(store, by_scope(acks))
    finally:
        for w in started:
            if w.proc.poll() is None:
                w.proc.kill()
                w.proc.wait()
        store.close()
    # Inline, the last acknowledgement; deferred, the last process to see the queue empty.
    ends = [a["at"] for a in written] + drained_at([w.spec.acks for w in started])
    seconds = max(ends, default=began) - began
    ms = [a["ms"] for a in written]
    return {
        "lock": kind,
        "workers": workers,
        "scopes": scopes,
        "turns": workers * scopes * len(SCRIPT),
        "acknowledged": len(written),
        "refused": len(acks) - len(written),
        **found.report(),
        "duplicate_scopes": found.duplicate_scopes,
        "dropped_as_purged": dropped([w.log_path for w in started]),
        "seconds": seconds,
        "turns_per_s": len(written) / seconds if seconds > 0 else 0.0,
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "errors": sorted({a["error"] for a in acks if "error" in a})[:5],
    }


def fault_run(
    chroma: ChromaServer, kind: str, lock: str, kills: int, *, emb: str, root: Path
) -> dict[str, Any]:
    """``kills`` processes each killed holding a scope's lock mid-write; this process
    waits for the scope meanwhile and writes it once free."""
    from langgraph_memory import MemoryWriter
    from langgraph_memory.store import internals
    from langgraph_memory.write import RulesModel

    database = new_database(f"fault_{kind}")
    store = server_store(chroma, database, lock, emb)
    writer = MemoryWriter(store, RulesModel())
    run = uuid.uuid4().hex[:8]
    folder = root / f"fault-{kind}-{run}"
    folder.mkdir()
    rng = random.Random(kills)

    def victim(i: int) -> Worker:
        return spawn(
            WorkerSpec(
                worker=i,
                lock=lock,
                host=chroma.host,
                port=chroma.port,
                database=database,
                scopes=[f"user:f{i}"],
                steps=[0, 1, 2],  # the last, a move, is written holding the lock
                run=run,
                ready=str(folder / f"ready-{i}"),
                go=str(folder / f"go-{i}"),
                acks=str(folder / f"acks-{i}.jsonl"),
                embedder=emb,
                hold_last=True,
                held=str(folder / f"held-{i}"),
            )
        )

    # Started a few ahead: a process takes seconds to import and open its store.
    ahead = 3
    pending = [victim(i) for i in range(min(ahead, kills))]
    spawned = list(pending)
    unblock_ms: list[float] = []
    mid_write = 0
    parent_turns: dict[str, list[str]] = {}
    try:
        for i in range(kills):
            current = pending.pop(0)
            if i + ahead < kills:
                pending.append(victim(i + ahead))
                spawned.append(pending[-1])
            wait_ready([current])
            Path(current.spec.go).touch()
            scope = current.spec.scopes[0]
            deadline = time.monotonic() + START_TIMEOUT_S
            while not Path(current.spec.held).exists():
                if current.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"victim {i} never held its lock:\n{current.tail()}")
                time.sleep(0.001)
            acquired: list[float] = []

            def wait_and_write(scope: str = scope, acquired: list[float] = acquired) -> None:
                with internals(store).scope_lock(scope):
                    acquired.append(time.monotonic())
                    turn = f"{run}-parent-{scope.replace(':', '_')}"
                    writer.write_turn(scope, [("user", turn_text(3, 0))], turn_id=turn)
                    parent_turns.setdefault(scope, []).append(turn)

            waiter = threading.Thread(target=wait_and_write)
            waiter.start()
            time.sleep(rng.uniform(0, KILL_DELAY_S))
            os.kill(current.proc.pid, signal.SIGKILL)
            killed = time.monotonic()
            current.proc.wait()
            waiter.join(60)
            if not acquired:
                raise RuntimeError(f"the scope of killed victim {i} stayed blocked for 60 s")
            unblock_ms.append((acquired[0] - killed) * 1000)
            # The kill's turn unacknowledged: the kill came mid-write.
            last = turn_id(run, i, scope, current.spec.steps[-1])
            mid_write += all(a["turn"] != last for a in read_acks([current.spec.acks]))
        acks = read_acks([f"{folder}/acks-{i}.jsonl" for i in range(kills)])
        acknowledged = by_scope(acks)
        for scope, turns in parent_turns.items():
            acknowledged.setdefault(scope, []).extend(turns)
        found = check_scopes(store, acknowledged)
    finally:
        for w in pending:
            w.proc.kill()
            w.proc.wait()
        store.close()
    return {
        "lock": kind,
        "lock_url_options": "lease=1" if kind == "redis" else "",
        "kills": kills,
        "killed_mid_write": mid_write,
        "acknowledged": sum(len(t) for t in acknowledged.values()),
        **found.report(),
        "dropped_as_purged": dropped([w.log_path for w in spawned]),
        **spread("unblock", unblock_ms),
    }


def deferred_fault_run(
    chroma: ChromaServer, url: str, kills: int, *, emb: str, root: Path
) -> dict[str, Any]:
    """``kills`` processes each killed just after submitting turns to three scopes of a
    shared queue, its workers inside the first; another process's ``BackgroundWriter``
    then writes what it left."""
    from langgraph_memory import BackgroundWriter, MemoryWriter
    from langgraph_memory.store import internals
    from langgraph_memory.write import RulesModel

    database = new_database("fault_deferred")
    store = server_store(chroma, database, None, emb, queue=url)
    run = uuid.uuid4().hex[:8]
    folder = root / f"fault-deferred-{run}"
    folder.mkdir()
    rng = random.Random(kills)

    def victim(i: int) -> Worker:
        return spawn(
            WorkerSpec(
                worker=i,
                host=chroma.host,
                port=chroma.port,
                database=database,
                scopes=[f"user:f{i}{part}" for part in "abc"],
                steps=list(range(len(SCRIPT))),
                run=run,
                ready=str(folder / f"ready-{i}"),
                go=str(folder / f"go-{i}"),
                acks=str(folder / f"acks-{i}.jsonl"),
                embedder=emb,
                held=str(folder / f"submitted-{i}"),
                **options("deferred", url),
            )
        )

    ahead = 3
    pending = [victim(i) for i in range(min(ahead, kills))]
    spawned = list(pending)
    unblock_ms: list[float] = []
    drained_ms: list[float] = []
    queued_at_kill: list[int] = []
    try:
        for i in range(kills):
            current = pending.pop(0)
            if i + ahead < kills:
                pending.append(victim(i + ahead))
                spawned.append(pending[-1])
            wait_ready([current])
            Path(current.spec.go).touch()
            deadline = time.monotonic() + START_TIMEOUT_S
            while not Path(current.spec.held).exists():
                if current.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"victim {i} never submitted:\n{current.tail()}")
                time.sleep(0.001)
            time.sleep(rng.uniform(0, KILL_DELAY_S))
            os.kill(current.proc.pid, signal.SIGKILL)
            killed = time.monotonic()
            current.proc.wait()
            with internals(store).scope_lock(current.spec.scopes[0]):
                unblock_ms.append((time.monotonic() - killed) * 1000)
            survivor = BackgroundWriter(MemoryWriter(store, RulesModel()))
            queued_at_kill.append(survivor.pending)
            deadline = time.monotonic() + DRAIN_TIMEOUT_S
            while survivor.pending:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the queue kept {survivor.pending} turns of victim {i}")
                time.sleep(0.02)
            drained_ms.append((time.monotonic() - killed) * 1000)
            survivor.close(timeout=60)
        acknowledged = by_scope(read_acks([f"{folder}/acks-{i}.jsonl" for i in range(kills)]))
        found = check_scopes(store, acknowledged)
    finally:
        for w in pending:
            w.proc.kill()
            w.proc.wait()
        store.close()
    return {
        "lock": "deferred",
        "lock_url_options": "",
        "kills": kills,
        "killed_mid_write": 0,  # not known: the turns in flight are the queue's
        "queued_at_kill": queued_at_kill,
        "acknowledged": sum(len(t) for t in acknowledged.values()),
        **found.report(),
        "dropped_as_purged": dropped([w.log_path for w in spawned]),
        **spread("unblock", unblock_ms),
        **spread("drained", drained_ms),
    }


# -- the whole run ---------------------------------------------------------------------------


@contextmanager
def lock_servers(kinds: Sequence[str]) -> Iterator[dict[str, str | None]]:
    """The server URL of each kind in ``kinds``, its server started (``none``: None;
    ``deferred``: the Postgres of ``postgres``, one server for both)."""
    with ExitStack() as stack:
        urls: dict[str, str | None] = {}
        postgres: str | None = None
        for kind in kinds:
            if kind in ("postgres", "deferred"):
                postgres = postgres or stack.enter_context(running_postgres()).url
                urls[kind] = postgres
            elif kind == "redis":
                urls[kind] = stack.enter_context(running_redis()).url
            else:
                urls[kind] = None
        yield urls


def measure(
    chroma: ChromaServer,
    locks: dict[str, str | None],
    *,
    workers: Sequence[int],
    scopes: int,
    kills: int,
    emb: str = "minilm",
) -> dict[str, Any]:
    """The load runs (every lock of ``locks`` x ``workers``) and the fault runs (every
    lock but ``none``); the report without its total time."""
    root = Path(tempfile.mkdtemp(prefix="lgm-multiprocess-"))
    load, fault = [], []
    # Worker count outside, lock kind inside: the kinds compared at one count run close
    # together in time, so a machine shared with other work skews them alike.
    for w in workers:
        for kind, url in locks.items():
            row = load_run(chroma, kind, url, w, scopes, emb=emb, root=root)
            log(
                f"load {kind} x{w}: dup {row['duplicates']} lost {row['lost']} "
                f"order {'ok' if row['order_ok'] else 'BROKEN'} {row['turns_per_s']:.1f} turns/s"
            )
            load.append(row)
    for kind, url in locks.items():
        if url is None or kills <= 0:
            continue
        if kind == "deferred":
            row = deferred_fault_run(chroma, url, kills, emb=emb, root=root)
        else:
            fault_url = f"{url}?lease={FAULT_LEASE_S:g}" if kind == "redis" else url
            row = fault_run(chroma, kind, fault_url, kills, emb=emb, root=root)
        log(f"fault {kind}: lost {row['lost']} dup {row['duplicates']} {row['unblock_ms']}")
        fault.append(row)
    report: dict[str, Any] = {
        "load": load,
        "fault": fault,
        "config": {
            "workers": list(workers),
            "scopes": scopes,
            "steps": len(SCRIPT),
            "script": [list(s) for s in SCRIPT],
            "kills": kills,
            "fault_redis_lease_s": FAULT_LEASE_S,
            **machine(emb),
        },
    }
    report["table"] = render_markdown(report).splitlines()
    return report


def render_markdown(report: dict[str, Any]) -> str:
    """The load and fault tables in Markdown."""
    out = [
        "## Processes writing one memory on one `chroma run`",
        "",
        "| lock | workers | turns | duplicates | lost (dropped as purged) | failed decisions "
        "| order ok | turns/s | p50 ms | p95 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in report["load"]:
        out.append(
            f"| {LABELS.get(r['lock'], r['lock'])} | {r['workers']} | "
            f"{r['acknowledged']}/{r['turns']} | "
            f"{r['duplicates']} | {r['lost']} ({r['dropped_as_purged']}) | "
            f"{r['failed_decisions']} | {'yes' if r['order_ok'] else 'no'} | "
            f"{r['turns_per_s']:.1f} | {r['p50_ms']:.0f} | {r['p95_ms']:.0f} |"
        )
    out += [
        "",
        "| lock | kills (mid-write) | acknowledged | lost | duplicates | order ok | "
        "unblock p50 ms | unblock max ms | queue drained p50 ms |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in report["fault"]:
        mid = "?" if r["lock"] == "deferred" else r["killed_mid_write"]
        drained = f"{r['drained_p50_ms']:.0f}" if "drained_p50_ms" in r else "-"
        out.append(
            f"| {LABELS.get(r['lock'], r['lock'])} | {r['kills']} ({mid}) | "
            f"{r['acknowledged']} | {r['lost']} | {r['duplicates']} | "
            f"{'yes' if r['order_ok'] else 'no'} | {r['unblock_p50_ms']:.0f} | "
            f"{r['unblock_max_ms']:.0f} | {drained} |"
        )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Start the servers, run the load and fault tests, print the tables, write the JSON
    (and its chart beside it)."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["worker"]:
        run_worker(WorkerSpec(**json.loads(args_in[1])))
        return 0
    p = argparse.ArgumentParser(
        prog="python -m benchmarks multiprocess",
        description="Processes writing one memory on one chroma run, with and without a lock.",
    )
    p.add_argument("--quick", action="store_true", help="2 workers x 8 scopes, 3 kills")
    p.add_argument("--locks", nargs="+", choices=LOCK_KINDS, default=list(LOCK_KINDS))
    p.add_argument("--workers", type=int, nargs="+", help="worker counts (default 1 2 4)")
    p.add_argument("--scopes", type=int, help="scopes each worker writes (default 50)")
    p.add_argument("--kills", type=int, help="kills per lock kind (default 10)")
    p.add_argument("--embedder", choices=["minilm", "hashed"], default="minilm")
    p.add_argument("--out", type=Path, help="write the report as JSON here (and a PNG beside)")
    args = p.parse_args(args_in)
    workers = args.workers or ([2] if args.quick else [1, 2, 4])
    scopes = args.scopes or (8 if args.quick else 50)
    kills = args.kills if args.kills is not None else (3 if args.quick else 10)
    began = time.perf_counter()
    for name in STORE_ENV:  # this process's stores get only what they are given
        os.environ.pop(name, None)
    with (
        tempfile.TemporaryDirectory(prefix="lgm-chroma-") as data,
        running_chroma(Path(data) / "chroma") as chroma,
        lock_servers(args.locks) as locks,
    ):
        report = measure(
            chroma,
            locks,
            workers=workers,
            scopes=scopes,
            kills=kills,
            emb=args.embedder,
        )
    status = publish(report, began=began, out=args.out, render=render_markdown)
    if args.out:
        from benchmarks.plots import multiprocess_chart

        print(f"wrote {multiprocess_chart(report, args.out.with_suffix('.png'))}")
    return status


if __name__ == "__main__":
    sys.exit(main())
