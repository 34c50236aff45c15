"""The LangGraph ``BaseStore`` face of MemoryStore: ops in, results out.

Every namespace is a scope, one-to-one (see ``scope``): ``("user", "alice")`` is
``Scope("user", "alice")`` as always, and any other namespace of any depth, such
as LangMem's ``("memories", "alice")``, is a ``namespace`` scope of its own
(``namespace:memories.alice``) with its own collections. A namespace goes to its
scope and back unchanged, so items come back under the namespace they were put
in, and the memory API reads them under the same tuple
(``store.active(("memories", "alice"))``).

An item's key is the stable key of a memory's version chain (for memories
stored with ``add`` it is the first version's id), so:

- ``put`` of a new key adds a memory; of an existing key it is an UPDATE that
  closes the old version and keeps it in history; ``put(..., None)`` and
  ``delete`` close, never erase (``purge`` is the hard delete);
- ``get`` and ``search`` see active versions that have not expired; ``search``
  reads every namespace under ``namespace_prefix`` (at any depth), and takes
  ``query``, ``filter`` (``$eq $ne $gt $gte $lt $lte``, nested equality on the
  value, and dotted keys such as ``"author.name"`` as nested paths, as LangGraph's
  SqliteStore reads them), ``limit`` and ``offset``;
- ``list_namespaces`` lists the namespaces that hold data (or held it: one whose
  items were all deleted stays, as in LangGraph's InMemoryStore), with
  ``prefix``, ``suffix`` (``*`` matches any label), ``max_depth``, ``limit`` and
  ``offset`` as LangGraph's stores read them. A ``get`` of an unknown namespace
  lists nothing.

An item's value is the dict that was put. For memories written through the
memory API it is the memory's fields (``text``, ``kind``, ``importance`` ...).
The embedded text is that at the paths of ``put(index=[...])``, else of the
store's ``index={"fields": [...]}``, else ``value["text"]`` (or ``"content"``/
``"memory"``), else the value as JSON (see ``indexing``). When the paths hold
several texts (several fields, or a path such as ``"items[*].text"`` with several
matches), each text gets a vector of its own and a search with a query scores the
item by its best, as LangGraph's stores do (the record also keeps the joined text
and its vector, which the memory API reads). ``index=False`` (or paths that hold
no text) keeps an item out of vector search, as in LangGraph's stores: it is never
embedded (its record holds the zero vector, Chroma needing one, and says
``indexed: false``), a query ranks the other items and lists it after them,
unscored, and filters and listings find it.
``put(ttl=minutes)`` and ``TTLConfig`` work as in LangGraph, except that
an expired item is archived, not deleted (see ``ttl``).

Reads in a batch see the store as it was before the batch's writes, and of
several puts to one key in a batch the last wins, as in LangGraph's stores.

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> store.put(("user", "alice"), "food", {"text": "Likes sushi.", "rating": 5})
>>> store.put(("user", "alice"), "food", {"text": "Likes ramen.", "rating": 4})
>>> store.get(("user", "alice"), "food").value
{'text': 'Likes ramen.', 'rating': 4}
>>> [m.text for m in store.history("user:alice", store.active("user:alice")[0].id)]
['Likes sushi.', 'Likes ramen.']
>>> store.put(("memories", "alice", "food"), "k", {"content": "Allergic to peanuts."})
>>> store.list_namespaces(prefix=("memories",))
[('memories', 'alice', 'food')]
>>> [m.text for m in store.active(("memories", "alice", "food"))]
['Allergic to peanuts.']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from langgraph_memory.checks import check_chars, check_id, check_int
from langgraph_memory.errors import InvalidArgumentError, InvalidMemoryError, InvalidTypeError
from langgraph_memory.records import Source, Trust, check_text, now_utc
from langgraph_memory.scope import Scope
from langgraph_memory.store.basestore import ttl
from langgraph_memory.store.basestore.indexing import check_paths, field_texts
from langgraph_memory.store.basestore.namespaces import check_op_namespace, with_namespace_tuples
from langgraph_memory.store.chroma import (
    CHAIN_KEY,
    FIELDS_KEY,
    INDEXED_KEY,
    TEXT_FIELDS,
    VectorCollection,
    fetch,
    field_matrices,
    free_ids,
    ids_where,
    layout,
    query_versions,
)
from langgraph_memory.store.engine import FieldCache, StoreCore, new_memory, successor
from langgraph_memory.store.version import FieldVectors, Version

__all__ = ["check_ops", "run_ops"]

#: A memory first stored through ``put``: written by a tool, so not trusted as
#: much as what the user said.
_PUT_DEFAULTS = {"source": Source.TOOL, "trust": Trust.MEDIUM}

#: Threads that embed one batch's queries and put texts at once.
_EMBED_THREADS = 8

_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


@dataclass(frozen=True)
class _Put:
    """A checked put: its op, its scope, and for a write the text it stores, whether
    that text is embedded (``index=False``, or no text at the paths to embed: not),
    and its value as JSON (all made while checking, so that a value that cannot be
    stored stops the whole batch before anything is written)."""

    op: PutOp
    scope: Scope
    text: str = ""
    value_json: str = ""
    indexed: bool = True
    #: When the paths held several texts: the paths, and each text (a vector each).
    paths: tuple[str, ...] = ()
    field_texts: tuple[str, ...] = ()


class _Namespaces:
    """One batch's namespace <-> scope conversions, each made once: a batch of many
    ops over a few namespaces names each of them many times (its ops, the items it
    returns, the TTLs it refreshes, the scopes it writes, the scopes its searches
    read)."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core
        self._scopes: dict[tuple[str, ...], Scope] = {}
        self._by_key: dict[str, Scope] = {}
        self._under: dict[tuple[str, ...], list[Scope]] = {}

    def scope(self, namespace: tuple[str, ...]) -> Scope:
        """The namespace's scope (``InvalidScopeError`` for one that none has)."""
        scope = self._scopes.get(namespace)
        if scope is None:
            scope = self._scopes[namespace] = Scope.from_namespace(namespace)
            self._by_key.setdefault(scope.key, scope)
        return scope

    def of_key(self, scope_key: str) -> Scope:
        """The scope of a stored version (its ``memory.scope``)."""
        scope = self._by_key.get(scope_key)
        if scope is None:
            scope = self._by_key[scope_key] = Scope.parse(scope_key)
        return scope

    def namespace(self, scope_key: str) -> tuple[str, ...]:
        """The namespace of a stored version's scope."""
        return self.of_key(scope_key).namespace

    def under(self, prefix: tuple[str, ...]) -> list[Scope]:
        """The scopes a search of ``prefix`` reads (one registry lookup per prefix)."""
        found = self._under.get(prefix)
        if found is None:
            found = self._under[prefix] = self._core.scopes_under(prefix)
            for scope in found:
                self._by_key.setdefault(scope.key, scope)
        return found


def run_ops(
    core: StoreCore, ops: Sequence[Op], *, fields: Sequence[str] | None = None
) -> list[Result]:
    """Execute LangGraph store ops in order of their results; writes go last.

    ``fields`` are the JSON paths a put embeds when its ``index`` is None (the
    store's ``index={"fields": ...}``). Every op is checked before any runs. The
    reads run together under one hold of the store's gate (gets of one scope in
    one Chroma read; each distinct query embedded once, before the gate), and
    reads that return items with a TTL and ask to refresh it move their expiry
    before the writes run. The writes embed every distinct text of the batch in
    one embedder call.
    """
    now = now_utc()
    names = _Namespaces(core)
    results: list[Result] = [None] * len(ops)
    gets, searches, listings, puts = _checked(core, ops, fields, names)
    read: list[Version] = []
    queries = list(dict.fromkeys(op.query for _, op in searches if op.query))
    written = [p for p in puts.values() if p.op.value is not None]  # None: a delete
    # The joined text of each put, and each text of a put whose paths held several.
    texts = list(dict.fromkeys(t for p in written if p.indexed for t in (p.text, *p.field_texts)))
    with _embedding(core, queries, texts) as (vectors, documents):
        _read(core, gets, searches, listings, vectors, names, now, results, read)
        ttl.refresh(core, read, now, scope_of=names.of_key)
        if puts:
            # Before any write: a failing embedder stores nothing.
            vector_of = dict(zip(texts, documents(), strict=True))
            _write(core, list(puts.values()), vector_of)
    return results


def check_ops(core: StoreCore, ops: Sequence[Op], *, fields: Sequence[str] | None) -> None:
    """Raise what ``run_ops`` would raise for ``ops`` before running any (a namespace
    LangGraph refuses, a key, a filter or a value that cannot be stored); nothing runs.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore, internals
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> check_ops(internals(s)._core, [GetOp(("user", "a"), "")], fields=None)
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: store key must be a non-empty str...
    """
    _checked(core, ops, fields, _Namespaces(core))


def _checked(
    core: StoreCore, ops: Sequence[Op], fields: Sequence[str] | None, names: _Namespaces
) -> tuple[
    list[tuple[int, GetOp]],
    list[tuple[int, SearchOp]],
    list[tuple[int, ListNamespacesOp]],
    dict[tuple[tuple[str, ...], str], _Put],
]:
    """Every op checked, sorted by kind with its place in ``ops``; of several puts to
    one key, the last (in the last's place). A put to a scope this store may not write
    (an org scope without ``admin()``) is refused here, before any scope is written."""
    gets: list[tuple[int, GetOp]] = []
    searches: list[tuple[int, SearchOp]] = []
    listings: list[tuple[int, ListNamespacesOp]] = []
    puts: dict[tuple[tuple[str, ...], str], _Put] = {}
    for i, given in enumerate(ops):
        op = with_namespace_tuples(given)
        check_op_namespace(op)
        if isinstance(op, GetOp):
            check_id(op.key, "store key")
            gets.append((i, op))
        elif isinstance(op, SearchOp):
            _check_search(op)
            searches.append((i, op))
        elif isinstance(op, ListNamespacesOp):
            _check_listing(op)
            listings.append((i, op))
        elif isinstance(op, PutOp):
            put = _check_put(op, fields, names)
            core.check_write(put.scope)
            puts.pop((op.namespace, op.key), None)  # re-insert so the last put keeps its order
            puts[(op.namespace, op.key)] = put
        else:
            raise InvalidTypeError(
                "batch() takes LangGraph store ops (GetOp, PutOp, SearchOp, ListNamespacesOp), "
                f"got {type(op).__name__}: {op!r}"
            )
    return gets, searches, listings, puts


def _read(
    core: StoreCore,
    gets: list[tuple[int, GetOp]],
    searches: list[tuple[int, SearchOp]],
    listings: list[tuple[int, ListNamespacesOp]],
    vectors: dict[str, list[float]],
    names: _Namespaces,
    now: datetime,
    results: list[Result],
    read: list[Version],
) -> None:
    """Run a batch's reads into ``results``, under one hold of the gate; the versions
    that ask for their TTL to be refreshed go to ``read``."""
    if gets or searches or listings:
        with core.reading():
            for i, version, refresh in _get_all(core, gets, names, now):
                results[i] = _item(version, names)
                if refresh:
                    read.append(version)
            for i, search_op in searches:
                vector = vectors.get(search_op.query) if search_op.query else None
                found = _search(
                    core, search_op, vector, now, names.under(search_op.namespace_prefix)
                )
                results[i] = [_item(v, names, score, scored=True) for v, score in found]
                if search_op.refresh_ttl:
                    read += [v for v, _ in found]
            for i, listing in listings:
                results[i] = _list_namespaces(core, listing)


# -- reads -------------------------------------------------------------------------


@contextmanager
def _embedding(
    core: StoreCore, queries: list[str], texts: list[str]
) -> Iterator[tuple[dict[str, list[float]], Callable[[], list[list[float]]]]]:
    """A batch's embeddings: each distinct query's vector, made before the gate is
    held (embedding can be slow: a model, an API), and a call that returns the
    vectors of the distinct put texts, made in one embedder call.

    Several jobs run at once, in threads, as LangGraph's InMemoryStore embeds its
    queries: an embedder waits on its model or its API without the GIL, so the put
    texts are embedded while the queries are and the reads run.
    """
    jobs = len(queries) + (1 if texts else 0)
    if jobs <= 1:
        yield {q: core.embed_query(q) for q in queries}, lambda: core.embed(texts)
        return
    with ThreadPoolExecutor(max_workers=min(_EMBED_THREADS, jobs)) as pool:
        documents = pool.submit(core.embed, texts)
        vectors = dict(zip(queries, pool.map(core.embed_query, queries), strict=True))
        yield vectors, documents.result


def _item_value(version: Version) -> dict[str, Any]:
    if version.value_json is not None:
        stored = json.loads(version.value_json)
        return stored if isinstance(stored, dict) else {"value": stored}
    m = version.memory
    value: dict[str, Any] = {
        "text": m.text,
        "kind": m.kind.value,
        "importance": m.importance,
        "pinned": m.pinned,
        "source": m.source.value,
        "trust": m.trust.value,
    }
    if m.event_time is not None:
        value["event_time"] = m.event_time.isoformat()
    if m.metadata:
        value["metadata"] = dict(m.metadata)
    return value


def _item(
    version: Version, names: _Namespaces, score: float | None = None, *, scored: bool = False
) -> Item:
    created = version.chain_start or version.memory.created_at
    namespace = names.namespace(version.memory.scope)
    if scored:
        return SearchItem(
            namespace,
            version.key,
            _item_value(version),
            created,
            version.memory.created_at,
            score,
        )
    return Item(
        value=_item_value(version),
        key=version.key,
        namespace=namespace,
        created_at=created,
        updated_at=version.memory.created_at,
    )


def _get_all(
    core: StoreCore, gets: list[tuple[int, GetOp]], names: _Namespaces, now: datetime
) -> list[tuple[int, Version, bool]]:
    """Each get that finds an unexpired item: its index, the version, and whether
    it refreshes the TTL. The gets of one scope are one read."""
    by_scope: dict[Scope, list[tuple[int, GetOp]]] = {}
    for i, op in gets:
        try:
            scope = names.scope(op.namespace)
        except ValueError:
            continue  # a namespace no scope has (a "langgraph" root) holds nothing
        by_scope.setdefault(scope, []).append((i, op))
    found: list[tuple[int, Version, bool]] = []
    for scope, scope_gets in by_scope.items():
        versions = core.by_key(scope, list(dict.fromkeys(op.key for _, op in scope_gets)))
        for i, op in scope_gets:
            version = versions.get(op.key)
            if version is not None and not version.expired(now):
                found.append((i, version, bool(op.refresh_ttl)))
    return found


def _check_search(op: SearchOp) -> None:
    check_int(op.limit, "search limit", low=0)
    check_int(op.offset, "search offset", low=0)
    if op.filter is not None and not isinstance(op.filter, Mapping):
        raise InvalidTypeError(
            f"search filter must be a dict such as {{'kind': 'semantic'}}, "
            f"got {type(op.filter).__name__}: {op.filter!r}"
        )
    if op.filter:
        _check_filter(op.filter)
    if op.query is not None and not isinstance(op.query, str):
        raise InvalidTypeError(
            f"search query must be a str or None, got {type(op.query).__name__}: {op.query!r}"
        )


def _search(
    core: StoreCore,
    op: SearchOp,
    vector: list[float] | None,
    now: datetime,
    scopes: list[Scope],
) -> list[tuple[Version, float | None]]:
    """The page of (version, score) pairs a search asks for; score None without a query.

    With a query, the items ranked by their vector come first, best first; items
    put with ``index=False`` have none and come after them, unscored (as in
    LangGraph's InMemoryStore), only when the ranked ones do not fill the page.
    An item whose index paths held several texts scores by its best text's vector
    (``_by_fields``); every other by its one vector, in Chroma's nearest-neighbour
    query (``_ranked``).
    """
    wanted = op.offset + op.limit
    ranked: list[tuple[Version, float | None]] = []
    unranked: list[tuple[Version, float | None]] = []
    for scope in scopes:
        cols = core.collections(scope)
        if cols is None:
            continue
        if vector is None:
            unranked += _listed(cols.active, scope, op, now, where=None)
            continue
        several = _several(core, cols)
        cache = core.live().field_vectors
        ranked += _by_fields(cache, cols.active, scope, op, vector, now, wanted, several)
        ranked += _ranked(cols.active, scope, op, vector, now, wanted)
    if vector is not None and len(ranked) < wanted:
        # Only now: most searches fill their page from the ranked items alone.
        for scope in scopes:
            cols = core.collections(scope)
            if cols is not None:
                unranked += _listed(cols.active, scope, op, now, where={INDEXED_KEY: False})
    ranked.sort(key=lambda pair: -(pair[1] or 0.0))
    unranked.sort(key=lambda pair: (-pair[0].memory.created_at.timestamp(), pair[0].key))
    return (ranked + unranked)[op.offset : op.offset + op.limit]


def _listed(
    collection: VectorCollection,
    scope: Scope,
    op: SearchOp,
    now: datetime,
    *,
    where: dict[str, Any] | None,
) -> list[tuple[Version, float | None]]:
    """The scope's unexpired active items that pass the filter, unscored."""
    return [
        (v, None)
        for v in fetch(collection, scope, where=where)
        if not v.expired(now) and _matches(_item_value(v), op.filter)
    ]


#: The ``where`` that finds the items with a vector per text (``FieldVectors``).
_SEVERAL: dict[str, Any] = {FIELDS_KEY: {"$gte": 2}}


def _several(core: StoreCore, cols: layout.ScopeCollections) -> list[str]:
    """The ids of the scope's items with a vector per text, read again only when its
    lexical index's generation moved (a change of its active versions)."""
    engine = core.live()
    with engine.lexicon.ready(cols, engine.registry) as index:
        generation = index.generation
    return engine.field_vectors.several(
        cols.active.uid, generation, lambda: ids_where(cols.active, _SEVERAL)
    )


def _by_fields(
    cache: FieldCache,
    collection: VectorCollection,
    scope: Scope,
    op: SearchOp,
    vector: list[float],
    now: datetime,
    wanted: int,
    ids: list[str],
    *,
    again: bool = True,
) -> list[tuple[Version, float | None]]:
    """The best ``wanted`` unexpired items among ``ids`` (items with a vector per
    text) that pass the filter, each with its best text's cosine to ``vector``: the
    max over its vectors, as LangGraph's stores score such an item.

    The vectors come from ``cache`` (those it lacks are read once, from the records'
    metadata); the items are then read best first, in growing pages, until enough
    pass, and each one's score is computed again from its own record."""
    if not ids:
        return []
    best = cache.best(
        collection.uid, ids, vector, lambda missing: field_matrices(collection, missing)
    )
    order = sorted(best, key=lambda i: -best[i])
    kept: list[tuple[Version, float | None]] = []
    start, step = 0, max(wanted, 1)
    while start < len(order) and len(kept) < wanted:
        part = order[start : start + step]
        start, step = start + step, step * 4
        for version in fetch(collection, scope, ids=part):
            fields = version.fields
            if fields is None or not version.indexed or version.expired(now):
                continue
            score = float(_cosines(fields.matrix(), vector).max())
            if again and abs(score - best[version.memory.id]) > 1e-3:
                # The cache held other vectors under this id (an import that reused
                # ids after an undo): read them all again, once.
                cache.forget(collection.uid)
                return _by_fields(
                    cache, collection, scope, op, vector, now, wanted, ids, again=False
                )
            if _matches(_item_value(version), op.filter):
                kept.append((version, score))
    return kept


def _cosines(matrix: Any, vector: Sequence[float]) -> Any:
    q = np.asarray(vector, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(q)
    return np.divide(matrix @ q, norms, out=np.zeros(len(matrix)), where=norms > 0)


def _ranked(
    collection: VectorCollection,
    scope: Scope,
    op: SearchOp,
    vector: list[float],
    now: datetime,
    wanted: int,
) -> list[tuple[Version, float | None]]:
    """The scope's best ``wanted`` indexed, unexpired items that pass the filter, with
    their cosine, less the items with a vector per text (``_by_fields`` scores those).
    Items put with ``index=False`` (the zero vector) are left out like a filter's
    misses: no ``where`` on the query, which would make Chroma scan the scope's
    metadata on every search. Chroma returns fewer than asked when the scope holds
    fewer, which ends the search (no count first: one read less)."""
    # Not ``wanted + several``: those items' records are slow to read (their vectors
    # are in their metadata); they are left out like a filter's misses.
    n = max(wanted, 1)
    while True:
        hits = query_versions(collection, scope, vector, n)
        kept: list[tuple[Version, float | None]] = [
            (version, score)
            for version, score in hits
            if version.indexed
            and version.fields is None
            and not version.expired(now)
            and _matches(_item_value(version), op.filter)
        ]
        if len(kept) >= wanted or len(hits) < n:
            return kept
        n *= 4  # a filter dropped too many: look further down the ranking


def _check_filter(filter: Mapping[str, Any]) -> None:
    for key, cond in filter.items():
        if isinstance(cond, Mapping):
            ops = [k for k in cond if k.startswith("$")]
            bad = [k for k in ops if k not in _OPERATORS]
            if bad:
                raise InvalidArgumentError(
                    f"unsupported filter operator {bad[0]!r} on {key!r}; "
                    f"use one of {', '.join(sorted(_OPERATORS))}"
                )


def _matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    if not filter:
        return True
    return all(_compare(_field(value, k), cond) for k, cond in filter.items())


def _field(value: Mapping[str, Any], key: str) -> Any:
    """The value a filter key names: the top-level field of that name, else, for a
    dotted key such as ``"author.name"``, the nested field on that path (as
    LangGraph's SqliteStore reads it: ``$.author.name``); None when absent.

    >>> _field({"author": {"name": "Ann"}, "a.b": 1}, "author.name"), _field({"a.b": 1}, "a.b")
    ('Ann', 1)
    """
    if key in value or "." not in key:
        return value.get(key)
    found: Any = value
    for part in key.split("."):
        if not isinstance(found, Mapping) or part not in found:
            return None
        found = found[part]
    return found


def _compare(actual: Any, cond: Any) -> bool:
    if isinstance(cond, Mapping):
        if any(k.startswith("$") for k in cond):
            return all(_apply(actual, op, operand) for op, operand in cond.items())
        return isinstance(actual, Mapping) and all(
            _compare(actual.get(k), v) for k, v in cond.items()
        )
    return bool(actual == cond)


def _apply(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(actual == operand)
    if op == "$ne":
        return bool(actual != operand)
    pair = _ordered(actual, operand)
    if pair is None:
        return False  # a missing or incomparable field fails a range test
    a, b = pair
    return bool({"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op])


def _ordered(actual: Any, operand: Any) -> tuple[Any, Any] | None:
    """Two values a range test can compare, or None.

    Strings compare as strings (ISO dates are the common case, as in LangGraph's
    own stores); anything else compares as a number.
    """
    if isinstance(actual, str) and isinstance(operand, str):
        return actual, operand
    try:
        return float(actual), float(operand)
    except (TypeError, ValueError):
        return None


def _check_listing(op: ListNamespacesOp) -> None:
    check_int(op.limit, "list_namespaces limit", low=0)
    check_int(op.offset, "list_namespaces offset", low=0)
    if op.max_depth is not None:
        check_int(op.max_depth, "list_namespaces max_depth", low=0)
    for condition in op.match_conditions or ():
        if condition.match_type not in ("prefix", "suffix"):
            raise InvalidArgumentError(
                f"unsupported namespace match type {condition.match_type!r}; "
                "use 'prefix' or 'suffix'"
            )


def _list_namespaces(core: StoreCore, op: ListNamespacesOp) -> list[tuple[str, ...]]:
    namespaces: list[tuple[str, ...]] = [s.namespace for s in core.scopes()]
    for condition in op.match_conditions or ():
        namespaces = [ns for ns in namespaces if _namespace_matches(condition, ns)]
    if op.max_depth is not None:
        namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
    else:
        namespaces = sorted(set(namespaces))
    return namespaces[op.offset : op.offset + op.limit]


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    # Not strict: the path may be shorter than the namespace it is a prefix or suffix of.
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    else:  # "suffix" (_check_listing refused any other)
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    return all(p == "*" or n == p for n, p in pairs)


# -- writes ------------------------------------------------------------------------


def _check_put(op: PutOp, fields: Sequence[str] | None, names: _Namespaces) -> _Put:
    scope = names.scope(op.namespace)  # what no scope can be (LangGraph's rules ran before)
    if not isinstance(op.key, str) or not op.key:
        raise InvalidMemoryError(f"store keys must be non-empty strings, got {op.key!r}")
    check_chars(op.key, "store key", controls=False, error=InvalidMemoryError)
    if op.value is not None and not isinstance(op.value, dict):
        raise InvalidMemoryError(f"put() takes a dict value, got {type(op.value).__name__}")
    if op.index is not None and op.index is not False:
        check_paths(op.index, "index")
    ttl.check_minutes(op.ttl, "ttl")
    if op.value is None:
        return _Put(op, scope)
    value_json = _value_json(op.value)  # first: the text may be the value as JSON too
    text, indexed, paths, parts = _text_of(op.value, op.index, fields)
    return _Put(op, scope, text, value_json, indexed, paths, parts)


def _value_json(value: Mapping[str, Any]) -> str:
    """``value`` as the JSON the store keeps; one that JSON cannot hold is refused
    with our error (json raises RecursionError, ValueError or TypeError)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        raise InvalidMemoryError(
            "put() value is nested too deeply to store as JSON; flatten it"
        ) from None
    except (TypeError, ValueError) as exc:  # a circular reference, a key JSON cannot have
        raise InvalidMemoryError(
            f"put() value cannot be stored as JSON ({exc}); use a dict of str keys with "
            "JSON values (str, numbers, bools, None, lists and dicts of them)"
        ) from None


def _text_of(
    value: Mapping[str, Any], index: Any, fields: Sequence[str] | None
) -> tuple[str, bool, tuple[str, ...], tuple[str, ...]]:
    """The text a put stores, whether it is embedded, and, when its paths hold
    several texts and it is embedded, the paths and those texts (each gets a
    vector of its own: a search scores the item by its best, as LangGraph's stores
    do; see ``field_texts``).

    The text is that at the paths of ``index`` (else the store's ``fields``),
    joined; else the first text field; else the value as JSON. It is embedded
    unless ``index=False``, or paths were given and none holds text: LangGraph's
    stores then keep the item out of vector search (it is still found by filter
    and listing), and so does this one. Its text is kept either way: the memory
    API's reads and keyword search read it.
    """
    paths = index if isinstance(index, list) else fields
    if paths:
        parts = [t for path in paths for t in get_text_at_path(value, path)]
        if parts:
            indexed = index is not False
            several = field_texts(value, paths) if indexed else ()
            return check_text(" ".join(parts)), indexed, tuple(paths) if several else (), several
    indexed = index is not False and not paths
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return check_text(value[name]), indexed, (), ()
    try:
        whole = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except TypeError:  # keys of several types cannot be sorted: keep them in their order
        whole = _value_json(value)
    return check_text(whole), indexed, (), ()


def _write(core: StoreCore, puts: list[_Put], vector_of: dict[str, list[float]]) -> None:
    """Apply a batch's puts, scope by scope, with the vector of each text they embed."""
    # A delete (value None) has no vector; an unindexed item has the zero vector.
    unindexed = any(p.op.value is not None and not p.indexed for p in puts)
    blank = core.unindexed_vector() if unindexed else []
    by_scope: dict[Scope, list[tuple[_Put, _Vectors]]] = {}
    for put in puts:
        vector = vector_of.get(put.text, []) if put.indexed else blank
        fields = None
        if put.indexed and put.field_texts:
            fields = FieldVectors.of(put.paths, [vector_of[t] for t in put.field_texts])
        by_scope.setdefault(put.scope, []).append((put, (vector, fields)))
    for scope, scope_puts in by_scope.items():
        _apply_puts(core, scope, scope_puts)


#: A put's vector, and its vector per text when its paths held several.
_Vectors = tuple[list[float], FieldVectors | None]


def _apply_puts(core: StoreCore, scope: Scope, puts: list[tuple[_Put, _Vectors]]) -> None:
    ops = [put.op for put, _ in puts]
    checked = [(put, vectors) for put, vectors in puts if put.op.value is not None]
    writes = [put.op for put, _ in checked]
    texts = [put.text for put, _ in checked]
    value_jsons = [put.value_json for put, _ in checked]
    vectors = [vectors for _, vectors in checked]
    indexed = [put.indexed for put, _ in checked]
    with core.writing(scope):
        # The clock is read under the lock: a time taken before it could be older than
        # a version that a concurrent put of the same key wrote meanwhile, and a
        # version cannot close before it opens.
        when = now_utc()
        # With vectors: archiving a version copies it, vector and all, into history.
        existing = core.by_key(scope, [op.key for op in ops], with_vector=True)
        archives = [existing[op.key] for op in ops if op.value is None and op.key in existing]
        if not writes:
            if archives:
                core.replace(core.writable(scope), [(old, None) for old in archives], when)
            return
        cols = core.writable(scope)
        new_keys = [op.key for op in writes if op.key not in existing]
        retired: dict[str, Version] = {}
        if new_keys:  # Chroma rejects an empty "$in" list, as when every put is an update
            found = fetch(cols.history, scope, where={CHAIN_KEY: {"$in": new_keys}})
            retired = _latest_closed(found)
        ids = iter(free_ids(cols, len(writes)))
        pairs: list[tuple[Version, Version | None]] = [(old, None) for old in archives]
        fresh: list[Version] = []
        for op, text, value_json, (vector, fields), embedded in zip(
            writes, texts, value_jsons, vectors, indexed, strict=True
        ):
            old = existing.get(op.key)
            last = old or retired.get(op.key)
            if last is None:
                memory = new_memory(scope, when, {"text": text, **_PUT_DEFAULTS})
                version = Version(
                    replace(memory, id=next(ids)),
                    op.key,
                    vector,
                    value_json,
                    when,
                    indexed=embedded,
                    fields=fields,
                )
                fresh.append(version.with_ttl(op.ttl))
                continue
            # Every field of the memory carries over (a put changes the value and its
            # text): kind, importance, pinned, source, trust, event time, sources, metadata.
            # Whether it is indexed, and its field vectors, are the put's own (index=False
            # drops the old vectors).
            version = last.successor(
                replace(successor(last.memory, text, when, {}), id=next(ids)),
                vector,
                value_json,
                indexed=embedded,
                fields=fields,
            ).with_ttl(op.ttl)  # a put sets its own TTL (None: none)
            if old is not None:
                pairs.append((old, version))
            else:  # a deleted key put again: its history continues
                fresh.append(version)
        if pairs:
            core.replace(cols, pairs, when)
        core.add_active(cols, fresh)
        if any(op.ttl is not None for op in writes):
            with core.live().shared_lock():
                layout.mark_ttl(core.live().registry, scope)


def _latest_closed(versions: list[Version]) -> dict[str, Version]:
    latest: dict[str, Version] = {}
    for v in versions:
        until = v.memory.valid_until or datetime.max.replace(tzinfo=v.memory.created_at.tzinfo)
        best = latest.get(v.key)
        if best is None or until > (best.memory.valid_until or until):
            latest[v.key] = v
    return latest
