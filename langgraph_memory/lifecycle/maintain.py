"""``maintain``: the lifecycle jobs over one scope or every scope, in one call.

For each scope, in order: the writer's episode ``Retention`` (when given), decay
(``forget_stale``), consolidation of near-duplicates (``consolidate``) and reflection
(``reflect``, when it is due). Every change is a logged decision, and the
returned ``MaintenanceReport`` holds them all. A scope that fails (a model time-out, a
store error) is reported with its error and the others go on; a wrong argument raises.

Run it on a schedule:

- **LangGraph Platform cron.** ``graphs/langgraph.json`` declares the graph
  ``maintenance`` (``graphs/maintenance.py``), which runs ``maintain`` on the store the
  Platform gives it; schedule it with the SDK::

      client.crons.create("maintenance", schedule="0 3 * * *", input={})

  (``input={"scope": "user:alice"}`` for one scope, ``{"dry_run": True}`` to preview.)
- **An app's scheduler.** Any scheduler that calls a function, e.g. APScheduler::

      scheduler.add_job(lambda: maintain(store), "cron", hour=3)

  or, with a ``BackgroundWriter``, when its queue is idle:
  ``BackgroundWriter(writer, when_idle=Maintenance(every=timedelta(hours=6)))``.
- **The shell** (cron, systemd timers): ``langgraph-memory maintain --path DIR`` (or
  ``--server HOST:PORT`` while an app holds the store).

>>> import tempfile
>>> from datetime import datetime, timedelta, timezone
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.write import RulesModel
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> _ = store.add_many("user:a", ["User is vegan.", "User is vegan.",
...                               {"text": "User saw a film.", "importance": 0.2}], now=t)
>>> _ = store.add("user:b", "User likes tea.", now=t)
>>> report = maintain(store, model=RulesModel(), now=t + timedelta(days=90))
>>> report.totals()
{'decayed': 1, 'merged': 1, 'duplicates_archived': 1, 'episodes_archived': 0, 'reflections': 0}
>>> [s.scope for s in report.scopes], [m.text for m in store.active("user:a")]
(['user:a', 'user:b'], ['User is vegan.'])
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel

from langgraph_memory import telemetry
from langgraph_memory.errors import InvalidArgumentError, InvalidTypeError
from langgraph_memory.lifecycle.consolidate import THRESHOLD as SIMILARITY
from langgraph_memory.lifecycle.consolidate import consolidate
from langgraph_memory.lifecycle.decay import HALF_LIFE, forget_stale
from langgraph_memory.lifecycle.decay import THRESHOLD as STRENGTH
from langgraph_memory.lifecycle.mergers import Merger, merger
from langgraph_memory.lifecycle.reflect import reflect
from langgraph_memory.lifecycle.reflectors import Reflector, reflector
from langgraph_memory.records import Decision, DecisionOp, now_utc, utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store import MemoryStore, check_store
from langgraph_memory.write.retention import Retention, retain_episodes
from langgraph_memory.write.types import MemoryModel
from langgraph_memory.write.writer import MemoryWriter, memory_model

__all__ = ["STEPS", "Maintenance", "MaintenanceReport", "ScopeReport", "Step", "maintain"]

log = logging.getLogger("langgraph_memory")

#: The jobs ``maintain`` can run, in the order it runs them.
Step = Literal["episodes", "decay", "consolidate", "reflect"]
STEPS: tuple[Step, ...] = ("episodes", "decay", "consolidate", "reflect")

ModelLike = Merger | Reflector | MemoryModel | BaseChatModel | str | None
MergerLike = Merger | MemoryModel | BaseChatModel | str | None
ReflectorLike = Reflector | MemoryModel | BaseChatModel | str | None


@dataclass(frozen=True)
class ScopeReport:
    """What maintenance did in one scope: the decisions of each step (unlogged in a
    dry run), how long it took, and the error that stopped it, if any."""

    scope: str
    episodes: tuple[Decision, ...] = ()
    decayed: tuple[Decision, ...] = ()
    consolidated: tuple[Decision, ...] = ()
    reflected: tuple[Decision, ...] = ()
    seconds: float = 0.0
    error: str | None = None

    def counts(self) -> dict[str, int]:
        """How many memories each step changed.

        >>> ScopeReport("user:a").counts()["merged"]
        0
        """
        return {
            "decayed": len(self.decayed),
            "merged": _ops(self.consolidated, DecisionOp.UPDATE),
            "duplicates_archived": _ops(self.consolidated, DecisionOp.DELETE),
            "episodes_archived": len(self.episodes),
            "reflections": _ops(self.reflected, DecisionOp.ADD),
        }

    def decisions(self) -> list[Decision]:
        """Every decision, step by step."""
        return [*self.episodes, *self.decayed, *self.consolidated, *self.reflected]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: counts, decisions, seconds and error."""
        return {
            "scope": self.scope,
            "counts": self.counts(),
            "seconds": self.seconds,
            "error": self.error,
            "decisions": [d.to_dict() for d in self.decisions()],
        }


def _ops(decisions: Sequence[Decision], op: DecisionOp) -> int:
    return sum(1 for d in decisions if d.op is op)


@dataclass(frozen=True)
class MaintenanceReport:
    """What ``maintain`` did, scope by scope; ``skipped``: the steps it did not run, and why."""

    scopes: tuple[ScopeReport, ...]
    dry_run: bool = False
    seconds: float = 0.0
    skipped: tuple[str, ...] = ()
    now: datetime | None = None

    def totals(self) -> dict[str, int]:
        """The scopes' counts added up.

        >>> MaintenanceReport(()).totals()["decayed"]
        0
        """
        total = ScopeReport("").counts()
        for report in self.scopes:
            for name, n in report.counts().items():
                total[name] += n
        return total

    @property
    def errors(self) -> dict[str, str]:
        """The scopes that failed, with their errors."""
        return {r.scope: r.error for r in self.scopes if r.error is not None}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``langgraph-memory maintain --json`` prints)."""
        return {
            "now": self.now.isoformat() if self.now else None,
            "dry_run": self.dry_run,
            "seconds": self.seconds,
            "totals": self.totals(),
            "skipped": list(self.skipped),
            "errors": self.errors,
            "scopes": [r.to_dict() for r in self.scopes],
        }


@telemetry.spanned(  # a span with OpenTelemetry, the parent of each job's span
    "memory.maintain",
    telemetry.StepSpec(result=lambda report: {"langgraph_memory.scopes": len(report.scopes)}),
)
def maintain(
    store: MemoryStore,
    scope: ScopeLike | None = None,
    *,
    model: ModelLike = None,
    now: datetime | None = None,
    steps: Sequence[Step] = STEPS,
    retention: Retention | None = None,
    strength_threshold: float = STRENGTH,
    half_life: timedelta = HALF_LIFE,
    similarity: float = SIMILARITY,
    dry_run: bool = False,
    on_scope: Callable[[ScopeReport], object] | None = None,
) -> MaintenanceReport:
    """Run the lifecycle jobs over ``scope``, or every scope of the store (``store.scopes()``).

    ``steps``: which of ``STEPS`` to run (the episode retention runs only with
    ``retention``, e.g. the writer's ``episode_retention``). ``model``: what merges
    and reflects (as ``consolidate``'s; resolved once, so None means the
    environment's chat model, else the offline rules with a warning).
    ``strength_threshold`` and ``half_life`` go to ``forget_stale``, ``similarity``
    (a cosine) to ``consolidate``. ``dry_run``: nothing changes and the report holds
    the decisions that would be logged; the merger is still asked, and retention and
    reflection, which have no preview, are skipped. ``on_scope`` is called with each
    scope's report as it is done (a progress bar).
    """
    check_store(store)
    began = time.perf_counter()
    when = utc(now, "now") if now is not None else now_utc()
    unknown = [s for s in steps if s not in STEPS]
    if isinstance(steps, str) or unknown:
        raise InvalidArgumentError(f"steps must be a list of {', '.join(STEPS)}; got {steps!r}")
    if retention is not None and not isinstance(retention, Retention):
        raise InvalidArgumentError(
            f"retention must be a Retention (the writer's episode_retention), got {retention!r}"
        )
    if dry_run and retention is not None and "episodes" in steps:
        raise InvalidArgumentError(
            "the episode retention has no dry run: leave retention out to preview the rest"
        )
    reflecting = "reflect" in steps and not dry_run
    skipped = []
    if "reflect" in steps and dry_run:
        skipped.append("reflect: a reflection cannot be previewed (dry run)")
    if not isinstance(model, (Merger, Reflector, MemoryModel)) and (
        "consolidate" in steps or reflecting
    ):
        model = memory_model(model)  # once: None would warn, or make a client, per step
    # A Merger cannot reflect, nor a Reflector merge: merger() and reflector() refuse
    # what they cannot use (ModelConfigError), before any scope is touched.
    run = _Run(
        merger(cast(MergerLike, model)) if "consolidate" in steps else None,
        reflector(cast(ReflectorLike, model)) if reflecting else None,
        when,
        tuple(steps),
        retention,
        strength_threshold,
        half_life,
        similarity,
    )
    scopes = [Scope.of(scope)] if scope is not None else store.scopes()
    reports = []
    for s in scopes:
        report = run.scope(store, s, dry_run=dry_run)
        reports.append(report)
        if on_scope is not None:
            on_scope(report)
    return MaintenanceReport(
        tuple(reports),
        dry_run=dry_run,
        seconds=time.perf_counter() - began,
        skipped=tuple(skipped),
        now=when,
    )


@dataclass(frozen=True)
class _Run:
    """One ``maintain`` call's settings, applied scope by scope."""

    merging: Merger | None
    reflecting: Reflector | None
    when: datetime
    steps: tuple[Step, ...]
    retention: Retention | None
    strength_threshold: float
    half_life: timedelta
    similarity: float

    def scope(self, store: MemoryStore, scope: Scope, *, dry_run: bool) -> ScopeReport:
        """One scope's steps; an error other than a wrong argument ends the scope's
        run and goes in its report (what was done before it stays done)."""
        began = time.perf_counter()
        done: dict[str, tuple[Decision, ...]] = {}
        error = None
        try:
            for step in self.steps:
                # A dry run archives nothing: later steps leave out what it would have.
                gone = {
                    d.target_id for ds in done.values() for d in ds if d.op is DecisionOp.DELETE
                }
                name, decisions = self._step(store, scope, step, dry_run, gone)
                if decisions is not None:
                    done[name] = tuple(decisions)
        except InvalidArgumentError:
            raise
        except Exception as exc:  # one scope's failure must not stop the others
            log.warning("langgraph_memory: maintenance of %s failed: %r", scope.key, exc)
            error = f"{type(exc).__name__}: {exc}"
        return ScopeReport(scope.key, **done, seconds=time.perf_counter() - began, error=error)

    def _step(
        self, store: MemoryStore, scope: Scope, step: Step, dry_run: bool, gone: set[str | None]
    ) -> tuple[str, list[Decision] | None]:
        """The report field of ``step`` and its decisions (None: not run)."""
        when = self.when
        if step == "episodes":
            policy = self.retention
            if policy is None:
                return "episodes", None
            found = retain_episodes(
                store, scope, now=when, max_age=policy.max_age, max_count=policy.max_count
            )
            return "episodes", found
        if step == "decay":
            return "decayed", forget_stale(
                store,
                scope,
                now=when,
                threshold=self.strength_threshold,
                half_life=self.half_life,
                dry_run=dry_run,
            )
        if step == "consolidate":
            return "consolidated", consolidate(
                store,
                scope,
                self.merging,
                now=when,
                threshold=self.similarity,
                dry_run=dry_run,
                exclude={i for i in gone if i is not None} if dry_run else (),
            )
        if self.reflecting is None:
            return "reflected", None
        return "reflected", reflect(store, scope, self.reflecting, now=when)


@dataclass(frozen=True)
class Maintenance:
    """``maintain`` as a ``BackgroundWriter``'s idle job: run at most once per
    ``every``, when no turn is queued, with the writer's store, model and episode
    retention. ``options`` go to ``maintain`` (``steps``, ``similarity`` ...).

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.write import MemoryWriter, RulesModel
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = store.add_many("user:a", ["User is vegan.", "User is vegan."])
    >>> job = Maintenance(every=timedelta(hours=6))
    >>> job(MemoryWriter(store, model=RulesModel())).totals()["merged"]
    1
    """

    every: timedelta = timedelta(hours=6)
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.every, timedelta) or self.every <= timedelta(0):
            raise InvalidArgumentError(
                f"every must be a positive timedelta (e.g. timedelta(hours=6)), got {self.every!r}"
            )
        # Checked now: a wrong name would raise in the writer's idle thread, turn after turn.
        if not isinstance(self.options, dict):
            raise InvalidTypeError(
                f"options must be a dict of maintain()'s arguments, got {self.options!r}"
            )
        taken = set(inspect.signature(maintain).parameters) - {"store", "model", "retention"}
        unknown = sorted(set(self.options) - taken)
        if unknown:
            raise InvalidTypeError(
                f"options {unknown} are not maintain()'s; it takes {', '.join(sorted(taken))} "
                "(the store, model and retention are the writer's)"
            )

    def __call__(self, writer: MemoryWriter) -> MaintenanceReport:
        """Maintain every scope of ``writer.store`` with ``writer``'s model and retention."""
        return maintain(
            writer.store,
            model=writer.model,
            retention=writer.episode_retention,
            **self.options,
        )
