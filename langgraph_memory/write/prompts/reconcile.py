"""The reconciliation prompts (one fact, or a batch of facts) and their schemas.

The model sees existing memories as small integers ([0], [1] ...), never as
real ids: an id it was not shown can then never reach the store.

>>> ReconcileOutput.model_validate({"op": "UPDATE", "id": 0, "text": "User lives in Pune."}).id
0
"""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = [
    "BATCH_HUMAN",
    "BATCH_SYSTEM",
    "HUMAN",
    "SYSTEM",
    "BatchDecision",
    "BatchOutput",
    "ReconcileOutput",
]

_OPS = """Operations:
- ADD: the fact is new; nothing shown says it.
- UPDATE [i]: the fact changes or refines memory [i] (same subject, new value or more \
detail); give the merged text to store instead of [i].
- DELETE [i]: the fact says memory [i] is no longer true, and there is nothing new to store.
- NOOP: a shown memory already says it, or the fact is not worth keeping.
A fact about someone else never changes a fact about the user. A plan does not change \
the current state: keep it as its own memory."""

SYSTEM = (
    """You keep a user's long-term memory clean: no duplicates, nothing stale. Today is \
{today}. Compare the new fact with the existing memories and choose one operation.

"""
    + _OPS
    + """

Answer with JSON only: {{"op": "ADD|UPDATE|DELETE|NOOP", "id": <number of the memory, or \
null>, "text": "<text to store, for ADD and UPDATE>"}}."""
)

HUMAN = "Existing memories:\n{memories}\n\nNew fact: {fact}"

BATCH_SYSTEM = (
    """You keep a user's long-term memory clean: no duplicates, nothing stale. Today is \
{today}. For each new fact, in order, choose one operation against the existing memories. \
Facts are applied in order: if two facts say the same thing, ADD the first and NOOP the \
rest; a later fact may UPDATE a memory an earlier fact changed.

"""
    + _OPS
    + """

Answer with JSON only, one decision per fact in the order given: {{"decisions": [{{"fact": 1, \
"op": "ADD|UPDATE|DELETE|NOOP", "id": <number of the memory, or null>, "text": "..."}}]}}."""
)

BATCH_HUMAN = "Existing memories:\n{memories}\n\nNew facts:\n{facts}"


class ReconcileOutput(BaseModel):
    """One operation for one fact. Loose types (every field may be missing, an id may
    come as "3"): what the answer may do is decided by ``reconcile.validate``."""

    op: str | None = Field(default=None, description="ADD, UPDATE, DELETE or NOOP")
    id: int | float | str | None = Field(
        default=None, description="Number of the shown memory, or null"
    )
    text: str | None = Field(default=None, description="Text to store for ADD and UPDATE")


class BatchDecision(ReconcileOutput):
    """One operation for the fact numbered ``fact`` (1-based)."""

    fact: int | float | str | None = Field(default=None, description="Number of the fact, from 1")


class BatchOutput(BaseModel):
    """One decision per fact, in order."""

    decisions: list[BatchDecision] = Field(default_factory=list)
