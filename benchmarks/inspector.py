"""The memory inspector's pages for a person with 5,000 memories, and its screenshots.

One person (``user:big``) holds 5,000 active memories of real text (LongMemEval-S's
distinct chat turns, ``benchmarks.real_text``, with the shipped MiniLM's cached vectors):
3,000 episodes (what was said), 1,950 facts (real user turns stored as facts), 50 rules,
and 100 of the facts corrected once (so 5,100 versions); 20 other people hold 100
episodes each. Each page is requested through the inspector's app (``create_app``, in
process through Starlette's test client: what a browser's request costs, less the socket),
page by page in turn (``store_latency.time_paths``), beside the two reads a person's page
can make: ``internals(store).versions`` (what it reads: the active versions from the
lexical index's copy, the archived ones from Chroma) and ``find(archived=True)`` (the same
versions, all from Chroma)::

    python -m benchmarks inspector --data ../shared/data --out docs/results/inspector.json

The target (issue 25): a person's page, paged, p50 <= 300 ms. ``--server`` measures the
same store on a ``chroma run`` server too (there every record comes from Chroma).

``--screenshots DIR`` instead runs ``langgraph-memory demo`` into a new store, serves it
with ``langgraph-memory inspect`` and saves the scopes, person, memory and search pages
as PNGs (Debian's chromium through Playwright)::

    python -m benchmarks inspector --screenshots docs/inspector
"""

from __future__ import annotations

import argparse
import contextlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.datasets import DATASETS, missing_data
from benchmarks.real_text import VectorCache, default_cache, load_corpus
from benchmarks.reports import machine, publish
from benchmarks.rules_cost import RULES
from benchmarks.scale import add_turns
from benchmarks.servers import running_chroma, serving
from benchmarks.store_latency import QueryPath, time_paths
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.store import MemoryStore, internals

__all__ = ["TARGET_MS", "fill", "main", "measure", "render_markdown", "screenshots"]

#: The issue's bound on a person's page, p50.
TARGET_MS = 300.0
#: The person measured.
BIG = "user:big"
EPISODES, FACTS, CORRECTED, OTHERS, PER_OTHER = 3000, 1950, 100, 20, 100
TOKEN = "benchmark-token-0123456789"
CHROMIUM = "/usr/bin/chromium"


def fill(store: MemoryStore, data: Path, cache: Path) -> dict[str, int]:
    """The person and the others (see the module docstring); what was stored."""
    corpus = load_corpus(data)
    embeddings = store.embeddings
    name = embedder_name(embeddings)
    turns = list(corpus.turns[: EPISODES + OTHERS * PER_OTHER])
    # Facts: later user turns short enough to read as one statement each.
    rest = corpus.turns[len(turns) :]
    facts = [t for t in rest if t.role == "user" and 20 <= len(t.text) <= 240][: FACTS * 2]
    texts = [t.text for t in turns] + [t.text for t in facts]
    vectors = VectorCache(cache, embeddings, name).vectors(texts)
    add_turns(store, BIG, turns[:EPISODES], vectors[:EPISODES])
    for i in range(OTHERS):
        first = EPISODES + i * PER_OTHER
        part = turns[first : first + PER_OTHER]
        add_turns(store, f"user:other-{i}", part, vectors[first : first + PER_OTHER])
    base = len(turns)
    stored = store.add_many(
        BIG,
        [{"text": t.text} for t in facts[:FACTS]],
        vectors=vectors[base : base + FACTS].tolist(),
    )
    store.add_many(BIG, [{"text": t, "kind": "procedural"} for t in RULES[:50]])
    for memory, new in zip(stored[:CORRECTED], facts[FACTS : FACTS + CORRECTED], strict=True):
        store.update(BIG, memory.id, new.text, source="user_correction")
    return {"active": store.count(BIG), "versions": store.count(BIG, archived=True)}


def measure(store: MemoryStore, *, rounds: int, warmup: int) -> dict[str, dict[str, float]]:
    """p50 and p95 (ms) of each page and of the two reads, taken in turn."""
    from starlette.testclient import TestClient

    from langgraph_memory.inspector import create_app

    client = TestClient(create_app(store, token=TOKEN), base_url="http://127.0.0.1:8765")
    client.get(f"/?token={TOKEN}")
    handle = internals(store)
    corrected = next(m for m in store.active(BIG) if m.replaces is not None)
    pages = -(-store.count(BIG) // 50)  # the last page (ceiling division)
    gets = {
        "person page 1": f"/person?scope={BIG}",
        f"person page {pages} (the last)": f"/person?scope={BIG}&page={pages}",
        "person, text filter": f"/person?scope={BIG}&text=recipe",
        "person, archived": f"/person?scope={BIG}&state=archived",
        "memory page (2 versions)": f"/memory?scope={BIG}&id={corrected.id}",
        "search page": f"/search?scope={BIG}&q=What+did+I+say+about+my+garden%3F",
        f"scopes page ({OTHERS + 1} people)": "/",
    }

    def page(path: str) -> QueryPath:
        def call(_: int) -> Any:
            got = client.get(path)
            if got.status_code != 200:
                raise RuntimeError(f"{path}: {got.status_code} {got.text[:300]}")
            return got

        return QueryPath(call, lambda _: [])

    paths: dict[str, QueryPath] = {
        "read: versions (index + Chroma)": QueryPath(lambda _: handle.versions(BIG), lambda _: []),
        "read: find(archived=True) (Chroma)": QueryPath(
            lambda _: handle.find(BIG, archived=True), lambda _: []
        ),
        **{name: page(path) for name, path in gets.items()},
    }
    timed = time_paths(paths, warmup, rounds)
    return {
        name: {
            "p50_ms": statistics.median(t.seconds) * 1000,
            "p95_ms": sorted(t.seconds)[max(0, int(len(t.seconds) * 0.95) - 1)] * 1000,
        }
        for name, t in timed.items()
    }


def run(data: Path, cache: Path, *, rounds: int, warmup: int, server: bool) -> dict[str, Any]:
    """Build the store (and, with ``server``, the same on a Chroma server) and measure."""
    embeddings = LocalMiniLM()
    report: dict[str, Any] = {
        "config": {"rounds": rounds, "warmup": warmup, "page_size": 50},
        "environment": machine(embedder_name(embeddings)),
        "target_ms": TARGET_MS,
    }
    with tempfile.TemporaryDirectory(prefix="lgm-inspector-") as root:
        with MemoryStore(Path(root) / "store", embeddings=embeddings) as store:
            report["stored"] = fill(store, data, cache)
            report["embedded"] = measure(store, rounds=rounds, warmup=warmup)
        if server:
            with running_chroma(Path(root) / "server") as chroma:
                on_server = MemoryStore(client=chroma.client(), embeddings=embeddings)
                fill(on_server, data, cache)
                report["server"] = measure(on_server, rounds=rounds, warmup=warmup)
                on_server.close()
    p50 = report["embedded"]["person page 1"]["p50_ms"]
    report["passed"] = p50 <= TARGET_MS
    return report


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as a Markdown table (ms) with the ratio to the page's read."""
    modes = [m for m in ("embedded", "server") if m in report]
    head = "| p50 ms (p95) | " + " | ".join(modes) + " |"
    lines = [
        f"# The inspector's pages, a person with {report['stored']['active']:,} memories "
        f"({report['stored']['versions']:,} versions), 50 a page",
        "",
        head,
        "|---|" + "---:|" * len(modes),
    ]
    for name in report["embedded"]:
        cells = []
        for mode in modes:
            row = report[mode][name]
            base = report[mode]["read: versions (index + Chroma)"]["p50_ms"]
            ratio = "" if name.startswith("read:") else f", {row['p50_ms'] / base:.2f}x the read"
            cells.append(f"{row['p50_ms']:.1f} ({row['p95_ms']:.1f}){ratio}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    p50 = report["embedded"]["person page 1"]["p50_ms"]
    verdict = "PASS" if report["passed"] else "FAIL"
    lines += ["", f"Person page p50 **{p50:.1f} ms** (target <= {TARGET_MS:.0f} ms: {verdict})."]
    return "\n".join(lines)


@contextlib.contextmanager
def inspecting(path: Path, log: Path) -> Iterator[str]:
    """`langgraph-memory inspect --path PATH --port 0` running; yields its URL."""
    url = re.compile(r"(http://\S+/\?token=\S+)")
    command = [sys.executable, "-m", "langgraph_memory.cli", "inspect", "--path", str(path)]

    def printed() -> str | None:
        found = url.search(log.read_text(errors="replace")) if log.exists() else None
        return found.group(1) if found else None

    with serving([*command, "--port", "0"], ready=lambda: bool(printed()), log_path=log,
                 what="langgraph-memory inspect"):  # fmt: skip
        yield str(printed())


def screenshots(out: Path) -> list[Path]:
    """The demo's store in the inspector, page by page, as PNGs in ``out``."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="lgm-shots-") as root:
        store = Path(root) / "store"
        demo = [sys.executable, "-m", "langgraph_memory.cli", "demo", "--path", str(store)]
        subprocess.run(demo, check=True, capture_output=True, timeout=600)
        with inspecting(store, Path(root) / "inspect.log") as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1200, "height": 760})
            base = url.split("/?", 1)[0]

            def shot(name: str, action: Callable[[], object]) -> None:
                action()
                path = out / f"{name}.png"
                page.screenshot(path=str(path), full_page=True)
                saved.append(path)

            shot("scopes", lambda: page.goto(url))
            shot("person", lambda: page.goto(f"{base}/person?scope=user%3Apriya&state=all"))
            moved = page.get_by_role("link", name="User lives in Pune.")
            shot("memory", lambda: moved.first.click())
            search = f"{base}/search?scope=user%3Apriya&q=Where+do+I+live+now%3F"
            shot("search", lambda: page.goto(search))
            browser.close()
    return saved


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (2 when the data is missing), or take the screenshots."""
    p = argparse.ArgumentParser(prog="python -m benchmarks inspector", description=__doc__)
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--cache", type=Path, default=default_cache())
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--server", action="store_true", help="measure on a chroma run server too")
    p.add_argument("--out", type=Path)
    p.add_argument("--screenshots", type=Path, metavar="DIR", help="save the pages as PNGs")
    args = p.parse_args(argv)
    if args.screenshots:
        for path in screenshots(args.screenshots):
            print(path)
        return 0
    problem = missing_data(args.data, DATASETS["longmemeval-s"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    began = time.perf_counter()
    report = run(args.data, args.cache, rounds=args.rounds, warmup=args.warmup,
                 server=args.server)  # fmt: skip
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
