"""The error contract: bad input to any public callable raises a ``MemoryKitError``
(the specific subclass where the class is the contract), never a bare built-in
error or a dependency's, and a refused call changes nothing that is stored.

``BAD`` is the walk: for each public callable, calls with bad input (wrong types,
values out of range, namespaces LangGraph refuses, records that cannot be read ...)
and the error each must raise. ``test_every_public_callable_is_walked`` enumerates
the public callables from the packages' ``__all__`` (and the methods of their
classes) and fails on one that neither ``BAD`` nor ``NOT_WALKED`` names, so a new
public function or method comes with its bad inputs. Random hostile input at the
busiest entry points is ``test_validation_property``; the defects found by
probing, one test each, are ``test_validation``.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import snapshot
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)

import langgraph_memory
from langgraph_memory import (
    AdminRequiredError,
    BackgroundWriter,
    Decision,
    DecisionOp,
    EmbeddingMismatchError,
    InvalidArgumentError,
    InvalidMemoryError,
    InvalidScopeError,
    InvalidStoreNamespaceError,
    InvalidTypeError,
    JournalError,
    LockConfigError,
    Memory,
    MemoryInstructions,
    MemoryKitError,
    MemoryMiddleware,
    MemoryNotFoundError,
    MemoryStore,
    MemoryWriter,
    MissingScopeKeyError,
    MissingStateKeyError,
    ModelConfigError,
    Retention,
    Review,
    ReviewNotFoundError,
    Scope,
    Status,
    Turn,
    add_memory,
    aretrieve,
    fill_namespace,
    memory_hooks,
    memory_read_node,
    memory_tools,
    memory_window_node,
    memory_write_node,
    render,
    retrieve,
)
from langgraph_memory import errors as errors_module
from langgraph_memory.embeddings import (
    FunctionEmbeddings,
    LocalMiniLM,
    resolve_embeddings,
)
from langgraph_memory.graph import MemoryState, build_chat_graph
from langgraph_memory.inspector import create_app
from langgraph_memory.lifecycle import (
    Maintenance,
    consolidate,
    due,
    forget_stale,
    last_reflection,
    maintain,
    protection,
    reflect,
    strength,
)
from langgraph_memory.llm import resolve_chat_model
from langgraph_memory.read import rules_of
from langgraph_memory.store import (
    Budget,
    add_people,
    check_store,
    compact_directory,
    date_words,
    internals,
    load_export,
    strip_controls,
    tokenize,
)
from langgraph_memory.testing import ScriptedChatModel, count_tokens
from langgraph_memory.write import (
    ChatMemoryModel,
    Fact,
    Prompts,
    RulesModel,
    archive_logged,
    asks_only,
    retain_episodes,
    said_key,
)
from langgraph_memory.write.journal import Journal, JournalEntry

PACKAGE = Path(langgraph_memory.__file__).parent
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
NAIVE = datetime(2026, 1, 5, 9, 0)
U = "user:a"
ALICE = ("user", "a")
CONFIG = {"configurable": {"user_id": "a"}}
SURROGATE = "\ud800"

#: The modules whose ``__all__`` is the public surface (the README's API section).
SURFACE = (
    "langgraph_memory",
    "langgraph_memory.store",
    "langgraph_memory.write",
    "langgraph_memory.read",
    "langgraph_memory.graph",
    "langgraph_memory.lifecycle",
    "langgraph_memory.embeddings",
    "langgraph_memory.llm",
    "langgraph_memory.testing",
    "langgraph_memory.inspector",
)
#: Public classes in no ``__all__`` that users reach all the same.
REACHED = {"Journal": Journal}  # BackgroundWriter(journal=Journal(path))


# -- the world a walk runs in ------------------------------------------------------------------


@dataclass
class World:
    """One seeded store and the objects built on it, shared by the whole walk."""

    store: MemoryStore
    writer: MemoryWriter
    background: BackgroundWriter
    memory: Memory  # active, in U
    tmp: Path

    def builder(self) -> StateGraph[Any]:
        """A graph with one node, ``agent``, between START and END."""
        builder = StateGraph(MemoryState)
        builder.add_node("agent", lambda state: {})
        builder.add_edge(START, "agent")
        builder.add_edge("agent", END)
        return builder

    def journal(self, name: str) -> Journal:
        return Journal(self.tmp / f"{name}.jsonl")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("contract")
    with MemoryStore(tmp / "store", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        writer = MemoryWriter(store, model=RulesModel())
        writer.write_turn(U, [("user", "I live in Delhi.")], now=T0)
        memory = store.add(U, "User likes tea.", metadata={"topic": "drinks"}, now=T0)
        store.put(ALICE, "food", {"text": "Likes ramen.", "rating": 4})
        store.add("user:b", "User plays chess.", now=T0)
        with BackgroundWriter(writer, journal=False) as background:
            yield World(store, writer, background, memory, tmp)


# -- the walk ----------------------------------------------------------------------------------

Call = Callable[[World], object]


@dataclass(frozen=True)
class Bad:
    """One bad call of the public callable ``name`` and the error it must raise."""

    name: str
    call: Call
    error: type[Exception] = MemoryKitError

    @property
    def id(self) -> str:
        return f"{self.name}-{self.error.__name__}"


def run(coroutine: Any) -> object:
    return asyncio.run(coroutine)


def deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


def circular() -> dict[str, Any]:
    value: dict[str, Any] = {"text": "x"}
    value["self"] = value
    return value


NS = InvalidStoreNamespaceError
TYPE = InvalidTypeError
ARG = InvalidArgumentError
MEM = InvalidMemoryError
SCOPE = InvalidScopeError
VEC = EmbeddingMismatchError

BAD: list[Bad] = [
    # -- MemoryStore: construction ---------------------------------------------------------
    Bad("MemoryStore", lambda w: MemoryStore(5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore", lambda w: MemoryStore(str(w.tmp / "nul\x00")), ARG),
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "x", client=internals(w.store).client), ARG),
    Bad("MemoryStore", lambda w: MemoryStore(client=5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "c", cache_mb="lots"), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "c", cache_mb=-1), ARG),
    Bad("Budget.of", lambda w: Budget.of("lots"), ARG),  # type: ignore[arg-type]
    Bad("Budget.of", lambda w: Budget.of(0), ARG),
    Bad("Budget.of", lambda w: Budget.of(256, open_files="many"), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "e", embeddings=5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "i", index=5), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "t", ttl={"default_ttl": "x"}), ARG),  # type: ignore[typeddict-item]
    # lock='in-process' is how a process says it is the only writer; other words are refused.
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "l", lock="none"), LockConfigError),
    Bad("MemoryStore", lambda w: MemoryStore(w.tmp / "l", lock=False), TYPE),  # type: ignore[arg-type]
    Bad(
        "MemoryStore",
        lambda w: MemoryStore(w.tmp / "l", lock="in-process", queue="postgresql://h/db"),
        LockConfigError,
    ),
    # -- MemoryStore: the memory API -------------------------------------------------------
    Bad("MemoryStore.add", lambda w: w.store.add(U, 5), MEM),  # type: ignore[arg-type]
    Bad("MemoryStore.add", lambda w: w.store.add(U, f"x{SURROGATE}"), MEM),
    Bad("MemoryStore.add", lambda w: w.store.add("bogus:a", "x"), SCOPE),
    Bad("MemoryStore.add", lambda w: w.store.add(U, "x", kind="weird"), MEM),
    Bad("MemoryStore.add", lambda w: w.store.add(U, "x", metadata={"n": 2**70}), MEM),
    Bad("MemoryStore.add", lambda w: w.store.add(U, "x", now=NAIVE), ARG),
    Bad("MemoryStore.add", lambda w: w.store.add("org:acme", "x"), AdminRequiredError),
    Bad("MemoryStore.add_many", lambda w: w.store.add_many(U, [5]), MEM),  # type: ignore[list-item]
    Bad(
        "MemoryStore.add_many", lambda w: w.store.add_many(U, ["x"], vectors=[[math.nan] * 8]), VEC
    ),
    Bad("MemoryStore.add_many", lambda w: w.store.add_many(U, ["x"], vectors=[[0.1] * 3]), VEC),
    Bad("MemoryStore.update", lambda w: w.store.update(U, w.memory.id, "x", colour="red"), TYPE),
    Bad("MemoryStore.update", lambda w: w.store.update(U, "ffffffff", "x"), MemoryNotFoundError),
    Bad("MemoryStore.update", lambda w: w.store.update(U, w.memory.id, ""), MEM),
    Bad("MemoryStore.pin", lambda w: w.store.pin(U, w.memory.id, pinned="yes"), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.pin", lambda w: w.store.pin(U, w.memory.id, now=NAIVE), ARG),
    Bad("MemoryStore.pin", lambda w: w.store.pin(U, "0a0a0a0a"), MemoryNotFoundError),
    Bad("MemoryStore.archive", lambda w: w.store.archive(U, 5), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore.archive", lambda w: w.store.archive(U, w.memory.id, now=NAIVE), ARG),
    Bad("MemoryStore.archive_many", lambda w: w.store.archive_many(U, w.memory.id), ARG),
    Bad("Internals.touch", lambda w: internals(w.store).touch(U, 5), ARG),  # type: ignore[arg-type]
    Bad("Internals.note_access", lambda w: internals(w.store).note_access(U, 5), ARG),  # type: ignore[arg-type]
    Bad("Internals.mark", lambda w: internals(w.store).mark(U, 5), TYPE),  # type: ignore[arg-type]
    Bad("Internals.mark", lambda w: internals(w.store).mark(U, {w.memory.id: {"x": None}}), MEM),  # type: ignore[dict-item]
    Bad("Internals.citing", lambda w: internals(w.store).citing(U, 5), ARG),  # type: ignore[arg-type]
    Bad("Internals.flush_access", lambda w: internals(w.store).flush_access(5), SCOPE),  # type: ignore[arg-type]
    Bad("Internals.flush_access", lambda w: internals(w.store).flush_access(U, "x"), TYPE),  # type: ignore[arg-type]
    Bad("Internals.purged_since", lambda w: internals(w.store).purged_since(5, "1"), SCOPE),  # type: ignore[arg-type]
    Bad("Internals.purged_since", lambda w: internals(w.store).purged_since(U, 1), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.get_memory", lambda w: w.store.get_memory(U, SURROGATE), ARG),
    Bad("MemoryStore.get_memory", lambda w: w.store.get_memory(U, "ffffffff"), MemoryNotFoundError),
    Bad("Internals.get_memories", lambda w: internals(w.store).get_memories(U, None), ARG),  # type: ignore[arg-type]
    Bad("Internals.rules", lambda w: internals(w.store).rules("nokind"), SCOPE),
    Bad("Internals.versions", lambda w: internals(w.store).versions("nokind"), SCOPE),
    Bad("rules_of", lambda w: rules_of(5, U), TYPE),  # type: ignore[arg-type]
    Bad("rules_of", lambda w: rules_of(w.store, "user:"), SCOPE),
    Bad("MemoryStore.active", lambda w: w.store.active(5), SCOPE),  # type: ignore[arg-type]
    Bad("MemoryStore.pinned", lambda w: w.store.pinned(U, "x"), ARG),  # type: ignore[arg-type]
    Bad("Internals.vectors", lambda w: internals(w.store).vectors(U, "abc"), ARG),
    Bad("Internals.term_shares", lambda w: internals(w.store).term_shares(U, "Ann"), TYPE),
    Bad("Internals.term_shares", lambda w: internals(w.store).term_shares(U, [5]), TYPE),  # type: ignore[list-item]
    Bad("Internals.nearest", lambda w: internals(w.store).nearest(U, "tea", k=0), ARG),
    Bad("Internals.nearest", lambda w: internals(w.store).nearest(U, [math.inf] * 8), VEC),
    Bad("Internals.nearest", lambda w: internals(w.store).nearest(U, "tea", as_of=NAIVE), ARG),
    Bad("Internals.keyword", lambda w: internals(w.store).keyword(U, [SURROGATE]), ARG),
    Bad("Internals.keyword", lambda w: internals(w.store).keyword(U, "tea", k=2**63), ARG),
    Bad("Internals.candidates", lambda w: internals(w.store).candidates(U, "x", 5), ARG),  # type: ignore[arg-type]
    Bad("Internals.candidates", lambda w: internals(w.store).candidates(U, "x", "x", k="x"), ARG),  # type: ignore[arg-type]
    Bad("Internals.find", lambda w: internals(w.store).find(U, metadata={"a": None}), MEM),  # type: ignore[dict-item]
    Bad("Internals.find", lambda w: internals(w.store).find(U, created_before="2026"), ARG),  # type: ignore[arg-type]
    Bad(
        "Internals.find",
        lambda w: internals(w.store).find(U, metadata={"topic": [1, "drinks"]}),
        MEM,
    ),
    Bad("MemoryStore.count", lambda w: w.store.count(U, metadata=5), MEM),  # type: ignore[arg-type]
    Bad("MemoryStore.count", lambda w: w.store.count(U, metadata={"n": [True, 1]}), MEM),  # type: ignore[dict-item]
    Bad("MemoryStore.history", lambda w: w.store.history(U, None), ARG),  # type: ignore[arg-type]
    Bad("Internals.log", lambda w: internals(w.store).log(U, [5]), TYPE),  # type: ignore[list-item]
    Bad("Internals.log", lambda w: internals(w.store).log(U, "x"), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.decisions", lambda w: w.store.decisions(U, turn_id=5), ARG),  # type: ignore[arg-type]
    Bad("Reviews.propose", lambda w: w.store.reviews.propose(U, w.memory.id, "bogus:x"), SCOPE),
    Bad("Reviews.approve", lambda w: w.store.reviews.approve(5), ARG),  # type: ignore[arg-type]
    Bad("Reviews.approve", lambda w: w.store.reviews.approve("nope"), ReviewNotFoundError),
    Bad("Reviews.reject", lambda w: w.store.reviews.reject(""), ARG),
    Bad("Reviews", lambda w: w.store.reviews(status="weird"), ARG),  # listing: store.reviews(...)
    Bad("internals", lambda w: internals("user:a"), TYPE),  # type: ignore[arg-type]
    Bad("check_store", lambda w: check_store("user:a"), TYPE),
    Bad("add_people", lambda w: add_people("user:a", {U: ["x"]}), TYPE),  # type: ignore[arg-type]
    Bad("add_people", lambda w: add_people(w.store, ["Likes tea."]), ARG),  # type: ignore[arg-type]
    Bad("add_people", lambda w: add_people(w.store, {U: ["x"], ALICE: ["y"]}), ARG),
    Bad("add_people", lambda w: add_people(w.store, {U: [{"text": ""}]}), MEM),
    Bad("add_people", lambda w: add_people(w.store, {"bogus:x": ["y"]}), SCOPE),
    Bad("add_people", lambda w: add_people(w.store, {U: ["x"]}, vectors={U: [[1.0]]}), VEC),
    Bad("MemoryStore.export", lambda w: w.store.export("user:"), SCOPE),
    Bad("MemoryStore.import_scope", lambda w: w.store.import_scope(5), MEM),  # type: ignore[arg-type]
    Bad("MemoryStore.import_scope", lambda w: w.store.import_scope(deep(100_000)), MEM),
    Bad("MemoryStore.purge", lambda w: w.store.purge(U, 5), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore.scopes", lambda w: w.store.scopes("weird"), SCOPE),  # type: ignore[arg-type]
    Bad("Internals.scope_generation", lambda w: internals(w.store).scope_generation(5), SCOPE),  # type: ignore[arg-type]
    Bad("Internals.scope_lock", lambda w: internals(w.store).scope_lock(("a.b",)), SCOPE),
    Bad("Internals.pending_turns", lambda w: internals(w.store).pending_turns(5), SCOPE),  # type: ignore[arg-type]
    Bad("Internals.attach", lambda w: internals(w.store).attach(5), TYPE),  # type: ignore[arg-type]
    Bad("Internals.embed_query", lambda w: internals(w.store).embed_query(5), VEC),  # type: ignore[arg-type]
    Bad("Internals.embed_query", lambda w: internals(w.store).embed_query(SURROGATE), ARG),
    Bad("TTL.sweep", lambda w: w.store.ttl.sweep(now=NAIVE), ARG),
    Bad("TTL.start", lambda w: w.store.ttl.start(-1), ARG),
    Bad("TTL.stop", lambda w: w.store.ttl.stop("x"), TYPE),  # type: ignore[arg-type]
    # -- MemoryStore: the BaseStore face ---------------------------------------------------
    Bad("MemoryStore.put", lambda w: w.store.put((), "k", {"text": "x"}), NS),
    Bad("MemoryStore.put", lambda w: w.store.put(("user", "a.b"), "k", {"text": "x"}), NS),
    Bad("MemoryStore.put", lambda w: w.store.put(("user", 5), "k", {"text": "x"}), NS),  # type: ignore[arg-type]
    Bad("MemoryStore.put", lambda w: w.store.put(("langgraph", "a"), "k", {"text": "x"}), NS),
    Bad("MemoryStore.put", lambda w: w.store.put(None, "k", {"text": "x"}), NS),  # type: ignore[arg-type]
    Bad("MemoryStore.put", lambda w: w.store.put(("user", SURROGATE), "k", {"text": "x"}), SCOPE),
    Bad("MemoryStore.put", lambda w: w.store.put(ALICE, "k", deep(100_000)), MEM),
    Bad("MemoryStore.put", lambda w: w.store.put(ALICE, "k", circular()), MEM),
    Bad("MemoryStore.put", lambda w: w.store.put(ALICE, "k", {(1, 2): "x"}), MEM),  # type: ignore[dict-item]
    Bad("MemoryStore.put", lambda w: w.store.put(ALICE, "k", [1]), MEM),  # type: ignore[arg-type]
    Bad("MemoryStore.put", lambda w: w.store.put(ALICE, "k", {"text": "x"}, ttl="soon"), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore.put", lambda w: w.store.put(ALICE, "k", {"text": "x"}, index=5), ARG),  # type: ignore[arg-type]
    Bad("MemoryStore.aput", lambda w: run(w.store.aput(("user", "a.b"), "k", {"text": "x"})), NS),
    Bad("MemoryStore.aput", lambda w: run(w.store.aput(ALICE, "k", circular())), MEM),
    Bad("MemoryStore.get", lambda w: w.store.get(("user", "a.b"), "k"), NS),
    Bad("MemoryStore.get", lambda w: w.store.get(None, "k"), NS),  # type: ignore[arg-type]
    Bad("MemoryStore.get", lambda w: w.store.get(ALICE, SURROGATE), ARG),
    Bad("MemoryStore.aget", lambda w: run(w.store.aget(("", "a"), "k")), NS),
    Bad("MemoryStore.delete", lambda w: w.store.delete(("user", "a\x00"), "k"), NS),
    Bad("MemoryStore.delete", lambda w: w.store.delete(("langgraph", "a"), "k"), NS),
    Bad("MemoryStore.adelete", lambda w: run(w.store.adelete(("user", "a.b"), "k")), NS),
    Bad("MemoryStore.search", lambda w: w.store.search(("user", "a.b")), NS),
    Bad("MemoryStore.search", lambda w: w.store.search("user"), NS),  # type: ignore[arg-type]
    Bad("MemoryStore.search", lambda w: w.store.search(("user",), limit=-1), ARG),
    Bad("MemoryStore.search", lambda w: w.store.search(("user",), limit="x"), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.search", lambda w: w.store.search(("user",), offset=None), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.search", lambda w: w.store.search(("user",), filter={"n": {"$in": [1]}}), ARG),
    Bad("MemoryStore.search", lambda w: w.store.search(("user",), filter=5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.search", lambda w: w.store.search(("user",), query=SURROGATE), ARG),
    Bad("MemoryStore.asearch", lambda w: run(w.store.asearch(("user", "a.b"))), NS),
    Bad("MemoryStore.list_namespaces", lambda w: w.store.list_namespaces(prefix=("a.b",)), NS),
    Bad("MemoryStore.list_namespaces", lambda w: w.store.list_namespaces(suffix="user"), NS),  # type: ignore[arg-type]
    Bad("MemoryStore.list_namespaces", lambda w: w.store.list_namespaces(limit="x"), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.list_namespaces", lambda w: w.store.list_namespaces(max_depth="x"), TYPE),  # type: ignore[arg-type]
    Bad("MemoryStore.list_namespaces", lambda w: w.store.list_namespaces(offset=-1), ARG),
    Bad("MemoryStore.alist_namespaces", lambda w: run(w.store.alist_namespaces(prefix=("",))), NS),
    Bad("MemoryStore.batch", lambda w: w.store.batch([5]), TYPE),  # type: ignore[list-item]
    Bad("MemoryStore.batch", lambda w: w.store.batch(5), TYPE),  # type: ignore[arg-type]
    Bad(
        "MemoryStore.batch", lambda w: w.store.batch([PutOp(("langgraph", "x"), "k", {"a": 1})]), NS
    ),
    Bad("MemoryStore.batch", lambda w: w.store.batch([PutOp((), "k", {"a": 1})]), NS),
    Bad("MemoryStore.batch", lambda w: w.store.batch([PutOp(None, "k", {"a": 1})]), NS),  # type: ignore[arg-type]
    Bad("MemoryStore.batch", lambda w: w.store.batch([GetOp(("a.b",), "k")]), NS),
    Bad("MemoryStore.batch", lambda w: w.store.batch([SearchOp(("a", ""))]), NS),
    Bad(
        "MemoryStore.batch",
        lambda w: w.store.batch([ListNamespacesOp((MatchCondition("middle", ("a",)),))]),  # type: ignore[arg-type]
        ARG,
    ),
    Bad("MemoryStore.batch", lambda w: w.store.batch([ListNamespacesOp(5)]), TYPE),  # type: ignore[arg-type]
    Bad(
        "MemoryStore.batch",  # the good put is not written: the batch is refused whole
        lambda w: w.store.batch([PutOp(ALICE, "ok", {"text": "x"}), PutOp(ALICE, "k", circular())]),
        MEM,
    ),
    Bad("MemoryStore.abatch", lambda w: run(w.store.abatch([PutOp(("a.b",), "k", {})])), NS),
    Bad("MemoryStore.abatch", lambda w: run(w.store.abatch(5)), TYPE),  # type: ignore[arg-type]
    # -- MemoryWriter ----------------------------------------------------------------------
    Bad("MemoryWriter", lambda w: MemoryWriter(5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryWriter", lambda w: MemoryWriter(w.store, model=5), ModelConfigError),  # type: ignore[arg-type]
    Bad("MemoryWriter", lambda w: MemoryWriter(w.store, RulesModel(), reconcile="x"), ARG),  # type: ignore[arg-type]
    Bad("MemoryWriter", lambda w: MemoryWriter(w.store, RulesModel(), roles="user"), TYPE),  # type: ignore[arg-type]
    Bad("MemoryWriter", lambda w: MemoryWriter(w.store, RulesModel(), roles=["boss"]), ARG),  # type: ignore[list-item]
    Bad("MemoryWriter", lambda w: MemoryWriter(w.store, RulesModel(), episode_retention=5), ARG),  # type: ignore[arg-type]
    Bad("MemoryWriter", lambda w: MemoryWriter(w.store, RulesModel(), instructions=5), TYPE),  # type: ignore[arg-type]
    Bad(
        "MemoryWriter",
        lambda w: MemoryWriter(w.store, RulesModel(), instructions=MemoryInstructions(skip=[""])),
        ARG,
    ),
    Bad("MemoryInstructions", lambda w: MemoryInstructions(keep="allergy"), TYPE),
    Bad("MemoryInstructions", lambda w: MemoryInstructions(skip=[5]), TYPE),  # type: ignore[list-item]
    Bad("MemoryInstructions", lambda w: MemoryInstructions(guidance=5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryInstructions", lambda w: MemoryInstructions(skip=["  "]), ARG),
    Bad("MemoryInstructions", lambda w: MemoryInstructions(keep=["pet"], skip=["pets"]), ARG),
    Bad("MemoryInstructions", lambda w: MemoryInstructions(f"a{SURROGATE}"), ARG),
    Bad(
        "MemoryInstructions.reason_to_skip",
        lambda w: MemoryInstructions().reason_to_skip("User likes tea."),  # type: ignore[arg-type]
        TYPE,
    ),
    Bad("MemoryWriter.write_turn", lambda w: w.writer.write_turn(U, 5), ARG),  # type: ignore[arg-type]
    Bad("MemoryWriter.write_turn", lambda w: w.writer.write_turn(U, [("x", "hi")]), ARG),
    Bad(
        "MemoryWriter.write_turn",
        lambda w: w.writer.write_turn("org:a", [("user", "hi")]),
        AdminRequiredError,
    ),
    Bad("MemoryWriter.awrite_turn", lambda w: run(w.writer.awrite_turn(U, 5)), ARG),  # type: ignore[arg-type]
    Bad("MemoryWriter.awrite_turn", lambda w: run(w.writer.awrite_turn(U, "hi")), ARG),
    Bad("MemoryWriter.write_turns", lambda w: w.writer.write_turns(U, [5]), ARG),  # type: ignore[list-item]
    Bad("MemoryWriter.write_turns", lambda w: w.writer.write_turns(U, [], batch=0), ARG),
    Bad("MemoryWriter.remember", lambda w: w.writer.remember(U, ""), MEM),
    Bad(
        "MemoryWriter.remember",
        lambda w: w.writer.remember(U, "I like tea.", importance=10**400),
        MEM,
    ),
    Bad("MemoryWriter.forget", lambda w: w.writer.forget(U, w.memory.id, query="tea"), ARG),
    Bad("MemoryWriter.forget", lambda w: w.writer.forget(U, query="  "), ARG),
    Bad("MemoryWriter.find_one", lambda w: w.writer.find_one(U, 5), ARG),  # type: ignore[arg-type]
    # -- BackgroundWriter and its journal --------------------------------------------------
    Bad("BackgroundWriter", lambda w: BackgroundWriter(5), TYPE),  # type: ignore[arg-type]
    Bad("BackgroundWriter", lambda w: BackgroundWriter(w.writer, workers=0, journal=False), ARG),
    Bad("BackgroundWriter", lambda w: BackgroundWriter(w.writer, workers="2", journal=False), TYPE),  # type: ignore[arg-type]
    Bad(
        "BackgroundWriter", lambda w: BackgroundWriter(w.writer, max_pending=0, journal=False), ARG
    ),
    Bad("BackgroundWriter", lambda w: BackgroundWriter(w.writer, on_full="x", journal=False), ARG),  # type: ignore[arg-type]
    Bad(
        "BackgroundWriter", lambda w: BackgroundWriter(w.writer, max_attempts=0, journal=False), ARG
    ),
    Bad("BackgroundWriter", lambda w: BackgroundWriter(w.writer, backoff_s=-1, journal=False), ARG),
    Bad(
        "BackgroundWriter",
        lambda w: BackgroundWriter(w.writer, backoff_factor=math.nan, journal=False),
        ARG,
    ),
    Bad(
        "BackgroundWriter",
        lambda w: BackgroundWriter(w.writer, exit_timeout="x", journal=False),
        TYPE,
    ),  # type: ignore[arg-type]
    Bad("BackgroundWriter", lambda w: BackgroundWriter(w.writer, journal=5), TYPE),  # type: ignore[arg-type]
    Bad("BackgroundWriter", lambda w: BackgroundWriter(w.writer, journal=False, when_idle=5), ARG),  # type: ignore[arg-type]
    Bad("BackgroundWriter.submit", lambda w: w.background.submit(U, 5), ARG),  # type: ignore[arg-type]
    Bad(
        "BackgroundWriter.submit",
        lambda w: w.background.submit(U, [("user", "hi")], now=NAIVE),
        ARG,
    ),
    Bad(
        "BackgroundWriter.submit",
        lambda w: w.background.submit(U, [("user", "hi")], timeout="x"),
        TYPE,
    ),  # type: ignore[arg-type]
    Bad(
        "BackgroundWriter.submit",
        lambda w: w.background.submit("org:a", [("user", "hi")]),
        AdminRequiredError,
    ),
    Bad("BackgroundWriter.asubmit", lambda w: run(w.background.asubmit(U, 5)), ARG),  # type: ignore[arg-type]
    Bad("BackgroundWriter.wait", lambda w: w.background.wait(5), SCOPE),  # type: ignore[arg-type]
    Bad("BackgroundWriter.wait", lambda w: w.background.wait(U, timeout="x"), TYPE),  # type: ignore[arg-type]
    Bad("BackgroundWriter.flush", lambda w: w.background.flush(timeout=-1), ARG),
    Bad("BackgroundWriter.aflush", lambda w: run(w.background.aflush(timeout=math.inf)), ARG),
    Bad("BackgroundWriter.close", lambda w: w.background.close(timeout="x"), TYPE),  # type: ignore[arg-type]
    Bad("BackgroundWriter.requeue", lambda w: w.background.requeue(5), JournalError),  # type: ignore[arg-type]
    Bad("BackgroundWriter.requeue", lambda w: w.background.requeue({}), JournalError),
    Bad("BackgroundWriter.pending_turns", lambda w: w.background.pending_turns(5), SCOPE),  # type: ignore[arg-type]
    Bad("BackgroundWriter.purged", lambda w: w.background.purged("bogus:x", None), SCOPE),
    Bad("Journal", lambda w: Journal(w.tmp / "j0.jsonl", compact_every=0), ARG),
    Bad(
        "Journal.append",
        lambda w: [
            w.journal("twice").append(JournalEntry.of(U, Turn.of([("user", "hi")], turn_id="t")))
            for _ in range(2)
        ],
        ARG,
    ),
    Bad("Journal.append", lambda w: _closed(w.journal("closed")).append(_entry()), JournalError),
    Bad("Retention", lambda w: Retention(max_count=-1), ARG),
    Bad("Retention", lambda w: Retention(max_age="x"), ARG),  # type: ignore[arg-type]
    # -- the read path ---------------------------------------------------------------------
    Bad("retrieve", lambda w: retrieve(5, U, "tea"), TYPE),  # type: ignore[arg-type]
    Bad("retrieve", lambda w: retrieve(w.store, U, SURROGATE), ARG),
    Bad("retrieve", lambda w: retrieve(w.store, U, "tea", k=0), ARG),
    Bad("aretrieve", lambda w: run(aretrieve(5, U, "tea")), TYPE),  # type: ignore[arg-type]
    Bad("aretrieve", lambda w: run(aretrieve(w.store, U, "tea", k=0)), ARG),
    Bad("retrieve", lambda w: retrieve(w.store, U, "tea", dense_weight=math.nan), ARG),
    Bad("retrieve", lambda w: retrieve(w.store, U, "tea", half_life_days=0), ARG),
    Bad("retrieve", lambda w: retrieve(w.store, U, "tea", now=NAIVE), ARG),
    Bad("render", lambda w: render(5), TYPE),  # type: ignore[arg-type]
    Bad("render", lambda w: render([5]), TYPE),  # type: ignore[list-item]
    Bad("render", lambda w: render(w.memory), TYPE),  # type: ignore[arg-type]
    Bad("render", lambda w: render([], max_chars=0), ARG),
    Bad("render", lambda w: render([], empty=5), TYPE),  # type: ignore[arg-type]
    # -- the graph helpers -----------------------------------------------------------------
    Bad("memory_read_node", lambda w: memory_read_node(5), TYPE),  # type: ignore[arg-type]
    Bad("memory_read_node", lambda w: memory_read_node(w.store, wait_for_writes=-1), ARG),
    Bad("memory_read_node", lambda w: memory_read_node(w.store)({}, CONFIG), MissingStateKeyError),
    Bad(
        "memory_read_node",
        lambda w: memory_read_node(w.store)({"messages": [HumanMessage("hi")]}, {}),
        MissingScopeKeyError,
    ),
    Bad(
        "memory_read_node",
        lambda w: memory_read_node(w.store)({"messages": [HumanMessage("hi")]}, 5),  # type: ignore[arg-type]
        TYPE,
    ),
    Bad("memory_write_node", lambda w: memory_write_node(w.writer, write="later"), ARG),  # type: ignore[arg-type]
    Bad("memory_write_node", lambda w: memory_write_node(w.writer, instructions="x"), ARG),
    Bad("memory_write_node", lambda w: memory_write_node(instructions=5), TYPE),  # type: ignore[arg-type]
    Bad("memory_write_node", lambda w: memory_write_node(w.writer, write="deferred"), TYPE),
    Bad("memory_write_node", lambda w: memory_write_node(w.background, write="inline"), TYPE),
    Bad(
        "memory_write_node", lambda w: memory_write_node(w.writer)({}, CONFIG), MissingStateKeyError
    ),
    Bad("memory_window_node", lambda w: memory_window_node(0), ARG),
    Bad("memory_window_node", lambda w: memory_window_node(True), TYPE),
    Bad("memory_window_node", lambda w: memory_window_node(100, writes=w.writer), ARG),  # type: ignore[arg-type]
    Bad("memory_window_node", lambda w: memory_window_node(100)({}, CONFIG), MissingStateKeyError),
    Bad("memory_tools", lambda w: memory_tools(5), TYPE),  # type: ignore[arg-type]
    Bad("memory_hooks", lambda w: memory_hooks(store=5), TYPE),  # type: ignore[arg-type]
    Bad("memory_hooks", lambda w: memory_hooks(w.store, write="x"), ARG),  # type: ignore[arg-type]
    Bad("memory_hooks", lambda w: memory_hooks(w.store, max_tokens=1.5), TYPE),  # type: ignore[arg-type]
    Bad("memory_hooks", lambda w: memory_hooks(writer=w.writer, instructions="x"), ARG),
    Bad("memory_hooks", lambda w: memory_hooks(w.store, instructions=["pet"]), TYPE),  # type: ignore[arg-type]
    Bad(
        "memory_hooks",
        lambda w: memory_hooks(w.store)["pre_model_hook"]({}, CONFIG),
        MissingStateKeyError,
    ),
    Bad("MemoryMiddleware", lambda w: MemoryMiddleware(store=5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryMiddleware", lambda w: MemoryMiddleware(writer=5), TYPE),  # type: ignore[arg-type]
    Bad("MemoryMiddleware", lambda w: MemoryMiddleware(w.store, max_tokens=0), ARG),
    Bad("MemoryMiddleware", lambda w: MemoryMiddleware(w.store, write="x"), ARG),  # type: ignore[arg-type]
    Bad("MemoryMiddleware", lambda w: MemoryMiddleware(writer=w.writer, instructions="x"), ARG),
    Bad("MemoryMiddleware", lambda w: MemoryMiddleware(w.store, instructions=5), TYPE),  # type: ignore[arg-type]
    Bad(
        "MemoryMiddleware.before_agent",
        lambda w: MemoryMiddleware(w.store).before_agent({}, None),
        MissingStateKeyError,
    ),  # type: ignore[arg-type, typeddict-item]
    Bad(
        "MemoryMiddleware.abefore_agent",
        lambda w: run(MemoryMiddleware(w.store).abefore_agent({}, None)),
        MissingStateKeyError,
    ),  # type: ignore[arg-type, typeddict-item]
    Bad(
        "MemoryMiddleware.after_agent",
        lambda w: MemoryMiddleware(w.store).after_agent({}, None),
        MissingStateKeyError,
    ),  # type: ignore[arg-type, typeddict-item]
    Bad(
        "MemoryMiddleware.aafter_agent",
        lambda w: run(MemoryMiddleware(w.store).aafter_agent({}, None)),
        MissingStateKeyError,
    ),  # type: ignore[arg-type, typeddict-item]
    Bad("add_memory", lambda w: add_memory(5), TYPE),  # type: ignore[arg-type]
    Bad("add_memory", lambda w: add_memory(w.builder(), "bot", store=w.store), ARG),
    Bad("add_memory", lambda w: add_memory(w.builder(), store=w.store, into="notes"), ARG),
    Bad("add_memory", lambda w: add_memory(w.builder(), store=w.store, read_name="agent"), ARG),
    Bad("add_memory", lambda w: add_memory(w.builder(), store=5), TYPE),  # type: ignore[arg-type]
    Bad("add_memory", lambda w: add_memory(w.builder(), store=w.store, max_tokens=0), ARG),
    Bad("add_memory", lambda w: add_memory(w.builder(), writer=w.writer, instructions="x"), ARG),
    Bad("add_memory", lambda w: add_memory(w.builder(), store=w.store, instructions=5), TYPE),  # type: ignore[arg-type]
    Bad(
        "add_memory",
        lambda w: add_memory(w.builder(), store=w.store, max_tokens=500, window_name="agent"),
        ARG,
    ),
    Bad("build_chat_graph", lambda w: build_chat_graph(w.store, chat=5), TYPE),  # type: ignore[arg-type]
    Bad("build_chat_graph", lambda w: build_chat_graph(w.store, tools=5), TYPE),  # type: ignore[arg-type]
    Bad("build_chat_graph", lambda w: build_chat_graph(w.store, write="deferred"), TYPE),
    Bad(
        "fill_namespace",
        lambda w: fill_namespace(("memories", "{user_id}"), {}),
        MissingScopeKeyError,
    ),
    Bad("fill_namespace", lambda w: fill_namespace(("a", 5)), SCOPE),  # type: ignore[arg-type]
    Bad("fill_namespace", lambda w: fill_namespace(("{user_id}",), 5), TYPE),  # type: ignore[arg-type]
    # -- Scope, Turn and the records -------------------------------------------------------
    Bad("Scope", lambda w: Scope("bogus", "a"), SCOPE),  # type: ignore[arg-type]
    Bad("Scope", lambda w: Scope("user", ""), SCOPE),
    Bad("Scope.parse", lambda w: Scope.parse(5), SCOPE),  # type: ignore[arg-type]
    Bad("Scope.parse", lambda w: Scope.parse(f"user:{SURROGATE}"), SCOPE),
    Bad("Scope.of", lambda w: Scope.of(5), SCOPE),  # type: ignore[arg-type]
    Bad("Scope.from_namespace", lambda w: Scope.from_namespace(("notes", "a.b")), SCOPE),
    Bad("Scope.from_config", lambda w: Scope.from_config({}, "user"), MissingScopeKeyError),
    Bad("Scope.from_config", lambda w: Scope.from_config(5, "user"), TYPE),  # type: ignore[arg-type]
    Bad("Scope.from_config", lambda w: Scope.from_config({"configurable": 5}, "user"), TYPE),
    Bad("Turn.of", lambda w: Turn.of(5), ARG),  # type: ignore[arg-type]
    Bad("Turn.of", lambda w: Turn.of([("user", "hi")], when="2026"), ARG),  # type: ignore[arg-type]
    Bad("Turn.of", lambda w: Turn.of([("user", "hi")], turn_id=5), ARG),  # type: ignore[arg-type]
    Bad("Turn.by", lambda w: Turn.of([("user", "hi")]).by(5), TYPE),  # type: ignore[arg-type]
    Bad("Turn.by", lambda w: Turn.of([("user", "hi")]).by("user"), TYPE),  # type: ignore[arg-type]
    Bad("Memory.from_dict", lambda w: Memory.from_dict({}), MEM),
    Bad("Memory.from_dict", lambda w: Memory.from_dict(5), MEM),  # type: ignore[arg-type]
    Bad(
        "Memory.from_dict",
        lambda w: Memory.from_dict({**w.memory.to_dict(), "created_at": "x"}),
        MEM,
    ),
    Bad(
        "Memory.from_dict", lambda w: Memory.from_dict({**w.memory.to_dict(), "kind": "weird"}), MEM
    ),
    Bad("Memory.valid_at", lambda w: w.memory.valid_at(NAIVE), ARG),
    Bad("Decision", lambda w: Decision(op=DecisionOp.NOOP, fact="x", status="done"), ARG),  # type: ignore[arg-type]
    Bad("Decision.from_dict", lambda w: Decision.from_dict({"fact": "x"}), MEM),
    Bad("Decision.from_dict", lambda w: Decision.from_dict({"op": "weird", "fact": "x"}), MEM),
    Bad("Decision.from_dict", lambda w: Decision.from_dict({"op": "NOOP", "created_at": "x"}), MEM),
    Bad(
        "Decision.with_", lambda w: Decision(op=DecisionOp.NOOP, fact="x").with_(colour="red"), TYPE
    ),
    Bad("Review.from_dict", lambda w: Review.from_dict({}), MEM),
    Bad("Review.from_dict", lambda w: Review.from_dict(_review(w, status="maybe")), MEM),
    Bad("Status.of", lambda w: Status.of("done"), ARG),
    # -- the write subpackage --------------------------------------------------------------
    Bad("RulesModel.extract", lambda w: RulesModel().extract([("user", "hi")]), TYPE),  # type: ignore[arg-type]
    Bad("RulesModel.extract", lambda w: RulesModel().extract(_turn(), roles="user"), TYPE),
    Bad("RulesModel.choose", lambda w: RulesModel().choose("User is vegan.", [], today=T0), TYPE),  # type: ignore[arg-type]
    Bad(
        "RulesModel.choose_batch", lambda w: RulesModel().choose_batch([_fact()], 5, today=T0), TYPE
    ),  # type: ignore[arg-type]
    Bad("ChatMemoryModel", lambda w: ChatMemoryModel(5), TYPE),  # type: ignore[arg-type]
    Bad("ChatMemoryModel", lambda w: ChatMemoryModel(ScriptedChatModel(), prompts=5), TYPE),  # type: ignore[arg-type]
    Bad("ChatMemoryModel", lambda w: ChatMemoryModel(ScriptedChatModel(), instructions=5), TYPE),  # type: ignore[arg-type]
    Bad(
        "ChatMemoryModel.extract",
        lambda w: ChatMemoryModel(ScriptedChatModel()).extract(5, roles=("user",)),
        TYPE,
    ),  # type: ignore[arg-type]
    Bad(
        "ChatMemoryModel.choose",
        lambda w: ChatMemoryModel(ScriptedChatModel()).choose(_fact(), [], today="x"),
        TYPE,
    ),  # type: ignore[arg-type]
    Bad(
        "ChatMemoryModel.choose_batch",
        lambda w: ChatMemoryModel(ScriptedChatModel()).choose_batch([5], [], today=T0),
        TYPE,
    ),  # type: ignore[list-item]
    Bad("Prompts", lambda w: Prompts(extract_system="Today is {date}."), ARG),
    Bad("Prompts", lambda w: Prompts(reconcile_system=5), TYPE),  # type: ignore[arg-type]
    Bad("archive_logged", lambda w: archive_logged(5, U, [], reason="x"), TYPE),  # type: ignore[arg-type]
    Bad("archive_logged", lambda w: archive_logged(w.store, U, [5], reason="x"), TYPE),  # type: ignore[list-item]
    Bad("archive_logged", lambda w: archive_logged(w.store, U, [w.memory], reason=5), TYPE),  # type: ignore[arg-type]
    Bad(
        "archive_logged",
        lambda w: archive_logged(w.store, U, [w.memory], reason=_fails),
        ZeroDivisionError,
    ),
    Bad("retain_episodes", lambda w: retain_episodes(w.store, U, max_count=-1), ARG),
    Bad("said_key", lambda w: said_key(5, source="user"), TYPE),  # type: ignore[arg-type]
    Bad("asks_only", lambda w: asks_only(5), TYPE),  # type: ignore[arg-type]
    Bad("said_key", lambda w: said_key("Hi!", source="robot"), ARG),
    Bad("retain_episodes", lambda w: retain_episodes(5, U, max_count=1), TYPE),  # type: ignore[arg-type]
    # -- lifecycle -------------------------------------------------------------------------
    Bad("maintain", lambda w: maintain(5), TYPE),  # type: ignore[arg-type]
    Bad("maintain", lambda w: maintain(w.store, steps="decay"), ARG),  # type: ignore[arg-type]
    Bad("maintain", lambda w: maintain(w.store, now=NAIVE), ARG),
    Bad("maintain", lambda w: maintain(w.store, "bogus:x"), SCOPE),
    Bad("Maintenance", lambda w: Maintenance(every=5), ARG),  # type: ignore[arg-type]
    Bad("Maintenance", lambda w: Maintenance(options={"colour": "red"}), TYPE),
    Bad("consolidate", lambda w: consolidate(w.store, U, RulesModel(), threshold=5), ARG),
    Bad("consolidate", lambda w: consolidate(w.store, U, RulesModel(), exclude=5), ARG),  # type: ignore[arg-type]
    Bad("consolidate", lambda w: consolidate(w.store, U, 5), ModelConfigError),  # type: ignore[arg-type]
    Bad("due", lambda w: due(5, U), TYPE),  # type: ignore[arg-type]
    Bad("due", lambda w: due(w.store, U, threshold="x"), ARG),  # type: ignore[arg-type]
    Bad("forget_stale", lambda w: forget_stale(w.store, U, half_life=5), ARG),  # type: ignore[arg-type]
    Bad("forget_stale", lambda w: forget_stale(w.store, U, threshold=2), ARG),
    Bad("last_reflection", lambda w: last_reflection(w.store, 5), SCOPE),  # type: ignore[arg-type]
    Bad("last_reflection", lambda w: last_reflection(5, U), TYPE),  # type: ignore[arg-type]
    Bad("protection", lambda w: protection(5), TYPE),  # type: ignore[arg-type]
    Bad("reflect", lambda w: reflect(w.store, U, RulesModel(), max_depth=0, force=True), ARG),
    Bad("reflect", lambda w: reflect(w.store, U, RulesModel(), now=NAIVE), ARG),
    Bad("strength", lambda w: strength(5, T0), TYPE),  # type: ignore[arg-type]
    Bad("strength", lambda w: strength(w.memory, "x"), ARG),  # type: ignore[arg-type]
    Bad("strength", lambda w: strength(w.memory, T0, half_life=timedelta(0)), ARG),
    # -- store helpers ---------------------------------------------------------------------
    Bad("create_app", lambda w: create_app(5), TYPE),  # type: ignore[arg-type]
    Bad("create_app", lambda w: create_app(w.store, token="short"), ARG),
    Bad("create_app", lambda w: create_app(w.store, token=5), ARG),  # type: ignore[arg-type]
    Bad("compact_directory", lambda w: compact_directory(5), TYPE),  # type: ignore[arg-type]
    Bad("compact_directory", lambda w: compact_directory(w.tmp, timeout="x"), TYPE),  # type: ignore[arg-type]
    Bad("date_words", lambda w: date_words("2026-01-05"), TYPE),  # type: ignore[arg-type]
    Bad("load_export", lambda w: load_export(5), TYPE),  # type: ignore[arg-type]
    Bad("load_export", lambda w: load_export("{", name="x.json"), MEM),
    Bad("load_export", lambda w: load_export("[" * 100_000), MEM),
    Bad("load_export", lambda w: load_export("{}", max_bytes="x"), TYPE),  # type: ignore[arg-type]
    Bad("strip_controls", lambda w: strip_controls(5), TYPE),  # type: ignore[arg-type]
    Bad("tokenize", lambda w: tokenize(5), TYPE),  # type: ignore[arg-type]
    # -- embedders, models, testing --------------------------------------------------------
    Bad("LocalMiniLM", lambda w: LocalMiniLM(threads=0), ARG),
    Bad("LocalMiniLM", lambda w: LocalMiniLM(batch_size="8"), TYPE),  # type: ignore[arg-type]
    Bad("LocalMiniLM", lambda w: LocalMiniLM(recent_queries=-1), ARG),
    Bad("LocalMiniLM", lambda w: LocalMiniLM(expected_sha256="0" * 64), ARG),
    Bad("LocalMiniLM", lambda w: LocalMiniLM(model_path="m.onnx", expected_sha256="zz"), ARG),
    Bad("LocalMiniLM", lambda w: LocalMiniLM(model_path="m.onnx", expected_sha256=5), TYPE),  # type: ignore[arg-type]
    Bad("LocalMiniLM", lambda w: LocalMiniLM(model_path=5), TYPE),  # type: ignore[arg-type]
    Bad("LocalMiniLM.embed_documents", lambda w: LocalMiniLM().embed_documents("abc"), TYPE),  # type: ignore[arg-type]
    Bad("LocalMiniLM.embed_documents", lambda w: LocalMiniLM().embed_documents(5), TYPE),  # type: ignore[arg-type]
    Bad("LocalMiniLM.embed_documents", lambda w: LocalMiniLM().embed_documents([SURROGATE]), ARG),
    Bad("LocalMiniLM.embed_query", lambda w: LocalMiniLM().embed_query(None), TYPE),  # type: ignore[arg-type]
    Bad("LocalMiniLM.embed_query", lambda w: LocalMiniLM().embed_query(f"x{SURROGATE}"), ARG),
    Bad("FunctionEmbeddings", lambda w: FunctionEmbeddings(5), TYPE),  # type: ignore[arg-type]
    Bad("resolve_embeddings", lambda w: resolve_embeddings(5), ARG),
    Bad("resolve_embeddings", lambda w: resolve_embeddings("text-embedding-3-small"), ARG),
    Bad("resolve_chat_model", lambda w: resolve_chat_model(5), ModelConfigError),  # type: ignore[arg-type]
    Bad("resolve_chat_model", lambda w: resolve_chat_model("nope:model"), ModelConfigError),
    Bad("count_tokens", lambda w: count_tokens(5), ARG),  # type: ignore[arg-type]
    Bad("count_tokens", lambda w: count_tokens(SURROGATE), ARG),
]


def _closed(journal: Journal) -> Journal:
    journal.close()
    return journal


def _entry() -> JournalEntry:
    return JournalEntry.of(U, Turn.of([("user", "hi")], when=T0))


def _turn() -> Turn:
    return Turn.of([("user", "I live in Pune.")], when=T0)


def _fact() -> Fact:
    return Fact(text="User is vegan.")


def _review(w: World, **changes: Any) -> dict[str, Any]:
    review = Review(
        id="r1",
        from_scope=U,
        memory_id=w.memory.id,
        to_scope="agent:x",
        memory=w.memory,
        created_at=T0,
    )
    return {**review.to_dict(), **changes}


def _fails(memory: Memory) -> str:
    return str(1 / 0)  # a reason function that fails: the user's error, nothing archived


#: Calls whose error is not the package's to choose: a function of the caller's that
#: the call runs raises what it raises (the call still changes nothing).
FOREIGN = (ZeroDivisionError,)


@pytest.mark.parametrize("case", BAD, ids=[case.id for case in BAD])
def test_bad_input_raises_our_error_and_changes_nothing(world: World, case: Bad) -> None:
    before = snapshot(world.store)
    with pytest.raises(Exception) as caught:
        case.call(world)
    error = caught.value
    if not issubclass(case.error, FOREIGN):
        assert isinstance(error, MemoryKitError), f"{case.name}: {type(error).__module__}.{error!r}"
    assert isinstance(error, case.error), (
        f"{case.name}: expected {case.error.__name__}, got {error!r}"
    )
    assert str(error), f"{case.name}: an error without a message"
    assert snapshot(world.store) == before, f"{case.name}: a refused call changed the store"


# -- the journal ---------------------------------------------------------------------------------


#: Bad input to the journal itself (BackgroundWriter, its user, refuses such input
#: before it reaches the journal: journal=5 is walked above).
JOURNAL_CASES: list[Callable[[Path], object]] = [
    lambda path: Journal(5),  # type: ignore[arg-type]
    lambda path: Journal(path, compact_every="x"),  # type: ignore[arg-type]
    lambda path: _closing(Journal(path)).append(5),  # type: ignore[arg-type]
    lambda path: _with_a_turn(_closing(Journal(path))).pending_turns(5),  # type: ignore[arg-type]
    lambda path: _closing(Journal(path)).purged(5, None),  # type: ignore[arg-type]
]


def _closing(journal: Journal) -> Journal:
    """``journal``, closed when the test ends (its file lock is released)."""
    _OPEN_JOURNALS.append(journal)
    return journal


_OPEN_JOURNALS: list[Journal] = []


def _with_a_turn(journal: Journal) -> Journal:
    journal.append(_entry())
    return journal


@pytest.mark.parametrize("call", JOURNAL_CASES)
def test_journal_refuses_bad_input(tmp_path: Path, call: Callable[[Path], object]) -> None:
    try:
        with pytest.raises(MemoryKitError):
            call(tmp_path / "j.jsonl")
    finally:
        while _OPEN_JOURNALS:
            _OPEN_JOURNALS.pop().close()


# -- what the walk covers -----------------------------------------------------------------------

#: Public callables the walk does not call, and why. A reason is a claim: that no
#: input can be bad (the callable takes none, or any value is fine), or that the
#: callable is not called with user input.
NOT_WALKED = {
    # records: plain dataclasses that hold what they are given (model.py); the calls
    # that take them check them (render, internals(store).log, archive_logged ...)
    "Memory": "a plain record",
    "Hit": "a plain record",
    "Retrieved": "a plain record",
    "Review": "a plain record",
    "Candidates": "a plain record",
    "Budget": "a plain record; Budget.of is the checked way to make one",
    "Fact": "a plain record",
    "Choice": "a plain record: a model's unvalidated answer, validated by reconcile",
    "Extraction": "a plain record",
    "MaintenanceReport": "a plain record",
    "ScopeReport": "a plain record",
    "Turn": "a plain record; Turn.of is the checked way to make one",
    # enums: Kind('x') is Python's own lookup; the API takes their values as str and
    # checks them there (add(kind='x') raises InvalidMemoryError)
    "Kind": "an enum",
    "DecisionOp": "an enum",
    "Source": "an enum",
    "Status": "an enum (Status.of is walked)",
    "Trust": "an enum",
    "ReviewStatus": "an enum",
    "MemoryState": "a TypedDict: a state schema, never called",
    # protocols: to implement, not to call
    "MemoryModel": "a Protocol",
    "MemoryModel.extract": "a Protocol",
    "MemoryModel.choose": "a Protocol",
    "MemoryModel.choose_batch": "a Protocol",
    "Merger": "a Protocol",
    "Merger.merge": "a Protocol",
    "Reflector": "a Protocol",
    "Reflector.conclude": "a Protocol",
    # LangChain's objects: built and called through LangChain's own API
    "StandInChatModel": "a LangChain chat model (pydantic checks its fields)",
    "StandInChatModel.bind_tools": "takes any tools and ignores them: it never calls one",
    "ScriptedChatModel": "a LangChain chat model (pydantic checks its fields)",
    "ScriptedChatModel.bind_tools": "takes any tools, as the script decides the calls",
    "ScriptedChatModel.model_post_init": "pydantic's hook",
    "MemoryMiddleware.wrap_model_call": "LangChain's hook, called with its own ModelRequest",
    "MemoryMiddleware.awrap_model_call": "LangChain's hook, called with its own ModelRequest",
    # handles the store builds (store.ttl, internals(store)); nobody builds one
    "TTL": "built by MemoryStore as store.ttl, from its own core",
    "Internals": "built by MemoryStore; internals(store) is walked",
    # no input can be bad
    "embedder_name": "names any object",
    "Journal.done": "an unknown turn id is a no-op, as documented",
    "Journal.discard": "a scope with no pending turns is a no-op",
    "Journal.pending_turns": "walked in JOURNAL_CASES",
    "Journal.purged": "walked in JOURNAL_CASES",
    "FunctionEmbeddings.embed_documents": "runs the caller's function, whose errors are its own",
    "FunctionEmbeddings.embed_query": "runs the caller's function, whose errors are its own",
}


def _methods(cls: type) -> list[str]:
    """The public methods a user calls on ``cls``: those the package defines, and
    LangGraph's BaseStore face for the store."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith(("langgraph_memory", "langgraph.store")):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            if inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod)):
                names.add(name)
    return sorted(names)


def _takes_input(func: Any) -> bool:
    """False for a callable with no parameter (besides self): nothing to get wrong."""
    try:
        parameters = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return True
    return bool([p for p in parameters if p not in ("self", "cls")])


def public_callables() -> set[str]:
    """Every public callable as the walk names it: ``name`` or ``Class.method``."""
    objects: dict[str, Any] = dict(REACHED)
    for module_name in SURFACE:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            objects[name] = getattr(module, name)
    found: set[str] = set()
    for name, value in objects.items():
        if inspect.isclass(value):
            if issubclass(value, BaseException):
                continue  # the errors themselves (test_every_error_keeps_a_builtin_base)
            if _takes_input(value):
                found.add(name)
            for method in _methods(value):
                if _takes_input(getattr(value, method)):
                    found.add(f"{name}.{method}")
        elif callable(value) and _takes_input(value):
            found.add(name)
    return found


def test_every_public_callable_is_walked() -> None:
    public = public_callables()
    walked = {case.name for case in BAD}
    missing = sorted(public - walked - set(NOT_WALKED))
    assert not missing, (
        f"public callables with no bad input in BAD (or reason in NOT_WALKED): {missing}"
    )
    stale = sorted((walked | set(NOT_WALKED)) - public)
    assert not stale, f"BAD or NOT_WALKED name callables that are not public: {stale}"
    assert not walked & set(NOT_WALKED), "a callable is both walked and not walked"


# -- the errors themselves ----------------------------------------------------------------------

BUILTIN_BASES = (
    ValueError,
    TypeError,
    KeyError,
    LookupError,
    RuntimeError,
    PermissionError,
    ImportError,
)


def our_errors() -> list[type[Exception]]:
    found = [
        value
        for value in vars(errors_module).values()
        if inspect.isclass(value) and issubclass(value, MemoryKitError)
    ]
    return [*found, InvalidStoreNamespaceError]


@pytest.mark.parametrize("error", our_errors(), ids=lambda e: e.__name__)
def test_every_error_keeps_a_builtin_base_and_is_public(error: type[Exception]) -> None:
    assert error is MemoryKitError or issubclass(error, BUILTIN_BASES), error
    assert getattr(langgraph_memory, error.__name__) is error
    assert error.__name__ in langgraph_memory.__all__


def test_the_new_classes_are_what_callers_already_catch() -> None:
    assert issubclass(InvalidTypeError, TypeError) and issubclass(InvalidTypeError, ValueError)
    assert issubclass(InvalidTypeError, InvalidArgumentError)
    assert issubclass(MissingStateKeyError, KeyError)
    assert issubclass(InvalidStoreNamespaceError, InvalidNamespaceError)
    assert issubclass(InvalidStoreNamespaceError, InvalidScopeError)
    assert str(MissingStateKeyError("no 'messages'")) == "no 'messages'"  # not quoted as a key


def test_langgraph_code_catches_our_namespace_error(world: World) -> None:
    """Code written for LangGraph's stores catches LangGraph's error; ours is one."""
    for call in (
        lambda: world.store.put(("a.b",), "k", {"text": "x"}),
        lambda: world.store.batch([PutOp(("langgraph", "x"), "k", {"text": "x"})]),
        lambda: world.store.search(("", "a")),
    ):
        try:
            call()
        except InvalidNamespaceError as exc:
            assert isinstance(exc, InvalidStoreNamespaceError)
        else:
            pytest.fail("the namespace was accepted")


# The raises themselves (no bare built-in error raised on purpose): test_raise_statements.
