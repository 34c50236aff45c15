"""Model calls and prompt tokens per turn of the write path, by step, on LoCoMo.

Run it on the benchmark data folder (nothing is downloaded, no hosted model is called)::

    python -m benchmarks write-cost --data ../shared/data --limit 2 --out cost.json
    python -m benchmarks write-cost --data ../shared/data --limit 2 --scope session
    python -m benchmarks write-cost --data ../shared/data --limit 2 --model rules

Every LoCoMo turn is replayed in order through ``MemoryWriter`` into a fresh embedded
``MemoryStore``, once per variant, as ``[("user", text)]`` in the speaker's scope
(``--scope user``: ``user:<sample_id>-<speaker>``, each speaker's memory is their own;
``--scope session``: ``session:<sample_id>-<session>-<speaker>``, a scope per conversation
session, as a graph with ``scope="session"`` keeps one per thread), at the session's date plus
one second per turn. The write path's model is wrapped in a counter (``CountingModel``) that
counts its calls by step: ``extract``, ``reconcile`` (one fact) and ``batch`` (several); the gate
(``may_hold_fact``) never calls a model, and the turns it skips are counted apart.

The model (``--model``):

- ``oracle`` (default): a scripted chat model behind the real prompts (``ScriptedChatModel``
  in ``ChatMemoryModel``) that answers from the prompt: extraction returns LoCoMo's own
  ``observation`` facts for the turn (gpt-3.5 facts, cited by ``dia_id``), so the number of
  facts per turn is realistic; a turn without observations yields ``{"facts": []}``, which is
  realistic too; reconciliation returns ADD for every fact it is asked about. So the counts are
  those of the real write path on real turns; only the answers are canned. Prompt tokens are
  counted with the bundled WordPiece tokenizer (``testing.count_tokens``) over the messages'
  text; the tool schema that structured output sends along is not in that count and is
  reported apart (``schema_tokens``).
- ``rules``: the offline ``RulesModel``, which finds far fewer facts (simple first-person
  statements only); its calls count the same way.

Variants: ``reconcile="per_fact"`` and ``"batched"``, each with the default (a fact the scope
holds nothing to compare with is added without a model call) and with
``always_reconcile=True`` (every fact goes to the model: the behaviour before that rule), in
the same run, so the saving is measured, not inferred.

Target (issue): <= 2 model calls per turn on average, 0 for turns the gate skips. A turn whose
gate passes costs 1 extraction call plus, per fact shown to the model, one call (per fact) or
one call for all of them (batched; a single fact is reconciled by the per-fact prompt).

>>> expected_calls("per_fact", skipped=False, asked=3), expected_calls("batched", False, 3)
(4, 2)
>>> expected_calls("batched", skipped=True, asked=0), expected_calls("per_fact", False, 0)
(0, 1)
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
from langgraph_memory import Memory
from langgraph_memory.embeddings import default_embeddings
from langgraph_memory.store import MemoryStore
from langgraph_memory.testing import ScriptedChatModel, count_tokens
from langgraph_memory.write import (
    ChatMemoryModel,
    Choice,
    Extraction,
    Fact,
    MemoryModel,
    MemoryWriter,
    RulesModel,
    Turn,
)
from langgraph_memory.write.prompts.extract import HUMAN as EXTRACT_HUMAN
from langgraph_memory.write.prompts.extract import ExtractionOutput
from langgraph_memory.write.prompts.reconcile import BATCH_HUMAN, BatchOutput, ReconcileOutput
from langgraph_memory.write.prompts.reconcile import HUMAN as RECONCILE_HUMAN
from langgraph_memory.write.steps import NOTHING_SIMILAR, may_hold_fact

#: ``MemoryWriter(reconcile=...)``'s values: one model call per fact, or one per turn (mypy
#: checks at the call below that the writer still takes them).
Reconcile = Literal["per_fact", "batched"]
LOCOMO = DATASETS["locomo"]
ORACLE = DATASETS["longmemeval-oracle"]
MODES: tuple[Reconcile, ...] = ("per_fact", "batched")
#: The write path's model: canned answers behind the real prompts, or the offline rules.
ModelKind = Literal["oracle", "rules"]
MODELS: tuple[ModelKind, ...] = ("oracle", "rules")
#: Whose memory a turn goes to: the speaker's (user scope) or the speaker's in one session.
ScopeBy = Literal["user", "session"]
SCOPES: tuple[ScopeBy, ...] = ("user", "session")
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
    session: int = 1

    @property
    def scope(self) -> str:
        """The speaker's own user scope."""
        return f"user:{self.sample_id}-{self.speaker}"

    def scope_by(self, by: ScopeBy) -> str:
        """The speaker's user scope, or their scope for this session alone."""
        if by == "session":
            return f"session:{self.sample_id}-{self.session}-{self.speaker}"
        return self.scope


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
            session=session.index,
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


class CountingModel:
    """A ``MemoryModel`` that passes every call on to ``inner`` and counts it, by step.

    ``calls`` holds ``extract``, ``reconcile`` (one fact) and ``batch`` (several facts in one
    call); ``asked`` is the facts shown to the model for a decision.

    >>> from datetime import datetime, timezone
    >>> counting = CountingModel(RulesModel())
    >>> turn = Turn.of([("user", "I'm vegan.")], when=datetime(2026, 1, 5, tzinfo=timezone.utc))
    >>> [f.text for f in counting.extract(turn, roles=("user",)).facts], counting.calls
    (['User is vegan.'], Counter({'extract': 1}))
    """

    def __init__(self, inner: MemoryModel) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: Counter[str] = Counter()
        self.asked = 0

    @property
    def total(self) -> int:
        """Every call so far."""
        return sum(self.calls.values())

    def extract(self, turn: Turn, *, roles: Sequence[Any]) -> Extraction:
        """The inner model's extraction, counted."""
        self.calls["extract"] += 1
        return self.inner.extract(turn, roles=roles)

    def choose(self, fact: Fact, shown: Sequence[Memory], *, today: datetime) -> Choice:
        """The inner model's choice for one fact, counted."""
        self.calls["reconcile"] += 1
        self.asked += 1
        return self.inner.choose(fact, shown, today=today)

    def choose_batch(
        self, facts: Sequence[Fact], shown: Sequence[Memory], *, today: datetime
    ) -> list[Choice]:
        """The inner model's choices for several facts in one call, counted."""
        self.calls["batch"] += 1
        self.asked += len(facts)
        return self.inner.choose_batch(facts, shown, today=today)


@dataclass(frozen=True)
class Variant:
    """One way to run the write path: how facts are reconciled, and whether a fact the scope
    holds nothing to compare with still goes to the model."""

    mode: Reconcile
    always_reconcile: bool = False

    @property
    def label(self) -> str:
        """``per_fact``, ``batched``, or either with ``/always_reconcile``."""
        return self.mode + ("/always_reconcile" if self.always_reconcile else "")


#: Each mode before (every fact to the model) and after (no call with nothing to compare).
VARIANTS: tuple[Variant, ...] = tuple(Variant(m, a) for m in MODES for a in (True, False))


def expected_calls(mode: Reconcile, skipped: bool, asked: int) -> int:
    """Model calls the write path should make for one turn whose ``asked`` facts were shown
    to the model (see the module docstring)."""
    if skipped:
        return 0
    if mode == "per_fact" or asked <= 1:
        return 1 + asked
    return 2


@dataclass(frozen=True)
class TurnCost:
    """What one turn cost in one variant."""

    dia_id: str
    skipped: bool
    facts: int
    calls: int
    prompt_tokens: int
    errors: int = 0
    #: Observation facts that cite the turn: lost when the gate skips it.
    observed: int = 0
    extract_calls: int = 0
    reconcile_calls: int = 0
    #: Facts shown to the model for a decision, and facts added without a call.
    asked: int = 0
    unasked: int = 0

    @property
    def kind(self) -> str:
        """``skipped``, ``no_facts`` or ``facts``."""
        return "skipped" if self.skipped else "facts" if self.facts else "no_facts"


def counting_model(kind: ModelKind) -> tuple[CountingModel, OracleAnswers | None, Any]:
    """The counted model of ``kind``, the oracle that feeds it (None for rules) and the chat
    model under it (None for rules), whose ``prompt_tokens`` the replay reads."""
    if kind == "rules":
        return CountingModel(RulesModel()), None, None
    oracle = OracleAnswers()
    chat = ScriptedChatModel(default=oracle)
    return CountingModel(ChatMemoryModel(chat)), oracle, chat


def replay(
    conv: Conversation,
    mode: Reconcile,
    *,
    embeddings: Embeddings,
    workdir: Path,
    always_reconcile: bool = False,
    model: ModelKind = "oracle",
    scope_by: ScopeBy = "user",
) -> tuple[list[TurnCost], Counter[str], Counter[str]]:
    """Write every turn of ``conv`` in one variant into a fresh store under ``workdir``.

    Returns the cost of each turn, the calls by step, and the decisions by op.
    """
    counting, oracle, chat = counting_model(model)
    ops: Counter[str] = Counter()
    costs = []
    label = Variant(mode, always_reconcile).label.replace("/", "-")
    where = workdir / f"{conv.sample_id}-{model}-{scope_by}-{label}"
    with MemoryStore(where, embeddings=embeddings) as store:
        writer = MemoryWriter(
            store, model=counting, reconcile=mode, always_reconcile=always_reconcile
        )
        for turn in conv.turns:
            if oracle is not None:
                oracle.expect(turn.text, turn.facts)
            before = Counter(counting.calls)
            asked, tokens = counting.asked, chat.prompt_tokens if chat is not None else 0
            decisions = writer.write_turn(
                turn.scope_by(scope_by), [("user", turn.text)], now=turn.when, turn_id=turn.dia_id
            )
            spent = counting.calls - before
            # A failed extraction is logged as a failed NOOP without a fact; every other
            # decision is one extracted fact.
            errors = sum(1 for d in decisions if d.status == "failed" and not d.fact)
            ops.update(d.op.value for d in decisions if d.fact)
            costs.append(
                TurnCost(
                    dia_id=turn.dia_id,
                    skipped=not may_hold_fact(turn.text),
                    facts=len(decisions) - errors,
                    calls=sum(spent.values()),
                    prompt_tokens=(chat.prompt_tokens if chat is not None else 0) - tokens,
                    errors=errors,
                    observed=len(turn.facts),
                    extract_calls=spent["extract"],
                    reconcile_calls=spent["reconcile"] + spent["batch"],
                    asked=counting.asked - asked,
                    unasked=sum(1 for d in decisions if d.note == NOTHING_SIMILAR),
                )
            )
    return costs, counting.calls, ops


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


@dataclass
class ModeSummary:
    """The numbers of one variant over all replayed turns."""

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
    always_reconcile: bool = False
    #: Calls per turn by step, over all turns: the gate never calls a model.
    calls_per_turn_by_step: dict[str, float] = field(default_factory=dict)
    facts_asked: int = 0
    facts_added_without_a_call: int = 0
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
    variant: Variant | Reconcile,
    costs: Sequence[TurnCost],
    kinds: Counter[str] | None = None,
    ops: Counter[str] | None = None,
    wall_s: float = 0.0,
    *,
    schema: bool = True,
) -> ModeSummary:
    """Aggregate per-turn costs of one variant (``schema``: count tool-schema tokens, which
    only a chat model sends).

    >>> turns = [TurnCost("D1:1", True, 0, 0, 0), TurnCost("D1:2", False, 2, 3, 90, asked=2)]
    >>> s = summarise("per_fact", turns)
    >>> (s.mean_calls_per_turn, s.mean_calls_per_extracted_turn, s.skip_share, s.turns_off_formula)
    (1.5, 3.0, 0.5, 0)
    """
    variant = variant if isinstance(variant, Variant) else Variant(variant)
    extracted = [c for c in costs if not c.skipped]
    with_facts = [c for c in extracted if c.facts]
    kinds = kinds or Counter()
    per_kind = schema_tokens_per_call() if schema else {}
    calls = sum(c.calls for c in costs)
    tokens = sum(c.prompt_tokens for c in costs)
    return ModeSummary(
        mode=variant.mode,
        always_reconcile=variant.always_reconcile,
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
            1 for c in costs if c.calls != expected_calls(variant.mode, c.skipped, c.asked)
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
        calls_per_turn_by_step={
            "gate": 0.0,
            "extract": _mean([c.extract_calls for c in costs]),
            "reconcile": _mean([c.reconcile_calls for c in costs]),
        },
        facts_asked=sum(c.asked for c in costs),
        facts_added_without_a_call=sum(c.unasked for c in costs),
        calls_by_prompt=dict(sorted(kinds.items())),
        decisions_by_op=dict(sorted((ops or Counter()).items())),
        wall_s=wall_s,
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def run(
    conversations: Sequence[Conversation],
    *,
    embeddings: Embeddings | None = None,
    variants: Sequence[Variant] = VARIANTS,
    model: ModelKind = "oracle",
    scope_by: ScopeBy = "user",
) -> dict[str, Any]:
    """Replay ``conversations`` in each variant; the report as a JSON-ready dict."""
    if embeddings is None:
        embeddings = default_embeddings()
    embeddings.embed_query("warm up")  # load the model before any variant's clock starts
    labels = [v.label for v in variants]
    costs: dict[str, list[TurnCost]] = {v: [] for v in labels}
    kinds: dict[str, Counter[str]] = {v: Counter() for v in labels}
    ops: dict[str, Counter[str]] = {v: Counter() for v in labels}
    wall: dict[str, float] = dict.fromkeys(labels, 0.0)
    per_conversation: dict[str, dict[str, dict[str, int]]] = {}
    workdir = Path(tempfile.mkdtemp(prefix="write-cost-"))
    try:
        for conv in conversations:
            per_conversation[conv.sample_id] = {}
            for variant in variants:
                label = variant.label
                start = time.perf_counter()
                turn_costs, k, o = replay(
                    conv,
                    variant.mode,
                    embeddings=embeddings,
                    workdir=workdir,
                    always_reconcile=variant.always_reconcile,
                    model=model,
                    scope_by=scope_by,
                )
                wall[label] += time.perf_counter() - start
                costs[label] += turn_costs
                kinds[label].update(k)
                ops[label].update(o)
                per_conversation[conv.sample_id][label] = {
                    "turns": len(turn_costs),
                    "calls": sum(c.calls for c in turn_costs),
                    "prompt_tokens": sum(c.prompt_tokens for c in turn_costs),
                }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    summaries = {
        v.label: summarise(
            v, costs[v.label], kinds[v.label], ops[v.label], wall[v.label], schema=model != "rules"
        )
        for v in variants
    }
    report: dict[str, Any] = {
        "model": model,
        "scope_by": scope_by,
        "conversations": [c.sample_id for c in conversations],
        "orphan_observation_facts": sum(c.orphan_facts for c in conversations),
        "schema_tokens_per_call": schema_tokens_per_call() if model != "rules" else None,
        "variants": {label: asdict(s) for label, s in summaries.items()},
        "per_conversation": per_conversation,
    }
    saving = {}
    for mode in MODES:
        before = summaries.get(Variant(mode, True).label)
        after = summaries.get(Variant(mode).label)
        if before is not None and after is not None:
            saving[mode] = {
                "calls_before": before.calls,
                "calls_after": after.calls,
                "mean_calls_per_turn_before": before.mean_calls_per_turn,
                "mean_calls_per_turn_after": after.mean_calls_per_turn,
                "reconcile_calls_per_turn_before": before.calls_per_turn_by_step["reconcile"],
                "reconcile_calls_per_turn_after": after.calls_per_turn_by_step["reconcile"],
                "ratio_calls_after_over_before": _share(after.calls, before.calls),
                "ratio_prompt_tokens_after_over_before": _share(
                    after.prompt_tokens, before.prompt_tokens
                ),
            }
    report["always_reconcile_over_default"] = saving
    one, batch = summaries.get("per_fact"), summaries.get("batched")
    if one is not None and batch is not None:
        report["ratio_batched_over_per_fact"] = {
            "calls": _share(batch.calls, one.calls),
            "prompt_tokens": _share(batch.prompt_tokens, one.prompt_tokens),
        }
    return report


def table(report: dict[str, Any]) -> str:
    """The report's per-variant numbers as a Markdown table (one column per variant)."""
    variants: dict[str, dict[str, Any]] = report["variants"]
    rows: list[tuple[str, str, str]] = [
        ("turns", "turns", "d"),
        ("skip share (gate)", "skip_share", ".3f"),
        ("extracted, no facts", "extracted_no_facts", "d"),
        ("extracted, with facts", "extracted_with_facts", "d"),
        ("mean facts / extracted turn", "mean_facts_per_extracted_turn", ".3f"),
        ("mean facts / turn with facts", "mean_facts_per_turn_with_facts", ".3f"),
        ("facts shown to the model", "facts_asked", "d"),
        ("facts added without a call (nothing similar)", "facts_added_without_a_call", "d"),
        ("model calls", "calls", "d"),
        ("**mean calls / turn**", "mean_calls_per_turn", ".3f"),
        ("  gate calls / turn", "calls_per_turn_by_step.gate", ".3f"),
        ("  extract calls / turn", "calls_per_turn_by_step.extract", ".3f"),
        ("  reconcile calls / turn", "calls_per_turn_by_step.reconcile", ".3f"),
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

    def cell(summary: dict[str, Any], key: str, fmt: str) -> str:
        value: Any = summary
        for part in key.split("."):
            value = value[part]
        return format(value, fmt)

    lines = ["| | " + " | ".join(variants) + " |", "|---|" + "---:|" * len(variants)]
    for label, key, fmt in rows:
        cells = " | ".join(cell(s, key, fmt) for s in variants.values())
        lines.append(f"| {label} | {cells} |")
    for mode, saved in report.get("always_reconcile_over_default", {}).items():
        ratio = saved["ratio_calls_after_over_before"]
        lines.append(
            f"\n{mode}: {saved['mean_calls_per_turn_before']:.3f} calls / turn with every fact "
            f"sent to the model, {saved['mean_calls_per_turn_after']:.3f} without a call for "
            "facts with nothing to compare (reconcile "
            f"{saved['reconcile_calls_per_turn_before']:.3f} -> "
            f"{saved['reconcile_calls_per_turn_after']:.3f}; calls x"
            + (f"{ratio:.3f})" if ratio is not None else "n/a)")
        )
    ratio_batched = report.get("ratio_batched_over_per_fact")
    if ratio_batched and ratio_batched["calls"] is not None:
        tokens = ratio_batched["prompt_tokens"]
        lines.append(
            f"\nbatched / per-fact: calls {ratio_batched['calls']:.3f}"
            + (f", prompt tokens {tokens:.3f}" if tokens is not None else "")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; prints a Markdown table, returns the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--data", type=Path, required=True, help="the shared benchmark data folder")
    p.add_argument(
        "--limit", "--convs", type=int, default=None, metavar="N", help="first N conversations"
    )
    p.add_argument("--model", choices=MODELS, default="oracle", help="the write path's model")
    p.add_argument("--scope", choices=SCOPES, default="user", help="a scope per speaker or session")
    p.add_argument("--out", type=Path, help="write the report as JSON here")
    p.add_argument("--no-gate-recall", action="store_true", help="skip the LongMemEval gate check")
    args = p.parse_args(argv)
    problem = missing_data(args.data, LOCOMO)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    path = args.data / LOCOMO
    conversations = load_locomo(path, args.limit)
    report = run(conversations, model=args.model, scope_by=args.scope)
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
    print(
        f"LoCoMo: {len(conversations)} conversations ({', '.join(report['conversations'])}); "
        f"model {args.model}; a scope per {args.scope}\n"
    )
    print(table(report))
    gate = report["gate_recall"]
    if gate:
        print(
            f"\ngate on {gate['corpus']}: recall {gate['recall']:.4f} of "
            f"{gate['evidence_turns']} has_answer turns, skips {gate['skip_share']:.3f} "
            f"of {gate['user_turns']} user turns"
        )
    batched = report["variants"].get("batched")
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
