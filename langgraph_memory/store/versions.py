"""Memory versions as Chroma records: reading, querying and writing them in batches.

The store's own helpers on its collections; nothing here knows about scopes
beyond the collections it is handed.

>>> log_id() < log_id()
True
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection

# Re-exported: the store's callers import them from here.
from langgraph_memory.checks import check_id as check_id
from langgraph_memory.checks import check_k as check_k
from langgraph_memory.errors import MemoryNotFoundError
from langgraph_memory.model import Decision, Memory
from langgraph_memory.scope import Scope
from langgraph_memory.store import layout
from langgraph_memory.store.records import (
    CHAIN_KEY,
    CHAIN_START,
    VALUE_KEY,
    decision_document,
    decision_from_document,
    decision_metadata,
    from_epoch,
    memory_from_record,
    memory_metadata,
)

_RECORD = ["documents", "metadatas"]


@dataclass(frozen=True)
class Hit:
    """A memory found by a search, with its score (higher is better).

    For ``nearest`` the score is the cosine similarity; for ``keyword`` the
    share of the query's term weight the memory matched. Both lie in [0, 1]
    for the normalised vectors the store uses.
    """

    memory: Memory
    score: float


@dataclass(frozen=True)
class Version:
    """A memory as stored: the record plus its chain key and vector."""

    memory: Memory
    key: str
    vector: list[float] | None = None
    value_json: str | None = None
    chain_start: datetime | None = None  # when the chain's first version opened

    def successor(self, memory: Memory, vector: list[float], value_json: str | None) -> Version:
        """The version that replaces this one in the same chain."""
        return Version(
            memory, self.key, vector, value_json, self.chain_start or self.memory.created_at
        )


def log_id() -> str:
    """A decision id that sorts in logging order (clock first, then randomness):
    decisions of one turn share its time, and their order must survive."""
    return f"{time.time_ns():016x}{uuid.uuid4().hex[:8]}"


def max_batch(client: ClientAPI) -> int:
    try:
        return max(1, int(client.get_max_batch_size()))
    except Exception:  # older or remote clients may not say; Chroma's floor is 1,000+
        return 1000


def chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def oldest_first(memories: Iterable[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: (m.created_at, m.id))


def fetch(
    collection: Collection,
    scope: Scope,
    *,
    ids: list[str] | None = None,
    where: dict[str, Any] | None = None,
    where_document: dict[str, Any] | None = None,
    with_vector: bool = False,
) -> list[Version]:
    include = _RECORD + (["embeddings"] if with_vector else [])
    found = collection.get(
        ids=ids,
        where=where,
        where_document=where_document,  # type: ignore[arg-type]
        include=include,  # type: ignore[arg-type]
    )
    documents = found["documents"] or []
    metadatas = found["metadatas"] or []
    vectors = found["embeddings"] if with_vector else None
    out = []
    for i, record_id in enumerate(found["ids"]):
        meta = metadatas[i]
        out.append(
            Version(
                memory_from_record(record_id, documents[i], meta, scope.key),
                key=str(meta.get(CHAIN_KEY, record_id)),
                vector=[float(x) for x in vectors[i]] if vectors is not None else None,
                value_json=meta.get(VALUE_KEY),  # type: ignore[arg-type]
                chain_start=from_epoch(meta[CHAIN_START]) if CHAIN_START in meta else None,
            )
        )
    return out


def query(
    collection: Collection,
    scope: Scope,
    vector: list[float],
    k: int,
    *,
    where: dict[str, Any] | None,
) -> list[Hit]:
    """The ``k`` records nearest to ``vector``, best first.

    A record the index still names but that a write in another thread deleted
    between Chroma's index lookup and its record read comes back without
    metadata: it is skipped (a read never fails because of a write).
    """
    found = collection.query(
        query_embeddings=np.asarray([vector], dtype=np.float32),
        n_results=k,
        where=where,
        include=["documents", "metadatas", "distances"],
    )
    ids = found["ids"][0]
    documents = (found["documents"] or [[]])[0]
    metadatas = (found["metadatas"] or [[]])[0]
    distances = (found["distances"] or [[]])[0]
    return [
        Hit(memory_from_record(ids[i], documents[i], metadatas[i], scope.key), 1.0 - distances[i])
        for i in range(len(ids))
        if metadatas[i] is not None
    ]


def similar(
    collection: Collection, scope: Scope, vector: list[float], k: int, ids: list[str]
) -> list[Hit]:
    """The ``k`` of the listed records most similar to ``vector`` (cosine), best first.

    Reads the records, so an id that is no longer there is skipped rather than
    failing the read as Chroma's ``query(ids=...)`` does.
    """
    if not ids:
        return []
    found = fetch(collection, scope, ids=ids, with_vector=True)
    if not found:
        return []
    q = np.asarray(vector, dtype=np.float64)
    matrix = np.asarray([v.vector for v in found], dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(q)
    scores = np.divide(matrix @ q, norms, out=np.zeros(len(found)), where=norms > 0)
    hits = [Hit(v.memory, float(score)) for v, score in zip(found, scores, strict=True)]
    return sorted(hits, key=lambda h: (-h.score, h.memory.id))[:k]


def insert(collection: Collection, versions: Sequence[Version], *, upsert: bool = False) -> None:
    write = collection.upsert if upsert else collection.add
    for chunk in chunks(versions, 1000):
        write(
            ids=[v.memory.id for v in chunk],
            embeddings=np.asarray([v.vector for v in chunk], dtype=np.float32),
            documents=[v.memory.text for v in chunk],
            metadatas=[
                memory_metadata(
                    v.memory, key=v.key, value_json=v.value_json, chain_start=v.chain_start
                )
                for v in chunk
            ],
        )


def free_ids(cols: layout.ScopeCollections, n: int) -> list[str]:
    """``n`` fresh 8-hex-digit ids, unused in the scope as ids or chain keys."""
    chosen: list[str] = []
    while len(chosen) < n:
        candidates = list({secrets.token_hex(4) for _ in range(n - len(chosen))} - set(chosen))
        taken: set[str] = set()
        for collection in (cols.active, cols.history):
            taken.update(collection.get(ids=candidates, include=[])["ids"])
            by_key: Any = {CHAIN_KEY: {"$in": candidates}}  # chromadb's Where type is too narrow
            taken.update(collection.get(where=by_key, include=[])["ids"])
        chosen += [c for c in candidates if c not in taken]
    return chosen


def chain_keys(cols: layout.ScopeCollections | None, scope: Scope, ids: list[str]) -> list[str]:
    """The chain keys of memories named by id or key, in four reads however many.

    Raises MemoryNotFoundError, naming every unknown one, before anything changes.
    """
    for memory_id in ids:
        check_id(memory_id)
    keys: dict[str, str] = {}  # id or key asked for -> chain key
    if cols is not None and ids:
        for collection in (cols.active, cols.history):
            found = collection.get(ids=ids, include=["metadatas"])
            for record_id, meta in zip(found["ids"], found["metadatas"] or [], strict=True):
                keys[record_id] = str(meta.get(CHAIN_KEY, record_id))
        rest = [i for i in ids if i not in keys]
        for collection in (cols.active, cols.history):
            if rest:
                by_key: Any = {CHAIN_KEY: {"$in": rest}}  # chromadb's Where type is too narrow
                for meta in collection.get(where=by_key, include=["metadatas"])["metadatas"] or []:
                    keys[str(meta[CHAIN_KEY])] = str(meta[CHAIN_KEY])
    missing = [i for i in ids if i not in keys]
    if missing:
        raise MemoryNotFoundError(
            f"no memory {', '.join(map(repr, missing))} in scope {scope.key}; nothing was purged"
        )
    return sorted(set(keys.values()))


def finish_interrupted_moves(cols: layout.ScopeCollections) -> None:
    """Complete a close that a crash interrupted (record in history and active)."""
    closed = cols.history.get(include=[])["ids"]
    if not closed:
        return
    stale = cols.active.get(ids=closed, include=[])["ids"]
    if stale:
        cols.active.delete(ids=stale)


#: Shortest purged text that is looked for inside other decisions' texts: a
#: shorter one ("x") would match unrelated decisions.
MIN_QUOTED_CHARS = 12
#: What a purged memory's id and text become in the decisions that showed it.
PURGED = "[purged]"


def purge_chains(
    cols: layout.ScopeCollections, scope: Scope, keys: list[str]
) -> tuple[dict[str, int], list[str]]:
    """Delete every version of the chains ``keys`` and the log entries about them.

    A decision goes when it created, changed or removed a purged version, when
    it belongs to the same turn as one that does and names no memory itself
    (a failed or rejected fact of that turn), or when its fact or text is a
    purged text. Decisions that only showed a purged memory to the model keep
    their place in the log with that memory's id and text replaced by
    ``[purged]``. Returns the counts and the purged version ids.
    """
    where = {CHAIN_KEY: {"$in": keys}}
    versions = fetch(cols.active, scope, where=where) + fetch(cols.history, scope, where=where)
    ids = {v.memory.id for v in versions}
    texts = {_plain(v.memory.text) for v in versions}
    for collection in (cols.active, cols.history):
        collection.delete(where=where)  # type: ignore[arg-type]
    found = cols.log.get(include=["documents"])
    logged = [
        (log_id, decision_from_document(doc))
        for log_id, doc in zip(found["ids"], found["documents"] or [], strict=True)
    ]
    doomed = {log_id for log_id, d in logged if d.target_id in ids or d.result_id in ids}
    turns = {d.turn_id for log_id, d in logged if log_id in doomed and d.turn_id}
    for log_id, d in logged:
        unlinked = not d.target_id and not d.result_id
        if (unlinked and d.turn_id in turns) or _quotes(d, texts):
            doomed.add(log_id)
    redacted = [
        _redact(d, ids, texts)
        for log_id, d in logged
        if log_id not in doomed and (ids.intersection(d.shown_ids) or _mentions(d, texts))
    ]
    if doomed:
        cols.log.delete(ids=sorted(doomed))
    if redacted:
        # Vectors go with documents on every write: without them Chroma would
        # embed the documents with its own default model, which downloads.
        cols.log.update(
            ids=[d.id for d in redacted if d.id],
            embeddings=layout.dummy_vectors(len(redacted)),
            documents=[decision_document(d) for d in redacted],
            metadatas=[decision_metadata(d) for d in redacted],
        )
    return {"memories": len(ids), "decisions": len(doomed)}, sorted(ids)


def _plain(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _quotes(decision: Decision, texts: set[str]) -> bool:
    """Whether the decision's own fact or text is one of the purged texts."""
    return bool({_plain(decision.fact), _plain(decision.text)} & (texts - {""}))


def _mentions(decision: Decision, texts: set[str]) -> bool:
    """Whether a purged text (long enough to be told apart) appears in the
    decision's model output or error."""
    return _quoted_in(decision.raw, texts) or _quoted_in(decision.error, texts)


def _quoted_in(field: str | None, texts: set[str]) -> bool:
    plain = _plain(field)
    return any(t in plain for t in texts if len(t) >= MIN_QUOTED_CHARS)


def _redact(decision: Decision, ids: set[str], texts: set[str]) -> Decision:
    hidden = [sid in ids for sid in decision.shown_ids]
    shown = list(decision.shown_texts)
    raw, error = decision.raw, decision.error
    if raw is not None and (any(hidden) or _quoted_in(raw, texts)):
        raw = "[redacted: it showed a purged memory]"
    if _quoted_in(error, texts):
        error = "[redacted: it quoted a purged memory]"
    return decision.with_(
        shown_ids=tuple(
            PURGED if h else sid for sid, h in zip(decision.shown_ids, hidden, strict=True)
        ),
        shown_texts=tuple(
            PURGED if i < len(hidden) and hidden[i] else text for i, text in enumerate(shown)
        ),
        raw=raw,
        error=error,
    )
