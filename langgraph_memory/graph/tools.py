"""remember, forget and recall as LangChain tools a chat model can call.

The scope comes from the run (``configurable`` or the runtime context), never
from the model's arguments: a model cannot read or write another user's memory
by naming them. What the user asked for comes from the user's own last message
(``graph.requests``), never from the model's say-so: a model talked into a call
by a tool result or a document cannot make its text the user's. ``remember``
stores text as the user's explicit request (high trust) only when the user asked
to remember it in their own words; any other text is kept as the model's
unverified note (source assistant, low trust, importance at most 0.5, never
pinned), which closes none of the user's memories. ``forget`` acts only when the
user asked to forget something in this turn, and a safety-relevant memory
(``guards.protected``) only when the user's own words name it. Called directly,
outside a graph run (no conversation to read), the tools act for the
application, as before. Built without a store or writer, the tools use the store the
graph was compiled with (``create_agent(..., store=...)``). Results are
short confirmations with memory ids. Bad input from the model (an empty text, a
wrong type) never raises: the tool answers with what was wrong, for the model
to read and correct.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write import MemoryWriter, RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> remember, forget, recall = memory_tools(MemoryWriter(store, model=RulesModel()))
>>> config = {"configurable": {"user_id": "alice"}}
>>> remember.invoke({"text": "I'm allergic to peanuts"}, config)
'Remembered [...]: User is allergic to peanuts.'
>>> recall.invoke({"query": "allergies"}, config)
'- [...] "User is allergic to peanuts." (since ...)'
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory.errors import InvalidTypeError, MemoryKitError
from langgraph_memory.graph.requests import asked_to_remember, asked_to_set_rule, forget_refusal
from langgraph_memory.graph.run import GraphMemory, current_runtime
from langgraph_memory.graph.turns import last_turn, messages_of
from langgraph_memory.read import retrieve
from langgraph_memory.records import DecisionOp, Source, Status, Trust
from langgraph_memory.scope import Scope, ScopeSpec, scope_of_run
from langgraph_memory.text import for_prompt
from langgraph_memory.write import MemoryWriter
from langgraph_memory.write.forgetting import forget_named
from langgraph_memory.write.types import Turn

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

#: Most importance a note the user did not ask for may have (a safety memory starts at 0.9).
UNASKED_IMPORTANCE = 0.5
#: The graph state, which LangGraph's ToolNode passes in (None when a tool is called directly).
State = Annotated[Any, InjectedState]


def _turn(state: Any) -> Turn | None:
    """The run's last turn (the last human message and what followed), if any."""
    return last_turn(messages_of(state))


def memory_tools(
    memory: MemoryStore | MemoryWriter | None = None, *, scope: ScopeSpec = "user", k: int = 5
) -> list[BaseTool]:
    """``[remember, forget, recall]`` over a writer, a store (with the default model),
    or (None) the graph's own store. ``scope``: a kind or a namespace template.

    Args:
        memory: a ``MemoryWriter`` (the tools write through it and read its store);
            a ``MemoryStore`` (a ``MemoryWriter`` with the environment's model is
            made on it now); None: the store the graph is compiled with, with a
            ``MemoryWriter`` made at the first call.
        scope: whose memory a run's tools touch: a scope kind, whose id the run
            names (``"user"``: ``user_id``; ``"session"``: ``thread_id``;
            ``"agent"``: ``agent_id``), or a namespace template like
            ``("memories", "{user_id}")``; never from the model's arguments.
        k: how many memories ``recall`` returns besides the pinned ones.

    Returns:
        The LangChain tools ``remember``, ``forget`` and ``recall``, in that order.

    Raises:
        InvalidTypeError: ``memory`` is none of a writer, a store or None.
    """
    if isinstance(memory, stores.MemoryStore):  # made now: a bad environment model fails here
        memory = MemoryWriter(memory)
    elif memory is not None and not isinstance(memory, MemoryWriter):
        raise InvalidTypeError(
            f"memory_tools takes a MemoryWriter, a MemoryStore or None (the graph's own "
            f"store), got {type(memory).__name__}"
        )
    graph_memory = GraphMemory(writer=memory, who="memory_tools")

    def run_scope(config: RunnableConfig) -> tuple[Scope, MemoryWriter]:
        runtime = current_runtime()
        context = runtime.context if runtime is not None else None
        return scope_of_run(scope, config, context), graph_memory.inline_writer(runtime)

    @tool
    def remember(
        text: str,
        config: RunnableConfig,
        importance: float | None = None,
        pinned: bool = False,
        rule: bool = False,
        state: State = None,
    ) -> str:
        """Remember a durable fact about the user, in their words or yours
        ("I prefer metric units"). importance: 0..1; pinned: always recall it;
        rule: it is the user's standing instruction on how you should work
        ("answer in metric units from now on"), shown to you on every turn."""
        where, writer = run_scope(config)
        turn = None if state is None else _turn(state)
        asked = state is None or (
            turn is not None
            and (asked_to_remember(turn, text) or (rule and asked_to_set_rule(turn, text)))
        )
        try:
            if asked:
                decisions = writer.remember(
                    where, text, importance=importance, pinned=pinned, rule=rule
                )
            else:
                capped = min(importance, UNASKED_IMPORTANCE) if importance is not None else None
                decisions = writer.remember(  # unasked: a note, never a rule
                    where,
                    text,
                    importance=capped if capped is not None else UNASKED_IMPORTANCE,
                    source=Source.ASSISTANT,
                    trust=Trust.LOW,
                    rule=rule,
                )
        except MemoryKitError as exc:
            return f"Could not remember that: {exc}"
        done = "Remembered" if asked else "Noted as unverified (the user did not ask for it)"
        lines = []
        for d in decisions:
            if d.op in (DecisionOp.ADD, DecisionOp.UPDATE) and d.result_id:
                lines.append(f"{done} [{d.result_id}]: {d.text}")
            elif d.op is DecisionOp.NOOP and d.status is Status.APPLIED:
                lines.append(f"Already known [{d.target_id or '-'}]: {d.fact}")
            elif d.op is DecisionOp.DELETE and d.status is Status.APPLIED:
                lines.append(f"Forgot [{d.target_id}]: {d.fact}")
            else:  # rejected or failed
                lines.append(
                    f"Could not remember {d.fact!r}: {d.error or d.note or d.status.value}"
                )
        return "\n".join(lines) or "Nothing to remember in that."

    @tool
    def forget(memory: str, config: RunnableConfig, state: State = None) -> str:
        """Forget one memory: its id (like 0a1b2c3d) or a description of it."""
        where, writer = run_scope(config)
        turn = None if state is None else _turn(state)
        refuse = None if state is None else functools.partial(forget_refusal, turn)
        return forget_named(writer, where, memory, refuse=refuse)

    @tool
    def recall(query: str, config: RunnableConfig) -> str:
        """Search what you remember about the user."""
        where, writer = run_scope(config)
        try:
            found = retrieve(writer.store, where, query, k=k)
        except MemoryKitError as exc:
            return f"Could not search for that: {exc}"
        if not found:
            return "Nothing remembered about that."
        # Quoted like the read node's block: a stored text cannot fake another line.
        return "\n".join(
            f"- [{r.memory.id}] {for_prompt(r.memory.text)} "
            f"({'earlier, ' if r.outdated else ''}since {r.memory.created_at.date().isoformat()})"
            for r in found
        )

    tools = [remember, forget, recall]
    for t in tools:
        t.handle_validation_error = _bad_arguments
    return tools


def _bad_arguments(error: Exception) -> str:
    """What the model gets back for arguments that do not fit the tool's schema."""
    errors = getattr(error, "errors", None)
    problems = (
        "; ".join(f"{'.'.join(map(str, e['loc'])) or '-'}: {e['msg']}" for e in errors())
        if callable(errors)
        else str(error)
    )
    return f"Bad arguments ({problems}); call the tool again with valid ones."
