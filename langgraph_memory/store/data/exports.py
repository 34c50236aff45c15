"""Exports of one scope: export every record, import it into an empty scope.

An export is a JSON-ready dict that holds everything a scope stores except
vectors, so that :func:`import_scope` can rebuild the scope exactly: the same
ids, times, version chains, BaseStore keys and values, decisions and reviews.
It is a function of what the store holds, nothing else (no time of export), so
an export, imported into an empty store and exported again, is the same JSON
to the byte. The format is ``export_format``'s; every check an import makes,
on the export alone and on what it links to in other scopes, is
``import_checks``'. An import is untrusted input: every record must belong to
the scope it fills, and it is checked whole before anything is written.

Vectors are not exported: they would make the file many times larger and tie
it to one embedder. Import recomputes them from the texts with the target
store's embedder, which gives the same vectors when it is the same embedder
(up to float rounding on another machine).
Import refuses an export made under another embedder unless
``allow_embedder_change=True``: with another embedder every score, and so
every ranking and duplicate check, differs from the original, which is worth
a decision rather than a surprise.

``pending_turns`` holds the turns a BackgroundWriter on the store had accepted
and not yet applied when the export was taken (``MemoryStore.pending_turns``),
as turn records (``turn_record``). Import hands each one, its scope set to the
scope imported into, to ``requeue`` (``BackgroundWriter.requeue`` queues it
again with its id and time).

>>> import tempfile
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> fake = DeterministicFakeEmbedding(size=8)
>>> source = MemoryStore(tempfile.mkdtemp(), embeddings=fake)
>>> source.put(("user", "alice"), "food", {"text": "Likes sushi.", "rating": 5})
>>> export = source.export("user:alice")
>>> target = MemoryStore(tempfile.mkdtemp(), embeddings=fake)
>>> target.import_scope(export)["memories"]
1
>>> target.get(("user", "alice"), "food").value
{'text': 'Likes sushi.', 'rating': 5}
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from langgraph_memory.errors import EmbeddingMismatchError, InvalidMemoryError, ScopeNotEmptyError
from langgraph_memory.records import Decision, Review, now_utc
from langgraph_memory.scope import Scope, ScopeLike
from langgraph_memory.store.basestore import field_texts
from langgraph_memory.store.chroma import (
    ScopeCollections,
    chunks,
    fetch,
    insert,
    mark_ttl,
    restore_reviews,
    reviews_involving,
)
from langgraph_memory.store.data.export_format import write_export
from langgraph_memory.store.data.import_checks import read_export, reviews_to_restore
from langgraph_memory.store.engine import StoreCore
from langgraph_memory.store.version import FieldVectors, Version

#: Texts per embedding call on import.
EMBED_BATCH = 256

#: Called with each pending turn of an export, after the import wrote the scope.
Requeue = Callable[[Mapping[str, Any]], object]


# -- export ------------------------------------------------------------------------


def export_scope(core: StoreCore, scope: ScopeLike) -> dict[str, Any]:
    """Every version (active and closed) and decision of a scope, JSON-ready.

    The format is described in this module's docstring; vectors are left out.

    >>> import json, tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Likes tea.")
    >>> data = json.loads(json.dumps(s.export("user:a")))
    >>> data["version"], data["memories"][0]["key"] == m.id, data["memories"][0]["value_json"]
    (3, True, None)
    """
    scope = Scope.of(scope)
    core.live().access.flush(scope)  # the access times reads noted, written first
    with core.writing(scope) as engine:  # no write of this process lands between the reads
        versions = _stored_versions(core, scope)
        decisions = core.read_log(scope)
        held = reviews_involving(engine.client, scope)
        pending = [t for c in engine.companions() for t in c.pending_turns(scope)]
    return write_export(scope, core.embedder_name, versions, decisions, held, pending)


def _stored_versions(core: StoreCore, scope: Scope) -> list[Version]:
    cols = core.collections(scope)
    if cols is None:
        return []
    by_id = {v.memory.id: v for v in fetch(cols.active, scope)}
    # A record in both collections is a close caught half-way (by another process,
    # or a crash): the closed copy is the truth, as finish_interrupted_moves decides.
    by_id.update({v.memory.id: v for v in fetch(cols.history, scope)})
    return sorted(by_id.values(), key=lambda v: (v.memory.created_at, v.memory.id))


# -- import ----------------------------------------------------------------------------


def import_scope(
    core: StoreCore,
    data: Any,
    *,
    scope: ScopeLike | None = None,
    allow_embedder_change: bool = False,
    requeue: Requeue | None = None,
) -> dict[str, int]:
    """Restore an export into an empty scope, exactly; return what it restored.

    The whole payload is validated (``import_checks.read_export``), its links
    to other scopes checked against the store (``import_checks.reviews_to_restore``), and every
    text embedded, before anything is written; a failed write removes what the
    import had written. The
    target scope (``scope``, default: the export's) must hold nothing:
    ScopeNotEmptyError otherwise, so an import can never mix with or overwrite
    data. ``allow_embedder_change=True`` accepts an export made under another
    embedder (the texts are embedded with this store's embedder either way).
    ``requeue`` receives each pending turn of the export once the scope is
    written; an export with pending turns is refused without it.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> s = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> m = s.add("user:a", "Lives in Delhi.")
    >>> _ = s.update("user:a", m.id, "Lives in Pune.")
    >>> s.import_scope(s.export("user:a"), scope="user:b")
    {'memories': 2, 'active': 1, 'closed': 1, 'decisions': 0, 'reviews': 0, 'pending_turns': 0}
    >>> [v.text for v in s.history("user:b", m.id)]
    ['Lives in Delhi.', 'Lives in Pune.']
    """
    export = read_export(data, scope=scope)
    if export.embedder != core.embedder_name and not allow_embedder_change:
        raise EmbeddingMismatchError(
            f"this export was made with the embedder {export.embedder!r}, but this store uses "
            f"{core.embedder_name!r}; similarity scores and rankings will differ from the "
            "original. Pass allow_embedder_change=True to import it anyway (its texts are "
            "embedded again with this store's embedder)."
        )
    if export.pending_turns and requeue is None:
        raise InvalidMemoryError(
            f"this export holds {len(export.pending_turns)} pending turns (accepted, not yet "
            "applied) that an import alone would lose; pass requeue= to queue them again, or "
            "remove them from the payload to drop them knowingly"
        )
    core.check_write(export.scope)  # an org scope: only an admin imports into it
    with core.reading():  # before the costly embedding
        _check_empty(core, export.scope)
        reviews_to_restore(core, export.scope, export.reviews)
    versions = _embedded(core, export.versions)
    with core.writing(export.scope):
        _check_empty(core, export.scope)
        held = reviews_to_restore(core, export.scope, export.reviews)  # as the store is now
        restored = _write(core, export.scope, versions, export.decisions, held)
    for turn in export.pending_turns:
        assert requeue is not None
        requeue(turn.record())
    closed = sum(1 for v in versions if not v.memory.active)
    return {
        "memories": len(versions),
        "active": len(versions) - closed,
        "closed": closed,
        "decisions": len(export.decisions),
        "reviews": restored,
        "pending_turns": len(export.pending_turns),
    }


def _check_empty(core: StoreCore, scope: Scope) -> None:
    cols = core.collections(scope)
    if cols is None:
        return
    counts = {
        "memory versions": cols.active.size() + cols.history.size(),
        "decisions": cols.log.size(),
    }
    held = ", ".join(f"{n} {what}" for what, n in counts.items() if n)
    if held:
        raise ScopeNotEmptyError(
            f"scope {scope.key} already holds {held}; an import only fills an empty scope, "
            "so that it never mixes with or overwrites data. Import into another scope "
            f"(scope=...), or purge {scope.key} first if you mean to replace it (an "
            "interrupted import leaves a partial scope: purge it and import again)."
        )


def _embedded(core: StoreCore, versions: list[Version]) -> list[Version]:
    # Versions often share one text; an item put with index=False is not embedded
    # (its text may be what its owner kept from the embedder): it gets the zero vector.
    # An item whose index paths held several texts gets a vector per text again.
    several = {v.memory.id: _field_texts(v) for v in versions if v.fields is not None}
    texts = list(
        dict.fromkeys(
            t for v in versions if v.indexed for t in (v.memory.text, *several.get(v.memory.id, ()))
        )
    )
    vector_of: dict[str, list[float]] = {}
    for batch in chunks(texts, EMBED_BATCH):
        vector_of.update(zip(batch, core.embed(batch), strict=True))
    blank = core.unindexed_vector() if any(not v.indexed for v in versions) else []
    return [
        replace(
            v,
            vector=vector_of[v.memory.text] if v.indexed else blank,
            fields=_fields(v, several, vector_of),
        )
        for v in versions
    ]


def _field_texts(version: Version) -> tuple[str, ...]:
    assert version.fields is not None and version.value_json is not None  # read_export checked
    return field_texts(json.loads(version.value_json), version.fields.paths)


def _fields(
    version: Version, several: dict[str, tuple[str, ...]], vector_of: dict[str, list[float]]
) -> FieldVectors | None:
    texts = several.get(version.memory.id)
    if version.fields is None or not texts:
        return None
    return FieldVectors.of(version.fields.paths, [vector_of[t] for t in texts])


def _write(
    core: StoreCore,
    scope: Scope,
    versions: list[Version],
    decisions: list[Decision],
    held: list[Review],
) -> int:
    """Write the scope's records, then the reviews the store lacks; how many reviews."""
    if not versions and not decisions:
        with core.live().shared_lock():
            return restore_reviews(core.live().client, held)
    cols = core.writable(scope)
    restored = 0
    try:
        core.add_active(cols, [v for v in versions if v.memory.active])
        insert(cols.history, [v for v in versions if not v.memory.active])
        core.append_log(scope, decisions, now_utc())  # ids and times given, so kept
        with core.live().shared_lock():
            if any(v.ttl is not None for v in versions):
                mark_ttl(core.live().registry, scope)  # for the TTL sweep to visit
            restored = restore_reviews(core.live().client, held)
    except BaseException:
        # The write's own error is the one to report; if the undo fails too, the
        # partial scope it leaves makes the next import refuse and say to purge.
        with contextlib.suppress(Exception):
            _undo(cols, versions, decisions)
        core.recheck(scope)  # the index may hold what the undo removed
        raise
    return restored


def _undo(cols: ScopeCollections, versions: list[Version], decisions: list[Decision]) -> None:
    """Remove what a failed import wrote: only its own ids, so nothing else is touched."""
    ids = [v.memory.id for v in versions]
    log_ids = [d.id for d in decisions if d.id]
    for collection, doomed in ((cols.active, ids), (cols.history, ids), (cols.log, log_ids)):
        for batch in chunks(doomed, 1000):
            collection.remove(ids=list(batch))
