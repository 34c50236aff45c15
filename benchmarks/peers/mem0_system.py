"""mem0 OSS (``pip install mem0ai``) as a peer, in this process, offline.

mem0's requirements install beside ours without conflict (it needs no other chromadb), so it
runs here, taking turns with the other in-process systems. It is a benchmark-only dependency,
never one of the package's: when it is not installed the benchmark says so and leaves it out.

How it is set up, so that it runs offline and on the same vectors as every other system:

- ``MEM0_TELEMETRY=False`` (read when mem0 is imported: set here, before the import, and
  checked after it) and ``MEM0_DIR`` in the temp folder: no PostHog client, no notices (they
  ask PostHog for feature flags), nothing written under ``~/.mem0``;
- ``Memory.from_config`` with mem0's own Chroma backend (``vector_store.provider="chroma"``,
  a ``path`` of its own), its ``langchain`` embedder provider given the benchmark's
  ``Embeddings`` (the table of the model's vectors, or the live model), the history in a
  SQLite file beside it, and an LLM that raises if it is ever called: every memory is added
  with ``infer=False``, which stores the message as it is, so mem0 never needs a model;
- spaCy is not installed with ``mem0ai`` (it is the ``nlp`` extra): mem0 then keeps texts
  as they are for BM25 and extracts no entities, and downloads nothing. Its Chroma backend has
  no keyword search, so mem0's search is its semantic search (over-fetch, score, top k).

Each memory is one ``add([{"role": "user", "content": text}], user_id=..., metadata={"dia_id":
...}, infer=False)``; a question is ``search(question, filters={"user_id": ...}, top_k=10)``.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

MEM0_SPEC = "mem0ai"
# Read by mem0 when it is imported (mem0.memory.telemetry, mem0.memory.setup).
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", str(Path(tempfile.gettempdir()) / "lgm-peers-mem0-home"))


class NeverCalledChat(BaseChatModel):
    """mem0's required LLM: ``infer=False`` never calls it, and if it did the run would stop.

    >>> NeverCalledChat().invoke("hi")
    Traceback (most recent call last):
    ...
    AssertionError: mem0 called its LLM although every add is infer=False
    """

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise AssertionError("mem0 called its LLM although every add is infer=False")

    @property
    def _llm_type(self) -> str:
        return "never-called"


def mem0_version() -> str | None:
    """The installed mem0ai's version, or None when it is not installed."""
    try:
        return importlib.metadata.version(MEM0_SPEC)
    except importlib.metadata.PackageNotFoundError:
        return None


class Mem0Peer:
    """One mem0 ``Memory`` over its Chroma backend in ``root``, embedding with ``emb``."""

    def __init__(self, root: Path, emb: Embeddings) -> None:
        from mem0 import Memory
        from mem0.memory import telemetry

        if telemetry.MEM0_TELEMETRY:
            raise RuntimeError("mem0 was imported with telemetry on; set MEM0_TELEMETRY=False")
        # Its notices: a spaCy-missing warning per model, the keyword-search one; once each.
        logging.getLogger("mem0").setLevel(logging.ERROR)
        root.mkdir(parents=True, exist_ok=True)
        self.memory = Memory.from_config(
            {
                "vector_store": {
                    "provider": "chroma",
                    "config": {"collection_name": "bench", "path": str(root / "chroma")},
                },
                "embedder": {"provider": "langchain", "config": {"model": emb}},
                "llm": {"provider": "langchain", "config": {"model": NeverCalledChat()}},
                "history_db_path": str(root / "history.db"),
            }
        )

    def add(self, user_id: str, texts: Sequence[str], dia_ids: Sequence[str]) -> None:
        """Each text as one memory of ``user_id``, stored as it is (``infer=False``)."""
        for text, dia_id in zip(texts, dia_ids, strict=True):
            self.memory.add(
                [{"role": "user", "content": text}],
                user_id=user_id,
                metadata={"dia_id": dia_id},
                infer=False,
            )

    def search(self, user_id: str, query: str, k: int) -> Any:
        """mem0's search of ``user_id``'s memories, as a caller gets it (a dict)."""
        return self.memory.search(query, filters={"user_id": user_id}, top_k=k)

    def close(self) -> None:
        """Close the history database (mem0 has no close for the vector store)."""
        db = getattr(self.memory, "db", None)
        close = getattr(db, "close", None)
        if callable(close):
            close()


def dia_ids(found: Any) -> list[str]:
    """LoCoMo turn ids of a ``search`` result, in rank order.

    >>> dia_ids({"results": [{"memory": "x", "metadata": {"dia_id": "D1:2"}}, {"memory": "y"}]})
    ['D1:2', '']
    """
    return [str((r.get("metadata") or {}).get("dia_id", "")) for r in found["results"]]
