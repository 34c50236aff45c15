"""Bad input becomes the project's own error, before it reaches Chroma, the
tokenizer or a model, and a refused call changes nothing that is stored.

One test per defect found by probing; ``test_validation_property`` throws
generated hostile input at the same entry points.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import snapshot
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from langgraph_memory import (
    BackgroundWriter,
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidScopeError,
    MemoryStore,
    MemoryWriter,
    Scope,
)
from langgraph_memory.checks import MAX_K
from langgraph_memory.cli import main
from langgraph_memory.graph.nodes import turn_time
from langgraph_memory.graph.tools import memory_tools
from langgraph_memory.read import retrieve
from langgraph_memory.store import internals
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.types import Turn

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
NAIVE = datetime(2026, 1, 5, 9, 0)
U = "user:a"
CONFIG = {"configurable": {"user_id": "a"}}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store", embeddings=DeterministicFakeEmbedding(size=8)) as s:
        yield s


class NoModel(RulesModel):
    """A model that counts its calls (the writer catches model errors, so it cannot raise)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def extract(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super().extract(*args, **kwargs)

    def choose(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super().choose(*args, **kwargs)


def refuses(
    store: MemoryStore, call: Callable[[], object], error: type[Exception], match: str
) -> None:
    before = snapshot(store)
    with pytest.raises(error, match=match):
        call()
    assert snapshot(store) == before


# -- 1. degenerate input -----------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_forget_with_an_empty_query_archives_nothing(store: MemoryStore, query: str) -> None:
    m = store.add(U, "User likes tea.", now=T0)  # the only memory: any query matched it
    writer = MemoryWriter(store, model=NoModel())
    refuses(store, lambda: writer.forget(U, query=query), InvalidArgumentError, "empty query")
    assert store.get_memory(U, m.id).active
    _, forget, _ = memory_tools(writer)
    answer = forget.invoke({"memory": query}, CONFIG)
    assert answer.startswith("Could not forget that: ") and "empty query" in answer
    assert store.get_memory(U, m.id).active


@pytest.mark.parametrize("text", ["", "  ", "\n"])
def test_remember_empty_text_is_refused_before_the_model_and_the_log(
    store: MemoryStore, text: str
) -> None:
    store.add(U, "User likes tea.", now=T0)
    model = NoModel()
    writer = MemoryWriter(store, model=model)
    refuses(store, lambda: writer.remember(U, text), InvalidMemoryError, "empty")
    remember, _, _ = memory_tools(writer)
    before = snapshot(store)
    answer = remember.invoke({"text": text}, CONFIG)
    assert answer == "Could not remember that: memory text is empty; pass the fact to remember"
    assert snapshot(store) == before and store.decisions(U) == []
    assert model.calls == 0


def test_tools_answer_arguments_of_the_wrong_type(store: MemoryStore) -> None:
    remember, forget, recall = memory_tools(MemoryWriter(store, model=RulesModel()))
    assert "text: Input should be a valid string" in remember.invoke({"text": 5}, CONFIG)
    assert "importance" in remember.invoke({"text": "I like tea", "importance": "x"}, CONFIG)
    assert "memory: Field required" in forget.invoke({}, CONFIG)
    assert recall.invoke({"query": "\ud800"}, CONFIG).startswith("Could not search for that:")
    assert store.scopes() == []


# -- 2. unclear errors and silent changes ------------------------------------------------

SURROGATE = "\ud800"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda s: s.add(U, f"User likes {SURROGATE}."), InvalidMemoryError),
        (lambda s: s.add(f"user:a{SURROGATE}", "x"), InvalidScopeError),
        (lambda s: s.add(U, "x", metadata={SURROGATE: 1}), InvalidMemoryError),
        (lambda s: s.add(U, "x", metadata={"k": SURROGATE}), InvalidMemoryError),
        (lambda s: s.add(U, "x", sources=[SURROGATE]), InvalidMemoryError),
        (lambda s: internals(s).nearest(U, SURROGATE), InvalidArgumentError),
        (lambda s: internals(s).keyword(U, f"Paris {SURROGATE}"), InvalidArgumentError),
        (lambda s: internals(s).keyword(U, [SURROGATE]), InvalidArgumentError),
        (lambda s: s.get_memory(U, SURROGATE), InvalidArgumentError),
        (lambda s: retrieve(s, U, SURROGATE), InvalidArgumentError),
        (
            lambda s: MemoryWriter(s, model=NoModel()).write_turn(U, [("user", SURROGATE)]),
            InvalidArgumentError,
        ),
        (
            lambda s: MemoryWriter(s, model=NoModel()).forget(U, query=SURROGATE),
            InvalidArgumentError,
        ),
        (lambda s: Scope.parse(f"user:{SURROGATE}"), InvalidScopeError),
    ],
)
def test_lone_surrogates_are_refused(
    store: MemoryStore, call: Callable[[MemoryStore], object], error: type[Exception]
) -> None:
    store.add(U, "User likes tea.", now=T0)
    refuses(store, lambda: call(store), error, "lone surrogate")


@pytest.mark.parametrize("ch", ["\x00", "\x01", "\x0b", "\x1b", "\x7f", "\x85"])
def test_control_characters_are_refused_in_what_is_stored(store: MemoryStore, ch: str) -> None:
    refuses(store, lambda: store.add(U, f"User{ch} likes tea."), InvalidMemoryError, "control")
    refuses(store, lambda: store.add(U, "x", metadata={"k": ch}), InvalidMemoryError, "control")
    refuses(store, lambda: store.add(U, "x", metadata={ch: 1}), InvalidMemoryError, "control")


def test_tab_newline_and_carriage_return_are_kept(store: MemoryStore) -> None:
    m = store.add(U, "Line one,\tand\r\nline two.", metadata={"note": "a\tb\nc"})
    assert store.get_memory(U, m.id).text == "Line one,\tand\r\nline two."
    assert store.get_memory(U, m.id).metadata == {"note": "a\tb\nc"}
    # A query is never stored: control characters in it are searched as given.
    assert internals(store).nearest(U, "line\x0b two", k=1)[0].memory.id == m.id


@pytest.mark.parametrize("k", [0, -1, 2**63, MAX_K + 1, True, 2.0, "3", None])
def test_k_out_of_range_is_refused(store: MemoryStore, k: Any) -> None:
    store.add(U, "User likes tea.", now=T0)
    for call in (
        lambda: internals(store).nearest(U, "tea", k=k),
        lambda: internals(store).keyword(U, "Tea", k=k),
        lambda: store.pinned(U, k),
        lambda: retrieve(store, U, "tea", k=k),
    ):
        refuses(store, call, InvalidArgumentError, "10,000")


def test_k_at_the_maximum_works(store: MemoryStore) -> None:
    store.add(U, "User likes tea.", now=T0)
    assert len(internals(store).nearest(U, "tea", k=MAX_K)) == 1
    assert len(retrieve(store, U, "tea", k=MAX_K)) == 1  # candidates are capped too


@pytest.mark.parametrize("bad", [[None], [""], [5], "0a1b2c3d", None, 5, {"a": 1}])
def test_ids_that_are_not_strings_are_refused(store: MemoryStore, bad: Any) -> None:
    m = store.add(U, "User likes tea.", now=T0)
    if bad is not None:
        refuses(
            store, lambda: internals(store).nearest(U, "tea", ids=bad), InvalidArgumentError, "ids"
        )
        refuses(store, lambda: store.purge(U, bad), InvalidArgumentError, "ids")
        refuses(store, lambda: internals(store).touch(U, bad), InvalidArgumentError, "memory_ids")
    for one in (None, "", 5):
        refuses(store, lambda: store.get_memory(U, one), InvalidArgumentError, "memory id")  # noqa: B023
        refuses(store, lambda: store.history(U, one), InvalidArgumentError, "memory id")  # noqa: B023
        refuses(store, lambda: store.archive(U, one), InvalidArgumentError, "memory id")  # noqa: B023
    refuses(store, lambda: store.decisions(U, turn_id=5), InvalidArgumentError, "turn_id")  # type: ignore[arg-type]
    assert store.get_memory(U, m.id).active


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_query_vectors_are_refused(store: MemoryStore, value: float) -> None:
    store.add(U, "User likes tea.", now=T0)
    vector = [0.1] * 7 + [value]
    refuses(store, lambda: internals(store).nearest(U, vector), EmbeddingMismatchError, "finite")
    refuses(store, lambda: internals(store).embed_query(vector), EmbeddingMismatchError, "finite")
    refuses(store, lambda: internals(store).nearest(U, []), EmbeddingMismatchError, "empty")


class NanEmbeddings(Embeddings):
    """An embedder that breaks on one word."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[math.nan if "broken" in t else 0.5] * 8 for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_vectors_from_the_embedder_are_checked_before_they_are_stored(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "s", embeddings=NanEmbeddings()) as s:
        m = s.add(U, "Works.", now=T0)
        refuses(s, lambda: s.add_many(U, ["Fine.", "A broken one."]), EmbeddingMismatchError, "nan")
        refuses(s, lambda: s.update(U, m.id, "Now broken."), EmbeddingMismatchError, "nan")
        refuses(s, lambda: internals(s).nearest(U, "broken query"), EmbeddingMismatchError, "nan")
        assert [x.text for x in s.active(U)] == ["Works."]


def test_metadata_ints_outside_64_bits_are_refused(store: MemoryStore) -> None:
    for big in (2**63, -(2**63) - 1, 2**70):
        refuses(store, lambda: store.add(U, "x", metadata={"n": big}), InvalidMemoryError, "64-bit")  # noqa: B023
    m = store.add(U, "x", metadata={"hi": 2**63 - 1, "lo": -(2**63)})
    assert store.get_memory(U, m.id).metadata == {"hi": 2**63 - 1, "lo": -(2**63)}


def test_naive_datetimes_are_refused_everywhere_a_time_goes_in(store: MemoryStore) -> None:
    m = store.add(U, "User likes tea.", now=T0)
    writer = MemoryWriter(store, model=NoModel())
    calls: list[Callable[[], object]] = [
        lambda: store.add(U, "x", now=NAIVE),
        lambda: store.add(U, "x", event_time=NAIVE),
        lambda: store.add_many(U, [{"text": "x", "event_time": NAIVE}]),
        lambda: store.update(U, m.id, "User likes coffee.", now=NAIVE),
        lambda: store.update(U, m.id, "User likes coffee.", event_time=NAIVE),
        lambda: store.archive(U, m.id, now=NAIVE),
        lambda: internals(store).touch(U, [m.id], now=NAIVE),
        lambda: internals(store).nearest(U, "tea", as_of=NAIVE),
        lambda: retrieve(store, U, "tea", now=NAIVE),
        lambda: retrieve(store, U, "tea", as_of=NAIVE),
        lambda: writer.write_turn(U, [("user", "I live in Pune.")], now=NAIVE),
        lambda: writer.remember(U, "I live in Pune.", now=NAIVE),
        lambda: writer.forget(U, m.id, now=NAIVE),
        lambda: Turn.of([("user", "hi")], when=NAIVE),
        lambda: turn_time({"configurable": {"memory_now": "2026-01-05T09:00"}}),
        lambda: turn_time({"configurable": {"memory_now": NAIVE}}),
    ]
    for call in calls:
        refuses(store, call, InvalidArgumentError, "no time zone")
    # An aware time in another zone is the same instant in UTC.
    ist = timezone(timedelta(hours=5, minutes=30))
    later = store.add(U, "x", now=datetime(2026, 1, 5, 14, 30, tzinfo=ist))
    assert later.created_at == T0


def test_background_writer_refuses_a_naive_time_in_the_caller(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=NoModel())
    with BackgroundWriter(writer, workers=1) as bg:
        with pytest.raises(InvalidArgumentError, match="now=datetime"):
            bg.submit(U, [("user", "I live in Pune.")], now=NAIVE)
        with pytest.raises(InvalidArgumentError, match="lone surrogate"):
            bg.submit(U, [("user", SURROGATE)])
        assert bg.flush(timeout=10)
    assert store.scopes() == []


# -- the command line ----------------------------------------------------------------


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


def test_cli_bad_paths_and_arguments_print_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "store")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    missing = tmp_path / "missing" / "out.json"
    assert main(["export", "--path", path, "--user", "a", "--out", str(missing)]) == 2
    assert "does not exist" in one_error_line(capsys)
    assert main(["export", "--path", path, "--user", "a", "--out", str(tmp_path)]) == 2
    assert "is a directory" in one_error_line(capsys)
    assert not Path(path).exists(), "a refused command opened the store"
    assert main(["show", "--path", str(a_file), "--user", "a"]) == 1
    assert "is a file, not a directory" in one_error_line(capsys)
    assert main(["show", "--path", path + "\udcff", "--user", "a"]) == 2
    assert "b'" in one_error_line(capsys)  # shows the bytes typed
    assert main(["show", "--path", path, "--user", "a\udcff"]) == 2
    assert "not valid UTF-8" in one_error_line(capsys)
    assert not Path(path).exists() and not Path(path + "\udcff").exists()


# -- found by test_validation_property -----------------------------------------------


def test_nearest_among_ids_skips_unknown_and_archived_ones(store: MemoryStore) -> None:
    """Chroma failed the whole query ("Error finding id") for one missing id, so a
    retrieve whose keyword hit was archived meanwhile failed."""
    keep = store.add(U, "User likes tea.", now=T0)
    gone = store.add(U, "User likes coffee.", now=T0)
    store.archive(U, gone.id, now=T0)
    hits = internals(store).nearest(U, "tea", ids=[gone.id, "ffffffff", keep.id, keep.id])
    assert [h.memory.id for h in hits] == [keep.id]
    assert internals(store).nearest(U, "tea", ids=["ffffffff"]) == []


def test_purge_with_a_repeated_id(store: MemoryStore) -> None:
    m = store.add(U, "User likes tea.", now=T0)
    assert store.purge(U, [m.id, m.id]) == {"memories": 1, "decisions": 0, "reviews": 0}


def test_times_the_store_cannot_read_back_are_refused(store: MemoryStore) -> None:
    last = datetime(9999, 12, 31, tzinfo=timezone.utc)
    m = store.add(U, "x", now=last, event_time=datetime(1, 1, 1, tzinfo=timezone.utc))
    assert store.get_memory(U, m.id).created_at == last
    too_late = datetime.max.replace(tzinfo=timezone.utc)  # its epoch float rounds into 10000
    refuses(store, lambda: store.add(U, "x", now=too_late), InvalidArgumentError, "latest")
    refuses(store, lambda: store.add(U, "x", event_time=too_late), InvalidArgumentError, "latest")
    before_year_1 = datetime.min.replace(tzinfo=timezone(timedelta(hours=5)))
    refuses(
        store, lambda: store.add(U, "x", now=before_year_1), InvalidArgumentError, "years 1 to 9999"
    )


def test_numbers_too_big_for_floats_are_refused(store: MemoryStore) -> None:
    writer = MemoryWriter(store, model=NoModel())
    refuses(
        store,
        lambda: writer.remember(U, "I like tea.", importance=10**400),
        InvalidMemoryError,
        "importance",
    )
    refuses(
        store, lambda: internals(store).nearest(U, [1e39] * 8), EmbeddingMismatchError, "float32"
    )
    refuses(
        store, lambda: internals(store).nearest(U, [10**400] * 8), EmbeddingMismatchError, "inf"
    )
    store.add(U, "User likes tea.", now=T0)
    for share in (10**400, 1.5, -0.1, math.nan, True):
        refuses(
            store,
            lambda: retrieve(store, U, "tea", dense_weight=share),  # noqa: B023
            InvalidArgumentError,
            "dense_weight",
        )
    for half_life in (10**400, 1e300, math.inf, 0, math.nan):
        refuses(
            store,
            lambda: retrieve(store, U, "tea", half_life_days=half_life),  # noqa: B023
            InvalidArgumentError,
            "half_life_days",
        )


def test_basestore_keys_that_cannot_be_stored_are_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidArgumentError, match="store key"):
        store.get(("user", "a"), SURROGATE)
    with pytest.raises(InvalidMemoryError, match="store key"):
        store.put(("user", "a"), SURROGATE, {"text": "x"})
    assert store.scopes() == []
