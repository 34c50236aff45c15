"""Users, not memories: what one service pays for the number of people it remembers
(issue 41, point 1).

Every other benchmark grows one person to 100k memories. A service is the other shape:
many people, each with tens to hundreds of memories. This one grows the number of user
scopes in one store, in one run, and measures at each size::

    python -m benchmarks users --data ../shared/data --out docs/results/users.json
    python -m benchmarks users --quick --data ../shared/data     # 200 and 1,000 users, embedded
    python -m benchmarks users --sizes 1000,10000 --modes embedded,server
    python -m benchmarks users --sizes 1000,10000,100000 --modes embedded --keep /tmp/users
    python -m benchmarks users --sizes 1000,10000,100000 --modes embedded,server-copy --keep /tmp/u

A run to 100,000 users takes about an hour here (loading through ``add_people``). With ``--keep
DIR`` its stores and progress stay in ``DIR``: Ctrl-C (or SIGTERM) stops it between two
users, or after the size it is measuring, with the store closed whole, and the same
command goes on from there. Each row names the commit it was measured at; the report says
when the sizes of a mode were measured at different ones.

**Data.** Real user turns of LongMemEval-S (``benchmarks/real_text.py``: distinct, in a fixed
order), dealt out to users: each user's number of memories is drawn from a long-tailed
(log-normal) distribution, median 12, clipped to 5..200. A turn goes to one user only until
the stream runs out; then it is dealt again (the report says how many were).

**Embedders.** Memories are stored with hashed unit vectors (``HashedUnitEmbeddings``): the
model's time would hide the store's when loading and adding. A read embeds its question
with the shipped model (``LocalMiniLM``), as a service does, so a read's figures hold the
model's few milliseconds; its cost beside them is the store's. The vectors of the two do
not meet in meaning (the nearest of a question is a random memory): this measures cost,
not recall (``python -m benchmarks retrieval`` does that).

**Measured at each size** (``p50``/``p95`` in ms):

- ``rss_mb``: this process's resident memory, and ``rss_store_mb`` the part of it the
  store took, right after it opened: over what the process held before (the corpus and
  the model loaded, and what an earlier mode of the run left: Python keeps what it
  freed); ``rss_served_mb`` the same after the size's measures and ``touch`` more people
  read (``touched`` people in all: a process that served many); on a server, the
  ``chroma run`` server's too (``server_rss_mb``), which the RSS target counts with the
  app's. The people are loaded by a process of its own (``load_in_child``), so this one
  serves a store it did not fill, as a service does after a restart; that loader's peak
  is ``load_peak_rss_mb``;
- ``read_cold``: ``retrieve`` of a random user not read before at this size;
  ``read_warm``: of a user of a small set read over and over (the same people at every
  size, drawn among those the first size holds: a warm read costs what its person holds);
- ``graph_read``: the same warm read through ``memory_read_node`` in a compiled graph;
- ``add``: ``MemoryStore.add`` of one memory to a random existing user;
- ``first_add``: a new user's first write (the add that makes its scope);
  ``new_user``: its first five adds, the whole;
- ``disk_per_user_kb``: the disk new five-memory users took, per user (over 256 of
  them by default, four buckets: the timed new users and more loaded with ``add_many``;
  ``--disk-users``), not
  counting SQLite's write-ahead logs, which a store keeps once whatever its people
  (``lexical/buckets.db-wal`` is held to 512 kB: filling it during the 256 read as 2 kB
  a person); and the whole store's disk per user, logs and all;
- ``open_s``: opening the store again (a new ``MemoryStore`` on the directory or server;
  the process opened a store once before, on an empty folder: ``warm_imports``).

**``server-copy``** (with ``embedded``): at each size, once the embedded store is measured and
closed, its directory is copied and served by ``chroma run`` (a store's Chroma data is the
same whichever client wrote it), and the same figures are measured through the server;
the copy is then deleted, so the embedded store goes on as if it had not been served. The
server half of a run to 100,000 people then costs its measures, not a second loading
through the server (hours here). Its disk figures are the server's writes to the copy.

Stores are opened with the shipped defaults, their cache budget (``cache_mb``) among
them; the ``chroma run`` server keeps ``SERVER_CACHE_INDEXES`` indexes in memory (its own
default keeps all it ever loaded: see docs/scaling.md), or ``--server-cache N``.

Growth is each figure over the first size's, in the same run. The targets (issue 41):
read p50 growth <= 1.3x from the first size to the last (cold and warm), a new user's
first write <= 2x an add, disk per five-memory user <= 32 KB, RSS <= 1 GB, and what
serving added to the open store's RSS within the store's cache budget.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import gc
import json
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.real_text import load_corpus
from benchmarks.reports import machine, publish
from benchmarks.scale import disk_bytes, rss_bytes, stats
from benchmarks.servers import ChromaServer, running_chroma
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.graph import MemoryState, memory_read_node
from langgraph_memory.read import retrieve
from langgraph_memory.store import BUCKET_SCOPES, Budget, MemoryStore, add_people

#: Memories per user: log-normal around this median, clipped to ``MEMORIES``.
MEDIAN_MEMORIES = 12
MEMORIES = (5, 200)
#: A new user's first write: this many adds.
FIRST_WRITE = 5
#: Which users are read warm: the same at every size (``measure_size``).
WARM_SEED = 13
#: New five-memory users whose disk is measured: 256, several buckets' worth (``layout``)
#: since Chroma's files grow in steps, so that a step is shared by the users it serves.
DISK_USERS = max(256, BUCKET_SCOPES)


#: Users loaded in one ``MemoryStore.add_people`` call (``load_users``).
LOAD_AT_ONCE = 200

#: The mode measured through a ``chroma run`` serving a copy of the embedded store.
SERVER_COPY = "server-copy"

#: The vector indexes the ``chroma run`` server keeps in memory (docs/scaling.md: its own
#: default keeps every index it ever loaded), as a service would set it.
SERVER_CACHE_INDEXES = 256


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[users] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Plan:
    """What one run measures: the user counts, and the samples at each."""

    sizes: tuple[int, ...]
    reads: int
    adds: int
    new_users: int
    warm_users: int
    modes: tuple[str, ...]
    #: The ``chroma run`` server's index capacity (``--server-cache``).
    server_cache: int = SERVER_CACHE_INDEXES
    #: New five-memory users the disk figure is measured over (``--disk-users``).
    disk_users: int = DISK_USERS
    #: More users read once each, after the size's other measures and before its memory
    #: is measured again (``rss_served_mb``): a process that served many people.
    touch: int = 2000


QUICK = Plan(
    sizes=(200, 1000),
    reads=40,
    adds=30,
    new_users=10,
    warm_users=10,
    modes=("embedded",),
    touch=200,
)
FULL = Plan(
    sizes=(1000, 10_000, 100_000),
    reads=200,
    adds=150,
    new_users=40,
    warm_users=20,
    modes=("embedded", "server"),
)


class ReadEmbeddings(Embeddings):
    """Stored texts get hashed vectors, questions the shipped model's (see the module).

    >>> e = ReadEmbeddings(HashedUnitEmbeddings(), HashedUnitEmbeddings())
    >>> len(e.embed_documents(["a"])[0]), len(e.embed_query("b"))
    (384, 384)
    """

    #: The store records one embedder's name per directory: this pairing's.
    name = "bench-users-hashed-docs-minilm-queries"

    def __init__(self, documents: Embeddings, queries: Embeddings) -> None:
        self.documents = documents
        self.queries = queries

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Hashed vectors: what a memory is stored with."""
        return self.documents.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """The shipped model's vector of a question."""
        return self.queries.embed_query(text)


def memory_counts(n: int, seed: int = 7) -> list[int]:
    """How many memories each of ``n`` users holds: long-tailed, ``MEMORIES`` bounds.

    >>> counts = memory_counts(1000)
    >>> min(counts), max(counts), sorted(counts)[500], round(sum(counts) / len(counts), 1)
    (5, 121, 11, 16.4)
    """
    rng = np.random.default_rng(seed)
    drawn = np.exp(rng.normal(np.log(MEDIAN_MEMORIES), 0.9, size=n))
    return [int(x) for x in np.clip(np.rint(drawn), *MEMORIES)]


class Texts:
    """The user turns of the corpus, dealt out in order, again from the start when the
    stream runs out (``reused`` counts those).

    >>> t = Texts(["a", "b"])
    >>> t.take(3), t.reused
    (['a', 'b', 'a'], 1)
    """

    def __init__(self, pool: Sequence[str]) -> None:
        self.pool = list(pool)
        self.next = 0
        self.reused = 0

    def take(self, n: int) -> list[str]:
        """The next ``n`` texts."""
        out = []
        for _ in range(n):
            if self.next >= len(self.pool):
                self.reused += 1
            out.append(self.pool[self.next % len(self.pool)])
            self.next += 1
        return out


def user(i: int) -> str:
    """The scope key of user ``i``."""
    return f"user:u{i:06d}"


def server_rss_bytes(port: int) -> int | None:
    """The resident memory of the process whose command line serves ``--port port`` or
    names its configuration file (the ``chroma run`` a benchmark started, see
    ``servers.running_chroma``), from ``/proc``; None when not found."""
    wanted = (f"--port\x00{port}".encode(), f"chroma-server-{port}.yaml".encode())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read()
                if not any(w in command for w in wanted):
                    continue
            with open(f"/proc/{pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            continue
    return None


def seconds(call: Any, *args: Any, **kwargs: Any) -> float:
    """How long ``call(*args, **kwargs)`` took.

    >>> seconds(sum, [1, 2]) >= 0
    True
    """
    start = time.perf_counter()
    call(*args, **kwargs)
    return time.perf_counter() - start


def read_graph(store: MemoryStore) -> Any:
    """START -> memory read node -> END: a turn's read, as a graph runs it."""
    builder = StateGraph(MemoryState)
    builder.add_node("read", memory_read_node(store, k=5))
    builder.add_edge(START, "read")
    builder.add_edge("read", END)
    return builder.compile()


@dataclass
class Place:
    """Where one mode's store lives: a directory, or a server (and its directory)."""

    mode: str
    folder: Path
    server: ChromaServer | None = None

    def open(self, embeddings: Embeddings) -> MemoryStore:
        """A new ``MemoryStore`` on this place."""
        if self.server is None:
            return MemoryStore(self.folder, embeddings=embeddings)
        return MemoryStore(client=self.server.client(), embeddings=embeddings)


def warm_imports(embeddings: Embeddings) -> None:
    """Open and close a store in an empty folder: a process's first open imports
    Chroma's bindings and the store's modules (0.05-0.2 s), which the first size's
    open time would otherwise hold (0.07 s at 1,000 people against 0.01 s at 10,000 in
    the run at a04f04a)."""
    with tempfile.TemporaryDirectory() as folder:
        MemoryStore(folder, embeddings=embeddings).close()


@contextmanager
def place(mode: str, root: Path, server_cache: int, *, again: bool = False) -> Iterator[Place]:
    """A fresh embedded directory, or a fresh ``chroma run`` on one that keeps
    ``server_cache`` indexes in memory; ``again``: the directory a kept run left."""
    folder = root / mode
    folder.mkdir(parents=True, exist_ok=again)
    if mode == "embedded":
        yield Place(mode, folder)
        return
    with running_chroma(folder, cache_indexes=server_cache) as server:
        yield Place(mode, folder, server)


def measure_size(
    store: MemoryStore,
    where: Place,
    users: int,
    plan: Plan,
    texts: Texts,
    questions: Sequence[str],
    rng: random.Random,
    next_user: int,
    baseline_mb: float,
) -> tuple[dict[str, Any], int]:
    """Every figure at ``users`` users; the next free user number after the new users."""
    gc.collect()
    rss = rss_bytes() / 2**20
    row: dict[str, Any] = {"users": users, "rss_mb": rss, "rss_store_mb": rss - baseline_mb}
    if where.server is not None:
        served = server_rss_bytes(where.server.port)
        row["server_rss_mb"] = None if served is None else served / 2**20
    ask = [rng.choice(questions) for _ in range(plan.reads)]
    cold = rng.sample(range(users), min(plan.reads, users))
    row["read_cold"] = stats(
        [seconds(retrieve, store, user(u), q, k=5) for u, q in zip(cold, ask, strict=False)]
    )
    # The same warm users at every size (drawn among those every size holds): a warm
    # read costs what the user holds, and twenty users drawn afresh at each size made
    # its growth a comparison of different people (1.0 -> 1.7 ms from 200 to 1,000
    # in a quick run, the reads touching no Chroma at all).
    warm = [user(u) for u in random.Random(WARM_SEED).sample(range(plan.sizes[0]), plan.warm_users)]
    for scope in warm:  # read once: from here on these users are warm
        retrieve(store, scope, ask[0], k=5)
    row["read_warm"] = stats(
        [seconds(retrieve, store, warm[i % len(warm)], q, k=5) for i, q in enumerate(ask)]
    )
    graph = read_graph(store)
    row["graph_read"] = stats(
        [
            seconds(
                graph.invoke,
                {"messages": [HumanMessage(q)]},
                {"configurable": {"user_id": warm[i % len(warm)].split(":", 1)[1]}},
            )
            for i, q in enumerate(ask)
        ]
    )
    row["add"] = stats(
        [seconds(store.add, user(rng.randrange(users)), t) for t in texts.take(plan.adds)]
    )
    before = disk_bytes(where.folder, logs=False)
    firsts, wholes = [], []
    for n in range(plan.new_users):
        scope = user(next_user + n)
        took = [seconds(store.add, scope, t) for t in texts.take(FIRST_WRITE)]
        firsts.append(took[0])
        wholes.append(sum(took))
    row["first_add"] = stats(firsts)
    row["new_user"] = stats(wholes)
    # Disk grows in steps (Chroma doubles a vector index's file when it fills, SQLite
    # adds pages): measured over ``plan.disk_users`` new five-memory users, so that a
    # step is shared by the users it serves, as it is in a store.
    for n in range(plan.new_users, plan.disk_users):
        store.add_many(user(next_user + n), texts.take(FIRST_WRITE))
    after = disk_bytes(where.folder, logs=False)
    added = max(plan.new_users, plan.disk_users)
    row["disk_per_new_user_kb"] = (after - before) / added / 1024
    row["disk_per_user_kb"] = disk_bytes(where.folder) / (users + added) / 1024
    for u in rng.sample(range(users), min(plan.touch, users)):
        retrieve(store, user(u), rng.choice(questions), k=5)
    gc.collect()
    row["touched"] = len(cold) + plan.adds + added + min(plan.touch, users)
    row["rss_served_mb"] = rss_bytes() / 2**20 - baseline_mb
    return row, next_user + added


@dataclass
class Progress:
    """Where one mode's run stands: kept in ``--keep DIR`` after every user loaded, so
    that a run stopped (Ctrl-C, SIGTERM, a session's end) goes on where it was with the
    same command. The texts dealt and the measuring ``rng`` go on as they were.

    >>> p = Progress(sizes=[1000, 10000], loaded=20, rng=Progress.state(random.Random(1)))
    >>> q = Progress.parse(p.dumps())
    >>> q == p, q.generator().random() == random.Random(1).random()
    (True, True)
    """

    sizes: list[int]
    #: Users loaded (``user(0)`` .. ``user(loaded - 1)``).
    loaded: int = 0
    #: The next new user's number (``measure_size``).
    extra: int = 0
    texts_next: int = 0
    texts_reused: int = 0
    #: The measuring generator's state (``random.Random.getstate``), as JSON.
    rng: str = ""
    #: Seconds spent loading toward the next size, over every process that did.
    load_s: float = 0.0
    #: The most memory a loading process held toward the next size (``Loaded``).
    load_peak_rss_mb: float = 0.0
    rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: The rows of ``server-copy``, measured beside ``rows`` (see the module).
    served_rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @staticmethod
    def state(rng: random.Random) -> str:
        """``rng``'s state as JSON."""
        return json.dumps(rng.getstate())

    def generator(self) -> random.Random:
        """A generator in the kept state."""
        version, internal, gauss = json.loads(self.rng)
        rng = random.Random()
        rng.setstate((version, tuple(internal), gauss))
        return rng

    def dumps(self) -> str:
        """The progress as JSON."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def parse(cls, text: str) -> Progress:
        """The progress ``dumps`` wrote."""
        return cls(**json.loads(text))

    def write(self, path: Path) -> None:
        """Keep it at ``path``, whole or not at all."""
        partial = path.with_suffix(".partial")
        partial.write_text(self.dumps(), encoding="utf-8")
        os.replace(partial, path)


class Stopped(Exception):
    """A kept run was asked to stop (SIGINT or SIGTERM) and stopped between two users,
    or after the size it was measuring."""


@contextmanager
def stop_between_users(keep: bool) -> Iterator[list[int]]:
    """With ``keep``, SIGINT and SIGTERM noted in the list instead of raised: the run
    checks it between two users and after a size's measures, so that no user is left
    half loaded, no size half measured, and the store is closed whole."""
    asked: list[int] = []
    if not keep:
        yield asked
        return
    previous = {
        sig: signal.signal(sig, lambda number, _frame: asked.append(number))
        for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield asked
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def load_users(
    store: MemoryStore,
    start: int,
    stop: int,
    counts: Sequence[int],
    texts: Texts,
    kept: Callable[[int], None] | None = None,
    asked: Sequence[int] = (),
) -> None:
    """Users ``start``..``stop - 1`` with their memories, ``LOAD_AT_ONCE`` at a time
    through ``langgraph_memory.store.add_people`` (what ``add_many`` for each stores, in a write
    per bucket: ~20 ms a user here where one by one took 45-110). ``kept`` is called
    with the users loaded after each group; once ``asked`` holds a signal, the loading
    stops after the group it is at (``Stopped``). The caller times it, stopped or not."""
    for first in range(start, stop, LOAD_AT_ONCE):
        last = min(first + LOAD_AT_ONCE, stop)
        add_people(store, {user(i): texts.take(counts[i]) for i in range(first, last)})
        if kept is not None:
            kept(last)
        if last // 1000 > first // 1000:
            log(f"  {last:,} users loaded")
        if asked:
            raise Stopped(f"stopped at {last:,} users loaded")


@dataclass(frozen=True)
class LoadJob:
    """What the loading process is given: where the store is, which users to load, the
    texts and where their stream stands, and the progress file it keeps (``--keep``)."""

    mode: str
    folder: Path
    host: str | None
    port: int | None
    start: int
    stop: int
    counts: list[int]
    pool: list[str]
    texts_next: int
    texts_reused: int
    #: The progress file, and the progress to keep in it as users are loaded (JSON).
    kept: Path | None = None
    progress: str = ""


@dataclass(frozen=True)
class Loaded:
    """What the loading process did: users loaded in all, where the texts' stream
    stands, how long it took, its peak memory, and whether it was asked to stop."""

    loaded: int
    texts_next: int
    texts_reused: int
    seconds: float
    peak_rss_mb: float
    stopped: bool


def load_job(job: LoadJob) -> Loaded:
    """Load ``job``'s users into its store, closed whole at the end (stopped or not):
    run in a process of its own (``load_in_child``). Stored texts get hashed vectors as
    in the measuring process; no question is asked here, so the model is not loaded."""
    hashed = HashedUnitEmbeddings()
    embeddings = ReadEmbeddings(hashed, hashed)  # the same name: the store takes it
    if job.host is None:
        store = MemoryStore(job.folder, embeddings=embeddings)
    else:
        server = ChromaServer(job.host, job.port or 0, job.folder)
        store = MemoryStore(client=server.client(), embeddings=embeddings)
    texts = Texts(job.pool)
    texts.next, texts.reused = job.texts_next, job.texts_reused
    progress = Progress.parse(job.progress) if job.kept is not None else None
    loaded = [job.start]

    def kept(users: int) -> None:
        loaded[0] = users
        if progress is not None and job.kept is not None:
            progress.loaded, progress.texts_next, progress.texts_reused = (
                users,
                texts.next,
                texts.reused,
            )
            progress.write(job.kept)

    stopped = False
    began = time.perf_counter()
    with stop_between_users(job.kept is not None) as asked:
        try:
            load_users(store, job.start, job.stop, job.counts, texts, kept, asked)
        except Stopped:
            stopped = True
        finally:
            store.close()  # whole: the measuring process trusts what this one wrote
    return Loaded(
        loaded=loaded[0],
        texts_next=texts.next,
        texts_reused=texts.reused,
        seconds=time.perf_counter() - began,
        peak_rss_mb=rss_bytes("VmHWM") / 2**20,
        stopped=stopped,
    )


def load_in_child(job: LoadJob) -> Loaded:
    """``load_job`` in a new process: the measuring process serves a store it did not
    fill, as a service does after a restart, and what making the people took (Chroma
    keeps memory for every collection it wrote, see docs/results/users.md) stays in
    the loader, whose peak is reported apart (``load_peak_rss_mb``)."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(load_job, job).result()


def commit() -> str | None:
    """The checkout's commit (short, ``-dirty`` with changes not committed), which a row
    was measured at; None outside git."""
    try:
        found = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=7"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return found.stdout.strip() or None


def run_mode(
    mode: str,
    plan: Plan,
    pool: Sequence[str],
    questions: Sequence[str],
    embeddings: Embeddings,
    root: Path,
    *,
    keep: bool = False,
    served: bool = False,
) -> list[dict[str, Any]]:
    """One store grown through the plan's sizes; a row per size. With ``keep``, ``root``
    holds the store and its ``Progress`` after every user, and a run found there goes on
    (``Stopped`` when asked to stop). With ``served`` (an embedded mode), a ``server-copy``
    row per size as well, in a mode of its own (see the module)."""
    kept = root / f"{mode}.progress.json"
    progress = Progress(sizes=list(plan.sizes), extra=max(plan.sizes))
    progress.rng = Progress.state(random.Random(11))
    resumed = keep and kept.exists()
    if resumed:
        progress = Progress.parse(kept.read_text(encoding="utf-8"))
        if progress.sizes != list(plan.sizes):
            raise SystemExit(
                f"{kept} is a run of {progress.sizes} users, not {list(plan.sizes)}: "
                "give the same --sizes, or another --keep folder"
            )
        log(f"{mode}: going on from {progress.loaded:,} users ({len(progress.rows)} sizes done)")
    texts = Texts(pool)
    texts.next, texts.reused = progress.texts_next, progress.texts_reused
    rng = progress.generator()
    gc.collect()
    baseline_mb = rss_bytes() / 2**20
    counts = memory_counts(max(plan.sizes))

    def keep_progress(loaded: int) -> None:
        progress.loaded, progress.texts_next, progress.texts_reused = (
            loaded,
            texts.next,
            texts.reused,
        )
        progress.write(kept)

    rows = progress.rows
    warm_imports(embeddings)
    with ExitStack() as stack:
        asked = stack.enter_context(stop_between_users(keep))
        where = stack.enter_context(place(mode, root, plan.server_cache, again=resumed))
        for size in plan.sizes[len(rows) :]:
            log(f"{mode}: loading users {progress.loaded:,} -> {size:,} (in a process of its own)")
            job = LoadJob(
                mode=mode,
                folder=where.folder,
                host=None if where.server is None else where.server.host,
                port=None if where.server is None else where.server.port,
                start=progress.loaded,
                stop=size,
                counts=counts,
                pool=list(pool),
                texts_next=texts.next,
                texts_reused=texts.reused,
                kept=kept if keep else None,
                progress=progress.dumps(),
            )
            done = load_in_child(job)
            progress.load_s += done.seconds
            progress.load_peak_rss_mb = max(progress.load_peak_rss_mb, done.peak_rss_mb)
            texts.next, texts.reused = done.texts_next, done.texts_reused
            if keep:
                keep_progress(done.loaded)
            progress.loaded = done.loaded
            if done.stopped:
                raise Stopped(f"stopped at {done.loaded:,} users loaded")
            # The loader's writes on the disk before anything is measured: the kernel
            # writing back gigabytes of its pages would share the machine with the reads.
            os.sync()
            began = time.perf_counter()
            store = where.open(embeddings)
            open_s = time.perf_counter() - began
            # The new users' numbers are taken before they are made: a run stopped while
            # measuring measures again with new users of its own, never made ones.
            first_new = progress.extra
            progress.extra += max(plan.new_users, plan.disk_users)
            if keep:
                keep_progress(size)
            row, _ = measure_size(
                store, where, size, plan, texts, questions, rng, first_new, baseline_mb
            )
            row.update(
                open_s=open_s,
                load_s=progress.load_s,
                load_peak_rss_mb=progress.load_peak_rss_mb,
                memories=sum(counts[:size]),
                commit=commit(),
            )
            store.close()
            if served:
                first_served = progress.extra
                progress.extra += max(plan.new_users, plan.disk_users)
                if keep:
                    keep_progress(size)

                def measure(
                    on: MemoryStore, place: Place, size: int = size, first: int = first_served
                ) -> dict[str, Any]:
                    return measure_size(
                        on, place, size, plan, texts, questions, rng, first, baseline_mb
                    )[0]

                served_row = measure_copy(
                    where.folder, root, plan.server_cache, embeddings, measure
                )
                served_row.update(memories=sum(counts[:size]), commit=row["commit"])
                progress.served_rows.append(served_row)
            rows.append(row)
            progress.load_s = progress.load_peak_rss_mb = 0.0
            progress.rng = Progress.state(rng)
            if keep:
                keep_progress(size)
            log(
                f"{mode} at {size:,}: read cold p50 {row['read_cold']['p50_ms']:.1f} ms, "
                f"the store's RSS {row['rss_store_mb']:.0f} MB"
            )
            # The whole row as well: a run stopped before its last size keeps the others.
            log(f"{mode} row {json.dumps(row)}")
            if asked:  # asked while measuring (only a kept run notes it): this size is kept
                raise Stopped(f"stopped after measuring {size:,} users")
    report = {
        "mode": mode,
        "rows": rows,
        "texts_reused": texts.reused,
        "user_turns": len(pool),
        "baseline_rss_mb": baseline_mb,
        "cache_mb": Budget.of(None).mb,
    }
    if not served:
        return [report]
    return [report, {**report, "mode": SERVER_COPY, "rows": progress.served_rows}]


def measure_copy(
    folder: Path,
    root: Path,
    server_cache: int,
    embeddings: Embeddings,
    measure: Callable[[MemoryStore, Place], dict[str, Any]],
) -> dict[str, Any]:
    """``measure`` (``measure_size`` of this size) through a ``chroma run`` keeping
    ``server_cache`` indexes, serving a copy of the embedded store at ``folder``
    (closed), made in ``root`` and deleted after (``server-copy``)."""
    copy = root / SERVER_COPY
    shutil.rmtree(copy, ignore_errors=True)  # what a run stopped here left
    shutil.copytree(folder, copy)
    os.sync()  # as after a loading: the copy's writes are not the reads' to share
    try:
        with running_chroma(copy, cache_indexes=server_cache) as server:
            where = Place("server", copy, server)
            began = time.perf_counter()
            store = where.open(embeddings)
            open_s = time.perf_counter() - began
            try:
                row = measure(store, where)
            finally:
                store.close()
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    row.update(open_s=open_s, load_s=0.0, load_peak_rss_mb=0.0)
    log(
        f"{SERVER_COPY} at {row['users']:,}: read cold p50 {row['read_cold']['p50_ms']:.1f} ms, "
        f"the server's RSS {row.get('server_rss_mb') or 0:.0f} MB"
    )
    log(f"{SERVER_COPY} row {json.dumps(row)}")
    return row


def growth(rows: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """The last size's p50 of ``key`` over the first's (None with one size).

    >>> growth([{"a": {"p50_ms": 2.0}}, {"a": {"p50_ms": 3.0}}], "a")
    1.5
    """
    if len(rows) < 2:
        return None
    return float(rows[-1][key]["p50_ms"] / rows[0][key]["p50_ms"])


def targets(mode: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Issue 41's targets, from one mode's rows of this run."""
    rows = mode["rows"]
    last = rows[-1]
    out = []

    def add(name: str, value: float | None, limit: float, detail: str) -> None:
        passed = None if value is None else value <= limit
        out.append(
            {"name": name, "value": value, "limit": limit, "passed": passed, "detail": detail}
        )

    span = f"{rows[0]['users']:,} -> {last['users']:,} users"
    add("read p50 growth, cold", growth(rows, "read_cold"), 1.3, span)
    add("read p50 growth, warm", growth(rows, "read_warm"), 1.3, span)
    add(
        "new user's first write / an add (p50)",
        last["first_add"]["p50_ms"] / last["add"]["p50_ms"],
        2.0,
        f"at {last['users']:,} users: first add {last['first_add']['p50_ms']:.1f} ms, "
        f"an add to an existing user {last['add']['p50_ms']:.1f} ms",
    )
    add("disk per 5-memory user, KB", last["disk_per_new_user_kb"], 32.0, span)
    server = last.get("server_rss_mb")
    served = last.get("rss_served_mb", last["rss_store_mb"])
    if mode.get("cache_mb") is not None and "rss_served_mb" in last:
        add(
            "RSS serving took over the open store's, MB (within the cache budget)",
            served - last["rss_store_mb"],
            float(mode["cache_mb"]),
            f"at {last['users']:,} users, {last.get('touched', 0):,} of them touched: "
            f"{last['rss_store_mb']:.0f} MB open, {served:.0f} MB after serving",
        )
    if server is None:
        add(
            "RSS the store took, MB",
            max(served, last["rss_store_mb"]),
            1024.0,
            f"at {last['users']:,} users, after serving",
        )
    else:  # the store lives in the server: its RSS, and what the app's store took
        add(
            "RSS the store took, MB (the server's and the app's)",
            server + last["rss_store_mb"],
            1024.0,
            f"at {last['users']:,} users: server {server:.0f} MB, "
            f"app {last['rss_store_mb']:.0f} MB",
        )
    return out


HEADER = (
    "| users | memories | RSS MB (the store's: open / served) | server RSS MB "
    "| loader's peak RSS MB | read cold p50/p95 "
    "| read warm p50/p95 | graph read p50 | add p50/p95 | first add p50 | new user (5 adds) p50 "
    "| disk/new user KB | disk/user KB | open s |"
)


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report's tables."""
    lines = ["# Users, not memories", ""]
    for mode in report["modes"]:
        lines += [
            f"## {mode['mode']}",
            "",
            HEADER,
            "|---:|---:|---:|---:|---:|---|---|---:|---|---:|---:|---:|---:|---:|",
        ]
        for r in mode["rows"]:
            server = r.get("server_rss_mb")
            served = r.get("rss_served_mb")
            loader = r.get("load_peak_rss_mb")
            lines.append(
                f"| {r['users']:,} | {r['memories']:,} "
                f"| {r['rss_mb']:.0f} ({r['rss_store_mb']:.0f} / "
                f"{'-' if served is None else f'{served:.0f}'}) "
                f"| {'-' if server is None else f'{server:.0f}'} "
                f"| {'-' if not loader else f'{loader:.0f}'} "
                f"| {r['read_cold']['p50_ms']:.1f} / {r['read_cold']['p95_ms']:.1f} "
                f"| {r['read_warm']['p50_ms']:.1f} / {r['read_warm']['p95_ms']:.1f} "
                f"| {r['graph_read']['p50_ms']:.1f} "
                f"| {r['add']['p50_ms']:.1f} / {r['add']['p95_ms']:.1f} "
                f"| {r['first_add']['p50_ms']:.1f} "
                f"| {r['new_user']['p50_ms']:.1f} | {r['disk_per_new_user_kb']:.0f} "
                f"| {r['disk_per_user_kb']:.0f} | {r['open_s']:.2f} |"
            )
        first = mode["rows"][0]
        lines += [
            "",
            f"Growth over {first['users']:,} users (p50, same run): "
            + ", ".join(
                f"{key} {r[key]['p50_ms'] / first[key]['p50_ms']:.2f}x at {r['users']:,}"
                for r in mode["rows"][1:]
                for key in ("read_cold", "read_warm", "add", "new_user")
            ),
            "",
            "| target | value | limit | result | detail |",
            "|---|---:|---:|:---:|---|",
        ]
        for t in targets(mode):
            value = "n/a" if t["value"] is None else f"{t['value']:.2f}"
            verdict = (
                "not measured" if t["passed"] is None else "PASS" if t["passed"] else "**FAIL**"
            )
            lines.append(f"| {t['name']} | {value} | {t['limit']:g} | {verdict} | {t['detail']} |")
        commits = list(dict.fromkeys(str(r.get("commit")) for r in mode["rows"]))
        lines += [
            "",
            f"{mode['user_turns']:,} distinct user turns; {mode['texts_reused']:,} "
            "dealt again after the stream ran out. Measured at "
            + (
                f"{commits[0]}."
                if len(commits) == 1
                else f"**different commits**, size by size: {', '.join(commits)}."
            ),
            "",
        ]
    cfg = report["config"]
    lines.append(
        f"Total runtime {report.get('total_seconds', 0):.0f} s; {cfg['cpus']} CPUs, "
        f"Python {cfg['python']}; the store's cache budget {cfg.get('cache_mb', '?')} MB, "
        f"the server's index cache {cfg.get('server_cache_indexes', '?')} indexes."
    )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; ``plan`` is the run's ``Plan``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks users", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--quick", action="store_true", help="200 and 1,000 users, embedded")
    parser.add_argument("--sizes", help="user counts, comma-separated, ascending")
    parser.add_argument(
        "--modes",
        help="embedded, server or both, comma-separated; server-copy (with embedded): the "
        "server measured on a copy of the embedded store at each size, not loaded through it",
    )
    parser.add_argument(
        "--server-cache",
        type=int,
        help=f"the chroma run server's index capacity (default {SERVER_CACHE_INDEXES})",
    )
    parser.add_argument(
        "--disk-users",
        type=int,
        help=f"new five-memory users the disk figure is measured over (default {DISK_USERS}: "
        "Chroma's files grow in steps, so fewer give a rougher figure; tests use a few)",
    )
    parser.add_argument("--out", type=Path, help="write the JSON report here")
    parser.add_argument(
        "--keep",
        type=Path,
        help="build the stores in this folder and keep them, with the run's progress after "
        "every user: the same command again goes on where a stopped run was (Ctrl-C stops "
        "it between two users)",
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.sizes:
        try:
            sizes = tuple(int(s) for s in args.sizes.split(","))
        except ValueError:
            parser.error(f"--sizes takes user counts such as 1000,10000; got {args.sizes!r}")
        if list(sizes) != sorted(set(sizes)) or sizes[0] < plan.warm_users:
            parser.error(f"--sizes must ascend and start at {plan.warm_users} users or more")
        plan = dataclasses.replace(plan, sizes=sizes)
    if args.modes:
        modes = tuple(args.modes.split(","))
        if not set(modes) <= {"embedded", "server", SERVER_COPY}:
            parser.error(f"--modes takes embedded, server and {SERVER_COPY}; got {args.modes!r}")
        if SERVER_COPY in modes and "embedded" not in modes:
            parser.error(f"--modes {SERVER_COPY} copies the embedded store: add embedded")
        plan = dataclasses.replace(plan, modes=modes)
    if args.server_cache is not None:
        if args.server_cache < 1:
            parser.error(
                f"--server-cache takes a number of indexes, 1 or more; got {args.server_cache}"
            )
        plan = dataclasses.replace(plan, server_cache=args.server_cache)
    if args.disk_users is not None:
        if args.disk_users < 1:
            parser.error(f"--disk-users takes a number of users, 1 or more; got {args.disk_users}")
        plan = dataclasses.replace(plan, disk_users=args.disk_users)
    args.plan = plan
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the Markdown, write the JSON; 2 when the data is missing."""
    args = parse_args(argv)
    problem = missing_data(args.data, DATASETS["longmemeval-s"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    corpus = load_corpus(args.data)
    pool = [t.text for t in corpus.turns if t.role == "user"]
    questions = corpus.questions
    del corpus  # what the store's RSS is measured over
    embeddings = ReadEmbeddings(HashedUnitEmbeddings(), LocalMiniLM())
    embeddings.embed_query(questions[0])  # the model loaded before the baseline
    keep = args.keep is not None
    root = args.keep if keep else Path(tempfile.mkdtemp(prefix="lgm-users-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        served = SERVER_COPY in args.plan.modes
        modes = [
            report
            for m in args.plan.modes
            if m != SERVER_COPY
            for report in run_mode(
                m,
                args.plan,
                pool,
                questions,
                embeddings,
                root,
                keep=keep,
                served=served and m == "embedded",
            )
        ]
    except Stopped as stopped:
        log(f"{stopped}; the same command goes on from there (kept in {root})")
        return 3
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    config = {
        **machine(ReadEmbeddings.name),
        "quick": bool(args.quick),
        "sizes": list(args.plan.sizes),
        "modes": list(args.plan.modes),
        "cache_mb": Budget.of(None).mb,
        "server_cache_indexes": args.plan.server_cache,
        "disk_users": args.plan.disk_users,
    }
    report: dict[str, Any] = {
        "config": config,
        "modes": modes,
        "targets": {m["mode"]: targets(m) for m in modes},
    }
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
