"""Replay a benchmark's conversations into a MemoryStore, through the public API.

Each conversation (LoCoMo) or question haystack (LongMemEval) gets its own
scope, ``user:<sample_id>`` or ``user:<question_id>``, and every session is
written with its own date as ``now``. Three modes:

- ``raw``: each turn becomes one episodic memory (no model). Its metadata
  names the turn (``dia_id`` / ``session_id`` + ``turn``), so evidence matches.
  One ``add_many`` per session: ``created_at`` is the session date for all of its
  turns, and ``event_time`` steps :data:`TURN_GAP` per turn to keep their order.
- ``observations`` (LoCoMo only): the dataset's ``observation`` facts as
  semantic memories citing their turns: the extraction an oracle would make.
- ``write_path``: every turn through :class:`MemoryWriter` (any model), with
  ``turn_id`` = the turn's id; a memory's units are the turns whose decisions
  made it (an UPDATE inherits the replaced version's turns); an episode's, its turn.

:class:`CachedEmbeddings` wraps the one shared embedder: it embeds a whole
conversation in one batch before the per-session writes (MiniLM is far faster
on big length-sorted batches) and remembers query vectors across variants.

>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from benchmarks.datasets import DialogTurn, Session
>>> turn_text(DialogTurn("D1:2", "Mel", "Look!", caption="a dog on a beach"))
'Mel: Look! [shares a photo: a dog on a beach]'
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage

from benchmarks.datasets import Conversation, DialogTurn, LmeQuestion, LmeSession
from langgraph_memory import Kind, MemoryStore, MemoryWriter, Scope
from langgraph_memory.embeddings import embedder_name
from langgraph_memory.store import internals
from langgraph_memory.write import Turn, said_key

Mode = Literal["product", "raw", "observations", "write_path"]
MODES: tuple[Mode, ...] = ("product", "raw", "observations", "write_path")
#: Time between consecutive turns of a session: the data has minute-level session dates only.
TURN_GAP = timedelta(seconds=5)
#: Longest text stored; the store refuses more than 32,768 characters, and MiniLM reads
#: only the first 256 tokens anyway.
MAX_CHARS = 32_000
#: Roles LongMemEval's upstream retrieval indexes (its turn corpus is user turns only).
LME_ROLES: tuple[str, ...] = ("user",)


class CachedEmbeddings(Embeddings):
    """An embedder that remembers vectors by text and answers to the inner one's name.

    Stores check the embedder's name, so this wrapper can be passed wherever the
    inner embedder was. ``max_items`` bounds the memory it holds (it starts over).

    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> emb = CachedEmbeddings(DeterministicFakeEmbedding(size=4))
    >>> emb.prefetch(["a", "b", "a"])
    2
    >>> emb.embed_documents(["b"]) == emb.embed_documents(["b"]), len(emb)
    (True, 2)
    """

    def __init__(self, inner: Embeddings, *, max_items: int = 200_000) -> None:
        self.inner = inner
        self.name = embedder_name(inner)
        self.max_items = max_items
        self._cache: dict[str, list[float]] = {}

    def __len__(self) -> int:
        return len(self._cache)

    def prefetch(self, texts: Iterable[str]) -> int:
        """Embed, in one batch, the texts not cached yet; returns how many were new."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if not missing:
            return 0
        if len(self._cache) + len(missing) > self.max_items:
            self._cache.clear()
        vectors = self.inner.embed_documents(missing)
        self._cache.update(zip(missing, (list(map(float, v)) for v in vectors), strict=True))
        return len(missing)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for ``texts``, embedding only the ones not seen before."""
        self.prefetch(texts)
        return [self._cache[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The vector of a query (this model embeds queries and documents alike)."""
        return self.embed_documents([text])[0]


@dataclass
class Ingested:
    """What a replay wrote: which benchmark units each memory stands for."""

    scope: str
    #: memory id -> the unit ids (LoCoMo dia_ids, LongMemEval turn ids) it stands for.
    units: dict[str, tuple[str, ...]]
    #: every unit replayed, in order (LongMemEval's NDCG needs the whole corpus).
    corpus: tuple[str, ...]
    #: the time of the last replayed turn: "now" for questions asked after the conversation.
    end: datetime
    seconds: float = 0.0

    @property
    def memories(self) -> int:
        """How many memories the replay made."""
        return len(self.units)


def turn_text(turn: DialogTurn) -> str:
    """A LoCoMo turn as stored in raw mode: speaker, words, and the image caption.

    The speaker's name is kept because questions name people ("What did Caroline ...").
    """
    return f"{turn.speaker}: {turn_words(turn)}"


def lme_turn_id(session_id: str, index: int) -> str:
    """Upstream LongMemEval's turn id: the session id and the 1-based message index.

    >>> lme_turn_id("answer_280352e9", 0)
    'answer_280352e9_1'
    """
    return f"{session_id}_{index + 1}"


def clip(text: str) -> str:
    """The text as the store will keep it (stripped, at most :data:`MAX_CHARS`), so the
    prefetched vector is found again.

    >>> clip("  hi ")
    'hi'
    """
    return text.strip()[:MAX_CHARS]


def _add_session(
    store: MemoryStore, scope: str, date: datetime, rows: Sequence[tuple[str, dict[str, Any]]]
) -> list[str]:
    items = [
        {
            "text": clip(text),
            "kind": Kind.EPISODIC,
            "event_time": date + TURN_GAP * i,
            "metadata": metadata,
        }
        for i, (text, metadata) in enumerate(rows)
    ]
    return [m.id for m in store.add_many(scope, items, now=date)]


def _prefetch(store: MemoryStore, texts: Iterable[str]) -> None:
    if isinstance(store.embeddings, CachedEmbeddings):
        store.embeddings.prefetch(clip(t) for t in texts)


def ingest_locomo(
    store: MemoryStore,
    conv: Conversation,
    mode: Mode = "raw",
    *,
    writer: MemoryWriter | None = None,
) -> Ingested:
    """Replay one LoCoMo conversation into ``user:<sample_id>``.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from benchmarks.datasets import locomo_conversation
    >>> conv = locomo_conversation({"sample_id": "c1", "conversation": {
    ...     "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
    ...     "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I adopted a cat."}]}})
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> done = ingest_locomo(store, conv)
    >>> done.scope, list(done.units.values()), store.active(done.scope)[0].metadata["dia_id"]
    ('user:c1', [('D1:1',)], 'D1:1')
    """
    started = time.perf_counter()
    scope = Scope("user", conv.sample_id).key
    corpus = tuple(t.dia_id for s in conv.sessions for t in s.turns)
    last = conv.sessions[-1] if conv.sessions else None
    end = last.date + TURN_GAP * max(0, len(last.turns) - 1) if last else datetime.min
    units: dict[str, tuple[str, ...]] = {}
    if mode == "raw":
        _prefetch(store, (turn_text(t) for s in conv.sessions for t in s.turns))
        for s in conv.sessions:
            rows = [
                (
                    turn_text(t),
                    {"dia_id": t.dia_id, "session": s.index, "turn": i, "speaker": t.speaker},
                )
                for i, t in enumerate(s.turns)
            ]
            ids = _add_session(store, scope, s.date, rows)
            units.update((m, (t.dia_id,)) for m, t in zip(ids, s.turns, strict=True))
    elif mode == "observations":
        dates = {s.index: s.date for s in conv.sessions}
        _prefetch(store, (o.text for o in conv.observations))
        for index in sorted({o.session for o in conv.observations}):
            facts = [o for o in conv.observations if o.session == index]
            rows = [
                # Metadata values must be scalars: the cited turns go in one comma-joined str.
                (o.text, {"dia_ids": ",".join(o.dia_ids), "session": index, "speaker": o.speaker})
                for o in facts
            ]
            date = dates.get(index, end)
            ids = _add_session(store, scope, date, rows)
            units.update((m, o.dia_ids) for m, o in zip(ids, facts, strict=True))
    elif mode == "product":
        if writer is None:
            raise ValueError("mode 'product' needs writer=MemoryWriter(store, model=...)")
        turns = locomo_turns(conv)  # the history goes in as an import would
        writer.write_turns(scope, turns)
        units = product_units(store, scope, turns)
    elif mode == "write_path":
        if writer is None:
            raise ValueError("mode 'write_path' needs writer=MemoryWriter(store, model=...)")
        for s in conv.sessions:
            for i, t in enumerate(s.turns):
                # Both LoCoMo speakers are people the memory is about: each turn is a "user"
                # message that names its speaker.
                _write(
                    writer, scope, units, [("user", turn_text(t))], s.date + TURN_GAP * i, t.dia_id
                )
    else:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return Ingested(scope, units, corpus, end, time.perf_counter() - started)


def locomo_turns(
    conv: Conversation, extra: Mapping[int, Sequence[tuple[str, str, str]]] | None = None
) -> list[Turn]:
    """A conversation's turns as the product replays them: what a user of the library
    sends, the words with the speaker as the message's name (metadata, never a
    "Speaker:" prefix), in each session's thread; ``extra`` appends turns
    (``(turn id, speaker, words)``) to the sessions it names by index.

    >>> from benchmarks.datasets import locomo_conversation
    >>> conv = locomo_conversation({"sample_id": "c1", "conversation": {
    ...     "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
    ...     "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I adopted a cat."}]}})
    >>> turns = locomo_turns(conv, {1: [("X", "B", "Hi")]})
    >>> [(t.id, t.messages[0].name, t.thread_id) for t in turns]
    [('D1:1', 'A', 'session-1'), ('X', 'B', 'session-1')]
    """
    out: list[Turn] = []
    for s in conv.sessions:
        said = [(t.dia_id, t.speaker, turn_words(t)) for t in s.turns]
        said += (extra or {}).get(s.index, [])
        out += [
            Turn.of(
                [HumanMessage(text, name=speaker)],
                when=s.date + TURN_GAP * i,
                turn_id=turn_id,
                thread_id=f"session-{s.index}",
            )
            for i, (turn_id, speaker, text) in enumerate(said)
        ]
    return out


def lme_turns(question: LmeQuestion) -> list[Turn]:
    """A haystack's turns as the product replays them: each user message with the
    reply to it, under the user message's turn id, in its session's thread."""
    turns: list[Turn] = []
    for s in question.sessions:
        for i, t in enumerate(s.turns):
            if t.role != "user" or not t.content.strip():
                continue
            reply = s.turns[i + 1] if i + 1 < len(s.turns) else None
            messages = [("user", t.content[:MAX_CHARS])]
            if reply is not None and reply.role == "assistant" and reply.content.strip():
                messages.append(("assistant", reply.content[:MAX_CHARS]))
            turns.append(
                Turn.of(
                    messages,
                    when=s.date + TURN_GAP * i,
                    turn_id=lme_turn_id(s.session_id, i),
                    thread_id=s.session_id,
                )
            )
    return turns


def _write(
    writer: MemoryWriter,
    scope: str,
    units: dict[str, tuple[str, ...]],
    messages: Sequence[tuple[str, str]],
    when: datetime,
    turn_id: str,
) -> None:
    for d in writer.write_turn(scope, messages, now=when, turn_id=turn_id):
        if d.status != "applied" or d.result_id is None:
            continue
        inherited = units.get(d.target_id, ()) if d.target_id else ()
        units[d.result_id] = tuple(dict.fromkeys((*inherited, turn_id)))
    # The turn's episodes (what was said, kept verbatim) stand for the turn itself.
    for episode in internals(writer.store).find(
        scope, metadata={"episode": True, "turn_id": turn_id}
    ):
        units[episode.id] = (turn_id,)


def lme_corpus(
    question: LmeQuestion, roles: Sequence[str] = LME_ROLES
) -> list[tuple[LmeSession, int, str]]:
    """The indexed turns of a haystack: ``(session, message index, turn id)`` in order.

    >>> from benchmarks.datasets import LmeTurn
    >>> from datetime import datetime, timezone
    >>> s = LmeSession("s1", datetime(2023, 1, 1, tzinfo=timezone.utc),
    ...                (LmeTurn("user", "hi"), LmeTurn("assistant", "hello")))
    >>> q = LmeQuestion("q", "multi-session", "?", "!", s.date, (s,), ("s1",))
    >>> [t for _, _, t in lme_corpus(q)], [t for _, _, t in lme_corpus(q, ("user", "assistant"))]
    (['s1_1'], ['s1_1', 's1_2'])
    """
    return [
        (s, i, lme_turn_id(s.session_id, i))
        for s in question.sessions
        for i, t in enumerate(s.turns)
        if t.role in roles
    ]


def lme_gold_turns(question: LmeQuestion, roles: Sequence[str] = LME_ROLES) -> set[str]:
    """The ``has_answer`` turns among the indexed ones (upstream's turn-level gold)."""
    return {tid for s, i, tid in lme_corpus(question, roles) if s.turns[i].has_answer}


def ingest_longmemeval(
    store: MemoryStore,
    question: LmeQuestion,
    mode: Mode = "raw",
    *,
    roles: Sequence[str] = LME_ROLES,
    writer: MemoryWriter | None = None,
) -> Ingested:
    """Replay one question's haystack into ``user:<question_id>``, session by session.

    Only ``roles`` are indexed (upstream: user turns); ``write_path`` sees every turn.
    """
    started = time.perf_counter()
    scope = Scope("user", question.question_id).key
    indexed = lme_corpus(question, roles)
    corpus = tuple(tid for _, _, tid in indexed)
    end = max((s.date for s in question.sessions), default=question.question_date)
    units: dict[str, tuple[str, ...]] = {}
    if mode == "raw":
        _prefetch(store, (s.turns[i].content for s, i, _ in indexed if s.turns[i].content))
        by_session: dict[str, list[tuple[LmeSession, int, str]]] = {}
        for row in indexed:
            by_session.setdefault(row[0].session_id, []).append(row)
        for s in question.sessions:
            # A session id can repeat in a haystack only if the data is broken; pop keeps
            # each written once.
            kept = [r for r in by_session.pop(s.session_id, []) if s.turns[r[1]].content.strip()]
            if not kept:
                continue
            rows = [
                (
                    s.turns[i].content,
                    {
                        "session_id": s.session_id,
                        "turn": i,
                        "role": s.turns[i].role,
                        "has_answer": s.turns[i].has_answer,
                    },
                )
                for _, i, _ in kept
            ]
            ids = _add_session(store, scope, s.date, rows)
            units.update((m, (tid,)) for m, (_, _, tid) in zip(ids, kept, strict=True))
    elif mode == "product":
        if writer is None:
            raise ValueError("mode 'product' needs writer=MemoryWriter(store, model=...)")
        turns = lme_turns(question)
        writer.write_turns(scope, turns)
        units = product_units(store, scope, turns)
    elif mode == "write_path":
        if writer is None:
            raise ValueError("mode 'write_path' needs writer=MemoryWriter(store, model=...)")
        for s in question.sessions:
            for i, t in enumerate(s.turns):
                _write(
                    writer,
                    scope,
                    units,
                    [(t.role, t.content)],
                    s.date + TURN_GAP * i,
                    lme_turn_id(s.session_id, i),
                )
    else:
        raise ValueError(
            f"LongMemEval replays in 'product', 'raw' or 'write_path' mode, not {mode!r}"
        )
    return Ingested(scope, units, corpus, end, time.perf_counter() - started)


def turn_words(turn: DialogTurn) -> str:
    """A LoCoMo turn's words and the caption of an image it shares, without its speaker.

    >>> turn_words(DialogTurn("D1:2", "Mel", "Look!", caption="a dog on a beach"))
    'Look! [shares a photo: a dog on a beach]'
    """
    words = turn.text.strip()
    return f"{words} [shares a photo: {turn.caption}]" if turn.caption else words


def product_units(
    store: MemoryStore, scope: str, turns: Sequence[Turn] = ()
) -> dict[str, tuple[str, ...]]:
    """The units each active memory of a replayed scope stands for: an episode its
    turn and the turns among ``turns`` that said its words again (the write path
    keeps one episode for them: ``said_key``), a fact the turns of the episodes it
    came from (its ``sources``)."""
    memories = store.active(scope)
    turn_of: dict[str, list[str]] = {
        m.id: [str(m.metadata["turn_id"])]
        for m in memories
        if m.kind is Kind.EPISODIC and "turn_id" in m.metadata
    }
    by_words = {
        str(m.metadata["said"]): m.id
        for m in memories
        if m.id in turn_of and isinstance(m.metadata.get("said"), str)
    }
    for t in turns:
        for said in t.by(("user",)):
            holder = by_words.get(said_key(said.content.strip(), source="user", speaker=said.name))
            if holder is not None and t.id not in turn_of[holder]:
                turn_of[holder].append(t.id)
    units: dict[str, tuple[str, ...]] = {e: tuple(ts) for e, ts in turn_of.items()}
    for m in memories:
        if m.id not in turn_of:
            found = tuple(dict.fromkeys(t for s in m.sources for t in turn_of.get(s, ())))
            if found:
                units[m.id] = found
    return units


def metadata_units(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The unit ids a stored memory's metadata names (for variants that find memories
    by other means than the ingestion map).

    >>> metadata_units({"dia_id": "D1:3"}), metadata_units({"dia_ids": "D1:3,D2:1"})
    (('D1:3',), ('D1:3', 'D2:1'))
    >>> metadata_units({"session_id": "s1", "turn": 0})
    ('s1_1',)
    """
    if "dia_id" in metadata:
        return (str(metadata["dia_id"]),)
    if "dia_ids" in metadata:
        return tuple(d for d in str(metadata["dia_ids"]).split(",") if d)
    if "session_id" in metadata and "turn" in metadata:
        return (lme_turn_id(str(metadata["session_id"]), int(metadata["turn"])),)
    return ()
