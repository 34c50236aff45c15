"""The BaseStore contract as LangGraph documents it, run on MemoryStore and, side by
side, on LangGraph's own InMemoryStore with the same embedder.

Every test runs on both stores (the ``store`` fixture's two factories), so a test
that passes on ``inmemory`` and fails on ``memorystore`` names a difference. Where
a difference is deliberate, the test says so with an assertion on each side (and
the README's BaseStore table has a line for it); nothing here is skipped.

The embedder is a bag of words over a small vocabulary: a text's vector counts its
words, so which item a query should rank first, and its cosine, are known here.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    PutOp,
    SearchOp,
)
from langgraph.store.base.batch import AsyncBatchedBaseStore
from langgraph.store.memory import InMemoryStore

from langgraph_memory import MemoryStore

VOCABULARY = ("tea", "coffee", "cake", "train", "car", "rain", "sun", "jazz", "rock", "cat")
DIMS = len(VOCABULARY) + 1
NS = ("docs", "alice")


class WordCounts(Embeddings):
    """A text's vector counts the vocabulary's words in it (plus a small constant,
    so that no text has the zero vector); it records every call."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def _vector(self, text: str) -> list[float]:
        words = [w.strip(".,!?").lower() for w in text.split()]
        return [float(words.count(v)) for v in VOCABULARY] + [0.1]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def cosine(a: str, b: str) -> float:
    """The cosine of two texts' vectors, as both stores should score them."""
    x, y = WordCounts()._vector(a), WordCounts()._vector(b)
    dot = sum(i * j for i, j in zip(x, y, strict=True))
    return dot / (math.sqrt(sum(i * i for i in x)) * math.sqrt(sum(j * j for j in y)))


STORES = ["memorystore", "inmemory"]


def make(kind: str, path: Path, embedder: WordCounts, **index: Any) -> BaseStore:
    """A store of ``kind`` embedding with ``embedder`` (``index``: more IndexConfig)."""
    if kind == "memorystore":
        return MemoryStore(path, index={"embed": embedder, "dims": DIMS, **index})
    return InMemoryStore(index={"embed": embedder, "dims": DIMS, **index})


@pytest.fixture(params=STORES)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def embedder() -> WordCounts:
    return WordCounts()


@pytest.fixture
def store(kind: str, tmp_path: Path, embedder: WordCounts) -> Iterator[BaseStore]:
    made = make(kind, tmp_path, embedder, fields=["text"])
    yield made
    if isinstance(made, MemoryStore):
        made.close()


def ours(store: BaseStore) -> bool:
    return isinstance(store, MemoryStore)


def keys(items: Any) -> list[str]:
    return [item.key for item in items]


# -- put, get, delete, batch semantics -------------------------------------------------


def test_put_get_update_delete(store: BaseStore) -> None:
    store.put(NS, "k", {"text": "tea", "n": 1})
    store.put(NS, "k", {"text": "coffee", "n": 2})
    item = store.get(NS, "k")
    assert item is not None and item.value == {"text": "coffee", "n": 2}
    assert item.namespace == NS and item.key == "k"
    store.delete(NS, "k")
    assert store.get(NS, "k") is None
    assert store.search(NS) == []


def test_a_batch_reads_before_it_writes_and_the_last_put_wins(store: BaseStore) -> None:
    store.put(NS, "k", {"text": "tea"})
    results = store.batch(
        [
            PutOp(NS, "k", {"text": "cake"}),
            GetOp(NS, "k"),
            PutOp(NS, "k", {"text": "coffee"}),
            SearchOp(NS),
        ]
    )
    got, found = results[1], results[3]
    assert got is not None and got.value == {"text": "tea"}  # type: ignore[union-attr]
    assert [i.value for i in found] == [{"text": "tea"}]  # type: ignore[union-attr]
    item = store.get(NS, "k")
    assert item is not None and item.value == {"text": "coffee"}


def test_a_batch_embeds_its_texts_in_one_call(store: BaseStore, embedder: WordCounts) -> None:
    embedder.calls.clear()
    store.batch(
        [PutOp(NS, f"k{i}", {"text": text}) for i, text in enumerate(["tea", "cake", "rain"])]
        + [PutOp(("docs", "bob"), "k", {"text": "train"}), GetOp(NS, "k0")]
    )
    assert len(embedder.calls) == 1
    assert sorted(embedder.calls[0]) == ["cake", "rain", "tea", "train"]


def test_a_batch_embeds_a_repeated_text_once(store: BaseStore, embedder: WordCounts) -> None:
    embedder.calls.clear()
    ops = [PutOp(NS, f"k{i}", {"text": ["tea", "cake", "tea"][i % 3]}) for i in range(9)]
    if ours(store):
        store.batch(ops)
        assert embedder.calls == [["tea", "cake"]]
        assert len(store.search(NS, query="tea", limit=20)) == 9
    else:
        # InMemoryStore (langgraph 1.x) embeds each distinct text once too, then
        # fails to map the vectors back to its keys ("Number of embeddings (2) does
        # not match number of indices (9)"): accepted either way here.
        with contextlib.suppress(ValueError):
            store.batch(ops)
        assert len(embedder.calls) == 1 and sorted(embedder.calls[0]) == ["cake", "tea"]


def test_one_batch_mixes_deletes_unindexed_puts_and_empty_values(store: BaseStore) -> None:
    store.put(NS, "old", {"text": "rain"})
    store.batch(
        [
            PutOp(NS, "old", None),
            PutOp(NS, "plain", {"text": "sun"}, index=False),
            PutOp(NS, "empty", {}),
            PutOp(NS, "tea", {"text": "tea"}),
        ]
    )
    assert store.get(NS, "old") is None
    assert sorted(keys(store.search(NS))) == ["empty", "plain", "tea"]
    empty = store.get(NS, "empty")
    assert empty is not None and empty.value == {}
    assert keys(store.search(NS, query="tea", limit=1)) == ["tea"]


def test_the_reserved_root_is_refused_with_langgraphs_error(kind: str, store: BaseStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"text": "tea"})
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"text": "tea"})
    raw = [PutOp(("langgraph", "x"), "k", {"text": "tea"})]
    if ours(store):
        # Deliberate: a raw batch is checked as put() is (README, BaseStore table).
        with pytest.raises(InvalidNamespaceError):
            store.batch(raw)
    else:  # InMemoryStore's raw batch does not check namespaces
        assert store.batch(raw) == [None]


# -- search: filters --------------------------------------------------------------------


def test_filters_compare_as_langgraph_documents(store: BaseStore) -> None:
    store.put(NS, "a", {"text": "tea", "n": 1, "tag": "x", "meta": {"lang": "en"}})
    store.put(NS, "b", {"text": "coffee", "n": 5, "tag": "y", "meta": {"lang": "fr"}})
    assert keys(store.search(NS, filter={"tag": "x"})) == ["a"]
    assert keys(store.search(NS, filter={"tag": {"$ne": "x"}})) == ["b"]
    assert keys(store.search(NS, filter={"n": {"$gt": 2}})) == ["b"]
    assert sorted(keys(store.search(NS, filter={"n": {"$gte": 1, "$lte": 5}}))) == ["a", "b"]
    assert keys(store.search(NS, filter={"meta": {"lang": "fr"}})) == ["b"]
    assert keys(store.search(NS, query="tea", filter={"tag": "y"})) == ["b"]


def test_a_dotted_filter_key_is_a_nested_path(store: BaseStore) -> None:
    """``{"meta.lang": "fr"}`` is how SqliteStore's filters read a nested field."""
    store.put(NS, "a", {"text": "tea", "meta": {"lang": "en"}})
    store.put(NS, "b", {"text": "coffee", "meta": {"lang": "fr"}, "meta.lang": "en"})
    store.put(NS, "c", {"text": "cake", "meta": {"lang": "fr"}})
    if ours(store):
        # A top-level key of that very name first (as InMemoryStore reads it), else the path.
        assert keys(store.search(NS, filter={"meta.lang": "fr"})) == ["c"]
        assert sorted(keys(store.search(NS, filter={"meta.lang": "en"}))) == ["a", "b"]
    else:  # InMemoryStore reads the key only at the top level (SqliteStore: the path)
        assert keys(store.search(NS, filter={"meta.lang": "fr"})) == []
        assert keys(store.search(NS, filter={"meta.lang": "en"})) == ["b"]


# -- search: ranking, index=False, index paths ---------------------------------------


def test_a_query_ranks_by_cosine_best_first(store: BaseStore) -> None:
    store.put(NS, "tea", {"text": "tea tea cake"})
    store.put(NS, "train", {"text": "train car"})
    store.put(NS, "mix", {"text": "tea train"})
    found = store.search(NS, query="tea")
    assert keys(found) == ["tea", "mix", "train"]
    for item in found:
        assert item.score == pytest.approx(cosine("tea", item.value["text"]), abs=1e-5)
    assert keys(store.search(NS, query="tea", limit=1, offset=1)) == ["mix"]


def test_index_false_keeps_an_item_out_of_vector_search(store: BaseStore) -> None:
    store.put(NS, "ranked", {"text": "tea"})
    store.put(NS, "other", {"text": "train"})
    store.put(NS, "hidden", {"text": "tea tea"}, index=False)
    # Ranked items first; the unindexed one only fills a page they leave room in, unscored.
    found = store.search(NS, query="tea", limit=2)
    assert keys(found) == ["ranked", "other"]
    assert all(item.score is not None for item in found)
    found = store.search(NS, query="tea", limit=10)
    assert keys(found) == ["ranked", "other", "hidden"]
    assert found[-1].score is None
    # Filter and listing searches find it as any other.
    assert keys(store.search(NS, filter={"text": "tea tea"})) == ["hidden"]
    assert sorted(keys(store.search(NS))) == ["hidden", "other", "ranked"]
    item = store.get(NS, "hidden")
    assert item is not None and item.value == {"text": "tea tea"}


def test_pages_of_a_query_reach_the_unindexed_items(store: BaseStore) -> None:
    store.put(NS, "a", {"text": "tea"})
    store.put(NS, "b", {"text": "tea cake"})
    for key in ("x", "y", "z"):
        store.put(NS, key, {"text": "tea"}, index=False)
    first, second = (
        store.search(NS, query="tea", limit=3),
        store.search(NS, query="tea", limit=3, offset=3),
    )
    assert keys(first)[:2] == ["a", "b"] and first[2].score is None
    if ours(store):
        # Ranked items, then the unindexed ones, paged through as one list.
        assert sorted(keys(first)[2:] + keys(second)) == ["x", "y", "z"]
    else:  # InMemoryStore starts the unscored items over on every page past the ranked
        assert keys(second) == ["x", "y", "z"] and keys(first)[2] == "x"  # x twice


def test_an_update_with_index_false_drops_the_old_vector(store: BaseStore) -> None:
    store.put(NS, "k", {"text": "tea"})
    store.put(NS, "x", {"text": "train"})
    store.put(NS, "k", {"text": "tea"}, index=False)
    found = store.search(NS, query="tea", limit=1)
    if ours(store):
        assert keys(found) == ["x"]  # k is no longer ranked
    else:
        # InMemoryStore keeps the vectors of a key a later put did not index (its
        # _apply_put_ops replaces the value only): k still ranks first there.
        assert keys(found) == ["k"]
    assert sorted(keys(store.search(NS))) == ["k", "x"]


def test_put_index_paths_choose_what_is_embedded(store: BaseStore) -> None:
    store.put(NS, "a", {"text": "train", "title": "tea"}, index=["title"])
    store.put(NS, "b", {"text": "tea", "title": "train"}, index=["title"])
    found = store.search(NS, query="tea")
    assert keys(found) == ["a", "b"]
    assert found[0].score == pytest.approx(cosine("tea", "tea"), abs=1e-5)


def test_a_json_path_field_is_embedded(kind: str, tmp_path: Path, embedder: WordCounts) -> None:
    store = make(kind, tmp_path, embedder, fields=["items[*].text"])
    try:
        store.put(NS, "a", {"items": [{"text": "jazz"}]})
        store.put(NS, "b", {"items": [{"text": "rock"}]})
        store.put(NS, "none", {"other": "jazz"})  # nothing at the path: not in vector search
        found = store.search(NS, query="jazz")
        assert keys(found) == ["a", "b", "none"]
        assert found[0].score == pytest.approx(1.0, abs=1e-5)
        assert found[-1].score is None
    finally:
        if isinstance(store, MemoryStore):
            store.close()


def scores(found: Any) -> dict[str, float | None]:
    return {item.key: item.score for item in found}


def test_several_fields_score_an_item_by_its_best(
    kind: str, tmp_path: Path, embedder: WordCounts
) -> None:
    """A vector per field; an item scores by its best field's cosine (max pooling)."""
    store = make(kind, tmp_path, embedder, fields=["title", "body"])
    try:
        store.put(NS, "a", {"title": "tea", "body": "car car"})
        store.put(NS, "b", {"title": "coffee", "body": "cake"})
        store.put(NS, "second", {"title": "rain sun", "body": "tea cake"})  # its body matches
        store.put(NS, "one", {"title": "train tea", "other": "tea"})  # one field: one vector
        found = store.search(NS, query="tea")
        assert keys(found) == ["a", "second", "one", "b"]
        assert scores(found)["a"] == pytest.approx(cosine("tea", "tea"), abs=1e-6)
        assert scores(found)["second"] == pytest.approx(cosine("tea", "tea cake"), abs=1e-6)
        assert scores(found)["one"] == pytest.approx(cosine("tea", "train tea"), abs=1e-5)
        assert scores(found)["b"] == pytest.approx(
            max(cosine("tea", "coffee"), cosine("tea", "cake")), abs=1e-6
        )
        assert keys(store.search(NS, query="tea", limit=2, offset=1)) == ["second", "one"]
        assert keys(store.search(NS, query="tea", filter={"title": "coffee"})) == ["b"]
        # Its best field puts "second" first on a page of one, above an item whose one
        # vector is nearer the query than second's joined text ("rain sun tea cake").
        store.put(NS, "r", {"title": "rain car cat"}, index=["title"])
        assert cosine("rain", "rain sun tea cake") < cosine("rain", "rain car cat")
        [best] = store.search(NS, query="rain", limit=1)
        assert best.key == "second"
        assert best.score == pytest.approx(cosine("rain", "rain sun"), abs=1e-6)
        if ours(store):  # the memory API reads the joined text, as before
            assert sorted(m.text for m in store.active(NS)) == [
                "coffee cake",
                "rain car cat",
                "rain sun tea cake",
                "tea car car",
                "train tea",
            ]
    finally:
        if isinstance(store, MemoryStore):
            store.close()


def test_a_json_path_with_several_matches_scores_by_its_best(
    kind: str, tmp_path: Path, embedder: WordCounts
) -> None:
    store = make(kind, tmp_path, embedder, fields=["items[*].text"])
    try:
        store.put(NS, "a", {"items": [{"text": "rock car"}, {"text": "jazz"}, {"text": "cat"}]})
        store.put(NS, "b", {"items": [{"text": "jazz rock"}]})
        found = store.search(NS, query="jazz")
        assert keys(found) == ["a", "b"]
        assert scores(found)["a"] == pytest.approx(1.0, abs=1e-6)
        assert scores(found)["b"] == pytest.approx(cosine("jazz", "jazz rock"), abs=1e-5)
        [cat] = store.search(NS, query="cat", limit=1)
        assert cat.key == "a" and cat.score == pytest.approx(1.0, abs=1e-6)
    finally:
        if isinstance(store, MemoryStore):
            store.close()


def test_put_index_paths_override_the_stores_fields(
    kind: str, tmp_path: Path, embedder: WordCounts
) -> None:
    store = make(kind, tmp_path, embedder, fields=["title"])
    try:
        store.put(NS, "a", {"title": "train", "body": "tea", "note": "car"}, index=["body", "note"])
        store.put(NS, "b", {"title": "tea", "body": "sun", "note": "rain"}, index=["body", "note"])
        found = store.search(NS, query="tea")
        assert keys(found) == ["a", "b"]
        assert scores(found)["a"] == pytest.approx(1.0, abs=1e-6)
        assert scores(found)["b"] == pytest.approx(
            max(cosine("tea", "sun"), cosine("tea", "rain")), abs=1e-6
        )
    finally:
        if isinstance(store, MemoryStore):
            store.close()


def test_a_batch_embeds_every_field_in_its_one_call(
    kind: str, tmp_path: Path, embedder: WordCounts
) -> None:
    store = make(kind, tmp_path, embedder, fields=["title", "body"])
    try:
        embedder.calls.clear()
        store.batch(
            [
                PutOp(NS, "a", {"title": "tea", "body": "cake"}),
                PutOp(NS, "b", {"title": "coffee", "body": "rain"}),
                SearchOp(NS, query="tea"),
            ]
        )
        [call] = embedder.calls
        assert {"tea", "cake", "coffee", "rain"} <= set(call)
        if ours(store):  # and the joined texts, each distinct text once
            assert sorted(call) == ["cake", "coffee", "coffee rain", "rain", "tea", "tea cake"]
    finally:
        if isinstance(store, MemoryStore):
            store.close()


def test_an_update_embeds_its_fields_again(kind: str, tmp_path: Path, embedder: WordCounts) -> None:
    store = make(kind, tmp_path, embedder, fields=["title", "body"])
    try:
        store.put(NS, "k", {"title": "tea", "body": "cake"})
        store.put(NS, "x", {"title": "coffee cake", "body": "rain"})
        store.put(NS, "k", {"title": "jazz", "body": "rock"})
        found = store.search(NS, query="jazz")
        assert keys(found)[0] == "k" and found[0].score == pytest.approx(1.0, abs=1e-6)
        found = store.search(NS, query="tea")
        assert scores(found)["k"] == pytest.approx(
            max(cosine("tea", "jazz"), cosine("tea", "rock")), abs=1e-6
        )
        # index=False drops them: the item is listed after the ranked ones, unscored.
        store.put(NS, "k", {"title": "jazz", "body": "rock"}, index=False)
        found = store.search(NS, query="jazz")
        if ours(store):
            assert keys(found) == ["x", "k"] and found[-1].score is None
        else:  # InMemoryStore keeps the vectors a later put did not index (as above)
            assert keys(found) == ["k", "x"]
    finally:
        if isinstance(store, MemoryStore):
            store.close()


# -- TTL and batched async callers ----------------------------------------------------


class Batched(AsyncBatchedBaseStore):
    """LangGraph's AsyncBatchedBaseStore in front of a store: concurrent async calls
    become one ``abatch`` (as the Postgres and Sqlite async stores do)."""

    def __init__(self, inner: BaseStore) -> None:
        super().__init__()
        self.inner = inner

    async def abatch(self, ops: Any) -> Any:
        return await self.inner.abatch(ops)

    def batch(self, ops: Any) -> Any:
        return self.inner.batch(ops)


def test_one_batch_may_return_an_item_twice(
    kind: str, tmp_path: Path, embedder: WordCounts
) -> None:
    """A GetOp and a SearchOp that both return an item, in one batch (and through
    AsyncBatchedBaseStore), with a TTL that reads refresh where the store has TTLs."""
    if kind == "memorystore":
        store: BaseStore = MemoryStore(
            tmp_path, index={"embed": embedder, "dims": DIMS}, ttl={"refresh_on_read": True}
        )
        store.put(NS, "k", {"text": "tea"}, ttl=10)
    else:
        store = make(kind, tmp_path, embedder)
        assert not store.supports_ttl
        with pytest.raises(NotImplementedError):
            store.put(NS, "k", {"text": "tea"}, ttl=10)
        store.put(NS, "k", {"text": "tea"})
    try:
        got, found = store.batch([GetOp(NS, "k"), SearchOp(NS, query="tea")])
        assert got is not None and keys(found) == ["k"]  # type: ignore[arg-type]

        async def together() -> list[Any]:
            batched = Batched(store)
            return await asyncio.gather(
                batched.aget(NS, "k"), batched.asearch(NS, query="tea"), batched.aget(NS, "k")
            )

        first, searched, again = asyncio.run(together())
        assert first is not None and again is not None and keys(searched) == ["k"]
    finally:
        if isinstance(store, MemoryStore):
            store.close()
