"""``internals(store).versions(scope)``: every version of a scope, as ``find(scope,
archived=True)`` reads it from Chroma, but the active ones from the lexical index's copy
where this process keeps it (the memory inspector shows a whole person from it)."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.store import internals


@pytest.mark.slow  # a long sequence of changes
def test_versions_are_what_chroma_holds_through_every_change(store: MemoryStore) -> None:
    handle = internals(store)
    added = store.add_many("user:a", [f"User visited museum number {i}." for i in range(30)])
    moved = store.update("user:a", added[0].id, "User visited the Louvre.")
    store.archive("user:a", added[1].id)
    store.pin("user:a", added[2].id)
    store.purge("user:a", [added[3].id])
    store.add("user:b", "Someone else entirely.")

    want = handle.find("user:a", archived=True)
    assert len(want) == 31  # 30, the update's and the pin's new versions, less one purged
    assert handle.versions("user:a") == want
    store.update("user:a", moved.id, "User visited the Prado.")
    assert handle.versions("user:a") == handle.find("user:a", archived=True)
    assert handle.versions("user:nobody") == []
