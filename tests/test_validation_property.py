"""Hostile input across the public API: only our errors escape, and a refused
call leaves every scope's export as it was.

Each test opens one small store (an 8-dimensional fake embedder, in a temporary
directory), seeds it, then lets hypothesis call the API with lone surrogates,
control characters, huge, negative and bool ``k``, NaN and inf vectors, wrong
types, empty strings, huge ints, naive datetimes, unknown ids and ``None`` in
lists, mixed with valid values so that some calls go through.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import snapshot
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import HumanMessage

from langgraph_memory import MemoryKitError, MemoryStore, MemoryWriter, Scope
from langgraph_memory.graph.tools import memory_tools
from langgraph_memory.read import retrieve
from langgraph_memory.store import internals
from langgraph_memory.write.rules import RulesModel

# Many generated cases per test: the slow tier (test_validation.py is the quick one).
pytestmark = pytest.mark.slow

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
CONFIG = {"configurable": {"user_id": "a"}}
SETTINGS = settings(
    max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# -- hostile values, mixed with good ones so that calls also get past the first check --


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` about three times in four, ``bad`` otherwise. (``one_of`` would not
    do: hypothesis leans to the branch with more distinct values, the bad one.)"""
    return st.sampled_from([False, True, True, True]).flatmap(lambda ok: good if ok else bad)


#: Every Unicode character, lone surrogates and control characters included.
any_char = st.characters(exclude_categories=())
LONG = "x" * 40_000
odd_text = st.sampled_from(
    [
        "",
        " ",
        "\n\t",
        "\ud800",
        "x\udcff",
        "nul\x00",
        "bell\x07",
        "esc\x1b[2J",
        "del\x7f",
        "nel\x85",
        LONG,
    ]
)
good_text = st.sampled_from(
    ["I live in Pune.", "User likes tea.", "Tea", "0a1b2c3d", "I moved to Delhi.", "Who is Ann?"]
)
texts = st.one_of(good_text, odd_text, st.text(any_char, max_size=12))
wrong_types = st.sampled_from(
    [None, 0, 5, -1, 2.5, math.nan, True, b"bytes", [], {}, (), object(), date(2026, 1, 5)]
)
huge_ints = st.sampled_from([2**63, -(2**63) - 1, 2**70, 10**400])
ints = st.one_of(st.integers(-3, 12), huge_ints, st.integers())
floats = st.floats(allow_nan=True, allow_infinity=True)
anything = st.one_of(texts, wrong_types, ints, floats)

good_times = st.sampled_from(
    [
        None,
        T0 + timedelta(days=30),
        datetime(2026, 3, 5, 14, 0, tzinfo=timezone(timedelta(hours=5))),
        datetime.max.replace(tzinfo=timezone.utc),
        datetime(1, 1, 1, tzinfo=timezone.utc),
    ]
)
bad_times = st.sampled_from(
    [
        datetime(2026, 1, 5, 9, 0),  # naive
        datetime.min.replace(tzinfo=timezone(timedelta(hours=5))),  # before year 1 in UTC
        date(2026, 1, 5),
        "2026-01-05T09:00+00:00",
        1_767_600_000,
    ]
)
times = mostly(good_times, bad_times)
bad_ks = st.one_of(st.integers(-2, 0), huge_ints, st.just(10_001), wrong_types)
ks = mostly(st.integers(1, 12), bad_ks)
scopes = mostly(
    st.sampled_from(["user:a", "user:b", ("user", "a"), Scope("agent", "x")]),
    st.one_of(
        st.sampled_from(["user:", "user:\ud800", "user:a\x00", "bogus:a", "user", ("user",)]),
        wrong_types,
        texts,
    ),
)
vectors = st.one_of(
    st.lists(st.floats(-1, 1), min_size=8, max_size=8),
    st.lists(floats, min_size=8, max_size=8),
    st.lists(st.floats(-1, 1), min_size=0, max_size=10),
    st.lists(st.one_of(floats, wrong_types, texts), max_size=8),
    st.sampled_from([[1e39] * 8, [0.0] * 8, [10**400] * 8]),
)
metadata = st.one_of(
    st.dictionaries(
        st.one_of(texts, st.sampled_from([None, 5, 2.5, True, b"k", ()])), anything, max_size=3
    ),
    st.sampled_from([{"n": 2**70}, {"n": 2**63 - 1}, {"ok": "yes"}]),
    wrong_types,
)


def ids(known: list[str]) -> st.SearchStrategy[Any]:
    return mostly(
        st.sampled_from(known), st.one_of(st.sampled_from(["ffffffff", ""]), texts, wrong_types)
    )


def id_lists(known: list[str]) -> st.SearchStrategy[Any]:
    return mostly(
        st.lists(ids(known), max_size=4),
        st.one_of(ids(known), wrong_types),  # a single str (or None) where a list belongs
    )


# -- the store under test --------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store", embeddings=DeterministicFakeEmbedding(size=8)) as s:
        yield s


def seed(store: MemoryStore) -> list[str]:
    """Two scopes with active, closed and pinned memories and decisions; their ids."""
    writer = MemoryWriter(store, model=RulesModel())
    writer.write_turn("user:a", [("user", "I live in Delhi.")], now=T0)
    writer.write_turn("user:a", [("user", "I moved to Pune.")], now=T0 + timedelta(days=1))
    pinned = store.add("user:a", "User is allergic to peanuts.", pinned=True, now=T0)
    other = store.add("user:b", "User likes Tea.", metadata={"topic": "drinks"}, now=T0)
    return [m.id for m in store.history("user:a", store.active("user:a")[0].id)] + [
        pinned.id,
        other.id,
    ]


def only_our_errors(store: MemoryStore, op: str, call: Callable[[], object]) -> None:
    """``call`` either works or raises a MemoryKitError that changed nothing."""
    before = snapshot(store)
    try:
        call()
    except MemoryKitError as exc:
        event(f"{op}: {type(exc).__name__}")  # --hypothesis-show-statistics lists them
        assert snapshot(store) == before, "a refused call changed the store"
    else:
        event(f"{op}: ok")
    # Anything else (TypeError, OverflowError, UnicodeError, Chroma's or numpy's
    # errors) propagates and fails the test with its traceback.


def kwargs_of(draw: Any, **options: st.SearchStrategy[Any]) -> dict[str, Any]:
    """Some of the given keyword arguments, each drawn from its strategy."""
    names = draw(st.sets(st.sampled_from(sorted(options))))
    return {name: draw(options[name]) for name in sorted(names)}


# -- the tests ---------------------------------------------------------------------------------


def test_store_api(store: MemoryStore) -> None:
    known = seed(store)

    @SETTINGS
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        draw = data.draw
        scope = draw(scopes)
        op = draw(
            st.sampled_from(
                [
                    "add",
                    "add_many",
                    "update",
                    "close",
                    "get",
                    "nearest",
                    "keyword",
                    "history",
                    "decisions",
                    "touch",
                    "purge",
                ]
            )
        )
        fields = {
            "importance": st.one_of(floats, ints, wrong_types),
            "kind": st.one_of(st.sampled_from(["semantic", "episodic"]), texts, wrong_types),
            "pinned": anything,
            "source": st.one_of(st.just("user"), texts, wrong_types),
            "trust": st.one_of(st.just("low"), texts, wrong_types),
            "event_time": times,
            "sources": st.one_of(id_lists(known), wrong_types),
            "metadata": metadata,
        }
        call: Callable[[], object]
        if op == "add":
            text, kw = (
                draw(mostly(good_text, texts | wrong_types)),
                kwargs_of(draw, now=times, **fields),
            )
            call = lambda: store.add(scope, text, **kw)  # noqa: E731
        elif op == "add_many":
            item = st.one_of(texts, st.fixed_dictionaries({"text": texts}), wrong_types)
            items = draw(st.one_of(st.lists(item, max_size=3), texts, wrong_types))
            now = draw(times)
            call = lambda: store.add_many(scope, items, now=now)  # noqa: E731
        elif op == "update":
            memory_id, text = draw(ids(known)), draw(mostly(good_text, texts | wrong_types))
            kw = kwargs_of(draw, now=times, **fields)
            call = lambda: store.update(scope, memory_id, text, **kw)  # noqa: E731
        elif op == "close":
            memory_id, now = draw(ids(known)), draw(times)
            call = lambda: store.archive(scope, memory_id, now=now)  # noqa: E731
        elif op == "get":
            memory_id = draw(ids(known))
            call = lambda: store.get_memory(scope, memory_id)  # noqa: E731
        elif op == "nearest":
            query = draw(st.one_of(texts, vectors, wrong_types))
            kw = kwargs_of(draw, k=ks, as_of=times, ids=id_lists(known))
            call = lambda: internals(store).nearest(scope, query, **kw)  # noqa: E731
        elif op == "keyword":
            terms = draw(st.one_of(texts, st.lists(texts | wrong_types, max_size=3), wrong_types))
            k = draw(ks)
            call = lambda: internals(store).keyword(scope, terms, k=k)  # noqa: E731
        elif op == "history":
            memory_id = draw(ids(known))
            call = lambda: store.history(scope, memory_id)  # noqa: E731
        elif op == "decisions":
            kw = kwargs_of(draw, memory_id=ids(known), turn_id=ids(known))
            call = lambda: store.decisions(scope, **kw)  # noqa: E731
        elif op == "touch":
            memory_ids, now = draw(id_lists(known)), draw(times)
            call = lambda: internals(store).touch(scope, memory_ids, now=now)  # noqa: E731
        else:
            # purge with ids only: purging a whole scope is not a refusal to test
            purge_ids = draw(id_lists(known).filter(lambda v: v is not None))
            call = lambda: store.purge(scope, purge_ids)  # noqa: E731
        only_our_errors(store, op, call)

    run()


def test_writer_and_retrieve(store: MemoryStore) -> None:
    known = seed(store)
    writer = MemoryWriter(store, model=RulesModel())
    role = st.one_of(st.sampled_from(["user", "assistant", "human", "ai"]), texts, wrong_types)
    content = st.one_of(
        texts,
        st.lists(st.one_of(texts, st.fixed_dictionaries({"text": anything}), wrong_types)),
        wrong_types,
    )
    message = st.one_of(
        st.tuples(role, content),
        st.fixed_dictionaries({"role": role, "content": content}),
        texts.map(HumanMessage),
        wrong_types,
    )

    @SETTINGS
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        draw = data.draw
        scope = draw(scopes)
        op = draw(st.sampled_from(["remember", "forget", "write_turn", "retrieve", "parse"]))
        call: Callable[[], object]
        if op == "remember":
            text = draw(mostly(good_text, texts | wrong_types))
            kw = kwargs_of(draw, importance=st.one_of(floats, ints), pinned=anything, now=times)
            call = lambda: writer.remember(scope, text, **kw)  # noqa: E731
        elif op == "forget":
            kw = kwargs_of(draw, memory_id=ids(known), query=texts | wrong_types, now=times)
            call = lambda: writer.forget(scope, **kw)  # noqa: E731
        elif op == "write_turn":
            messages = draw(st.one_of(st.lists(message, max_size=3), texts, wrong_types))
            kw = kwargs_of(draw, now=times, turn_id=ids(known))
            call = lambda: writer.write_turn(scope, messages, **kw)  # noqa: E731
        elif op == "retrieve":
            query = draw(texts | wrong_types)
            kw = kwargs_of(
                draw,
                k=ks,
                now=times,
                as_of=times,
                half_life_days=st.one_of(floats, ints, wrong_types),
                dense_weight=st.one_of(floats, ints, wrong_types),
                pinned_limit=ks,
            )
            call = lambda: retrieve(store, scope, query, **kw)  # noqa: E731
        else:
            text = draw(st.one_of(texts, scopes))
            call = lambda: Scope.parse(text)  # noqa: E731
        only_our_errors(store, op, call)

    run()


def test_tools_answer_instead_of_raising(store: MemoryStore) -> None:
    seed(store)
    remember, forget, recall = memory_tools(MemoryWriter(store, model=RulesModel()))
    refused = ("Could not remember that:", "Could not forget that:", "Could not search for that:")
    untouched = (*refused, "Bad arguments", "No memory matches", "Several memories match")

    @SETTINGS
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        draw = data.draw
        tool = draw(st.sampled_from([remember, forget, recall]))
        names = {"remember": ["text", "importance", "pinned"], "forget": ["memory"]}
        args = {
            name: draw(anything)
            for name in draw(st.sets(st.sampled_from(names.get(tool.name, ["query"]))))
        }
        before = snapshot(store)
        answer = tool.invoke(args, CONFIG)
        assert isinstance(answer, str) and answer
        if answer.startswith(untouched):
            assert snapshot(store) == before, answer

    run()
