"""What each page of the inspector shows, read from the store: plain data, no HTTP.

A person's memories are shown as chains: every version of one memory (an UPDATE
closes a version and opens the next, which ``replaces`` it), latest first, each
version's validity window drawn on one timeline shared by the page.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> old = store.add("user:alice", "User lives in Delhi.")
>>> _ = store.update("user:alice", old.id, "User lives in Pune.")
>>> page = person_page(store, "user:alice")
>>> [(c.latest.text, len(c.versions)) for c in page.chains]
[('User lives in Pune.', 2)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from langgraph_memory.checks import check_int
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.read import Retrieved, render, retrieve, rules_of
from langgraph_memory.records import Decision, Kind, Memory, Source, now_utc
from langgraph_memory.scope import Scope, ScopeLike

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = [
    "GROUPS",
    "PAGE_SIZE",
    "Bar",
    "Chain",
    "Filters",
    "MemoryPage",
    "PersonPage",
    "ScopeSummary",
    "SearchPage",
    "chains_of",
    "group_of",
    "memory_page",
    "person_page",
    "scope_summaries",
    "search_page",
]

#: Chains on one page of a person.
PAGE_SIZE = 50
#: The groups of a person's page, in the order shown: what the agent follows, what
#: it knows, what was said.
GROUPS = ("rules", "facts", "episodes")
#: The timeline's width in SVG units (the page stretches it).
TIMELINE_WIDTH = 1000.0
#: The narrowest bar drawn, so that a version open for a second still shows.
MIN_BAR = 3.0


def group_of(memory: Memory) -> str:
    """The page group a memory is shown in: ``rules``, ``facts`` or ``episodes``.

    >>> from datetime import timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> group_of(Memory(id="a1b2c3d4", text="Wants drafts.", scope="user:a", created_at=t,
    ...                 kind="procedural"))
    'rules'
    """
    if memory.is_episode:
        return "episodes"
    return "rules" if memory.kind == Kind.PROCEDURAL else "facts"


@dataclass(frozen=True)
class Bar:
    """One version's validity window on the timeline, in SVG units."""

    x: float
    width: float
    active: bool
    title: str


@dataclass(frozen=True)
class Chain:
    """Every version of one memory, oldest first, and how they are drawn."""

    versions: tuple[Memory, ...]
    bars: tuple[Bar, ...] = ()

    @property
    def latest(self) -> Memory:
        """The newest version: the active one, or the last to close."""
        return self.versions[-1]

    @property
    def active(self) -> bool:
        """Whether the memory is in force (its newest version is open)."""
        return self.latest.active

    @property
    def group(self) -> str:
        """The page group (``GROUPS``) of its newest version."""
        return group_of(self.latest)


def chains_of(versions: Sequence[Memory]) -> list[Chain]:
    """Versions joined into chains by ``replaces``, each oldest first; the chains
    ordered by their newest version, newest first.

    >>> from datetime import timezone, timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> a = Memory(id="a1", text="Delhi.", scope="user:a", created_at=t, valid_until=t)
    >>> b = Memory(id="b1", text="Pune.", scope="user:a", created_at=t, replaces="a1")
    >>> c = Memory(id="c1", text="Tea.", scope="user:a", created_at=t - timedelta(1))
    >>> [[v.id for v in chain.versions] for chain in chains_of([c, b, a])]
    [['a1', 'b1'], ['c1']]
    """
    by_id = {v.id: v for v in versions}
    root: dict[str, str] = {}

    def root_of(memory_id: str) -> str:
        seen = []
        current = memory_id
        while current not in root:
            previous = by_id[current].replaces
            seen.append(current)
            if previous is None or previous not in by_id or previous in seen:
                root[current] = current
                break
            current = previous
        found = root[current]
        for i in seen:
            root[i] = found
        return found

    grouped: dict[str, list[Memory]] = {}
    for v in versions:
        grouped.setdefault(root_of(v.id), []).append(v)
    chains = [
        Chain(tuple(sorted(vs, key=lambda m: (m.created_at, m.valid_until is None))))
        for vs in grouped.values()
    ]
    return sorted(chains, key=lambda c: (c.latest.created_at, c.latest.id), reverse=True)


def _bars(chain: Chain, start: datetime, end: datetime) -> Chain:
    """``chain`` with each version's window placed between ``start`` and ``end``."""
    span = max((end - start).total_seconds(), 1.0)

    def place(at: datetime) -> float:
        return min(max((at - start).total_seconds() / span, 0.0), 1.0) * TIMELINE_WIDTH

    bars = []
    for n, v in enumerate(chain.versions, 1):
        left = place(v.created_at)
        right = place(v.valid_until or end)
        width = max(right - left, MIN_BAR)
        until = v.valid_until.date().isoformat() if v.valid_until else "now"
        bars.append(
            Bar(
                x=round(min(left, TIMELINE_WIDTH - width), 1),
                width=round(width, 1),
                active=v.active,
                title=f"version {n}: {v.created_at.date().isoformat()} to {until}",
            )
        )
    return Chain(chain.versions, tuple(bars))


@dataclass(frozen=True)
class ScopeSummary:
    """One row of the scopes page."""

    scope: Scope
    facts: int
    rules: int
    episodes: int
    archived: int
    last_write: datetime | None
    pending: int


def scope_summaries(store: MemoryStore, scopes: Sequence[Scope]) -> list[ScopeSummary]:
    """Counts per kind, the last write and the queued turns of each scope (one read
    of every version per scope).

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = s.add("user:a", "Likes tea.")
    >>> [(r.scope.key, r.facts, r.archived) for r in scope_summaries(s, s.scopes())]
    [('user:a', 1, 0)]
    """
    from langgraph_memory.store import internals

    handle = internals(store)
    rows = []
    for scope in scopes:
        versions = handle.versions(scope)
        active = [v for v in versions if v.active]
        groups = [group_of(m) for m in active]
        moments = [t for v in versions for t in (v.created_at, v.valid_until) if t is not None]
        rows.append(
            ScopeSummary(
                scope=scope,
                facts=groups.count("facts"),
                rules=groups.count("rules"),
                episodes=groups.count("episodes"),
                archived=len(versions) - len(active),
                last_write=max(moments, default=None),
                pending=len(handle.pending_turns(scope)),
            )
        )
    return rows


@dataclass(frozen=True)
class Filters:
    """What a person's page shows: ``group`` (``rules``, ``facts``, ``episodes`` or
    ``""`` for all), ``state`` (``active``, ``archived`` or ``all``), ``source`` (a
    ``Source`` value or ``""``), ``text`` (words the newest version holds, any case).

    >>> Filters(state="gone")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: state must be one of active, archived, all; ...
    """

    group: str = ""
    state: str = "active"
    source: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        for name, allowed in (
            ("group", ("", *GROUPS)),
            ("state", ("active", "archived", "all")),
            ("source", ("", *(s.value for s in Source))),
        ):
            value = getattr(self, name)
            if value not in allowed:
                shown = ", ".join(a for a in allowed if a)
                raise InvalidArgumentError(f"{name} must be one of {shown}; got {value!r}")

    def keeps(self, chain: Chain) -> bool:
        """Whether ``chain`` is shown under these filters."""
        latest = chain.latest
        if self.group and chain.group != self.group:
            return False
        if self.state != "all" and chain.active != (self.state == "active"):
            return False
        if self.source and latest.source.value != self.source:
            return False
        return not self.text or self.text.casefold() in latest.text.casefold()


@dataclass(frozen=True)
class PersonPage:
    """One page of a person's memories: the chains shown, grouped as ``GROUPS``."""

    scope: Scope
    filters: Filters
    chains: tuple[Chain, ...]
    counts: dict[str, int]
    total: int
    page: int
    pages: int
    start: datetime
    end: datetime

    def grouped(self) -> list[tuple[str, list[Chain]]]:
        """The chains of this page under their group names, in ``GROUPS`` order."""
        return [(g, [c for c in self.chains if c.group == g]) for g in GROUPS]


def person_page(
    store: MemoryStore,
    scope: ScopeLike,
    filters: Filters | None = None,
    *,
    page: int = 1,
    size: int = PAGE_SIZE,
    now: datetime | None = None,
) -> PersonPage:
    """One page (``size`` chains) of the scope's memories under ``filters``: rules,
    then facts, then episodes, each newest first, every version on a timeline that
    runs from the scope's first memory to ``now``.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = s.add_many("user:a", [f"User visited city {i}." for i in range(7)])
    >>> p = person_page(s, "user:a", page=2, size=5)
    >>> p.pages, len(p.chains), p.counts["facts"]
    (2, 2, 7)
    """
    from langgraph_memory.store import internals

    scope = Scope.of(scope)
    filters = filters or Filters()
    check_int(page, "page", low=1)
    check_int(size, "size", low=1)
    end = now or now_utc()
    versions = internals(store).versions(scope)
    start = min((v.created_at for v in versions), default=end)
    shown = [c for c in chains_of(versions) if filters.keeps(c)]
    order = {g: i for i, g in enumerate(GROUPS)}
    shown.sort(key=lambda c: order[c.group])  # stable: newest first within a group
    pages = max(1, math.ceil(len(shown) / size))
    if page > pages:
        raise InvalidArgumentError(f"page {page} is past the last page ({pages}) of {scope.key}")
    part = shown[(page - 1) * size : page * size]
    counts = {g: sum(c.group == g for c in shown) for g in GROUPS}
    return PersonPage(
        scope=scope,
        filters=filters,
        chains=tuple(_bars(c, start, end) for c in part),
        counts=counts,
        total=len(shown),
        page=page,
        pages=pages,
        start=start,
        end=end,
    )


@dataclass(frozen=True)
class MemoryPage:
    """A memory's versions, oldest first, and every decision about them."""

    scope: Scope
    chain: Chain
    decisions: tuple[Decision, ...]
    texts: dict[str, str] = field(default_factory=dict)


def memory_page(store: MemoryStore, scope: ScopeLike, memory_id: str) -> MemoryPage:
    """The version chain of ``memory_id`` (any of its versions) and its decisions,
    with the texts of the ids those decisions name, where the scope still holds them.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> [v.text for v in memory_page(s, "user:a", m.id).chain.versions]
    ['Likes tea.']
    """
    scope = Scope.of(scope)
    versions = store.history(scope, memory_id)
    chain = _bars(Chain(tuple(versions)), versions[0].created_at, now_utc())
    decisions = tuple(store.decisions(scope, memory_id))
    return MemoryPage(scope=scope, chain=chain, decisions=decisions)


@dataclass(frozen=True)
class SearchPage:
    """What the agent's read finds for a question: each result with its score's
    components, and the prompt section as the read node renders it."""

    scope: Scope
    query: str
    results: tuple[Retrieved, ...]
    prompt: str


def search_page(store: MemoryStore, scope: ScopeLike, query: str, *, k: int = 5) -> SearchPage:
    """The product read (``retrieve``, the read node's defaults) for ``query``,
    and the block the read node would put before the model. The search records no
    access (``touch=False``): a person looking is not the agent using a memory.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> _ = s.add("user:a", "Locker code is ZX-4471.")
    >>> found = search_page(s, "user:a", "What is the ZX-4471 code?")
    >>> found.results[0].memory.text, found.prompt.splitlines()[1]
    ('Locker code is ZX-4471.', '- [...] "Locker code is ZX-4471."')
    """
    scope = Scope.of(scope)
    found = retrieve(store, scope, query, k=k, touch=False)
    prompt = render(found, rules=rules_of(store, scope))
    return SearchPage(scope=scope, query=query, results=tuple(found), prompt=prompt)
