"""The write path through ChatOpenAI and real HTTP, against a scripted OpenAI-compatible
server on 127.0.0.1 (tests/openai_stub.py): the environment picks the model, prompts
and answers cross the wire in whatever shape ChatOpenAI asks for structured output
(``response_format`` json_schema or a forced tool call), and bad answers are logged,
never lose a memory."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_openai import ChatOpenAI
from openai_stub import OpenAIStub

from langgraph_memory import DecisionOp, MemoryStore, Status
from langgraph_memory.llm import resolve_chat_model
from langgraph_memory.records import Decision
from langgraph_memory.write import ChatMemoryModel, MemoryWriter

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
U = "user:alice"


@pytest.fixture
def store(tmp_path: Path, embedder: Embeddings) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "m", embeddings=embedder) as s:
        yield s


def facts(*texts: str, importance: int = 6) -> dict[str, Any]:
    return {"facts": [{"text": t, "importance": importance, "speaker": "user"} for t in texts]}


def texts(store: MemoryStore, scope: str = U) -> list[str]:
    return sorted(m.text for m in store.active(scope, episodes=False))


def said(body: dict[str, Any], role: str) -> str:
    """The text of the request's messages of ``role``."""
    return "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") == role)


def is_extraction(body: dict[str, Any]) -> bool:
    return "extract" in said(body, "system")


def asks_structured(body: dict[str, Any]) -> bool:
    """Whether the request asked for structured output (a schema or a forced tool)."""
    rf = body.get("response_format")
    return (isinstance(rf, dict) and rf.get("type") == "json_schema") or bool(body.get("tools"))


# -- the environment picks ChatOpenAI, and a change lands through real HTTP -------------------


def test_env_configured_chat_openai_writes_a_genuine_change(
    stub: OpenAIStub, store: MemoryStore
) -> None:
    stub.add(
        facts("User lives in Delhi."),  # an empty scope: added without a reconcile call
        facts("User moved to Pune."),
        {"op": "UPDATE", "id": 0, "text": "User lives in Pune."},
    )
    w = MemoryWriter(store)
    assert isinstance(w.model, ChatMemoryModel) and isinstance(w.model.chat, ChatOpenAI)
    assert w.model.name == "chat:stub-model"

    [add] = w.write_turn(U, [("user", "I live in Delhi.")], now=T0)
    [upd] = w.write_turn(U, [("user", "I moved to Pune.")], now=T0 + 30 * DAY)

    assert (add.op, upd.op, upd.status) == (DecisionOp.ADD, DecisionOp.UPDATE, Status.APPLIED)
    assert upd.target_id == add.result_id
    assert add.result_id is not None and upd.result_id is not None
    assert texts(store) == ["User lives in Pune."]
    before = [m for m in store.history(U, upd.result_id) if not m.active]
    assert [(m.text, m.valid_until) for m in before] == [("User lives in Delhi.", T0 + 30 * DAY)]

    assert len(stub.requests) == 3 and stub.remaining == 0 and stub.unanswered == 0
    assert [r["model"] for r in stub.requests] == ["stub-model"] * 3
    assert all(asks_structured(r) for r in stub.requests)
    assert [is_extraction(r) for r in stub.requests] == [True, True, False]
    assert "I live in Delhi." in said(stub.requests[0], "user")
    assert "2026-03-02 (Monday)" in said(stub.requests[0], "system")
    reconcile = said(stub.requests[2], "user")
    assert "[0] User lives in Delhi." in reconcile and "New fact: User moved to Pune." in reconcile
    wire = json.dumps(stub.requests[2])
    assert add.result_id not in wire
    assert not re.search(r"\b[0-9a-f]{8}\b", reconcile), "a real memory id reached the model"
    # the decision log keeps what the model said on the wire
    [logged] = [d for d in store.decisions(U, upd.result_id) if d.op is DecisionOp.UPDATE]
    assert "User lives in Pune." in (logged.raw or "")


def test_extraction_prompt_and_answer_shape_on_the_wire(
    stub: OpenAIStub, store: MemoryStore
) -> None:
    """ChatOpenAI's own structured-output request, as the server sees it."""
    stub.add(facts("User is vegan."), {"op": "ADD", "id": None, "text": "User is vegan."})
    MemoryWriter(store).write_turn(U, [("user", "I'm vegan.")], now=T0)
    first = stub.requests[0]
    rf = first.get("response_format")
    if isinstance(rf, dict):  # langchain-openai 1.x default: method="json_schema"
        assert rf["type"] == "json_schema" and rf["json_schema"]["name"] == "ExtractionOutput"
        assert "facts" in rf["json_schema"]["schema"]["properties"]
        assert not first.get("tools")
    else:  # function calling: a forced call of the schema's tool
        assert first["tool_choice"]["function"]["name"] == "ExtractionOutput"
    assert first.get("temperature") == 0 and not first.get("stream")
    assert texts(store) == ["User is vegan."]


# -- plain text instead of structured output ----------------------------------------------------


class FunctionCallingChatOpenAI(ChatOpenAI):
    """ChatOpenAI asking for structured output by a forced tool call, not json_schema."""

    def with_structured_output(self, schema: Any = None, **kwargs: Any) -> Any:
        kwargs["method"] = "function_calling"
        return super().with_structured_output(schema, **kwargs)


def prose(body: dict[str, Any]) -> str:
    """Answers in chatty prose around the JSON, never in the shape asked for."""
    if is_extraction(body):
        return (
            'Here you go:\n```json\n{"facts": [{"text": "User is vegan.", "importance": 7}]}\n```'
        )
    return 'I think {"op": "ADD", "id": null, "text": "User is vegan."} is right.'


def test_json_in_prose_is_still_parsed(stub: OpenAIStub, store: MemoryStore) -> None:
    stub.default = prose  # however many requests the write path makes
    decisions = MemoryWriter(store).write_turn(U, [("user", "I'm vegan.")], now=T0)
    assert [(d.op, d.status) for d in decisions] == [(DecisionOp.ADD, Status.APPLIED)]
    assert texts(store) == ["User is vegan."]


def test_json_in_prose_for_a_function_calling_model(stub: OpenAIStub, store: MemoryStore) -> None:
    """With tool calling, a text answer (no tool call) falls back to the JSON in the text."""
    stub.default = prose
    chat = FunctionCallingChatOpenAI(model="stub-model", api_key="test", max_retries=0)  # type: ignore[arg-type]
    decisions = MemoryWriter(store, model=chat).write_turn(U, [("user", "I'm vegan.")], now=T0)
    assert [(d.op, d.status) for d in decisions] == [(DecisionOp.ADD, Status.APPLIED)]
    assert texts(store) == ["User is vegan."]
    assert all(r.get("tools") and not r.get("response_format") for r in stub.requests)


# -- malformed answers: a failed decision in the log, no memory lost ------------------------------


@pytest.fixture
def delhi(store: MemoryStore) -> MemoryStore:
    store.add(U, "User lives in Delhi.", importance=0.7, now=T0)
    return store


def write_bad(stub: OpenAIStub, store: MemoryStore, *answers: Any) -> list[Decision]:
    stub.add(*answers)
    before = texts(store)
    decisions = MemoryWriter(store).write_turn(U, [("user", "I moved to Pune.")], now=T0 + DAY)
    assert decisions, "a bad answer is still a logged outcome"
    assert texts(store) == before, "a memory changed or was lost"
    assert len(store.decisions(U)) == len(decisions)
    assert stub.remaining == 0 and stub.unanswered == 0, "one request per scripted answer"
    return decisions


def test_truncated_extraction_json_is_a_failed_decision(
    stub: OpenAIStub, delhi: MemoryStore
) -> None:
    [d] = write_bad(stub, delhi, '{"facts": [{"text": "User lives in Pu')
    assert (d.op, d.status) == (DecisionOp.NOOP, Status.FAILED) and d.error


def test_extraction_of_the_wrong_shape_is_a_failed_decision(
    stub: OpenAIStub, delhi: MemoryStore
) -> None:
    [d] = write_bad(stub, delhi, {"facts": "User lives in Pune."})
    assert (d.op, d.status) == (DecisionOp.NOOP, Status.FAILED) and d.error


def test_reconcile_without_an_op_is_a_failed_decision(stub: OpenAIStub, delhi: MemoryStore) -> None:
    [d] = write_bad(stub, delhi, facts("User lives in Pune."), {"id": 0, "text": "Pune"})
    assert (d.op, d.status, d.fact) == (DecisionOp.NOOP, Status.FAILED, "User lives in Pune.")


def test_reconcile_answered_in_words_is_a_failed_decision(
    stub: OpenAIStub, delhi: MemoryStore
) -> None:
    [d] = write_bad(stub, delhi, facts("User lives in Pune."), "Sorry, I cannot decide that.")
    assert (d.op, d.status, d.fact) == (DecisionOp.NOOP, Status.FAILED, "User lives in Pune.")


def test_an_unknown_memory_number_cannot_touch_a_memory(
    stub: OpenAIStub, delhi: MemoryStore
) -> None:
    [d] = write_bad(stub, delhi, facts("User moved to Pune."), {"op": "DELETE", "id": 7})
    assert (d.op, d.status, d.error) == (DecisionOp.NOOP, Status.APPLIED, None)
    assert d.note == "DELETE of unshown id 7 -> NOOP"


# -- batched mode ----------------------------------------------------------------------------------


def test_batched_mode_costs_one_extraction_and_one_reconcile_request(
    stub: OpenAIStub, delhi: MemoryStore
) -> None:
    stub.add(
        facts("User lives in Pune.", "User is vegan."),
        {
            "decisions": [
                {"fact": 1, "op": "UPDATE", "id": 0, "text": "User lives in Pune."},
                {"fact": 2, "op": "ADD", "id": None, "text": "User is vegan."},
            ]
        },
    )
    w = MemoryWriter(delhi, reconcile="batched")
    decisions = w.write_turn(U, [("user", "I moved to Pune, and I'm vegan.")], now=T0 + DAY)
    assert [(d.op, d.status) for d in decisions] == [
        (DecisionOp.UPDATE, Status.APPLIED),
        (DecisionOp.ADD, Status.APPLIED),
    ]
    assert texts(delhi) == ["User is vegan.", "User lives in Pune."]
    assert len(stub.requests) == 2 and stub.unanswered == 0
    assert [is_extraction(r) for r in stub.requests] == [True, False]
    assert all(r["model"] == "stub-model" and asks_structured(r) for r in stub.requests)
    reconcile = said(stub.requests[1], "user")
    assert "[0] User lives in Delhi." in reconcile
    assert "(1) User lives in Pune." in reconcile and "(2) User is vegan." in reconcile
    rf = stub.requests[1].get("response_format")
    if isinstance(rf, dict):
        assert rf["json_schema"]["name"] == "BatchOutput"


# -- no endpoint configured ---------------------------------------------------------------------


def test_no_openai_environment_means_no_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert resolve_chat_model(None) is None


def test_a_base_url_alone_is_enough(stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    chat = resolve_chat_model(None)
    assert isinstance(chat, ChatOpenAI) and chat.model_name == "stub-model"
    stub.add("pong")
    assert chat.invoke("ping").content == "pong"
    assert stub.requests[0]["model"] == "stub-model"
