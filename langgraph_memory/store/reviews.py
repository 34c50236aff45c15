"""Reviews: the one way a memory moves from a scope into a wider one.

Nothing moves up by itself: a lesson learned from one user stays in that user's
scope until someone proposes it and a reviewer approves it. ``propose`` records a
pending :class:`~langgraph_memory.records.Review` (and logs it in the source scope);
``approve`` copies the proposed memory into the target scope as a new memory whose
metadata names where it came from (``review_id``, ``reviewed_from``,
``reviewed_memory``) and logs the decision in both scopes; ``reject`` logs the
refusal in both. A review is decided once. A review moves a memory to a wider
scope only (session < user < agent < org), never sideways from one user to
another; approving into (or rejecting for) an org scope takes an admin view.

Where reviews live (``chroma/review_records.py``): one Chroma collection for the whole store
(``layout.REVIEWS``), a record per review (the review's JSON as document; its
scopes, status, memory id and time as metadata). A review names two scopes and
is read across them: a reviewer lists what waits for a target scope (or for
all), a person's export or purge finds what was proposed from their scope. In
one collection each is one filtered read; kept in the scopes' own collections
each would be a copy in both scopes or a scan of every scope. Reviews are never
searched by similarity, so the reason for a collection per scope (fast vector
queries) does not hold for them. A purge deletes its reviews and rebuilds the
collection, as it rebuilds the scope's own (see ``purging``).

An approved copy is the source's words in another scope: a purge of the source
memory (or of its scope) purges the copy with its reviews, as it purges
reflections drawn from it. A lesson meant to outlive its source is written anew
in the target scope, in the agent's own words.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> m = store.add("user:alice", "Refunds take 5 days.")
>>> review = store.reviews.propose("user:alice", m.id, "agent:support")
>>> store.active("agent:support")
[]
>>> done = store.reviews.approve(review.id)
>>> [c.text for c in store.active("agent:support")], done.status.value
(['Refunds take 5 days.'], 'approved')
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import datetime

from langgraph_memory.checks import check_id
from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidMemoryError,
    MemoryArchivedError,
    MemoryNotFoundError,
    ReviewDecidedError,
    ReviewInvalidError,
)
from langgraph_memory.records import (
    Decision,
    DecisionOp,
    Memory,
    Review,
    ReviewStatus,
    Status,
    check_metadata,
    now_utc,
    utc,
)
from langgraph_memory.scope import BREADTH, Scope, ScopeLike
from langgraph_memory.store.chroma import (
    USER_PREFIX,
    fetch,
    get_review,
    list_reviews,
    log_id,
    save_reviews,
)
from langgraph_memory.store.engine import StoreCore, fresh_method, read_method

__all__ = [
    "REVIEWED_FROM",
    "REVIEWED_MEMORY",
    "REVIEW_ID",
    "Reviews",
    "check_direction",
    "decide",
    "is_copy",
    "logged_for",
    "propose",
    "untrusted",
]

log = logging.getLogger("langgraph_memory")

#: Metadata of an approved copy: the review, and the scope and memory it came from.
REVIEW_ID = "review_id"
REVIEWED_FROM = "reviewed_from"
REVIEWED_MEMORY = "reviewed_memory"


# -- the rules of a copy and its log ----------------------------------------------------


def is_copy(memory: Memory, review: Review) -> bool:
    """Whether ``memory`` is the copy that approving ``review`` made: its metadata
    names that review, and the scope and memory it came from. A link the store
    made is one it can verify: a purge follows a review to its copy only then.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 5, tzinfo=timezone.utc)
    >>> m = Memory(id="0a1b2c3d", text="Refunds take 5 days.", scope="user:alice", created_at=t)
    >>> r = Review("r1", "user:alice", m.id, "agent:support", m, t)
    >>> meta = {REVIEW_ID: "r1", REVIEWED_FROM: "user:alice", REVIEWED_MEMORY: m.id}
    >>> copy = Memory(id="9f8e7d6c", text=m.text, scope="agent:support", created_at=t,
    ...               metadata=meta)
    >>> is_copy(copy, r), is_copy(m, r)
    (True, False)
    """
    meta = memory.metadata
    return (
        memory.scope == review.to_scope
        and meta.get(REVIEW_ID) == review.id
        and meta.get(REVIEWED_FROM) == review.from_scope
        and meta.get(REVIEWED_MEMORY) == review.memory_id
    )


def logged_for(decision: Decision, review: Review) -> bool:
    """Whether ``decision`` is one that proposing or deciding ``review`` logged:
    its note names the review, and it is about the review's memory or its copy.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 5, tzinfo=timezone.utc)
    >>> m = Memory(id="0a1b2c3d", text="Refunds take 5 days.", scope="user:alice", created_at=t)
    >>> r = Review("r1", "user:alice", m.id, "agent:support", m, t)
    >>> d = Decision(op=DecisionOp.NOOP, fact=m.text, target_id=m.id,
    ...              note="review r1: proposed for x")
    >>> logged_for(d, r), logged_for(d.with_(note="review r10: proposed for x"), r)
    (True, False)
    """
    note = decision.note or ""
    named = note.startswith((f"review {review.id}:", f"review {review.id} "))
    about = decision.target_id == review.memory_id or (
        review.result_id is not None and decision.result_id == review.result_id
    )
    return named and about


# -- proposing and deciding --------------------------------------------------------------


def _provenance(review_id: str, source: Scope, memory_id: str) -> dict[str, str]:
    return {REVIEW_ID: review_id, REVIEWED_FROM: source.key, REVIEWED_MEMORY: memory_id}


def check_direction(source: Scope, target: Scope) -> None:
    """Refuse a review that does not move a memory into a wider scope
    (session < user < agent < org), never sideways or down.

    >>> check_direction(Scope("user", "alice"), Scope("agent", "support"))
    >>> check_direction(Scope("user", "alice"), Scope("user", "bob"))
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: a review moves a memory into a wider scope, ...
    """
    for scope in (source, target):
        if scope.kind not in BREADTH:
            raise InvalidArgumentError(
                f"{scope.key} is a {scope.kind} scope (a LangGraph namespace of its own); a "
                f"review moves a memory between {', '.join(BREADTH)} scopes"
            )
    if BREADTH[target.kind] <= BREADTH[source.kind]:
        wider = [k for k, b in BREADTH.items() if b > BREADTH[source.kind]]
        raise InvalidArgumentError(
            f"a review moves a memory into a wider scope, and {target.key} is not wider "
            f"than {source.key} (session < user < agent < org): propose it to "
            + (f"a scope of kind {' or '.join(wider)}" if wider else "nothing wider")
        )


def propose(
    core: StoreCore,
    source: Scope,
    memory_id: str,
    target: Scope,
    *,
    note: str | None,
    when: datetime,
) -> Review:
    """Record a pending review of the active memory ``memory_id`` of ``source`` for
    ``target``, and log it in ``source``; the pending review already asking that
    is returned instead of a second."""
    check_direction(source, target)
    if note is not None and not isinstance(note, str):
        raise InvalidArgumentError(f"note must be a str or None, got {type(note).__name__}")
    with core.writing(source) as engine:
        memory = core.active_version(source, memory_id, with_vector=False).memory
        if memory.is_episode:
            raise InvalidArgumentError(
                f"memory {memory.id} is an episode (what a user said, verbatim); propose "
                "a fact taken from it instead (store.decisions(scope, id) names them)"
            )
        for pending in list_reviews(engine.client, to_scope=target, status=ReviewStatus.PENDING):
            if pending.from_scope == source.key and pending.memory_id == memory.id:
                return pending
        review_id = log_id()
        try:  # the copy's metadata, checked now rather than at approval
            check_metadata({**memory.metadata, **_provenance(review_id, source, memory.id)})
        except InvalidMemoryError as exc:
            raise InvalidMemoryError(f"memory {memory.id} cannot be copied: {exc}") from None
        review = Review(review_id, source.key, memory.id, target.key, memory, when, note=note)
        core.append_log(
            source,
            [
                Decision(
                    op=DecisionOp.NOOP,
                    fact=memory.text,
                    target_id=memory.id,
                    note=f"review {review_id}: proposed for {target.key}"
                    + (f" ({note})" if note else ""),
                )
            ],
            when,
        )
        with engine.shared_lock():
            save_reviews(engine.client, [review])
    return review


@contextmanager
def _both_scopes(core: StoreCore, scopes: Sequence[Scope]) -> Iterator[None]:
    """The scopes' locks, in the order of their keys (so two such holds cannot
    deadlock), then the gate shared."""
    engine = core.live()
    with ExitStack() as stack:
        locks = [stack.enter_context(engine.scope_lock(scope)) for scope in sorted(set(scopes))]
        stack.enter_context(engine.gate.shared())
        for lock in locks:
            lock.check()  # the fencing check (see ``scope_locks``)
        yield


def decide(
    core: StoreCore,
    review_id: str,
    *,
    approve: bool,
    reason: str | None,
    when: datetime,
) -> Review:
    """Approve (copy the memory into the target scope) or reject a pending review;
    log the decision in both scopes; return the decided review.

    Only a review the store can verify (see ``untrusted``) is approved, or has
    its rejection logged in the two scopes it names: one that came in through a
    crafted import must not speak for a scope it has no right to. Such a review
    can still be rejected, which retires it and logs nothing.
    """
    if reason is not None and not isinstance(reason, str):
        raise InvalidArgumentError(f"reason must be a str or None, got {type(reason).__name__}")
    with core.reading() as engine:
        review = get_review(engine.client, review_id)
    source, target = Scope.parse(review.from_scope), Scope.parse(review.to_scope)
    core.check_write(target)  # an org scope: only an admin decides what enters it
    with _both_scopes(core, [source, target]):
        review = get_review(core.live().client, review_id)  # as it is now, under the locks
        if review.status is not ReviewStatus.PENDING:
            raise ReviewDecidedError(
                f"review {review_id} was {review.status.value} at "
                f"{review.decided_at.isoformat() if review.decided_at else '?'}; a review is "
                "decided once (propose the memory again for a new one)"
            )
        doubt = untrusted(core, review)
        why = f": {reason}" if reason else ""
        logged: list[tuple[Scope, Decision]] = []
        if approve:
            if doubt is not None:
                raise ReviewInvalidError(
                    f"review {review.id} cannot be approved: {doubt}. Nothing was copied; "
                    f"reject it (store.reviews.reject({review.id!r}))"
                )
            _check_current(core, review)
            copy = _copy(core, review, when)
            decided = replace(
                review,
                status=ReviewStatus.APPROVED,
                decided_at=when,
                reason=reason,
                result_id=copy.id,
            )
            in_target = Decision(
                op=DecisionOp.ADD,
                fact=review.text,
                text=review.text,
                result_id=copy.id,
                note=f"review {review.id} approved: from {source.key}, memory "
                f"{review.memory_id}{why}",
            )
            in_source = Decision(
                op=DecisionOp.NOOP,
                fact=review.text,
                target_id=review.memory_id,
                note=f"review {review.id} approved: copied into {target.key} as {copy.id}{why}",
            )
            logged = [(target, in_target), (source, in_source)]
        else:
            decided = replace(review, status=ReviewStatus.REJECTED, decided_at=when, reason=reason)
            refused = Decision(
                op=DecisionOp.NOOP,
                fact=review.text,
                target_id=review.memory_id,
                status=Status.REJECTED,
                note=f"review {review.id} rejected: from {source.key} for {target.key}{why}",
            )
            if doubt is None:
                logged = [(target, refused), (source, refused)]
            else:
                log.warning(
                    "langgraph_memory: review %s rejected without a log entry: %s", review.id, doubt
                )
        for scope, decision in logged:
            core.append_log(scope, [decision], when)
        with core.live().shared_lock():
            save_reviews(core.live().client, [decided])
    return decided


def untrusted(core: StoreCore, review: Review) -> str | None:
    """Why ``review`` is not one the store can vouch for, or None when it is.

    A review is trusted when it moves a memory into a wider scope, its memory is
    a version of its source scope with the text it proposes, and the source
    scope's log holds its proposal (``propose`` logs it there). Reviews come from
    ``propose`` or from an import of the scope they were proposed from; one that
    fails this was crafted, or outlived what it proposed.
    """
    source, target = Scope.parse(review.from_scope), Scope.parse(review.to_scope)
    try:
        check_direction(source, target)
    except InvalidArgumentError as exc:
        return str(exc)
    try:
        version = core.version(source, review.memory_id)
    except MemoryNotFoundError:
        version = None
    if version is None or version.memory.id != review.memory_id:  # not a chain key
        return f"its memory {review.memory_id} is not a memory of {source.key}"
    if version.memory.text != review.memory.text:
        return (
            f"memory {review.memory_id} of {source.key} does not say what the review "
            "proposes: the review was not made from it"
        )
    proposals = core.read_log(source, {"target_id": review.memory_id})
    if not any(logged_for(d, review) for d in proposals):
        return f"{source.key} never proposed it: its decision log holds no such proposal"
    return None


def _check_current(core: StoreCore, review: Review) -> None:
    """Refuse to approve a version that stopped being current after it was proposed."""
    source = Scope.parse(review.from_scope)
    version = core.version(source, review.memory_id)
    if version.memory.active:
        return
    current = [v.memory.id for v in core.chain(source, version.key) if v.memory.active]
    hint = f"its current version is {current[0]!r}: propose that one" if current else "it has none"
    raise MemoryArchivedError(
        f"memory {review.memory_id} of {source.key} was archived or updated after review "
        f"{review.id} proposed it ({hint}); reject this review"
    )


def _copy(core: StoreCore, review: Review, when: datetime) -> Memory:
    """The approved memory's copy in the target scope: found, when an approval cut
    short by a crash wrote it already; else written now."""
    target = Scope.parse(review.to_scope)
    cols = core.collections(target)
    if cols is not None:
        done = fetch(cols.active, target, where={USER_PREFIX + REVIEW_ID: review.id})
        if done:
            return done[0].memory
    m = review.memory
    provenance = _provenance(review.id, Scope.parse(review.from_scope), review.memory_id)
    built = Memory(
        id="",
        text=m.text,
        scope=target.key,
        created_at=when,
        kind=m.kind,
        importance=m.importance,
        last_accessed=when,
        source=m.source,
        trust=m.trust,
        event_time=m.event_time,
        metadata={**m.metadata, **provenance},
    )
    return core.add_new(target, [built])[0]


class Reviews:
    """A store's reviews between scopes: ``store.reviews``. Call it to list them;
    ``propose``, ``approve`` and ``reject`` move a memory into a wider scope only
    when someone said yes (see the module's docstring).

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:alice", "Customers prefer email to phone calls.")
    >>> r = s.reviews.propose("user:alice", m.id, "agent:support")
    >>> [x.id for x in s.reviews("agent:support")] == [r.id]
    True
    """

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def __repr__(self) -> str:
        return "<MemoryStore.reviews: call it to list them; propose, approve, reject>"

    def propose(
        self,
        from_scope: ScopeLike,
        memory_id: str,
        to_scope: ScopeLike,
        *,
        note: str | None = None,
        now: datetime | None = None,
    ) -> Review:
        """Ask for an active memory of ``from_scope`` to be copied into the wider
        ``to_scope`` (user -> agent or org, agent -> org ...): a pending ``Review``,
        logged in ``from_scope``. Nothing reaches ``to_scope`` until ``approve``;
        proposing again while it is pending returns the same review. See
        ``store/reviews.py``.

        Args:
            from_scope: the scope the memory is in (a ``Scope`` or ``"user:alice"``).
            memory_id: the id of an active fact of ``from_scope`` (not an episode).
            to_scope: the wider scope to copy it into.
            note: why, kept with the review and in the log.
            now: when it is proposed (default: now; timezone-aware).

        Returns:
            The pending ``Review`` (the one already pending, when proposed again).

        Raises:
            InvalidArgumentError: ``to_scope`` is not wider than ``from_scope``.
            MemoryNotFoundError: no active memory ``memory_id`` in ``from_scope``.
            InvalidMemoryError: the memory is an episode (only facts are proposed).

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:alice", "Customers prefer email to phone calls.")
        >>> r = s.reviews.propose("user:alice", m.id, "agent:support", note="seen twice")
        >>> r.status.value, [x.id for x in s.reviews("agent:support")] == [r.id]
        ('pending', True)
        """
        when = utc(now, "now") if now is not None else now_utc()
        return propose(
            self._core,
            Scope.of(from_scope),
            check_id(memory_id),
            Scope.of(to_scope),
            note=note,
            when=when,
        )

    @fresh_method
    def approve(
        self, review_id: str, *, reason: str | None = None, now: datetime | None = None
    ) -> Review:
        """Approve a pending review: copy the memory into the target scope as a new
        memory (``result_id``) whose metadata names the review, the source scope
        and memory; log the decision in both scopes. An org target needs an
        admin view (``store.admin().reviews.approve(...)``). A version archived or updated
        since it was proposed is refused (``MemoryArchivedError``): reject it. So
        is a review the store cannot vouch for (``ReviewInvalidError``): one that
        moves a memory sideways or down, or whose memory is not in its source
        scope, says something else, or was never proposed there (a crafted
        import's); rejecting it retires it without logging in either scope.

        Args:
            review_id: the id of a pending review.
            reason: why, kept with the review and in both scopes' logs.
            now: when it is decided (default: now; timezone-aware).

        Returns:
            The approved ``Review``; its ``result_id`` is the copy's id.

        Raises:
            ReviewNotFoundError: no review ``review_id``.
            ReviewDecidedError: it was approved or rejected already.
            AdminRequiredError: its target is an org scope and this is no admin view.
            MemoryArchivedError: the proposed version closed since; reject it.
            ReviewInvalidError: a review the store cannot vouch for.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:alice", "Customers prefer email to phone calls.")
        >>> r = s.reviews.approve(s.reviews.propose("user:alice", m.id, "agent:support").id)
        >>> copy = s.get_memory("agent:support", r.result_id)
        >>> copy.text, copy.metadata["reviewed_from"]
        ('Customers prefer email to phone calls.', 'user:alice')
        """
        when = utc(now, "now") if now is not None else now_utc()
        return decide(self._core, review_id, approve=True, reason=reason, when=when)

    @fresh_method
    def reject(
        self, review_id: str, *, reason: str | None = None, now: datetime | None = None
    ) -> Review:
        """Reject a pending review: nothing is copied; the decision (and ``reason``)
        is logged in both scopes. An org target needs an admin view.

        Args:
            review_id: the id of a pending review.
            reason: why, kept with the review and in both scopes' logs.
            now: when it is decided (default: now; timezone-aware).

        Returns:
            The rejected ``Review``.

        Raises:
            ReviewNotFoundError: no review ``review_id``.
            ReviewDecidedError: it was approved or rejected already.
            AdminRequiredError: its target is an org scope and this is no admin view.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> m = s.add("user:alice", "My manager is Raj.")
        >>> r = s.reviews.propose("user:alice", m.id, "agent:support")
        >>> r = s.reviews.reject(r.id, reason="personal")
        >>> r.status.value, s.active("agent:support")
        ('rejected', [])
        """
        when = utc(now, "now") if now is not None else now_utc()
        return decide(self._core, review_id, approve=False, reason=reason, when=when)

    @read_method
    def __call__(
        self,
        to_scope: ScopeLike | None = None,
        status: ReviewStatus | str | None = "pending",
        *,
        from_scope: ScopeLike | None = None,
    ) -> list[Review]:
        """The reviews into ``to_scope`` (None: any), with ``status`` ("pending",
        "approved", "rejected"; None: any), optionally only from ``from_scope``,
        oldest first.

        Args:
            to_scope: only the reviews into this scope (None: into any).
            status: ``"pending"`` (the default), ``"approved"``, ``"rejected"``, a
                ``ReviewStatus``, or None for any.
            from_scope: only the reviews proposed from this scope (None: from any).

        Returns:
            The reviews, oldest first.

        Raises:
            InvalidArgumentError: ``status`` is none of those.

        >>> import tempfile
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from langgraph_memory.store import MemoryStore
        >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
        >>> s.reviews()
        []
        """
        if status is not None:
            try:
                status = ReviewStatus(status)
            except ValueError:
                allowed = ", ".join(x.value for x in ReviewStatus)
                raise InvalidArgumentError(
                    f"status must be one of {allowed} or None (any); got {status!r}"
                ) from None
        return list_reviews(
            self._core.live().client,
            to_scope=None if to_scope is None else Scope.of(to_scope),
            from_scope=None if from_scope is None else Scope.of(from_scope),
            status=status,
        )
