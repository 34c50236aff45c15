"""Working memory: keep a thread's messages inside a token budget.

``memory_window_node(max_tokens)`` is a node for any ``StateGraph`` whose
``messages`` use LangGraph's ``add_messages`` reducer (``MessagesState``,
``MemoryState``). Put it at the start of a turn (``add_memory(...,
max_tokens=N)`` puts it before the read node). When the thread counts more
than ``max_tokens`` (``count_tokens_approximately``), the oldest whole turns
are folded into a running summary and removed from the state with
``RemoveMessage``, so a checkpointer stores the smaller thread. It folds turns,
not single messages: what is kept starts with a user message (some providers
refuse a thread that starts elsewhere), a tool call always goes with its
results, and the latest user message always stays. Bulky tool outputs of past
turns (over ``max_tool_chars``) are replaced in place by a short stub.

The summary is one ``SystemMessage`` with a fixed id (``SUMMARY_ID``) at the
head of the thread (after the app's own leading system messages), replaced,
never appended, when it changes. It lives in ``messages`` rather than in a
state key of its own so that every model node sees it without being rewritten,
and any state with ``messages`` works (no schema change). With a chat model
(``model=``) the summary is the model's; without one it is extractive and
deterministic (the first sentence of each folded message), and never longer
than ``summary_tokens``.

No turn leaves the window unwritten: given ``writes`` (the ``BackgroundWriter``
of a deferred write), the node first waits up to ``wait_for_writes`` seconds for
the scope's queued turns; if they are still being written it changes nothing
this turn (and says so at INFO level), and folds on a later turn. Facts and
episodes folded out of the thread stay in long-term memory, where the read node
finds them.

What is reused, and why the rest is written here: the counting
(``count_tokens_approximately``), the removal (``RemoveMessage``,
``REMOVE_ALL_MESSAGES`` for the first fold, which has to put the summary at the
head) and the transcript for the summary model (``get_buffer_string``) are
LangChain's and LangGraph's. ``trim_messages`` is not used: it returns the
messages it keeps, while a fold needs the ones it drops (to summarise and
remove them by id) and whole turns. langchain's ``SummarizationMiddleware`` is
middleware for ``create_agent`` only, needs a model (no offline summary),
rewrites the whole thread on every fold, and cannot wait for a deferred
write. LangMem's ``SummarizationNode`` keeps its summary in a state key of its
own, writes the trimmed thread to another key by default, needs a model, and
imports ``langgraph.utils`` (not a stable public API). Neither knows about
turns still queued for the write path, which is the one property memory needs
here, so the node is written here: small, and on public APIs only.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> from langgraph.graph.message import add_messages
>>> window = memory_window_node(120)
>>> thread = []
>>> for i in range(6):
...     thread += [HumanMessage(f"Question {i} is here. More words.", id=f"h{i}"),
...                AIMessage(f"Answer {i}. Some detail.", id=f"a{i}")]
>>> thread = add_messages(thread, [HumanMessage("And now?", id="h6")])
>>> thread = add_messages(thread, window({"messages": thread}, {})["messages"])
>>> print(thread[0].content)
Earlier in this conversation (a summary):
User: Question 2 is here.
Assistant: Answer 2.
>>> [m.id for m in thread[1:]], window.stats.folds
(['h3', 'a3', 'h4', 'a4', 'h5', 'a5', 'h6'], 1)
>>> from langchain_core.messages.utils import count_tokens_approximately
>>> count_tokens_approximately(thread) <= 120
True
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    get_buffer_string,
)
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from langgraph_memory.checks import check_int
from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.graph.read_write import WAIT_FOR_WRITES_S, check_wait
from langgraph_memory.graph.run import PendingWrites
from langgraph_memory.graph.turns import messages_of
from langgraph_memory.llm import resolve_chat_model
from langgraph_memory.scope import Scope, ScopeSpec, scope_of_run
from langgraph_memory.tracing import clip, scope_metadata, traced

__all__ = [
    "MAX_TOOL_CHARS",
    "SUMMARY_ID",
    "MemoryWindow",
    "WindowStats",
    "memory_window_node",
]

log = logging.getLogger("langgraph_memory")

#: The id of the summary message: a new version replaces the old one (``add_messages``).
SUMMARY_ID = "langgraph-memory-window-summary"
#: First line of the summary message.
SUMMARY_HEADER = "Earlier in this conversation (a summary):"
#: Tool outputs longer than this (in characters) are stubbed once their turn is over.
MAX_TOOL_CHARS = 2_000
#: What a stubbed tool output starts with (so a stub is never stubbed again).
STUB_PREFIX = "[tool output elided"
#: The smallest summary budget: the header and a few words.
MIN_SUMMARY_TOKENS = 24
#: The smallest thread budget: a summary and a short turn. A smaller one could not be kept.
MIN_MAX_TOKENS = 64
#: Longest sentence the offline summary keeps from one message, in characters.
SENTENCE_CHARS = 160

SUMMARY_PROMPT = (
    "You keep a running summary of a conversation whose oldest messages are being "
    "removed to save space. Merge the previous summary and the messages given into one "
    "new summary: what the user asked, wants and decided, and what was answered or done. "
    "Keep names, numbers and dates. Write plain sentences, no preamble."
)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass
class WindowStats:
    """What a window node did, counted since it was built (``node.stats``)."""

    folds: int = 0  # turns of the node that folded messages into the summary
    folded_messages: int = 0  # messages removed from state by those folds
    summary_calls: int = 0  # calls of the summary model (failed ones included)
    offline_summaries: int = 0  # extractive summaries (no model, or the model failed)
    stubbed: int = 0  # tool outputs replaced by a stub
    postponed: int = 0  # folds put off because the scope's turns were still being written


@dataclass(frozen=True)
class _Plan:
    """What to change: fold ``body[:cut]`` (0: nothing) and stub ``stubs`` (index -> stub)."""

    pinned: list[BaseMessage]
    summary: BaseMessage | None
    body: list[BaseMessage]  # the thread less pinned and summary, stubs applied
    cut: int
    stubs: dict[int, ToolMessage]


def _tokens(messages: Sequence[BaseMessage]) -> int:
    return count_tokens_approximately(messages) if messages else 0


def _check_tokens(value: Any, what: str, low: int, hint: str) -> int | None:
    """None, or a whole number of tokens >= ``low``; else an error that says what to pass."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(
            f"{what} must be an int >= {low}, got {type(value).__name__}: {value!r}: {hint}"
        )
    if value < low:
        raise InvalidArgumentError(f"{what} must be >= {low}, got {value!r}: {hint}")
    return value


def _first_sentence(text: str) -> str:
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    return sentence if len(sentence) <= SENTENCE_CHARS else sentence[: SENTENCE_CHARS - 1] + "…"


def _line(message: BaseMessage) -> str | None:
    """One line of the offline summary for a folded message, None for nothing to say."""
    text = message.text.strip()
    if isinstance(message, HumanMessage):
        return f"User: {_first_sentence(text)}" if text else None
    if isinstance(message, AIMessage):
        if text:
            return f"Assistant: {_first_sentence(text)}"
        names = ", ".join(str(call["name"]) for call in message.tool_calls)
        return f"Assistant called {names}." if names else None
    return None  # tool results and system messages: their gist is in the answers


def _previous_text(summary: BaseMessage | None) -> str:
    if summary is None:
        return ""
    text = summary.text
    return text.removeprefix(SUMMARY_HEADER).strip()


def _summary_message(text: str) -> SystemMessage:
    return SystemMessage(f"{SUMMARY_HEADER}\n{text}", id=SUMMARY_ID)


def _fit(text: str, tokens: int) -> str:
    """``text`` cut so the summary message counts at most ``tokens``: the oldest lines
    go first (the newest is what the next turns build on), then characters."""
    lines = [line for line in text.splitlines() if line.strip()]
    kept: list[str] = []
    for line in reversed(lines):  # newest first, so the cost grows with what is kept
        if kept and _tokens([_summary_message("\n".join([line, *kept]))]) > tokens:
            break
        kept.insert(0, line)
    fitted = "\n".join(kept)
    while fitted and _tokens([_summary_message(fitted)]) > tokens:
        fitted = fitted[: max(0, len(fitted) - max(4, len(fitted) // 8) - 1)] + "…"
        fitted = "" if fitted == "…" else fitted
    return fitted


def _summarize_inputs(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "folded": len(arguments.get("folded", ())),
        "previous": clip(arguments.get("previous")),
        "model": type(arguments.get("model")).__name__,
    }


@traced(
    "memory.summarize",
    inputs=_summarize_inputs,
    outputs=lambda text: {"summary": clip(text)},
    metadata=scope_metadata,
)
def summarize(
    folded: Sequence[BaseMessage], previous: str, model: BaseChatModel | None, tokens: int
) -> str:
    """The running summary: ``previous`` with ``folded`` merged in, at most ``tokens``
    as a summary message. With ``model`` it writes it; without, the first sentence
    of each folded user and assistant message (deterministic).

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> folded = [HumanMessage("I moved to Pune. It is hot."), AIMessage("Noted. Enjoy!")]
    >>> print(summarize(folded, "User: Hi.", None, 100))
    User: Hi.
    User: I moved to Pune.
    Assistant: Noted.
    """
    if model is None:
        lines = [line for line in map(_line, folded) if line]
        return _fit("\n".join([previous, *lines]), tokens)
    transcript = get_buffer_string(folded, human_prefix="User", ai_prefix="Assistant")
    words = max(10, (tokens - 20) * 3 // 4)  # about 4/3 tokens a word, less the header
    prompt = [
        SystemMessage(SUMMARY_PROMPT),
        HumanMessage(
            f"Previous summary:\n{previous or '(none)'}\n\nMessages to merge in:\n"
            f"{transcript}\n\nWrite the new summary in at most {words} words."
        ),
    ]
    # nostream: the summary is bookkeeping, not part of the answer a user streams.
    answer = model.invoke(prompt, config={"tags": [TAG_NOSTREAM]})
    return _fit(answer.text.strip(), tokens)


class MemoryWindow:
    """The node ``memory_window_node`` builds (see there and the module docstring);
    ``stats`` counts what it did."""

    def __init__(
        self,
        max_tokens: int | None = None,
        *,
        max_tool_chars: int = MAX_TOOL_CHARS,
        summary_tokens: int | None = None,
        model: BaseChatModel | str | None = None,
        writes: PendingWrites | None = None,
        scope: ScopeSpec = "user",
        wait_for_writes: float = WAIT_FOR_WRITES_S,
    ) -> None:
        self.max_tokens = _check_tokens(
            max_tokens,
            "max_tokens",
            MIN_MAX_TOKENS,
            "pass the thread's budget in tokens (e.g. max_tokens=4000), or None to keep "
            "every message",
        )
        self.max_tool_chars = check_int(max_tool_chars, "max_tool_chars")
        budget = self.max_tokens or 0
        summary = _check_tokens(
            summary_tokens,
            "summary_tokens",
            MIN_SUMMARY_TOKENS,
            "pass the summary's share of max_tokens (e.g. 500), or None for a quarter of it",
        )
        # A quarter of the budget by default: room for the summary, most of it for the turns.
        default = max(MIN_SUMMARY_TOKENS, budget // 4)
        self.summary_tokens = summary if summary is not None else default
        if self.max_tokens is not None and self.summary_tokens >= self.max_tokens:
            raise InvalidArgumentError(
                f"summary_tokens={self.summary_tokens} leaves no room in max_tokens="
                f"{self.max_tokens} for the thread: pass a smaller summary_tokens or a "
                "larger max_tokens"
            )
        self.model = None if model is None else resolve_chat_model(model)
        if writes is not None and not isinstance(writes, PendingWrites):
            raise InvalidArgumentError(
                f"writes must be the BackgroundWriter of a deferred write (it has wait()), "
                f"got {type(writes).__name__}"
            )
        self.writes = writes
        self.scope = scope
        self.wait_for_writes = check_wait(wait_for_writes)
        self.stats = WindowStats()
        self._lock = threading.Lock()  # one node may run for many threads at once

    def __call__(
        self, state: Any, config: RunnableConfig, runtime: Runtime[Any] | None = None
    ) -> dict[str, Any]:
        """The state update that brings the thread inside the budget ({} if nothing to do)."""
        if self.max_tokens is None:
            return {}
        messages = messages_of(state)
        # The scope is resolved on every turn, so a run without one fails at once,
        # not at its first fold.
        context = runtime.context if runtime is not None else None
        where = None if self.writes is None else scope_of_run(self.scope, config, context)
        plan = self._plan(messages, self.max_tokens)
        if plan is None or not self._written(where):
            return {}
        return {"messages": self._update(plan)}

    def _written(self, where: Scope | None) -> bool:
        """Whether the scope's queued turns are written (waiting up to ``wait_for_writes``)."""
        if self.writes is None or where is None:
            return True
        if self.writes.wait(where, self.wait_for_writes):
            return True
        with self._lock:
            self.stats.postponed += 1
        log.info(
            "langgraph_memory: not folding the thread of %s: its turns are still being "
            "written after %s s (wait_for_writes); the next turn folds it",
            where.key,
            self.wait_for_writes,
        )
        return False

    def _plan(self, messages: list[BaseMessage], budget: int) -> _Plan | None:
        head = 0
        while head < len(messages) and isinstance(messages[head], SystemMessage):
            head += 1
        summary = next((m for m in messages if m.id == SUMMARY_ID), None)
        pinned = [m for m in messages[:head] if m.id != SUMMARY_ID]
        body = [m for m in messages[head:] if m.id != SUMMARY_ID]
        humans = [i for i, m in enumerate(body) if isinstance(m, HumanMessage)]
        if not humans:
            return None  # no turn has started, so none is over
        latest = humans[-1]
        stubs = {
            i: self._stub(m)
            for i, m in enumerate(body[:latest])
            if isinstance(m, ToolMessage) and self._bulky(m)
        }
        body = [stubs.get(i, m) for i, m in enumerate(body)]
        costs = [_tokens([m]) for m in body]  # the count is a sum over messages
        fixed = _tokens(pinned)
        cut = 0
        if fixed + _tokens([summary] if summary else []) + sum(costs) > budget:
            cuts = [i for i in humans if i > 0 and _keeps_tool_pairs(body, i)]
            room = budget - fixed - self.summary_tokens
            fitting = [i for i in cuts if sum(costs[i:]) <= room]
            # The fewest turns that fit; else all but the latest (it may be long on its own).
            cut = fitting[0] if fitting else (cuts[-1] if cuts else 0)
            if not fitting:
                log.info(
                    "langgraph_memory: the latest turn alone exceeds max_tokens=%s; it stays whole",
                    budget,
                )
        if not cut and not stubs:
            return None
        return _Plan(pinned, summary, body, cut, stubs)

    def _bulky(self, message: ToolMessage) -> bool:
        text = message.text
        return (
            message.id is not None
            and len(text) > self.max_tool_chars
            and not text.startswith(STUB_PREFIX)
        )

    def _stub(self, message: ToolMessage) -> ToolMessage:
        # Same id: add_messages replaces the message in place; the tool call keeps its answer.
        size = len(message.text)
        return message.model_copy(
            update={
                "content": f"{STUB_PREFIX}: it was {size:,} characters long; "
                "call the tool again if it is needed]",
                "artifact": None,
            }
        )

    def _update(self, plan: _Plan) -> list[BaseMessage]:
        stubbed = [plan.body[i] for i in sorted(plan.stubs) if i >= plan.cut]
        with self._lock:
            self.stats.stubbed += len(stubbed)  # a folded output leaves with its turn
        if not plan.cut:
            return list(stubbed)
        folded, kept = plan.body[: plan.cut], plan.body[plan.cut :]
        summary = _summary_message(self._summarize(folded, _previous_text(plan.summary)))
        with self._lock:
            self.stats.folds += 1
            self.stats.folded_messages += len(folded)
        if plan.summary is not None and all(m.id for m in folded):
            # The summary is already at the head: replace it there, remove the folded.
            removed: list[BaseMessage] = [RemoveMessage(id=str(m.id)) for m in folded]
            return [*removed, summary, *stubbed]
        # The first fold: add_messages appends a new id at the end, so the thread is
        # rewritten (same messages, same ids) to put the summary at its head.
        return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *plan.pinned, summary, *kept]

    def _summarize(self, folded: list[BaseMessage], previous: str) -> str:
        if self.model is not None:
            with self._lock:
                self.stats.summary_calls += 1
            try:
                return summarize(folded, previous, self.model, self.summary_tokens)
            except Exception as exc:  # a summary is not worth the turn: fall back, say so
                log.warning(
                    "langgraph_memory: the summary model failed (%r); using the extractive summary",
                    exc,
                )
        with self._lock:
            self.stats.offline_summaries += 1
        return summarize(folded, previous, None, self.summary_tokens)

    def __repr__(self) -> str:
        return f"MemoryWindow(max_tokens={self.max_tokens}, stats={asdict(self.stats)})"


def _keeps_tool_pairs(body: Sequence[BaseMessage], cut: int) -> bool:
    """Whether folding ``body[:cut]`` leaves no kept tool result without its call."""
    called = {
        str(call["id"])
        for m in body[:cut]
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call.get("id")
    }
    return not any(isinstance(m, ToolMessage) and m.tool_call_id in called for m in body[cut:])


def memory_window_node(
    max_tokens: int | None = None,
    *,
    max_tool_chars: int = MAX_TOOL_CHARS,
    summary_tokens: int | None = None,
    model: BaseChatModel | str | None = None,
    writes: PendingWrites | None = None,
    scope: ScopeSpec = "user",
    wait_for_writes: float = WAIT_FOR_WRITES_S,
) -> MemoryWindow:
    """A node that keeps ``state["messages"]`` within ``max_tokens`` (None, the
    default: changes nothing).

    ``max_tokens`` is at least ``MIN_MAX_TOKENS`` (64). Past the budget, the
    oldest whole turns are folded into one summary message (``SUMMARY_ID``) of
    at most ``summary_tokens`` (default: a quarter of the
    budget) and removed; tool outputs of past turns longer than ``max_tool_chars``
    characters become a stub. ``model``: a chat model (or ``"provider:model"``)
    that writes the summary; None: an extractive one, offline. ``writes`` (a
    ``BackgroundWriter`` of a deferred write) and ``scope`` (as for the read node):
    nothing is folded while the scope's turns are still being written, after a
    wait of up to ``wait_for_writes`` seconds. ``node.stats`` counts folds,
    summary calls and stubs. See the module docstring for the rules.

    Args:
        max_tokens: the thread's budget in tokens (as LangChain's
            ``count_tokens_approximately`` counts them), at least 64; None: the node
            changes nothing.
        max_tool_chars: a tool output of a past turn longer than this many
            characters becomes a stub.
        summary_tokens: the most tokens the summary message takes, at least 24 and
            less than ``max_tokens``; None: a quarter of ``max_tokens``.
        model: the chat model (or ``"provider:model"``) that writes the summary;
            None: an extractive summary, offline. A failed call falls back to it.
        writes: the ``BackgroundWriter`` of a deferred write; None: nothing to
            wait for.
        scope: whose queued turns ``writes`` holds for a run (a scope kind or a
            namespace template, as for the read node); used with ``writes`` only.
        wait_for_writes: the most seconds a turn waits for them (0: no wait).

    Returns:
        The node, a ``MemoryWindow``: called with ``(state, config, runtime=None)``,
        it returns the state update that brings ``messages`` within the budget
        (``{}`` when there is nothing to do).

    Raises:
        InvalidArgumentError: ``max_tokens``, ``summary_tokens`` or
            ``max_tool_chars`` is too small, ``summary_tokens`` leaves no room in
            ``max_tokens``, ``writes`` is no ``BackgroundWriter``, or
            ``wait_for_writes`` is not a number of seconds >= 0.
        InvalidTypeError: ``max_tokens``, ``summary_tokens`` or
            ``max_tool_chars`` is not an int.

    >>> from langchain_core.messages import HumanMessage
    >>> memory_window_node()({"messages": [HumanMessage("hi")]}, {})
    {}
    >>> memory_window_node(0)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: max_tokens must be >= 64, got 0: ...
    """
    return MemoryWindow(
        max_tokens,
        max_tool_chars=max_tool_chars,
        summary_tokens=summary_tokens,
        model=model,
        writes=writes,
        scope=scope,
        wait_for_writes=wait_for_writes,
    )
