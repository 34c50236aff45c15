"""The store's format version: one number for everything the store keeps.

Memory is kept for years, across many upgrades, so every store records which
format wrote it, and this release opens only what it can read:

- the registry collection's metadata holds ``lgm_format`` (the format of the
  whole store), ``lgm_written_by`` (the release that last created or migrated
  it) and ``lgm_chromadb`` (the chromadb version that did);
- every other collection the store creates (the reviews collection, each
  scope's three collections) carries ``lgm_format`` in its metadata too, so a
  collection says which format wrote it even when read on its own;
- the files beside Chroma's carry their own record versions, checked where
  they are read: the deferred-turn journal's lines (``turn_record.VERSION``),
  an export (``export_format.VERSION``), and the lexical index's schema, which
  is derived data (a file of another schema is rebuilt from Chroma, never
  migrated).

A store of an older format is migrated (``migrations``); one of a newer format
is refused, never read and never written. The formats, and the releases that
wrote them:

========  ==========================================================================
format    written by
========  ==========================================================================
1         langgraph-memory-kit 0.1.0 and earlier (``lgm_schema: 1``, no ``lgm_format``)
2         langgraph-memory-kit 0.2.0: ``lgm_format`` on every collection
3         langgraph-memory-kit 0.3.0 pre-releases: a record of an item put with
          ``index=False`` says ``indexed: false`` and holds the zero vector
4         langgraph-memory-kit 0.3.0: a record of an item whose index paths hold
          several texts keeps a vector per text (``fields``, ``field_vectors``,
          ``index_paths``) beside the joined text's
5         langgraph-memory-kit 0.4.0 pre-releases: small scopes live together in
          bucket collections (``lgm-b<number>-mem|hist|log``, records tagged
          ``lgm_scope``), named by their registry entry's ``home`` (see ``layout``)
========  ==========================================================================

>>> stored_format({"lgm_schema": 1}), stored_format({"lgm_format": 2})
(1, 2)
>>> check_readable(FORMAT + 1, "the store at ./x")
Traceback (most recent call last):
...
langgraph_memory.errors.StoreFormatError: the store at ./x was written by format 7; this release ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_memory.errors import StoreFormatError
from langgraph_memory.release import RELEASE
from langgraph_memory.store.chroma.door import CHROMA_VERSION

__all__ = [
    "CHROMADB_KEY",
    "FORMAT",
    "FORMAT_KEY",
    "RELEASES",
    "WRITTEN_BY_KEY",
    "check_readable",
    "stamp",
    "stored_format",
]

#: The format this release writes, and the newest it reads.
FORMAT = 6
#: Who wrote each format (for messages and the Upgrading page).
RELEASES = {
    1: "langgraph-memory-kit 0.1.0 or earlier",
    2: "langgraph-memory-kit 0.2.0",
    3: "langgraph-memory-kit 0.3.0 pre-releases",
    4: "langgraph-memory-kit 0.3.0",
    5: "langgraph-memory-kit 0.4.0 pre-releases",
    6: "langgraph-memory-kit 0.4.0 pre-releases",
}
FORMAT_KEY = "lgm_format"
WRITTEN_BY_KEY = "lgm_written_by"
CHROMADB_KEY = "lgm_chromadb"
#: What format 1 stamped on the registry and the reviews collection (and read never).
_LEGACY_KEY = "lgm_schema"


def stored_format(metadata: Mapping[str, Any] | None) -> int:
    """The format a collection's metadata says wrote it: ``lgm_format``, or 1
    for what the first release wrote (no ``lgm_format``).

    >>> stored_format(None)
    1
    """
    value = (metadata or {}).get(FORMAT_KEY)
    if value is None:
        return 1
    if type(value) is not int or value < 1:
        raise StoreFormatError(
            f"the store's format stamp {FORMAT_KEY}={value!r} is not a format number; the "
            "store was changed by something other than langgraph-memory-kit"
        )
    return value


def check_readable(found: int, where: str) -> None:
    """Refuse a format newer than this release's: it is never read nor written.

    >>> check_readable(1, "x"), check_readable(FORMAT, "x")
    (None, None)
    """
    if found > FORMAT:
        raise StoreFormatError(
            f"{where} was written by format {found}; this release reads up to format "
            f"{FORMAT}: upgrade langgraph-memory-kit (pip install -U langgraph-memory-kit). "
            "Nothing was read or written."
        )


def stamp(
    metadata: Mapping[str, Any] | None, *, format: int = FORMAT, registry: bool = False
) -> dict[str, Any]:
    """``metadata`` stamped with ``format`` (default: this release's) and, for the
    registry, who wrote it; the first release's key goes.

    >>> sorted(stamp({"lgm_schema": 1, "lgm_role": "mem"}))
    ['lgm_format', 'lgm_role']
    """
    out = {k: v for k, v in (metadata or {}).items() if k != _LEGACY_KEY}
    out[FORMAT_KEY] = format
    if registry:
        out[WRITTEN_BY_KEY] = f"langgraph-memory-kit {RELEASE}"
        out[CHROMADB_KEY] = CHROMA_VERSION
    return out
