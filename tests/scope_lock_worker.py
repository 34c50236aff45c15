"""A process of the cross-process scope-lock tests (tests/test_scope_locks.py).

``hold LOCK HOST PORT DB SCOPE READY``: take SCOPE's lock through a store on the Chroma
server, write READY, and hold it until killed.
``write LOCK HOST PORT DB SCOPES GO``: wait for the file GO, then write one turn stating
the same fact into each scope (comma-separated) through the write path; print the
count of turns written.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import chromadb
from chromadb.config import Settings
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import MemoryStore, MemoryWriter
from langgraph_memory.store import internals
from langgraph_memory.write import RulesModel


def open_store(lock: str, host: str, port: str, database: str) -> MemoryStore:
    client = chromadb.HttpClient(
        host=host, port=int(port), database=database, settings=Settings(anonymized_telemetry=False)
    )
    return MemoryStore(
        client=client,
        embeddings=DeterministicFakeEmbedding(size=8),
        lock=None if lock == "-" else lock,
    )


def main(argv: list[str]) -> None:
    mode, lock, host, port, database, scope, signal_file = argv
    store = open_store(lock, host, port, database)
    if mode == "hold":
        with internals(store).scope_lock(scope):
            Path(signal_file).write_text("held")
            while True:
                time.sleep(60)
    writer = MemoryWriter(store, RulesModel())
    while not Path(signal_file).exists():
        time.sleep(0.005)
    written = 0
    for key in scope.split(","):
        writer.write_turn(key, [("user", "I live in Delhi.")])
        written += 1
    store.close()
    print(written)


if __name__ == "__main__":
    main(sys.argv[1:])
