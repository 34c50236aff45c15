"""MemoryStore as a LangGraph ``BaseStore``: the behaviour LangGraph's own store tests check.

Modelled on langgraph's ``libs/checkpoint/tests/test_store.py`` (list_namespaces,
batch dedup, async ops, vector search with filters) and the Postgres store tests
(put/get/update/delete round trips, search pagination, filter operators), adapted
to this store's rules: every namespace is a scope, updates and deletes keep
history, expiry archives. Namespaces of any depth, TTLs, ``index=`` and LangMem
have files of their own (``test_basestore_*.py``). Every test runs on the
embedded store and on a real ``chroma run`` server (the ``store`` fixture).
"""

from __future__ import annotations

import asyncio
import operator
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import InjectedStore, ToolNode
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from langgraph_memory import InvalidMemoryError, InvalidScopeError, Memory, MemoryStore, Scope
from langgraph_memory.store import internals

ALICE = ("user", "alice")
BOB = ("user", "bob")


def chain(store: MemoryStore, namespace: tuple[str, str], key: str) -> list[Memory]:
    """Every version of the item under ``key``, oldest first (via the memory API)."""
    scope = Scope.from_namespace(namespace)
    ids = [m["id"] for m in store.export(scope)["memories"] if m["key"] == key]
    assert ids, f"no version of {key!r} in {scope}"
    return store.history(scope, ids[0])


def keys(items: list[SearchItem]) -> list[str]:
    return [i.key for i in items]


# -- put / get / update / delete ------------------------------------------------------


def test_put_get_round_trip(store: MemoryStore) -> None:
    value = {"text": "User likes pizza.", "rating": 5, "tags": ["food"], "nested": {"a": 1}}
    assert store.put(ALICE, "food", value) is None
    item = store.get(ALICE, "food")
    assert isinstance(item, Item)
    assert item.value == value
    assert item.key == "food"
    assert item.namespace == ALICE
    assert isinstance(item.created_at, datetime) and item.created_at.tzinfo is not None
    assert isinstance(item.updated_at, datetime) and item.updated_at.tzinfo is not None
    assert item.created_at == item.updated_at
    # The value is a copy: changing what was put changes nothing stored.
    value["rating"] = 0
    assert store.get(ALICE, "food").value["rating"] == 5  # type: ignore[union-attr]


def test_get_missing_key_and_scope(store: MemoryStore) -> None:
    assert store.get(ALICE, "nope") is None  # scope never written
    store.put(ALICE, "a", {"text": "x"})
    assert store.get(ALICE, "nope") is None
    assert store.get(BOB, "a") is None  # keys are per namespace
    store.delete(BOB, "a")  # deleting in an unknown scope creates nothing
    assert store.list_namespaces() == [ALICE]


def test_put_existing_key_updates_and_keeps_history(store: MemoryStore) -> None:
    store.put(ALICE, "food", {"text": "User likes sushi.", "n": 1})
    first = store.get(ALICE, "food")
    store.put(ALICE, "food", {"text": "User likes ramen.", "n": 2})
    second = store.get(ALICE, "food")
    assert first is not None and second is not None
    assert second.value == {"text": "User likes ramen.", "n": 2}
    assert second.created_at == first.created_at  # the item's birth stays
    assert second.updated_at > first.updated_at  # its last change moves
    assert len(store.search(ALICE)) == 1  # one item, not two

    versions = chain(store, ALICE, "food")
    assert [v.text for v in versions] == ["User likes sushi.", "User likes ramen."]
    old, new = versions
    assert old.valid_until is not None and not old.active
    assert new.active and new.replaces == old.id


def test_delete_closes_keeps_history_and_put_again_continues(store: MemoryStore) -> None:
    store.put(ALICE, "city", {"text": "User lives in Delhi."})
    store.put(ALICE, "other", {"text": "User has a cat."})
    store.delete(ALICE, "city")
    assert store.get(ALICE, "city") is None
    assert keys(store.search(ALICE)) == ["other"]
    assert keys(store.search(ALICE, query="Where does the user live?")) == ["other"]
    [closed] = chain(store, ALICE, "city")  # archived, not erased
    assert closed.text == "User lives in Delhi." and not closed.active

    store.delete(ALICE, "city")  # deleting a deleted key is a no-op
    store.delete(ALICE, "never-there")

    store.put(ALICE, "city", {"text": "User lives in Pune."})
    assert store.get(ALICE, "city").value == {"text": "User lives in Pune."}  # type: ignore[union-attr]
    versions = chain(store, ALICE, "city")
    assert [v.text for v in versions] == ["User lives in Delhi.", "User lives in Pune."]
    assert versions[1].replaces == versions[0].id and versions[1].active


def test_put_none_value_deletes(store: MemoryStore) -> None:
    store.put(ALICE, "k", {"text": "x"})
    store.batch([PutOp(ALICE, "k", None)])
    assert store.get(ALICE, "k") is None
    assert len(chain(store, ALICE, "k")) == 1


def test_memory_api_items_are_visible(store: MemoryStore) -> None:
    m = store.add("user:alice", "User is vegetarian.", importance=0.8)
    item = store.get(ALICE, m.id)
    assert item is not None and item.value["text"] == "User is vegetarian."
    assert item.value["importance"] == 0.8
    store.put(ALICE, m.id, {"text": "User is vegan."})  # an update through the BaseStore face
    assert [v.text for v in store.history("user:alice", m.id)] == [
        "User is vegetarian.",
        "User is vegan.",
    ]


# -- errors ---------------------------------------------------------------------------


def test_put_reserved_namespace_in_a_batch(store: MemoryStore) -> None:
    """``put`` refuses a "langgraph" root (LangGraph's check); ``batch`` skips that
    check, so the store makes it."""
    with pytest.raises(InvalidScopeError, match="langgraph") as err:
        store.batch([PutOp(("langgraph", "x"), "k", {"text": "x"})])
    assert isinstance(err.value, ValueError)
    assert store.get(("langgraph", "x"), "k") is None
    assert store.search(("langgraph",)) == []
    assert store.list_namespaces() == []


def test_put_namespace_langgraph_rules(store: MemoryStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.put(("user", "a.b"), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):  # batch() validates too
        store.batch([PutOp(("user", ""), "k", {"text": "x"})])


@pytest.mark.parametrize("value", [["a list"], "a str", 3])
def test_non_dict_value_rejected(store: MemoryStore, value: Any) -> None:
    with pytest.raises(InvalidMemoryError):
        store.put(ALICE, "k", value)
    assert store.get(ALICE, "k") is None
    assert store.list_namespaces() == []


def test_oversized_text_rejected(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryError, match="characters"):
        store.batch(
            [PutOp(ALICE, "ok", {"text": "fine"}), PutOp(ALICE, "big", {"text": "x" * 40_000})]
        )
    assert store.search(ALICE) == []


def test_bad_op_in_batch_stores_nothing(store: MemoryStore) -> None:
    with pytest.raises(InvalidScopeError):
        store.batch([PutOp(ALICE, "good", {"text": "x"}), PutOp(("langgraph", "x"), "k", {"a": 1})])
    assert store.get(ALICE, "good") is None


def test_bad_filter_operator(store: MemoryStore) -> None:
    store.put(ALICE, "k", {"text": "x", "n": 1})
    with pytest.raises(ValueError, match=r"\$in"):
        store.search(ALICE, filter={"n": {"$in": [1]}})


# -- search without a query ---------------------------------------------------------


@pytest.fixture
def scores(store: MemoryStore) -> MemoryStore:
    """Five items in alice's scope, put in one batch, with numbers to filter on."""
    store.batch(
        [
            PutOp(
                ALICE,
                f"k{i}",
                {
                    "text": f"Fact number {i}.",
                    "n": i,
                    "even": i % 2 == 0,
                    "date": f"2024-0{i + 1}-01",
                    "meta": {"lang": "en" if i < 3 else "de", "v": 1},
                },
            )
            for i in range(5)
        ]
    )
    return store


def test_search_no_query_lists_scope(scores: MemoryStore) -> None:
    found = scores.search(ALICE)
    assert sorted(keys(found)) == [f"k{i}" for i in range(5)]
    assert all(isinstance(i, SearchItem) and i.score is None for i in found)
    assert all(i.namespace == ALICE for i in found)
    assert scores.search(BOB) == []


FILTER_CASES: list[tuple[dict[str, Any], set[int]]] = [
    ({"n": 2}, {2}),
    ({"n": {"$eq": 2}}, {2}),
    ({"n": {"$ne": 2}}, {0, 1, 3, 4}),
    ({"n": {"$gt": 2}}, {3, 4}),
    ({"n": {"$gte": 2}}, {2, 3, 4}),
    ({"n": {"$lt": 2}}, {0, 1}),
    ({"n": {"$lte": 2}}, {0, 1, 2}),
    ({"n": {"$gt": 0, "$lt": 4}}, {1, 2, 3}),
    ({"n": {"$gte": 1.5}}, {2, 3, 4}),
    ({"date": {"$gte": "2024-03-01"}}, {2, 3, 4}),  # ISO dates compare as strings
    ({"date": {"$lt": "2024-02-15"}}, {0, 1}),
    ({"n": {"$gt": "x"}}, set()),  # incomparable: no match, no error
    ({"even": True}, {0, 2, 4}),
    ({"even": True, "n": {"$gt": 0}}, {2, 4}),
    ({"meta": {"lang": "de"}}, {3, 4}),
    ({"meta": {"lang": "en", "v": 1}}, {0, 1, 2}),
    ({"meta": {"lang": "fr"}}, set()),
    ({"missing": 1}, set()),
    ({"missing": {"$gt": 0}}, set()),
    ({"text": "Fact number 3."}, {3}),
]


def test_search_filters(scores: MemoryStore) -> None:
    # One test over all cases: a fixture per case would re-embed the items 20 times.
    for flt, expected in FILTER_CASES:
        found = scores.search(ALICE, filter=flt)
        assert {i.value["n"] for i in found} == expected, flt
        with_query = scores.search(ALICE, query="fact number", filter=flt)
        assert {i.value["n"] for i in with_query} == expected, flt


def test_search_pagination_stable(scores: MemoryStore) -> None:
    full = keys(scores.search(ALICE))
    assert keys(scores.search(ALICE)) == full  # same order each time
    assert keys(scores.search(ALICE, limit=2)) == full[:2]
    assert keys(scores.search(ALICE, limit=2, offset=2)) == full[2:4]
    assert keys(scores.search(ALICE, limit=2, offset=4)) == full[4:]
    assert scores.search(ALICE, offset=10) == []
    pages = [keys(scores.search(ALICE, limit=1, offset=i)) for i in range(5)]
    assert [k for page in pages for k in page] == full
    assert (
        keys(scores.search(ALICE, filter={"n": {"$gte": 1}}, limit=2, offset=1))
        == [k for k in full if k != "k0"][1:3]
    )


def test_search_no_query_newest_first(store: MemoryStore) -> None:
    store.put(ALICE, "a", {"text": "first"})
    store.put(ALICE, "b", {"text": "second"})
    store.put(ALICE, "a", {"text": "first, changed"})  # updated: now the newest
    assert keys(store.search(ALICE)) == ["a", "b"]


def test_search_bad_limit(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        store.search(ALICE, limit=-1)
    with pytest.raises(ValueError):
        store.search(ALICE, offset=-1)


# -- search with a query --------------------------------------------------------------

FOODS = {
    "pizza": {"text": "I like pizza", "topic": "food"},
    "pasta": {"text": "Pasta with tomato sauce is my favourite meal", "topic": "recipe"},
    "tax": {"text": "Notes on tax law and income declarations", "topic": "law"},
    "car": {"text": "The car needs new tyres", "topic": "car"},
}


@pytest.fixture
def foods(store: MemoryStore) -> MemoryStore:
    store.batch([PutOp(ALICE, k, v) for k, v in FOODS.items()])
    return store


def test_search_query_ranks_semantically(foods: MemoryStore) -> None:
    found = foods.search(ALICE, query="favourite food")
    assert len(found) == 4
    assert set(keys(found[:2])) == {"pizza", "pasta"}
    assert keys(found)[-2:] != ["pizza", "pasta"]
    assert keys(found).index("pizza") < keys(found).index("tax")
    scores = [i.score for i in found]
    assert all(isinstance(s, float) for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert all(i.value == FOODS[i.key] for i in found)

    tax = foods.search(ALICE, query="tax law", limit=1)
    assert keys(tax) == ["tax"]


def test_search_query_with_filter_excluding_top_hits(foods: MemoryStore) -> None:
    top = keys(foods.search(ALICE, query="favourite food"))
    found = foods.search(ALICE, query="favourite food", filter={"topic": {"$ne": "food"}})
    assert keys(found) == [k for k in top if k != "pizza"]
    both_out = {"topic": {"$ne": "food"}, "text": {"$ne": FOODS["pasta"]["text"]}}
    found = foods.search(ALICE, query="favourite food", filter=both_out, limit=1)
    assert keys(found) == [next(k for k in top if k not in ("pizza", "pasta"))]
    assert foods.search(ALICE, query="favourite food", filter={"topic": "none"}) == []


def test_search_query_limit_offset(foods: MemoryStore) -> None:
    full = keys(foods.search(ALICE, query="favourite food"))
    assert keys(foods.search(ALICE, query="favourite food", limit=2)) == full[:2]
    assert keys(foods.search(ALICE, query="favourite food", limit=2, offset=1)) == full[1:3]
    assert keys(foods.search(ALICE, query="favourite food", offset=3)) == full[3:]
    assert foods.search(ALICE, query="favourite food", offset=4) == []


def test_search_query_sees_updates(foods: MemoryStore) -> None:
    foods.put(ALICE, "car", {"text": "I adore cheeseburgers and fries", "topic": "food"})
    found = foods.search(ALICE, query="favourite food", limit=3)
    assert "car" in keys(found)
    assert found[keys(found).index("car")].value["text"] == "I adore cheeseburgers and fries"


def test_search_query_on_emptied_scope(store: MemoryStore) -> None:
    store.put(ALICE, "k", {"text": "I like pizza"})
    store.delete(ALICE, "k")
    assert store.search(ALICE, query="pizza") == []
    assert store.search(ALICE, query="pizza", filter={"text": "I like pizza"}) == []


def test_value_without_text_is_embedded_as_json(store: MemoryStore) -> None:
    store.put(ALICE, "pref", {"favourite_food": "pizza", "cuisine": "italian"})
    store.put(ALICE, "tax", {"text": "Notes on tax law and income declarations"})
    store.put(ALICE, "car", {"text": "The car needs new tyres"})
    found = store.search(ALICE, query="italian pizza")
    assert keys(found)[0] == "pref"
    assert found[0].value == {"favourite_food": "pizza", "cuisine": "italian"}


def test_index_fields_embed_only_those_fields(store: MemoryStore) -> None:
    # Both items mention food and law; what is embedded decides which matches.
    store.put(
        ALICE, "a", {"text": "Notes on tax law", "summary": "I like pizza"}, index=["summary"]
    )
    store.put(
        ALICE, "b", {"text": "I like pizza", "summary": "Notes on tax law"}, index=["summary"]
    )
    assert keys(store.search(ALICE, query="favourite food"))[0] == "a"
    assert keys(store.search(ALICE, query="tax law"))[0] == "b"
    # Without index=, "text" is what is embedded, not the other fields.
    store.put(ALICE, "c", {"text": "The car needs new tyres", "summary": "I like pizza"})
    assert keys(store.search(ALICE, query="car tyres"))[0] == "c"
    [before] = [i for i in store.search(ALICE, query="favourite food") if i.key == "a"]
    # An update re-embeds by its own index= (here: the text, about tax law).
    store.put(ALICE, "a", {"text": "Notes on tax law", "summary": "I like pizza"})
    [after] = [i for i in store.search(ALICE, query="favourite food") if i.key == "a"]
    assert after.score < before.score - 0.2  # type: ignore[operator]


def test_content_and_memory_fields_are_embedded(store: MemoryStore) -> None:
    store.put(ALICE, "c", {"content": "I like pizza", "id": 1})
    store.put(ALICE, "m", {"memory": "Notes on tax law", "id": 2})
    assert keys(store.search(ALICE, query="favourite food"))[0] == "c"
    assert keys(store.search(ALICE, query="tax law"))[0] == "m"


# -- namespaces -----------------------------------------------------------------------


@pytest.fixture
def many(store: MemoryStore) -> MemoryStore:
    admin = store.admin()  # org scopes are written only by an admin
    admin.batch(
        [
            PutOp(("user", "alice"), "k", {"text": "Alice likes pizza", "who": "alice"}),
            PutOp(("user", "bob"), "k", {"text": "Bob likes tax law", "who": "bob"}),
            PutOp(("user", "carol"), "k", {"text": "Carol likes cars", "who": "carol"}),
            PutOp(("agent", "planner"), "k", {"text": "Planner likes pizza", "who": "planner"}),
            PutOp(("org", "acme"), "k", {"text": "Acme sells tyres", "who": "acme"}),
            PutOp(("session", "t-1"), "k", {"text": "Talked about pizza", "who": "t-1"}),
        ]
    )
    admin.close()
    return store


def test_search_across_prefixes(many: MemoryStore) -> None:
    users = many.search(("user",))
    assert {i.namespace for i in users} == {("user", "alice"), ("user", "bob"), ("user", "carol")}
    assert len(many.search(())) == 6
    assert {i.value["who"] for i in many.search(("agent",))} == {"planner"}
    assert many.search(("team",)) == []
    assert many.search(("user", "dave")) == []
    assert many.search(("user", "alice", "extra")) == []

    ranked = many.search(("user",), query="pizza")
    assert ranked[0].namespace == ("user", "alice")
    assert {i.namespace[0] for i in ranked} == {"user"}  # the planner's pizza is excluded
    everywhere = many.search((), query="pizza", limit=3)
    assert {i.value["who"] for i in everywhere} == {"alice", "planner", "t-1"}
    scores = [i.score for i in everywhere]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert keys(many.search((), query="pizza", limit=2, offset=1)) == keys(everywhere[1:3])

    assert {i.value["who"] for i in many.search((), filter={"who": {"$gt": "c"}})} == {
        "carol",
        "planner",
        "t-1",
    }


def test_list_namespaces(many: MemoryStore) -> None:
    every = [
        ("agent", "planner"),
        ("org", "acme"),
        ("session", "t-1"),
        ("user", "alice"),
        ("user", "bob"),
        ("user", "carol"),
    ]
    assert many.list_namespaces() == every  # sorted
    assert many.list_namespaces(prefix=("user",)) == every[3:]
    assert many.list_namespaces(prefix=("user", "bob")) == [("user", "bob")]
    assert many.list_namespaces(prefix=("team",)) == []
    assert many.list_namespaces(prefix=("user", "bob", "x")) == []
    assert many.list_namespaces(suffix=("bob",)) == [("user", "bob")]
    assert many.list_namespaces(suffix=("user", "bob")) == [("user", "bob")]
    assert many.list_namespaces(prefix=("*", "acme")) == [("org", "acme")]
    assert many.list_namespaces(suffix=("*",)) == every
    assert many.list_namespaces(prefix=("user", "*")) == every[3:]
    assert many.list_namespaces(prefix=("user",), suffix=("carol",)) == [("user", "carol")]
    assert many.list_namespaces(prefix=("org",), suffix=("carol",)) == []
    assert many.list_namespaces(max_depth=1) == [("agent",), ("org",), ("session",), ("user",)]
    assert many.list_namespaces(prefix=("user",), max_depth=1) == [("user",)]
    assert many.list_namespaces(max_depth=5) == every
    assert many.list_namespaces(limit=2) == every[:2]
    assert many.list_namespaces(limit=2, offset=2) == every[2:4]
    assert many.list_namespaces(offset=5) == every[5:]
    assert many.list_namespaces(max_depth=1, limit=2, offset=1) == [("org",), ("session",)]


def test_list_namespaces_empty(store: MemoryStore) -> None:
    assert store.list_namespaces() == []
    assert store.list_namespaces(prefix=("user",)) == []


# -- batch ----------------------------------------------------------------------------


def test_batch_mixed_ops(store: MemoryStore) -> None:
    store.put(ALICE, "old", {"text": "Before the batch.", "n": 0})
    results = store.batch(
        [
            PutOp(ALICE, "new", {"text": "First put.", "n": 1}),
            GetOp(ALICE, "new"),  # reads see the store as it was before the batch
            GetOp(ALICE, "old"),
            SearchOp(ALICE, filter={"n": {"$gte": 0}}),
            PutOp(ALICE, "new", {"text": "Second put.", "n": 2}),  # the last put wins
            PutOp(ALICE, "old", None),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("user",)),)),
            PutOp(BOB, "b", {"text": "Bob's."}),
            GetOp(BOB, "b"),
        ]
    )
    assert len(results) == 9
    assert results[0] is None and results[4] is None and results[5] is None
    assert results[1] is None
    assert results[2] is not None and results[2].value["n"] == 0  # type: ignore[union-attr]
    assert keys(results[3]) == ["old"]  # type: ignore[arg-type]
    assert results[6] == [ALICE]
    assert results[8] is None

    assert store.get(ALICE, "new").value == {"text": "Second put.", "n": 2}  # type: ignore[union-attr]
    assert len(chain(store, ALICE, "new")) == 1  # one write, not two
    assert store.get(ALICE, "old") is None
    assert store.get(BOB, "b") is not None
    assert store.list_namespaces() == [ALICE, BOB]


def test_batch_put_then_delete_same_key(store: MemoryStore) -> None:
    store.batch([PutOp(ALICE, "k", {"text": "x"}), PutOp(ALICE, "k", None)])
    assert store.get(ALICE, "k") is None
    store.batch([PutOp(ALICE, "k", None), PutOp(ALICE, "k", {"text": "y"})])
    assert store.get(ALICE, "k").value == {"text": "y"}  # type: ignore[union-attr]


def test_batch_updates_several_keys(store: MemoryStore) -> None:
    store.batch([PutOp(ALICE, f"k{i}", {"text": f"v{i}"}) for i in range(3)])
    store.batch(
        [
            PutOp(ALICE, "k0", {"text": "w0"}),
            PutOp(ALICE, "k1", None),
            PutOp(ALICE, "k3", {"text": "w3"}),
        ]
    )
    assert {i.key: i.value["text"] for i in store.search(ALICE)} == {
        "k0": "w0",
        "k2": "v2",
        "k3": "w3",
    }
    assert [v.text for v in chain(store, ALICE, "k0")] == ["v0", "w0"]


def test_concurrent_puts_to_one_key(store: MemoryStore) -> None:
    # Each put closes the version the previous one wrote; none may be lost or fail.
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda i: store.put(ALICE, "k", {"text": f"Version {i}.", "i": i}), range(4)))
    [item] = store.search(ALICE)
    versions = chain(store, ALICE, "k")
    assert len(versions) == 4
    assert [v.active for v in versions] == [False, False, False, True]
    assert versions[-1].text == item.value["text"]


# -- async ----------------------------------------------------------------------------


def test_async_methods(store: MemoryStore) -> None:
    async def scenario() -> None:
        await store.aput(ALICE, "food", {"text": "I like pizza", "n": 1})
        await store.aput(ALICE, "tax", {"text": "Notes on tax law", "n": 2})
        item = await store.aget(ALICE, "food")
        assert item is not None and item.value["n"] == 1
        found = await store.asearch(ALICE, query="favourite food")
        assert keys(found)[0] == "food"
        assert keys(await store.asearch(ALICE, filter={"n": {"$gt": 1}})) == ["tax"]
        assert await store.alist_namespaces(prefix=("user",)) == [ALICE]
        await store.aput(ALICE, "food", {"text": "I like sushi", "n": 3})
        await store.adelete(ALICE, "tax")
        assert await store.aget(ALICE, "tax") is None
        results = await store.abatch([GetOp(ALICE, "food"), SearchOp(("user",))])
        assert results[0].value["n"] == 3  # type: ignore[union-attr]
        assert keys(results[1]) == ["food"]  # type: ignore[arg-type]
        gathered = await asyncio.gather(store.aget(ALICE, "food"), store.aget(BOB, "x"))
        assert gathered[0] is not None and gathered[1] is None
        with pytest.raises(InvalidScopeError):
            await store.abatch([PutOp(("langgraph",), "k", {"text": "x"})])

    asyncio.run(scenario())
    assert [v.text for v in chain(store, ALICE, "food")] == ["I like pizza", "I like sushi"]


# -- LangGraph injection ----------------------------------------------------------------


class State(TypedDict):
    query: str
    found: Annotated[list[str], operator.add]


def test_graph_injects_store(store: MemoryStore) -> None:
    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        store.put(ALICE, "food", {"text": "I like pizza"})
        store.put(ALICE, "tax", {"text": "Notes on tax law"})
        return {"found": []}

    def recall(state: State) -> dict[str, Any]:
        hits = get_store().search(("user",), query=state["query"], limit=1)
        return {"found": [h.value["text"] for h in hits]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=store)
    out = graph.invoke({"query": "favourite food", "found": []})
    assert out["found"] == ["I like pizza"]
    assert store.get(ALICE, "tax") is not None


def test_tool_node_injects_store(store: MemoryStore) -> None:
    @tool
    def save_memory(text: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
        """Save a fact about the user."""
        store.put(ALICE, "fact", {"text": text})
        return "saved"

    @tool
    def recall_memory(query: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
        """Recall the fact nearest the query."""
        return store.search(ALICE, query=query, limit=1)[0].value["text"]

    builder = StateGraph(dict)  # type: ignore[type-var]
    node = ToolNode([save_memory, recall_memory])
    builder.add_node("tools", node)
    builder.add_edge(START, "tools")
    graph = builder.compile(store=store)

    def call(name: str, args: dict[str, Any]) -> str:
        msg = AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])
        out = graph.invoke({"messages": [msg]})
        return str(out["messages"][-1].content)

    assert call("save_memory", {"text": "I like pizza"}) == "saved"
    assert call("recall_memory", {"query": "favourite food"}) == "I like pizza"


def test_a_put_over_a_memory_keeps_every_field(store: MemoryStore) -> None:
    """A BaseStore put over a memory the write path made changes its text and value
    only: the new version keeps the memory's event time, sources, metadata, kind,
    importance, pin, source and trust, and archives the old version."""
    made = store.add(
        "user:alice",
        "User flies to Lima on 2026-05-02.",
        kind="episodic",
        importance=0.8,
        pinned=True,
        source="user",
        trust="high",
        event_time=datetime.fromisoformat("2026-05-02T09:00:00+00:00"),
        sources=["a1b2c3d4"],
        metadata={"turn_id": "t-17", "lang": "en"},
    )
    store.put(ALICE, made.id, {"text": "User flies to Quito on 2026-05-02."})
    old, new = chain(store, ALICE, made.id)
    assert (old.id, old.active, new.replaces) == (made.id, False, made.id)
    assert new.text == "User flies to Quito on 2026-05-02."
    kept = ("kind", "importance", "pinned", "source", "trust", "event_time", "sources", "metadata")
    assert {f: getattr(new, f) for f in kept} == {f: getattr(made, f) for f in kept}
    # Deleted, then put again: the chain continues, and still carries the fields.
    store.delete(ALICE, made.id)
    store.put(ALICE, made.id, {"text": "User flies to Bogota on 2026-05-02."})
    last = chain(store, ALICE, made.id)[-1]
    assert last.active and last.text.startswith("User flies to Bogota")
    assert {f: getattr(last, f) for f in kept} == {f: getattr(made, f) for f in kept}


def test_a_batch_turns_each_namespace_into_its_scope_once(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many ops over one namespace (puts, gets that refresh a TTL, searches) convert
    it once, and a search prefix is looked up in the registry once per batch."""
    ns = ("memories", "alice")
    store.batch([PutOp(ns, f"k{i}", {"text": f"Likes tea {i}."}, ttl=10) for i in range(5)])
    calls: dict[str, int] = {"from_namespace": 0, "parse": 0, "scopes_under": 0}
    from_namespace = Scope.from_namespace.__func__  # type: ignore[attr-defined]
    parse = Scope.parse.__func__  # type: ignore[attr-defined]
    core = internals(store)._core

    def counted(name: str, real: Any) -> Any:
        def run(*args: Any) -> Any:
            calls[name] += 1
            return real(*args)

        return run

    monkeypatch.setattr(
        Scope, "from_namespace", classmethod(counted("from_namespace", from_namespace))
    )
    monkeypatch.setattr(Scope, "parse", classmethod(counted("parse", parse)))
    monkeypatch.setattr(core, "scopes_under", counted("scopes_under", core.scopes_under))
    ops: list[Any] = [PutOp(ns, f"n{i}", {"text": f"Likes jazz {i}."}) for i in range(5)]
    ops += [GetOp(ns, f"k{i}") for i in range(5)]
    ops += [SearchOp(ns, query="tea"), SearchOp(ns, filter={"text": "Likes tea 1."})]
    results = store.batch(ops)
    assert all(r is not None for r in results[5:10]) and len(results[10]) == 5  # type: ignore[arg-type]
    assert calls["from_namespace"] == 1 and calls["scopes_under"] == 1
    assert calls["parse"] <= 1  # the registry's answer to the one search prefix


def test_the_reads_of_concurrent_batches_run_side_by_side(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two batches of reads in two threads are inside the store at the same time: each
    waits, in its read, for the other to be in its own. Reads that took turns under the
    store's gate would leave the first waiting alone, and the barrier would break."""
    store.batch([PutOp(ALICE, "tea", {"text": "Likes tea."})])
    store.batch([PutOp(("user", "bob"), "jazz", {"text": "Likes jazz."})])
    core = internals(store)._core
    both_in = threading.Barrier(2, timeout=10)
    by_key = core.by_key

    def meeting(*args: Any, **kwargs: Any) -> Any:
        both_in.wait()
        return by_key(*args, **kwargs)

    monkeypatch.setattr(core, "by_key", meeting)
    with ThreadPoolExecutor(2) as pool:
        alice = pool.submit(store.batch, [GetOp(ALICE, "tea"), SearchOp(ALICE, query="tea")])
        bob = pool.submit(store.batch, [GetOp(("user", "bob"), "jazz")])
        assert alice.result()[0].value == {"text": "Likes tea."}  # type: ignore[union-attr]
        assert bob.result()[0].value == {"text": "Likes jazz."}  # type: ignore[union-attr]
