"""The classifier of acts in the product: what the offline rules model does with it.

Two measurements of ``RulesModel`` as it ships, the classifier of acts its gate for
standing instructions (``langgraph_memory.write.rules.standing``):

1. The acts corpus's **test split** (``benchmarks/acts``), each sentence said by the user
   in a turn of its own: the acts the model's extraction amounts to
   (``acts_train.baseline_said``), per act, precision and recall. The model before the
   classifier was measured the same way once (``docs/results/acts.json``,
   ``test_per_act_rules_model``); ``--before`` reads that file for the table.
2. **Real chat**: the first ``--turns`` user turns of LongMemEval S (the held-out set:
   measured, never tuned to), each a turn of its own, counted as the issue counts:
   the new rules the model takes them for (false, but for the rare real one), and the
   changes and cancels it reads. A change or a cancel acts only on a rule held, so each
   is also decided against 50 held rules (``rules_cost.RULES``): how many of them it
   would rewrite (UPDATE) or retire (DELETE)::

    python -m benchmarks acts-product --data ../shared/data --before docs/results/acts.json \\
        --out docs/results/acts_product.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.acts_train import BASELINE_ACTS, CORPUS, baseline_said, load, per_act, targets
from benchmarks.datasets import DATASETS, missing_data
from benchmarks.real_text import load_corpus
from benchmarks.rules_cost import RULES
from langgraph_memory import Kind, Memory
from langgraph_memory.write import Turn
from langgraph_memory.write.rules import CHANGE_SLOT, DROP_SLOT, RulesModel, choose_batch, rule_slot

__all__ = ["main", "real_chat", "test_split"]

_WHEN = datetime(2026, 3, 2, tzinfo=timezone.utc)


def test_split(corpus: Path = CORPUS) -> dict[str, dict[str, float]]:
    """Per act, the model's precision and recall on the corpus's test split."""
    test = [r for r in load(corpus) if r["split"] == "test"]
    by_act = per_act(baseline_said(test), targets(test))
    return {a: by_act[a] for a in BASELINE_ACTS}


def _act_of(text: str) -> str:
    slot = rule_slot(text)
    if slot is None or (slot[0] not in (DROP_SLOT, CHANGE_SLOT) and not slot[1].startswith("!")):
        return "rule_set"
    return "rule_change" if slot[0] == CHANGE_SLOT else "rule_cancel"


def real_chat(data: Path, turns: int) -> dict[str, Any]:
    """What the model reads as rule acts in ``turns`` real user turns, and what those
    acts would do to 50 held rules."""
    stream = [t for t in load_corpus(data).turns if t.role == "user"][:turns]
    model = RulesModel()
    held = [
        Memory(id=f"r{i}", text=text, scope="user:bench", created_at=_WHEN, kind=Kind.PROCEDURAL)
        for i, text in enumerate(RULES)
    ]
    counts: Counter[str] = Counter()
    acted: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for turn in stream:
        facts = model.extract(Turn.of([("user", turn.text)], when=_WHEN)).facts
        for fact in facts:
            if fact.kind is not Kind.PROCEDURAL:
                continue
            act = _act_of(fact.text)
            counts[act] += 1
            examples.setdefault(act, [])
            if len(examples[act]) < 10:
                examples[act].append(fact.text)
            if act != "rule_set":
                [choice] = choose_batch([fact], held)
                acted[f"{act}:{choice.op}"] += 1
    return {
        "turns": len(stream),
        "rule_acts": dict(counts),
        "against_50_held_rules": dict(acted),
        "examples": examples,
    }


def render(report: dict[str, Any]) -> str:
    """The report as a short table."""
    before = report.get("before") or {}
    lines = ["act           before P / R    after P / R"]
    for act, m in report["test_split"].items():
        b = before.get(act)
        was = f"{b['precision']:.3f} / {b['recall']:.3f}" if b else "   -   "
        lines.append(f"{act:<13} {was:<15} {m['precision']:.3f} / {m['recall']:.3f}")
    chat = report.get("real_chat")
    if chat:
        lines.append(f"real chat, {chat['turns']} user turns: {chat['rule_acts']}")
        lines.append(f"  against 50 held rules: {chat['against_50_held_rules']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks acts-product``; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks acts-product", description=__doc__)
    p.add_argument("--data", type=Path, help="the datasets' folder (for real chat)")
    p.add_argument("--turns", type=int, default=50_000)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--before", type=Path, help="acts-train's report of the model before")
    p.add_argument("--out", type=Path, help="the report, as JSON")
    args = p.parse_args(argv)
    report: dict[str, Any] = {"test_split": test_split(args.corpus)}
    if args.before:
        report["before"] = json.loads(args.before.read_text("utf-8"))["test_per_act_rules_model"]
    if args.data:
        if problem := missing_data(args.data, DATASETS["longmemeval-s"]):
            print(problem, file=sys.stderr)
            return 2
        report["real_chat"] = real_chat(args.data, args.turns)
    print(render(report))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0
