"""PNG charts of evaluation and benchmark results, drawn from their JSON files.

Each JSON file is recognised by its shape, so one command draws whatever a results folder
holds::

    python -m benchmarks.plots docs/results/*.json --out docs/results

- a retrieval run (``benchmarks.retrieval --out``): LoCoMo recall@10 per category, or
  LongMemEval session recall_any@5 and turn recall_any@10 per question type, one bar per
  variant;
- the store benchmark (``benchmarks.store_latency --out``): read latency against scope size,
  and one scope among many against the naive single collection;
- the peers benchmark (``benchmarks.peers --out``): recall@10 and read latency per system;
- a QA run (``benchmarks.qa``'s ``results.json``): F1 and J per question group;
- the multi-process benchmark (``benchmarks.multiprocess --out``): turns/s, write latency
  and duplicates per lock kind against the worker count, and the fault test's unblock times;
- the scale benchmark (``benchmarks.scale --out``): p50 of each component of the read
  against the scope size (log x), and ``retrieve`` against embed + nearest;
- the working-memory benchmark (``benchmarks.window --out``): the agent's prompt tokens per
  turn with the window and with the full history, for the scripted thread and the LoCoMo
  replay.

matplotlib is a development dependency (``pip install -e ".[dev]"``), not the package's; it is
imported when a chart is drawn, never when this module is imported.

>>> kind_of({"summary": {}, "meta": {"dataset": "locomo"}})
'retrieval'
>>> kind_of({"single": {}, "many": {}})
'store'
>>> kind_of({"load": [], "fault": []})
'multiprocess'
>>> kind_of({"rows": [], "targets": []})
'scale'
>>> kind_of({"thread": {}, "locomo": None})
'window'
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "draw",
    "kind_of",
    "main",
    "multiprocess_chart",
    "peers_chart",
    "pyplot",
    "qa_chart",
    "retrieval_chart",
    "scale_chart",
    "store_chart",
    "users_chart",
    "window_chart",
]

#: Systems of the peers benchmark, in table order, with their chart labels.
PEER_LABELS = {
    "ours_retrieve": "ours: retrieve",
    "ours_nearest": "ours: nearest",
    "naive_chroma": "naive Chroma (where=scope)",
    "lg_inmemory": "LangGraph InMemoryStore",
    "peer_engine": "langgraph-memory 0.1.0",
    "langmem_tool": "LangMem search tool",
    "mem0": "mem0 OSS (infer=False)",
}
_DPI = 120


def pyplot() -> Any:
    """matplotlib's ``pyplot`` on the file-only Agg backend (no display on servers or in CI).

    Raises ImportError saying how to install matplotlib when it is missing.
    """
    try:
        # Imported by name: matplotlib is optional, and mypy must pass without it.
        matplotlib = importlib.import_module("matplotlib")
        matplotlib.use("Agg")
        return importlib.import_module("matplotlib.pyplot")
    except ImportError as exc:
        raise ImportError(
            "plotting needs matplotlib, which is optional: "
            'pip install matplotlib (or pip install -e ".[dev]" in the checkout)'
        ) from exc


def kind_of(data: Mapping[str, Any]) -> str:
    """Which result a loaded JSON object is: retrieval, store, peers, qa, multiprocess,
    scale, users or window.

    Raises ValueError for anything else.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if "summary" in data and "dataset" in data.get("meta", {}):
        return "retrieval"
    if "single" in data or "many" in data:
        return "store"
    if "recall_at_10" in data and "latency" in data:
        return "peers"
    if "aggregates" in data and "items" in data:
        return "qa"
    if "load" in data and "fault" in data:
        return "multiprocess"
    if "rows" in data and "targets" in data:
        return "scale"
    if "thread" in data and "locomo" in data:
        return "window"
    if "modes" in data and "targets" in data:
        return "users"
    raise ValueError(
        "not a result this module draws: expected the JSON of benchmarks.retrieval, benchmarks.qa, "
        "benchmarks.store_latency, benchmarks.scale, benchmarks.peers, "
        "benchmarks.multiprocess, benchmarks.users or benchmarks.window"
        f" (top-level keys: {sorted(data)[:8]})"
    )


def _bars(ax: Any, groups: Sequence[str], series: Mapping[str, Sequence[float]]) -> None:
    """Grouped bars: one group per label, one bar per series, values in [0, 1]."""
    width = 0.8 / max(1, len(series))
    for s, (name, values) in enumerate(series.items()):
        offset = (s - (len(series) - 1) / 2) * width
        ax.bar([g + offset for g in range(len(groups))], values, width, label=name)
    ax.set_xticks(range(len(groups)), groups, rotation=25, ha="right")
    ax.set_ylim(0, 1.15)  # headroom for the legend above the bars
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", ncol=min(5, len(series)))


def _save(fig: Any, plt: Any, path: Path) -> Path:
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=_DPI)
    plt.close(fig)
    return path


def retrieval_chart(result: Mapping[str, Any], path: Path) -> Path:
    """Recall per category (LoCoMo, @10) or per question type (LongMemEval) per variant."""
    plt = pyplot()
    meta, summary = result["meta"], result["summary"]
    variants: list[str] = list(meta["variants"])
    dataset = str(meta["dataset"])
    groups = [g for g in summary if g != "overall 1-5"]
    if dataset == "locomo":
        panels = [("evidence recall@10", "{v}@10")]
        title = "LoCoMo evidence recall@10 (turns as units; overall = categories 1-4)"
    else:
        panels = [
            ("session recall_any@5", "{v}:sess_any@5"),
            ("turn recall_any@10", "{v}:turn_any@10"),
        ]
        title = f"{dataset}: retrieval per question type"
    fig, axes = plt.subplots(
        1, len(panels), figsize=(max(7.0, 1.3 * len(groups)) * len(panels), 4.5), squeeze=False
    )
    for ax, (label, key) in zip(axes[0], panels, strict=True):
        series = {
            v: [float(summary[g].get(key.format(v=v), 0.0)) for g in groups] for v in variants
        }
        names = [f"{g} ({summary[g]['n']})" for g in groups]
        _bars(ax, names, series)
        ax.set_ylabel(label)
    fig.suptitle(title)
    return _save(fig, plt, path)


def store_chart(report: Mapping[str, Any], path: Path) -> Path:
    """p50 read latency against scope size; one scope among many against the naive design."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.0, 4.5))
    rows = report.get("single", {}).get("queries", [])
    sizes = [r["size"] for r in rows]
    lines = [
        ("ours: nearest (vector given)", "ours"),
        ("raw Chroma, unfiltered (vector given)", "raw_unfiltered"),
        ("ours: retrieve (embed + rank + touch)", "read"),
    ]
    for label, key in lines:
        if rows and all(key in r for r in rows):
            left.plot(sizes, [r[key]["p50_ms"] for r in rows], marker="o", label=label)
    left.set_xscale("log")
    left.set_ylim(bottom=0)
    left.set_xlabel("memories in the scope")
    left.set_ylabel("p50 ms")
    left.set_title("One scope, k=10")
    left.grid(alpha=0.3)
    left.legend(fontsize="small")
    many = report.get("many")
    if many:
        bars = [
            ("ours:\nnearest", "ours"),
            ("naive:\nwhere=scope", "naive_filtered"),
            ("naive:\nunfiltered", "naive_unfiltered"),
            ("ours:\nretrieve", "read"),
        ]
        present = [(label, many[key]["p50_ms"]) for label, key in bars if key in many]
        right.bar([b[0] for b in present], [b[1] for b in present], color="tab:gray")
        right.set_ylabel("p50 ms")
        right.set_title(
            f"One scope among {many['scopes']} x {many['per_scope']:,} ({many['total']:,} memories)"
        )
        right.grid(axis="y", alpha=0.3)
    fig.suptitle("Store read latency (medians; ratios in the Markdown report)")
    return _save(fig, plt, path)


def peers_chart(report: Mapping[str, Any], path: Path) -> Path:
    """Recall@10 on LoCoMo and p50 read latency (log scale) per system and mode."""
    plt = pyplot()
    systems = [s for s in PEER_LABELS if s in report["recall_at_10"]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13.0, 4.8))
    left.barh(
        [PEER_LABELS[s] for s in systems],
        [report["recall_at_10"][s]["recall"] for s in systems],
        color="tab:green",
    )
    left.invert_yaxis()
    left.set_xlim(0, 1)
    left.set_xlabel("LoCoMo evidence recall@10")
    left.grid(axis="x", alpha=0.3)
    modes = list(report["latency"])
    width = 0.8 / max(1, len(systems))
    for i, s in enumerate(systems):
        offset = (i - (len(systems) - 1) / 2) * width
        values = [report["latency"][m].get(s, {}).get("p50_ms", 0.0) for m in modes]
        right.bar([m + offset for m in range(len(modes))], values, width, label=PEER_LABELS[s])
    right.set_xticks(range(len(modes)), modes, rotation=15)
    right.set_yscale("log")
    right.set_ylabel("p50 ms (log)")
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize="x-small")
    fig.suptitle("Read path next to peers: same memories, same vectors")
    return _save(fig, plt, path)


def qa_chart(aggregates: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """F1 and J (%) per question group of a QA run (``report.aggregate`` rows)."""
    plt = pyplot()
    rows = [r for r in aggregates if r["name"] != "answerable"]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(rows)), 4.0))
    series = {
        "F1": [r["f1"] or 0.0 for r in rows],
        "J": [r["j"] or 0.0 for r in rows],
    }
    _bars(ax, [r["name"] for r in rows], series)
    ax.set_ylabel("share (F1, judged correct)")
    ax.set_title("QA accuracy per category")
    return _save(fig, plt, path)


def multiprocess_chart(report: Mapping[str, Any], path: Path) -> Path:
    """Per lock kind against the worker count: turns/s, p50 and p95 of one write, live
    duplicates; and each kill's unblock time in the fault test."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(17.0, 4.2))
    speed, latency, duplicates, unblock = axes
    rows = report["load"]
    kinds = list(dict.fromkeys(r["lock"] for r in rows))
    for kind in kinds:
        mine = sorted((r for r in rows if r["lock"] == kind), key=lambda r: r["workers"])
        ws = [r["workers"] for r in mine]
        speed.plot(ws, [r["turns_per_s"] for r in mine], marker="o", label=kind)
        line = latency.plot(ws, [r["p50_ms"] for r in mine], marker="o", label=f"{kind} p50")
        latency.plot(
            ws, [r["p95_ms"] for r in mine], marker="x", ls="--", color=line[0].get_color(),
            label=f"{kind} p95",
        )  # fmt: skip
        duplicates.plot(ws, [r["duplicates"] for r in mine], marker="o", label=kind)
    counts = sorted({r["workers"] for r in rows})
    for ax, title, unit in (
        (speed, "Throughput", "acknowledged turns/s"),
        (latency, "One write_turn (deferred: submit)", "ms"),
        (duplicates, "Live duplicates after the run", "facts beyond one per slot"),
    ):
        ax.set_title(title)
        ax.set_xlabel("worker processes")
        ax.set_xticks(counts)
        ax.set_ylabel(unit)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    faults = report["fault"]
    unblock.boxplot(
        [r["unblock_ms"] or [0.0] for r in faults], tick_labels=[r["lock"] for r in faults]
    )
    unblock.set_title("Fault: kill to the next holder's lock")
    unblock.set_ylabel("ms")
    unblock.grid(axis="y", alpha=0.3)
    fig.suptitle("Processes writing one memory on one chroma run")
    return _save(fig, plt, path)


def scale_chart(report: Mapping[str, Any], path: Path) -> Path:
    """p50 of each component of the read against the scope size (log x); and ``retrieve``
    and the read node against embed + nearest, the floor the targets measure from."""
    from benchmarks.scale import COMPONENTS

    plt = pyplot()
    rows = sorted(report["rows"], key=lambda r: r["size"])
    sizes = [r["size"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13.0, 4.8))
    for key, label in COMPONENTS.items():
        if key in ("graph_plain", "graph_read", "graph_embed", "embed_nearest"):
            continue
        left.plot(sizes, [r["components"][key]["p50_ms"] for r in rows], marker="o", label=label)
    left.set_title("Components of the read, p50")
    right.plot(
        sizes, [r["ratios"]["embed_plus_nearest_ms"] for r in rows], marker="o", ls="--",
        color="tab:gray", label="embed + nearest",
    )  # fmt: skip
    right.plot(
        sizes, [r["components"]["retrieve"]["p50_ms"] for r in rows], marker="o",
        label="retrieve",
    )  # fmt: skip
    right.plot(
        sizes, [r["ratios"]["read_node_ms"] for r in rows], marker="o",
        label="read node in a graph (with - without)",
    )  # fmt: skip
    right.set_title("The read against embed + nearest, p50")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(sizes, [f"{s:,}" for s in sizes])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("memories in the scope (real turns)")
        ax.set_ylabel("p50 ms")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    cfg = report["config"]
    fig.suptitle(
        f"The product read at scale: {cfg['questions']} real questions, "
        f"{cfg['scopes']} other scopes in the store"
    )
    return _save(fig, plt, path)


def users_chart(report: Mapping[str, Any], path: Path) -> Path:
    """Per mode, against the number of users (log x): p50 of a cold and a warm read, an
    add and a new user's first add; and the memory the store took (the server's too)
    and the disk per user."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13.0, 4.8))
    series = {
        "read_cold": "read, cold",
        "read_warm": "read, warm",
        "add": "add",
        "first_add": "a new user's first add",
    }
    sizes: set[int] = set()
    for mode in report["modes"]:
        rows = sorted(mode["rows"], key=lambda r: r["users"])
        users = [r["users"] for r in rows]
        sizes.update(users)
        for key, label in series.items():
            left.plot(users, [r[key]["p50_ms"] for r in rows], marker="o",
                      label=f"{mode['mode']}: {label}")  # fmt: skip
        held = [r.get("server_rss_mb") or r["rss_store_mb"] for r in rows]
        right.plot(users, held, marker="o", label=f"{mode['mode']}: memory MB (the store's)")
        if (
            all(r.get("rss_served_mb") is not None for r in rows)
            and rows[0].get("server_rss_mb") is None
        ):
            right.plot(users, [r["rss_served_mb"] for r in rows], marker="^",
                       label=f"{mode['mode']}: memory MB after serving")  # fmt: skip
        right.plot(users, [r["disk_per_new_user_kb"] for r in rows], marker="s", ls="--",
                   label=f"{mode['mode']}: disk KB per new 5-memory user")  # fmt: skip
    left.set_title("Latency p50 (ms)")
    right.set_title("Memory (MB) and disk per user (KB)")
    ticks = sorted(sizes)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(ticks, [f"{s:,}" for s in ticks])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("users in the store")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    budget = report["config"].get("cache_mb")
    fig.suptitle(f"Users, not memories: one store grown in one run (cache budget {budget} MB)")
    return _save(fig, plt, path)


def window_chart(report: Mapping[str, Any], path: Path) -> Path:
    """The agent's prompt tokens per turn, with the window and with the full history (one
    panel per part of the run), the budget as a dashed line: flat against linear."""
    plt = pyplot()
    budget = report["config"]["budget"]
    parts = [("Scripted thread", report["thread"])]
    if report.get("locomo"):
        loco = report["locomo"]
        parts.append((f"LoCoMo {loco['sample_id']} replay ({loco['turns']} turns)", loco))
    fig, axes = plt.subplots(1, len(parts), figsize=(6.5 * len(parts), 4.6), squeeze=False)
    for ax, (title, part) in zip(axes[0], parts, strict=True):
        for key, label in (("full", "full history"), ("window", f"max_tokens={budget}")):
            side = part[key]
            turns = range(1, len(side["prompt_tokens"]) + 1)
            ax.plot(turns, side["prompt_tokens"], label=f"{label}: prompt")
            if key == "window":  # the full history's thread is its prompt less the block
                ax.plot(turns, side["thread_tokens"], lw=0.8, label=f"{label}: thread only")
        ax.axhline(budget, ls="--", color="tab:gray", lw=1, label="max_tokens")
        ax.set_title(title)
        ax.set_xlabel("turn")
        ax.set_ylabel("prompt tokens (approximate)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle("Working memory: the agent's prompt per turn, with and without the window")
    return _save(fig, plt, path)


def draw(data: Mapping[str, Any], out: Path, stem: str) -> Path:
    """Draw the chart for one loaded result into ``out/<stem>.png``; return its path."""
    kind = kind_of(data)
    path = out / f"{stem}.png"
    if kind == "retrieval":
        return retrieval_chart(data, path)
    if kind == "store":
        return store_chart(data, path)
    if kind == "peers":
        return peers_chart(data, path)
    if kind == "multiprocess":
        return multiprocess_chart(data, path)
    if kind == "scale":
        return scale_chart(data, path)
    if kind == "window":
        return window_chart(data, path)
    if kind == "users":
        return users_chart(data, path)
    return qa_chart(data["aggregates"], path)


def main(argv: Sequence[str] | None = None) -> int:
    """Draw one PNG per JSON file (named after it) into ``--out``; 2 on a bad file."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.plots", description=__doc__.split("\n")[0]
    )
    parser.add_argument("files", nargs="+", type=Path, help="result JSON files")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the PNGs")
    args = parser.parse_args(argv)
    for file in args.files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            path = draw(data, args.out, file.stem)
        except (OSError, ValueError, KeyError) as exc:
            print(f"error: {file}: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
