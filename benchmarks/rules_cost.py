"""What loading a scope's rules adds to a read: the read node with 50 rules against the
same scope without them.

Two scopes hold the same 1,000 real chat turns (LongMemEval-S, ``benchmarks.real_text``,
with the shipped MiniLM's cached vectors); one also holds 50 rules, the way the write
path words them ("User wants the assistant to ..."). The read node (``memory_read_node``,
shipped defaults) answers the same real questions on both, block by block
(``store_latency.time_paths``), each block on a clock a day later. Reported: p50 of each,
their difference (the issue's budget: <= 1 ms), ``rules_of`` alone once kept, and its
first read after a write (a Chroma ``get`` by kind)::

    python -m benchmarks rules --data ../shared/data --out docs/results/rules_cost.json

Options: ``--turns 1000 --rules 50 --questions 100 --warmup 10 --cache DIR``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.embedders import forget_queries
from benchmarks.real_text import VectorCache, default_cache, load_corpus
from benchmarks.reports import machine, publish
from benchmarks.scale import Clock, add_turns
from benchmarks.store_latency import QueryPath, time_paths
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.graph import memory_read_node
from langgraph_memory.read import rules_of
from langgraph_memory.store import MemoryStore, internals

__all__ = ["RULES", "main", "render_markdown", "run"]

#: Actions a user asks for, as the write path words rules: crossed with the objects
#: below they give distinct, realistic rules.
_ACTIONS = (
    "always answer in metric units when {x} comes up",
    "never send reminders about {x} before 9am",
    "always open pull requests for {x} as drafts",
    "keep summaries of {x} under five bullet points",
    "stop adding emojis to messages about {x}",
    "always cite a source when discussing {x}",
    "ask before booking anything for {x}",
    "write dates about {x} as YYYY-MM-DD",
    "never share details of {x} with other people",
    "reply in British English about {x}",
)
_OBJECTS = ("work", "travel", "the garden", "the kids' school", "health")
#: The rules of the ruled scope, in the write path's words.
RULES = tuple(
    "User wants the assistant to " + action.format(x=obj) + "."
    for obj in _OBJECTS
    for action in _ACTIONS
)


def _p50(seconds: Sequence[float]) -> float:
    return statistics.median(seconds) * 1000.0


def run(
    data: Path, cache: Path, *, turns: int, rules: int, questions: int, warmup: int
) -> dict[str, Any]:
    """Build the two scopes and time both reads; the report without its total time."""
    if not 0 < rules <= len(RULES):
        raise ValueError(f"--rules must be 1..{len(RULES)}")
    corpus = load_corpus(data)
    embeddings = LocalMiniLM()
    stream = corpus.turns[:turns]
    vectors = VectorCache(cache, embeddings, embedder_name(embeddings)).vectors(
        [t.text for t in stream]
    )
    asked = list(corpus.questions[: warmup + questions])
    with (
        tempfile.TemporaryDirectory(prefix="lgm-rules-") as root,
        MemoryStore(Path(root) / "store", embeddings=embeddings) as store,
    ):
        for scope in ("user:plain", "user:ruled"):
            add_turns(store, scope, stream, vectors)
        store.add_many("user:ruled", [{"text": t, "kind": "procedural"} for t in RULES[:rules]])
        clock = Clock(
            datetime.fromtimestamp(max(t.at for t in stream), timezone.utc) + timedelta(1)
        )
        node = memory_read_node(store)

        def read(user: str) -> QueryPath:
            def call(i: int) -> Any:
                config = {"configurable": {"user_id": user, "memory_now": clock.now}}
                return node({"messages": [HumanMessage(asked[i])]}, config)

            return QueryPath(call, lambda _: [])

        def settle() -> None:
            internals(store).flush_access()
            forget_queries(store.embeddings)
            clock.tick()

        timed = time_paths(
            {"without rules": read("plain"), f"with {rules} rules": read("ruled")},
            warmup,
            questions,
            settle=settle,
        )
        kept = []
        for _ in range(200):
            started = time.perf_counter()
            rules_of(store, "user:ruled")
            kept.append(time.perf_counter() - started)
        first = []
        for i in range(20):  # a write makes the next read read them again
            store.add("user:plain", f"User mentioned errand {i} today.")
            store.add("user:ruled", f"User mentioned errand {i} today.")
            started = time.perf_counter()
            rules_of(store, "user:ruled")
            first.append(time.perf_counter() - started)
        shown = node({"messages": [HumanMessage(asked[0])]}, {"configurable": {"user_id": "ruled"}})
    p50 = {name: _p50(t.seconds) for name, t in timed.items()}
    base, ruled = p50["without rules"], p50[f"with {rules} rules"]
    return {
        "config": {"turns": turns, "rules": rules, "questions": questions, "warmup": warmup},
        "environment": machine(embedder_name(embeddings)),
        "p50_ms": p50,
        "added_ms": ruled - base,
        "rules_of_kept_p50_ms": _p50(kept),
        "rules_of_after_a_write_p50_ms": _p50(first),
        "rendered_rule_lines": sum(
            1 for line in shown["memories"].split("\n") if "User wants" in line
        ),
        "target_ms": 1.0,
        "passed": ruled - base <= 1.0,
    }


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as a short Markdown table and the verdict."""
    cfg = report["config"]
    lines = [
        f"# Loading {cfg['rules']} rules in a read ({cfg['turns']:,} real turns, "
        f"{cfg['questions']} real questions, read node as shipped)",
        "",
        "| read node | p50 ms |",
        "|---|---:|",
        *(f"| {name} | {value:.2f} |" for name, value in report["p50_ms"].items()),
        "",
        f"Added by the rules: **{report['added_ms']:.2f} ms** p50 (budget <= "
        f"{report['target_ms']:.0f} ms: {'PASS' if report['passed'] else 'FAIL'}); "
        f"`rules_of` once kept {report['rules_of_kept_p50_ms']:.3f} ms, after a write "
        f"{report['rules_of_after_a_write_p50_ms']:.2f} ms; "
        f"{report['rendered_rule_lines']} rule lines rendered within the section's budget.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 2 when the data is missing."""
    p = argparse.ArgumentParser(prog="python -m benchmarks rules", description=__doc__)
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--cache", type=Path, default=default_cache())
    p.add_argument("--turns", type=int, default=1000)
    p.add_argument("--rules", type=int, default=50)
    p.add_argument("--questions", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    problem = missing_data(args.data, DATASETS["longmemeval-s"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    report = run(
        args.data, args.cache, turns=args.turns, rules=args.rules,
        questions=args.questions, warmup=args.warmup,
    )  # fmt: skip
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
