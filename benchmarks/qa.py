"""End-to-end QA evaluation: retrieve, answer, score (F1 and an LLM judge), report.

For each question (a :class:`QAItem`) the runner retrieves the ``k`` best memories
of the item's scope as of the question's date, renders them, asks the answer
model to answer briefly from them (or say "No information available"), then
scores the answer with LoCoMo's official F1 (``answer_scoring``) and, optionally, the
LLM judge J (``judge``). Results go to ``results.json``, ``report.md`` and, when
matplotlib is installed, ``scores.png`` (``qa_report``).

It is resumable: every answer and verdict is appended to a JSON-lines cache as
soon as it exists, keyed by item id, model name, k and prompt version, so a
rerun after a crash or a time-out skips what is done. Retrieval does not touch
the store (``touch=False``): refreshing ``last_accessed`` would make one
question's answer depend on which questions ran before it.

Run it on a benchmark file: the questions are read from it and the conversations they ask
about are replayed into ``OUT/store`` first (``benchmarks.prepare``; resumable too), raw turns by
default, or through the full write path with the answer model (``--ingest write_path``)::

    python -m benchmarks.qa --data ../shared/data --dataset locomo --out out/
    python -m benchmarks.qa --data ../shared/data --dataset longmemeval-s \\
        --model qwen --base-url http://localhost:8000/v1 --judge-model gpt-4o-mini --k 10

or on a store filled by ``benchmarks.ingest`` (one scope per conversation, ``user:<sample_id>`` or
``user:<question_id>``) and an items file::

    python -m benchmarks.qa --store STORE --items items.jsonl --out out/

An items file is JSON lines, one ``QAItem`` each (``benchmarks.items``).

>>> answer_key("conv-1:0", "gpt-4o-mini", 10) != answer_key("conv-1:0", "gpt-4o-mini", 5)
True
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from benchmarks.answer_scoring import abstains, answer_f1
from benchmarks.datasets import DATASETS, missing_data
from benchmarks.items import QAItem, read_items
from benchmarks.judge import JUDGE_PROMPT_VERSION, judge_answer
from benchmarks.models import chat_model
from benchmarks.prepare import prepare
from benchmarks.qa_report import ItemResult, plot, write_reports
from langgraph_memory import MemoryStore, MemoryWriter
from langgraph_memory.graph import StandInChatModel
from langgraph_memory.read import render, retrieve

#: Part of the cache key of answers: change it whenever the answer prompt changes
#: (the memories block from ``read.render`` included). a2: memory texts quoted.
ANSWER_PROMPT_VERSION = "a2"
DEFAULT_K = 10

ANSWER_SYSTEM = """You answer questions about a person from what you remember of past \
conversations with them.

{memories}

{today}Answer from these memories only, as briefly as you can: a name, a date, a number \
or a short phrase, not a sentence.
If the memories do not contain the answer, reply exactly: No information available
Give dates as absolute dates (for example 7 May 2023), never relative ones: each memory is \
dated in brackets, so read "yesterday" or "last week" in a memory against its date."""


def answer_messages(item: QAItem, memories: str) -> list[BaseMessage]:
    """The answer prompt: the memories and rules as the system message, the question after.

    >>> m = answer_messages(QAItem("q", "locomo", "4", "Where?", "", "user:a"), "- [2023-05-08] x")
    >>> m[1].content
    'Where?'
    """
    today = ""
    if item.question_date is not None:
        today = f"Today is {item.question_date.strftime('%A, %d %B %Y')}.\n"
    system = ANSWER_SYSTEM.format(memories=memories, today=today)
    return [SystemMessage(system), HumanMessage(item.question)]


def _key(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:32]


def answer_key(item_id: str, model: str, k: int) -> str:
    """The cache key of an answer: item, model, k and answer prompt version."""
    return _key("answer", item_id, model, k, ANSWER_PROMPT_VERSION)


def judge_key(item_id: str, judge: str, answer: str) -> str:
    """The cache key of a verdict: item, judge model, prompt version and the answer judged."""
    return _key("judge", item_id, judge, JUDGE_PROMPT_VERSION, answer)


class Cache:
    """A JSON-lines file of records keyed by ``"key"``, appended and flushed one by one.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "cache.jsonl"
    >>> Cache(path).put("k1", {"answer": "Pune"})
    >>> Cache(path).get("k1")
    {'answer': 'Pune'}
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._records: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            with path.open(encoding="utf-8") as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line cut short by a crash: that item is redone
                    if isinstance(record, dict) and isinstance(record.get("key"), str):
                        self._records[record.pop("key")] = record

    def get(self, key: str) -> dict[str, Any] | None:
        """The record stored under ``key``, or None."""
        return self._records.get(key)

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store ``record`` under ``key``, on disk at once (a crash loses nothing done)."""
        self._records[key] = dict(record)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"key": key, **record}, ensure_ascii=False) + "\n")


class Progress:
    """A one-line counter with an ETA on stderr (from the items that called a model)."""

    def __init__(self, total: int, stream: IO[str] | None = None) -> None:
        self.total, self.done, self.cached = total, 0, 0
        self.stream = stream
        self._spent = 0.0

    def step(self, seconds: float, *, cached: bool) -> None:
        """Count one item, which took ``seconds`` (or came from the cache)."""
        self.done += 1
        self.cached += cached
        self._spent += seconds
        if self.stream is None:
            return
        last = self.done == self.total
        live = self.stream.isatty()
        # A log file gets a line per 5% instead of a carriage-return line per item.
        if not (live or last or self.done % max(1, self.total // 20) == 0):
            return
        fresh = self.done - self.cached
        eta = self._spent / fresh * (self.total - self.done) if fresh else 0.0
        start, end = ("\r", "\n" if last else "") if live else ("", "\n")
        self.stream.write(
            f"{start}[{self.done}/{self.total}] {self.cached} cached, "
            f"ETA {int(eta) // 60}m{int(eta) % 60:02d}s   {end}"
        )
        self.stream.flush()


def _text(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, list):  # content blocks: keep the text ones
        content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content).strip()


def run_qa(
    items: Iterable[QAItem],
    store: MemoryStore,
    model: BaseChatModel,
    *,
    model_name: str,
    k: int = DEFAULT_K,
    judge: BaseChatModel | None = None,
    judge_name: str = "",
    cache: Cache | None = None,
    progress: IO[str] | None = None,
) -> list[ItemResult]:
    """Answer and score every item (see the module docstring); cached work is reused.

    A model error propagates: what was done is in the cache, and a rerun resumes.
    """
    todo = list(items)
    cache = cache or Cache(None)
    counter = Progress(len(todo), progress)
    results = []
    for item in todo:
        started, fresh = time.monotonic(), False
        key = answer_key(item.id, model_name, k)
        record = cache.get(key)
        if record is None:
            fresh = True
            hits = retrieve(
                store, item.scope, item.question, k=k, now=item.question_date, touch=False
            )
            answer = _text(model.invoke(answer_messages(item, render(hits))))
            record = {"id": item.id, "answer": answer, "memory_ids": [h.memory.id for h in hits]}
            cache.put(key, record)
        answer = str(record["answer"])
        label = reasoning = None
        if judge is not None:
            jkey = judge_key(item.id, judge_name, answer)
            verdict = cache.get(jkey)
            if verdict is None:
                fresh = True
                j = judge_answer(
                    judge, item.question, item.gold, answer, abstention=item.is_abstention
                )
                verdict = {"id": item.id, "label": j.label, "reasoning": j.reasoning}
                cache.put(jkey, verdict)
            label, reasoning = str(verdict["label"]), str(verdict["reasoning"])
        results.append(
            ItemResult(
                id=item.id,
                dataset=item.dataset,
                category=item.category,
                question=item.question,
                gold=item.gold,
                answer=answer,
                abstention=item.is_abstention,
                f1=answer_f1(
                    answer,
                    item.gold,
                    dataset=item.dataset,
                    category=item.category,
                    abstention=item.is_abstention,
                ),
                abstained=abstains(answer),
                judge_label=label,
                judge_reasoning=reasoning,
                memory_ids=list(record.get("memory_ids", [])),
            )
        )
        counter.step(time.monotonic() - started if fresh else 0.0, cached=not fresh)
    return results


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.qa",
        description="Answer benchmark questions from a memory store and score them "
        "(LoCoMo F1, LLM judge J).",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--items", type=Path, help="questions, JSON lines (needs --store)")
    source.add_argument("--data", type=Path, help="benchmark data folder (with --dataset)")
    p.add_argument("--dataset", choices=sorted(DATASETS), help="the benchmark, with --data")
    p.add_argument(
        "--ingest",
        choices=["raw", "observations", "write_path"],
        default="raw",
        help="with --data: how conversations enter the store (write_path: through "
        "MemoryWriter with --model, else the offline rules model)",
    )
    p.add_argument("--store", type=Path, help="the MemoryStore directory (default OUT/store)")
    p.add_argument("--model", help="answer model (default: the environment's, else offline)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint of --model")
    p.add_argument("--judge-model", help="judge model (default: the environment's)")
    p.add_argument("--judge-base-url", help="endpoint of --judge-model (default: --base-url)")
    p.add_argument("--no-judge", action="store_true", help="F1 only")
    p.add_argument("--k", type=int, default=DEFAULT_K, help="memories retrieved per question")
    p.add_argument("--out", type=Path, default=Path("qa-results"), help="output directory")
    p.add_argument("--cache", type=Path, help="answer cache (default: OUT/cache.jsonl)")
    p.add_argument("--limit", type=int, help="only the first N items")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.items is not None and args.store is None:
        parser.error("--items needs --store (the store those items were ingested into)")
    if args.data is not None and args.dataset is None:
        parser.error("--data needs --dataset")
    if args.data is not None:
        problem = missing_data(args.data, DATASETS[args.dataset])
    elif not args.items.is_file():
        problem = f"items file {args.items} not found (JSON lines of QAItem: see benchmarks.items)"
    else:
        problem = None
    if problem:
        print(problem, file=sys.stderr)
        return 2
    model, model_name = chat_model(args.model, args.base_url)
    if model is None:
        print("no answer model configured: using the offline echo model", file=sys.stderr)
        model, model_name = StandInChatModel(), "offline"
    judge, judge_name = None, ""
    if not args.no_judge:
        judge, judge_name = chat_model(args.judge_model, args.judge_base_url or args.base_url)
        if judge is None:
            print("no judge model configured: scoring F1 only", file=sys.stderr)
    cache = Cache(args.cache or args.out / "cache.jsonl")
    with MemoryStore(args.store or args.out / "store") as store:
        if args.data is not None:
            writer = None
            if args.ingest == "write_path":
                # The answer model when one was named; else the environment's, or the rules model.
                writer = MemoryWriter(store, model=model if args.model else None)
            try:
                items = prepare(
                    args.data, args.dataset, store, args.out / "ingested.json",
                    mode=args.ingest, writer=writer, limit=args.limit,
                    log=lambda m: print(m, file=sys.stderr, flush=True),
                )  # fmt: skip
            except (FileNotFoundError, ValueError) as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
        else:
            items = read_items(args.items)[: args.limit]
        results = run_qa(
            items,
            store,
            model,
            model_name=model_name,
            k=args.k,
            judge=judge,
            judge_name=judge_name,
            cache=cache,
            progress=sys.stderr,
        )
    config = {
        "model": model_name,
        "judge": judge_name or None,
        "k": args.k,
        "items": str(args.items) if args.items else args.dataset,
        "data": str(args.data) if args.data else None,
        "ingest": args.ingest if args.data else None,
        "store": str(args.store or args.out / "store"),
        "answer_prompt": ANSWER_PROMPT_VERSION,
        "judge_prompt": JUDGE_PROMPT_VERSION,
    }
    json_path, md_path = write_reports(results, config, args.out)
    print(f"wrote {json_path} and {md_path}", file=sys.stderr)
    try:
        print(f"wrote {plot(results, args.out / 'scores.png')}", file=sys.stderr)
    except ImportError as exc:
        print(f"no plot: {exc}", file=sys.stderr)
    print(md_path.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
