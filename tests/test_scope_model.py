"""Scopes and the memory model: spellings, validation, JSON round trips."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langgraph_memory import (
    Decision,
    DecisionOp,
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidScopeError,
    Kind,
    Memory,
    MissingScopeKeyError,
    Scope,
)
from langgraph_memory.records import assume_utc, check_metadata, check_text, utc

T0 = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)


def test_three_spellings_convert_into_each_other() -> None:
    s = Scope("user", "alice")
    assert str(s) == "user:alice"
    assert Scope.parse("user:alice") == s
    assert Scope.from_namespace(("user", "alice")) == s
    assert s.namespace == ("user", "alice")
    assert Scope.of("user:alice") == Scope.of(("user", "alice")) == Scope.of(s) == s


@given(
    kind=st.sampled_from(["session", "user", "agent", "org"]),
    scope_id=st.text(min_size=1, max_size=256).filter(
        lambda t: t == t.strip() and not any(c in t for c in ":/\\") and t.isprintable()
    ),
)
def test_round_trip_for_any_valid_id(kind: str, scope_id: str) -> None:
    s = Scope(kind, scope_id)  # type: ignore[arg-type]
    assert Scope.parse(str(s)) == s
    assert Scope.from_namespace(s.namespace) == s


@pytest.mark.parametrize(
    "bad",
    ["", "a:b", "a/b", "a\\b", "x" * 257, "tab\there", "nl\nhere", "nul\x00", " padded", "end "],
)
def test_invalid_ids_get_a_clear_error(bad: str) -> None:
    with pytest.raises(InvalidScopeError, match="scope id"):
        Scope("user", bad)


def test_id_of_256_characters_is_fine_and_ints_become_strings() -> None:
    assert Scope("user", "x" * 256).id == "x" * 256
    assert Scope("user", 42).id == "42"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    ["customer:alice", "alice", 7, (), ("a.b",), ("langgraph", "x"), ("",), (1, 2), ["user", "a"]],
)
def test_unknown_kinds_and_shapes_are_refused(bad: object) -> None:
    with pytest.raises(InvalidScopeError):
        Scope.of(bad)  # type: ignore[arg-type]


# -- namespaces of any depth <-> scopes ---------------------------------------------------


@pytest.mark.parametrize(
    ("namespace", "key"),
    [
        (("user", "alice"), "user:alice"),
        (("org", "acme"), "org:acme"),
        (("memories", "alice"), "namespace:memories.alice"),
        (("memories",), "namespace:memories"),
        (("user", "alice", "prefs"), "namespace:user.alice.prefs"),
        (("user",), "namespace:user"),
        (("user", "a:b"), "namespace:user.a%3Ab"),
        (("user", " padded "), "namespace:user.%20padded%20"),
        (("namespace", "x"), "namespace:namespace.x"),
        (("a/b", "50%", "tab\there", "é ü"), "namespace:a%2Fb.50%25.tab%09here.é ü"),
    ],
)
def test_namespaces_map_to_scopes_and_back(namespace: tuple[str, ...], key: str) -> None:
    scope = Scope.from_namespace(namespace)
    assert scope.key == key
    assert scope.namespace == namespace
    assert Scope.parse(key) == scope == Scope.of(namespace)


def test_existing_owner_scopes_keep_their_collections() -> None:
    """Stores written before namespaces of any depth open and read the same data:
    an owner's scope keeps its key, and so the collections named from its hash."""
    from langgraph_memory.store.chroma.layout import collection_names

    scope = Scope.from_namespace(("user", "alice"))
    assert scope == Scope("user", "alice")
    assert collection_names(scope)[0] == "lgm-dabd1db8d35ab13106274f61f1bf9778-mem"
    assert Scope("user", "a.b").namespace == ("user", "a.b")  # memory-API ids with dots stay


_LABELS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=".\x00"),
    min_size=1,
    max_size=12,
)


@given(namespace=st.lists(_LABELS, min_size=1, max_size=4).map(tuple))
def test_any_namespace_round_trips(namespace: tuple[str, ...]) -> None:
    """namespace -> scope -> namespace is the identity, so two namespaces never
    share a scope (equal scopes would give back one namespace for both)."""
    if namespace[0] == "langgraph":
        return
    try:
        scope = Scope.from_namespace(namespace)
    except InvalidScopeError as exc:
        assert "more than 256" in str(exc)  # only a namespace too long for an id is refused
        return
    assert scope.namespace == namespace
    assert Scope.parse(scope.key) == scope


@pytest.mark.parametrize(
    "scope_id",
    ["user.alice", "a%3ab", "a%41", "a..b", ".a", "langgraph.x", "a%FF", "a%2"],
)
def test_namespace_ids_that_no_namespace_maps_to_are_refused(scope_id: str) -> None:
    """Only the id a namespace maps to is a namespace scope's id: ``user.alice`` is
    ``user:alice``'s namespace, ``%3a`` is spelled ``%3A``, ``%41`` is ``A``."""
    with pytest.raises(InvalidScopeError):
        Scope("namespace", scope_id)


def test_namespace_rules_are_langgraphs() -> None:
    with pytest.raises(InvalidScopeError, match=r"'\.'"):
        Scope.from_namespace(("memories", "a.b"))
    with pytest.raises(InvalidScopeError, match="langgraph"):
        Scope.from_namespace(("langgraph", "x"))
    with pytest.raises(InvalidScopeError, match="more than 256"):
        Scope.from_namespace(("memories", "x" * 300))
    with pytest.raises(InvalidScopeError, match="namespace"):
        Scope.from_config({"configurable": {"user_id": "a"}}, "namespace")


@pytest.mark.parametrize(
    ("kind", "key"),
    [("session", "thread_id"), ("user", "user_id"), ("agent", "agent_id"), ("org", "org_id")],
)
def test_from_config_reads_each_kind(kind: str, key: str) -> None:
    config = {"configurable": {key: "abc-1"}}
    assert Scope.from_config(config, kind) == Scope(kind, "abc-1")  # type: ignore[arg-type]


def test_from_config_names_the_missing_key() -> None:
    with pytest.raises(MissingScopeKeyError, match="user_id") as info:
        Scope.from_config({"configurable": {"thread_id": "t"}}, "user")
    assert "configurable" in str(info.value)
    with pytest.raises(MissingScopeKeyError, match="org_id"):
        Scope.from_config(None, "org")


def test_memory_round_trips_through_json_dict() -> None:
    m = Memory(
        id="0a1b2c3d",
        text="User's sister lives in Delhi.",
        scope="user:alice",
        created_at=T0,
        kind=Kind.EPISODIC,
        importance=0.8,
        last_accessed=T0 + timedelta(hours=1),
        valid_until=T0 + timedelta(days=2),
        replaces="ffffffff",
        pinned=True,
        sources=("aaaaaaaa", "bbbbbbbb"),
        event_time=T0 - timedelta(days=3),
        metadata={"topic": "family", "n": 2, "ok": True, "w": 0.5},
    )
    assert Memory.from_dict(m.to_dict()) == m
    assert (
        not m.active
        and m.valid_at(T0 + timedelta(days=1))
        and not m.valid_at(T0 + timedelta(days=2))
    )


def test_decision_round_trips() -> None:
    d = Decision(
        op=DecisionOp.UPDATE,
        fact="User lives in Pune.",
        text="User lives in Pune (moved from Delhi).",
        target_id="0a1b2c3d",
        shown_ids=("0a1b2c3d", "11111111"),
        shown_texts=("User lives in Delhi.", "User likes tea."),
        raw='{"op": "UPDATE", "id": 0}',
        created_at=T0,
    )
    assert Decision.from_dict(d.to_dict()) == d


def test_naive_datetimes_are_refused_and_aware_ones_become_utc() -> None:
    with pytest.raises(InvalidArgumentError, match=r"now=datetime\(2023, 5, 8, 13, 56\) has no"):
        utc(datetime(2023, 5, 8, 13, 56), "now")
    ist = timezone(timedelta(hours=5, minutes=30))
    assert utc(datetime(2023, 5, 8, 19, 26, tzinfo=ist)) == datetime(
        2023, 5, 8, 13, 56, tzinfo=timezone.utc
    )
    # Datasets that write no zone are read as UTC, on purpose and by name.
    assert assume_utc(datetime(2023, 5, 8, 13, 56)).tzinfo is timezone.utc


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"a": None}, "None"),
        ({"a": {"b": 1}}, "nested|dict"),
        ({"a": [1, 2]}, "list"),
        ({"": 1}, "key"),
        ({1: "x"}, "key"),
        ({"a": float("nan")}, "finite"),
    ],
)
def test_bad_metadata_is_refused(metadata: dict[object, object], message: str) -> None:
    with pytest.raises(InvalidMemoryError, match=message):
        check_metadata(metadata)  # type: ignore[arg-type]


def test_text_limits() -> None:
    assert check_text("  a fact  ") == "a fact"
    with pytest.raises(InvalidMemoryError, match="empty"):
        check_text("   ")
    with pytest.raises(InvalidMemoryError, match="limit"):
        check_text("x" * 100_000)
