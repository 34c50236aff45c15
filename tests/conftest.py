"""Shared fixtures: the offline embedder, a real `chroma run` server, and stores on both.

The conformance tests take the ``store`` fixture, which runs each test twice:
on an embedded store in a fresh directory, and on a fresh database of a real
Chroma server that this file starts once per test session.

Two tiers (pyproject's ``slow`` marker): a test that starts or needs a server is in the
slow tier (``python -m pytest -q -m slow``), so the default tier starts none. The
``store`` fixture's server half, every ``server``-marked test and every test that takes a
server fixture (``SERVER_FIXTURES``) are marked ``slow`` here; other slow modules say so
at their top.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from openai_stub import OpenAIStub, serve
from processes import in_pytest

from benchmarks import servers
from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM, default_embeddings

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: glibc settings under which Chroma's index files cannot carry stale heap bytes
#: of deleted records: freed memory is overwritten, and the per-thread cache,
#: which skips that overwrite, is off (see store/chroma/compaction.py).
PERTURB_ENV = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.perturb=165"}


#: Fixtures that start a server (`chroma run`, PostgreSQL, Redis) or take one that does.
SERVER_FIXTURES = frozenset({"chroma_server", "postgres", "redis_server", "lock_url"})


#: Every test this run collected, before `-m` deselects any: its id and its markers'
#: names (tests/test_tiers.py checks the tiers with them).
COLLECTED = pytest.StashKey[dict[str, frozenset[str]]]()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that needs a server is in the slow tier (see the module docstring)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("server") or fixtures & SERVER_FIXTURES:
            item.add_marker(pytest.mark.slow)
    config.stash[COLLECTED] = {
        item.nodeid: frozenset(mark.name for mark in item.iter_markers()) for item in items
    }


@pytest.fixture(scope="session")
def embedder() -> LocalMiniLM:
    return default_embeddings()


def chroma_binary() -> str:
    """The `chroma` CLI; the test fails when chromadb did not install it."""
    try:
        return servers.chroma_binary()
    except servers.ServerMissing as exc:
        pytest.fail(str(exc))


class ChromaServer(servers.ChromaServer):
    """A running `chroma run` (``benchmarks/servers.py``), and stores on it."""

    def store(self, database: str, *, new: bool, **options: Any) -> MemoryStore:
        """A store on ``database`` (made first when ``new``) on a client of its own,
        with a small fake embedder: what another process's store is (an engine and
        lock sessions of its own). ``options`` go to ``MemoryStore`` (``lock=``,
        ``queue=``)."""
        from langchain_core.embeddings import DeterministicFakeEmbedding

        client = self.client(database) if new else self.other_client(database)
        return MemoryStore(client=client, embeddings=DeterministicFakeEmbedding(size=8), **options)

    def other_client(self, database: str) -> Any:
        """Another client of ``database`` (made already): what another process has."""
        return chromadb.HttpClient(
            host=self.host,
            port=self.port,
            database=database,
            settings=Settings(anonymized_telemetry=False),
        )


@contextmanager
def running_server(path: Path) -> Iterator[ChromaServer]:
    """A real `chroma run` server on ``path`` and a free loopback port, stopped on exit."""
    chroma_binary()  # not installed: a failure, not a skip (chromadb is a dependency)
    with in_pytest(), servers.running_chroma(path, env=PERTURB_ENV) as server:
        yield ChromaServer(server.host, server.port, server.path)


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """A `chroma run` server shared by the whole test session."""
    with running_server(tmp_path_factory.mktemp("chroma-server")) as server:
        yield server


@pytest.fixture(params=["embedded", pytest.param("server", marks=pytest.mark.slow)])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, embedder: LocalMiniLM
) -> Iterator[MemoryStore]:
    """A fresh MemoryStore: embedded in tmp_path, or on a new database of the server."""
    if backend == "embedded":
        s = MemoryStore(tmp_path / "memory", embeddings=embedder)
    else:
        server: ChromaServer = request.getfixturevalue("chroma_server")
        s = MemoryStore(client=server.client(f"db{uuid.uuid4().hex}"), embeddings=embedder)
    try:
        yield s
    finally:
        s.close()


PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIStub]:
    """The scripted OpenAI-compatible server (tests/openai_stub.py), named by the
    environment as the OpenAI endpoint, model ``stub-model``."""
    with serve() as s:
        monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("LANGGRAPH_MEMORY_MODEL", "stub-model")
        for name in ("OPENAI_API_BASE", "OPENAI_PROXY", "OPENAI_ORGANIZATION", *PROXY_VARS):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        yield s


def data_file(*parts: str) -> Path:
    """A benchmark file under ../shared/data, or a clean skip when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"benchmark data {path} is not here (only the developers' machines have it)")
    return path


def snapshot(store: MemoryStore) -> list[dict[str, object]]:
    """Every scope's export: equal before and after a call means the call changed
    nothing (an export holds no time of its own)."""
    return [store.export(scope) for scope in store.scopes()]


def slow_writer(store: Any, before: Any) -> Any:
    """A writer whose every turn first runs ``before()`` (a slow model, a stuck one)."""
    from langgraph_memory.write import MemoryWriter, RulesModel

    writer = MemoryWriter(store, model=RulesModel())
    real = writer.write_turn

    def slow(*args: Any, **kwargs: Any) -> Any:
        before()
        return real(*args, **kwargs)

    writer.write_turn = slow  # type: ignore[method-assign]
    return writer


def own_collections(store: MemoryStore, scope: str) -> None:
    """Give ``scope`` collections of its own now, as a scope that outgrew its bucket has
    (a new scope lives in a bucket: ``store/chroma/layout.py``): for tests of what only
    such a scope has, a lexical index file."""
    from langgraph_memory import Scope
    from langgraph_memory.store import internals
    from langgraph_memory.store.engine import promotion

    core = internals(store)._core
    target = Scope.parse(scope)
    with core.writing(target) as engine:
        promotion.promote(engine, core.writable(target))


@contextmanager
def older_layout() -> Iterator[None]:
    """New scopes get collections of their own, as every release before store format 5
    made them (no buckets): for stores that stand for an older release's."""
    import functools

    from langgraph_memory.store.chroma import layout

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layout, "create_scope", functools.partial(layout.create_scope, own=True))
        yield
