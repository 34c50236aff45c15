"""Model calls and prompt tokens per turn of the write path, per-fact vs batched, on LoCoMo.

Run it on the benchmark data folder (nothing is downloaded, no model is called)::

    python -m benchmarks.write_cost --data ../shared/data
    python -m benchmarks.write_cost --data ../shared/data --convs 2 --out cost.json

Every LoCoMo turn is replayed in order through ``MemoryWriter`` into a fresh embedded
``MemoryStore``, once per mode, as ``[("user", text)]`` in the scope
``user:<sample_id>-<speaker>`` (each speaker's memory is their own), at the session's date
plus one second per turn. The chat model is a counting fake (``ScriptedChatModel``) that
answers from the prompt:

- extraction returns LoCoMo's own ``observation`` facts for the turn (gpt-3.5 facts, cited by
  ``dia_id``), so the number of facts per turn is realistic; a turn without observations
  yields ``{"facts": []}``, which is realistic too;
- reconciliation returns ADD for every fact it is asked about (per fact, or all of a batch).

So the counts are those of the real write path on real turns; only the answers are canned.
Prompt tokens are counted with the bundled WordPiece tokenizer (``testing.count_tokens``) over
the messages' text; the tool schema that structured output sends along is not in that count
and is reported apart (``schema_tokens``).

Target (issue): <= 2 model calls per turn on average, 0 for turns the gate skips. A turn with
k facts costs 1 + k calls per fact; batched, 2 (1 when k == 0; a single fact is reconciled by
the per-fact prompt, so also 2). The gate's recall on the LongMemEval oracle file is measured
by ``gate_recall`` and included when that file is present.

>>> expected_calls("per_fact", skipped=False, facts=3), expected_calls("batched", False, 3)
(4, 2)
>>> expected_calls("batched", skipped=True, facts=0)
0
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from benchmarks import datasets, gate_recall
from benchmarks.datasets import DATASETS, missing_data
from langgraph_memory.embeddings import default_embeddings
from langgraph_memory.store import MemoryStore
from langgraph_memory.testing import ScriptedChatModel, count_tokens
from langgraph_memory.write import MemoryWriter
from langgraph_memory.write.prompts.extract import HUMAN as EXTRACT_HUMAN
from langgraph_memory.write.prompts.extract import ExtractionOutput
from langgraph_memory.write.prompts.reconcile import BATCH_HUMAN, BatchOutput, ReconcileOutput
from langgraph_memory.write.prompts.reconcile import HUMAN as RECONCILE_HUMAN
from langgraph_memory.write.steps import may_hold_fact

#: ``MemoryWriter(reconcile=...)``'s values: one model call per fact, or one per turn (mypy
#: checks at the call below that the writer still takes them).
Reconcile = Literal["per_fact", "batched"]
LOCOMO = DATASETS["locomo"]
ORACLE = DATASETS["longmemeval-oracle"]
MODES: tuple[Reconcile, ...] = ("per_fact", "batched")
#: LoCoMo's session dates, e.g. "1:56 pm on 8 May, 2023".
#: Observation citations are sometimes malformed ("D26:14, D26:34" as one string), so ids are
#: pulled out with a pattern rather than taken whole.
_DIA_ID = re.compile(r"D\d+:\d+")
_BATCH_LINE = re.compile(r"^\((\d+)\) (.*)$", re.MULTILINE)
# Markers of the three prompts, from their human-message templates, so that a change of the
# prompts breaks this benchmark loudly instead of silently answering the wrong question.
_EXTRACT_START = EXTRACT_HUMAN.split("(")[0]  # "Conversation turn "
_FACT_MARK = "\n\nNew fact: "
_FACTS_MARK = "\n\nNew facts:\n"
assert _FACT_MARK.strip() in RECONCILE_HUMAN and _FACTS_MARK.strip() in BATCH_HUMAN


@dataclass(frozen=True)
class LocomoTurn:
    """One LoCoMo turn with the observation facts that cite it."""

    sample_id: str
    speaker: str
    dia_id: str
    text: str
    when: datetime
    facts: tuple[str, ...] = ()

    @property
    def scope(self) -> str:
        """The speaker's own user scope."""
        return f"user:{self.sample_id}-{self.speaker}"


@dataclass(frozen=True)
class Conversation:
    """A LoCoMo sample's turns in order, and observation facts that cite no turn."""

    sample_id: str
    turns: tuple[LocomoTurn, ...]
    orphan_facts: int = 0


def conversation(sample: dict[str, Any]) -> Conversation:
    """The turns of one LoCoMo sample, sessions in number order, each with its facts.

    Parsing is ``benchmarks.datasets``'; this only attaches the facts. A fact citing
    several turns is attached to the first one only: that is where an extractor
    would first see it (later mentions would reconcile to NOOP anyway).
    """
    parsed = datasets.locomo_conversation({**sample, "qa": []})  # turns only: no questions
    facts: dict[str, list[str]] = {}
    for obs in parsed.observations:
        # Citations come as lists or comma-joined strings ("D26:14, D26:34").
        ids = _DIA_ID.findall(" ".join(obs.dia_ids))
        if ids:
            facts.setdefault(ids[0], []).append(obs.text)
    turns = [
        LocomoTurn(
            sample_id=parsed.sample_id,
            speaker=t.speaker,
            dia_id=t.dia_id,
            text=t.text,
            # One second per turn keeps the turns of a session in order.
            when=session.date + timedelta(seconds=i),
            facts=tuple(facts.get(t.dia_id, ())),
        )
        for session in parsed.sessions
        for i, t in enumerate(session.turns)
    ]
    used = {t.dia_id for t in turns}
    orphans = sum(len(v) for k, v in facts.items() if k not in used)
    return Conversation(parsed.sample_id, tuple(turns), orphans)


def load_locomo(path: Path, convs: int | None = None) -> list[Conversation]:
    """The first ``convs`` conversations (all by default) of a LoCoMo file."""
    with path.open(encoding="utf-8") as f:
        samples: list[dict[str, Any]] = json.load(f)
    return [conversation(s) for s in samples[:convs]]


class OracleAnswers:
    """The counting fake's brain: answers each write-path prompt from the prompt itself.

    The replay announces each turn with ``expect`` before writing it; an extraction prompt
    must then show exactly that turn's text, and gets that turn's observation facts. A
    mismatch fails the call, which the writer logs as a failed extraction and the report
    counts under ``extraction_errors``, so a prompt change cannot go unnoticed. Reconcile
    prompts get ADD for every fact they list.

    >>> from langchain_core.messages import HumanMessage
    >>> oracle = OracleAnswers()
    >>> oracle.expect("I moved to Pune.", ["Sam moved to Pune."])
    >>> oracle([HumanMessage("Conversation turn (2023-05-08):\\n[user] I moved to Pune.")])
    {'facts': [{'text': 'Sam moved to Pune.', 'importance': 5, 'speaker': 'user'}]}
    >>> oracle([HumanMessage("Existing memories:\\n(none)\\n\\nNew fact: Sam moved to Pune.")])
    {'op': 'ADD', 'id': None, 'text': 'Sam moved to Pune.'}
    >>> oracle.kinds
    Counter({'extract': 1, 'reconcile': 1})
    """

    def __init__(self) -> None:
        self._text: str | None = None
        self._facts: tuple[str, ...] = ()
        #: Calls by prompt kind: "extract", "reconcile" (one fact), "batch".
        self.kinds: Counter[str] = Counter()

    def expect(self, text: str, facts: Iterable[str]) -> None:
        """The turn about to be written, and the facts extraction should find in it."""
        self._text, self._facts = text, tuple(facts)

    def __call__(self, messages: list[BaseMessage]) -> dict[str, Any]:
        human = str(messages[-1].content)
        if human.startswith(_EXTRACT_START):
            self.kinds["extract"] += 1
            transcript = human.split("\n", 1)[1] if "\n" in human else ""
            if transcript != f"[user] {self._text}":
                raise AssertionError(
                    f"extraction prompt for an unexpected turn: {transcript[:200]!r}"
                )
            return {"facts": [{"text": f, "importance": 5, "speaker": "user"} for f in self._facts]}
        if _FACTS_MARK in human:
            self.kinds["batch"] += 1
            listed = _BATCH_LINE.findall(human.partition(_FACTS_MARK)[2])
            return {
                "decisions": [
                    {"fact": int(i), "op": "ADD", "id": None, "text": t} for i, t in listed
                ]
            }
        if _FACT_MARK in human:
            self.kinds["reconcile"] += 1
            return {"op": "ADD", "id": None, "text": human.partition(_FACT_MARK)[2].strip()}
        raise AssertionError(f"not a write-path prompt: {human[:200]!r}")


def expected_calls(mode: Reconcile, skipped: bool, facts: int) -> int:
    """Model calls the write path should make for one turn (see the module docstring)."""
    if skipped:
        return 0
    if mode == "per_fact" or facts <= 1:
        return 1 + facts
    return 2


@dataclass(frozen=True)
class TurnCost:
    """What one turn cost in one mode."""

    dia_id: str
    skipped: bool
    facts: int
    calls: int
    prompt_tokens: int
    errors: int = 0
    #: Observation facts that cite the turn: lost when the gate skips it.
    observed: int = 0

    @property
    def kind(self) -> str:
        """``skipped``, ``no_facts`` or ``facts``."""
        return "skipped" if self.skipped else "facts" if self.facts else "no_facts"


def replay(
    conv: Conversation, mode: Reconcile, *, embeddings: Embeddings, workdir: Path
) -> tuple[list[TurnCost], Counter[str], Counter[str]]:
    """Write every turn of ``conv`` in ``mode`` into a fresh store under ``workdir``.

    Returns the cost of each turn, the calls by prompt kind, and the decisions by op.
    """
    oracle = OracleAnswers()
    model = ScriptedChatModel(default=oracle)
    ops: Counter[str] = Counter()
    costs = []
    with MemoryStore(workdir / f"{conv.sample_id}-{mode}", embeddings=embeddings) as store:
        writer = MemoryWriter(store, model=model, reconcile=mode)
        for turn in conv.turns:
            oracle.expect(turn.text, turn.facts)
            calls, tokens = model.calls, model.prompt_tokens
            decisions = writer.write_turn(
                turn.scope, [("user", turn.text)], now=turn.when, turn_id=turn.dia_id
            )
            # A failed extraction is logged as a failed NOOP without a fact; every other
            # decision is one reconciled fact.
            errors = sum(1 for d in decisions if d.status == "failed" and not d.fact)
            ops.update(d.op.value for d in decisions if d.fact)
            costs.append(
                TurnCost(
                    dia_id=turn.dia_id,
                    skipped=not may_hold_fact(turn.text),
                    facts=len(decisions) - errors,
                    calls=model.calls - calls,
                    prompt_tokens=model.prompt_tokens - tokens,
                    errors=errors,
                    observed=len(turn.facts),
                )
            )
    return costs, oracle.kinds, ops


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


@dataclass
class ModeSummary:
    """The numbers of one mode over all replayed turns."""

    mode: str
    turns: int
    skipped: int
    extracted_no_facts: int
    extracted_with_facts: int
    skip_share: float
    calls: int
    mean_calls_per_turn: float
    median_calls_per_turn: float
    mean_calls_per_extracted_turn: float
    median_calls_per_extracted_turn: float
    max_calls_per_turn: int
    skipped_turns_with_calls: int
    turns_off_formula: int
    prompt_tokens: int
    mean_prompt_tokens_per_turn: float
    median_prompt_tokens_per_extracted_turn: float
    mean_prompt_tokens_per_call: float
    schema_tokens: int
    facts: int
    mean_facts_per_extracted_turn: float
    mean_facts_per_turn_with_facts: float
    extraction_errors: int
    observed_facts: int
    observed_facts_on_skipped_turns: int
    calls_by_prompt: dict[str, int] = field(default_factory=dict)
    decisions_by_op: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0


def schema_tokens_per_call() -> dict[str, int]:
    """Tokens of the tool definition each prompt kind sends along with structured output.

    >>> sorted(schema_tokens_per_call())
    ['batch', 'extract', 'reconcile']
    """
    schemas = {
        "extract": ExtractionOutput,
        "reconcile": ReconcileOutput,
        "batch": BatchOutput,
    }
    return {k: count_tokens(json.dumps(convert_to_openai_tool(s))) for k, s in schemas.items()}


def summarise(
    mode: Reconcile,
    costs: Sequence[TurnCost],
    kinds: Counter[str] | None = None,
    ops: Counter[str] | None = None,
    wall_s: float = 0.0,
) -> ModeSummary:
    """Aggregate per-turn costs of one mode.

    >>> turns = [TurnCost("D1:1", True, 0, 0, 0), TurnCost("D1:2", False, 2, 3, 90)]
    >>> s = summarise("per_fact", turns)
    >>> (s.mean_calls_per_turn, s.mean_calls_per_extracted_turn, s.skip_share, s.turns_off_formula)
    (1.5, 3.0, 0.5, 0)
    """
    extracted = [c for c in costs if not c.skipped]
    with_facts = [c for c in extracted if c.facts]
    kinds = kinds or Counter()
    per_kind = schema_tokens_per_call()
    calls = sum(c.calls for c in costs)
    tokens = sum(c.prompt_tokens for c in costs)
    return ModeSummary(
        mode=mode,
        turns=len(costs),
        skipped=len(costs) - len(extracted),
        extracted_no_facts=len(extracted) - len(with_facts),
        extracted_with_facts=len(with_facts),
        skip_share=(len(costs) - len(extracted)) / len(costs) if costs else 0.0,
        calls=calls,
        mean_calls_per_turn=_mean([c.calls for c in costs]),
        median_calls_per_turn=_median([c.calls for c in costs]),
        mean_calls_per_extracted_turn=_mean([c.calls for c in extracted]),
        median_calls_per_extracted_turn=_median([c.calls for c in extracted]),
        max_calls_per_turn=max((c.calls for c in costs), default=0),
        skipped_turns_with_calls=sum(1 for c in costs if c.skipped and c.calls),
        turns_off_formula=sum(
            1 for c in costs if c.calls != expected_calls(mode, c.skipped, c.facts)
        ),
        prompt_tokens=tokens,
        mean_prompt_tokens_per_turn=_mean([c.prompt_tokens for c in costs]),
        median_prompt_tokens_per_extracted_turn=_median([c.prompt_tokens for c in extracted]),
        mean_prompt_tokens_per_call=tokens / calls if calls else 0.0,
        schema_tokens=sum(n * per_kind.get(k, 0) for k, n in kinds.items()),
        facts=sum(c.facts for c in costs),
        mean_facts_per_extracted_turn=_mean([c.facts for c in extracted]),
        mean_facts_per_turn_with_facts=_mean([c.facts for c in with_facts]),
        extraction_errors=sum(c.errors for c in costs),
        observed_facts=sum(c.observed for c in costs),
        observed_facts_on_skipped_turns=sum(c.observed for c in costs if c.skipped),
        calls_by_prompt=dict(sorted(kinds.items())),
        decisions_by_op=dict(sorted((ops or Counter()).items())),
        wall_s=wall_s,
    )


def run(
    conversations: Sequence[Conversation],
    *,
    embeddings: Embeddings | None = None,
    modes: Sequence[Reconcile] = MODES,
) -> dict[str, Any]:
    """Replay ``conversations`` in each mode; the report as a JSON-ready dict."""
    if embeddings is None:
        embeddings = default_embeddings()
    embeddings.embed_query("warm up")  # load the model before any mode's clock starts
    costs: dict[str, list[TurnCost]] = {m: [] for m in modes}
    kinds: dict[str, Counter[str]] = {m: Counter() for m in modes}
    ops: dict[str, Counter[str]] = {m: Counter() for m in modes}
    wall: dict[str, float] = dict.fromkeys(modes, 0.0)
    per_conversation: dict[str, dict[str, dict[str, int]]] = {}
    workdir = Path(tempfile.mkdtemp(prefix="write-cost-"))
    try:
        for conv in conversations:
            per_conversation[conv.sample_id] = {}
            for mode in modes:
                start = time.perf_counter()
                turn_costs, k, o = replay(conv, mode, embeddings=embeddings, workdir=workdir)
                wall[mode] += time.perf_counter() - start
                costs[mode] += turn_costs
                kinds[mode].update(k)
                ops[mode].update(o)
                per_conversation[conv.sample_id][mode] = {
                    "turns": len(turn_costs),
                    "calls": sum(c.calls for c in turn_costs),
                    "prompt_tokens": sum(c.prompt_tokens for c in turn_costs),
                }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    summaries = {m: summarise(m, costs[m], kinds[m], ops[m], wall[m]) for m in modes}
    report: dict[str, Any] = {
        "conversations": [c.sample_id for c in conversations],
        "orphan_observation_facts": sum(c.orphan_facts for c in conversations),
        "schema_tokens_per_call": schema_tokens_per_call(),
        "modes": {m: asdict(s) for m, s in summaries.items()},
        "per_conversation": per_conversation,
    }
    if "per_fact" in summaries and "batched" in summaries:
        one, batch = summaries["per_fact"], summaries["batched"]
        report["ratio_batched_over_per_fact"] = {
            "calls": batch.calls / one.calls if one.calls else None,
            "prompt_tokens": batch.prompt_tokens / one.prompt_tokens if one.prompt_tokens else None,
        }
    return report


def table(report: dict[str, Any]) -> str:
    """The report's per-mode numbers as a Markdown table (one column per mode)."""
    modes: dict[str, dict[str, Any]] = report["modes"]
    rows: list[tuple[str, str, str]] = [
        ("turns", "turns", "d"),
        ("skip share (gate)", "skip_share", ".3f"),
        ("extracted, no facts", "extracted_no_facts", "d"),
        ("extracted, with facts", "extracted_with_facts", "d"),
        ("mean facts / extracted turn", "mean_facts_per_extracted_turn", ".3f"),
        ("mean facts / turn with facts", "mean_facts_per_turn_with_facts", ".3f"),
        ("model calls", "calls", "d"),
        ("**mean calls / turn**", "mean_calls_per_turn", ".3f"),
        ("median calls / turn", "median_calls_per_turn", ".1f"),
        ("mean calls / extracted turn", "mean_calls_per_extracted_turn", ".3f"),
        ("median calls / extracted turn", "median_calls_per_extracted_turn", ".1f"),
        ("max calls / turn", "max_calls_per_turn", "d"),
        ("skipped turns with calls", "skipped_turns_with_calls", "d"),
        ("turns off the 1+k / 2 formula", "turns_off_formula", "d"),
        ("prompt tokens", "prompt_tokens", "d"),
        ("mean prompt tokens / turn", "mean_prompt_tokens_per_turn", ".1f"),
        ("median prompt tokens / extracted turn", "median_prompt_tokens_per_extracted_turn", ".1f"),
        ("mean prompt tokens / call", "mean_prompt_tokens_per_call", ".1f"),
        ("tool-schema tokens, JSON, rough (not above)", "schema_tokens", "d"),
        ("extraction errors", "extraction_errors", "d"),
        ("observation facts on skipped turns (lost)", "observed_facts_on_skipped_turns", "d"),
        ("wall time, s (context only)", "wall_s", ".1f"),
    ]
    lines = ["| | " + " | ".join(modes) + " |", "|---|" + "---:|" * len(modes)]
    for label, key, fmt in rows:
        lines.append(
            f"| {label} | " + " | ".join(format(s[key], fmt) for s in modes.values()) + " |"
        )
    ratio = report.get("ratio_batched_over_per_fact")
    if ratio:
        lines.append(
            f"\nbatched / per-fact: calls {ratio['calls']:.3f}, "
            f"prompt tokens {ratio['prompt_tokens']:.3f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; prints a Markdown table, returns the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--data", type=Path, required=True, help="the shared benchmark data folder")
    p.add_argument("--convs", type=int, default=None, metavar="N", help="first N conversations")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    p.add_argument("--no-gate-recall", action="store_true", help="skip the LongMemEval gate check")
    args = p.parse_args(argv)
    problem = missing_data(args.data, LOCOMO)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    path = args.data / LOCOMO
    conversations = load_locomo(path, args.convs)
    report = run(conversations)
    report["data"] = str(args.data)
    report["gate_recall"] = None
    if not args.no_gate_recall and (args.data / ORACLE).exists():
        r = gate_recall.measure(
            "LongMemEval oracle", gate_recall.longmemeval_oracle(args.data / ORACLE)
        )
        report["gate_recall"] = {
            "corpus": r.corpus,
            "user_turns": r.user_turns,
            "evidence_turns": r.evidence,
            "recall": r.recall,
            "skip_share": r.skip_share,
        }
    print(f"LoCoMo: {len(conversations)} conversations ({', '.join(report['conversations'])})\n")
    print(table(report))
    gate = report["gate_recall"]
    if gate:
        print(
            f"\ngate on {gate['corpus']}: recall {gate['recall']:.4f} of "
            f"{gate['evidence_turns']} has_answer turns, skips {gate['skip_share']:.3f} "
            f"of {gate['user_turns']} user turns"
        )
    batched = report["modes"].get("batched")
    if batched:
        ok = batched["mean_calls_per_turn"] <= 2 and batched["skipped_turns_with_calls"] == 0
        print(
            f"\ntarget (batched <= 2 calls/turn, 0 for skipped turns): {'met' if ok else 'MISSED'}"
        )
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
