"""The lexical index: BM25 over each scope's active memories, kept in step with Chroma.

The rest of the store uses it through the names below; the modules inside are its own:

- ``index``: one scope's index, BM25 in SQLite FTS5 (:class:`LexicalIndex`, ``SCHEMA``),
  an :class:`Entry` per record, and the constants of its ranking;
- ``postings``: BM25 top-k from postings in memory, ranking a big scope's searches;
- ``indexes``: the indexes of one store location, kept in step with Chroma
  (:class:`Lexicon`: files of an embedded store, memory on a Chroma server), and
  what a memory is indexed under (its terms come from ``text.words``);
- ``bucket_entries``: an embedded store's bucketed scopes' entries in one file, from
  which their indexes in memory are built (not from their bucket's vector index);
- ``search``: keyword search (:func:`search`, :func:`shares`) and a query's terms and
  named ids (:func:`query_of`).

Fusing its finds with the dense index's is the read's candidates (``store/engine/searches.py``).
"""

from langgraph_memory.store.lexical.bucket_entries import OWN
from langgraph_memory.store.lexical.index import (
    COMMON_MIN_RECORDS,
    COMMON_SHARE,
    K1,
    POSTINGS_FROM,
    SCHEMA,
    Entry,
    LexicalIndex,
)
from langgraph_memory.store.lexical.indexes import Lexicon
from langgraph_memory.store.lexical.search import query_of, search, shares

__all__ = [
    "COMMON_MIN_RECORDS",
    "COMMON_SHARE",
    "K1",
    "OWN",
    "POSTINGS_FROM",
    "SCHEMA",
    "Entry",
    "LexicalIndex",
    "Lexicon",
    "query_of",
    "search",
    "shares",
]
