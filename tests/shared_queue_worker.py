"""A process of the shared-queue tests (tests/test_shared_queue.py).

``submit URL HOST PORT DB SCOPES READY``: on a store on the Chroma server with its
shared queue (and so its scope locks) in the Postgres at URL, submit two turns per scope
(comma-separated: "I live in Delhi.", then "I moved to Pune.", ids ``<scope>/0`` and
``<scope>/1``) to a ``BackgroundWriter``, whose write path pauses before and
after each turn (so that a kill finds claims in flight); write READY and keep writing
until killed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import chromadb
from chromadb.config import Settings
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import BackgroundWriter, MemoryStore, MemoryWriter
from langgraph_memory.write import RulesModel

SAID = ("I live in Delhi.", "I moved to Pune.")


class SlowWriter(MemoryWriter):
    """The write path, with a pause on each side of a turn."""

    def write_turn(self, *args: Any, **kwargs: Any) -> Any:
        time.sleep(0.15)
        done = super().write_turn(*args, **kwargs)
        time.sleep(0.15)  # written, not yet marked done in the queue
        return done


def main(argv: list[str]) -> None:
    _, url, host, port, database, scopes, ready = argv
    client = chromadb.HttpClient(
        host=host, port=int(port), database=database, settings=Settings(anonymized_telemetry=False)
    )
    store = MemoryStore(client=client, embeddings=DeterministicFakeEmbedding(size=8), queue=url)
    bg = BackgroundWriter(SlowWriter(store, RulesModel()), workers=2)
    for key in scopes.split(","):
        for i, said in enumerate(SAID):
            bg.submit(key, [("user", said)], turn_id=f"{key}/{i}")
    Path(ready).write_text("submitted")
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main(sys.argv[1:])
