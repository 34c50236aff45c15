"""What maintenance costs per 1,000 memories: time and model calls of decay, consolidation
and the whole ``maintain`` pass, against one read of the scope in the same run.

Run it on the benchmark data folder (nothing is downloaded, no model is called)::

    python -m benchmarks maintenance --data ../shared/data --out docs/results/maintenance.json
    python -m benchmarks maintenance --data ../shared/data --sizes 200 --repeats 2 --fake-embedder

The memories are LoCoMo's observation facts (gpt-3.5 facts about the speakers, in
conversation order), ``--sizes`` of them in one scope, as one user's memory would be.
One in ``DUPLICATE_EVERY`` is stated again a day later in other case and punctuation
("caroline went to a support group"): what the offline rules merge; LoCoMo's own
restatements across sessions are what a chat model would find besides. Each memory is
made on a day spread over the year before ``NOW`` with an importance cycling through
``IMPORTANCES``, so decay has old, unimportant facts to archive.

Paths, each timed on a fresh copy of the store (copied untimed), taking turns repeat by
repeat (order reversed every other repeat), medians reported:

- ``read`` (the baseline): ``store.active(scope)``, the one read every pass pays;
- ``decay``: ``forget_stale``;
- ``consolidate_rules``: ``consolidate`` with the offline ``RulesModel`` (no model call);
- ``consolidate_chat``: ``consolidate`` with a zero-latency scripted chat model that
  answers as the rules would, through the prompt and structured output: its calls and
  prompt tokens are those of a real model (one call per cluster), its time is the code's;
- ``maintain_rules``: ``maintain`` (decay, consolidation, reflection when due) with the rules;
- ``maintain_again``: the same, timed on a store it has just maintained (untimed): what a
  nightly run costs once the backlog is done (nothing to change, no model call).

A merge costs about ten Chroma writes (the update's three, the touch, the archive's three,
two log entries), each some 20 ms on this machine: consolidation's time follows the merges,
not the memories; finding the clusters is one read and a matrix product.

The embedder is the real LocalMiniLM (its vectors decide the clusters) unless
``--fake-embedder`` (hashed vectors: only texts embedded alike cluster, so just the
restatements the embedder sees as equal, which for a hashed one are none).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import HashedUnitEmbeddings
from benchmarks.reports import machine, publish
from benchmarks.write_cost import load_locomo
from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.lifecycle import consolidate, forget_stale, maintain
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import RulesModel

SCOPE = "user:bench"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
#: One memory in this many is stated again, in other case and punctuation.
DUPLICATE_EVERY = 20
IMPORTANCES = (0.3, 0.5, 0.7, 0.9)
PATHS = (
    "read",
    "decay",
    "consolidate_rules",
    "consolidate_chat",
    "maintain_rules",
    "maintain_again",
)


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the report."""
    print(f"[maintenance] {message}", file=sys.stderr, flush=True)


def items(facts: Sequence[str]) -> list[dict[str, Any]]:
    """The memories of one scope: each fact on a day of the past year, an importance
    from ``IMPORTANCES``, and every ``DUPLICATE_EVERY``-th stated again a day later.

    >>> [(i["text"], i["importance"]) for i in items(["Ann is a nurse."])]
    [('Ann is a nurse.', 0.3), ('ann is a nurse', 0.3)]
    """
    out: list[dict[str, Any]] = []
    for i, text in enumerate(facts):
        made = NOW - timedelta(days=365 * (len(facts) - i) / len(facts))
        importance = IMPORTANCES[i % len(IMPORTANCES)]
        out.append({"text": text, "importance": importance, "now": made})
        if i % DUPLICATE_EVERY == 0:
            again = text.lower().rstrip(".")
            out.append({"text": again, "importance": importance, "now": made + timedelta(days=1)})
    return out


def answer_as_rules(messages: list[BaseMessage]) -> dict[str, Any]:
    """The scripted chat model's answer to the consolidation prompt: merge the shown
    memories whose words are the same, case and punctuation aside (what the rules merge
    of the restatements made here).

    >>> from langchain_core.messages import HumanMessage
    >>> shown = "Memories:\\n[0] Ann is a nurse. (since 2025-01-01)\\n[1] ann is a nurse (since x)"
    >>> answer_as_rules([HumanMessage(shown)])
    {'merges': [{'members': [0, 1], 'text': 'Ann is a nurse.'}]}
    """
    lines = str(messages[-1].content).split("\n")[1:]
    texts = [line.split("] ", 1)[1].rsplit(" (since ", 1)[0] for line in lines if "] " in line]
    groups: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        groups.setdefault(" ".join(re.findall(r"\w+", text.casefold())), []).append(i)
    merges = [
        {"members": g, "text": max((texts[i] for i in g), key=len)}
        for g in groups.values()
        if len(g) > 1
    ]
    return {"merges": merges}


def build(root: Path, emb: Embeddings, facts: Sequence[str]) -> Path:
    """A closed store holding the scope's memories; its directory."""
    path = root / f"template-{len(facts)}"
    made = items(facts)
    vectors = emb.embed_documents([i["text"] for i in made])
    with MemoryStore(path, embeddings=emb) as store:
        store.add_many(SCOPE, made, vectors=vectors)
    return path


def run_path(name: str, store: MemoryStore, counts: dict[str, Any]) -> None:
    """One call of the path ``name`` on ``store``; what it did goes into ``counts``."""
    if name == "read":
        counts["memories"] = len(store.active(SCOPE))
    elif name == "decay":
        counts["archived"] = len(forget_stale(store, SCOPE, now=NOW))
    elif name == "consolidate_rules":
        counts["merged"] = ops(consolidate(store, SCOPE, RulesModel(), now=NOW), "UPDATE")
    elif name == "consolidate_chat":
        chat = ScriptedChatModel(default=answer_as_rules)
        counts["merged"] = ops(consolidate(store, SCOPE, chat, now=NOW), "UPDATE")
        counts["model_calls"], counts["prompt_tokens"] = chat.calls, chat.prompt_tokens
    else:
        report = maintain(store, SCOPE, model=RulesModel(), now=NOW)
        counts.update(report.totals())


def prepare(name: str, store: MemoryStore) -> None:
    """Untimed work a path needs first: ``maintain_again`` runs on a maintained store."""
    if name == "maintain_again":
        maintain(store, SCOPE, model=RulesModel(), now=NOW)


def ops(decisions: Sequence[Any], op: str) -> int:
    """How many decisions have ``op``."""
    return sum(1 for d in decisions if d.op.value == op)


def bench_size(root: Path, emb: Embeddings, facts: Sequence[str], repeats: int) -> dict[str, Any]:
    """Every path ``repeats`` times on fresh copies of one store of ``facts``."""
    template = build(root, emb, facts)
    seconds: dict[str, list[float]] = {name: [] for name in PATHS}
    counts: dict[str, dict[str, Any]] = {name: {} for name in PATHS}
    for r in range(repeats):
        order = PATHS if r % 2 == 0 else tuple(reversed(PATHS))
        for name in order:
            copy = root / f"run-{name}-{r}"
            shutil.copytree(template, copy)
            with MemoryStore(copy, embeddings=emb) as store:
                prepare(name, store)
                start = time.perf_counter()
                run_path(name, store, counts[name])
                seconds[name].append(time.perf_counter() - start)
            shutil.rmtree(copy, ignore_errors=True)
        log(f"{len(facts)} facts: repeat {r + 1}/{repeats}")
    memories = counts["read"]["memories"]
    per_1k = 1000 / memories
    base = statistics.median(seconds["read"])
    paths = {}
    for name in PATHS:
        median = statistics.median(seconds[name])
        paths[name] = {
            "median_s": median,
            "median_s_per_1k": median * per_1k,
            "ratio_vs_read": median / base,
            **{k: v * per_1k if k in ("model_calls", "prompt_tokens") else v
               for k, v in counts[name].items()},
        }  # fmt: skip
    return {"memories": memories, "repeats": repeats, "paths": paths}


def render_markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown table per size."""
    out = ["## Maintenance per 1,000 memories", ""]
    for size in report["sizes"]:
        out += [
            f"{size['memories']} memories in one scope, {size['repeats']} repeats, "
            f"embedder {report['config']['embedder']}:",
            "",
            "| path | median s / 1k | ratio vs read | model calls / 1k | what it did |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        for name, p in size["paths"].items():
            did = ", ".join(
                f"{k} {v:g}"
                for k, v in p.items()
                if k not in ("median_s", "median_s_per_1k", "ratio_vs_read", "model_calls")
                and isinstance(v, (int, float))
                and v
            )
            calls = p.get("model_calls", 0)
            out.append(
                f"| {name} | {p['median_s_per_1k']:.3f} | {p['ratio_vs_read']:.1f} | "
                f"{calls:.1f} | {did or 'no change'} |"
            )
        out.append("")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Build the stores, time the paths, print the tables, write the JSON."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks maintenance",
        description="Time and model calls of decay, consolidation and maintain per 1k memories.",
    )
    p.add_argument("--data", type=Path, required=True, help="the benchmark data folder")
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000], help="facts per store")
    p.add_argument("--repeats", type=int, default=5, help="timed runs of each path")
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    args = p.parse_args(argv)
    missing = missing_data(args.data, DATASETS["locomo"])
    if missing:
        print(missing, file=sys.stderr)
        return 2
    began = time.perf_counter()
    emb: Embeddings = HashedUnitEmbeddings() if args.fake_embedder else LocalMiniLM()
    facts = [
        f for c in load_locomo(args.data / DATASETS["locomo"]) for t in c.turns for f in t.facts
    ]
    root = Path(tempfile.mkdtemp(prefix="lgm-maintenance-"))
    try:
        sizes = [bench_size(root, emb, facts[:n], args.repeats) for n in args.sizes]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report: dict[str, Any] = {
        "sizes": sizes,
        "config": {
            "facts_available": len(facts),
            "duplicate_every": DUPLICATE_EVERY,
            **machine("hashed-fake" if args.fake_embedder else LocalMiniLM.name),
        },
    }
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
