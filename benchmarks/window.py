"""Working memory as it ships: a long thread through ``add_memory(..., max_tokens=N)``
against the same graph without the window.

Two parts, each played through two identical compiled graphs (``MemoryState``, an agent
node calling ``StandInChatModel``, ``add_memory(builder, "agent", ...)`` with inline writes
by the offline rules model, an ``InMemorySaver`` checkpointer, a ``MemoryStore`` of its own
in a temporary folder). One graph has ``max_tokens=BUDGET`` (window -> read -> agent ->
write), the other none (the whole history reaches the agent). The two take each turn in
turn, the first alternating, so neither is timed on vectors only the other paid for.

1. **A scripted thread** of ``--turns`` user turns (200): real chat lines (the turns of a
   LoCoMo conversation other than the replayed one, in order, each sent as the user's
   message), except turn 3, which states durable facts (:data:`FACTS`). After the last
   turn, ``retrieve(store, scope, "What am I allergic to?")`` must find the turn-3 fact
   (long after the window folded that turn away), and the agent is asked the question.
2. **A LoCoMo replay**: one conversation (``--conversation``, its first ``--sessions``
   sessions, 0: all), one graph turn per LoCoMo turn in order, each turn a user message
   as the retrieval evaluation's product replay sends it (``benchmarks.ingest``: the words
   and the shared photo's caption, the speaker as the message's ``name``, the ``dia_id`` as
   its id, hence the turn's id) and the session's date as the turn's time
   (``memory_now``). Unlike that replay, the whole conversation is ONE thread (the window
   is about a thread that grows), and the stored episode holds the agent's short answer
   too. Then evidence recall@10 through memory: each question whose evidence lies in the
   replayed turns, asked of ``retrieve`` as shipped (``benchmarks.retrieval.default``,
   k=10) over the scope, scored as that evaluation scores it (``ranked_units``,
   ``recall_fraction``). The write path stores every turn either way, so both graphs
   should score alike.

What is counted. Per turn, the agent node's prompt: ``[SystemMessage(memories),
*messages]`` (no system message when the read found nothing), measured with
``count_tokens_approximately`` as the agent passes it to the model. ``thread`` is the
``messages`` part (the window's running summary included): the window keeps it within
``max_tokens``, and the report checks that on every turn. ``block`` is what the memory
block adds (prompt - thread, the message overhead included); it is bounded by the read's
``k`` and renderer, not by the window, and is reported beside it. Latency is the wall time
of one ``graph.invoke`` (window, read, agent and inline write).

Full run (under 2 minutes on 2 cores shared with other work: 200 + 369 turns, each on both
graphs, with the shipped LocalMiniLM)::

    python -m benchmarks window --out docs/results/window.json
    python -m benchmarks plots docs/results/window.json --out docs/results

Quick run: ``--turns 40 --budget 400 --sessions 2``. Options: ``--data ../shared/data
--conversation conv-30 --sessions 0 --pool conv-26 --turns 200 --budget 1000
--fake-embedder --out FILE``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from benchmarks.datasets import DATASETS, Conversation, load_locomo, missing_data
from benchmarks.ingest import TURN_GAP, CachedEmbeddings, Ingested, product_units, turn_words
from benchmarks.metrics import recall_fraction
from benchmarks.reports import machine, publish
from benchmarks.retrieval import Ask, default, ranked_units
from langgraph_memory import MemoryStore, MemoryWriter, Scope
from langgraph_memory.embeddings import LocalMiniLM, embedder_name
from langgraph_memory.graph import MemoryState, StandInChatModel, add_memory
from langgraph_memory.read import retrieve
from langgraph_memory.write.rules import RulesModel

__all__ = [
    "FACTS",
    "QUESTION",
    "REPORT_TURNS",
    "main",
    "render_markdown",
    "run",
    "thread_texts",
]

#: What the user says on turn 3 of the scripted thread: durable facts the write path keeps.
FACTS = "I'm allergic to peanuts. I live in Pune."
#: The 1-based turn that states :data:`FACTS`.
FACT_TURN = 3
#: Asked of memory (and of the agent) after the scripted thread's last turn.
QUESTION = "What am I allergic to?"
#: What the answer to :data:`QUESTION` must mention.
EXPECTED = "peanut"
#: Turns (1-based) the Markdown table shows, where the run has them.
REPORT_TURNS: tuple[int, ...] = (10, 50, 100, 200)
#: The window's name in the graph (``add_memory``'s default ``window_name``).
WINDOW_NODE = "memory_window"
#: The user every turn comes from; each graph has a store of its own.
USER = "bench"
#: Recall is measured at this k.
RECALL_K = 10
#: The scripted thread's clock: its first turn, and the time between turns.
THREAD_START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
THREAD_GAP = timedelta(minutes=2)


def thread_texts(pool: Sequence[str], turns: int) -> list[str]:
    """The scripted thread's user messages: ``pool`` in order (repeated if it is short),
    with :data:`FACTS` on turn :data:`FACT_TURN`.

    >>> thread_texts(["Hi!", "How was the hike?", "Great, thanks."], 4)
    ['Hi!', 'How was the hike?', "I'm allergic to peanuts. I live in Pune.", 'Great, thanks.']
    """
    if not pool:
        raise ValueError("the pool of user messages is empty")
    texts: list[str] = []
    source = 0
    for turn in range(1, turns + 1):
        if turn == FACT_TURN:
            texts.append(FACTS)
        else:
            texts.append(pool[source % len(pool)])
            source += 1
    return texts


@dataclass
class _Arm:
    """One graph of the comparison and what its agent saw on each turn."""

    name: str
    graph: Any
    store: MemoryStore
    window: Any  # the window node (its ``stats``), None without one
    thread: list[int] = field(default_factory=list)
    prompt: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def stats(self) -> dict[str, int] | None:
        found = getattr(self.window, "stats", None)
        return asdict(found) if is_dataclass(found) and not isinstance(found, type) else None


def _window_of(builder: StateGraph[Any]) -> Any:
    """The window node ``add_memory`` put in ``builder``, for its ``stats``.

    ``add_memory`` builds the node itself (as it ships), so it is fetched back from the
    builder: LangGraph keeps the function as ``runnable.func``. A LangGraph that stops
    doing so fails here, loudly, rather than reporting no folds."""
    node = getattr(builder.nodes[WINDOW_NODE].runnable, "func", None)
    if not hasattr(node, "stats"):
        raise RuntimeError(f"cannot find the stats of the {WINDOW_NODE!r} node in the graph")
    return node


def _arm(name: str, root: Path, embeddings: Embeddings, budget: int | None) -> _Arm:
    store = MemoryStore(root / name, embeddings=embeddings)
    chat = StandInChatModel()
    arm = _Arm(name, None, store, None)

    def agent(state: MemoryState) -> dict[str, Any]:
        thread: list[BaseMessage] = list(state["messages"])
        block = state.get("memories") or ""
        prompt = [SystemMessage(block), *thread] if block else thread
        arm.thread.append(count_tokens_approximately(thread))
        arm.prompt.append(count_tokens_approximately(prompt))
        return {"messages": [chat.invoke(prompt)]}

    builder = StateGraph(MemoryState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    writer = MemoryWriter(store, model=RulesModel())
    add_memory(builder, "agent", writer=writer, max_tokens=budget)
    arm.window = _window_of(builder) if budget is not None else None
    arm.graph = builder.compile(store=store, checkpointer=InMemorySaver())
    return arm


@contextmanager
def _arms(embeddings: Embeddings, budget: int) -> Iterator[tuple[_Arm, _Arm]]:
    """The windowed graph and the full-history one, each on a store of its own."""
    with tempfile.TemporaryDirectory(prefix="lgm-window-") as root:
        windowed = _arm("window", Path(root), embeddings, budget)
        full = _arm("full", Path(root), embeddings, None)
        try:
            yield windowed, full
        finally:
            windowed.store.close()
            full.store.close()


def _play(
    arms: Sequence[_Arm], messages: Sequence[HumanMessage], times: Sequence[datetime], thread: str
) -> None:
    """Each message as one turn of one thread, on every arm; the arm that goes first
    alternates, so cached query vectors favour neither."""
    for i, (message, when) in enumerate(zip(messages, times, strict=True)):
        config = {"configurable": {"user_id": USER, "thread_id": thread, "memory_now": when}}
        for arm in arms if i % 2 == 0 else list(reversed(arms)):
            started = time.perf_counter()
            arm.graph.invoke({"messages": [message]}, config)
            arm.seconds.append(time.perf_counter() - started)


def _at(series: Sequence[int], turns: Sequence[int]) -> dict[str, int]:
    return {str(t): series[t - 1] for t in turns if t <= len(series)}


def _side(arm: _Arm) -> dict[str, Any]:
    """What one arm saw, turn by turn, and its summary numbers."""
    block = [p - t for p, t in zip(arm.prompt, arm.thread, strict=True)]
    return {
        "thread_tokens": list(arm.thread),
        "prompt_tokens": list(arm.prompt),
        "block_tokens": block,
        "latency_ms": [round(s * 1000.0, 2) for s in arm.seconds],
        "p50_ms": statistics.median(arm.seconds) * 1000.0,
        "max_thread_tokens": max(arm.thread),
        "max_block_tokens": max(block),
        "max_prompt_tokens": max(arm.prompt),
        "prompt_at": _at(arm.prompt, REPORT_TURNS),
        "thread_at": _at(arm.thread, REPORT_TURNS),
        "window": arm.stats(),
    }


def _sides(windowed: _Arm, full: _Arm, budget: int) -> dict[str, Any]:
    w = _side(windowed)
    return {
        "window": w,
        "full": _side(full),
        "within_budget": w["max_thread_tokens"] <= budget,
        "turns_over_budget": sum(1 for t in windowed.thread if t > budget),
    }


def _scripted(windowed: _Arm, full: _Arm, pool: Sequence[str], turns: int, budget: int) -> Any:
    texts = thread_texts(pool, turns)
    messages = [HumanMessage(text) for text in texts]
    times = [THREAD_START + THREAD_GAP * i for i in range(turns)]
    _play((windowed, full), messages, times, "scripted")
    report: dict[str, Any] = {"turns": turns, "fact_turn": FACT_TURN, "facts": FACTS}
    report |= _sides(windowed, full, budget)
    scope = Scope("user", USER).key
    after = THREAD_START + THREAD_GAP * turns
    for arm in (windowed, full):
        found = retrieve(arm.store, scope, QUESTION, now=after, touch=False)
        rank = next((i + 1 for i, r in enumerate(found) if EXPECTED in r.memory.text), None)
        config = {"configurable": {"user_id": USER, "thread_id": "scripted", "memory_now": after}}
        answer = arm.graph.invoke({"messages": [HumanMessage(QUESTION)]}, config)
        report[arm.name] |= {
            "fact_rank": rank,  # 1-based, among retrieve's default k; None: not found
            "fact_found": rank is not None,
            "answer": answer["messages"][-1].text,
        }
    return report


def _replay(
    windowed: _Arm, full: _Arm, conv: Conversation, sessions: int, budget: int
) -> dict[str, Any]:
    chosen = conv.sessions[:sessions] if sessions else conv.sessions
    messages, times = [], []
    for s in chosen:
        for i, t in enumerate(s.turns):
            messages.append(HumanMessage(turn_words(t), name=t.speaker, id=t.dia_id))
            times.append(s.date + TURN_GAP * i)
    _play((windowed, full), messages, times, conv.sample_id)
    replayed = [str(m.id) for m in messages]
    corpus = set(replayed)
    # Only questions answerable from what was replayed (all when every session was).
    questions = [q for q in conv.questions if q.evidence and set(q.evidence) <= corpus]
    report: dict[str, Any] = {
        "sample_id": conv.sample_id,
        "sessions": len(chosen),
        "of_sessions": len(conv.sessions),
        "turns": len(messages),
        "questions": len(questions),
    }
    report |= _sides(windowed, full, budget)
    scope = Scope("user", USER).key
    end = times[-1]
    for arm in (windowed, full):
        done = Ingested(scope, product_units(arm.store, scope), tuple(replayed), end)
        scores = []
        for q in questions:
            ids = default(Ask(arm.store, scope, q.question, RECALL_K, end))
            scores.append(recall_fraction(q.evidence, set(ranked_units(ids[:RECALL_K], done))))
        report[arm.name] |= {
            "recall_at_10": statistics.fmean(scores) if scores else None,
            "memories": len(arm.store.active(scope)),
        }
    return report


def run(
    pool: Sequence[str],
    conversation: Conversation | None,
    *,
    turns: int = 200,
    budget: int = 1000,
    sessions: int = 0,
    embeddings: Embeddings | None = None,
) -> dict[str, Any]:
    """Both parts (the replay only with a ``conversation``); the report without its total
    time. ``pool``: the scripted thread's user messages; ``embeddings``: the stores'
    (default: the shipped LocalMiniLM)."""
    if turns < FACT_TURN:
        raise ValueError(f"--turns must be >= {FACT_TURN} (turn {FACT_TURN} states the facts)")
    inner = embeddings if embeddings is not None else LocalMiniLM()
    # One cache for all four stores: a text is embedded once, whichever graph asks first.
    shared = CachedEmbeddings(inner)
    shared.prefetch(pool[:turns])
    report: dict[str, Any] = {
        "config": {
            "turns": turns,
            "budget": budget,
            "conversation": conversation.sample_id if conversation else None,
            "sessions": sessions,
            "chat_model": "StandInChatModel",
            "memory_model": "RulesModel (inline writes)",
            "counted": "count_tokens_approximately of [SystemMessage(memories), *messages]"
            " as the agent passes it; thread = messages (summary included), block = the rest",
        },
        "environment": machine(embedder_name(inner)),
    }
    began = time.perf_counter()
    with _arms(shared, budget) as (windowed, full):
        report["thread"] = _scripted(windowed, full, pool, turns, budget)
    report["thread"]["seconds"] = time.perf_counter() - began
    report["locomo"] = None
    if conversation is not None:
        began = time.perf_counter()
        shared.prefetch(turn_words(t) for s in conversation.sessions for t in s.turns)
        with _arms(shared, budget) as (windowed, full):
            report["locomo"] = _replay(windowed, full, conversation, sessions, budget)
        report["locomo"]["seconds"] = time.perf_counter() - began
    return report


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _part(title: str, part: Mapping[str, Any], budget: int) -> list[str]:
    w, f = part["window"], part["full"]
    turns = [t for t in REPORT_TURNS if str(t) in w["prompt_at"]] + [part["turns"]]
    turns = list(dict.fromkeys(turns))
    head = " | ".join(f"turn {t}" for t in turns)
    rows = []
    for label, side in ((f"window (max_tokens={budget})", w), ("full history", f)):
        prompt, thread = side["prompt_tokens"], side["thread_tokens"]
        cells = " | ".join(f"{prompt[t - 1]:,} ({thread[t - 1]:,})" for t in turns)
        rows.append(f"| {label} | {cells} | {side['max_prompt_tokens']:,} | {side['p50_ms']:.0f} |")
    stats = w["window"] or {}
    verdict = "PASS" if part["within_budget"] else f"FAIL ({part['turns_over_budget']} turns)"
    return [
        f"## {title}",
        "",
        "Prompt tokens the agent saw (thread part in brackets), by turn:",
        "",
        f"| graph | {head} | max prompt | p50 ms/turn |",
        "|---|" + "---:|" * (len(turns) + 2),
        *rows,
        "",
        f"Thread within max_tokens={budget} on every turn: **{verdict}** (max "
        f"{w['max_thread_tokens']:,}); the memory block added at most "
        f"{w['max_block_tokens']:,} tokens. Window: {stats.get('folds', 0)} folds, "
        f"{stats.get('folded_messages', 0)} messages folded, {stats.get('summary_calls', 0)} "
        f"summary-model calls, {stats.get('offline_summaries', 0)} extractive summaries.",
    ]


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown: tokens per turn both ways, the window's work, and the checks."""
    cfg = report["config"]
    budget = cfg["budget"]
    part = report["thread"]
    lines = [
        f"# Working memory: add_memory(max_tokens={budget}) against the full history",
        "",
        *_part(f"Scripted thread ({part['turns']} turns, facts on turn {FACT_TURN})", part, budget),
        "",
        f"After the last turn, `retrieve(store, scope, {QUESTION!r})`: "
        + "; ".join(
            f"{name} rank {part[key]['fact_rank'] or 'not found'}"
            for name, key in (("window", "window"), ("full", "full"))
        )
        + f". The windowed agent answered: {part['window']['answer']!r}.",
    ]
    loco = report.get("locomo")
    if loco:
        which = (
            "every session"
            if loco["sessions"] == loco["of_sessions"]
            else f"its first {loco['sessions']} of {loco['of_sessions']} sessions"
        )
        lines += [
            "",
            *_part(
                f"LoCoMo {loco['sample_id']} replayed as one thread ({which}, "
                f"{loco['turns']} turns)",
                loco,
                budget,
            ),
            "",
            f"Evidence recall@{RECALL_K} through memory over {loco['questions']} questions: "
            f"window {_cell(loco['window']['recall_at_10'])}, full history "
            f"{_cell(loco['full']['recall_at_10'])} ({loco['window']['memories']} and "
            f"{loco['full']['memories']} active memories).",
        ]
    lines += ["", f"Counted: {cfg['counted']}."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 2 when the data is missing."""
    p = argparse.ArgumentParser(prog="python -m benchmarks window", description=__doc__)
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--conversation", default="conv-30", help="LoCoMo sample to replay")
    p.add_argument("--sessions", type=int, default=0, help="replay its first N sessions (0: all)")
    p.add_argument("--pool", default="conv-26", help="LoCoMo sample whose turns the thread uses")
    p.add_argument("--turns", type=int, default=200)
    p.add_argument("--budget", type=int, default=1000)
    p.add_argument("--no-replay", action="store_true", help="the scripted thread only")
    p.add_argument("--fake-embedder", action="store_true", help="hashed vectors (tests)")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    problem = missing_data(args.data, DATASETS["locomo"])
    if problem:
        print(problem, file=sys.stderr)
        return 2
    conversations = {c.sample_id: c for c in load_locomo(args.data / DATASETS["locomo"])}
    for name in (args.conversation, args.pool):
        if name not in conversations:
            print(f"no LoCoMo sample {name!r}: one of {sorted(conversations)}", file=sys.stderr)
            return 2
    pool = [turn_words(t) for s in conversations[args.pool].sessions for t in s.turns]
    began = time.perf_counter()
    report = run(
        pool,
        None if args.no_replay else conversations[args.conversation],
        turns=args.turns,
        budget=args.budget,
        sessions=args.sessions,
        embeddings=DeterministicFakeEmbedding(size=64) if args.fake_embedder else None,
    )
    report["config"]["pool"] = args.pool
    return publish(report, began=began, out=args.out, render=render_markdown)


if __name__ == "__main__":
    sys.exit(main())
