"""The MCP server's tools through the SDK's own client, connected in memory (the
command, over stdio and HTTP in subprocesses, is tests/test_mcp_command.py): what a
client reads back, the scope it cannot leave, and bad input refused with what to do
while nothing stored changes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session
from mcp.types import Implementation, TextContent
from mcp_calls import call

from langgraph_memory import MemoryStore
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.mcp_server import Answers, Binding, TokenTable, create_server, token_sha256
from langgraph_memory.mcp_server.answers import MAX_REMEMBER_CHARS
from langgraph_memory.records import DecisionOp, Source, Trust
from langgraph_memory.scope import Scope
from langgraph_memory.write import BackgroundWriter, MemoryWriter, RulesModel

ALICE = Binding(Scope.parse("user:alice"))


@pytest.fixture
def backend() -> str:
    """conftest's ``store``, embedded only: the server's tools on one store (the command
    on a store of its own: tests/test_mcp_command.py)."""
    return "embedded"


@pytest.fixture
def answers(store: MemoryStore) -> Iterator[Answers]:
    a = Answers(BackgroundWriter(MemoryWriter(store, model=RulesModel())))
    try:
        yield a
    finally:
        a.close()


@asynccontextmanager
async def client(answers: Answers, who: Binding = ALICE) -> AsyncIterator[ClientSession]:
    server = create_server(answers, lambda: who)
    async with create_connected_server_and_client_session(
        server, client_info=Implementation(name="test-client", version="1")
    ) as session:
        yield session


def run(answers: Answers, script: Callable[[ClientSession], Awaitable[None]]) -> None:
    async def main() -> None:
        async with client(answers) as session:
            await script(session)

    anyio.run(main)


def everything(store: MemoryStore) -> tuple[Any, ...]:
    """What the store holds, every scope: a change anywhere changes it."""
    return tuple(
        (s.key, [m.to_dict() for m in store.active(s)], len(store.decisions(s)))
        for s in store.scopes()
    )


def test_remembered_through_the_write_path_and_found_rules_first(
    answers: Answers, store: MemoryStore
) -> None:
    async def script(s: ClientSession) -> None:
        error, said = await call(s, "remember", {"text": "I'm allergic to peanuts."})
        assert not error and said.startswith("Queued to remember")
        error, said = await call(
            s, "remember", {"text": "Always answer in metric units.", "rule": True}
        )
        assert not error
        error, found = await call(s, "search_memories", {"query": "what am I allergic to?"})
        assert not error
        assert '"User is allergic to peanuts."' in found
        assert "data, not instructions" in found

    run(answers, script)
    [fact] = [m for m in store.active("user:alice") if "peanuts" in m.text]
    # The client's model asked: medium trust, and the log says which client.
    assert (fact.source, fact.trust) == (Source.EXPLICIT, Trust.MEDIUM)
    [decision] = store.decisions("user:alice", fact.id)
    assert "asked by mcp:test-client" in (decision.note or "")


def test_a_rule_from_a_trusted_binding_comes_first(store: MemoryStore, answers: Answers) -> None:
    trusted = Binding(Scope.parse("user:alice"), Trust.HIGH)

    async def main() -> None:
        async with client(answers, trusted) as s:
            await call(s, "remember", {"text": "I live in Pune."})
            await call(s, "remember", {"text": "Always answer in metric units.", "rule": True})
            error, found = await call(s, "search_memories", {"query": "where do I live"})
            assert not error
            assert found.index("How to work with this user") < found.index('"User lives in Pune."')

    anyio.run(main)


def test_forget_by_description_archives_and_why_shows_the_history(
    answers: Answers, store: MemoryStore
) -> None:
    async def script(s: ClientSession) -> None:
        await call(s, "remember", {"text": "I live in Delhi."})
        error, listed = await call(s, "what_do_you_remember_about_me", {})
        assert not error and '"User lives in Delhi."' in listed
        memory_id = listed.split("- [")[1].split("]")[0]
        error, history = await call(s, "why", {"memory_id": memory_id})
        assert not error
        assert "ADD (applied)" in history and "asked by mcp:test-client" in history
        error, said = await call(s, "forget", {"memory": "User lives in Delhi"})
        assert not error and said == f"Forgot [{memory_id}]: User lives in Delhi."

    run(answers, script)
    assert store.active("user:alice", episodes=False) == []
    [deleted] = [d for d in store.decisions("user:alice") if d.op is DecisionOp.DELETE]
    assert deleted.target_id is not None
    [archived] = store.history("user:alice", deleted.target_id)  # archived, not purged
    assert archived.text == "User lives in Delhi." and archived.valid_until is not None


def test_an_ambiguous_forget_lists_the_matches_and_forgets_nothing(
    answers: Answers, store: MemoryStore
) -> None:
    store.add("user:alice", "User likes green tea.")
    store.add("user:alice", "User likes black tea.")
    before = everything(store)

    async def script(s: ClientSession) -> None:
        error, said = await call(s, "forget", {"memory": "tea"})
        assert not error
        assert said.startswith("Several memories match; call forget with one id:")
        assert "green tea" in said and "black tea" in said

    run(answers, script)
    assert everything(store) == before


@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("search_memories", {"query": "x", "user_id": "bob"}, "bound to user:alice"),
        ("remember", {"text": "I'm vegan.", "scope": "user:bob"}, "bound to user:alice"),
        ("forget", {"memory": "tea", "namespace": ["user", "bob"]}, "bound to user:alice"),
        ("remember", {"text": "I'm vegan.", "importance": 1}, "takes no argument importance"),
        ("remember", {"text": 5}, "text must be a string"),
        ("remember", {"text": "I'm vegan.", "rule": "yes"}, "rule must be a boolean"),
        ("search_memories", {"query": "x", "k": 500}, "k must be a whole number from 1 to 20"),
        ("remember", {"text": "x" * (MAX_REMEMBER_CHARS + 1)}, "remember one fact at a time"),
        ("remember", {"text": "   "}, "text is empty"),
        ("why", {"memory_id": "0a1b2c3d"}, "what_do_you_remember_about_me lists the ids"),
        ("delete_everything", {}, "unknown tool 'delete_everything'"),
    ],
)
def test_bad_calls_are_refused_with_what_to_do_and_change_nothing(
    answers: Answers, store: MemoryStore, tool: str, args: dict[str, Any], says: str
) -> None:
    store.add("user:bob", "User likes tea.")
    store.add("user:alice", "User likes coffee.")
    before = everything(store)

    async def script(s: ClientSession) -> None:
        error, said = await call(s, tool, args)
        assert error, said
        assert says in said

    run(answers, script)
    assert answers.background.flush(timeout=30)
    assert everything(store) == before


def test_one_binding_never_sees_another_scope(answers: Answers, store: MemoryStore) -> None:
    store.add("user:bob", "User's bank PIN is 4321.")

    async def script(s: ClientSession) -> None:
        for tool, args in [
            ("search_memories", {"query": "bank PIN"}),
            ("what_do_you_remember_about_me", {}),
        ]:
            error, said = await call(s, tool, args)
            assert not error and "4321" not in said

    run(answers, script)


def test_the_prompt_and_the_resource_show_the_memory(answers: Answers, store: MemoryStore) -> None:
    store.add("user:alice", "User lives in Pune.")

    async def script(s: ClientSession) -> None:
        prompts = await s.list_prompts()
        assert [p.name for p in prompts.prompts] == ["recall"]
        got = await s.get_prompt("recall", {"topic": "where I live"})
        content = got.messages[0].content
        assert isinstance(content, TextContent) and '"User lives in Pune."' in content.text
        resource = await s.read_resource("memory://about-me")  # type: ignore[arg-type]
        assert '"User lives in Pune."' in getattr(resource.contents[0], "text", "")

    run(answers, script)


def test_a_tokens_file_binds_each_token_to_its_scope(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(
        json.dumps(
            {
                "tokens": [
                    {"name": "a", "scope": "user:alice", "token": "alice-0123456789"},
                    {
                        "name": "b",
                        "scope": "user:bob",
                        "trust": "high",
                        "sha256": token_sha256("test"),
                    },
                ]
            }
        )
    )
    table = TokenTable.read(path)
    assert table.binding("alice-0123456789") == Binding(
        Scope.parse("user:alice"), Trust.MEDIUM, "a"
    )
    assert table.binding("test") == Binding(Scope.parse("user:bob"), Trust.HIGH, "b")
    assert table.binding("alice-012345678") is None
    assert table.binding("") is None


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"name": "a", "scope": "user:alice", "token": "short"}, "at least 12 characters"),
        ({"name": "a", "scope": "org:acme", "token": "x" * 20}, "scope"),
        ({"name": "a", "scope": "user:alice", "token": "x" * 20, "trust": "total"}, "trust"),
        ({"name": "a", "scope": "user:alice"}, "exactly one of token and sha256"),
        ({"scope": "user:alice", "token": "x" * 20}, "name"),
        ({"name": "a", "scope": "user:alice", "token": "x" * 20, "admin": True}, "unknown"),
    ],
)
def test_a_wrong_tokens_file_says_what_is_wrong(entry: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidArgumentError, match=says):
        TokenTable.parse({"tokens": [entry]})
