"""Real conversational text at scale: distinct LongMemEval-S turns, their vectors cached.

The scale benchmarks need scopes of 1k to 100k memories that look like what users store:
chat turns about everything, never ``"memory {i}"`` strings and never a few texts repeated.
LongMemEval-S's haystacks hold 19,133 distinct sessions of real chat (ShareGPT, UltraChat and
the benchmark's own simulated users). This module turns them into one stream of distinct turns:

- sessions in a fixed pseudo-random order (by a hash of their id), each session's turns in
  their order, so a scope reads like one person's threads, session after session;
- every user turn, and the assistant turns of at most ``MAX_REPLY_CHARS`` characters (longer
  replies are essays; MiniLM reads only their first 256 tokens anyway);
- whitespace folded, control characters removed, and every text kept once: a text seen
  earlier in the stream is skipped, however often the data repeats it.

That gives about 110k distinct turns. The questions are LongMemEval-S's own (500 real
questions about those sessions). LongMemEval-S is the project's held-out acceptance set:
this module reads it for latency at scale, and nothing is tuned to it.

:class:`VectorCache` keeps the turns' vectors (from the shipped embedder) in a cache folder,
so a second run embeds only what the first did not: the full stream takes about 20 minutes
to embed once on 2 cores.

>>> rows = [{"role": "user", "content": "I moved to  Pune."}, {"role": "assistant",
...         "content": "Nice!"}, {"role": "user", "content": "I moved to Pune."}]
>>> [t.text for t in session_turns("s1", rows, set())]
['I moved to Pune.', 'Nice!']
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks.datasets import DATASETS, missing_data, parse_lme_date
from langgraph_memory.store import strip_controls

__all__ = [
    "MAX_REPLY_CHARS",
    "RealCorpus",
    "RealTurn",
    "VectorCache",
    "load_corpus",
    "session_turns",
]

#: Assistant replies longer than this are left out of the stream (see the module docstring).
MAX_REPLY_CHARS = 800
#: Longest text kept: the store refuses more than 32,768 characters.
MAX_CHARS = 32_000
#: The cache's layout; bump it when the stream's order or its texts change.
CACHE_VERSION = 1


@dataclass(frozen=True)
class RealTurn:
    """One distinct turn of the stream: its text, who said it, where it was said."""

    text: str
    role: str  # "user" or "assistant"
    session: str  # the LongMemEval session id (the thread)
    index: int  # the turn's place in its session
    at: float  # the session's date, epoch seconds (0 when the data has none)


@dataclass(frozen=True)
class RealCorpus:
    """The stream of distinct turns and LongMemEval-S's questions (texts only)."""

    turns: tuple[RealTurn, ...]
    questions: tuple[str, ...]


def _fold(text: str) -> str:
    return " ".join(strip_controls(text).split())[:MAX_CHARS]


def session_turns(
    session: str, rows: Sequence[Mapping[str, Any]], seen: set[str], at: float = 0.0
) -> Iterator[RealTurn]:
    """The distinct turns of one session not in ``seen`` (which they join), in order."""
    for i, row in enumerate(rows):
        text = _fold(str(row.get("content", "")))
        role = str(row.get("role", ""))
        if not text or text in seen or role not in ("user", "assistant"):
            continue
        if role == "assistant" and len(text) > MAX_REPLY_CHARS:
            continue
        seen.add(text)
        yield RealTurn(text, role, session, i, at)


def _order(session_id: str) -> bytes:
    return hashlib.blake2b(session_id.encode("utf-8"), digest_size=8).digest()


def load_corpus(data: Path) -> RealCorpus:
    """The stream of distinct turns of LongMemEval-S under the data folder ``data``."""
    path = data / DATASETS["longmemeval-s"]
    missing = missing_data(data, DATASETS["longmemeval-s"])
    if missing:
        raise FileNotFoundError(missing)
    with lzma.open(path, "rt", encoding="utf-8") as f:
        raw = json.load(f)
    dates: dict[str, float] = {}
    for q in raw["questions"]:
        for sid, date in zip(q["haystack_session_ids"], q["haystack_dates"], strict=True):
            dates.setdefault(sid, parse_lme_date(date).timestamp())
    seen: set[str] = set()
    turns: list[RealTurn] = []
    for sid in sorted(raw["sessions"], key=_order):
        turns.extend(session_turns(sid, raw["sessions"][sid], seen, dates.get(sid, 0.0)))
    questions = tuple(dict.fromkeys(_fold(str(q["question"])) for q in raw["questions"]))
    return RealCorpus(tuple(turns), questions)


class VectorCache:
    """The shipped embedder's vectors of texts, kept in a folder between runs.

    One ``.npy`` of float32 rows and a JSON list of the texts' hashes, per embedder name.
    ``vectors`` embeds (in batches, length-sorted) only what the folder lacks.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> cache = VectorCache(Path(tempfile.mkdtemp()), DeterministicFakeEmbedding(size=4), "fake")
    >>> a = cache.vectors(["x", "y"]); b = VectorCache(cache.folder, None, "fake").vectors(["y"])
    >>> bool((a[1] == b[0]).all())
    True
    """

    def __init__(self, folder: Path, model: Embeddings | None, name: str) -> None:
        self.folder = folder
        self.model = model
        stem = f"real_text-v{CACHE_VERSION}-{hashlib.sha1(name.encode()).hexdigest()[:10]}"
        self._rows = folder / f"{stem}.npy"
        self._keys = folder / f"{stem}.json"
        self._index: dict[str, int] = {}
        self._data = np.zeros((0, 0), dtype=np.float32)
        if self._rows.exists() and self._keys.exists():
            keys = json.loads(self._keys.read_text(encoding="utf-8"))
            self._data = np.load(self._rows)
            self._index = {k: i for i, k in enumerate(keys[: len(self._data)])}

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()

    def vectors(self, texts: Sequence[str], *, batch: int = 256, log: Any = None) -> np.ndarray:
        """One float32 row per text, embedding (and saving) those not cached yet."""
        missing = list(dict.fromkeys(t for t in texts if self._key(t) not in self._index))
        if missing:
            if self.model is None:
                raise LookupError(f"{len(missing)} texts are not cached and no model is given")
            missing.sort(key=len)  # MiniLM is far faster on batches of like lengths
            started = time.perf_counter()
            step = batch * 40  # saved every step: a stopped run keeps what it embedded
            for at in range(0, len(missing), step):
                part = missing[at : at + step]
                new = np.concatenate(
                    [
                        np.asarray(self.model.embed_documents(part[b : b + batch]), np.float32)
                        for b in range(0, len(part), batch)
                    ]
                )
                base = len(self._index)
                self._data = new if not base else np.concatenate([self._data, new])
                for i, t in enumerate(part):
                    self._index[self._key(t)] = base + i
                self._save()
                if log:
                    log(
                        f"embedded {at + len(part):,}/{len(missing):,} texts "
                        f"({time.perf_counter() - started:.0f} s)"
                    )
        return self._data[[self._index[self._key(t)] for t in texts]]

    def _save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        keys = sorted(self._index, key=self._index.__getitem__)
        tmp = self._rows.with_suffix(".tmp.npy")
        np.save(tmp, self._data)
        os.replace(tmp, self._rows)
        self._keys.write_text(json.dumps(keys), encoding="utf-8")


def default_cache() -> Path:
    """Where the vectors are kept unless told: ``$XDG_CACHE_HOME`` or ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "langgraph-memory-kit" / "bench"


def main(argv: Sequence[str] | None = None) -> int:
    """Embed the first ``--n`` turns of the stream into the cache (the scale benchmark does
    this itself; run it ahead to fill the cache)."""
    from langgraph_memory.embeddings import LocalMiniLM, embedder_name

    p = argparse.ArgumentParser(description=main.__doc__)
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--cache", type=Path, default=default_cache())
    p.add_argument("--n", type=int, default=0, help="turns to embed (0: all)")
    args = p.parse_args(argv)
    corpus = load_corpus(args.data)
    turns = corpus.turns[: args.n or None]
    print(f"{len(corpus.turns):,} distinct turns, {len(corpus.questions)} questions")
    model = LocalMiniLM()
    cache = VectorCache(args.cache, model, embedder_name(model))
    cache.vectors([t.text for t in turns], log=lambda m: print(m, file=sys.stderr, flush=True))
    print(f"{len(turns):,} vectors cached in {args.cache}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
