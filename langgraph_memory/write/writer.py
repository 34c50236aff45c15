"""MemoryWriter: the write path from a turn to clean, logged memories.

``write_turn`` keeps what the user said as an episode (no model call: see
``episodes``), gates the turn (no model call for turns that cannot hold a
durable fact), extracts facts, reconciles each against the scope's nearest
memories (one call per fact, or one per turn with ``reconcile="batched"``; none for a
fact the scope holds nothing to compare with: it is added), applies the
validated decisions in order and logs every one. The facts link to the episode.
``remember`` and ``forget`` are the explicit paths a user or a tool takes.

>>> import tempfile
>>> from datetime import datetime, timezone
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> from langgraph_memory.write.rules import RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> writer = MemoryWriter(store, model=RulesModel())
>>> jan, jun = datetime(2026, 1, 5, tzinfo=timezone.utc), datetime(2026, 6, 1, tzinfo=timezone.utc)
>>> [d.op.value for d in writer.write_turn("user:alice", [("user", "I live in Delhi.")], now=jan)]
['ADD']
>>> [d.op.value for d in writer.write_turn("user:alice", [("user", "I moved to Pune.")], now=jun)]
['UPDATE']
>>> [fact] = store.active("user:alice", episodes=False)
>>> fact.text, [store.get_memory("user:alice", e).text for e in fact.sources]
('User lives in Pune.', ['I live in Delhi.', 'I moved to Pune.'])
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from langgraph_memory import store as stores  # Chroma loads with the first store built
from langgraph_memory import telemetry
from langgraph_memory.checks import check_id, check_query
from langgraph_memory.errors import (
    AmbiguousMemoryError,
    InvalidArgumentError,
    InvalidMemoryError,
    MemoryNotFoundError,
)
from langgraph_memory.llm import resolve_chat_model
from langgraph_memory.records import (
    TURN_ID,
    Decision,
    DecisionOp,
    Kind,
    Memory,
    Source,
    Status,
    Trust,
    check_importance,
    check_text,
    now_utc,
    utc,
)
from langgraph_memory.scope import Scope, ScopeLike, check_path_scope
from langgraph_memory.tracing import trace_scope
from langgraph_memory.write.app_instructions import MemoryInstructions, check_instructions
from langgraph_memory.write.apply import apply
from langgraph_memory.write.chat_model import ChatMemoryModel, guided
from langgraph_memory.write.episodes import episode_fields, sort_sayings, turn_episodes
from langgraph_memory.write.extract import extract
from langgraph_memory.write.gate import may_hold_fact
from langgraph_memory.write.guards import supported
from langgraph_memory.write.reconcile import (
    decision_attributes,
    decision_writes,
    merge_similar,
    similar,
    trace_reconcile,
    unopposed,
    validate,
)
from langgraph_memory.write.retention import Retention, retain_episodes
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.types import (
    Choice,
    Fact,
    MemoryModel,
    RememberRequest,
    Role,
    Turn,
    check_roles,
)

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

log = logging.getLogger("langgraph_memory")

#: How a turn's facts are reconciled: one model call per fact, or one call for all
#: of them (fewer calls; the same validation, applied in the same order).
ReconcileCalls = Literal["per_fact", "batched"]
RECONCILE_CALLS: tuple[ReconcileCalls, ...] = ("per_fact", "batched")
MessageLike = BaseMessage | tuple[str, str] | dict[str, Any]
#: Turns ``write_turns`` embeds and stores in one go: bulk ingest measured fastest with
#: one ``add_many`` per 1,000 (``benchmarks.ingest_speed``; per 64 it ran at 0.54x).
WRITE_BATCH = 1000
#: The scopes a turn's words may set a rule in: a person's own. A rule for an agent or
#: an organisation (everyone's) is proposed and approved through a review.
RULE_SCOPES = frozenset({"user", "session"})
WIDER_RULE = "a rule for an agent or org scope is set through an approved review, not by one turn"

#: ``forget(query=...)`` archives the best match only when it is this similar to
#: the query and this far ahead of the runner-up; otherwise it asks which one.
FORGET_MIN_SCORE = 0.45
FORGET_MARGIN = 0.08


def memory_model(model: MemoryModel | BaseChatModel | str | None = None) -> MemoryModel:
    """The write path's ``MemoryModel`` (what extracts and reconciles) for ``model``:
    a MemoryModel as is; a LangChain chat model (or ``"provider:model"`` string, or
    None for the environment's) wrapped in the prompts as a ``ChatMemoryModel``;
    when nothing is configured, the offline rules model (with a warning).

    >>> memory_model(RulesModel()).name
    'rules'
    """
    if isinstance(model, MemoryModel):
        return model
    chat = resolve_chat_model(model)
    if chat is None:
        log.warning(
            "langgraph_memory: no chat model configured (pass model= to MemoryWriter, "
            "memory_write_node, add_memory, MemoryMiddleware or memory_hooks, or set "
            "OPENAI_API_KEY or OPENAI_BASE_URL): using the offline rules model, which "
            "understands only simple first-person statements"
        )
        return RulesModel()
    return ChatMemoryModel(chat)


@dataclass(frozen=True)
class _Step:
    """One fact on its way through reconciliation."""

    fact: Fact
    shown: list[Memory]


@dataclass(frozen=True)
class _Prepared:
    """A turn's facts, their vectors and their episodes, ready for reconciliation."""

    facts: list[Fact]
    vectors: list[list[float]]  # one per fact, or none (nothing to embed)
    episodes: dict[Source, str]  # the speaker -> the id of its episode of this turn

    def vector(self, i: int) -> list[float] | None:
        return self.vectors[i] if self.vectors else None


#: A write's span (OpenTelemetry): its decisions, each counted in ``langgraph_memory.writes``.
_WRITE_SPAN = telemetry.StepSpec(
    operation=telemetry.UPDATE_MEMORY, result=decision_attributes, writes=decision_writes
)


class MemoryWriter:
    """The write path over one store.

    Args:
        store: where memories live.
        model: a chat model, a ``MemoryModel``, a ``"provider:model"`` string, or
            None for the environment's model (see ``memory_model``); kept as
            ``self.model``, always a ``MemoryModel``.
        reconcile: ``"per_fact"`` (one reconcile call per fact) or ``"batched"``
            (one per turn for all its facts, same validation, same order).
        roles: whose words become memories; ``("user",)`` by default. Adding
            ``"assistant"``, ``"tool"`` or ``"document"`` opts in to those, with
            lower trust.
        gate: skip the model for turns that cannot hold a durable fact.
        always_reconcile: ask the model about every fact. By default a fact the
            scope holds nothing to compare with (no similar memory) is added
            without a model call, logged as an ADD whose note says so; True
            gives the model a second look at such facts too (it may drop one as
            not worth keeping), at one call each (per fact) or per turn (batched).
        episodes: keep each turn's words as episodes (``write.episodes``): what
            was said, verbatim, which the facts taken from it link to. True by default.
        episode_roles: whose words become episodes; ``("user",)`` by default.
            Adding ``"assistant"`` keeps the agent's replies too, with the
            trust its words have (medium: the assistant does not speak for the user).
        episode_retention: a ``Retention`` (max age, max count per scope): older
            episodes are archived, never deleted, each with a logged reason.
            None (the default) keeps them all.
        instructions: what the app wants remembered: a str of guidance for a chat
            model's extraction prompt, or ``MemoryInstructions(guidance=...,
            keep=[...], skip=[...])``, whose lists also filter every model's facts
            (the offline rules model's too) before reconciliation, each fact skipped
            logged as ``rejected`` with the reason. Explicit requests (``remember``)
            are neither guided nor filtered. None (the default): none. A chat
            model's own (``ChatMemoryModel(instructions=...)``) count when this is
            None; given, this replaces them. Kept as ``self.instructions``.

    Raises:
        InvalidTypeError: ``store`` is not a ``MemoryStore``, ``roles`` is not a
            list, or ``instructions`` is neither a str nor ``MemoryInstructions``.
        InvalidArgumentError: ``reconcile`` or a role is unknown, or
            ``episode_retention`` is not a ``Retention``.
        ModelConfigError: ``model`` names a chat model that cannot be built.
    """

    def __init__(
        self,
        store: MemoryStore,
        model: MemoryModel | BaseChatModel | str | None = None,
        *,
        reconcile: ReconcileCalls = "per_fact",
        roles: Sequence[Role] = ("user",),
        gate: bool = True,
        always_reconcile: bool = False,
        episodes: bool = True,
        episode_roles: Sequence[Role] = ("user",),
        episode_retention: Retention | None = None,
        instructions: str | MemoryInstructions | None = None,
    ) -> None:
        stores.check_store(store)
        wanted = check_instructions(instructions)
        if reconcile not in RECONCILE_CALLS:
            raise InvalidArgumentError(
                f"reconcile must be 'per_fact' or 'batched', got {reconcile!r}"
            )
        roles = check_roles(roles)
        episode_roles = check_roles(episode_roles, "episode_roles")
        if episode_retention is not None and not isinstance(episode_retention, Retention):
            raise InvalidArgumentError(
                "episode_retention must be a Retention, e.g. Retention(max_count=10_000); "
                f"got {episode_retention!r}"
            )
        self.store = store
        chosen = memory_model(model)
        if wanted is None and isinstance(chosen, ChatMemoryModel):
            wanted = chosen.instructions  # the chat model's own, filtered by here too
        self.instructions: MemoryInstructions | None = wanted
        self.model = guided(chosen, wanted)
        self.reconcile: ReconcileCalls = reconcile
        self.roles: tuple[Role, ...] = tuple(roles)
        self.gate = gate
        self.always_reconcile = bool(always_reconcile)
        self.episodes = bool(episodes)
        self.episode_roles: tuple[Role, ...] = tuple(dict.fromkeys(episode_roles))
        self.episode_retention = episode_retention
        self._retention_lock = threading.Lock()
        self._turns_to_retention: dict[str, int] = {}  # scope key -> turns before its next pass

    # -- turns -------------------------------------------------------------------------

    def write_turn(
        self,
        scope: ScopeLike,
        messages: Turn | Iterable[MessageLike],
        *,
        now: datetime | None = None,
        turn_id: str | None = None,
        thread_id: str | None = None,
    ) -> list[Decision]:
        """Learn from one turn; returns the logged decisions, in order.

        ``now`` (the turn's time, default: the clock) must be timezone-aware;
        ``turn_id`` (default: a new one) makes a replay recognisable;
        ``thread_id`` names the conversation, kept on the turn's episodes. The
        episodes are stored whatever the gate or the model make of the turn
        (they are not decisions, so they are not among those returned).

        Args:
            scope: the scope to write: a ``Scope``, ``"kind:id"`` or a namespace
                tuple; never an org scope (the write path writes none).
            messages: the turn: LangChain messages, ``(role, text)`` pairs, dicts
                with ``"role"`` and ``"content"``, or a ``Turn`` (see ``Turn.of``).
            now: the turn's time (timezone-aware); None: a given ``Turn``'s, else
                the clock.
            turn_id: the turn's id; None: a given ``Turn``'s, else a new one.
            thread_id: the conversation's id; None: a given ``Turn``'s, else none.

        Returns:
            The logged decisions about the turn's facts, in order.

        Raises:
            AdminRequiredError: ``scope`` is an org scope.
            InvalidArgumentError: ``messages`` cannot be read as a turn, or ``now``
                is naive.
        """
        turn = Turn.of(messages, when=_now(now), turn_id=turn_id, thread_id=thread_id)
        return self.write_turns(scope, [turn])

    @telemetry.spanned("memory.write", _WRITE_SPAN)  # the parent of the steps' spans
    def write_turns(
        self, scope: ScopeLike, turns: Iterable[Turn], *, batch: int = WRITE_BATCH
    ) -> list[Decision]:
        """Learn from many turns, in order: what ``write_turn`` on each would do,
        with the episodes of ``batch`` turns embedded and stored in one go (an
        import of a conversation's history runs several times faster). Each
        ``Turn`` carries its own time, id and thread; returns every logged decision.

        Args:
            scope: the scope to write: a ``Scope``, ``"kind:id"`` or a namespace
                tuple; never an org scope.
            turns: the ``Turn`` objects, oldest first (``Turn.of`` builds one).
            batch: how many turns' episodes are embedded and stored in one go, at
                least 1.

        Returns:
            Every logged decision, in the order of the turns.

        Raises:
            AdminRequiredError: ``scope`` is an org scope.
            InvalidArgumentError: an item of ``turns`` is no ``Turn``, or ``batch``
                is below 1.

        >>> import tempfile
        >>> from datetime import datetime, timezone
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.write.rules import RulesModel
        >>> from langgraph_memory.store import MemoryStore
        >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> day = datetime(2026, 1, 5, tzinfo=timezone.utc)
        >>> turns = [Turn.of([("user", said)], when=day, turn_id=f"t{i}", thread_id="chat-1")
        ...          for i, said in enumerate(["Hi there!", "I live in Delhi."])]
        >>> [d.op.value for d in MemoryWriter(store, RulesModel()).write_turns("user:a", turns)]
        ['ADD']
        >>> sorted(m.text for m in store.active("user:a"))
        ['Hi there!', 'I live in Delhi.', 'User lives in Delhi.']
        """
        scope = check_path_scope(Scope.of(scope))  # never an org scope
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise InvalidArgumentError(f"batch must be a positive int, got {batch!r}")
        listed = list(turns)
        bad = [t for t in listed if not isinstance(t, Turn)]
        if bad:
            raise InvalidArgumentError(
                "write_turns takes Turn objects, e.g. Turn.of(messages, when=..., turn_id=...); "
                f"got {type(bad[0]).__name__}: {bad[0]!r}"
            )
        if any(t.remember is not None for t in listed):
            return self._write_mixed(scope, listed, batch)
        logged: list[Decision] = []
        generation = stores.internals(self.store).scope_generation(scope)
        for start in range(0, len(listed), batch):
            chunk = listed[start : start + batch]
            extracted = [self._extract(scope, turn) for turn in chunk]
            # Compare-decide-apply is atomic per scope: two turns stating the same new
            # fact at once must not both see "nothing like it" and both ADD. The
            # episodes' replay check needs the lock too.
            with stores.internals(self.store).scope_lock(scope):
                if stores.internals(self.store).purged_since(scope, generation):
                    # The scope was purged (here or by another process) while these
                    # turns were read: writing them now would bring back what the
                    # purge erased.
                    log.warning(
                        "langgraph_memory: %d turns of %s dropped: the scope was purged "
                        "while they were being written",
                        len(listed) - start,
                        scope.key,
                    )
                    return logged
                prepared = self._prepare(scope, chunk, [facts for _, facts in extracted])
                for turn, (noted, _), ready in zip(chunk, extracted, prepared, strict=True):
                    logged += [self._log(scope, turn, d) for d in noted]
                    logged += self._reconcile(scope, turn, ready)
                if start + batch < len(listed):
                    # This batch may have made the scope: the next compares with that.
                    generation = stores.internals(self.store).scope_generation(scope)
            for turn in chunk:
                self._retain(scope, turn)
        return logged

    def _write_mixed(self, scope: Scope, turns: list[Turn], batch: int) -> list[Decision]:
        """Turns among which some are requests to remember (``Turn.remember``, what an
        MCP client's ``remember`` queues): each such request through the remember
        path, the runs of plain turns between them as ``write_turns`` writes them."""
        logged: list[Decision] = []
        for asked, run in itertools.groupby(turns, key=lambda t: t.remember):
            if asked is None:
                logged += self.write_turns(scope, list(run), batch=batch)
            else:
                for turn in run:
                    logged += self._remember(scope, turn, asked)
        return logged

    def _reconcile(self, scope: Scope, turn: Turn, ready: _Prepared) -> list[Decision]:
        """Decide and apply one turn's facts (caller holds the scope's lock)."""
        if self.reconcile == "batched" and len(ready.facts) > 1:
            return self._reconcile_batched(scope, turn, ready)
        return [
            self._reconcile_one(
                scope,
                turn,
                fact,
                episode_id=ready.episodes.get(fact.source),
                vector=ready.vector(i),
            )
            for i, fact in enumerate(ready.facts)
        ]

    def _extract(self, scope: Scope, turn: Turn) -> tuple[list[Decision], Sequence[Fact]]:
        """The turn's facts, and the decisions (not logged yet) about what was not one."""
        said = "\n".join(m.content for m in turn.by(self.roles))
        if self.gate and not may_hold_fact(said):
            return [], ()
        try:
            with trace_scope(scope):  # extraction is not given the scope; its run shows the kind
                extraction = extract(turn, model=self.model, roles=self.roles)
        except Exception as exc:  # a model failure is logged, never raised into the graph
            error = f"extraction failed: {type(exc).__name__}: {exc}"
            return [Decision(op=DecisionOp.NOOP, fact="", status=Status.FAILED, error=error)], ()
        rejected = list(extraction.rejected)
        found = list(extraction.facts)
        if scope.kind not in RULE_SCOPES:  # one user's words set no rule for everyone
            rejected += [(f.text, WIDER_RULE) for f in found if f.kind == Kind.PROCEDURAL]
            found = [f for f in found if f.kind != Kind.PROCEDURAL]
        if self.instructions is not None:
            # After extraction, whatever the model made of the prompt (the rules model
            # reads none); before reconciliation, so a skipped fact changes no memory.
            skipped = [(f, self.instructions.reason_to_skip(f)) for f in found]
            rejected += [(f.text, why) for f, why in skipped if why is not None]
            found = [f for f, why in skipped if why is None]
        noted = [
            Decision(
                op=DecisionOp.NOOP, fact=text, status=Status.REJECTED, note=why, raw=extraction.raw
            )
            for text, why in rejected
        ]
        if extraction.error:
            noted.append(
                Decision(
                    op=DecisionOp.NOOP,
                    fact="",
                    status=Status.FAILED,
                    error=extraction.error,
                    raw=extraction.raw,
                )
            )
        return noted, found

    def _prepare(
        self, scope: Scope, turns: Sequence[Turn], facts: Sequence[Sequence[Fact]]
    ) -> list[_Prepared]:
        """Store the turns' episodes not stored yet (words said before are recorded on
        the episode that holds them: ``episodes.sort_sayings``), and embed them with
        the facts not decided yet, in one embedder call and one write (caller holds the
        scope's lock): one ``_Prepared`` per turn."""
        undecided = [
            self._undecided(scope, t, f) if f else [] for t, f in zip(turns, facts, strict=True)
        ]
        roles = self.episode_roles if self.episodes else ()
        said = [[f for role in roles if (f := episode_fields(t, role))] for t in turns]
        held = turn_episodes(
            self.store, scope, [t.id for t, s in zip(turns, said, strict=True) if s]
        )
        episodes: dict[tuple[Any, Source], str] = {
            (m.metadata.get(TURN_ID), m.source): m.id for m in held
        }
        sayings = sort_sayings(
            self.store,
            scope,
            [
                (t, f)
                for t, fields in zip(turns, said, strict=True)
                for f in fields
                if (t.id, f["source"]) not in episodes
            ],
        )
        texts = [f["text"] for f in sayings.new] + [f.text for fs in undecided for f in fs]
        vectors = self.store.embeddings.embed_documents(texts) if texts else []
        added = self.store.add_many(scope, sayings.new, vectors=vectors[: len(sayings.new)])
        stores.internals(self.store).mark(scope, sayings.marks)
        for place, holder in sayings.holders.items():
            episodes[place] = added[holder].id if isinstance(holder, int) else holder
        fact_vectors = iter(vectors[len(sayings.new) :])
        return [
            _Prepared(
                fs,
                [next(fact_vectors) for _ in fs],
                {src: mid for (tid, src), mid in episodes.items() if tid == t.id},
            )
            for t, fs in zip(turns, undecided, strict=True)
        ]

    def _undecided(self, scope: Scope, turn: Turn, facts: Sequence[Fact]) -> list[Fact]:
        """The facts this turn has not decided yet: a turn replayed after a crash
        (same turn id) applies only what the crash cut off."""
        decided = {
            d.fact
            for d in self.store.decisions(scope, turn_id=turn.id)
            if d.status is not Status.FAILED
        }
        return [f for f in facts if f.text not in decided]

    async def awrite_turn(
        self,
        scope: ScopeLike,
        messages: Turn | Iterable[MessageLike],
        *,
        now: datetime | None = None,
        turn_id: str | None = None,
        thread_id: str | None = None,
    ) -> list[Decision]:
        """``write_turn`` without blocking the event loop (the same code, in a thread).

        Args:
            scope: the scope to write, as for ``write_turn``.
            messages: the turn, as for ``write_turn``.
            now: the turn's time (timezone-aware); None: as for ``write_turn``.
            turn_id: the turn's id; None: as for ``write_turn``.
            thread_id: the conversation's id; None: as for ``write_turn``.

        Returns:
            The logged decisions about the turn's facts, in order.
        """
        # A generator is read here, in the caller's thread; anything else that is
        # no list of messages goes as it is, for write_turn to refuse.
        given: Turn | Iterable[MessageLike] = messages
        if isinstance(messages, Iterable) and not isinstance(messages, (Turn, str, Mapping)):
            given = list(messages)
        return await asyncio.to_thread(
            self.write_turn,
            scope,
            given,
            now=now,
            turn_id=turn_id,
            thread_id=thread_id,
        )

    def _retain(self, scope: Scope, turn: Turn) -> None:
        """Apply the episode retention on a scope's first turn here, then every
        ``Retention.every`` turns. A failure is logged: the turn is written."""
        policy = self.episode_retention
        if policy is None:
            return
        with self._retention_lock:
            left = self._turns_to_retention.get(scope.key, 0)
            self._turns_to_retention[scope.key] = (left or policy.every) - 1
        if left:
            return
        try:
            retain_episodes(
                self.store,
                scope,
                now=turn.when,
                max_age=policy.max_age,
                max_count=policy.max_count,
            )
        except Exception as exc:
            log.warning(
                "langgraph_memory: episode retention in %s failed (tried again in %d turns): %r",
                scope.key,
                policy.every,
                exc,
            )

    def _reconcile_one(
        self,
        scope: Scope,
        turn: Turn,
        fact: Fact,
        *,
        pinned: bool | None = None,
        episode_id: str | None = None,
        vector: list[float] | None = None,
        asked_by: str | None = None,
    ) -> Decision:
        decision = self._decide(scope, turn, fact, vector)
        if asked_by is not None:  # who asked, in the log that explains the memory
            decision = decision.with_(note=_noted(decision, f"asked by {asked_by}"))
        return apply(
            self.store,
            scope,
            decision,
            fact,
            now=turn.when,
            turn_id=turn.id,
            pinned=pinned,
            episode_id=episode_id,
            vector=vector,
        )

    @trace_reconcile  # a `memory.reconcile` run when tracing is on; `memory.apply` follows
    def _decide(
        self, scope: Scope, turn: Turn, fact: Fact, vector: list[float] | None = None
    ) -> Decision:
        shown = similar(self.store, scope, fact, vector=vector)
        if not shown and not self.always_reconcile:
            return unopposed(fact)
        choice = self._choose([fact], shown, turn.when)[0]
        return validate(choice, fact, shown, embeddings=self.store.embeddings)

    def _choose(self, facts: Sequence[Fact], shown: list[Memory], today: datetime) -> list[Choice]:
        """The model's choice for each fact: one call, the one-fact prompt for a lone
        fact; a failed call or a short answer leaves choices without an op."""
        try:
            if len(facts) == 1:
                choices = [self.model.choose(facts[0], shown, today=today)]
            else:
                choices = list(self.model.choose_batch(facts, shown, today=today))
        except Exception as exc:
            return [Choice(op=None, raw=f"{type(exc).__name__}: {exc}") for _ in facts]
        return choices[: len(facts)] + [Choice(op=None)] * (len(facts) - len(choices))

    def _reconcile_batched(self, scope: Scope, turn: Turn, ready: _Prepared) -> list[Decision]:
        done: list[Decision] = []
        replaced: dict[str, str | None] = {}  # id closed earlier in this turn -> its successor
        decided = self._decide_batch(scope, turn, ready.facts, ready.vectors)
        for i, (fact, validated) in enumerate(zip(ready.facts, decided, strict=True)):
            decision = _follow(validated, replaced)
            decision = apply(
                self.store,
                scope,
                decision,
                fact,
                now=turn.when,
                turn_id=turn.id,
                episode_id=ready.episodes.get(fact.source),
                vector=ready.vector(i),
            )
            if decision.status is not Status.FAILED and decision.target_id:
                if decision.op is DecisionOp.UPDATE:
                    replaced[decision.target_id] = decision.result_id
                elif decision.op is DecisionOp.DELETE:
                    replaced[decision.target_id] = None
            done.append(decision)
        return done

    @trace_reconcile  # validation is pure, so deciding all before applying any is the same
    def _decide_batch(
        self,
        scope: Scope,
        turn: Turn,
        facts: Sequence[Fact],
        vectors: Sequence[list[float]] = (),
    ) -> list[Decision]:
        steps = [
            _Step(f, similar(self.store, scope, f, vector=vectors[i] if vectors else None))
            for i, f in enumerate(facts)
        ]
        # Facts nothing resembles are added without the model; the rest share one call.
        asked = [s for s in steps if s.shown or self.always_reconcile]
        shown = merge_similar([s.shown for s in asked])
        choices = self._choose([s.fact for s in asked], shown, turn.when) if asked else []
        answered = {id(s): c for s, c in zip(asked, choices, strict=True)}
        return [
            validate(answered[id(s)], s.fact, shown, embeddings=self.store.embeddings)
            if id(s) in answered
            else unopposed(s.fact)
            for s in steps
        ]

    # -- explicit paths ------------------------------------------------------------------------

    @telemetry.spanned("memory.remember", _WRITE_SPAN)
    def remember(
        self,
        scope: ScopeLike,
        text: str,
        *,
        importance: float | None = None,
        pinned: bool = False,
        now: datetime | None = None,
        source: Source = Source.EXPLICIT,
        trust: Trust = Trust.HIGH,
        rule: bool = False,
    ) -> list[Decision]:
        """Store what the user asked to remember, through reconciliation.

        ``rule=True`` keeps it as a rule (a procedural memory every read shows: "answer
        in metric units"), as a standing instruction in the user's words already is
        ("From now on, ..."). Only the user's own, trusted words make a rule: with a
        lower ``trust`` it is kept as a note like any other.

        The text is read as the user's own words ("I prefer metric units"), so
        it is normalised like any fact and can UPDATE an older memory
        ("User prefers imperial units."). Facts get ``source="explicit"`` and
        high trust: this is the user's request, as the application passes it on.
        Text nobody checked the user asked for (a model's tool call the user's
        message does not back) passes a lower ``trust`` and its ``source``
        (``memory_tools`` does): such a fact closes no memory more trusted than
        itself. Empty or blank text is refused (``InvalidMemoryError``) before any
        model call or log write. The writer's ``instructions`` do not apply: the
        user asked for this, so it is extracted without the app's guidance and
        never skipped by its lists.

        Args:
            scope: the scope to write: a ``Scope``, ``"kind:id"`` or a namespace
                tuple; never an org scope.
            text: what to remember, in the user's words.
            importance: from 0 to 1; None: what the model gives, at least 0.7.
            pinned: True pins what it stores (every read of the scope shows it).
            now: when it was said (timezone-aware); None: the clock.
            source: the ``Source`` of the facts; by default ``EXPLICIT``: the user
                asked.
            trust: the ``Trust`` of the facts; lower it for text nobody checked the
                user asked for.
            rule: True keeps it as a rule (a procedural memory every read shows),
                when ``trust`` is high.

        Returns:
            The logged decisions, one per fact the text holds.

        Raises:
            InvalidMemoryError: ``text`` is blank or too long, ``importance`` is
                outside [0, 1], or ``pinned`` is not a bool.
            InvalidArgumentError: ``rule`` is not a bool, ``source`` is no
                ``Source``, ``trust`` no ``Trust``, or ``now`` is naive.
            AdminRequiredError: ``scope`` is an org scope.
        """
        scope = check_path_scope(Scope.of(scope))  # never an org scope
        request = remember_request(
            importance=importance, pinned=pinned, source=source, trust=trust, rule=rule
        )
        turn = Turn.of([("user", check_text(text))], when=_now(now), remember=request)
        return self._remember(scope, turn, request)

    def _remember(self, scope: Scope, turn: Turn, request: RememberRequest) -> list[Decision]:
        """The remember path for a turn whose user message is to be remembered: its
        facts (or its words as given) reconciled with ``request``'s provenance. A turn
        replayed after a crash (same id) applies only the facts not decided yet; a
        scope purged meanwhile gets nothing."""
        generation = stores.internals(self.store).scope_generation(scope)
        found: Sequence[Fact]
        try:
            with trace_scope(scope):
                # The user asked for this: the app's guidance does not narrow it (a
                # model told to skip it would leave the words unread, kept as given).
                found = extract(turn, model=guided(self.model, None)).facts
        except Exception:
            found = ()
        if not found:  # nothing the model recognised: keep the words as given
            found = (Fact(turn.user_text()),)
        facts = [
            Fact(
                fact.text,
                importance=(
                    request.importance
                    if request.importance is not None
                    else max(fact.importance, 0.7)
                ),
                source=request.source,
                trust=request.trust,
                kind=_remembered_kind(fact.kind, rule=request.rule, trust=request.trust),
                event_time=fact.event_time,
            )
            for fact in found
        ]
        decisions = []
        with stores.internals(self.store).scope_lock(scope):
            if stores.internals(self.store).purged_since(scope, generation):
                log.warning(
                    "langgraph_memory: a request to remember in %s dropped: the scope was "
                    "purged while it was being written",
                    scope.key,
                )
                return []
            for fact in self._undecided(scope, turn, facts):
                decisions.append(
                    self._reconcile_one(
                        scope, turn, fact, pinned=request.pinned or None, asked_by=request.by
                    )
                )
        return decisions

    def forget(
        self,
        scope: ScopeLike,
        memory_id: str | None = None,
        *,
        query: str | None = None,
        now: datetime | None = None,
    ) -> Decision:
        """Archive one memory, by id or by description; logged as a DELETE.

        With ``query``, the best match must be clearly the one meant; otherwise
        ``AmbiguousMemoryError`` lists the matches to choose from by id; an
        empty or blank query is refused (``InvalidArgumentError``). ``find_one``
        names the memory without archiving it.

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple; never an org scope.
            memory_id: the memory's id (or chain key); give it or ``query``.
            query: a description of the memory (words from its text), instead of
                ``memory_id``.
            now: when it stops being valid (timezone-aware); None: the clock.

        Returns:
            The logged ``DELETE`` decision (``target_id`` names the memory).

        Raises:
            InvalidArgumentError: neither or both of ``memory_id`` and ``query``
                are given, or ``query`` is blank.
            MemoryNotFoundError: nothing in the scope matches.
            AmbiguousMemoryError: ``query`` matches several memories (its
                ``matches`` lists them).
            AdminRequiredError: ``scope`` is an org scope.
        """
        scope = check_path_scope(Scope.of(scope))  # never an org scope
        when = utc(now, "now") if now is not None else now_utc()
        target = self.find_one(scope, memory_id, query=query)
        fact = query or f"forget {target.id}"
        decision = Decision(
            op=DecisionOp.DELETE,
            fact=fact,
            target_id=target.id,
            shown_ids=(target.id,),
            shown_texts=(target.text,),
            raw="explicit forget",
        )
        return apply(self.store, scope, decision, Fact(fact), now=when)

    def find_one(
        self, scope: ScopeLike, memory_id: str | None = None, *, query: str | None = None
    ) -> Memory:
        """The one memory ``forget`` would archive for ``memory_id`` or ``query``
        (the same errors), archiving nothing: a caller can check it first.

        Args:
            scope: the memory's scope: a ``Scope``, ``"kind:id"`` or a namespace
                tuple.
            memory_id: the memory's id (or chain key); give it or ``query``.
            query: a description of the memory (words from its text), instead of
                ``memory_id``.

        Returns:
            The memory ``forget`` would archive.

        Raises:
            InvalidArgumentError: neither or both of ``memory_id`` and ``query``
                are given, or ``query`` is blank.
            MemoryNotFoundError: nothing in the scope matches.
            AmbiguousMemoryError: ``query`` matches several memories.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = store.add("user:a", "User likes tea.")
        >>> MemoryWriter(store, model=RulesModel()).find_one("user:a", m.id).text
        'User likes tea.'
        """
        scope = Scope.of(scope)
        if (memory_id is None) == (query is None):
            raise InvalidArgumentError("forget() takes a memory_id or a query, exactly one of them")
        if memory_id is None:
            query = check_query(query)
            if not query.strip():
                raise InvalidArgumentError(
                    "forget() got an empty query, which would match any memory: pass the "
                    "memory's id, or words from its text"
                )
            memory_id = self._one_match(scope, query).id
        check_id(memory_id)
        return self.store.get_memory(scope, memory_id)

    def _one_match(self, scope: Scope, query: str) -> Memory:
        # A fact is what is forgotten by description: the episode that said it
        # would match as well and make every such request ambiguous.
        hits = stores.internals(self.store).nearest(scope, query, k=5, episodes=False)
        ids = {h.memory.id for h in hits}
        keyword = [
            h
            for h in stores.internals(self.store).keyword(scope, query, k=3, episodes=False)
            if h.memory.id not in ids
        ]
        if not hits and not keyword:
            raise MemoryNotFoundError(f"no memory in {scope.key} matches {query!r}")
        if (
            hits
            and hits[0].score >= FORGET_MIN_SCORE
            and (len(hits) == 1 or hits[0].score - hits[1].score >= FORGET_MARGIN)
        ):
            return hits[0].memory
        listed = [h.memory for h in hits] + [h.memory for h in keyword]
        raise AmbiguousMemoryError(
            f"{query!r} matches several memories in {scope.key}; forget one by id:\n"
            + "\n".join(f"  {m.id}: {m.text}" for m in listed),
            matches=listed,
        )

    def _log(self, scope: Scope, turn: Turn, decision: Decision) -> Decision:
        return stores.internals(self.store).log(
            scope, decision.with_(turn_id=turn.id), now=turn.when
        )[0]


def remember_request(
    *,
    importance: float | None = None,
    pinned: bool = False,
    source: Source = Source.EXPLICIT,
    trust: Trust = Trust.HIGH,
    rule: bool = False,
    by: str | None = None,
) -> RememberRequest:
    """A ``RememberRequest`` from ``remember``'s arguments, each checked with the error
    ``remember`` raises: what ``remember`` applies now, or a caller queues as a turn.

    >>> remember_request(trust=Trust.MEDIUM, by="mcp:cursor").record()
    {'source': 'explicit', 'trust': 'medium', 'by': 'mcp:cursor'}
    >>> remember_request(importance=2)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidMemoryError: importance must be a number in [0, 1], got 2 ...
    """
    if importance is not None:
        importance = check_importance(importance)
    if not isinstance(pinned, bool):
        raise InvalidMemoryError(f"pinned must be True or False, got {pinned!r}")
    if not isinstance(rule, bool):
        raise InvalidArgumentError(f"rule must be True or False, got {rule!r}")
    if not isinstance(source, Source) or not isinstance(trust, Trust):
        raise InvalidArgumentError(
            f"source must be a Source and trust a Trust, got {source!r} and {trust!r}"
        )
    if by is not None and (not isinstance(by, str) or not by.strip()):
        raise InvalidArgumentError(f"by must be a non-blank str or None, got {by!r}")
    return RememberRequest(source, trust, rule, importance, pinned, by)


def _now(now: datetime | None) -> datetime | None:
    """A caller's ``now``, checked under that name (None: the turn's own time, or the clock)."""
    return utc(now, "now") if now is not None else None


def _follow(decision: Decision, replaced: dict[str, str | None]) -> Decision:
    """In-order semantics for a batch: a target an earlier fact changed is followed
    to its successor; one an earlier fact deleted cannot be changed again."""
    target = decision.target_id
    if target is None or target not in replaced:
        return decision
    successor = replaced[target]
    if successor is not None:
        return decision.with_(target_id=successor)
    if decision.op is DecisionOp.UPDATE:
        # The text was checked against the fact and the old target: alone, the fact must hold it.
        text = decision.text if supported(decision.text or "", decision.fact) else decision.fact
        return decision.with_(
            op=DecisionOp.ADD,
            target_id=None,
            text=text,
            note=_noted(decision, "target deleted earlier in this turn -> ADD"),
        )
    return decision.with_(
        op=DecisionOp.NOOP,
        target_id=None,
        text=None,
        note=_noted(decision, "target deleted earlier in this turn -> NOOP"),
    )


def _noted(decision: Decision, note: str) -> str:
    """``note`` after what validation already noted about ``decision``."""
    return f"{decision.note}; {note}" if decision.note else note


def _remembered_kind(extracted: Kind, *, rule: bool, trust: Trust) -> Kind:
    """The kind a remembered fact is kept as: a rule when asked for or read as one, but
    only from trusted words (text nobody checked the user asked for is a note).

    >>> _remembered_kind(Kind.SEMANTIC, rule=True, trust=Trust.HIGH).value
    'procedural'
    >>> _remembered_kind(Kind.PROCEDURAL, rule=False, trust=Trust.LOW).value
    'semantic'
    """
    wanted = Kind.PROCEDURAL if rule else extracted
    if wanted == Kind.PROCEDURAL and trust is not Trust.HIGH:
        return Kind.SEMANTIC
    return wanted
