"""The single async calls of the BaseStore face (``aget``, ``aput``, ``asearch``,
``adelete``, ``alist_namespaces``) made at once run as one batch, as in LangGraph's
async stores (``store/basestore/face.py``); each call still gets its own result, and a
bad call its own error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langgraph.store.base import GetOp

from langgraph_memory import InvalidArgumentError, MemoryStore

NS = ("test", "docs")


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with MemoryStore(tmp_path / "store", embeddings=DeterministicFakeEmbedding(size=8)) as s:
        yield s


def counting_batches(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every batch the store runs from now on."""
    sizes: list[int] = []
    batch = store.batch

    def counted(ops: Any) -> Any:
        ops = list(ops)
        sizes.append(len(ops))
        return batch(ops)

    monkeypatch.setattr(store, "batch", counted)
    return sizes


def test_calls_made_at_once_run_as_one_batch_each_with_its_own_result(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.put(NS, "tea", {"text": "Likes green tea."})
    sizes = counting_batches(store, monkeypatch)

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(store.aput(NS, f"k{i}", {"text": f"Note {i}."}) for i in range(200)),
            store.aget(NS, "tea"),
            store.asearch(NS, query="green tea", limit=1),
            store.alist_namespaces(prefix=("test",)),
            store.adelete(NS, "k0"),
        )

    results = asyncio.run(main())
    assert sizes == [204]
    assert results[:200] == [None] * 200
    got, found, spaces, deleted = results[200:]
    assert got.value == {"text": "Likes green tea."}
    assert [i.key for i in found] == ["tea"]  # the batch's reads see the store before its writes
    assert spaces == [NS] and deleted is None
    # The writes landed: the delete of k0 came after its put, so the put is gone.
    assert store.get(NS, "k0") is None and store.get(NS, "k199").value == {"text": "Note 199."}  # type: ignore[union-attr]


def test_a_call_awaited_before_the_next_is_seen_by_it(store: MemoryStore) -> None:
    async def main() -> Any:
        await store.aput(NS, "k", {"text": "First."})
        await store.aput(NS, "k", {"text": "Second."})
        return await store.aget(NS, "k")

    assert asyncio.run(main()).value == {"text": "Second."}


def test_a_bad_call_fails_alone(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = counting_batches(store, monkeypatch)

    async def main() -> list[Any]:
        return await asyncio.gather(
            store.aput(NS, "a", {"text": "Kept."}),
            store.aget(NS, ""),
            store.asearch(NS, limit=-1),
            store.aput(NS, "b", {"text": "Kept too."}),
            return_exceptions=True,
        )

    put_a, bad_get, bad_search, put_b = asyncio.run(main())
    assert isinstance(bad_get, InvalidArgumentError) and "store key" in str(bad_get)
    assert isinstance(bad_search, InvalidArgumentError) and "limit" in str(bad_search)
    assert put_a is None and put_b is None and sizes == [2]
    assert sorted(i.key for i in store.search(NS)) == ["a", "b"]


class FailingEmbeddings(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("the embedding service is down")

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("the embedding service is down")


def test_a_batch_that_fails_fails_every_call_in_it_and_stores_nothing(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "store", embeddings=FailingEmbeddings()) as store:

        async def main() -> list[Any]:
            return await asyncio.gather(
                store.aput(NS, "a", {"text": "One."}),
                store.aput(NS, "b", {"text": "Two."}),
                return_exceptions=True,
            )

        failed = asyncio.run(main())
        assert all("the embedding service is down" in str(e) for e in failed), failed
        assert store.search(NS) == []


def test_each_event_loop_gathers_its_own_calls(store: MemoryStore) -> None:
    async def main(n: int) -> list[Any]:
        await asyncio.gather(*(store.aput(NS, f"k{n}-{i}", {"text": f"N {i}."}) for i in range(5)))
        return await asyncio.gather(*(store.aget(NS, f"k{n}-{i}") for i in range(5)))

    for n in range(3):  # a new loop each time, as asyncio.run makes
        assert [i.value for i in asyncio.run(main(n))] == [{"text": f"N {i}."} for i in range(5)]


def test_a_batch_sent_to_abatch_runs_as_sent(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = counting_batches(store, monkeypatch)

    async def main() -> None:
        await asyncio.gather(
            store.abatch([GetOp(NS, "a"), GetOp(NS, "b")]), store.abatch([GetOp(NS, "c")])
        )

    asyncio.run(main())
    assert sorted(sizes) == [1, 2]


def test_langgraphs_large_concurrent_workload_runs_in_a_few_batches(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LangGraph's ``test_large_batches_async``: 6,000 single calls gathered at once
    (a put, a get, a listing, a search, the put again and a delete of each key)."""
    sizes = counting_batches(store, monkeypatch)

    async def main() -> list[Any]:
        calls: list[Any] = []
        for m in range(10):
            ns = ("test", "foo", "bar", "baz", str(m % 2))
            for i in range(100):
                calls += [
                    store.aput(ns, f"key{i}", value={"foo": f"bar{i}"}),
                    asyncio.create_task(store.aget(ns, f"key{i}")),
                    asyncio.create_task(store.alist_namespaces(prefix=None, max_depth=m + 1)),
                    asyncio.create_task(store.asearch(("test",))),
                    store.aput(ns, f"key{i}", value={"foo": f"bar{i}"}),
                    store.adelete(ns, f"key{i}"),
                ]
        return await asyncio.gather(*calls)

    assert len(asyncio.run(main())) == 6000
    assert sum(sizes) == 6000 and len(sizes) <= 3, sizes
    assert store.search(("test",)) == []  # every key's last call was its delete


def test_an_admin_views_async_calls_run_as_the_admin(store: MemoryStore) -> None:
    """Org scopes take an admin view; the view's gathered calls run through it, not
    through the store it was made from."""
    from langgraph_memory import MemoryKitError

    admin = store.admin()

    async def main() -> list[Any]:
        return await asyncio.gather(
            admin.aput(("org", "acme"), "k", {"text": "Acme sells tyres."}),
            store.aput(("org", "acme"), "j", {"text": "Not an admin."}),
            return_exceptions=True,
        )

    by_admin, by_store = asyncio.run(main())
    assert by_admin is None and isinstance(by_store, MemoryKitError), by_store
    assert [i.key for i in store.search(("org", "acme"))] == ["k"]


def test_a_refused_write_fails_alone_and_a_batch_with_one_writes_nothing(
    store: MemoryStore,
) -> None:
    from langgraph.store.base import PutOp

    from langgraph_memory import AdminRequiredError

    async def main() -> list[Any]:
        return await asyncio.gather(
            store.aput(("org", "acme"), "j", {"text": "Not an admin."}),
            store.aput(("user", "a"), "k", {"text": "Kept."}),
            return_exceptions=True,
        )

    refused, kept = asyncio.run(main())
    assert isinstance(refused, AdminRequiredError) and kept is None
    assert store.get(("user", "a"), "k").value == {"text": "Kept."}  # type: ignore[union-attr]
    # A batch sent as one, with a refused put after an allowed one: nothing is written.
    with pytest.raises(AdminRequiredError):
        store.batch(
            [PutOp(("user", "b"), "k", {"text": "Not kept."}), PutOp(("org", "acme"), "j", {})]
        )
    assert store.get(("user", "b"), "k") is None


def test_calls_waiting_on_a_drain_that_is_cancelled_are_cancelled_not_left_waiting() -> None:
    from langgraph_memory.store.basestore.face import OpGatherer

    started = asyncio.Event()

    async def never(ops: list[str]) -> list[str]:
        started.set()
        await asyncio.Event().wait()  # a batch that never ends
        return ops

    gather: OpGatherer[str] = OpGatherer(never, check=lambda op: None)

    async def main() -> list[Any]:
        running = asyncio.ensure_future(gather.submit("a"))
        await started.wait()
        queued = asyncio.ensure_future(gather.submit("b"))  # waits for the next batch
        await asyncio.sleep(0)
        drains = [t for t in asyncio.all_tasks() if t not in (running, queued)]
        drains.remove(asyncio.current_task())  # type: ignore[arg-type]
        for drain in drains:
            drain.cancel()
        return await asyncio.wait_for(
            asyncio.gather(running, queued, return_exceptions=True), timeout=5
        )

    outcomes = asyncio.run(main())
    assert all(isinstance(o, asyncio.CancelledError) for o in outcomes), outcomes
