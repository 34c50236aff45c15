"""Which library for the per-scope lexical index: SQLite FTS5 against tantivy.

The store needs a BM25 index per scope that follows every write (one record at a time, as a
conversation is written) and whose query cost does not grow with the other scopes. This
script measures two real libraries on the same texts (LoCoMo turns, cycled to reach the
sizes) and the same queries (LoCoMo questions), in one run:

- **SQLite FTS5** through the standard ``sqlite3`` (one ``fts5`` table per scope, in one
  database file; ``bm25()`` ranking; WAL journal, ``synchronous=NORMAL``);
- **tantivy** (Python bindings of the Rust engine; one index directory per scope).

``bm25s`` is not measured: its index is built once from a whole corpus and has no
incremental add or delete, so every write would rebuild the scope's index.

For each it reports: the cost per record of a bulk build (one batch) and of single-record
adds (each committed and visible, as the store's writes are), query p50/p90 (k=10) on a
scope of 1k and of 10k records, and a 1k scope among 100 x 1k scopes against the same scope
alone (the ratio is what matters: the old ``$contains`` path took 124 vs 13 ms).

Run (tantivy is not a dependency of the package; install it where you run this)::

    pip install tantivy
    python -m benchmarks.lexical_choice --data ../shared/data --out lexical_choice.json

``--stemmers`` compares instead how the store makes its terms (no stemming, a light
suffix stripper, Porter) by what BM25 alone finds on LoCoMo.

Both engines tokenise with their defaults here (FTS5 ``unicode61``, tantivy ``default``),
and both queries are an OR of the question's words minus a few stop words: the engines'
costs are compared, not the store's tokeniser.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.datasets import load_locomo
from benchmarks.store_latency import summarize

K = 10
_WORD = re.compile(r"\w+")
_STOP = frozenset(
    """a an the and or but if of to in on at for with by from as is are was were be been do does
    did have has had i me my we you your he him his she her it its they them their this that what
    which who when where why how not no so can will would should could""".split()  # noqa: SIM905
)


def query_words(text: str) -> list[str]:
    """The distinct lower-cased words of a question, stop words out.

    >>> query_words("When did Caroline go to the LGBTQ support group?")
    ['caroline', 'go', 'lgbtq', 'support', 'group']
    """
    return list(dict.fromkeys(w for w in _WORD.findall(text.lower()) if w not in _STOP))


# -- the candidates ------------------------------------------------------------------------


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


class Tantivy:
    """One tantivy index (a directory) per scope."""

    name = "tantivy"

    def __init__(self, folder: Path) -> None:
        import tantivy  # type: ignore[import-not-found]  # optional: not a dependency

        self.tantivy = tantivy
        self.folder = folder
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        builder.add_text_field("doc", stored=False)
        self.schema = builder.build()
        self.indexes: dict[int, Any] = {}
        self.writers: dict[int, Any] = {}

    def create(self, scope: int) -> None:
        path = self.folder / f"s{scope}"
        path.mkdir()
        index = self.tantivy.Index(self.schema, path=str(path))
        self.indexes[scope] = index
        self.writers[scope] = index.writer(heap_size=15_000_000, num_threads=1)

    def add(self, scope: int, rows: Sequence[tuple[str, str]]) -> None:
        writer = self.writers[scope]
        for record_id, doc in rows:
            writer.add_document(self.tantivy.Document(id=record_id, doc=doc))
        writer.commit()
        self.indexes[scope].reload()  # committed and visible when it returns

    def search(self, scope: int, words: Sequence[str]) -> list[str]:
        index = self.indexes[scope]
        query = index.parse_query(" OR ".join(words), ["doc"])
        searcher = index.searcher()
        hits = searcher.search(query, K).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    def close(self) -> None:
        for writer in self.writers.values():
            writer.wait_merging_threads()


ENGINES: dict[str, Callable[[Path], Any]] = {"sqlite-fts5": Fts5, "tantivy": Tantivy}


# -- the measurements ----------------------------------------------------------------------


def texts_of(data: Path) -> tuple[list[str], list[list[str]]]:
    """LoCoMo turns (with image captions) and the word lists of its questions."""
    convs = load_locomo(data / "locomo" / "locomo10.json")
    texts = [
        t.text + (f" [shares a photo: {t.caption}]" if t.caption else "")
        for c in convs
        for s in c.sessions
        for t in s.turns
    ]
    questions = [query_words(q.question) for c in convs for q in c.questions]
    return texts, [q for q in questions if q]


def rows_for(texts: Sequence[str], scope: int, n: int) -> list[tuple[str, str]]:
    """``n`` records for a scope: turns cycled from an offset that depends on the scope."""
    start = (scope * 997) % len(texts)
    return [(f"{scope:03d}{i:06d}", texts[(start + i) % len(texts)]) for i in range(n)]


def time_queries(
    engine: Any, scope: int, queries: Sequence[Sequence[str]], n: int, warmup: int = 20
) -> dict[str, float]:
    for words in queries[:warmup]:
        engine.search(scope, words)
    seconds = []
    for words in queries[warmup : warmup + n]:
        start = time.perf_counter()
        engine.search(scope, words)
        seconds.append(time.perf_counter() - start)
    return summarize(seconds)


def measure(
    name: str,
    texts: Sequence[str],
    queries: Sequence[Sequence[str]],
    *,
    scopes: int,
    per_scope: int,
    big: int,
    singles: int,
    n_queries: int,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        engine = ENGINES[name](folder)
        # A 1k scope alone, built in one batch; then single-record adds on top of it.
        engine.create(0)
        rows = rows_for(texts, 0, per_scope)
        start = time.perf_counter()
        engine.add(0, rows)
        out["bulk_us_per_record"] = (time.perf_counter() - start) / len(rows) * 1e6
        adds = []
        for record in rows_for(texts, 999, singles):
            start = time.perf_counter()
            engine.add(0, [record])
            adds.append(time.perf_counter() - start)
        out["single_add"] = summarize(adds)
        out["scope_1k_alone"] = time_queries(engine, 0, queries, n_queries)
        # A 10k scope.
        engine.create(1)
        engine.add(1, rows_for(texts, 1, big))
        out["scope_10k"] = time_queries(engine, 1, queries, n_queries)
        # 99 more 1k scopes, then the first scope again (same queries, same records).
        for s in range(2, scopes + 1):
            engine.create(s)
            engine.add(s, rows_for(texts, s, per_scope))
        out["scope_1k_among"] = time_queries(engine, 0, queries, n_queries)
        alone = out["scope_1k_alone"]["p50_ms"]
        out["among_over_alone_p50"] = out["scope_1k_among"]["p50_ms"] / alone
        out["disk_bytes"] = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        engine.close()
        shutil.rmtree(folder, ignore_errors=True)
    return out


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


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| engine | bulk build µs/record | single add p50 ms | query p50 ms, 1k alone | "
        "10k | 1k among 100 x 1k | among / alone | disk MB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['bulk_us_per_record']:.1f} | {r['single_add']['p50_ms']:.3f} | "
            f"{r['scope_1k_alone']['p50_ms']:.3f} | {r['scope_10k']['p50_ms']:.3f} | "
            f"{r['scope_1k_among']['p50_ms']:.3f} | {r['among_over_alone_p50']:.2f} | "
            f"{r['disk_bytes'] / 1e6:.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, help="write the raw results here as JSON")
    parser.add_argument("--engines", default="sqlite-fts5,tantivy")
    parser.add_argument("--scopes", type=int, default=100)
    parser.add_argument("--per-scope", type=int, default=1000)
    parser.add_argument("--big", type=int, default=10000)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--stemmers", action="store_true", help="compare stemmers by BM25 recall instead"
    )
    args = parser.parse_args(argv)
    if args.stemmers:
        recall = stemmer_recall(args.data)
        print("| terms | LoCoMo R@10, BM25 alone, categories 1-4 |\n| --- | --- |")
        print("\n".join(f"| {name} | {value:.3f} |" for name, value in recall.items()))
        if args.out:
            args.out.write_text(json.dumps({"stemmers": recall}, indent=2))
        return 0
    texts, queries = texts_of(args.data)
    results = {}
    for name in args.engines.split(","):
        print(f"measuring {name} ...", file=sys.stderr)
        results[name] = measure(
            name,
            texts,
            queries,
            scopes=args.scopes,
            per_scope=args.per_scope,
            big=args.big,
            singles=args.singles,
            n_queries=args.queries,
        )
    meta = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
    print(table(results))
    if args.out:
        args.out.write_text(json.dumps({"meta": meta, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
