"""Which lexical index prunes: FTS5 as shipped, FTS5 with fewer query terms, tantivy, bm25s.

The store keeps one BM25 index per scope (``store.lexical.index.LexicalIndex``, SQLite
FTS5). Its query ``bm25(doc) ... MATCH 'a OR b OR c' ORDER BY s LIMIT k`` scores every
posting of every query term, so a read's lexical cost grows with the postings of the
common words of its query. This script measures, on real distinct text, what each way of
answering the same query costs and what it finds:

- ``fts5-now``: the product's ``LexicalIndex`` itself (``put`` of ``Entry`` records,
  ``search(terms, k=50)``: the read asks for 50 candidates);
- ``fts5-df<p>``: the same index, query terms held by more than ``p`` % of the scope's
  records left out (today's cut is 50 %);
- ``fts5-split<p>``: a MaxScore-style split in SQL: the ``POOL`` best records by the
  rare terms (df share <= ``p`` %) alone, rescored in Python by BM25 over every query
  term (tf and length read from the candidates' rows; FTS5's own idf, k1, b and average
  length), top k kept; ``fts5-split<p>x`` runs today's query instead whenever the split
  cannot prove its top k exact (a record outside the pool could still outscore the
  k-th);
- ``tantivy``: one index directory per scope, the same documents, an OR of term queries
  (block-max WAND top-k), each single-record add committed and reloaded (as the store
  writes one turn at a time);
- ``bm25s``: built once from the documents (it has no incremental add: every write
  would rebuild the scope).

Every engine gets the same documents, the very bodies the product's index holds (an
episode's terms twice, those of the two turns before and after it in its thread), made by
the product's tokeniser (``langgraph_memory.text.tokenize``), and the same query terms:
only the engines differ.

Scale: scopes of the first 1k, 10k and 100k turns of ``benchmarks.real_text`` (distinct
LongMemEval-S turns, each session a thread), queried by its 498 real questions: query p50
and p95 at k=50, build time, single-record add cost, reload cost, disk and RSS growth, and
how much of ``fts5-now``'s top 50 each engine returns (overlap@50).

Recall (BM25 alone, through the product's index): LoCoMo, one index per conversation over
its turns as the ``raw`` ingest writes them, evidence recall in the top 10 over categories
1-4; LongMemEval-S, one index per question's haystack (user turns), recall@10 of the
``has_answer`` turns, on a sample of questions.

Run (tantivy and bm25s are not dependencies of the package; install them where you run
this)::

    pip install tantivy bm25s
    python -m benchmarks.lexical_choice --data ../shared/data --out lexical_choice.json

``--stemmers`` compares instead how the store makes its terms (no stemming, a light
suffix stripper, Porter) by what BM25 alone finds on LoCoMo.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.datasets import DATASETS, iter_longmemeval, load_locomo
from benchmarks.ingest import TURN_GAP, lme_corpus, lme_gold_turns, turn_text
from langgraph_memory.store.lexical import (
    COMMON_MIN_RECORDS,
    COMMON_SHARE,
    K1,
    Entry,
    LexicalIndex,
)
from langgraph_memory.text import date_words, tokenize

K = 10
#: What a read asks the lexical index for.
READ_K = 50
#: FTS5's ``bm25()`` length normalisation.
B = 0.75
#: How many records the rare terms of ``fts5-split`` pass on to be rescored.
POOL = 200
#: Not an engine: the df look-ups alone.
LOOKUPS = "fts5-df-lookups"
#: The product's search as it ships: BM25 from postings in memory (``lexical/postings.py``).
SHIPPED = "postings"

Search = Callable[[Sequence[str], int], list[str]]


# -- FTS5: the product's index, and ways to ask it less ------------------------------------


def _idf(total: int, df: int) -> float:
    value = math.log((total - df + 0.5) / (df + 0.5))
    return value if value > 0 else 1e-6


def _varint(blob: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``at``: its value and the offset after it."""
    value = 0
    for i in range(8):
        byte = blob[at + i]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + i + 1
    return (value << 8) | blob[at + 8], at + 9


def average_length(index: LexicalIndex) -> float:
    """FTS5's average document length, from its averages record (row count, token total).

    >>> index = LexicalIndex(None)
    >>> index.put([Entry("a", "x y"), Entry("b", "x y z w")])
    >>> average_length(index)
    3.0
    """
    with index.lock:
        blob = index._con.execute("SELECT block FROM doc_data WHERE id = 1").fetchone()[0]
    rows, at = _varint(blob, 0)
    tokens, _ = _varint(blob, at)
    return tokens / rows if rows else 0.0


def _kept(index: LexicalIndex, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
    """The scope's size and the df of each query term ``search`` keeps (today's cut)."""
    total = len(index)
    df = {t: index._document_frequency(t, None) for t in dict.fromkeys(t for t in terms if t)}
    common = total >= COMMON_MIN_RECORDS
    return total, {t: d for t, d in df.items() if d and not (common and d > COMMON_SHARE * total)}


def _top(index: LexicalIndex, kept: Sequence[str], k: int) -> list[tuple[int, float]]:
    """Today's query: rowids and bm25 (negative) of the ``k`` best over ``kept``."""
    match = " OR ".join(f'"{t}"' for t in kept)
    sql = "SELECT rowid, bm25(doc) AS s FROM doc WHERE doc MATCH ? ORDER BY s LIMIT ?"
    with index.lock:
        return index._con.execute(sql, (match, k)).fetchall()


def _ids(index: LexicalIndex, rowids: Sequence[int]) -> list[str]:
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    with index.lock:
        found = dict(index._con.execute(f"SELECT n, id FROM rec WHERE n IN ({marks})", rowids))
    return [found[n] for n in rowids]


def fts5_now(index: LexicalIndex) -> Search:
    """FTS5's own ranking, as ``LexicalIndex.search`` ranked before postings (0.3.x)."""

    def search(terms: Sequence[str], k: int) -> list[str]:
        kept = list(_kept(index, terms)[1])
        return _ids(index, [n for n, _ in _top(index, kept, k)]) if kept else []

    return search


def postings(index: LexicalIndex) -> Search:
    """What ships: ``LexicalIndex.search`` ranking from its postings in memory, built
    here up front (the store builds them in a thread at a big scope's first search)."""
    index.postings_from = 0  # every size, so recall is measured through them too
    index.build_postings()
    return lambda terms, k: [i for i, _ in index.search(terms, k)]


def _lookups(index: LexicalIndex) -> Search:
    """Only the df look-ups every FTS5 variant starts with (their share of its cost)."""
    return lambda terms, k: [t for t in _kept(index, terms)[1] if not t]


def fts5_df(index: LexicalIndex, share: float) -> Search:
    """Today's query with the terms held by more than ``share`` of the records left out."""

    def search(terms: Sequence[str], k: int) -> list[str]:
        total, df = _kept(index, terms)
        kept = [t for t, d in df.items() if total < COMMON_MIN_RECORDS or d <= share * total]
        return _ids(index, [n for n, _ in _top(index, kept, k)]) if kept else []

    return search


@dataclass
class SplitStats:
    queries: int = 0
    split: int = 0  # queries that had both rare and common terms
    proven: int = 0  # ... whose top k the bound proved exact
    fallback: int = 0  # ... that ran today's query instead (exact mode)


def fts5_split(index: LexicalIndex, share: float, *, exact: bool, stats: SplitStats) -> Search:
    """Rare terms pick ``POOL`` candidates; BM25 over every term ranks them.

    A record outside the pool scores at most the pool's last rare-terms score (or 0 when
    the pool holds every match of the rare terms) plus the common terms' bound
    (``idf * (k1 + 1)`` each). When the k-th rescored record beats that, the top k is
    today's exactly; otherwise ``exact`` runs today's query.
    """
    avgdl: list[float] = []

    def search(terms: Sequence[str], k: int) -> list[str]:
        stats.queries += 1
        total, df = _kept(index, terms)
        rare = [t for t, d in df.items() if d <= share * total]
        common = [t for t in df if t not in rare]
        if not rare or not common or total < COMMON_MIN_RECORDS:
            return _ids(index, [n for n, _ in _top(index, list(df), k)]) if df else []
        stats.split += 1
        pool = _top(index, rare, max(POOL, k))
        if not avgdl:
            avgdl.append(average_length(index))
        idf = {t: _idf(total, df[t]) for t in df}
        marks = ",".join("?" * len(pool))
        with index.lock:  # the content table itself: through ``doc`` is twice as slow
            bodies = index._con.execute(
                f"SELECT id, c0 FROM doc_content WHERE id IN ({marks})", [n for n, _ in pool]
            ).fetchall()
        scored = []
        for n, body in bodies:
            words = body.split()
            norm = K1 * (1 - B + B * len(words) / avgdl[0])
            score = 0.0
            for t, weight in idf.items():
                tf = words.count(t)
                if tf:
                    score += weight * tf * (K1 + 1) / (tf + norm)
            scored.append((score, n))
        scored.sort(reverse=True)
        best = scored[:k]
        outside = (-pool[-1][1] if len(pool) >= max(POOL, k) else 0.0) + sum(
            idf[t] * (K1 + 1) for t in common
        )
        if len(best) == k and best[-1][0] >= outside:
            stats.proven += 1
        elif exact:
            stats.fallback += 1
            return _ids(index, [n for n, _ in _top(index, list(df), k)])
        return _ids(index, [n for _, n in best])

    return search


def bodies_of(index: LexicalIndex) -> list[tuple[str, str]]:
    """Each record's id and the document FTS5 holds for it (what every engine indexes)."""
    with index.lock:
        return index._con.execute(
            "SELECT rec.id, doc.body FROM doc JOIN rec ON rec.n = doc.rowid ORDER BY rec.n"
        ).fetchall()


# -- the other engines, on the same documents ----------------------------------------------


class Tantivy:
    """One tantivy index (a directory) over the documents; term-frequency postings."""

    def __init__(self, folder: Path, rows: Sequence[tuple[str, str]]) -> None:
        import tantivy  # type: ignore[import-not-found,import-untyped,unused-ignore]  # optional: not a dependency

        self.tantivy = tantivy
        self.folder = folder
        before, started = rss_mb(), time.perf_counter()
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        builder.add_text_field("body", stored=False, index_option="freq")
        self.schema = builder.build()
        folder.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(folder))
        self.writer: Any = self.index.writer(heap_size=50_000_000, num_threads=1)
        for record_id, body in rows:
            self.writer.add_document(tantivy.Document(id=record_id, body=body))
        self.writer.commit()
        self.writer.wait_merging_threads()
        self.writer = self.index.writer(heap_size=15_000_000, num_threads=1)
        self.index.reload()
        self.build_s, self.ram_mb = time.perf_counter() - started, rss_mb() - before

    def add(self, record_id: str, body: str) -> None:
        """One record, committed and visible when it returns."""
        self.writer.add_document(self.tantivy.Document(id=record_id, body=body))
        self.writer.commit()
        self.index.reload()

    def reopen(self) -> None:
        self.writer.wait_merging_threads()
        self.writer = None
        self.index = self.tantivy.Index.open(str(self.folder))
        self.index.reload()

    def search(self, terms: Sequence[str], k: int, *, like_fts5: bool = False) -> list[str]:
        """The ``k`` best by tantivy's BM25; ``like_fts5``: weighed as FTS5 weighs (each
        term boosted by FTS5's idf over tantivy's, terms in over half the records left
        out, as ``LexicalIndex.search`` does)."""
        tv = self.tantivy
        searcher = self.index.searcher()
        total = searcher.num_docs
        should = []
        for t in dict.fromkeys(terms):
            query = tv.Query.term_query(self.schema, "body", t, index_option="freq")
            if like_fts5:
                df = searcher.doc_freq("body", t)
                if not df or (total >= COMMON_MIN_RECORDS and df > COMMON_SHARE * total):
                    continue
                own = math.log(1 + (total - df + 0.5) / (df + 0.5))
                query = tv.Query.boost_query(query, _idf(total, df) / own)
            should.append((tv.Occur.Should, query))
        if not should:
            return []
        hits = searcher.search(tv.Query.boolean_query(should), k).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    def close(self) -> None:
        if self.writer is not None:
            self.writer.wait_merging_threads()


class Bm25s:
    """bm25s over the documents (k1 1.2, b 0.75), built in one go."""

    def __init__(self, rows: Sequence[tuple[str, str]]) -> None:
        import bm25s  # type: ignore[import-not-found,import-untyped,unused-ignore]  # optional: not a dependency

        before, started = rss_mb(), time.perf_counter()
        self.ids = [i for i, _ in rows]
        self.model = bm25s.BM25(k1=K1, b=B)
        self.model.index([body.split() for _, body in rows], show_progress=False)
        self.vocab = self.model.vocab_dict
        self.build_s, self.ram_mb = time.perf_counter() - started, rss_mb() - before

    def search(self, terms: Sequence[str], k: int) -> list[str]:
        known = [t for t in dict.fromkeys(terms) if t in self.vocab]
        if not known:
            return []
        docs, scores = self.model.retrieve(
            [known], k=min(k, len(self.ids)), show_progress=False, n_threads=1
        )
        return [self.ids[d] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


def searches(
    index: LexicalIndex, folder: Path, shares: Sequence[float], engines: Sequence[str]
) -> tuple[dict[str, Search], dict[str, Any], dict[str, SplitStats]]:
    """Every engine's search over ``index``'s documents; the built engines; split stats."""
    found: dict[str, Search] = {
        "fts5-now": fts5_now(index),
        LOOKUPS: _lookups(index),
        SHIPPED: postings(index),
    }
    stats: dict[str, SplitStats] = {}
    for share in shares:
        found[f"fts5-df{share:g}"] = fts5_df(index, share / 100)
    for share in shares:
        for exact in (False, True):
            name = f"fts5-split{share:g}{'x' if exact else ''}"
            stats[name] = SplitStats()
            found[name] = fts5_split(index, share / 100, exact=exact, stats=stats[name])
    built: dict[str, Any] = {}
    rows = bodies_of(index) if {"tantivy", "bm25s"} & set(engines) else []
    if "tantivy" in engines:
        built["tantivy"] = Tantivy(folder / "tantivy", rows)
        found["tantivy"] = built["tantivy"].search
        found["tantivy-fts5"] = functools.partial(built["tantivy"].search, like_fts5=True)
    if "bm25s" in engines:
        built["bm25s"] = Bm25s(rows)
        found["bm25s"] = built["bm25s"].search
    return found, built, stats


# -- the stemmer comparison (FTS5, one table per conversation) ---------------------------


class Fts5:
    """One FTS5 table per scope in one SQLite file."""

    name = "sqlite-fts5"

    def __init__(self, folder: Path) -> None:
        self.con = sqlite3.connect(folder / "lexical.sqlite3", isolation_level=None)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=NORMAL")

    def create(self, scope: int, tokenizer: str = "unicode61") -> None:
        self.con.execute(
            f"CREATE VIRTUAL TABLE s{scope} USING fts5(id UNINDEXED, doc, tokenize='{tokenizer}')"
        )

    def add(self, scope: int, rows: Sequence[tuple[str, str]]) -> None:
        with self.con:  # one transaction: committed and visible when it returns
            self.con.execute("BEGIN")
            self.con.executemany(f"INSERT INTO s{scope}(id, doc) VALUES (?, ?)", rows)

    def search(self, scope: int, words: Sequence[str]) -> list[str]:
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        sql = f"SELECT id FROM s{scope} WHERE s{scope} MATCH ? ORDER BY rank LIMIT {K}"
        return [row[0] for row in self.con.execute(sql, (match,))]

    def close(self) -> None:
        self.con.close()


#: The light suffix stripper the retired ``best_retrieval`` recipe used, longest first.
LIGHT_SUFFIXES = ("ingly", "edly", "ing", "ed", "ies", "es", "s", "ly")


def light_tokens(text: str) -> list[str]:
    """The store's words, each with at most one suffix of ``LIGHT_SUFFIXES`` stripped
    (at least 3 letters kept; "ies" becomes "y").

    >>> light_tokens("Painting parties quickly")
    ['paint', 'party', 'quick']
    """
    from langgraph_memory.store import tokenize

    out = []
    for word in tokenize(text, stemmed=False):
        for suffix in LIGHT_SUFFIXES if word.isalpha() else ():
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
                break
        out.append(word)
    return out


def stemmer_recall(data: Path) -> dict[str, float]:
    """BM25 alone (FTS5, one table per conversation) on LoCoMo: mean evidence recall in
    the top 10 over categories 1-4, turns as records (text, photo caption and the
    session's date words, no speaker), for three ways of making terms: the store's
    words unstemmed, a light suffix stripper, and the store's tokeniser (Porter)."""
    from langgraph_memory.store import date_words, tokenize

    tokenizers: dict[str, Callable[[str], list[str]]] = {
        "none": lambda text: tokenize(text, stemmed=False),
        "light": light_tokens,
        "porter (the store's)": tokenize,
    }
    convs = load_locomo(data / "locomo" / "locomo10.json")
    out = {}
    for name, tokens in tokenizers.items():
        with tempfile.TemporaryDirectory() as tmp:
            engine = Fts5(Path(tmp))
            recall = []
            for n, conv in enumerate(convs):
                engine.create(n, tokenizer="ascii")
                engine.add(
                    n,
                    [
                        (
                            t.dia_id,
                            " ".join(tokens(f"{t.text} {t.caption or ''} {date_words(s.date)}")),
                        )
                        for s in conv.sessions
                        for t in s.turns
                    ],
                )
                for q in conv.questions:
                    asked = list(dict.fromkeys(tokens(q.question)))
                    if q.category in (1, 2, 3, 4) and q.evidence:
                        got = set(engine.search(n, asked)) if asked else set()
                        recall.append(len(got & set(q.evidence)) / len(q.evidence))
            engine.close()
        out[name] = float(np.mean(recall))
    return out


# -- scale: real distinct text -------------------------------------------------------------


def spread(seconds: Sequence[float]) -> dict[str, float]:
    """p50, p95 and count of timings in seconds, in milliseconds.

    >>> spread([0.001, 0.002, 0.003])["p50_ms"]
    2.0
    """
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {
        "p50_ms": float(np.median(ms)),
        "p95_ms": float(np.percentile(ms, 95)),
        "n": len(ms),
    }


def rss_mb() -> float:
    """This process's resident memory (Linux), MB; 0 elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _utc(seconds: float) -> Any:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(seconds, timezone.utc)


def real_entries(data: Path, n: int) -> tuple[list[Entry], list[list[str]]]:
    """The first ``n`` turns of the real-text stream as the store indexes an episode (its
    text and date words, its session as its thread), and the questions' terms."""
    from benchmarks.real_text import load_corpus

    corpus = load_corpus(data)
    entries = []
    for i, t in enumerate(corpus.turns[:n]):
        at = t.at + t.index * TURN_GAP.total_seconds()
        words = tokenize(f"{t.text} {date_words(_utc(at))}")
        entries.append(Entry(f"t{i:06d}", " ".join(words), episodic=True, thread=t.session, at=at))
    queries = [list(dict.fromkeys(tokenize(q))) for q in corpus.questions]
    return entries, [q for q in queries if q]


def _disk(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def measure_scale(
    entries: Sequence[Entry],
    queries: Sequence[Sequence[str]],
    size: int,
    *,
    engines: Sequence[str],
    shares: Sequence[float],
    singles: int,
    folder: Path,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Build every engine over the first ``size`` entries; time queries, adds, reloads."""
    out: dict[str, Any] = {"size": size, "engines": {}}
    (folder / "lex").mkdir(parents=True)
    path = folder / "lex" / "index.sqlite3"
    before = rss_mb()
    index = LexicalIndex(path)
    started = time.perf_counter()
    for at in range(0, size, 1000):
        index.put(list(entries[at : min(size, at + 1000)]))
    fts_build = time.perf_counter() - started
    fts_ram = rss_mb() - before
    log(f"{size}: fts5 built in {fts_build:.1f} s")
    found, built, stats = searches(index, folder, shares, engines)
    log(f"{size}: others built")
    tops: dict[str, list[list[str]]] = {}
    for name, search in found.items():
        for terms in queries[:10]:
            search(terms, READ_K)
        for s in stats.values():
            s.queries = s.split = s.proven = s.fallback = 0
        seconds, tops[name] = [], []
        for terms in queries:
            start = time.perf_counter()
            tops[name].append(search(terms, READ_K))
            seconds.append(time.perf_counter() - start)
        row: dict[str, Any] = {"query": spread(seconds)}
        if name in stats:
            row["split"] = vars(stats[name]).copy()
        out["engines"][name] = row
        log(f"{size}: {name} p50 {row['query']['p50_ms']:.2f} ms")
    for name, lists in tops.items():
        out["engines"][name]["overlap50"] = float(
            np.mean(
                [
                    len(set(a) & set(b)) / len(b) if b else 1.0
                    for a, b in zip(lists, tops["fts5-now"], strict=True)
                ]
            )
        )
    fts = out["engines"]["fts5-now"]
    fts["build_s"] = fts_build
    fts["ram_mb"] = fts_ram
    # Single-record adds: the next turns, one put each (an episode re-indexes the two
    # before it in its thread); tantivy rewrites the same documents, one commit each.
    adds: dict[str, list[float]] = {"fts5-now": [], "tantivy": []}
    for e in entries[size : size + singles]:
        start = time.perf_counter()
        index.put([e])
        adds["fts5-now"].append(time.perf_counter() - start)
        if "tantivy" in built:
            with index.lock:
                rows = index._con.execute(
                    "SELECT rec.id, doc.body FROM rec JOIN doc ON doc.rowid = rec.n "
                    "WHERE rec.thread = ? ORDER BY rec.at DESC, rec.n DESC LIMIT 3",
                    (e.thread,),
                ).fetchall()
            tv = built["tantivy"]
            start = time.perf_counter()
            for record_id, body in rows:
                tv.writer.delete_documents_by_term("id", record_id)
                tv.writer.add_document(tv.tantivy.Document(id=record_id, body=body))
            tv.writer.commit()
            tv.index.reload()
            adds["tantivy"].append(time.perf_counter() - start)
    fts["single_add"] = spread(adds["fts5-now"])
    index.close()
    fts["disk_mb"] = _disk(folder / "lex") / 1e6
    start = time.perf_counter()
    index = LexicalIndex(path)
    index.search(queries[0], READ_K)
    fts["reload_ms"] = (time.perf_counter() - start) * 1000
    index.close()
    if "tantivy" in built:
        tv = built["tantivy"]
        row = out["engines"]["tantivy"]
        row.update(build_s=tv.build_s, ram_mb=tv.ram_mb, single_add=spread(adds["tantivy"]))
        start = time.perf_counter()
        tv.reopen()
        tv.search(queries[0], READ_K)
        row["reload_ms"] = (time.perf_counter() - start) * 1000
        tv.close()
        row["disk_mb"] = _disk(folder / "tantivy") / 1e6
    if "bm25s" in built:
        row = out["engines"]["bm25s"]
        row.update(build_s=built["bm25s"].build_s, ram_mb=built["bm25s"].ram_mb)
        row["single_add_note"] = "no incremental add: a write rebuilds (build_s)"
    return out


# -- recall: BM25 alone, through the product's index ---------------------------------------


def _recall(got: Sequence[str], gold: set[str]) -> float:
    return len(set(got[:K]) & gold) / len(gold)


def locomo_recall(data: Path, engines: Sequence[str], shares: Sequence[float]) -> dict[str, float]:
    """Each engine's mean evidence recall@10 on LoCoMo (categories 1-4), one index per
    conversation, turns as ``ingest`` raw mode writes them (episodes, no thread)."""
    convs = load_locomo(data / "locomo" / "locomo10.json")
    recall: dict[str, list[float]] = {}
    for conv in convs:
        index = LexicalIndex(None)
        index.put(
            [
                Entry(
                    t.dia_id,
                    " ".join(tokenize(f"{turn_text(t)} {date_words(s.date + TURN_GAP * i)}")),
                    episodic=True,
                )
                for s in conv.sessions
                for i, t in enumerate(s.turns)
            ]
        )
        with tempfile.TemporaryDirectory() as tmp:
            found, built, _ = searches(index, Path(tmp), shares, engines)
            for q in conv.questions:
                if q.category not in (1, 2, 3, 4) or not q.evidence:
                    continue
                terms = list(dict.fromkeys(tokenize(q.question)))
                for name, search in found.items():
                    if name == LOOKUPS:
                        continue
                    got = search(terms, READ_K) if terms else []
                    recall.setdefault(name, []).append(_recall(got, set(q.evidence)))
            if "tantivy" in built:
                built["tantivy"].close()
        index.close()
    return {name: float(np.mean(values)) for name, values in recall.items()}


def lme_recall(
    data: Path, engines: Sequence[str], shares: Sequence[float], sample: int
) -> dict[str, Any]:
    """Each engine's mean recall@10 of the ``has_answer`` user turns on LongMemEval-S, one
    index per question's haystack, on every n-th question with evidence (``sample`` in all)."""
    questions = [
        q
        for q in iter_longmemeval(data / DATASETS["longmemeval-s"])
        if not q.abstention and lme_gold_turns(q)
    ]
    step = max(1, len(questions) // sample)
    recall: dict[str, list[float]] = {}
    for q in questions[::step][:sample]:
        index = LexicalIndex(None)
        turns = {  # a haystack may hold a session twice: each turn indexed once
            tid: f"{s.turns[i].content} {date_words(s.date + TURN_GAP * i)}"
            for s, i, tid in lme_corpus(q)
        }
        index.put([Entry(tid, " ".join(tokenize(t)), episodic=True) for tid, t in turns.items()])
        gold = lme_gold_turns(q)
        terms = list(dict.fromkeys(tokenize(q.question)))
        with tempfile.TemporaryDirectory() as tmp:
            found, built, _ = searches(index, Path(tmp), shares, engines)
            for name, search in found.items():
                if name == LOOKUPS:
                    continue
                got = search(terms, READ_K) if terms else []
                recall.setdefault(name, []).append(_recall(got, gold))
            if "tantivy" in built:
                built["tantivy"].close()
        index.close()
    out: dict[str, Any] = {name: float(np.mean(v)) for name, v in recall.items()}
    out["questions"] = len(next(iter(recall.values()), []))
    return out


def table(scale: Sequence[dict[str, Any]], recall: dict[str, Any]) -> str:
    lines = [
        "| engine | records | query p50 ms | p95 ms | overlap@50 with fts5-now | build s | "
        "single add p50 ms | reload ms | disk MB | LoCoMo R@10 | LME-S R@10 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def num(row: dict[str, Any], key: str, fmt: str) -> str:
        value = row.get(key)
        return format(value, fmt) if isinstance(value, float | int) else "-"

    for result in scale:
        for name, r in result["engines"].items():
            add = r.get("single_add", {}).get("p50_ms")
            if name == "bm25s":
                add_text = f"rebuild {r['build_s'] * 1000:.0f}"
            else:
                same = "tantivy" if name.startswith("tantivy") else "fts5-now"
                add_text = f"{add:.2f}" if add is not None else f"(as {same})"
            overlap = "-" if name == LOOKUPS else f"{r['overlap50']:.3f}"
            extra = f" (exact {r['split']['proven']}/{r['split']['split']})" if "split" in r else ""
            lines.append(
                f"| {name} | {result['size']:,} | {r['query']['p50_ms']:.2f} | "
                f"{r['query']['p95_ms']:.2f} | {overlap}{extra} | "
                f"{num(r, 'build_s', '.1f')} | {add_text} | {num(r, 'reload_ms', '.0f')} | "
                f"{num(r, 'disk_mb', '.1f')} | "
                f"{num(recall.get('locomo', {}), name, '.4f')} | "
                f"{num(recall.get('longmemeval-s', {}), name, '.4f')} |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, help="write the raw results here as JSON")
    parser.add_argument("--engines", default="tantivy,bm25s", help="besides the FTS5 ones")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--shares", default="5,10,20", help="df cuts, percent of records")
    parser.add_argument("--singles", type=int, default=50, help="single-record adds timed")
    parser.add_argument("--lme", type=int, default=100, help="LongMemEval-S questions (0: none)")
    parser.add_argument("--skip", default="", help="parts to leave out: scale,locomo,lme")
    parser.add_argument(
        "--stemmers", action="store_true", help="compare stemmers by BM25 recall instead"
    )
    args = parser.parse_args(argv)
    if args.stemmers:
        stems = stemmer_recall(args.data)
        print("| terms | LoCoMo R@10, BM25 alone, categories 1-4 |\n| --- | --- |")
        print("\n".join(f"| {name} | {value:.3f} |" for name, value in stems.items()))
        if args.out:
            args.out.write_text(json.dumps({"stemmers": stems}, indent=2))
        return 0

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    engines = [e for e in args.engines.split(",") if e]
    shares = [float(s) for s in args.shares.split(",") if s]
    skip = set(args.skip.split(","))
    recall: dict[str, Any] = {}
    if "locomo" not in skip:
        recall["locomo"] = locomo_recall(args.data, engines, shares)
        log(f"locomo: {recall['locomo']}")
    if args.lme and "lme" not in skip:
        recall["longmemeval-s"] = lme_recall(args.data, engines, shares, args.lme)
        log(f"longmemeval-s: {recall['longmemeval-s']}")
    scale = []
    if "scale" not in skip:
        sizes = [int(s) for s in args.sizes.split(",")]
        entries, queries = real_entries(args.data, max(sizes) + args.singles)
        log(f"{len(entries):,} entries, {len(queries)} queries")
        for size in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                scale.append(
                    measure_scale(
                        entries,
                        queries,
                        size,
                        engines=engines,
                        shares=shares,
                        singles=args.singles,
                        folder=Path(tmp),
                        log=log,
                    )
                )
            if args.out:  # saved after each size: a stopped run keeps what it measured
                meta = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
                args.out.write_text(
                    json.dumps({"meta": meta, "scale": scale, "recall": recall}, indent=2)
                )
    print(table(scale, recall))
    if args.out:
        meta = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
        args.out.write_text(json.dumps({"meta": meta, "scale": scale, "recall": recall}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
