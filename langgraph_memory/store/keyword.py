"""Keyword candidates: exact names, ids and numbers, which embed badly.

Local Chroma has no BM25, so the store asks Chroma for documents matching a
whole-word, case-insensitive regex per term, and ranks them here by the summed
weight of the terms they contain (rarer terms weigh more, like IDF).

>>> extract_terms('Did Caroline fly LH-761 to "New York" in 2023?')
['Caroline', 'LH-761', 'New', 'York', '2023', 'New York']
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langgraph_memory.checks import check_query
from langgraph_memory.errors import InvalidArgumentError
from langgraph_memory.model import Memory
from langgraph_memory.scope import Scope
from langgraph_memory.store import layout
from langgraph_memory.store.collection_io import fetch
from langgraph_memory.store.version import Hit

_QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")
_TOKEN = re.compile(r"[\w][\w'.\-]*[\w]|\w")
#: Capitalised words that start questions and sentences; not names.
_COMMON = frozenset(
    """a an and are at be but by can could did do does for from had has have he her his how
    i if in is it its me my no not of on or our she so that the their them then there they
    this to was we were what when where which who whom why will with would you your yes
    user assistant please thanks thank hi hello okay ok""".split()  # noqa: SIM905 - reads as prose
)
MAX_TERMS = 8
_ID = re.compile(r"^[0-9a-f]{8}$")


def extract_terms(text: str) -> list[str]:
    """The distinctive terms of a query: names, numbers, ids, quoted phrases.

    >>> extract_terms("where does my sister live now?")
    []
    >>> extract_terms("what did I say about project 0a1b2c3d")
    ['0a1b2c3d']
    """
    terms: list[str] = []
    for token in _TOKEN.findall(text):
        token = token.strip(".'-")
        if not token or token.lower() in _COMMON:
            continue
        has_digit = any(ch.isdigit() for ch in token)
        is_name = token[0].isupper()
        is_code = "-" in token or "_" in token
        if has_digit or is_name or is_code:
            terms.append(token)
    terms += [q.strip() for q in _QUOTED.findall(text) if q.strip()]
    return list(dict.fromkeys(terms))[:MAX_TERMS]


def terms_of(terms: Any) -> list[str]:
    """The terms to search for: a list's non-blank terms, or those a text names.

    >>> terms_of(["Pune", " "]), terms_of("Is LH-761 late?")
    (['Pune'], ['LH-761'])
    """
    if isinstance(terms, str):
        return extract_terms(check_query(terms, "terms"))
    if not isinstance(terms, Sequence):
        raise InvalidArgumentError(
            f"terms must be a text or a list of terms, got {type(terms).__name__}: {terms!r}"
        )
    given = [check_query(t, f"terms[{i}]") for i, t in enumerate(terms)]
    return list(dict.fromkeys(t for t in given if t.strip()))


def term_pattern(term: str) -> str:
    """A whole-word, case-insensitive regex for ``term`` (Rust regex syntax).

    >>> term_pattern("LH-761")
    '(?i)\\\\bLH\\\\-761\\\\b'
    """
    escaped = "".join(ch if ch.isalnum() or ch == "_" or ch == " " else "\\" + ch for ch in term)
    # \b needs a word character on the inside; terms ending in punctuation skip it.
    left = r"\b" if term[:1].isalnum() or term[:1] == "_" else ""
    right = r"\b" if term[-1:].isalnum() or term[-1:] == "_" else ""
    return f"(?i){left}{escaped}{right}"


def contains_filter(term: str) -> dict[str, Any]:
    """A Chroma ``where_document`` that finds ``term`` in its common casings.

    ``$contains`` uses Chroma's full-text index; ``$regex`` scans every
    document and cost ~70% of a retrieval's time. The index is case-sensitive,
    so the casings a name or word is written in are asked for together, and
    ``term_pattern`` then keeps whole-word matches only.

    >>> contains_filter("pune")
    {'$or': [{'$contains': 'PUNE'}, {'$contains': 'Pune'}, {'$contains': 'pune'}]}
    """
    casings = sorted({term, term.lower(), term.capitalize(), term.upper()})
    if len(casings) == 1:
        return {"$contains": casings[0]}
    return {"$or": [{"$contains": c} for c in casings]}


#: A term found in more than this share of a scope's memories says nothing about which one
#: is meant (a speaker's name in a conversation stored turn by turn): it is not searched.
COMMON_SHARE = 0.5
#: ... once the scope holds this many memories (below, vector search sees them all anyway).
COMMON_MIN_SCOPE = 20


def too_common(matches: int, total: int) -> bool:
    """Whether a term found in ``matches`` of ``total`` memories is too common to search.

    >>> too_common(339, 419), too_common(3, 419), too_common(9, 10)
    (True, False, False)
    """
    return total >= COMMON_MIN_SCOPE and matches > COMMON_SHARE * total


def rank(matches: Mapping[str, Sequence[Memory]], total: int) -> list[tuple[Memory, float]]:
    """Memories ranked by the weight of the terms they match, in [0, 1].

    A term's weight is ``log(1 + total / df)``: a name found in 2 of 1,000
    memories outweighs a word found in 500. The score is the matched share of
    the query's total weight; ties go to the newer memory.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> a = Memory(id="aaaaaaaa", text="x", scope="user:u", created_at=t)
    >>> [(m.id, s) for m, s in rank({"Pune": [a], "2027": []}, total=10)]
    [('aaaaaaaa', 0.5)]
    """
    weights: dict[str, float] = {}
    for term, found in matches.items():
        df = len({m.id for m in found})
        weights[term] = math.log(1.0 + max(total, 1) / max(df, 1))
    total_weight = sum(weights.values()) or 1.0
    scores: dict[str, float] = {}
    by_id: dict[str, Memory] = {}
    for term, found in matches.items():
        for memory in {m.id: m for m in found}.values():
            by_id[memory.id] = memory
            scores[memory.id] = scores.get(memory.id, 0.0) + weights[term]
    ranked = sorted(by_id.values(), key=lambda m: (-scores[m.id], -m.created_at.timestamp(), m.id))
    return [(m, min(1.0, scores[m.id] / total_weight)) for m in ranked]


def search(
    cols: layout.ScopeCollections,
    scope: Scope,
    terms: Sequence[str],
    k: int,
    *,
    where: dict[str, Any] | None = None,
) -> list[Hit]:
    """The ``k`` active memories of ``cols`` that best match ``terms`` (see ``rank``),
    among those matching the Chroma filter ``where``, if given.

    A term is matched whole-word and case-insensitively; an 8-hex-digit term
    also finds the memory with that id.
    """
    if not terms:
        return []
    total = cols.active.count()
    # Ids first (cheap), records once for all terms: Chroma's cost is in reading
    # documents, and a name matches hundreds of them in a long conversation.
    ids_of: dict[str, list[str]] = {}
    for term in terms:
        where_document: Any = contains_filter(term)  # chromadb's WhereDocument type is too narrow
        ids = cols.active.get(where=where, where_document=where_document, include=[])["ids"]
        if not too_common(len(ids), total):
            ids_of[term] = ids
        if _ID.match(term):
            ids_of.setdefault(term, []).append(term)
    union = list(dict.fromkeys(i for ids in ids_of.values() for i in ids))
    records = (
        {v.memory.id: v.memory for v in fetch(cols.active, scope, ids=union, where=where)}
        if union
        else {}
    )
    matches: dict[str, list[Memory]] = {}
    for term, ids in ids_of.items():
        whole_word = re.compile(term_pattern(term))
        held = [records[i] for i in dict.fromkeys(ids) if i in records]
        matches[term] = [m for m in held if m.id == term or whole_word.search(m.text)]
    return [Hit(m, score) for m, score in rank(matches, total=total)[:k]]
