"""Recall and skip share of the extraction gate (``may_hold_fact``) on real conversations.

Run it on the benchmark data folder (nothing is downloaded)::

    python -m benchmarks.gate_recall --data ../shared/data
    python -m benchmarks.gate_recall --data ../shared/data --show-misses 20
    python -m benchmarks.gate_recall --data ../shared/data --held-out --out gate.json

Two numbers per corpus, over the user turns of each unique session counted once:

- **recall**: the share of evidence turns the gate passes. Evidence is a LongMemEval user
  turn marked ``has_answer: true``, or a LoCoMo turn whose ``dia_id`` a QA item cites (every
  LoCoMo speaker is a user). Target: >= 0.98, because a skipped fact is lost.
- **skip share**: the share of all user turns the gate skips, i.e. the calls it saves.

The gate was tuned on the LongMemEval oracle file and on LoCoMo only. LongMemEval S is the
held-out acceptance set: it is measured only with ``--held-out`` and must not drive rules.

>>> turns = [GateCase("I moved to Pune.", True), GateCase("thanks!", False), GateCase("ok", True)]
>>> r = measure("toy", turns)
>>> (r.evidence, r.recall, r.skip_share)
(2, 0.5, 0.6666666666666666)
"""

from __future__ import annotations

import argparse
import json
import lzma
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.datasets import DATASETS, missing_data
from langgraph_memory.write.steps import may_hold_fact

ORACLE = DATASETS["longmemeval-oracle"]
S_FILE = DATASETS["longmemeval-s"]
LOCOMO = DATASETS["locomo"]
#: LoCoMo evidence strings are sometimes malformed ("D8:6; D9:17", space-joined lists), so ids
#: are pulled out with a pattern rather than taken whole.
_DIA_ID = re.compile(r"D\d+:\d+")

Gate = Callable[[str], bool]


@dataclass(frozen=True)
class GateCase:
    """One user turn: its text and whether a benchmark question cites it as evidence."""

    text: str
    evidence: bool


@dataclass
class Result:
    """The gate's numbers on one corpus, and the evidence turns it skipped."""

    corpus: str
    user_turns: int
    evidence: int
    passed_evidence: int
    skipped: int
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        """Share of evidence turns passed (1.0 when there are none)."""
        return self.passed_evidence / self.evidence if self.evidence else 1.0

    @property
    def skip_share(self) -> float:
        """Share of all user turns skipped."""
        return self.skipped / self.user_turns if self.user_turns else 0.0


def measure(corpus: str, turns: Iterable[GateCase], gate: Gate = may_hold_fact) -> Result:
    """Run ``gate`` over ``turns`` and count recall of evidence turns and the skip share."""
    result = Result(corpus, 0, 0, 0, 0)
    for turn in turns:
        passed = gate(turn.text)
        result.user_turns += 1
        result.skipped += not passed
        if turn.evidence:
            result.evidence += 1
            result.passed_evidence += passed
            if not passed:
                result.misses.append(turn.text)
    return result


def _user_turns(sessions: Iterable[tuple[str, list[dict[str, Any]]]]) -> Iterator[GateCase]:
    """User turns of LongMemEval sessions, each session id counted once."""
    seen: set[str] = set()
    for session_id, session in sessions:
        if session_id in seen:
            continue
        seen.add(session_id)
        for t in session:
            if t["role"] == "user":
                yield GateCase(str(t["content"]), bool(t.get("has_answer", False)))


def longmemeval_oracle(path: Path) -> Iterator[GateCase]:
    """User turns of the oracle file (a list of questions with their sessions inline)."""
    with lzma.open(path, "rt", encoding="utf-8") as f:
        questions: list[dict[str, Any]] = json.load(f)
    yield from _user_turns(
        (sid, s)
        for q in questions
        for sid, s in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True)
    )


def longmemeval_s(path: Path) -> Iterator[GateCase]:
    """User turns of the S file (questions plus a table of deduplicated sessions)."""
    with lzma.open(path, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    sessions: dict[str, list[dict[str, Any]]] = data["sessions"]
    yield from _user_turns(
        (sid, sessions[sid]) for q in data["questions"] for sid in q["haystack_session_ids"]
    )


def locomo(path: Path) -> Iterator[GateCase]:
    """Every LoCoMo turn (both speakers are users); evidence = ids cited by any QA item."""
    with path.open(encoding="utf-8") as f:
        samples: list[dict[str, Any]] = json.load(f)
    for sample in samples:
        cited = {i for qa in sample["qa"] for e in qa["evidence"] for i in _DIA_ID.findall(e)}
        conv: dict[str, Any] = sample["conversation"]
        for key, session in conv.items():
            if re.fullmatch(r"session_\d+", key):
                for t in session:
                    yield GateCase(str(t["text"]), t["dia_id"] in cited)


def _table(results: list[Result]) -> str:
    lines = [
        "| corpus | user turns | evidence turns | recall | skipped | skip share |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.corpus} | {r.user_turns} | {r.evidence} | {r.recall:.4f} "
            f"| {r.skipped} | {r.skip_share:.4f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; prints a Markdown table, returns the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--data", type=Path, required=True, help="the shared benchmark data folder")
    p.add_argument("--show-misses", type=int, default=0, metavar="N", help="print N misses")
    p.add_argument("--held-out", action="store_true", help="also measure LongMemEval S")
    p.add_argument("--out", type=Path, help="write the numbers and misses as JSON here")
    args = p.parse_args(argv)

    loaders: list[tuple[str, str, Callable[[Path], Iterator[GateCase]]]] = [
        ("LongMemEval oracle", ORACLE, longmemeval_oracle),
        ("LoCoMo-10", LOCOMO, locomo),
    ]
    if args.held_out:
        loaders.append(("LongMemEval S (held out)", S_FILE, longmemeval_s))
    problem = missing_data(args.data, *(file for _, file, _ in loaders))
    if problem:
        print(problem, file=sys.stderr)
        return 2
    results = [measure(name, load(args.data / file)) for name, file, load in loaders]

    print(_table(results))
    for r in results:
        if args.show_misses and r.misses:
            print(f"\n### {r.corpus}: {len(r.misses)} skipped evidence turns\n")
            for text in r.misses[: args.show_misses]:
                print("-", " ".join(text.split())[:400])
    if args.out:
        report = [dict(asdict(r), recall=r.recall, skip_share=r.skip_share) for r in results]
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
