"""Namespaces of any depth on the BaseStore face, against LangGraph's own InMemoryStore.

The same operations run on a MemoryStore and on ``langgraph.store.memory.InMemoryStore``
(indexing the same ``text`` field with the same embedder); every read must agree:
``list_namespaces`` over a grid of prefixes, suffixes (with ``*``), depths, limits
and offsets, ``get`` of every key, ``search`` of every prefix with and without a
query or a filter. Each test runs on the embedded store and on a ``chroma run``
server (the ``store`` fixture).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.embeddings import LocalMiniLM

NAMESPACES: list[tuple[str, ...]] = [
    ("user", "alice"),
    ("user", "bob"),
    ("user", "alice", "prefs"),
    ("user", "alice", "prefs", "food"),
    ("user", "a:b"),
    ("memories", "alice"),
    ("memories", "bob"),
    ("memories", "alice", "work"),
    ("org", "acme"),
    ("docs",),
    ("session", "t-1"),
]
KEYS = ["k1", "k2", "k3"]
TOPICS = ["pizza", "tax law", "sailing", "jazz", "cats", "rust", "tea", "chess"]


def play(stores: list[BaseStore], seed: int, n: int = 80) -> list[tuple[tuple[str, ...], str]]:
    """The same random puts, updates and deletes on every store; returns every
    (namespace, key) used. A delete only targets a namespace already written, and
    reads come after: InMemoryStore lists a namespace that a get or a delete of
    an unknown one touched, which a MemoryStore (rightly) does not."""
    rng = random.Random(seed)
    written: set[tuple[str, ...]] = set()
    used: list[tuple[tuple[str, ...], str]] = []
    for i in range(n):
        namespace, key = rng.choice(NAMESPACES), rng.choice(KEYS)
        if namespace in written and rng.random() < 0.25:
            value = None
        else:
            topic = rng.choice(TOPICS)
            value = {"text": f"Note {i} is about {topic}.", "topic": topic, "n": i}
            written.add(namespace)
        if (namespace, key) not in used:
            used.append((namespace, key))
        ops = [PutOp(namespace, key, value)]
        for s in stores:
            s.batch(ops)
    return used


@pytest.fixture
def pair(store: MemoryStore, embedder: LocalMiniLM) -> Iterator[tuple[MemoryStore, InMemoryStore]]:
    reference = InMemoryStore(index={"dims": 384, "embed": embedder, "fields": ["text"]})
    with store.admin() as admin:  # the grid writes an org scope, which only an admin does
        yield admin, reference


def conditions() -> list[dict[str, Any]]:
    prefixes: list[tuple[str, ...] | None] = [
        None,
        ("user",),
        ("user", "alice"),
        ("user", "alice", "prefs"),
        ("memories",),
        ("memories", "*"),
        ("*", "alice"),
        ("*", "alice", "*"),
        ("docs",),
        ("nope",),
    ]
    suffixes: list[tuple[str, ...] | None] = [None, ("alice",), ("prefs", "*"), ("*",), ("work",)]
    out = []
    for prefix, suffix, depth in itertools.product(prefixes, suffixes, [None, 1, 2, 3]):
        out.append({"prefix": prefix, "suffix": suffix, "max_depth": depth})
    for limit, offset in [(1, 0), (2, 1), (3, 5), (100, 3), (5, 100)]:
        out.append({"limit": limit, "offset": offset})
        out.append({"prefix": ("user",), "max_depth": 2, "limit": limit, "offset": offset})
    return out


def items(found: list[Any]) -> set[tuple[tuple[str, ...], str, str]]:
    return {(i.namespace, i.key, repr(sorted(i.value.items()))) for i in found}


@pytest.mark.slow  # many generated cases
@pytest.mark.parametrize("seed", [7])
def test_reads_agree_with_inmemorystore(pair: tuple[MemoryStore, InMemoryStore], seed: int) -> None:
    ours, reference = pair
    used = play([ours, reference], seed)
    assert len(reference.list_namespaces()) >= 8  # the scenario reaches most namespaces

    for kwargs in conditions():
        assert ours.list_namespaces(**kwargs) == reference.list_namespaces(**kwargs), kwargs

    for namespace, key in used:
        mine, theirs = ours.get(namespace, key), reference.get(namespace, key)
        assert (mine and (mine.namespace, mine.key, mine.value)) == (
            theirs and (theirs.namespace, theirs.key, theirs.value)
        ), (namespace, key)

    prefixes = {ns[:n] for ns in NAMESPACES for n in range(len(ns) + 1)} | {("nope",)}
    for prefix in sorted(prefixes):
        # Without a query the two stores order items differently (ours newest first):
        # with every item on one page, the same items must come back.
        assert items(ours.search(prefix, limit=100)) == items(reference.search(prefix, limit=100))
        for topic in ("pizza", "jazz"):
            matched = ours.search(prefix, filter={"topic": topic}, limit=100)
            assert items(matched) == items(
                reference.search(prefix, filter={"topic": topic}, limit=100)
            )
        mine = ours.search(prefix, query="Italian food", limit=100)
        theirs = reference.search(prefix, query="Italian food", limit=100)
        assert [(i.namespace, i.key) for i in mine] == [(i.namespace, i.key) for i in theirs]
        for a, b in zip(mine, theirs, strict=True):
            assert a.score == pytest.approx(b.score, abs=1e-4)


def test_every_namespace_gets_a_scope_of_its_own(store: MemoryStore) -> None:
    """Two namespaces never share a scope, so never see each other's items; the
    memory API reads the same items under the namespace's scope."""
    with store.admin() as admin:  # ("org", "acme") is an org scope, which only an admin writes
        for i, namespace in enumerate(NAMESPACES):
            admin.put(namespace, "k", {"text": f"Item {i}."})
    scopes = [Scope.from_namespace(ns) for ns in NAMESPACES]
    assert len(set(scopes)) == len(NAMESPACES)
    assert sorted(store.scopes()) == sorted(scopes)
    for i, (namespace, scope) in enumerate(zip(NAMESPACES, scopes, strict=True)):
        item = store.get(namespace, "k")
        assert item is not None and item.value == {"text": f"Item {i}."}
        assert item.namespace == namespace
        assert [m.text for m in store.active(scope)] == [f"Item {i}."]
        assert [m.text for m in store.active(namespace)] == [f"Item {i}."]  # tuple spelling
    assert store.scopes("namespace") == sorted(s for s in scopes if s.kind == "namespace")
    assert store.get(("user", "alice", "prefs"), "k") != store.get(("user", "alice"), "k")


def test_search_of_an_owner_prefix_reaches_deeper_namespaces(store: MemoryStore) -> None:
    store.put(("user", "alice"), "a", {"text": "Alice likes tea."})
    store.put(("user", "alice", "prefs"), "b", {"text": "Alice prefers metric units."})
    store.put(("user", "alicia"), "c", {"text": "Alicia likes coffee."})
    store.put(("user", "alice-2", "prefs"), "d", {"text": "Not Alice."})
    found = store.search(("user", "alice"), limit=10)
    assert {(i.namespace, i.key) for i in found} == {
        (("user", "alice"), "a"),
        (("user", "alice", "prefs"), "b"),
    }
    assert {i.key for i in store.search(("user",), limit=10)} == {"a", "b", "c", "d"}
    assert [i.key for i in store.search(("user", "alice", "prefs"))] == ["b"]


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purging_a_user_leaves_their_other_namespaces(store: MemoryStore) -> None:
    """A namespace scope is a scope of its own: erasing a person takes every
    namespace of theirs (as the README says)."""
    store.put(("user", "alice"), "a", {"text": "Alice likes tea."})
    store.put(("memories", "alice"), "b", {"text": "Alice likes jazz."})
    store.purge("user:alice")
    assert store.get(("memories", "alice"), "b") is not None
    store.purge(("memories", "alice"))
    assert store.list_namespaces() == []


def test_lists_are_taken_as_namespaces_as_langgraphs_sql_stores_take_them(
    tmp_path: Any,
) -> None:
    """SqliteStore and PostgresStore take a list wherever a namespace or a path goes
    (their tests pass ``prefix=["test"]``); here too, and items come back under
    tuples. A str is still refused: it would read as a namespace of one letter each."""
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, SearchOp

    from langgraph_memory.store.basestore.namespaces import InvalidStoreNamespaceError

    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        store.put(["test", "docs"], "k", {"text": "Likes tea."})  # type: ignore[arg-type]
        assert store.get(["test", "docs"], "k").namespace == ("test", "docs")  # type: ignore[arg-type,union-attr]
        assert [i.key for i in store.search(["test"])] == ["k"]  # type: ignore[arg-type]
        assert store.list_namespaces(prefix=["test"]) == [("test", "docs")]  # type: ignore[arg-type]
        assert store.list_namespaces(suffix=["docs"]) == [("test", "docs")]  # type: ignore[arg-type]
        got, found, listed = store.batch(
            [
                GetOp(["test", "docs"], "k"),  # type: ignore[arg-type]
                SearchOp(["test"]),  # type: ignore[arg-type]
                ListNamespacesOp((MatchCondition("prefix", ["test"]),)),  # type: ignore[arg-type]
            ]
        )
        assert got.key == "k" and [i.namespace for i in found] == [("test", "docs")]  # type: ignore[union-attr]
        assert listed == [("test", "docs")]
        with pytest.raises(InvalidStoreNamespaceError, match="namespace_prefix must be a tuple"):
            store.search("test")  # type: ignore[arg-type]
        with pytest.raises(InvalidStoreNamespaceError, match="the suffix path must be a tuple"):
            store.batch([ListNamespacesOp((MatchCondition("suffix", "docs"),))])  # type: ignore[arg-type]
