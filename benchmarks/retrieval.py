"""Retrieval evaluation on LoCoMo and LongMemEval: no model at query time.

Each conversation (or question haystack) is replayed into a fresh store (see
``ingest``), then every question is asked of every variant in
:data:`VARIANTS` over that conversation's scope. A variant takes an
:class:`Ask` and returns memory ids, best first; register a new one with
``VARIANTS["name"] = fn`` and pass ``--variants name``: the loop is unchanged.

- ``default``: ``retrieve`` as shipped, with its defaults: what a user's agent reads;
- ``cosine``: ``internals(store).nearest`` alone, the naive vector store (an ablation);
- ``bm25``: ``internals(store).keyword`` alone, the lexical index (an ablation).

The default mode, ``product``, replays every turn through the write path (``MemoryWriter``,
the offline rules model unless ``--model``): episodes and the facts linked to them, as a
user's agent stores them. The README's ``blended``/``hybrid``/``best`` rows are the record of
the retired variants (the old defaults, and the eval-only recipe the ranking now ships).

Metrics at k come from a call asking for k memories, so they show what an agent
asking for k gets (``retrieve`` fetches a candidate pool that grows with k).
LongMemEval's session metrics, which upstream computes on a longer turn ranking,
use the deepest call, followed by the turns it did not return in corpus order.

Run it::

    python -m benchmarks.retrieval --data ../shared/data --dataset locomo \\
        --variants default,cosine,bm25 --out results.json

>>> sorted(VARIANTS)
['bm25', 'cosine', 'default']
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from benchmarks.datasets import (
    DATASETS,
    LOCOMO_CATEGORIES,
    Conversation,
    LmeQuestion,
    LmeSession,
    iter_longmemeval,
    load_locomo,
    missing_data,
)
from benchmarks.ingest import (
    LME_ROLES,
    MODES,
    CachedEmbeddings,
    Ingested,
    Mode,
    ingest_locomo,
    ingest_longmemeval,
    lme_gold_turns,
)
from benchmarks.metrics import (
    lme_session_metrics,
    lme_turn_metrics,
    mean,
    recall_fraction,
)
from benchmarks.models import named_chat_model
from langgraph_memory import MemoryStore, MemoryWriter
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.read import retrieve
from langgraph_memory.store import internals
from langgraph_memory.write import ChatMemoryModel, MemoryModel
from langgraph_memory.write.rules import RulesModel

LOCOMO_KS: tuple[int, ...] = (5, 10, 25)
LME_SESSION_KS: tuple[int, ...] = (5, 10)
LME_TURN_KS: tuple[int, ...] = (5, 10, 50)


@dataclass(frozen=True)
class Ask:
    """One question put to a variant: where to look, what, how many, and when."""

    store: MemoryStore
    scope: str
    query: str
    k: int
    now: datetime


#: A retrieval variant: memory ids, best first: those of at most ``ask.k`` results.
Variant = Callable[[Ask], list[str]]


def default(ask: Ask) -> list[str]:
    """``retrieve`` as shipped, with its defaults: what a user's agent reads. Each of
    the ``k`` results is an item: a fact with the turns that said it and an earlier
    one it replaced (``Retrieved.shown``), all in the prompt, all counted.

    ``touch=False``: reading must not refresh ``last_accessed``, or each question
    would change the recency seen by the next.
    """
    found = retrieve(ask.store, ask.scope, ask.query, k=ask.k, now=ask.now, touch=False)
    return [m.id for r in found[: ask.k] for m in r.shown]


def bm25(ask: Ask) -> list[str]:
    """The ``k`` best memories by the store's lexical index alone (``internals(store).keyword``)."""
    return [h.memory.id for h in internals(ask.store).keyword(ask.scope, ask.query, k=ask.k)]


def cosine(ask: Ask) -> list[str]:
    """The ``k`` nearest memories by cosine similarity (``internals(store).nearest``)."""
    return [h.memory.id for h in internals(ask.store).nearest(ask.scope, ask.query, k=ask.k)]


VARIANTS: dict[str, Variant] = {
    "default": default,
    "cosine": cosine,
    "bm25": bm25,
}


def ranked_units(memory_ids: Sequence[str], done: Ingested) -> list[str]:
    """The units the memories stand for, in rank order, each once.

    >>> from datetime import datetime
    >>> done = Ingested("user:a", {"m1": ("D1",), "m2": ("D2", "D1")}, ("D1", "D2"), datetime.min)
    >>> ranked_units(["m2", "m1", "gone"], done)
    ['D2', 'D1']
    """
    out = [u for m in memory_ids for u in done.units.get(m, ())]
    return list(dict.fromkeys(out))


def _store(root: Path, name: str, embeddings: Embeddings) -> MemoryStore:
    return MemoryStore(root / name, embeddings=embeddings)


def _writer(store: MemoryStore, mode: Mode, model: MemoryModel | None) -> MemoryWriter | None:
    """The writer a ``product`` or ``write_path`` replay needs (rules model by default);
    None otherwise."""
    if mode not in ("product", "write_path"):
        return None
    return MemoryWriter(store, model=model if model is not None else RulesModel())


def _drop(store: MemoryStore) -> None:
    path = store.path
    store.close()
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


# -- LoCoMo -------------------------------------------------------------------------------


def run_locomo(
    conversations: Iterable[Conversation],
    variants: Sequence[str],
    *,
    embeddings: Embeddings,
    mode: Mode = "raw",
    ks: Sequence[int] = LOCOMO_KS,
    memory_model: MemoryModel | None = None,
    workdir: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Evidence recall@k of each variant, per question, over every conversation.

    In ``write_path`` mode every turn goes through a ``MemoryWriter`` with ``memory_model``
    (the offline rules model when None). Returns ``{"questions": [...], "summary": {...},
    "meta": {...}}`` (see :func:`summarize_locomo`).
    """
    fns = {v: VARIANTS[v] for v in variants}
    rows: list[dict[str, Any]] = []
    meta: dict[str, Any] = {
        "mode": mode,
        "ks": list(ks),
        "bad_evidence": 0,
        "skipped_no_evidence": 0,
        "ingest_s": 0.0,
        "memories": 0,
        "query_s": dict.fromkeys(variants, 0.0),
    }
    root = Path(tempfile.mkdtemp(prefix="lgm-eval-", dir=workdir))
    try:
        for conv in conversations:
            store = _store(root, conv.sample_id, embeddings)
            try:
                done = ingest_locomo(store, conv, mode, writer=_writer(store, mode, memory_model))
                meta["ingest_s"] += done.seconds
                meta["memories"] += done.memories
                meta["bad_evidence"] += conv.bad_evidence
                for q in conv.questions:
                    if not q.evidence:
                        meta["skipped_no_evidence"] += 1
                        continue
                    row: dict[str, Any] = {
                        "sample_id": conv.sample_id,
                        "question": q.question,
                        "category": q.category,
                        "evidence": list(q.evidence),
                    }
                    for name, fn in fns.items():
                        started = time.perf_counter()
                        for k in ks:
                            ids = fn(Ask(store, done.scope, q.question, k, done.end))
                            found = set(ranked_units(ids, done))
                            row[f"{name}@{k}"] = recall_fraction(q.evidence, found)
                        meta["query_s"][name] += time.perf_counter() - started
                    rows.append(row)
                log(f"{conv.sample_id}: {done.memories} memories in {done.seconds:.1f}s")
            finally:
                _drop(store)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"questions": rows, "summary": summarize_locomo(rows, variants, ks), "meta": meta}


def summarize_locomo(
    rows: Sequence[dict[str, Any]], variants: Sequence[str], ks: Sequence[int]
) -> dict[str, dict[str, Any]]:
    """Mean recall per category, over categories 1-4 (headline: Mem0 & co. drop the
    adversarial ones) and over 1-5 (the LoCoMo paper's overall).

    >>> rows = [{"category": 1, "v@5": 1.0}, {"category": 5, "v@5": 0.0}]
    >>> s = summarize_locomo(rows, ["v"], [5])
    >>> s["overall 1-4"]["v@5"], s["overall 1-5"]["v@5"], s["overall 1-5"]["n"]
    (1.0, 0.5, 2)
    """
    groups: dict[str, list[dict[str, Any]]] = {
        f"{c} {name}": [r for r in rows if r["category"] == c]
        for c, name in LOCOMO_CATEGORIES.items()
    }
    groups["overall 1-4"] = [r for r in rows if r["category"] in (1, 2, 3, 4)]
    groups["overall 1-5"] = list(rows)
    return {
        label: {"n": len(group)}
        | {f"{v}@{k}": mean(r[f"{v}@{k}"] for r in group) for v in variants for k in ks}
        for label, group in groups.items()
    }


# -- LongMemEval ----------------------------------------------------------------------------


def with_distractors(questions: Sequence[LmeQuestion], n: int) -> list[LmeQuestion]:
    """Each question with ``n`` sessions of the others added to its haystack, in date
    order (drawn per question, the same in every run; their ``has_answer`` marks cleared:
    they answer another question). The oracle split holds only each question's evidence
    sessions: with distractors from the same chats it stands in for S, the held-out set,
    while a read is developed.

    >>> from datetime import datetime, timezone
    >>> from benchmarks.datasets import LmeTurn
    >>> def q(i):
    ...     s = LmeSession(f"s{i}", datetime(2023, 1, i, tzinfo=timezone.utc),
    ...                    (LmeTurn("user", f"Turn {i}.", has_answer=True),))
    ...     return LmeQuestion(f"q{i}", "single-session-user", "?", "!", s.date, (s,), ("s",))
    >>> [q1, *_] = with_distractors([q(1), q(2), q(3)], 2)
    >>> [(s.session_id, s.turns[0].has_answer) for s in q1.sessions]
    [('s1', True), ('s2', False), ('s3', False)]
    """
    pool: dict[str, LmeSession] = {}
    for q in questions:
        for s in q.sessions:
            pool.setdefault(s.session_id, s)
    ids = sorted(pool)
    out = []
    for q in questions:
        rng = random.Random(q.question_id)
        own = {s.session_id for s in q.sessions}
        drawn = [i for i in rng.sample(ids, min(len(ids), n + 20)) if i not in own][:n]
        others = [
            replace(pool[i], turns=tuple(replace(t, has_answer=False) for t in pool[i].turns))
            for i in drawn
        ]
        sessions = sorted([*q.sessions, *others], key=lambda s: s.date)
        out.append(replace(q, sessions=tuple(sessions)))
    return out


def _lme_row(
    fn: Variant, store: MemoryStore, done: Ingested, q: LmeQuestion, gold: set[str]
) -> dict[str, float]:
    row: dict[str, float] = {}
    deepest: list[str] = []
    for k in sorted(set(LME_TURN_KS)):
        ranked = ranked_units(fn(Ask(store, done.scope, q.question, k, q.question_date)), done)
        any_, all_, ndcg_ = lme_turn_metrics(ranked, gold, done.corpus, k)
        row |= {f"turn_any@{k}": any_, f"turn_all@{k}": all_, f"turn_ndcg@{k}": ndcg_}
        deepest = ranked
    # Upstream ranks the whole corpus; what the deepest call left out follows in corpus order.
    seen = set(deepest)
    full = deepest + [u for u in done.corpus if u not in seen]
    for k in LME_SESSION_KS:
        any_, all_, ndcg_ = lme_session_metrics(full, gold, done.corpus, k)
        row |= {f"sess_any@{k}": any_, f"sess_all@{k}": all_, f"sess_ndcg@{k}": ndcg_}
    return row


def run_longmemeval(
    questions: Iterable[LmeQuestion],
    variants: Sequence[str],
    *,
    embeddings: Embeddings,
    roles: Sequence[str] = LME_ROLES,
    limit: int | None = None,
    every: int = 1,
    offset: int = 0,
    mode: Mode = "raw",
    memory_model: MemoryModel | None = None,
    workdir: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Upstream's session and turn metrics of each variant, per non-abstention question
    (every ``every``-th of them from the ``offset``-th: a sample spread over the file's
    question types; offsets 0 to ``every - 1`` split the file into disjoint parts that
    ``merge_lme`` puts back together).

    Each question's haystack is replayed into a store of its own, queried, and
    deleted, so memory stays flat however many questions run. ``mode`` is ``raw`` (the
    ``roles`` turns) or ``write_path`` (every turn through a ``MemoryWriter`` with
    ``memory_model``, the rules model when None).
    """
    fns = {v: VARIANTS[v] for v in variants}
    rows: list[dict[str, Any]] = []
    meta: dict[str, Any] = {
        "mode": mode,
        "roles": list(roles),
        "skipped_abstention": 0,
        "no_gold": 0,
        "ingest_s": 0.0,
        "memories": 0,
        "query_s": dict.fromkeys(variants, 0.0),
    }
    root = Path(tempfile.mkdtemp(prefix="lgm-eval-", dir=workdir))
    seen = 0
    try:
        for q in questions:
            if q.abstention:  # upstream's retrieval metrics skip the _abs questions
                meta["skipped_abstention"] += 1
                continue
            seen += 1
            if (seen - 1) % every != offset:
                continue
            if limit is not None and len(rows) >= limit:
                break
            gold = lme_gold_turns(q, roles)
            # Kept, as upstream keeps them (recall_any 0, recall_all 1, NDCG 0), and counted.
            meta["no_gold"] += not gold
            store = _store(root, q.question_id, embeddings)
            try:
                writer = _writer(store, mode, memory_model)
                done = ingest_longmemeval(store, q, mode, roles=roles, writer=writer)
                meta["ingest_s"] += done.seconds
                meta["memories"] += done.memories
                row: dict[str, Any] = {
                    "question_id": q.question_id,
                    "type": q.type,
                    "gold_turns": len(gold),
                }
                for name, fn in fns.items():
                    started = time.perf_counter()
                    row |= {f"{name}:{m}": v for m, v in _lme_row(fn, store, done, q, gold).items()}
                    meta["query_s"][name] += time.perf_counter() - started
                rows.append(row)
            finally:
                _drop(store)
            if len(rows) % 25 == 0:
                log(f"{len(rows)} questions, ingest {meta['ingest_s']:.0f}s")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"questions": rows, "summary": summarize_lme(rows, variants), "meta": meta}


#: The meta counts and times of a part that add up over parts.
_ADDED_UP = ("no_gold", "ingest_s", "memories", "seconds")


def merge_lme(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """LongMemEval results of disjoint parts (``--every N --offset i``) as one: the
    questions together, the summary over all of them, the times and counts added.
    Parts that share a question, or ask other variants, are refused.

    >>> row = {"type": "multi-session"} | {f"v:{m}": 1.0 for m in LME_METRICS}
    >>> part = lambda q: {"questions": [row | {"question_id": q}],
    ...     "meta": {"variants": ["v"], "ingest_s": 1.0, "query_s": {"v": 0.5}}}
    >>> merged = merge_lme([part("a"), part("b")])
    >>> merged["summary"]["overall"]["n"], merged["meta"]["ingest_s"], merged["meta"]["parts"]
    (2, 2.0, 2)
    """
    if not parts:
        raise ValueError("nothing to merge")
    variants = list(parts[0]["meta"]["variants"])
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    meta: dict[str, Any] = {**parts[0]["meta"], "parts": len(parts)}
    for n, part in enumerate(parts):
        if list(part["meta"]["variants"]) != variants:
            raise ValueError(f"part {n} asks {part['meta']['variants']}, the first {variants}")
        ids = {r["question_id"] for r in part["questions"]}
        if ids & seen:
            raise ValueError(f"part {n} repeats questions {sorted(ids & seen)[:3]}...")
        seen |= ids
        rows += part["questions"]
        if n:
            # Not skipped_abstention: every part skips all of the file's (before it
            # picks its share), so any one part's count is the file's.
            for key in _ADDED_UP:
                if key in part["meta"]:
                    meta[key] = meta.get(key, 0) + part["meta"][key]
            meta["query_s"] = {v: meta["query_s"][v] + part["meta"]["query_s"][v] for v in variants}
    meta.pop("offset", None)
    if meta.get("every") == len(parts):
        meta["every"] = 1
    return {"questions": rows, "summary": summarize_lme(rows, variants), "meta": meta}


LME_METRICS: tuple[str, ...] = tuple(
    [f"sess_{m}@{k}" for k in LME_SESSION_KS for m in ("any", "all", "ndcg")]
    + [f"turn_{m}@{k}" for k in LME_TURN_KS for m in ("any", "all", "ndcg")]
)


def summarize_lme(
    rows: Sequence[dict[str, Any]], variants: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Mean of every metric per question type and overall.

    >>> rows = [{"type": "multi-session"} | {f"v:{m}": 1.0 for m in LME_METRICS}]
    >>> summarize_lme(rows, ["v"])["overall"]["v:sess_any@5"]
    1.0
    """
    types = sorted({r["type"] for r in rows})
    groups = {t: [r for r in rows if r["type"] == t] for t in types} | {"overall": list(rows)}
    return {
        label: {"n": len(group)}
        | {f"{v}:{m}": mean(r[f"{v}:{m}"] for r in group) for v in variants for m in LME_METRICS}
        for label, group in groups.items()
    }


# -- report ------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table; floats with 3 decimals, None as "-".

    >>> print(markdown_table(["a", "b"], [["x", 0.5], ["y", None]]))
    | a | b |
    |---|---|
    | x | 0.500 |
    | y | - |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def locomo_report(
    summary: dict[str, dict[str, Any]], variants: Sequence[str], ks: Sequence[int]
) -> str:
    """Per category (rows) x variant and k (columns)."""
    header = ["category", "n"] + [f"{v} R@{k}" for v in variants for k in ks]
    rows = [
        [label, g["n"], *(g[f"{v}@{k}"] for v in variants for k in ks)]
        for label, g in summary.items()
    ]
    return markdown_table(header, rows)


_LME_COLUMNS = (
    "sess_any@5",
    "sess_all@5",
    "sess_ndcg@5",
    "sess_any@10",
    "sess_all@10",
    "sess_ndcg@10",
    "turn_any@5",
    "turn_any@10",
    "turn_any@50",
    "turn_all@50",
)


def lme_report(summary: dict[str, dict[str, Any]], variants: Sequence[str]) -> str:
    """One table per variant: question types (rows) x the main metrics."""
    out = []
    for v in variants:
        rows = [
            [label, g["n"], *(g[f"{v}:{m}"] for m in _LME_COLUMNS)] for label, g in summary.items()
        ]
        out.append(f"**{v}**\n\n" + markdown_table(["type", "n", *_LME_COLUMNS], rows))
    return "\n\n".join(out)


# -- CLI ------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the evaluation; prints Markdown tables and optionally writes JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.retrieval",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--data",
        type=Path,
        help="folder with locomo/ and longmemeval/ (the project's copy is ../shared/data)",
    )
    parser.add_argument("--dataset", choices=sorted(DATASETS))
    parser.add_argument(
        "--variants",
        default="default,cosine,bm25",
        help=f"comma-separated, from {sorted(VARIANTS)}",
    )
    parser.add_argument(
        "--mode",
        choices=list(MODES),
        default="product",
        help="product (default): replay every turn through the write path (episodes and "
        "facts; with --model, else the offline rules model) as a user's agent would; raw: "
        "turns stored as memories; observations: LoCoMo's observations; write_path: the "
        "write path's facts only, units from its decisions",
    )
    parser.add_argument("--model", help="write_path: an OpenAI-compatible chat model name")
    parser.add_argument("--base-url", help="write_path: the endpoint of --model")
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="first N conversations (LoCoMo) or non-abstention questions",
    )
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        help="LongMemEval: every N-th non-abstention question (a sample over all types)",
    )
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        help="LongMemEval with --every N: start at the i-th question (0 to N-1), so that "
        "N runs cover the file in disjoint parts",
    )
    parser.add_argument(
        "--all-roles",
        action="store_true",
        help="LongMemEval: index assistant turns too (upstream: user only)",
    )
    parser.add_argument(
        "--distractors",
        type=int,
        default=0,
        help="LongMemEval: add N sessions of other questions to each haystack (the oracle "
        "split with distractors: a development stand-in for S; see with_distractors)",
    )
    parser.add_argument("--out", type=Path, default=None, help="write results as JSON here")
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="JSON",
        help="run nothing: put LongMemEval results of disjoint parts (--every N --offset i) "
        "together, print their table and write them to --out",
    )
    args = parser.parse_args(argv)
    if args.merge:
        try:
            merged = merge_lme([json.loads(p.read_text(encoding="utf-8")) for p in args.merge])
        except (OSError, ValueError, KeyError) as exc:
            parser.error(f"cannot merge {[str(p) for p in args.merge]}: {exc!r}")
        print(lme_report(merged["summary"], merged["meta"]["variants"]))
        if args.out:
            args.out.write_text(json.dumps(merged, indent=1, default=str), encoding="utf-8")
        return 0
    if args.data is None or args.dataset is None:
        parser.error("--data and --dataset are required (unless --merge)")
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {sorted(VARIANTS)}")
    problem = missing_data(args.data, DATASETS[args.dataset])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    path = args.data / DATASETS[args.dataset]

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if args.every < 1:
        parser.error(f"--every must be 1 or more, got {args.every}")
    if not 0 <= args.offset < args.every:
        parser.error(f"--offset must be from 0 to {args.every - 1}, got {args.offset}")
    if args.mode == "observations" and args.dataset != "locomo":
        parser.error("--mode observations exists for LoCoMo only")
    model: MemoryModel | None = None
    if args.model:
        model = ChatMemoryModel(named_chat_model(args.model, args.base_url)[0])
    embeddings = CachedEmbeddings(LocalMiniLM())
    started = time.perf_counter()
    if args.dataset == "locomo":
        convs = load_locomo(path)[: args.limit] if args.limit else load_locomo(path)
        result = run_locomo(
            convs, variants, embeddings=embeddings, mode=args.mode, memory_model=model, log=log
        )
        table = locomo_report(result["summary"], variants, LOCOMO_KS)
    else:
        roles = ("user", "assistant") if args.all_roles else LME_ROLES
        questions = iter_longmemeval(path)
        if args.distractors:
            questions = iter(with_distractors(list(questions), args.distractors))
        result = run_longmemeval(
            questions,
            variants,
            embeddings=embeddings,
            roles=roles,
            limit=args.limit,
            every=args.every,
            offset=args.offset,
            mode=args.mode,
            memory_model=model,
            log=log,
        )
        table = lme_report(result["summary"], variants)
    result["meta"] |= {
        "dataset": args.dataset,
        "memory_model": (
            (model.name if model else "rules") if args.mode in ("product", "write_path") else None
        ),
        "variants": variants,
        "limit": args.limit,
        "every": args.every,
        "offset": args.offset,
        "distractors": args.distractors,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(table)
    print("\n" + json.dumps(result["meta"], default=str))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
