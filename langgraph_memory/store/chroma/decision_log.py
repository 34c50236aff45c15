"""A scope's decision log in its Chroma collection: ids that keep logging
order, appending decisions in batches, reading them back oldest first.

>>> log_id() < log_id()
True
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from langgraph_memory.records import Decision, now_utc
from langgraph_memory.store.chroma import layout
from langgraph_memory.store.chroma.codec import (
    decision_document,
    decision_from_document,
    decision_metadata,
)
from langgraph_memory.store.chroma.collection_io import chunks
from langgraph_memory.store.chroma.door import VectorCollection

__all__ = ["append", "log_id", "read"]


def log_id() -> str:
    """A decision id that sorts in logging order (clock first, then randomness):
    decisions of one turn share its time, and their order must survive."""
    return f"{time.time_ns():016x}{uuid.uuid4().hex[:8]}"


def append(log: VectorCollection, decisions: Sequence[Decision], batch_size: int) -> None:
    """Write decisions that already carry their ids and times."""
    for chunk in chunks(decisions, batch_size):
        log.add(
            [d.id for d in chunk if d.id],
            # A vector goes with every document: without one Chroma would embed the
            # document with its own default model, which downloads.
            layout.dummy_vectors(len(chunk)),
            [decision_document(d) for d in chunk],
            [decision_metadata(d) for d in chunk],
        )


def read(log: VectorCollection, where: dict[str, Any] | None = None) -> list[Decision]:
    """The logged decisions matching ``where`` (all without), oldest first."""
    found = log.read(where=where, include=["documents"])
    logged = [decision_from_document(doc) for doc in found["documents"] or [] if doc is not None]
    return sorted(logged, key=lambda d: (d.created_at or now_utc(), d.id or ""))
