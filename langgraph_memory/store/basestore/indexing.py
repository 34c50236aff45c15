"""LangGraph's ``IndexConfig`` on a MemoryStore: what each key means here.

A MemoryStore always has semantic search (its own reads need a vector per
record), so ``MemoryStore(index=...)`` configures it rather than turning it on:

- ``embed``: the store's embedder, as ``embeddings=`` (give one of the two): a
  LangChain ``Embeddings``, a ``"provider:model"`` string or a sync function from
  texts to vectors (see ``embeddings.resolve_embeddings``);
- ``dims``: checked against the embedder: against the dimension the store has
  recorded when the store opens, else against the first vector it embeds;
- ``fields``: the JSON paths (LangGraph's syntax: ``"a.b"``, ``"items[*].text"``,
  ``"$"`` for the whole value) whose text ``put`` embeds when its ``index`` is
  None. Without ``fields``: ``value["text"]``, ``"content"`` or ``"memory"``, else
  the whole value as JSON. An item whose paths hold no text, or put with
  ``index=False``, is kept out of vector search, as in LangGraph's stores (see
  ``basestore``).

When the paths hold several texts, each gets a vector (``field_texts``) and a
search scores the item by its best, as LangGraph's stores do; the item's text is
still their join, with its own vector, for the memory API.
``distance_type="cosine"`` is accepted, as that is the store's distance; other
distances are refused. The keys of LangGraph's other stores are taken, so that
their configs carry over unchanged: SqliteStore's ``text_fields`` means
``fields`` (a str is one path), and PostgresStore's ``ann_index_config`` (pgvector's
index kind and vector type) is checked to be a dict and otherwise has no effect,
the store keeping its vectors in Chroma's HNSW index, at full precision.

>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> config = read_index({"embed": DeterministicFakeEmbedding(size=8), "dims": 8,
...                      "fields": ["title", "body"]}, None)
>>> config.dims, config.fields
(8, ('title', 'body'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base.embed import get_text_at_path

from langgraph_memory.errors import InvalidArgumentError

__all__ = ["Indexing", "check_paths", "field_texts", "read_index"]

_KEYS = ("embed", "dims", "fields", "distance_type", "text_fields", "ann_index_config")


@dataclass(frozen=True)
class Indexing:
    """What a store's ``index=`` asked for: the embedder (None: the default or
    ``embeddings=``), the dimension to check, the default paths to embed."""

    embeddings: Embeddings | None = None
    dims: int | None = None
    fields: tuple[str, ...] | None = None


def read_index(index: Mapping[str, Any] | None, embeddings: Embeddings | None) -> Indexing:
    """Validate ``MemoryStore(index=..., embeddings=...)`` and say what they ask for."""
    if index is None:
        return Indexing(embeddings)
    if not isinstance(index, Mapping):
        raise InvalidArgumentError(
            f"index must be a dict (LangGraph's IndexConfig), got {type(index).__name__}"
        )
    unknown = sorted(set(index) - set(_KEYS))
    if unknown:
        raise InvalidArgumentError(
            f"index key {unknown[0]!r} has no meaning on a MemoryStore, which keeps its vectors "
            f"in Chroma's HNSW index with cosine distance; it takes {', '.join(_KEYS)}"
        )
    if index.get("distance_type", "cosine") != "cosine":
        raise InvalidArgumentError(
            f"a MemoryStore ranks by cosine similarity; distance_type "
            f"{index['distance_type']!r} cannot be had (leave it out, or pass 'cosine')"
        )
    if "embed" in index:
        from langgraph_memory.embeddings import resolve_embeddings

        resolved = resolve_embeddings(index["embed"])
        if embeddings is not None and embeddings is not resolved:
            raise InvalidArgumentError(
                "pass the embedder once: embeddings= or index={'embed': ...}, not both"
            )
        embeddings = resolved
    dims = index.get("dims")
    if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int) or dims < 1):
        raise InvalidArgumentError(f"index dims must be a positive int, got {dims!r}")
    ann = index.get("ann_index_config")
    if ann is not None and not isinstance(ann, Mapping):
        raise InvalidArgumentError(
            f"index ann_index_config must be a dict such as {{'kind': 'hnsw'}} (PostgresStore's; "
            f"it has no effect here), got {type(ann).__name__}: {ann!r}"
        )
    fields = index.get("fields")
    text_fields = index.get("text_fields")  # SqliteStore's name for the same paths
    if isinstance(text_fields, str):
        text_fields = [text_fields]
    if text_fields is not None:
        if fields is not None and list(fields) != list(text_fields):
            raise InvalidArgumentError(
                f"index has fields {fields!r} and text_fields {text_fields!r}, SqliteStore's "
                "name for the same paths: pass one of them"
            )
        fields = text_fields
    return Indexing(embeddings, dims, None if fields is None else check_paths(fields, "fields"))


def check_paths(paths: Any, name: str) -> tuple[str, ...]:
    """Validate a list of JSON paths to embed (``fields``, or ``put``'s ``index``).

    >>> check_paths(["text", "items[*].name"], "index")
    ('text', 'items[*].name')
    """
    if isinstance(paths, str) or not isinstance(paths, (list, tuple)) or not paths:
        raise InvalidArgumentError(
            f"{name} must be a non-empty list of JSON paths such as ['text'] or ['$'] "
            f"(the whole value), got {paths!r}"
        )
    for path in paths:
        if not isinstance(path, str) or not path.strip():
            raise InvalidArgumentError(f"{name} holds {path!r}; each path is a non-empty str")
    return tuple(paths)


def field_texts(value: Any, paths: Sequence[str]) -> tuple[str, ...]:
    """The texts at ``paths`` that get a vector each: every field's text and every
    match of a path such as ``"items[*].text"``, in order, blank ones left out;
    none when fewer than two (one text: the item's own vector is that text's).

    >>> field_texts({"title": "Tea", "tags": ["a", "b"], "x": " "}, ["title", "tags[*]", "x"])
    ('Tea', 'a', 'b')
    >>> field_texts({"title": "Tea", "body": ""}, ["title", "body"])
    ()
    """
    if not isinstance(value, Mapping):
        return ()
    texts = tuple(t for path in paths for t in get_text_at_path(value, path) if t.strip())
    return texts if len(texts) > 1 else ()
