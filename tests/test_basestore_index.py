"""``MemoryStore(index=IndexConfig)`` and ``put(index=...)``: LangGraph's indexing
options where they fit, clear errors where they do not."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import ChromaServer
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.store.base import PutOp

from langgraph_memory import (
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
    MemoryKitError,
    MemoryStore,
)
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.store import internals

NS = ("docs", "alice")
TAX = "Notes on income tax law and deductions."
PIZZA = "Margherita pizza with fresh basil."


def test_embed_and_dims(tmp_path: Path) -> None:
    fake = DeterministicFakeEmbedding(size=8)
    with MemoryStore(tmp_path, index={"embed": fake, "dims": 8}) as store:
        assert store.embeddings is fake
        assert store.index_config == {"embed": fake, "dims": 8}
        store.put(NS, "k", {"text": "Likes tea."})
        assert store.search(NS, query="tea")[0].key == "k"
    # The store recorded 8 dimensions: another dims is refused when it opens.
    with pytest.raises(EmbeddingMismatchError, match="dims is 16"):
        MemoryStore(tmp_path, index={"embed": fake, "dims": 16})


def test_dims_is_checked_against_the_first_vector(tmp_path: Path) -> None:
    fake = DeterministicFakeEmbedding(size=8)
    with MemoryStore(tmp_path, index={"embed": fake, "dims": 384}) as store:
        with pytest.raises(EmbeddingMismatchError, match="set dims to 8"):
            store.put(NS, "k", {"text": "Likes tea."})
        assert store.list_namespaces() == []


def test_embed_as_a_function_and_as_a_provider_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def embed_texts(texts: list[str]) -> list[list[float]]:
        return [[float(len(t)), 1.0, 0.5] for t in texts]

    with MemoryStore(tmp_path / "f", index={"embed": embed_texts, "dims": 3}) as store:
        assert internals(store).embedder_name.endswith("embed_texts")
        store.put(NS, "k", {"text": "Likes tea."})
        assert store.get(NS, "k") is not None

    pytest.importorskip("langchain.embeddings", reason="'provider:model' needs langchain")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # constructing the client calls nothing
    with MemoryStore(tmp_path / "s", index={"embed": "openai:text-embedding-3-small"}) as store:
        assert internals(store).embedder_name.endswith("OpenAIEmbeddings:text-embedding-3-small")


def test_fields_pick_what_a_put_embeds(tmp_path: Path, embedder: LocalMiniLM) -> None:
    with MemoryStore(tmp_path, index={"embed": embedder, "fields": ["summary"]}) as store:
        store.put(NS, "a", {"text": PIZZA, "summary": TAX})
        store.put(NS, "b", {"text": TAX, "summary": PIZZA})
        assert store.search(NS, query="Italian food")[0].key == "b"  # by its summary
        # put(index=[...]) overrides the store's fields for that item.
        store.put(NS, "a", {"text": PIZZA, "summary": TAX}, index=["text"])
        assert [m.text for m in store.active(NS)] == [PIZZA, PIZZA]  # the text embedded
    with MemoryStore(tmp_path / "whole", index={"embed": embedder, "fields": ["$"]}) as store:
        store.put(NS, "k", {"note": "x"})
        assert [m.text for m in store.active(NS)] == ['{"note": "x"}']  # the whole value


#: Every text ``_Recording`` embedded.
SEEN: list[str] = []


class _Recording(DeterministicFakeEmbedding):
    """A fake embedder that records every text it was given in ``SEEN``."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        SEEN.extend(texts)
        return super().embed_documents(texts)


def test_index_false_is_stored_never_embedded_and_kept(tmp_path: Path) -> None:
    """An item put with ``index=False`` is stored and read like any other, never sent
    to the embedder (the first write of a store embeds a fixed probe text to learn the
    dimension), kept out of vector search, and stays so through a memory-API update
    and an export and import."""
    embedder = _Recording(size=8)
    SEEN.clear()
    secret = "You are a helpful assistant."
    with MemoryStore(tmp_path / "a", embeddings=embedder) as store:
        store.put(NS, "prompt", {"data": secret}, index=False)
        store.put(NS, "note", {"text": "Likes tea."})
        assert all(secret not in text for text in SEEN)
        item = store.get(NS, "prompt")
        assert item is not None and item.value == {"data": secret}
        found = store.search(NS, query=secret)
        assert [(i.key, i.score is None) for i in found] == [("note", False), ("prompt", True)]
        assert [i.key for i in store.search(NS, query=secret, limit=1)] == ["note"]
        [current] = [m for m in store.active(NS) if secret in m.text]
        store.update(NS, current.id, "You are a terse assistant.")  # stays unindexed
        assert all("terse" not in text for text in SEEN)
        exported = store.export(NS)
        assert [m.get("indexed") for m in exported["memories"] if m["key"] == "prompt"] == [
            False,
            False,
        ]
    with MemoryStore(tmp_path / "b", embeddings=embedder) as store:
        SEEN.clear()
        store.import_scope(exported)
        assert SEEN == ["Likes tea."]  # the unindexed item's text is not embedded
        found = store.search(NS, query="terse")
        assert [(i.key, i.score is None) for i in found] == [("note", False), ("prompt", True)]


def test_paths_that_hold_no_text_keep_an_item_out_of_vector_search(tmp_path: Path) -> None:
    fake = DeterministicFakeEmbedding(size=8)
    with MemoryStore(tmp_path, index={"embed": fake, "fields": ["summary"]}) as store:
        store.put(NS, "a", {"summary": "Likes tea."})
        store.put(NS, "b", {"text": "Likes tea."})  # no summary: nothing to embed
        store.put(NS, "c", {"summary": "Likes tea."}, index=["title"])
        found = store.search(NS, query="Likes tea.")
        assert [(i.key, i.score is None) for i in found] == [
            ("a", False),
            ("c", True),
            ("b", True),
        ]
        # The text is kept for the memory API's reads (c's: its value as JSON).
        assert [m.text for m in store.active(NS)] == [
            "Likes tea.",
            "Likes tea.",
            '{"summary": "Likes tea."}',
        ]


@pytest.mark.parametrize(
    ("index", "match"),
    [
        ({"ann_index_config": "hnsw"}, "ann_index_config must be a dict"),
        ({"fields": ["a"], "text_fields": ["b"]}, "pass one of them"),
        ({"distance_type": "l2"}, "cosine"),
        ({"dims": 0}, "positive int"),
        ({"fields": "text"}, "list of JSON paths"),
        ({"fields": [""]}, "non-empty str"),
        ({"embed": "text-embedding-3-small"}, "provider:model"),
        ({"embed": 42}, "Embeddings"),
        ("openai", "IndexConfig"),
    ],
)
def test_index_options_that_do_not_fit_are_refused(tmp_path: Path, index: Any, match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        MemoryStore(tmp_path, index=index)


def test_async_embed_functions_and_two_embedders_are_refused(tmp_path: Path) -> None:
    async def aembed(texts: list[str]) -> list[list[float]]:
        return [[1.0] for _ in texts]

    with pytest.raises(InvalidArgumentError, match="sync function"):
        MemoryStore(tmp_path, index={"embed": aembed})
    fake = DeterministicFakeEmbedding(size=8)
    with pytest.raises(InvalidArgumentError, match="once"):
        MemoryStore(tmp_path, embeddings=fake, index={"embed": DeterministicFakeEmbedding(size=8)})
    # The same embedder twice, and the store's own distance, are fine.
    with MemoryStore(tmp_path, embeddings=fake, index={"embed": fake, "distance_type": "cosine"}):
        pass


@pytest.mark.parametrize("index", [[""], "text", [3]])
def test_bad_put_index_stores_nothing(store: MemoryStore, index: Any) -> None:
    with pytest.raises(InvalidArgumentError):
        store.batch([PutOp(NS, "k", {"text": "x"}, index=index)])
    assert store.get(NS, "k") is None


def test_an_item_of_several_fields_keeps_its_vectors_through_history_and_backups(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    """A vector per field lives in the item's record: an update archives it with its
    record, a memory-API update of the text drops it (one text, one vector); an
    export holds the paths, and an import embeds each field again, so the item scores
    as before and exports again to the byte."""
    query = "Italian food"
    config = {"embed": embedder, "fields": ["title", "body"]}
    with MemoryStore(tmp_path / "a", index=config) as store:
        store.put(NS, "k", {"title": TAX, "body": PIZZA})
        store.put(NS, "k", {"title": TAX, "body": PIZZA, "n": 2})  # archives the first
        store.put(NS, "one", {"title": PIZZA + " " + TAX})
        [first, *_] = found = store.search(NS, query=query)
        assert first.key == "k" and first.score is not None
        scores = {i.key: i.score for i in found}
        [current] = [m for m in store.active(NS) if m.text == f"{TAX} {PIZZA}"]
        assert [v.text for v in store.history(NS, current.id)] == [f"{TAX} {PIZZA}"] * 2
        text = json.dumps(store.export(NS), ensure_ascii=False, indent=2)
        [*_, last] = [m for m in json.loads(text)["memories"] if m["key"] == "k"]
        assert last["index_paths"] == ["title", "body"]
    with MemoryStore(tmp_path / "b", index={"embed": embedder}) as store:  # other fields
        store.import_scope(json.loads(text))
        again = {i.key: i.score for i in store.search(NS, query=query)}
        assert again == pytest.approx(scores, abs=1e-6)
        assert json.dumps(store.export(NS), ensure_ascii=False, indent=2) == text
        [current] = [m for m in store.active(NS) if m.text == f"{TAX} {PIZZA}"]
        store.update(NS, current.id, TAX)  # the memory API's text: one vector, of it
        found = {i.key: i.score for i in store.search(NS, query=query)}
        assert found["k"] != pytest.approx(scores["k"], abs=1e-3)
        assert not any("index_paths" in m for m in store.export(NS)["memories"][-1:])


def test_an_import_refuses_index_paths_that_hold_fewer_than_two_texts(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    with MemoryStore(tmp_path, index={"embed": embedder, "fields": ["title", "body"]}) as store:
        store.put(NS, "k", {"title": TAX, "body": PIZZA})
        data = store.export(NS)
        data["memories"][0]["index_paths"] = ["title", "missing"]
        with pytest.raises(InvalidMemoryError, match="index_paths must hold two texts"):
            store.import_scope(data, scope=("docs", "bob"))
        data["memories"][0]["index_paths"] = "title"
        with pytest.raises(MemoryKitError, match="index_paths must be a non-empty list"):
            store.import_scope(data, scope=("docs", "bob"))
        assert store.search(("docs", "bob")) == []


def test_a_search_sees_items_of_several_fields_put_after_it(tmp_path: Path) -> None:
    """The vectors per field a search reads are kept between searches: a later put,
    update or delete is seen by the next search all the same."""
    fake = DeterministicFakeEmbedding(size=16)
    with MemoryStore(tmp_path, index={"embed": fake, "fields": ["a", "b"]}) as store:
        # A scope searched while it holds no item of several fields: none are kept as such.
        store.put(NS, "solo", {"a": "only one field"})
        assert [i.key for i in store.search(NS, query="green pear")] == ["solo"]
        store.put(NS, "one", {"a": "red apple", "b": "green pear"})
        found = store.search(NS, query="green pear")
        assert [i.key for i in found] == ["one", "solo"]
        assert found[0].score == pytest.approx(1.0, abs=1e-6)
        store.delete(NS, "solo")
        assert [i.key for i in store.search(NS, query="green pear")] == ["one"]
        store.put(NS, "two", {"a": "blue sky", "b": "green pear"})
        found = store.search(NS, query="green pear")
        assert sorted(i.key for i in found) == ["one", "two"]
        assert found[0].score == pytest.approx(1.0, abs=1e-6)
        assert found[1].score == pytest.approx(1.0, abs=1e-6)
        store.put(NS, "one", {"a": "red apple", "b": "yellow lemon"})
        found = store.search(NS, query="green pear")
        assert found[0].key == "two" and found[1].score < 0.99
        store.delete(NS, "two")
        assert [i.key for i in store.search(NS, query="green pear")] == ["one"]
        store.purge(NS)
        assert store.search(NS, query="green pear") == []


@pytest.mark.slow
def test_a_search_sees_items_of_several_fields_another_process_put(
    chroma_server: ChromaServer,
) -> None:
    """Two stores on one Chroma server (two processes as far as the store can tell):
    what one puts, the other's next search scores by its best field, though that
    other searched the scope before."""
    fake = DeterministicFakeEmbedding(size=16)
    database = f"db{uuid.uuid4().hex}"
    index = {"embed": fake, "fields": ["a", "b"]}
    first = chroma_server.client(database)  # creates the database
    with (
        MemoryStore(client=first, index=index) as here,
        MemoryStore(client=chroma_server.other_client(database), index=index) as there,
    ):
        here.put(NS, "solo", {"a": "only one field"})
        assert [i.key for i in there.search(NS, query="green pear")] == ["solo"]
        here.put(NS, "one", {"a": "red apple", "b": "green pear"})
        found = there.search(NS, query="green pear")
        assert [i.key for i in found] == ["one", "solo"]
        assert found[0].score == pytest.approx(1.0, abs=1e-6)
        here.put(NS, "one", {"a": "red apple", "b": "yellow lemon"})
        assert there.search(NS, query="green pear")[0].score < 0.99


def test_the_index_keys_of_langgraphs_sql_stores_carry_over(tmp_path: Path) -> None:
    """A SqliteStore config names its paths ``text_fields`` (a str is one path); a
    PostgresStore config tunes pgvector with ``ann_index_config``, which has no
    effect on Chroma's index: both configs open a store that embeds those paths."""
    fake = DeterministicFakeEmbedding(size=8)
    sqlite_style = {"embed": fake, "dims": 8, "text_fields": "title"}
    postgres_style = {
        "embed": fake,
        "dims": 8,
        "fields": ["title"],
        "distance_type": "cosine",
        "ann_index_config": {"kind": "hnsw", "vector_type": "halfvec", "m": 16},
    }
    for name, index in (("sqlite", sqlite_style), ("postgres", postgres_style)):
        with MemoryStore(tmp_path / name, index=index) as store:
            store.put(NS, "k", {"title": TAX, "body": PIZZA})
            [hit] = store.search(NS, query=TAX, limit=1)
            assert hit.key == "k" and hit.score == pytest.approx(1.0, abs=1e-6), name
            assert store.index_config == index
