"""The best LoCoMo turn retrieval found without a model at query time (issue 5, item 3).

Recipe (each step measured on LoCoMo-10, evidence recall over categories 1-4, turns as units;
see the table in the report of issue 5):

1. **Documents**: each turn as ``"Speaker: text [shares a photo: caption]"`` (the text
   :func:`benchmarks.ingest.turn_text` stores, so a store's vectors can be reused).
2. **Dense**: cosine between the turn vectors (all-MiniLM-L6-v2, :class:`LocalMiniLM`) and the
   question **with the speakers' names removed**: MiniLM matches names far more than content,
   and every turn that addresses "Caroline" looks like an answer to a question about her
   (cosine R@10 over categories 1-4, captioned turns: 0.31 -> 0.59).
3. **Lexical**: BM25 (k1 1.2, b 0.75, light stemming, stop words dropped) where each turn's
   document is the turn plus up to two turns either side in the same session, the turn's own
   words counted twice: evidence is often a short reply whose topic sits in the turn before.
   The turn's session date (day, month, year) is added to its document, for questions such
   as "What did Caroline do in May 2023?".
4. **Fusion**: per question, z-score both score lists and add them with equal weight.
5. **Speaker**: when the question names exactly one speaker, that speaker's turns get
   ``+1.0`` standard deviation of the fused scores.
6. **Time**: for "when ..." / "how long ..." questions, turns with a time expression
   ("yesterday", "last week", a weekday, a month, a year) get ``+0.3`` standard deviation.

Nothing here reads LoCoMo's generated ``observation`` or ``session_summary`` fields; the inputs
are raw turns, captions, speakers, session numbers and session dates.

Two entry points:

- :func:`best_variant` ranks a conversation's turns for a question (plain data in, dia_ids out);
- :func:`best_ask` is a variant for :data:`benchmarks.retrieval.VARIANTS`: it reads
  the turns the runner stored (raw mode) and reuses the store's vectors.

>>> turns = [
...     TurnDoc("D1:1", "Ann", "I adopted a puppy named Rex yesterday!", session=1),
...     TurnDoc("D1:2", "Bob", "Congrats! I went hiking in the Alps.", session=1),
...     TurnDoc("D2:1", "Bob", "My sister got married.", session=2),
... ]
>>> best_variant(turns, "When did Ann adopt her puppy?", dense=False)[0]
'D1:1'
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from langgraph_memory import Memory

if TYPE_CHECKING:
    from langgraph_memory import Hit, MemoryStore

__all__ = [
    "DEFAULT_PARAMS",
    "BestRetriever",
    "Params",
    "TurnDoc",
    "best_ask",
    "best_variant",
    "date_words",
    "doc_text",
    "in_conversation_order",
    "strip_names",
    "tokenize",
]

Vector = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TurnDoc:
    """One conversation turn as the retriever sees it.

    ``session`` keeps the neighbourhood window inside one session; ``date`` (the session's
    date, a ``datetime`` or LoCoMo's ``"1:56 pm on 8 May, 2023"``) adds its day, month and
    year to the turn's BM25 document.
    """

    dia_id: str
    speaker: str
    text: str
    caption: str | None = None
    session: int = 0
    date: datetime | str | None = None


@dataclass(frozen=True)
class Params:
    """The recipe's knobs; the defaults are the measured best."""

    dense_weight: float = 0.5
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    window: int = 2
    centre_repeat: int = 2
    speaker_boost: float = 1.0
    time_boost: float = 0.3
    date_words: bool = True


DEFAULT_PARAMS = Params()

_STOP_WORDS = """
    a an the and or but if of to in on at for with by from as is are was were be been being
    do does did have has had i me my we our you your he him his she her it its they them their
    this that these those what which who whom whose when where why how there here not no so than
    too very can will would should could just about into over after before up down out off again
    further then once all any both each few more most other some such only own same s t don now
    ever am also yeah yes oh wow hey hi really thanks thank much get got go going like lot"""
_STOP = frozenset(_STOP_WORDS.split())
_SUFFIXES = ("ingly", "edly", "ing", "ed", "ies", "es", "s", "ly")
_WORD = re.compile(r"[a-z0-9]+")
_TIME = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last|next|ago|week|weekend|month|year|since|recently|"
    r"just|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
    r"april|may|june|july|august|september|october|november|december|\d{4})\b",
    re.IGNORECASE,
)
_TIME_QUESTION = ("when", "how long")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def tokenize(text: str) -> list[str]:
    """Lower-cased word stems without stop words (BM25's terms).

    >>> tokenize("Caroline's painting classes were going well")
    ['carolin', 'paint', 'class', 'well']
    """
    words = _WORD.findall(text.lower().replace("'", ""))
    return [_stem(w) for w in words if w not in _STOP]


def doc_text(turn: TurnDoc) -> str:
    """The text a turn is indexed under (the same as ``ingest.turn_text``).

    >>> doc_text(TurnDoc("D1:1", "Ann", " Look! ", caption="a dog on a beach"))
    'Ann: Look! [shares a photo: a dog on a beach]'
    """
    text = f"{turn.speaker}: {turn.text.strip()}"
    if turn.caption:
        text += f" [shares a photo: {turn.caption}]"
    return text


def date_words(date: datetime | str | None) -> str:
    """A session date as the words a question may use: day, month name and year.

    >>> date_words("1:56 pm on 8 May, 2023"), date_words(datetime(2023, 5, 8, 13, 56))
    ('8 May, 2023', '8 May 2023')
    >>> date_words(None)
    ''
    """
    if date is None:
        return ""
    if isinstance(date, datetime):
        return f"{date.day} {date:%B} {date.year}"
    return date.rsplit(" on ", 1)[-1].strip()


def _name_forms(speakers: Sequence[str]) -> list[str]:
    forms = {s.strip() for s in speakers if s.strip()}
    forms |= {s.split()[0] for s in forms}
    return sorted(forms, key=len, reverse=True)  # full names before first names


def strip_names(question: str, speakers: Sequence[str]) -> str:
    """The question without the speakers' names (and their possessive ``'s``).

    >>> strip_names("What did Caroline's mom give Melanie?", ["Caroline", "Melanie"])
    'What did mom give ?'
    """
    for name in _name_forms(speakers):
        question = re.sub(rf"\b{re.escape(name)}('s|s'|')?(?!\w)", "", question)
    return re.sub(r"\s+", " ", question).strip()


def named_speakers(question: str, speakers: Sequence[str]) -> list[str]:
    """The distinct speakers whose (first) name the question contains.

    >>> named_speakers("Did Ann Lee meet Bob?", ["Ann Lee", "Bob", "Cy"])
    ['Ann Lee', 'Bob']
    """
    out = []
    for s in dict.fromkeys(speakers):
        first = s.split()[0] if s.split() else s
        if first and re.search(rf"\b{re.escape(first)}\b", question):
            out.append(s)
    return out


class _BM25:
    """Okapi BM25 over pre-tokenised documents (term frequencies in an inverted index)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float, b: float) -> None:
        counts = [Counter(d) for d in docs]
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avg = float(lengths.mean()) if len(docs) and lengths.mean() > 0 else 1.0
        df: Counter[str] = Counter(w for c in counts for w in c)
        n = len(docs)
        self._size = n
        self._postings: dict[str, tuple[npt.NDArray[np.int64], Vector]] = {}
        norm = k1 * (1.0 - b + b * lengths / avg)
        rows: dict[str, list[tuple[int, float]]] = {}
        for i, c in enumerate(counts):
            for w, tf in c.items():
                rows.setdefault(w, []).append((i, tf * (k1 + 1.0) / (tf + norm[i])))
        for w, hits in rows.items():
            idf = math.log(1.0 + (n - df[w] + 0.5) / (df[w] + 0.5))
            idx = np.array([h[0] for h in hits], dtype=np.int64)
            self._postings[w] = (idx, idf * np.array([h[1] for h in hits], dtype=np.float64))

    def scores(self, query: Sequence[str]) -> Vector:
        out = np.zeros(self._size, dtype=np.float64)
        for w in set(query):
            posting = self._postings.get(w)
            if posting is not None:
                out[posting[0]] += posting[1]
        return out


def _zscore(x: Vector) -> Vector:
    std = float(x.std())
    return (x - x.mean()) / std if std > 0 else np.zeros_like(x)


class BestRetriever:
    """The recipe over one conversation: build once, then :meth:`rank` each question.

    Args:
        turns: the conversation's turns in order (only these are candidates).
        embeddings: the sentence embedder for the dense half; ``None`` with ``dense=True``
            uses :class:`langgraph_memory.LocalMiniLM`.
        vectors: the turns' document vectors (rows in ``turns`` order, unit length), when
            they exist already (a store's); skips embedding the turns.
        dense: ``False`` ranks by BM25 + speaker + time alone (no embedder at all).
        params: the knobs (:data:`DEFAULT_PARAMS`).
    """

    def __init__(
        self,
        turns: Sequence[TurnDoc],
        *,
        embeddings: Embeddings | None = None,
        vectors: npt.ArrayLike | None = None,
        dense: bool = True,
        params: Params = DEFAULT_PARAMS,
    ) -> None:
        self.turns = tuple(turns)
        self.params = params
        self.speakers = list(dict.fromkeys(t.speaker for t in self.turns))
        self._speaker_of = np.array([t.speaker for t in self.turns], dtype=object)
        self._has_time = np.array([bool(_TIME.search(t.text)) for t in self.turns])
        self._bm25 = _BM25(self._window_docs(), params.bm25_k1, params.bm25_b)
        self._embeddings: Embeddings | None = None
        self._vectors: npt.NDArray[np.float32] | None = None
        if dense and self.turns:
            if vectors is not None:
                arr = np.asarray(vectors, dtype=np.float32)
                if arr.shape[0] != len(self.turns):
                    raise ValueError(f"{arr.shape[0]} vectors for {len(self.turns)} turns")
                self._vectors = arr
                self._embeddings = embeddings
            else:
                self._embeddings = embeddings if embeddings is not None else _default_embedder()
                docs = [doc_text(t) for t in self.turns]
                self._vectors = np.asarray(self._embeddings.embed_documents(docs), np.float32)

    def _window_docs(self) -> list[list[str]]:
        own = [tokenize(doc_text(t)) for t in self.turns]
        w, rep = self.params.window, self.params.centre_repeat
        docs = []
        for i, t in enumerate(self.turns):
            doc: list[str] = []
            for j in range(max(0, i - w), min(len(self.turns), i + w + 1)):
                if self.turns[j].session == t.session:
                    doc += own[j] * (rep if j == i else 1)
            if self.params.date_words:
                doc += tokenize(date_words(t.date))
            docs.append(doc)
        return docs

    def scores(
        self,
        question: str,
        *,
        query_vector: npt.ArrayLike | None = None,
        cosine: npt.ArrayLike | None = None,
    ) -> Vector:
        """One fused score per turn (higher is better).

        The dense half comes from ``cosine`` (one similarity per turn, computed by the caller,
        e.g. a store's ``nearest``), else from the turns' vectors and ``query_vector`` (the
        embedded name-stripped question) or the embedder; with neither it is left out.
        """
        p = self.params
        cos: Vector | None = None
        if cosine is not None:
            cos = np.asarray(cosine, dtype=np.float64)
            if cos.shape != (len(self.turns),):
                raise ValueError(f"cosine has shape {cos.shape}, expected ({len(self.turns)},)")
        elif self._vectors is not None:
            if query_vector is None:
                if self._embeddings is None:
                    raise ValueError("no embedder to embed the question; pass query_vector")
                stripped = strip_names(question, self.speakers) or question
                query_vector = self._embeddings.embed_query(stripped)
            q = np.asarray(query_vector, dtype=np.float32)
            cos = (self._vectors @ q).astype(np.float64)
        lexical = _zscore(self._bm25.scores(tokenize(question)))
        if cos is None:
            fused = lexical
        else:
            fused = (1.0 - p.dense_weight) * lexical + p.dense_weight * _zscore(cos)
        spread = float(fused.std()) or 1.0
        named = named_speakers(question, self.speakers)
        if p.speaker_boost and len(named) == 1:
            fused = fused + p.speaker_boost * spread * (self._speaker_of == named[0])
        if p.time_boost and question.strip().lower().startswith(_TIME_QUESTION):
            fused = fused + p.time_boost * spread * self._has_time
        return fused

    def rank(
        self, question: str, k: int | None = None, *, query_vector: npt.ArrayLike | None = None
    ) -> list[str]:
        """The turns' dia_ids, best first (all of them, or the first ``k``)."""
        if not self.turns:
            return []
        s = self.scores(question, query_vector=query_vector)
        order = np.argsort(-s, kind="stable")
        if k is not None:
            order = order[:k]
        return [self.turns[i].dia_id for i in order]


_DEFAULT: list[Embeddings] = []
_LOCK = threading.Lock()
_CACHE: dict[tuple[object, ...], BestRetriever] = {}
_CACHE_SIZE = 16


def _default_embedder() -> Embeddings:
    with _LOCK:
        if not _DEFAULT:
            from langgraph_memory.embeddings import LocalMiniLM

            _DEFAULT.append(LocalMiniLM())
        return _DEFAULT[0]


def _cached(key: tuple[object, ...]) -> BestRetriever | None:
    with _LOCK:
        return _CACHE.get(key)


def _remember(key: tuple[object, ...], retriever: BestRetriever) -> None:
    with _LOCK:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = retriever


def best_variant(
    turns: Sequence[TurnDoc],
    question: str,
    *,
    k: int | None = None,
    embeddings: Embeddings | None = None,
    dense: bool = True,
    params: Params = DEFAULT_PARAMS,
) -> list[str]:
    """Rank one conversation's turns for a question; returns dia_ids, best first.

    Args:
        turns: every turn of the conversation, in conversation order, as :class:`TurnDoc`
            (dia_id, speaker, text, image caption or ``None``, session number, session date).
        question: the question text, as asked.
        k: return only the first ``k`` (default: all turns).
        embeddings: the dense embedder (default :class:`LocalMiniLM`).
        dense: ``False`` for the lexical half alone (no embedder is loaded).
        params: the recipe's knobs.

    The per-conversation index (BM25 and the turns' vectors) is cached for the last 16
    conversations, keyed on the turns themselves, so asking many questions of one
    conversation embeds its turns once.
    """
    key = (tuple(turns), id(embeddings), dense, params)
    retriever = _cached(key)
    if retriever is None:
        retriever = BestRetriever(turns, embeddings=embeddings, dense=dense, params=params)
        _remember(key, retriever)
    return retriever.rank(question, k)


# -- the eval runner's variant ----------------------------------------------------------------


class AskLike(Protocol):
    """What :func:`best_ask` reads of ``benchmarks.retrieval.Ask``."""

    @property
    def store(self) -> MemoryStore: ...

    @property
    def scope(self) -> str: ...

    @property
    def query(self) -> str: ...

    @property
    def k(self) -> int: ...


_PHOTO = " [shares a photo: "


def _turn_from_memory(m: Memory, session: int) -> TurnDoc:
    meta = m.metadata
    speaker = str(meta.get("speaker", ""))
    text = m.text
    body = text[len(speaker) + 2 :] if speaker and text.startswith(f"{speaker}: ") else text
    caption = None
    if body.endswith("]") and _PHOTO in body:
        body, caption = body[:-1].split(_PHOTO, 1)
    return TurnDoc(str(meta.get("dia_id", "")), speaker, body, caption, session, m.created_at)


def _number(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def in_conversation_order(memories: Sequence[Memory]) -> list[tuple[Memory, int]]:
    """The turns of a replayed conversation in order, each with its session's number.

    LoCoMo memories carry a session number (``session``); LongMemEval memories a session id
    (``session_id``), and those sessions are numbered by their first turn's time. Within a
    session, turns follow ``turn``; memories with neither (facts the write path made) follow
    their creation time. The order matters: BM25 windows are neighbours in it.

    >>> from datetime import datetime, timezone
    >>> def mem(i, meta, hour):
    ...     when = datetime(2023, 5, 1, hour, tzinfo=timezone.utc)
    ...     return Memory(id=i, scope="user:x", text="t", created_at=when, metadata=meta)
    >>> rows = in_conversation_order([
    ...     mem("b", {"session_id": "late", "turn": 0}, 9),
    ...     mem("c", {"session_id": "early", "turn": 1}, 8),
    ...     mem("a", {"session_id": "early", "turn": 0}, 8)])
    >>> [(m.id, s) for m, s in rows]
    [('a', 0), ('c', 0), ('b', 1)]
    """
    groups: dict[object, list[Memory]] = {}
    for m in memories:
        key = m.metadata.get("session", m.metadata.get("session_id", 0))
        groups.setdefault(key, []).append(m)

    def group_order(key: object) -> tuple[int, datetime, str]:
        first = min(m.created_at for m in groups[key])
        return (_number(key), first, str(key))

    out: list[tuple[Memory, int]] = []
    for index, group in enumerate(sorted(groups, key=group_order)):
        session = _number(group) if isinstance(group, (int, float)) else index
        turns = sorted(
            groups[group], key=lambda m: (_number(m.metadata.get("turn")), m.created_at, m.id)
        )
        out.extend((m, session) for m in turns)
    return out


_SCOPE_SIZE: dict[tuple[int, str], int] = {}
_SPEAKERS: dict[tuple[int, str], list[str]] = {}


def _all_hits(store: MemoryStore, scope: str, query: str) -> list[Hit]:
    """Every active memory of the scope with its cosine to ``query`` (one ``nearest`` call
    when the scope's size is known from an earlier question)."""
    key = (id(store), scope)
    k = _SCOPE_SIZE.get(key, 1024)
    while True:
        hits = store.nearest(scope, query, k=k)
        if len(hits) < k:
            break
        k *= 2  # there may be more
    _SCOPE_SIZE[key] = len(hits) + 1
    return hits


def _store_retriever(
    ordered: Sequence[tuple[Memory, int]], store: MemoryStore, scope: str
) -> BestRetriever:
    key = ("store", id(store), scope, tuple(m.id for m, _ in ordered))
    retriever = _cached(key)
    if retriever is None:
        turns = [_turn_from_memory(m, session) for m, session in ordered]
        retriever = BestRetriever(turns, dense=False)
        _remember(key, retriever)
    return retriever


def best_ask(ask: AskLike) -> list[str]:
    """:func:`best_variant` as a runner variant: memory ids, best first, at most ``ask.k``.

    Works on a store filled in raw mode (one memory per turn): by ``ingest_locomo`` (with
    ``dia_id``, ``session``, ``turn`` and ``speaker`` metadata) or ``ingest_longmemeval``
    (``session_id`` and ``turn``; no speakers, so no name stripping or speaker boost). The
    dense half uses the store's own vectors: one ``nearest`` call over the whole scope with the
    name-stripped question (two on a scope's first question, before its speakers are known), so
    no turn is embedded twice. The scope's BM25 index is cached, keyed on its memory ids.
    """
    # The speakers seen on this scope's last question (none yet on the first one).
    speakers = _SPEAKERS.get((id(ask.store), ask.scope), [])
    stripped = strip_names(ask.query, speakers) or ask.query
    hits = _all_hits(ask.store, ask.scope, stripped)
    if not hits:
        return []
    ordered = in_conversation_order([h.memory for h in hits])
    retriever = _store_retriever(ordered, ask.store, ask.scope)
    if retriever.speakers != speakers:  # first question of this scope: ask again without names
        _SPEAKERS[(id(ask.store), ask.scope)] = retriever.speakers
        stripped = strip_names(ask.query, retriever.speakers) or ask.query
        hits = _all_hits(ask.store, ask.scope, stripped)
    ids = [m.id for m, _ in ordered]
    position = {m: i for i, m in enumerate(ids)}
    cos = np.zeros(len(ids), dtype=np.float64)
    for hit in hits:
        cos[position[hit.memory.id]] = hit.score
    fused = retriever.scores(ask.query, cosine=cos)
    order = np.argsort(-fused, kind="stable")[: ask.k]
    return [ids[i] for i in order]
