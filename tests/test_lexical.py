"""The lexical index follows every write, on both backends, across processes and crashes.

``keyword`` is BM25 over a per-scope index (store/lexical/index.py) that the store keeps in
step with Chroma (store/lexical/indexes.py): a file per scope for an embedded store, memory
refreshed from the server for a ``chroma run`` store. These tests check what a user
relies on: what is active is found, what was archived or purged is not, an episode is
found by the facts taken from it, dates are words, a scope sees only its own records;
a second process sees a first one's writes on its next read; a crash between the
Chroma write and the index write is repaired on the next open.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import older_layout, own_collections, running_server
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import MemoryStore
from langgraph_memory.scope import Scope
from langgraph_memory.store import internals
from langgraph_memory.store.chroma.layout import scope_hash
from langgraph_memory.store.lexical import LexicalIndex
from langgraph_memory.store.lexical.index import Entry
from langgraph_memory.store.lexical.postings import Postings

REPO = Path(__file__).resolve().parents[1]
T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def found(store: MemoryStore, scope: str, query: str) -> list[str]:
    return [h.memory.text for h in internals(store).keyword(scope, query, k=10)]


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def run_child(code: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=child_env(),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip()


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_keyword_follows_add_update_archive_touch_put_delete_import_and_purge(
    store: MemoryStore,
) -> None:
    a, b = store.add_many("user:a", ["Alpha likes kayaking.", "Bravo owns a marimba."], now=T0)
    assert found(store, "user:a", "kayaking") == ["Alpha likes kayaking."]
    new = store.update("user:a", a.id, "Alpha likes rowing.", now=T0 + DAY)
    assert found(store, "user:a", "kayaking") == []
    assert found(store, "user:a", "rowing") == ["Alpha likes rowing."]
    store.archive("user:a", b.id, now=T0 + DAY)
    assert found(store, "user:a", "marimba") == []
    internals(store).touch("user:a", [new.id], now=T0 + 2 * DAY)
    assert found(store, "user:a", "rowing") == ["Alpha likes rowing."]

    store.put(("user", "a"), "music", {"text": "Charlie plays the oboe."})
    assert found(store, "user:a", "oboe") == ["Charlie plays the oboe."]
    store.put(("user", "a"), "music", {"text": "Charlie plays the bassoon."})
    assert found(store, "user:a", "oboe") == []
    assert found(store, "user:a", "bassoon") == ["Charlie plays the bassoon."]
    store.delete(("user", "a"), "music")
    assert found(store, "user:a", "bassoon") == []

    store.import_scope(store.export("user:a"), scope="user:copy")
    assert found(store, "user:copy", "rowing") == ["Alpha likes rowing."]
    assert found(store, "user:copy", "marimba oboe bassoon kayaking") == []

    store.purge("user:a", [new.id])
    assert found(store, "user:a", "rowing") == []
    store.purge("user:copy")
    assert found(store, "user:copy", "rowing") == []
    store.add("user:copy", "Delta rows again.")  # a purged scope starts afresh
    assert found(store, "user:copy", "rowing rows") == ["Delta rows again."]


def test_an_episode_is_found_by_the_facts_that_name_it(store: MemoryStore) -> None:
    episode = store.add("user:a", "I finally did it today!", kind="episodic", event_time=T0, now=T0)
    store.add("user:a", "Unrelated filler about tea.", now=T0)
    assert found(store, "user:a", "greyhound") == []
    fact = store.add("user:a", "User adopted a greyhound.", sources=[episode.id], now=T0)
    assert sorted(found(store, "user:a", "greyhound")) == sorted(
        ["User adopted a greyhound.", "I finally did it today!"]
    )
    newer = store.update("user:a", fact.id, "User adopted a whippet.", now=T0 + DAY)
    assert newer.sources == (episode.id,)
    assert found(store, "user:a", "greyhound") == []
    assert sorted(found(store, "user:a", "whippet")) == sorted(
        ["User adopted a whippet.", "I finally did it today!"]
    )
    store.archive("user:a", newer.id, now=T0 + DAY)
    assert found(store, "user:a", "whippet") == []
    assert found(store, "user:a", "finally") == ["I finally did it today!"]


def test_dates_are_words_and_speakers_are_not(store: MemoryStore) -> None:
    store.add(
        "user:a",
        "We went to the museum.",
        event_time=T0,
        metadata={"speaker": "Zelda"},
        now=T0 + 30 * DAY,
    )
    store.add("user:a", "Bought new shoes.", now=T0 + 30 * DAY)  # no event: created_at's date
    assert found(store, "user:a", "What did we do on 8 May 2023?")[0] == "We went to the museum."
    assert found(store, "user:a", "2023-05-08")[0] == "We went to the museum."
    assert found(store, "user:a", "June 7") == ["Bought new shoes."]
    assert found(store, "user:a", "Zelda") == []


def test_a_scope_sees_only_its_own_records(store: MemoryStore) -> None:
    store.add_many("user:a", ["A paddles a kayak.", "A reads."], now=T0)
    store.add_many("user:b", ["B paddles a kayak too.", "B sings."], now=T0)
    assert found(store, "user:a", "kayak") == ["A paddles a kayak."]
    assert found(store, "user:b", "kayak") == ["B paddles a kayak too."]
    assert found(store, "user:c", "kayak") == []


WRITER = """
import sys
import chromadb
from chromadb.config import Settings
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
host, port, op, arg = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
client = chromadb.HttpClient(host=host, port=port, settings=Settings(anonymized_telemetry=False))
store = MemoryStore(client=client, embeddings=DeterministicFakeEmbedding(size=8))
if op == "add":
    print(store.add("user:shared", arg).id)
elif op == "archive":
    store.archive("user:shared", arg)
elif op == "purge":
    store.purge("user:shared", [arg])
store.close()
"""


@pytest.mark.server
def test_a_second_process_sees_the_first_ones_writes_on_its_next_read(tmp_path: Path) -> None:
    with running_server(tmp_path / "server") as server:
        reader = MemoryStore(client=server.client(), embeddings=DeterministicFakeEmbedding(size=8))
        reader.add("user:shared", "Reader's own note about lanterns.")
        assert found(reader, "user:shared", "lanterns") == ["Reader's own note about lanterns."]
        args = (server.host, str(server.port))
        zephyr = run_child(WRITER, *args, "add", "Zephyr collects tin soldiers.")
        assert found(reader, "user:shared", "soldiers") == ["Zephyr collects tin soldiers."]
        run_child(WRITER, *args, "archive", zephyr)
        assert found(reader, "user:shared", "soldiers") == []
        quill = run_child(WRITER, *args, "add", "Quill keeps a beehive.")
        assert found(reader, "user:shared", "beehive") == ["Quill keeps a beehive."]
        run_child(WRITER, *args, "purge", quill)
        assert found(reader, "user:shared", "beehive") == []
        # The reader's own writes still show, and the writer saw them too.
        assert found(reader, "user:shared", "lanterns") == ["Reader's own note about lanterns."]
        reader.close()


CRASH = """
import functools, os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph_memory import MemoryStore
from langgraph_memory.store import lexical
from langgraph_memory.store.chroma import layout
# A scope with collections of its own, which has an index file (one in a bucket has none).
layout.create_scope = functools.partial(layout.create_scope, own=True)
store = MemoryStore(sys.argv[1], embeddings=DeterministicFakeEmbedding(size=8))
step = sys.argv[2]
def die(*args, **kwargs):
    os._exit(0)  # the Chroma write is done; the process dies before the index write
if step == "setup":
    print(",".join(m.id for m in store.add_many("user:a", ["Walrus memory.", "Narwhal memory."])))
    store.close()
elif step == "archive":
    lexical.LexicalIndex.remove = die
    store.archive("user:a", sys.argv[3])
elif step == "add":
    lexical.LexicalIndex.put = die
    store.add("user:a", "Octopus memory.")
elif step == "purge":
    lexical.Lexicon.purged = die
    store.purge("user:a", [sys.argv[3]])
"""


def index_ids(directory: Path, scope: str) -> set[str]:
    index = LexicalIndex(directory / "lexical" / f"{scope_hash(Scope.parse(scope))}.sqlite3")
    try:
        return index.ids()
    finally:
        index.close()


@pytest.mark.slow  # a crashed subprocess
def test_a_crash_between_the_chroma_write_and_the_index_write_is_repaired(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "memory"
    walrus, narwhal = run_child(CRASH, str(directory), "setup").split(",")
    run_child(CRASH, str(directory), "archive", narwhal)
    run_child(CRASH, str(directory), "add")
    assert index_ids(directory, "user:a") == {walrus, narwhal}, "the index missed both writes"
    with MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        assert found(store, "user:a", "octopus") == ["Octopus memory."]
        assert found(store, "user:a", "narwhal") == []
        active = {m.id for m in store.active("user:a")}
    assert index_ids(directory, "user:a") == active and narwhal not in active


#: The day the purge tests' memories are written on: no number a query asks for is in it.
WRITTEN = datetime(2025, 3, 15, 10, tzinfo=timezone.utc)


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_a_purge_interrupted_before_the_index_leaves_no_trace_after_the_next_open(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "memory"
    marker = "Purgemarkzqxv"
    with (
        older_layout(),
        MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store,
    ):
        # Written on a fixed day: a memory's date words are indexed with it, and written
        # today, on the 7th, "7" was in every one of them and found none (BM25 weighs a
        # word all documents hold at nothing).
        store.add_many("user:a", [f"Filler {i} about boats." for i in range(30)], now=WRITTEN)
        secret = store.add("user:a", f"The vault word is {marker}.", now=WRITTEN)
    lexical_dir = directory / "lexical"

    def holding() -> list[str]:
        needle = marker.casefold().encode()
        return [p.name for p in lexical_dir.iterdir() if needle in p.read_bytes()]

    assert holding(), "the scan must see the marker in the index before"
    run_child(CRASH, str(directory), "purge", secret.id)
    assert holding(), "the crash left the purged terms in the index"
    with MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        assert holding() == []
        assert found(store, "user:a", marker) == []
        assert found(store, "user:a", "7") == ["Filler 7 about boats."]  # rebuilt from Chroma
    assert holding() == []


@pytest.mark.parametrize("terms", [["tea"], "tea"])
def test_scores_lie_in_the_unit_interval_and_keep_bm25_order(
    tmp_path: Path, terms: list[str] | str
) -> None:
    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        store.add_many(
            "user:a",
            ["Tea.", "Green tea and more tea.", "Tea with a long story about many other things."]
            + [f"Filler {i}." for i in range(30)],
        )
        hits = internals(store).keyword("user:a", terms, k=5)
        scores = [h.score for h in hits]
        assert len(hits) == 3 and all(0 < s < 1 for s in scores)
        assert scores == sorted(scores, reverse=True)
        assert hits[-1].memory.text.startswith("Tea with a long story")


def test_an_episode_is_found_by_the_words_of_the_turns_around_it(tmp_path: Path) -> None:
    """A short reply is found by the topic of the turn before it in its thread, and a
    turn of another thread lends it nothing."""
    from datetime import datetime, timedelta, timezone

    from langchain_core.embeddings import DeterministicFakeEmbedding

    t0 = datetime(2026, 3, 2, tzinfo=timezone.utc)

    def episode(text: str, thread: str, minute: int) -> dict[str, object]:
        return {
            "text": text,
            "kind": "episodic",
            "event_time": t0 + timedelta(minutes=minute),
            "metadata": {"episode": True, "thread_id": thread, "turn_id": f"{thread}{minute}"},
        }

    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        question, reply, other = store.add_many(
            "user:a",
            [
                episode("Did you finish the marathon in Lisbon?", "s1", 0),
                episode("Yes, last Friday!", "s1", 1),
                episode("I bought new shoes.", "s2", 2),
            ],
            now=t0,
        )
        found = [h.memory.id for h in internals(store).keyword("user:a", "marathon Lisbon", k=5)]
        assert found[0] == question.id and reply.id in found and other.id not in found
        store.archive("user:a", question.id)
        assert [
            h.memory.id for h in internals(store).keyword("user:a", "marathon Lisbon", k=5)
        ] == []


def test_an_index_never_opens_chromas_database_or_a_file_beside_it(tmp_path: Path) -> None:
    """A second SQLite connection to the file Chroma has open corrupted stores."""
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from langgraph_memory.store.lexical import LexicalIndex

    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        own_collections(store, "user:a")  # a scope in a bucket has its index in memory
        store.add("user:a", "Likes tea.")
        for wrong in ("chroma.sqlite3", "chroma.sqlite3-wal", "index.sqlite3"):
            with pytest.raises(ValueError, match="never opens Chroma's database"):
                LexicalIndex(tmp_path / "m" / wrong)
        # The store's own index files live in a folder of their own, and work.
        assert [
            p.parent.name for p in (tmp_path / "m").rglob("*.sqlite3") if p.name != "chroma.sqlite3"
        ]
        assert [h.memory.text for h in internals(store).keyword("user:a", "tea")] == ["Likes tea."]


# -- the records a read takes from the index ---------------------------------------------------


def chroma_memories(store: MemoryStore, scope: str) -> dict[str, object]:
    """The scope's active memories as Chroma holds them (read around the index)."""
    cols = internals(store)._core.collections(Scope.of(scope))
    assert cols is not None
    got = cols.active.read(include=["documents", "metadatas"])
    from langgraph_memory.store.chroma.codec import version_from_record

    return {
        i: version_from_record(i, d, m, scope).memory
        for i, d, m in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
    }


def test_the_records_and_vectors_a_read_takes_from_the_index_are_chromas(
    store: MemoryStore,
) -> None:
    """A read takes the vectors and records of its candidates from the index (an embedded
    store) or Chroma (a server): either way, what Chroma holds, after the writes that
    change records in place too (a read's ``last_accessed``); an embedded store's index
    of a bucketed person holds their vectors rounded to 8 bits a dimension
    (``bucket_entries``), so its cosines are Chroma's to 3e-3."""
    a = store.add("user:a", "Alpha likes kayaking.", importance=0.8, metadata={"speaker": "Al"})
    b = store.add("user:a", "Bravo owns a marimba.", now=T0)
    store.update("user:a", b.id, "Bravo owns two marimbas.", now=T0 + DAY)
    internals(store).touch("user:a", [a.id], now=T0 + 3 * DAY)
    truth = chroma_memories(store, "user:a")
    assert len(truth) == 2
    read = internals(store).get_memories("user:a", [*truth, "0a0a0a0a"])
    assert read == truth and read[a.id].last_accessed == T0 + 3 * DAY
    found = internals(store).candidates("user:a", "kayak", "kayaking marimbas", k=5)
    cols = internals(store)._core.collections(Scope.of("user:a"))
    assert cols is not None
    stored = cols.active.read(ids=list(truth), include=["embeddings"])
    vectors = dict(zip(stored["ids"], stored["embeddings"], strict=True))
    query = internals(store).embed_query("kayak")
    for i, cosine in found.dense.items():
        v = [float(x) for x in vectors[i]]
        norm = sum(x * x for x in v) ** 0.5 * sum(x * x for x in query) ** 0.5
        exact = sum(x * y for x, y in zip(v, query, strict=True)) / norm
        assert cosine == pytest.approx(exact, abs=3e-3)


def test_an_index_of_an_older_schema_is_rebuilt_with_the_records(tmp_path: Path) -> None:
    directory = tmp_path / "memory"
    with MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        own_collections(store, "user:a")  # a scope in a bucket has its index in memory
        kept = store.add_many("user:a", ["Alpha likes kayaking.", "Bravo owns a marimba."])
    (path,) = (directory / "lexical").glob("*.sqlite3")
    index = LexicalIndex(path)
    # What an index of the last schema held: no vectors, no records.
    index._con.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
    index._con.execute("UPDATE rec SET vec = NULL, document = NULL, meta = NULL")
    index.close()
    with MemoryStore(directory, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        assert found(store, "user:a", "kayaking") == ["Alpha likes kayaking."]
        by_id = internals(store).get_memories("user:a", [m.id for m in kept])
        assert [m.text for m in by_id.values()] == [m.text for m in kept]
    index = LexicalIndex(path)
    try:
        assert index.schema() > 4
        assert {i for i, _, _ in index.records([m.id for m in kept])} == {m.id for m in kept}
        assert set(index.vectors([m.id for m in kept])[0]) == {m.id for m in kept}
    finally:
        index.close()


def test_an_entry_without_its_record_is_read_from_chroma(tmp_path: Path) -> None:
    """An index entry that lacks its vector or record (written by a path that had none)
    costs a Chroma read, never a wrong or missing answer."""
    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        a, b = store.add_many("user:a", ["Alpha likes kayaking.", "Bravo kayaks too."])
        lexicon = internals(store)._core.live().lexicon
        cols = internals(store)._core.collections(Scope.of("user:a"))
        assert cols is not None
        with lexicon.ready(cols, internals(store)._core.engine.registry) as index:
            index._con.execute("UPDATE rec SET vec = NULL, meta = NULL WHERE id = ?", (a.id,))
        assert internals(store).get_memories("user:a", [a.id, b.id]) == {a.id: a, b.id: b}
        found_ = internals(store).candidates("user:a", "kayak", "kayaking", k=5)
        assert set(found_.dense) == {a.id, b.id}


# -- postings in memory rank as FTS5 does --------------------------------------------------------


def _zipf_entries(rng: random.Random, start: int, n: int, vocab: list[str]) -> list[Entry]:
    """Episodes of a few threads and facts naming some of them, in words of Zipf-like
    frequencies (some in most documents, most in few), like a long conversation."""
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    out = []
    for i in range(start, start + n):
        words = rng.choices(vocab, weights, k=rng.randint(3, 25))
        if i % 5 == 4:  # a fact taken from an earlier episode
            source = f"e{rng.randrange(max(1, i - 20), i):07d}"
            out.append(Entry(f"f{i:07d}", " ".join(words), (source,)))
        else:
            thread = f"t{i % 3}"
            out.append(Entry(f"e{i:07d}", " ".join(words), episodic=True, thread=thread, at=i))
    return out


def test_postings_top_k_is_every_documents_top_k() -> None:
    # The top k is taken above a bar from one term's documents: whatever the terms'
    # lengths, overlaps and ties, it is the top k of every document's score.
    rng = random.Random(5)
    for case in range(300):
        n = rng.randint(1, 60)
        vocab = [f"w{i}" for i in range(rng.randint(1, 8))]
        docs = [
            (r + 1, " ".join(rng.choices(vocab, k=rng.randint(1, 6))), f"d{r}") for r in range(n)
        ]
        postings = Postings.build(docs)
        for rowid in rng.sample(range(1, n + 1), rng.randint(0, n // 3)):  # some removed
            postings.changed(rowid, f"d{rowid - 1}", None)
        idf = {
            t: rng.choice([0.5, 1.0, 2.0]) for t in rng.sample(vocab, rng.randint(1, len(vocab)))
        }
        k = rng.randint(1, 12)
        everything = postings.top(idf, 3.0, n + 1)  # no cut: every document scored
        assert postings.top(idf, 3.0, k) == everything[:k], case


def test_postings_in_memory_rank_as_fts5_does_through_every_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(23)
    vocab = [f"w{n}" for n in range(400)]
    index = LexicalIndex(None)
    index.put(_zipf_entries(rng, 0, 600, vocab))
    index.build_postings()
    queries = [rng.sample(vocab[:60], 2) + rng.sample(vocab, 3) for _ in range(25)]

    def ranked(terms: list[str], *, postings: bool) -> list[tuple[str, float]]:
        index.postings_from = 0 if postings else 10**9
        if not postings:
            return index.search(terms, 20)
        with monkeypatch.context() as m:  # the postings rank, not FTS5
            m.setattr(index, "_fts5_top", lambda *_: pytest.fail("FTS5 ranked"))
            return index.search(terms, 20)

    def check(step: str) -> None:
        for terms in queries:
            mine, fts5 = ranked(terms, postings=True), ranked(terms, postings=False)
            assert [s for _, s in mine] == pytest.approx([s for _, s in fts5], abs=1e-9), step
            kth = fts5[-1][1] if fts5 else 0.0  # ties at the cut may differ, nothing else
            assert {i for i, s in mine if s > kth + 1e-9} == {
                i for i, s in fts5 if s > kth + 1e-9
            }, step

    check("built")
    assert index._postings is not None and index._postings.drift == 0
    index.put(_zipf_entries(rng, 600, 150, vocab))  # new episodes re-index their neighbours
    check("after adds")
    index.remove([f"e{i:07d}" for i in range(0, 600, 7)] + [f"f{i:07d}" for i in range(4, 600, 35)])
    check("after removals")
    index.put([Entry("e0000001", "w1 w2 w399", episodic=True, thread="t1", at=1)])  # replaced
    check("after a replacement")
    assert index._postings.drift > 0  # still the first build, carrying the changes
    # Many more changes: a rebuild in a thread, the changes made meanwhile applied after.
    index.postings_from = 0
    index.put(_zipf_entries(rng, 750, 700, vocab))
    first = index._postings
    index.search(["w399"], 5)  # starts the rebuild (a rare word: a common one is no query)
    index.put(_zipf_entries(rng, 1450, 40, vocab))
    deadline = time.monotonic() + 30
    while index._postings is first and time.monotonic() < deadline:
        time.sleep(0.01)
    assert index._postings is not first and 0 < index._postings.drift < 200
    check("after the rebuild")
