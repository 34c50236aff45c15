"""What a memory is indexed under: its entry in a scope's lexical index.

A record's terms are those of its text and of the date of its event (else of its
creation) in the words a question uses, so that "what happened in May 2023?" finds
it; both go through the package's one tokeniser (``text.words.tokenize``), as a
query's words do, so they meet on the same terms.

>>> from datetime import datetime, timezone
>>> m = Memory(id="0a1b2c3d", text="Adopted a puppy.", scope="user:a",
...            created_at=datetime(2026, 1, 2, tzinfo=timezone.utc),
...            event_time=datetime(2023, 5, 8, tzinfo=timezone.utc))
>>> lexical_text(m)
'Adopted a puppy. 2023-05-08 8 May 2023'
"""

from __future__ import annotations

import json

import numpy as np

from langgraph_memory.records import Kind, Memory
from langgraph_memory.store.codec import version_metadata
from langgraph_memory.store.lexical.index import Entry
from langgraph_memory.store.version import Version
from langgraph_memory.text import date_words, tokenize

__all__ = ["entry_of", "lexical_text"]


def lexical_text(memory: Memory) -> str:
    """What a memory is indexed under: its text and the date of its event (else of
    its creation). A speaker or any other metadata is not part of it."""
    return f"{memory.text} {date_words(memory.event_time or memory.created_at)}"


def entry_of(version: Version) -> Entry:
    """The index entry of a stored version, with its record as Chroma holds it (its
    vector only when the version carries it)."""
    m = version.memory
    thread = m.metadata.get("thread_id")
    speaker = m.metadata.get("speaker")
    return Entry(
        m.id,
        " ".join(tokenize(lexical_text(m))),
        m.sources,
        m.kind == Kind.EPISODIC,
        thread=thread if isinstance(thread, str) else None,
        at=(m.event_time or m.created_at).timestamp(),
        pinned=m.pinned,
        speaker=speaker if isinstance(speaker, str) else None,
        vector=None
        if version.vector is None
        else np.asarray(version.vector, dtype=np.float32).tobytes(),
        document=m.text,
        meta=json.dumps(version_metadata(version)),
    )
