"""LangMem's memory tools on a MemoryStore, with LangMem's default namespace.

``create_manage_memory_tool`` and ``create_search_memory_tool`` with the namespace
``("memories", "{langgraph_user_id}")`` put ``{"content": ...}`` values and search
them by meaning through the BaseStore face. Here they run as LangGraph runs them:
in a ``ToolNode`` of a graph compiled with ``store=memory_store`` (the tools find
the store with ``get_store()`` and the user in the run's config), and once with
the ``store=`` argument outside any graph.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from langgraph_memory import MemoryStore, Scope

langmem = pytest.importorskip(
    "langmem", reason="langmem is in the dev extra: pip install -e '.[dev]'"
)

NAMESPACE = ("memories", "{langgraph_user_id}")


class Agent:
    """A graph whose one node runs LangMem's tools, called as a model would call them."""

    def __init__(self, store: MemoryStore) -> None:
        tools = [
            langmem.create_manage_memory_tool(namespace=NAMESPACE),
            langmem.create_search_memory_tool(namespace=NAMESPACE),
        ]
        builder = StateGraph(MessagesState)
        builder.add_node("tools", ToolNode(tools))
        builder.add_edge(START, "tools")
        self.graph = builder.compile(store=store)
        self.calls = 0

    def call(self, user: str, name: str, args: dict[str, Any], *, run_async: bool = False) -> str:
        self.calls += 1
        msg = AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{self.calls}"}])
        config: Any = {"configurable": {"langgraph_user_id": user}}
        state = {"messages": [msg]}
        if run_async:
            out = asyncio.run(self.graph.ainvoke(state, config))
        else:
            out = self.graph.invoke(state, config)
        reply = out["messages"][-1]
        assert reply.status != "error", reply.content
        return str(reply.content)

    def create(self, user: str, content: str, **kw: Any) -> str:
        reply = self.call(user, "manage_memory", {"content": content, "action": "create"}, **kw)
        found = re.fullmatch(r"created memory ([0-9a-f-]{36})", reply)
        assert found, reply
        return found.group(1)

    def search(self, user: str, query: str, **kw: Any) -> list[dict[str, Any]]:
        found = json.loads(self.call(user, "search_memory", {"query": query}, **kw))
        assert isinstance(found, list)
        return found


def test_langmem_tools_create_update_delete_search(store: MemoryStore) -> None:
    agent = Agent(store)
    jazz = agent.create("alice", "User likes jazz.")
    agent.create("alice", "User works as an airline pilot.")
    agent.create("bob", "User likes country music.")

    # LangMem puts {"content": ...} under ("memories", user): a namespace scope.
    alice = ("memories", "alice")
    item = store.get(alice, jazz)
    assert item is not None and item.value == {"content": "User likes jazz."}
    assert Scope.of(alice).key == "namespace:memories.alice"
    assert sorted(m.text for m in store.active(alice)) == [
        "User likes jazz.",
        "User works as an airline pilot.",
    ]

    # Search by meaning finds the content; each user sees only their own.
    found = agent.search("alice", "What music does the user enjoy?")
    assert found[0]["key"] == jazz and found[0]["value"] == {"content": "User likes jazz."}
    assert found[0]["namespace"] == ["memories", "alice"] and found[0]["score"] > found[1]["score"]
    assert [f["value"]["content"] for f in agent.search("bob", "music")] == [
        "User likes country music."
    ]

    # Update: a new version under the same key; the old one stays in history.
    args = {"content": "User likes blues.", "action": "update", "id": jazz}
    assert agent.call("alice", "manage_memory", args) == f"updated memory {jazz}"
    item = store.get(alice, jazz)
    assert item is not None and item.value == {"content": "User likes blues."}
    assert [m.text for m in store.history(alice, jazz)] == ["User likes jazz.", "User likes blues."]
    assert agent.search("alice", "music")[0]["value"]["content"] == "User likes blues."

    # Delete archives: gone from get and search, kept in history.
    args = {"action": "delete", "id": jazz}
    assert agent.call("alice", "manage_memory", args) == f"Deleted memory {jazz}"
    assert store.get(alice, jazz) is None
    assert jazz not in [f["key"] for f in agent.search("alice", "music")]
    assert [m.active for m in store.history(alice, jazz)] == [False, False]


def test_langmem_tools_async(store: MemoryStore) -> None:
    """The tools' async variants (aput, asearch, adelete) on the same store."""
    agent = Agent(store)
    key = agent.create("carol", "User is allergic to peanuts.", run_async=True)
    found = agent.search("carol", "food allergies", run_async=True)
    assert [f["key"] for f in found] == [key]
    agent.call("carol", "manage_memory", {"action": "delete", "id": key}, run_async=True)
    assert agent.search("carol", "food allergies", run_async=True) == []
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "carol")]


def test_langmem_tools_with_a_store_argument(store: MemoryStore) -> None:
    """Outside a graph, the tools take ``store=`` and the user from the config."""
    manage = langmem.create_manage_memory_tool(namespace=NAMESPACE, store=store)
    search = langmem.create_search_memory_tool(namespace=NAMESPACE, store=store)
    config: Any = {"configurable": {"langgraph_user_id": "dave"}}
    reply = manage.invoke({"content": "User prefers metric units."}, config)
    assert reply.startswith("created memory ")
    found = json.loads(search.invoke({"query": "measurement units"}, config))
    assert [f["value"]["content"] for f in found] == ["User prefers metric units."]
    assert store.list_namespaces() == [("memories", "dave")]
