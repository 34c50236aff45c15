"""Keyword search: BM25 over a scope's lexical index, and memories named by their id.

A query is a text or a list of terms; either is tokenised as the index is (see
``text.words.tokenize``). An 8-hex-digit term also finds the active memory with that id, first,
with score 1.0. The index returns ids; the records are read from the scope's active
collection, so what a search shows is always what Chroma holds now.

>>> query_of("What did I say about project 0a1b2c3d?")
(['say', 'project', '0a1b2c3d'], ['0a1b2c3d'])
>>> query_of(["Pune", " ", "LH-761"])
(['pune', 'lh', '761'], [])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from langgraph_memory.checks import check_query
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.scope import Scope
from langgraph_memory.store.chroma import ScopeCollections, VectorCollection, fetch
from langgraph_memory.store.lexical.indexes import Lexicon
from langgraph_memory.store.version import Hit
from langgraph_memory.text import tokenize

__all__ = ["StoreCoreLike", "query_of", "search", "shares"]


class _EngineLike(Protocol):
    @property
    def lexicon(self) -> Lexicon: ...
    @property
    def registry(self) -> VectorCollection: ...


class StoreCoreLike(Protocol):
    """What a search reads of the store: its ``StoreCore``. A protocol, not the class:
    the store's engine holds the lexical indexes, so the index cannot import it back."""

    @property
    def engine(self) -> _EngineLike: ...
    def live(self) -> _EngineLike: ...
    def collections(self, scope: Scope, *, create: bool = False) -> ScopeCollections | None: ...


_ID = re.compile(r"^[0-9a-f]{8}$")


def query_of(terms: Any) -> tuple[list[str], list[str]]:
    """The index terms of a query (a text, or a list of terms) and the memory ids it names."""
    if isinstance(terms, str):
        given = [check_query(terms, "terms")]
    elif isinstance(terms, Sequence):
        given = [check_query(t, f"terms[{i}]") for i, t in enumerate(terms)]
    else:
        raise InvalidArgumentError(
            f"terms must be a text or a list of terms, got {type(terms).__name__}: {terms!r}"
        )
    words = [w.strip(".,;:!?\"'()[]") for g in given for w in g.split()]
    ids = list(dict.fromkeys(w for w in words if _ID.match(w)))
    return list(dict.fromkeys(t for g in given for t in tokenize(g))), ids


def search(core: StoreCoreLike, scope: Scope, terms: Any, k: int) -> list[Hit]:
    """The ``k`` active memories of ``scope`` that best match ``terms``, best first."""
    wanted, ids = query_of(terms)
    cols = core.collections(scope)
    if cols is None:
        core.live().lexicon.forget(scope)  # purged by another process: let go of its index
        return []
    ranked: dict[str, float] = dict.fromkeys(ids, 1.0)
    for record_id, score in core.live().lexicon.search(cols, core.engine.registry, wanted, k):
        ranked.setdefault(record_id, score)
    if not ranked:
        return []
    found = {v.memory.id: v.memory for v in fetch(cols.active, scope, ids=list(ranked))}
    hits = [Hit(found[i], score) for i, score in ranked.items() if i in found]
    return hits[:k]


def shares(core: StoreCoreLike, scope: Scope, words: Sequence[str]) -> dict[str, float]:
    """The share of ``scope``'s active memories that hold each word (as the index
    tokenises it; a word that tokenises to nothing has share 0)."""
    cols = core.collections(scope)
    token_of = {w: (tokenize(w) or [""])[0] for w in words}
    if cols is None:
        return dict.fromkeys(words, 0.0)
    found = core.live().lexicon.shares(
        cols, core.engine.registry, [t for t in set(token_of.values()) if t]
    )
    return {w: found.get(t, 0.0) for w, t in token_of.items()}
