"""Results of a QA evaluation: per-item records, aggregates, JSON, Markdown and a plot.

Aggregates are per (dataset, category) group, plus "all" and "answerable" (all
but the abstention items: Mem0's LoCoMo J is over categories 1-4). Each has n,
mean F1, J (the share the judge found CORRECT, over judged items; an INVALID
verdict counts as wrong) and abstention accuracy (over the group's abstention
items: the share whose answer ``scoring.abstains``).

>>> r = ItemResult(id="q1", dataset="locomo", category="4", question="Q?", gold="Pune",
...                answer="Pune", abstention=False, f1=1.0, abstained=False,
...                judge_label="CORRECT")
>>> [(g["name"], g["n"], g["f1"], g["j"]) for g in aggregate([r])][0]
('locomo 4 single-hop', 1, 1.0, 1.0)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from benchmarks.plots import qa_chart

#: LoCoMo's category numbers, as its evaluation.py names them (not the paper's order).
LOCOMO_CATEGORIES = {
    "1": "multi-hop",
    "2": "temporal",
    "3": "open-domain",
    "4": "single-hop",
    "5": "adversarial",
}


@dataclass(frozen=True)
class ItemResult:
    """One answered question and its scores."""

    id: str
    dataset: str
    category: str
    question: str
    gold: str
    answer: str
    abstention: bool
    f1: float
    abstained: bool
    judge_label: str | None = None
    judge_reasoning: str | None = None
    memory_ids: list[str] = field(default_factory=list)

    @property
    def j(self) -> float | None:
        """1.0 when judged CORRECT, 0.0 when judged otherwise, None when not judged."""
        return None if self.judge_label is None else float(self.judge_label == "CORRECT")


def group_name(dataset: str, category: str) -> str:
    """How a group is shown.

    >>> group_name("locomo", "1"), group_name("longmemeval", "multi-session")
    ('locomo 1 multi-hop', 'longmemeval multi-session')
    """
    if dataset == "locomo" and category in LOCOMO_CATEGORIES:
        return f"locomo {category} {LOCOMO_CATEGORIES[category]}"
    return f"{dataset} {category}"


def _summary(name: str, results: Sequence[ItemResult]) -> dict[str, Any]:
    judged = [r.j for r in results if r.j is not None]
    held_back = [r.abstained for r in results if r.abstention]
    return {
        "name": name,
        "n": len(results),
        "f1": fmean(r.f1 for r in results) if results else None,
        "j": fmean(judged) if judged else None,
        "n_judged": len(judged),
        "n_abstention": len(held_back),
        "abstention_acc": fmean(float(a) for a in held_back) if held_back else None,
    }


def aggregate(results: Iterable[ItemResult]) -> list[dict[str, Any]]:
    """Summaries per (dataset, category) in a stable order, then "all" and "answerable"."""
    items = list(results)
    groups: dict[tuple[str, str], list[ItemResult]] = {}
    for r in items:
        groups.setdefault((r.dataset, r.category), []).append(r)
    rows = [
        {"dataset": d, "category": c, **_summary(group_name(d, c), groups[(d, c)])}
        for d, c in sorted(groups)
    ]
    rows.append({"dataset": None, "category": None, **_summary("all", items)})
    answerable = [r for r in items if not r.abstention]
    rows.append({"dataset": None, "category": None, **_summary("answerable", answerable)})
    return rows


def to_json(results: Sequence[ItemResult], config: Mapping[str, Any]) -> dict[str, Any]:
    """The whole run as one JSON-ready object: config, items and aggregates."""
    return {
        "config": dict(config),
        "items": [{**asdict(r), "j": r.j} for r in results],
        "aggregates": aggregate(results),
    }


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def to_markdown(results: Sequence[ItemResult], config: Mapping[str, Any]) -> str:
    """A Markdown report: the run's settings, then one table row per group.

    >>> r = ItemResult(id="q", dataset="longmemeval", category="multi-session",
    ...                question="Q?", gold="", answer="No information available",
    ...                abstention=True, f1=1.0, abstained=True)
    >>> print(to_markdown([r], {"model": "m"}).splitlines()[-3])
    | longmemeval multi-session | 1 | 100.0 | — | 100.0 (1) |
    """
    lines = ["# QA evaluation", ""]
    lines += [f"- {key}: {value}" for key, value in config.items()]
    lines += [
        "",
        "F1: LoCoMo's official token F1 (%); J: judged CORRECT (%); abstention: "
        "unanswerable questions answered as not available (%, with their count).",
        "",
        "| group | n | F1 | J | abstention |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in aggregate(results):
        held = f"{_pct(row['abstention_acc'])} ({row['n_abstention']})"
        held = held if row["n_abstention"] else "—"
        lines.append(
            f"| {row['name']} | {row['n']} | {_pct(row['f1'])} | {_pct(row['j'])} | {held} |"
        )
    return "\n".join(lines) + "\n"


def write_reports(
    results: Sequence[ItemResult], config: Mapping[str, Any], out: Path
) -> tuple[Path, Path]:
    """Write ``results.json`` and ``report.md`` under ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "results.json", out / "report.md"
    json_path.write_text(
        json.dumps(to_json(results, config), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    md_path.write_text(to_markdown(results, config), encoding="utf-8")
    return json_path, md_path


def plot(results: Sequence[ItemResult], path: Path) -> Path:
    """A PNG bar chart of F1 and J per group. Needs matplotlib (in the ``dev`` extra).

    Raises ImportError saying how to install it when matplotlib is missing.
    """
    return qa_chart(aggregate(results), path)
