"""TTLs on the BaseStore face, as LangGraph defines them, where expiry archives.

``put(ttl=minutes)``, ``TTLConfig`` (``default_ttl``, ``refresh_on_read``,
``sweep_interval_minutes``), reads that refresh, and a sweep that closes expired
items at their expiry time and keeps them in history (never deletes them).
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.store.base import PutOp

from langgraph_memory import InvalidArgumentError, MemoryStore
from langgraph_memory.records import now_utc
from langgraph_memory.store import internals

CACHE = ("cache", "alice")
FAKE = DeterministicFakeEmbedding(size=8)


def expiry(store: MemoryStore, namespace: tuple[str, ...], key: str) -> datetime | None:
    """When the item's current version expires, as an export shows it."""
    [record] = [
        m
        for m in store.export(namespace)["memories"]
        if m["key"] == key and m["valid_until"] is None
    ]
    return None if "expires_at" not in record else datetime.fromisoformat(record["expires_at"])


def test_an_item_expires_and_is_archived_not_deleted(store: MemoryStore) -> None:
    assert store.supports_ttl is True
    store.put(CACHE, "weather", {"text": "Sunny in Pune."}, ttl=30)
    store.put(CACHE, "forever", {"text": "Lives in Pune."})
    expires = expiry(store, CACHE, "weather")
    assert expires is not None and expiry(store, CACHE, "forever") is None

    assert store.ttl.sweep(now=expires - timedelta(seconds=1)) == 0
    assert store.get(CACHE, "weather", refresh_ttl=False) is not None  # (a refresh moves it)
    assert store.ttl.sweep(now=expires + timedelta(minutes=5)) == 1
    assert store.ttl.sweep(now=expires + timedelta(minutes=5)) == 0

    assert store.get(CACHE, "weather") is None
    assert [i.key for i in store.search(CACHE)] == ["forever"]
    [old] = store.history(CACHE, "weather")
    assert old.text == "Sunny in Pune." and old.valid_until == expires  # closed at its expiry
    assert [m.text for m in store.active(CACHE)] == ["Lives in Pune."]
    hits = internals(store).nearest(CACHE, "Sunny in Pune.", as_of=expires - timedelta(seconds=1))
    assert "Sunny in Pune." in [h.memory.text for h in hits]  # as_of still sees it


@pytest.mark.slow  # waits for items to expire
def test_expired_items_are_hidden_before_any_sweep(store: MemoryStore) -> None:
    store.put(CACHE, "blink", {"text": "Blinks."}, ttl=0.05)  # 3 s
    store.put(CACHE, "stays", {"text": "Stays."})
    assert store.get(CACHE, "blink", refresh_ttl=False) is not None
    expires = expiry(store, CACHE, "blink")
    assert expires is not None
    time.sleep(max(0.0, (expires - now_utc()).total_seconds()) + 0.2)
    assert store.get(CACHE, "blink") is None
    assert [i.key for i in store.search(CACHE)] == ["stays"]
    assert [i.key for i in store.search(CACHE, query="Blinks.")] == ["stays"]
    # The memory API sees it until a sweep archives it (store/basestore/ttl.py says so).
    assert sorted(m.text for m in store.active(CACHE)) == ["Blinks.", "Stays."]
    assert store.ttl.sweep() == 1
    assert [m.text for m in store.active(CACHE)] == ["Stays."]


def test_reads_refresh_the_expiry(store: MemoryStore) -> None:
    store.put(CACHE, "k", {"text": "Likes tea."}, ttl=10)
    first = expiry(store, CACHE, "k")
    assert first is not None
    time.sleep(0.05)
    store.get(CACHE, "k", refresh_ttl=False)
    assert expiry(store, CACHE, "k") == first
    before = now_utc()
    assert store.get(CACHE, "k") is not None  # refresh_ttl defaults to True
    second = expiry(store, CACHE, "k")
    assert second is not None and second >= before + timedelta(minutes=10) > first
    time.sleep(0.05)
    store.search(CACHE, query="tea", refresh_ttl=False)
    assert expiry(store, CACHE, "k") == second
    store.search(CACHE, query="tea")
    third = expiry(store, CACHE, "k")
    assert third is not None and third > second
    assert len(store.history(CACHE, "k")) == 1  # a refresh is no new version


def test_writes_set_the_ttl(store: MemoryStore) -> None:
    store.put(CACHE, "k", {"text": "Likes tea."}, ttl=10)
    store.put(CACHE, "k", {"text": "Likes coffee."})  # a put without a TTL: no expiry
    assert expiry(store, CACHE, "k") is None
    store.put(CACHE, "k", {"text": "Likes cocoa."}, ttl=5)
    # An update through the memory API keeps the TTL, counted from the update.
    current = store.active(CACHE)[0]
    updated = store.update(CACHE, current.id, "Likes chai.", now=current.created_at)
    assert expiry(store, CACHE, "k") == updated.created_at + timedelta(minutes=5)
    assert [m.text for m in store.history(CACHE, "k")] == [
        "Likes tea.",
        "Likes coffee.",
        "Likes cocoa.",
        "Likes chai.",
    ]


def test_ttl_config_defaults(tmp_path: Path) -> None:
    with MemoryStore(
        tmp_path, embeddings=FAKE, ttl={"default_ttl": 10, "refresh_on_read": False}
    ) as store:
        assert store.ttl_config == {"default_ttl": 10.0, "refresh_on_read": False}
        store.put(CACHE, "default", {"text": "a"})
        store.put(CACHE, "none", {"text": "b"}, ttl=None)
        store.put(CACHE, "own", {"text": "c"}, ttl=1)
        created = store.get(CACHE, "default")
        assert created is not None
        first = expiry(store, CACHE, "default")
        assert first is not None and first - created.updated_at == timedelta(minutes=10)
        assert expiry(store, CACHE, "none") is None
        own = expiry(store, CACHE, "own")
        assert own is not None and own < first
        time.sleep(0.05)
        store.get(CACHE, "default")  # refresh_on_read=False: no refresh
        assert expiry(store, CACHE, "default") == first


def test_a_sweeper_thread_archives_on_its_own(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, embeddings=FAKE, ttl={"sweep_interval_minutes": 0.002})
    try:
        store.put(CACHE, "blink", {"text": "Blinks."}, ttl=0.002)
        deadline = time.monotonic() + 20
        while store.active(CACHE) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert store.active(CACHE) == []
        assert [m.active for m in store.history(CACHE, "blink")] == [False]
    finally:
        store.close()  # stops the sweeper first
    assert store.ttl.stop(timeout=5) is True


def test_ttl_survives_export_and_import(store: MemoryStore) -> None:
    store.put(CACHE, "k", {"text": "Likes tea."}, ttl=10)
    expires = expiry(store, CACHE, "k")
    assert store.import_scope(store.export(CACHE), scope=("cache", "bob"))["memories"] == 1
    assert expiry(store, ("cache", "bob"), "k") == expires
    assert expires is not None
    assert store.ttl.sweep(now=expires + timedelta(seconds=1)) == 2  # both scopes are swept


def test_async_put_with_ttl(store: MemoryStore) -> None:
    async def scenario() -> Any:
        await store.aput(CACHE, "k", {"text": "Likes tea."}, ttl=10)
        return await store.aget(CACHE, "k")

    assert asyncio.run(scenario()) is not None
    assert expiry(store, CACHE, "k") is not None


@pytest.mark.parametrize("ttl", [0, -1, "5", float("inf"), True])
def test_bad_ttls_are_refused_and_store_nothing(store: MemoryStore, ttl: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="minutes"):
        store.batch([PutOp(CACHE, "k", {"text": "x"}, ttl=ttl)])
    assert store.get(CACHE, "k") is None


@pytest.mark.parametrize(
    ("config", "match"),
    [
        ({"default_tll": 5}, "default_tll"),
        ({"default_ttl": 0}, "positive"),
        ({"sweep_interval_minutes": "often"}, "minutes"),
        ({"refresh_on_read": "yes"}, "True or False"),
        ([("default_ttl", 5)], "TTLConfig"),
    ],
)
def test_bad_ttl_configs_are_refused(tmp_path: Path, config: Any, match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        MemoryStore(tmp_path, embeddings=FAKE, ttl=config)


def test_a_batch_that_returns_one_item_twice_refreshes_it_once(store: MemoryStore) -> None:
    # A GetOp and a SearchOp that both find the item, and two GetOps of it: the
    # refresh must move its expiry once, not hand Chroma one id twice.
    from langgraph.store.base import GetOp, SearchOp

    store.put(CACHE, "k", {"text": "Likes tea."}, ttl=10)
    first = expiry(store, CACHE, "k")
    time.sleep(0.05)
    results = store.batch(
        [GetOp(CACHE, "k"), SearchOp(CACHE, query="tea"), GetOp(CACHE, "k"), SearchOp(CACHE)]
    )
    assert results[0] is not None and results[2] is not None
    assert [item.key for item in results[1]] == ["k"]  # type: ignore[union-attr]
    second = expiry(store, CACHE, "k")
    assert first is not None and second is not None and second > first
    assert len(store.history(CACHE, "k")) == 1
