"""Deep Agents (``deepagents``) on a MemoryStore: its files and the kit's facts, across threads.

A deep agent keeps long-term files in any LangGraph ``BaseStore`` through its
``StoreBackend``, usually behind a ``CompositeBackend`` that routes ``/memories/`` there
and keeps the rest of its files in the thread's state. Here that store is a
``MemoryStore``: each file is an item (key: its path under the route) in a namespace
of its own, which the kit keeps as it keeps any item (an edit is a new version, a
delete archives). ``create_deep_agent`` takes ``langgraph_memory.MemoryMiddleware`` as
it takes any ``create_agent`` middleware, so the same agent also gets the kit's
facts. The models are scripted (``ScriptedChatModel``): offline, and the tool calls
are the ones a model would make.

``deepagents`` exports a ``MemoryMiddleware`` of its own (``AGENTS.md`` files in the
prompt). ``create_deep_agent`` merges the caller's middleware into its stack by
``.name``; the kit's is named by its full path, so the two sit side by side (the last
test holds it; named by its bare class name, the kit's took deepagents' place).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from langgraph_memory import MemoryMiddleware, MemoryStore
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import MemoryWriter, RulesModel

deepagents = pytest.importorskip(
    "deepagents", reason="deepagents is in the dev extra: pip install -e '.[dev]'"
)
from deepagents.backends import CompositeBackend, StateBackend, StoreBackend  # noqa: E402

#: The agent's files of one user: a namespace of their own, never ("user", id), where
#: the kit's facts about that user are (a namespace is a scope: see docs/basestore.md).
FILES = ("files", "alice")


@dataclass
class Context:
    user_id: str


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=embedder) as s:
        yield s


def user_files(runtime: Runtime[Context]) -> tuple[str, ...]:
    """The run's user's files (``StoreBackend``'s namespace factory)."""
    return ("files", runtime.context.user_id)


def memories_on(store: MemoryStore | None, namespace: Any = user_files) -> CompositeBackend:
    """deepagents' usual layout: ``/memories/`` in the store, every other file in the
    thread's state. ``store=None``: the agent's own store (``create_deep_agent(store=)``)."""
    files = StoreBackend(store=store, namespace=namespace)
    return CompositeBackend(default=StateBackend(), routes={"/memories/": files})


def call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def system_of(prompt: list[BaseMessage]) -> str:
    return "\n\n".join(str(m.content) for m in prompt if isinstance(m, SystemMessage))


def facts(store: MemoryStore, scope: str) -> list[str]:
    return sorted(m.text for m in store.active(scope, episodes=False))


# --- StoreBackend: /memories/ files on a MemoryStore ------------------------------------------


def test_store_backend_keeps_memories_files_in_the_memory_store(store: MemoryStore) -> None:
    files = memories_on(store, namespace=lambda _runtime: FILES)  # outside a graph: no runtime

    assert files.write("/memories/notes.md", "Lives in Pune.\nLikes tea.\n").error is None
    assert files.write("/memories/people/bob.md", "Bob is a friend.\n").error is None
    listed = files.ls("/memories/").entries or []
    assert [(e["path"], e["is_dir"]) for e in listed] == [
        ("/memories/notes.md", False),
        ("/memories/people/", True),
    ]
    read = files.read("/memories/notes.md")
    assert read.file_data is not None
    assert read.file_data["content"] == "Lives in Pune.\nLikes tea.\n"

    edited = files.edit("/memories/notes.md", "tea", "coffee")
    assert edited.error is None and edited.occurrences == 1
    grep = files.grep("coffee", path="/memories/")
    assert [(m["path"], m["line"], m["text"]) for m in grep.matches or []] == [
        ("/memories/notes.md", 2, "Likes coffee.")
    ]
    globbed = files.glob("**/*.md", path="/memories/")
    assert sorted(m["path"] for m in globbed.matches or []) == [
        "/memories/notes.md",
        "/memories/people/bob.md",
    ]

    # In the kit's store: an item per file, its path under the route the key.
    item = store.get(FILES, "/notes.md")
    assert item is not None and item.value["content"] == "Lives in Pune.\nLikes coffee.\n"
    assert store.list_namespaces() == [FILES]
    # The kit never overwrites: the edit closed the old text's version and opened a new one.
    versions = store.history(FILES, "/notes.md")
    assert [v.text for v in versions] == [
        "Lives in Pune.\nLikes tea.",
        "Lives in Pune.\nLikes coffee.",
    ]
    assert versions[0].valid_until is not None and versions[1].valid_until is None

    # A delete archives: the file is gone from the agent's listing, kept in history.
    assert files.delete("/memories/people/bob.md").error is None
    assert [e["path"] for e in files.ls("/memories/").entries or []] == ["/memories/notes.md"]
    assert store.get(FILES, "/people/bob.md") is None
    assert len(store.history(FILES, "/people/bob.md")) == 1


def test_store_backend_async_calls_and_a_reopened_store(
    tmp_path: Path, embedder: Embeddings
) -> None:
    """deepagents' tools call the backend's async face under ``ainvoke`` (the store's
    ``aget``/``aput``); what they wrote is on disk for the next process."""
    path = tmp_path / "memory"

    async def write_then_edit(files: CompositeBackend) -> str:
        await files.awrite("/memories/notes.md", "Lives in Delhi.\n")
        await files.aedit("/memories/notes.md", "Delhi", "Pune")
        read = await files.aread("/memories/notes.md")
        assert read.file_data is not None
        return str(read.file_data["content"])

    with MemoryStore(path, embeddings=embedder) as store:
        written = asyncio.run(write_then_edit(memories_on(store, lambda _runtime: FILES)))
        assert written == "Lives in Pune.\n"
    with MemoryStore(path, embeddings=embedder) as reopened:
        read = memories_on(reopened, lambda _runtime: FILES).read("/memories/notes.md")
        assert read.file_data is not None and read.file_data["content"] == "Lives in Pune.\n"


# --- create_deep_agent + the kit's MemoryMiddleware --------------------------------------------


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_deep_agent_remembers_across_threads(store: MemoryStore, run_async: bool) -> None:
    chat = ScriptedChatModel(
        script=[
            # Thread 1, "I live in Pune.": the model keeps a note in /memories/.
            call("write_file", {"file_path": "/memories/home.md", "content": "Pune"}, "w1"),
            AIMessage("Noted."),
            # Thread 2, "Where do I live?": the model reads the note back.
            call("read_file", {"file_path": "/memories/home.md"}, "r1"),
            AIMessage("You live in Pune."),
            # Thread 3, bob asks: the model looks for the same note.
            call("read_file", {"file_path": "/memories/home.md"}, "r2"),
            AIMessage("I don't know."),
        ]
    )
    agent = deepagents.create_deep_agent(
        model=chat,
        middleware=[MemoryMiddleware(writer=MemoryWriter(store, model=RulesModel()))],
        backend=memories_on(None),  # the agent's store: the MemoryStore below
        context_schema=Context,
        checkpointer=InMemorySaver(),
        store=store,
    )

    def turn(text: str, thread: str, user: str = "alice") -> list[BaseMessage]:
        state = {"messages": [("user", text)]}
        config: Any = {"configurable": {"thread_id": thread}}
        if run_async:
            out = asyncio.run(agent.ainvoke(state, config, context=Context(user)))
        else:
            out = agent.invoke(state, config, context=Context(user))
        messages: list[BaseMessage] = out["messages"]
        return messages

    first = turn("I live in Pune.", "thread-1")
    assert first[-1].content == "Noted."
    assert facts(store, "user:alice") == ["User lives in Pune."], "the kit wrote the turn"
    note = store.get(FILES, "/home.md")
    assert note is not None and note.value["content"] == "Pune", "the file is in the kit's store"

    second = turn("Where do I live?", "thread-2")
    assert [m.content for m in second if m.type == "human"] == ["Where do I live?"], "a new thread"
    prompt = system_of(chat.prompts[2])  # thread 2's first model call
    assert "What you remember about this user" in prompt and "User lives in Pune." in prompt
    tool_answer = next(m for m in second if isinstance(m, ToolMessage))
    assert "Pune" in str(tool_answer.content), "the file written in thread 1, read in thread 2"
    assert second[-1].content == "You live in Pune."

    third = turn("Where do I live?", "thread-3", user="bob")
    assert "Pune" not in system_of(chat.prompts[4]), "bob never sees alice's facts"
    bobs_read = next(m for m in third if isinstance(m, ToolMessage))
    assert "not found" in str(bobs_read.content), "nor her files: his namespace is his own"


# --- deepagents' own MemoryMiddleware (AGENTS.md) beside the kit's ----------------------------


def test_deepagents_agents_md_memory_and_the_kits_facts_in_one_prompt(store: MemoryStore) -> None:
    """``memory=`` loads ``AGENTS.md`` files into the prompt (deepagents' own
    ``MemoryMiddleware``); here the file is in the kit's store. ``create_deep_agent``
    merges the caller's middleware into its own by name, and the kit's middleware is
    named by its full path (``MemoryMiddleware.name``): beside deepagents' it replaces
    nothing, and both blocks reach the model."""
    StoreBackend(store=store, namespace=lambda _runtime: FILES).write(
        "/AGENTS.md", "Answer in one sentence."
    )
    store.add("user:alice", "User lives in Pune.")
    kit_memory = MemoryMiddleware(writer=MemoryWriter(store, model=RulesModel()))
    assert kit_memory.name != deepagents.MemoryMiddleware.__name__
    chat = ScriptedChatModel(default="Noted.")
    agent = deepagents.create_deep_agent(
        model=chat,
        memory=["/memories/AGENTS.md"],
        middleware=[kit_memory],
        backend=memories_on(None),
        context_schema=Context,
        store=store,
    )
    agent.invoke({"messages": [("user", "Where do I live?")]}, context=Context("alice"))
    shown = system_of(chat.prompts[-1])
    assert "<agent_memory>" in shown and "Answer in one sentence." in shown, "deepagents' memory"
    assert "User lives in Pune." in shown, "the kit's memory"
