"""Extraction: from a turn to candidate facts, whatever the model said.

``facts_from_output`` turns a model's parsed answer into ``Fact`` objects:
texts are stripped and bounded, importance (1..10 from the model) is clamped
and stored as 0..1. Who stated a fact is checked, not taken from the model
(``provenance.speaker_of``): it is the role whose words in the turn the fact
was taken from, never more trusted than the speaker the model names, and a fact
none of whose words were said is dropped. Facts from speakers that were not
asked for are dropped too: by default only the user's own words become
memories (not what they quote or paste unseen); assistant, tool and document
content is opt-in and carries lower trust. ``extract`` runs the same check on
the facts of any ``MemoryModel``.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.write.rules import RulesModel
>>> when = datetime(2026, 3, 2, tzinfo=timezone.utc)
>>> turn = Turn.of([("user", "I'm allergic to peanuts.")], when=when)
>>> [f.text for f in extract(turn, model=RulesModel()).facts]
['User is allergic to peanuts.']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage

from langgraph_memory import telemetry
from langgraph_memory.records import Kind, Source, Trust
from langgraph_memory.tracing import Payload, clip, scope_metadata, traced
from langgraph_memory.write.prompts.extract import ExtractionOutput
from langgraph_memory.write.provenance import speaker_of
from langgraph_memory.write.types import (
    ROLE_OF_TYPE,
    SOURCE_OF_ROLE,
    TRUST_OF_ROLE,
    Extraction,
    Fact,
    MemoryModel,
    Role,
    Turn,
)

#: A fact is a sentence or two. Anything longer is not one fact: it is rejected
#: (and logged) rather than stored.
MAX_FACT_CHARS = 1_000
#: Speaker names a model may use, mapped to roles.
_ROLE_NAMES: dict[str, Role] = {**ROLE_OF_TYPE, "human": "user", "ai": "assistant"}
DEFAULT_IMPORTANCE = 5


def clamp_importance(value: Any) -> float:
    """A model's 1..10 importance, clamped, as 0..1; unreadable values count as 5.

    >>> clamp_importance(7), clamp_importance(42), clamp_importance("3"), clamp_importance(None)
    (0.7, 1.0, 0.3, 0.5)
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = DEFAULT_IMPORTANCE
    if math.isnan(number):
        number = DEFAULT_IMPORTANCE
    return min(10.0, max(1.0, number)) / 10.0


def _role_of(source: Source) -> Role | None:
    """The role a fact's source names (an explicit request is the user's), if any."""
    return "user" if source is Source.EXPLICIT else ROLE_OF_TYPE.get(source.value)


def checked_speaker(
    fact: Fact, turn: Turn, roles: Sequence[Role], claimed: Role | None
) -> Fact | str:
    """``fact`` with the source and trust of the role it was taken from in ``turn``
    (``provenance.speaker_of``, never more trusted than ``claimed``; an explicit
    request stays explicit when it is the user's), or why it is dropped.

    >>> from datetime import datetime, timezone
    >>> turn = Turn.of([("user", "Status?"), ("tool", "User's password is hunter2.")],
    ...                when=datetime(2026, 3, 2, tzinfo=timezone.utc))
    >>> checked_speaker(Fact("User's password is hunter2."), turn, ("user",), "user")
    "taken from the tool's words, not from the user's"
    >>> checked_speaker(Fact("User's password is hunter2."), turn, ("user", "tool"), None).trust
    <Trust.LOW: 'low'>
    """
    role = speaker_of(fact.text, turn, claimed)
    if role is None:
        return "none of its words were said in the turn"
    if role not in roles:
        return f"taken from the {role}'s words, not from the {' or '.join(roles)}'s"
    if role == _role_of(fact.source):
        return fact
    return replace(fact, source=SOURCE_OF_ROLE[role], trust=TRUST_OF_ROLE[role])


def _kind_of(said: Any) -> Kind:
    """The kind a model gives an item: a rule, or else a fact.

    >>> _kind_of("rule"), _kind_of(None), _kind_of("episodic")
    (<Kind.PROCEDURAL: 'procedural'>, <Kind.SEMANTIC: 'semantic'>, <Kind.SEMANTIC: 'semantic'>)
    """
    if str(said or "").strip().lower() in ("rule", "procedural"):
        return Kind.PROCEDURAL
    return Kind.SEMANTIC


def facts_from_output(
    output: ExtractionOutput | None, raw: str, *, turn: Turn, roles: Sequence[Role]
) -> Extraction:
    """Validate a parsed extraction answer into facts; ``None`` means unparseable.

    A speaker the model names is a claim to check (``checked_speaker``); one it
    omits is found from the turn, never assumed to be the user.
    """
    if output is None:
        return Extraction((), raw, error="the model's answer is not the JSON asked for")
    facts: list[Fact] = []
    rejected: list[tuple[str, str]] = []
    for item in output.facts:
        text = item.text.strip() if isinstance(item.text, str) else ""
        speaker = str(item.speaker or "").strip().lower()
        claimed = _ROLE_NAMES.get(speaker) if speaker else None
        if not text:
            rejected.append(("", "empty fact"))
        elif len(text) > MAX_FACT_CHARS:
            rejected.append((text[:200], f"fact of {len(text):,} characters: not one fact"))
        elif speaker and claimed is None:
            rejected.append((text, f"stated by {speaker!r}, not by {', '.join(roles)}"))
        else:
            role = claimed or "user"  # replaced by the role the words come from, if another
            fact = Fact(
                text,
                importance=clamp_importance(item.importance),
                source=SOURCE_OF_ROLE[role],
                trust=TRUST_OF_ROLE[role],
                kind=_kind_of(item.kind),
            )
            found = checked_speaker(fact, turn, roles, claimed)
            if isinstance(found, str):
                rejected.append((text, found))
            else:
                facts.append(found)
    return Extraction(tuple(facts), raw, tuple(rejected))


def _extract_inputs(arguments: Mapping[str, Any]) -> Payload:
    """What a ``memory.extract`` run shows of a call: the turn's messages (a list or a
    Turn; never an iterator, which would be used up), its id and the roles asked for.

    >>> _extract_inputs({"turn": [("user", "I live in Pune.")], "roles": ["user"]})
    {'roles': ['user'], 'messages': [{'role': 'user', 'content': 'I live in Pune.'}]}
    """
    turn = arguments.get("turn")
    messages = getattr(turn, "messages", turn)
    out: Payload = {"roles": list(arguments.get("roles") or ())}
    if isinstance(messages, (list, tuple)):
        out["messages"] = [_message_summary(m) for m in messages]
    if getattr(turn, "id", None) is not None:
        out["turn_id"] = turn.id  # type: ignore[union-attr]
    return out


def _message_summary(message: Any) -> Payload:
    if isinstance(message, tuple) and len(message) == 2:
        return {"role": str(message[0]), "content": clip(str(message[1]))}
    if isinstance(message, Mapping):
        return {"role": str(message.get("role")), "content": clip(str(message.get("content")))}
    role = getattr(message, "role", None) or getattr(message, "type", None)
    return {"role": str(role), "content": clip(str(getattr(message, "content", message)))}


def _extract_metadata(arguments: Mapping[str, Any]) -> Payload:
    """A ``memory.extract`` run's metadata: the scope kind of the write in progress and
    the ``MemoryModel``'s name (``rules``, or ``chat:`` and the chat model's).

    >>> from langgraph_memory.write.rules import RulesModel
    >>> _extract_metadata({"scope": "user:alice", "model": RulesModel()})
    {'scope_kind': 'user', 'memory_model': 'rules'}
    """
    out = scope_metadata(arguments)
    name = getattr(arguments.get("model"), "name", None)
    if isinstance(name, str):
        out["memory_model"] = name
    return out


def _extract_attributes(extraction: Extraction) -> telemetry.Attributes:
    """A ``memory.extract`` span's counts: the facts found and those rejected.

    >>> _extract_attributes(Extraction(facts=(), rejected=(("x", "why"),)))
    {'gen_ai.memory.record.count': 0, 'langgraph_memory.rejected': 1}
    """
    return {telemetry.RECORD_COUNT: len(extraction.facts), REJECTED: len(extraction.rejected)}


REJECTED = "langgraph_memory.rejected"


@traced(  # a `memory.extract` run when LangSmith tracing is on
    "memory.extract",
    inputs=_extract_inputs,
    outputs=Extraction.trace_summary,
    metadata=_extract_metadata,
    otel=telemetry.StepSpec(  # and a span with OpenTelemetry: counts, texts if opted in
        result=_extract_attributes,
        content=lambda _, found: {telemetry.CONTENT: [telemetry.clip(f.text) for f in found.facts]},
    ),
)
def extract(
    turn: Turn | Iterable[BaseMessage | tuple[str, str] | dict[str, Any]],
    *,
    model: MemoryModel,
    today: datetime | None = None,
    roles: Sequence[Role] = ("user",),
) -> Extraction:
    """Candidate facts of one turn, with importance in 0..1.

    ``today`` (default: the turn's time) is the date relative dates resolve
    against. Facts repeated within the turn are kept once. Each fact's speaker is
    checked (``checked_speaker``): one taken from words of a role not asked for,
    or from no one's words, is rejected with the reason.
    """
    turn = Turn.of(turn, when=today)
    result = model.extract(turn, roles=tuple(roles))
    seen: set[str] = set()
    unique = []
    rejected = list(result.rejected)
    for fact in result.facts:
        key = " ".join(fact.text.lower().split()).rstrip(".")
        if key in seen:
            continue
        seen.add(key)
        found = checked_speaker(fact, turn, roles, _role_of(fact.source))
        if isinstance(found, str):
            rejected.append((fact.text, found))
        elif found.kind == Kind.PROCEDURAL and not is_users_own(found):
            rejected.append((fact.text, "a rule comes only from the user's own words"))
        else:
            unique.append(found)
    return Extraction(tuple(unique), result.raw, tuple(rejected), result.error)


def is_users_own(fact: Fact) -> bool:
    """Whether ``fact`` comes from the user's own words, with the user's trust: what a
    rule must come from (never a tool's output, a document or the assistant's text).

    >>> is_users_own(Fact("User wants PRs as drafts.", kind=Kind.PROCEDURAL))
    True
    >>> is_users_own(Fact("User wants PRs as drafts.", source=Source.TOOL, trust=Trust.LOW))
    False
    """
    return fact.source in (Source.USER, Source.EXPLICIT) and fact.trust is Trust.HIGH
