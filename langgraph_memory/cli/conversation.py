"""The commands that talk: the scripted demo and an interactive chat.

Both run the real graph (``build_chat_graph``) on a store, with a chat model from
the environment or the offline rules model, and print every write decision.

>>> [when[:10] for when, _ in DEMO]
['2026-01-05', '2026-02-10', '2026-06-01', '2026-06-15']
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import uuid
from typing import TYPE_CHECKING, Any

from langgraph_memory.cli.inspection import show_lines
from langgraph_memory.cli.location import open_store
from langgraph_memory.cli.models import model_failures
from langgraph_memory.cli.output import decision_line, memory_lines, progress
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["DEMO", "chat", "demo"]

#: The demo: a move between cities, a restated preference, a sister's city, a
#: plan, and a question nothing answers; four sessions months apart.
DEMO: list[tuple[str, list[str]]] = [
    (
        "2026-01-05T09:00",
        ["Hi! I'm Priya.", "I live in Delhi and I work at Infosys.", "I prefer metric units."],
    ),
    ("2026-02-10T18:30", ["My sister lives in Mumbai.", "I prefer metric units, by the way."]),
    ("2026-06-01T08:15", ["I moved to Pune last week.", "I might move to Bangalore next year."]),
    ("2026-06-15T20:00", ["Where do I live now?", "What's my favourite colour?"]),
]


def _model_line() -> str:
    from langgraph_memory.llm import configured

    if configured():
        return "Model: an OpenAI-compatible chat model from OPENAI_API_KEY / OPENAI_BASE_URL."
    return (
        "Model: none configured (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one), so the "
        "offline rules model writes memory and an offline stand-in answers. They understand "
        "simple first-person statements only."
    )


def _graph(store: MemoryStore) -> Any:
    from langgraph_memory.graph.agent import build_chat_graph
    from langgraph_memory.llm import configured
    from langgraph_memory.write import MemoryWriter, RulesModel

    if configured():
        return build_chat_graph(store)
    # The first line said it: the rules model, chosen here, so its warning is not said twice.
    return build_chat_graph(store, writer=MemoryWriter(store, model=RulesModel()))


def _reply(message: Any) -> str:
    # A model's reply may run over lines (and may echo a memory): keep its lines only.
    return for_terminal(str(message.content), multiline=True)


def demo(args: argparse.Namespace) -> int:
    """Replay the scripted conversation through the real graph."""
    from langgraph_memory.scope import Scope

    print(_model_line())
    temporary = args.server is None and not args.path
    if args.server is None:  # a fresh directory unless one is named
        args.path = args.path or tempfile.mkdtemp(prefix="langgraph-memory-demo-")
        kept = "" if args.keep or not temporary else " (a temporary folder, removed at the end)"
        print(f"Store: {args.path}{kept}\n")
    else:
        print(f"Store: the Chroma server at {args.server}\n")
    scope = Scope("user", "priya")
    with open_store(args, create=True) as store, model_failures():
        graph = _graph(store)
        for session, (when, lines) in enumerate(DEMO, start=1):
            print(f"Session {session} ({when[:10]})")
            for text in lines:
                seen = len(store.decisions(scope))
                configurable = {
                    "user_id": scope.id,
                    "thread_id": f"s{session}",
                    "memory_now": when + "+00:00",
                }
                out = graph.invoke({"messages": [("user", text)]}, {"configurable": configurable})
                print(f"  user:  {text}")
                print(f"  agent: {_reply(out['messages'][-1])}")
                for d in store.decisions(scope)[seen:]:
                    print(decision_line(d))
            print()
        active = store.active(scope)
        print(f"What I remember about you ({scope.key}): the facts and rules the write path")
        print("kept, and the episodes, what you said word for word, that they came from.")
        print("\n".join(show_lines(active)))
        moved = next((m for m in active if m.replaces), None)
        if moved is not None:
            print(f"\nHistory of [{for_terminal(moved.id)}]:")
            print("\n".join(memory_lines(store.history(scope, moved.id))))
            print(f"\nWhy [{for_terminal(moved.id)}]:")
            print("\n".join(decision_line(d) for d in store.decisions(scope, moved.id)))
    if temporary and not args.keep:
        shutil.rmtree(args.path, ignore_errors=True)
        print(
            "\nThe store is removed. To look at it again with `langgraph-memory show` and "
            "`inspect`: `langgraph-memory demo --keep` (or `--path DIR`)."
        )
        return 0
    where = f"--server {args.server}" if args.server is not None else f"--path {_quoted(args.path)}"
    print(f"\nLook again: langgraph-memory show {where} --user {scope.id}")
    print(f"In a browser: langgraph-memory inspect {where}")
    if temporary:
        print(f"Remove it when done: rm -r {_quoted(args.path)}")
    return 0


def _quoted(path: str) -> str:
    """A path as a shell reads it back."""
    import shlex

    return shlex.quote(for_terminal(str(path)))


def chat(args: argparse.Namespace) -> int:
    """An interactive session; 'exit' or Ctrl-D ends it."""
    from langchain_core.messages import HumanMessage

    from langgraph_memory.scope import Scope

    print(_model_line())
    with open_store(args, create=True) as store, model_failures():
        with progress("starting the chat (LangGraph, the chat model)"):
            graph = _graph(store)
        scope = Scope.parse(args.scope)
        config = {"configurable": {"user_id": scope.id, "thread_id": args.thread}}
        while True:
            try:
                text = input("you> ").strip()
            except EOFError:
                print()
                return 0
            if text in ("exit", "quit"):
                return 0
            if not text:
                continue
            message = HumanMessage(text, id=uuid.uuid4().hex)  # its id names the turn
            out = graph.invoke({"messages": [message]}, config)
            print(f"agent> {_reply(out['messages'][-1])}")
            for d in store.decisions(scope):
                if d.turn_id == message.id:
                    print(decision_line(d))
