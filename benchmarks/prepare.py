"""Make a QA run's inputs from a benchmark file: its questions, and a store holding the
conversations they ask about.

``benchmarks.qa --data DIR --dataset NAME`` calls :func:`prepare`: it reads the dataset (LoCoMo,
the LongMemEval oracle, or the held-out LongMemEval S), makes one :class:`QAItem` per question,
keeps the first ``limit``, and replays into the store only the conversations (LoCoMo) or
haystacks (LongMemEval) those items ask about, in the chosen ingestion mode (``raw`` turns,
LoCoMo's ``observations``, or the full ``write_path`` with any model).

It is resumable: the scopes already replayed are listed in a manifest beside the results
(``ingested.json``), written after each scope, so a rerun after a crash or a larger
``--limit`` replays only what is missing; a scope that a crash left half-written (data in the
store, not in the manifest) is purged and replayed. A manifest made with another dataset or
mode is refused (a store must not mix them).

>>> sorted(DATASETS)
['locomo', 'longmemeval-oracle', 'longmemeval-s']
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.datasets import DATASETS, iter_longmemeval, load_locomo
from benchmarks.ingest import Mode, ingest_locomo, ingest_longmemeval
from benchmarks.items import QAItem, items_from_locomo, items_from_longmemeval
from langgraph_memory import MemoryStore, MemoryWriter

MANIFEST = "ingested.json"


class Manifest:
    """The scopes already replayed into a store, for one dataset and mode, kept in a file."""

    def __init__(self, path: Path, dataset: str, mode: str) -> None:
        self.path, self.dataset, self.mode = path, dataset, mode
        self.scopes: set[str] = set()
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            if (data.get("dataset"), data.get("mode")) != (dataset, mode):
                raise ValueError(
                    f"{path} lists a store of {data.get('dataset')} ingested as "
                    f"{data.get('mode')!r}, not {dataset} as {mode!r}: use another --out "
                    "(or --store) for this run"
                )
            self.scopes = set(data.get("scopes", []))

    def add(self, scope: str) -> None:
        """Record one replayed scope (written at once, so a crash loses at most one)."""
        self.scopes.add(scope)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = {"dataset": self.dataset, "mode": self.mode, "scopes": sorted(self.scopes)}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.path)


def prepare(
    data: Path,
    dataset: str,
    store: MemoryStore,
    manifest: Path,
    *,
    mode: Mode = "raw",
    writer: MemoryWriter | None = None,
    limit: int | None = None,
    log: Callable[[str], Any] = lambda _: None,
) -> list[QAItem]:
    """The dataset's first ``limit`` questions as items, their scopes replayed into ``store``.

    Raises FileNotFoundError naming the expected file when ``data`` lacks the dataset, and
    ValueError for an unknown dataset, LoCoMo-only modes on LongMemEval, or a manifest of
    another dataset or mode.
    """
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; known: {sorted(DATASETS)}")
    path = data / DATASETS[dataset]
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: --data must be the benchmark data folder")
    if mode == "observations" and dataset != "locomo":
        raise ValueError("mode 'observations' exists for LoCoMo only")
    if mode == "write_path" and writer is None:
        raise ValueError("mode 'write_path' needs a MemoryWriter")
    done = Manifest(manifest, dataset, mode)

    def replay(scope: str, ingest: Callable[[], object], what: str) -> None:
        if scope in done.scopes:
            return
        if store.active(scope) or store.decisions(scope):
            log(f"{scope} was left half-written: purging it before the replay")
            store.purge(scope)
        log(f"replaying {scope} ({what})")
        ingest()
        done.add(scope)

    if dataset == "locomo":
        convs = load_locomo(path)
        items = list(items_from_locomo(convs))[:limit]
        wanted = {i.scope for i in items}
        for conv in convs:
            scope = f"user:{conv.sample_id}"
            if scope in wanted:
                replay(scope, partial(ingest_locomo, store, conv, mode, writer=writer), mode)
        return items
    items = []
    for question in iter_longmemeval(path):
        if limit is not None and len(items) >= limit:
            break
        [item] = items_from_longmemeval([question])
        items.append(item)
        what = f"{mode}, {len(question.sessions)} sessions"
        ingest = partial(ingest_longmemeval, store, question, mode, writer=writer)
        replay(item.scope, ingest, what)
    return items
