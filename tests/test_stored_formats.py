"""An upgrade never loses memory: every store fixture an earlier release wrote
opens in this one, embedded and through `chroma run`, with nothing lost; a store
of a newer format is refused; migrations are numbered, idempotent and survive a
SIGKILL; and a change to what the store writes without a new format fails here.

The fixtures are in ``tests/fixtures/stores/<name>/``: the store a release wrote
(``store.tar.gz``), what that release read back from it (``expected.json``) and
which release it was (``SOURCE.json``); ``rebuild.py`` makes them.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
import uuid
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings
from conftest import ChromaServer, older_layout, running_server
from langchain_core.embeddings import DeterministicFakeEmbedding

from langgraph_memory import (
    BackgroundWriter,
    MemoryStore,
    MemoryWriter,
    StoreFormatError,
)
from langgraph_memory.cli import main
from langgraph_memory.embeddings import LocalMiniLM
from langgraph_memory.store import internals
from langgraph_memory.store.chroma import door, formats, layout, migrations
from langgraph_memory.store.chroma.door import client_of
from langgraph_memory.store.data.upgrade import restore_backup, upgrade
from langgraph_memory.store.lexical import SCHEMA, bucket_entries
from langgraph_memory.write import RulesModel

FIXTURES = Path(__file__).parent / "fixtures" / "stores"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "store.tar.gz").exists())
sys.path.insert(0, str(FIXTURES))
from build import record  # noqa: E402  (the fixtures' own reader: what "nothing lost" means)

SETTINGS = Settings(anonymized_telemetry=False)


def unpacked(name: str, into: Path) -> Path:
    """A fixture's store, unpacked into ``into`` (a test never writes the fixture)."""
    with tarfile.open(FIXTURES / name / "store.tar.gz") as tar:
        tar.extractall(into, filter="data")
    return into / "store"


def expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name / "expected.json").read_text("utf-8"))
    return data


def as_read(found: dict[str, Any]) -> dict[str, Any]:
    """``record``'s output as JSON gives it back (tuples become lists)."""
    return json.loads(json.dumps(found))


def test_there_is_a_fixture_for_every_format_since_the_first() -> None:
    assert [f"format-{n}" for n in range(1, formats.FORMAT + 1)] == NAMES, (
        "every format this release reads needs a fixture its release wrote: "
        "python tests/fixtures/stores/rebuild.py --release <commit> --name format-N"
    )


# -- every fixture opens with nothing lost ---------------------------------------------------


@pytest.mark.slow  # every earlier format's store
@pytest.mark.parametrize("name", NAMES)
def test_an_earlier_store_opens_embedded_with_nothing_lost(
    name: str, tmp_path: Path, embedder: LocalMiniLM, capsys: pytest.CaptureFixture[str]
) -> None:
    path = unpacked(name, tmp_path)
    want = expected(name)
    store = MemoryStore(path, embeddings=embedder)
    try:
        assert migrations.store_format(
            client_of(internals(store).client).open(layout.REGISTRY)
        ) == (formats.FORMAT)
        found = as_read(record(store))
        assert found == {k: v for k, v in want.items() if k != "pending_turns"}
        # The turns a writer accepted before its process died are replayed now.
        with BackgroundWriter(MemoryWriter(store, model=RulesModel())) as background:
            assert background.flush(timeout=120)
        for scope, said in want["pending_turns"]:
            assert said in [m.text for m in store.active(scope)], (scope, said)
        # Writes, the log, export and purge work on it.
        added = store.add("user:bob", "User's cat Miso is three years old.")
        assert added.id in [
            h.memory.id for h in internals(store).keyword("user:bob", "Miso cat", k=5)
        ]
        exported = store.export("user:alice")
        assert {r["status"] for r in exported["reviews"]} == {"approved", "pending"}
        alice_fact = next(m for m in store.active("user:alice", episodes=False))
    finally:
        store.close()
    assert main(["why", "--path", str(path), "--user", "alice", alice_fact.id]) == 0
    assert alice_fact.text in capsys.readouterr().out
    with MemoryStore(path, embeddings=embedder) as store:
        assert store.purge("user:alice")["memories"] > 0
        assert store.active("user:alice") == [] and store.reviews(status=None) == []
        assert [m.text for m in store.active("agent:support")] == [
            "Refunds take five working days."
        ]


@pytest.mark.server
@pytest.mark.parametrize("name", NAMES)
def test_an_earlier_store_opens_through_chroma_run_with_nothing_lost(
    name: str, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    path = unpacked(name, tmp_path)
    want = expected(name)
    with running_server(path) as server:
        store = MemoryStore(client=server.client(), embeddings=embedder)
        try:
            found = as_read(record(store))
            assert found == {k: v for k, v in want.items() if k != "pending_turns"}
            # A writer on a server keeps its journal where its app runs: the same file.
            journal = path / layout.JOURNAL_FILE
            writer = MemoryWriter(store, model=RulesModel())
            with BackgroundWriter(writer, journal=journal) as background:
                assert background.flush(timeout=120)
            for scope, said in want["pending_turns"]:
                assert said in [m.text for m in store.active(scope)]
            store.add("user:bob", "User's cat Miso is three years old.")
            assert store.export("agent:support")["memories"]
        finally:
            store.close()


# -- a newer store is refused, never read nor written -------------------------------------


def future_stamped(path: Path) -> None:
    client = chromadb.PersistentClient(str(path), settings=SETTINGS)
    registry = client.get_collection(layout.REGISTRY)
    registry.modify(metadata={**(registry.metadata or {}), formats.FORMAT_KEY: 999})
    client.close()  # type: ignore[attr-defined]


@pytest.mark.server
def test_a_store_of_a_newer_format_is_refused_embedded_and_on_a_server(
    tmp_path: Path, embedder: LocalMiniLM, capsys: pytest.CaptureFixture[str]
) -> None:
    path = unpacked(NAMES[-1], tmp_path)
    future_stamped(path)
    before = sorted((p.relative_to(path), p.stat().st_size) for p in path.rglob("*") if p.is_file())
    message = f"written by format 999; this release reads up to format {formats.FORMAT}"
    with pytest.raises(StoreFormatError, match=message):
        MemoryStore(path, embeddings=embedder)
    assert main(["show", "--path", str(path), "--user", "alice"]) == 1
    assert "upgrade langgraph-memory-kit" in capsys.readouterr().err
    assert main(["migrate", "--path", str(path)]) == 1
    assert message in capsys.readouterr().err
    after = sorted((p.relative_to(path), p.stat().st_size) for p in path.rglob("*") if p.is_file())
    assert [f for f, _ in after if f.name != "langgraph_memory.lock"] == [
        f for f, _ in before if f.name != "langgraph_memory.lock"
    ]
    with running_server(path) as server, pytest.raises(StoreFormatError, match=message):
        MemoryStore(client=server.client(), embeddings=embedder)


def test_a_scope_a_newer_release_made_is_refused(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        store.add("user:a", "Likes tea.")
        cols = internals(store)._core.collections(store.scopes()[0])
        assert cols is not None  # a bucket's collection, which its scopes share
        active = internals(store).client.get_collection(cols.names[0])
        active.modify(metadata={**(active.metadata or {}), formats.FORMAT_KEY: 999})
    again = MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8))
    with again, pytest.raises(StoreFormatError, match="user:a was written by format 999"):
        again.active("user:a")


# -- migrations: numbered, idempotent, on open when small, by hand otherwise -------------------


def _index_settings(configuration: dict[str, Any]) -> dict[str, Any]:
    """A collection's configuration but how often its index is written (see ``door``)."""
    hnsw = {k: v for k, v in (configuration.get("hnsw") or {}).items() if k != "sync_threshold"}
    return {**configuration, "hnsw": hnsw}


def test_each_step_is_idempotent_and_changes_no_record(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    path = unpacked("format-1", tmp_path)
    client = chromadb.PersistentClient(str(path), settings=SETTINGS)
    names = migrations.store_collections(client_of(client))
    records = {n: client.get_collection(n).get(include=["documents", "metadatas"]) for n in names}
    settings = {n: _index_settings(client.get_collection(n).configuration_json) for n in names}
    for step in migrations.STEPS:
        before = step.count(client_of(client))
        assert before > 0
        assert step.apply(client_of(client)) == before
        assert (
            step.count(client_of(client)) == 0 and step.apply(client_of(client)) == 0
        )  # a second run: nothing
    assert {
        n: client.get_collection(n).get(include=["documents", "metadatas"]) for n in names
    } == records
    after = {n: client.get_collection(n).configuration_json for n in names}
    assert {n: _index_settings(c) for n, c in after.items()} == settings
    # What may change: a collection the steps opened writes its index on every write now
    # (tests/test_budget.py), the registry now and then (door.PLACEHOLDER_PERSIST); the
    # others do from their first open.
    written = {door.PERSIST_EVERY, door.PLACEHOLDER_PERSIST, 1000}
    assert {c["hnsw"]["sync_threshold"] for c in after.values()} <= written
    for name in names:
        if name != layout.REGISTRY:  # the registry's stamp is the migration runner's
            assert (client.get_collection(name).metadata or {})[formats.FORMAT_KEY] == (
                formats.FORMAT
            )
    client.close()  # type: ignore[attr-defined]


def stamped_alone(fixture: str, to: int, tmp_path: Path) -> Path:
    """Unpack ``fixture`` and apply the step to format ``to`` alone: it stamps every
    collection but the registry, once, and changes no record. The store's path."""
    path = unpacked(fixture, tmp_path)
    client = chromadb.PersistentClient(str(path), settings=SETTINGS)
    names = migrations.store_collections(client_of(client))
    records = {n: client.get_collection(n).get(include=["documents", "metadatas"]) for n in names}
    [step] = [s for s in migrations.STEPS if s.to == to]
    assert step.additive and step.count(client_of(client)) == len(names) - 1  # all but the registry
    assert step.apply(client_of(client)) == len(names) - 1
    assert step.count(client_of(client)) == 0 and step.apply(client_of(client)) == 0
    assert {
        n: client.get_collection(n).get(include=["documents", "metadatas"]) for n in names
    } == records
    client.close()  # type: ignore[attr-defined]
    return path


def test_step_3_stamps_a_format_2_store_and_changes_no_record(tmp_path: Path) -> None:
    """Format 3 only adds a key (``indexed: false``) that no older record has."""
    stamped_alone("format-2", 3, tmp_path)


def test_step_4_stamps_a_format_3_store_and_changes_no_record(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    """Format 4 only adds keys (a vector per field) that no older record has: items
    put before keep their one vector (their joined text's) and score by it."""
    path = stamped_alone("format-3", 4, tmp_path)
    with MemoryStore(path, embeddings=embedder) as store:  # a put now keeps field vectors
        namespace = ("prefs", "alice", "ui")
        [before] = store.search(namespace, query="dark mode")
        store.put(
            namespace, "trip", {"title": "Oslo.", "body": "Dark mode."}, index=["title", "body"]
        )
        found = {item.key: item.score for item in store.search(namespace, query="dark mode")}
        assert found["theme"] == pytest.approx(before.score, abs=1e-6)
        best = max(cos(embedder, "dark mode", text) for text in ("Oslo.", "Dark mode."))
        assert found["trip"] == pytest.approx(best, abs=1e-6)


def cos(embedder: LocalMiniLM, query: str, text: str) -> float:
    q, v = embedder.embed_query(query), embedder.embed_documents([text])[0]
    dot = sum(a * b for a, b in zip(q, v, strict=True))
    return float(dot / (sum(a * a for a in q) ** 0.5 * sum(b * b for b in v) ** 0.5))


def test_a_format_4_item_with_several_fields_scores_by_its_best(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    path = unpacked("format-4", tmp_path)
    query = "night train from Bergen"
    with MemoryStore(path, embeddings=embedder) as store:
        [item] = store.search(("docs", "alice"), query=query)
    best = max(cos(embedder, query, item.value[field]) for field in ("title", "body"))
    assert item.score == pytest.approx(best, abs=1e-6)


def test_a_large_older_store_is_refused_until_migrated_by_hand(
    tmp_path: Path,
    embedder: LocalMiniLM,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = unpacked("format-1", tmp_path)
    monkeypatch.setattr(migrations, "AUTOMATIC_MAX", 5)  # as if it held thousands of scopes
    with pytest.raises(StoreFormatError, match=r"Run `langgraph-memory migrate`"):
        MemoryStore(path, embeddings=embedder)
    assert main(["migrate", "--path", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "format 1 (langgraph-memory-kit 0.1.0 or earlier)" in out
    assert "step 2: stamp the format on every collection of the store:" in out
    assert "dry run: nothing changed" in out
    assert not list(tmp_path.glob("store.backup-*"))
    assert main(["migrate", "--path", str(path)]) == 0
    out = capsys.readouterr().out
    [backup] = tmp_path.glob("store.backup-format1-*")
    assert f"migrated to format {formats.FORMAT}" in out and str(backup) in out
    # The backup is the store as it was: format 1, every file.
    old = chromadb.PersistentClient(str(backup), settings=SETTINGS)
    assert migrations.store_format(client_of(old).open(layout.REGISTRY)) == 1
    old.close()  # type: ignore[attr-defined]
    with MemoryStore(path, embeddings=embedder) as store:
        assert as_read(record(store)) == {
            k: v for k, v in expected("format-1").items() if k != "pending_turns"
        }
    assert main(["migrate", "--path", str(path)]) == 0
    assert "nothing to migrate" in capsys.readouterr().out


@pytest.mark.server
def test_migrate_on_a_chroma_server_backs_up_and_restores(
    tmp_path: Path, embedder: LocalMiniLM, capsys: pytest.CaptureFixture[str]
) -> None:
    path = unpacked("format-1", tmp_path / "served")
    with running_server(path) as server:
        args = ["migrate", "--server", f"{server.host}:{server.port}"]
        assert main([*args, "--dry-run"]) == 0
        assert "step 2:" in capsys.readouterr().out
        backup = tmp_path / "backup"
        assert main([*args, "--backup", str(backup)]) == 0
        assert f"migrated to format {formats.FORMAT}" in capsys.readouterr().out
        client = server.client()
        assert migrations.store_format(client_of(client).open(layout.REGISTRY)) == formats.FORMAT
        with MemoryStore(client=client, embeddings=embedder) as store:
            want = {k: v for k, v in expected("format-1").items() if k != "pending_turns"}
            assert as_read(record(store)) == want
        # The backup holds the store as it was; restored, it is format 1 again.
        restore_backup(backup, client)
        assert migrations.store_format(client_of(client).open(layout.REGISTRY)) == 1
        with MemoryStore(client=server.client(), embeddings=embedder) as store:
            assert as_read(record(store)) == want


def unstamped_store(path: Path, scopes: int) -> None:
    """A store as format 1 wrote one, with many scopes: every stamp removed."""
    with older_layout(), MemoryStore(path, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        store.add_many("user:first", [f"Memory {i} of the first user." for i in range(3)])
        for i in range(scopes):
            store.add(f"user:u{i}", f"User {i} likes the number {i}.")
    client = chromadb.PersistentClient(str(path), settings=SETTINGS)
    stamps = (formats.FORMAT_KEY, formats.WRITTEN_BY_KEY, formats.CHROMADB_KEY)
    for name in migrations.store_collections(client_of(client)):
        collection = client.get_collection(name)
        meta = {k: v for k, v in (collection.metadata or {}).items() if k not in stamps}
        if name in (layout.REGISTRY, layout.REVIEWS):
            meta["lgm_schema"] = 1
        collection.modify(metadata=meta)
    client.close()  # type: ignore[attr-defined]


@pytest.mark.slow  # a migration killed in a subprocess
def test_a_migration_killed_half_way_is_run_again_safely(tmp_path: Path) -> None:
    """SIGKILL during the step: the format is not recorded, some collections are
    stamped; the next run finishes, and nothing of the data changed."""
    path = tmp_path / "m"
    unstamped_store(path, scopes=150)
    client = chromadb.PersistentClient(str(path), settings=SETTINGS)
    total = migrations.STEPS[0].count(client_of(client))
    client.close()  # type: ignore[attr-defined]
    code = (
        "import sys; from langgraph_memory.store.data.upgrade import upgrade; "
        "upgrade(sys.argv[1], backup=sys.argv[2])"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    partial = None
    for attempt in range(8):
        child = subprocess.Popen(
            [sys.executable, "-c", code, str(path), str(tmp_path / f"backup{attempt}")], env=env
        )
        # Kill once the step has begun: the backup is complete before the step runs.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            if (tmp_path / f"backup{attempt}" / "chroma.sqlite3").exists():
                time.sleep(0.3 + 0.2 * attempt)
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        client = chromadb.PersistentClient(str(path), settings=SETTINGS)
        left = migrations.STEPS[0].count(client_of(client))
        found = migrations.store_format(client_of(client).open(layout.REGISTRY))
        client.close()  # type: ignore[attr-defined]
        assert found == 1 or left == 0  # the format is recorded only once the step is done
        if 0 < left < total:
            partial = left
            break
    assert partial is not None, "no kill landed in the middle of the step"
    report = upgrade(path, backup=tmp_path / "final")
    # Step 2 finishes what the kill left; step 3 then stamps every collection.
    assert report.steps[0] == (2, migrations.STEPS[0].what, partial)
    assert [step[0] for step in report.steps] == list(range(2, formats.FORMAT + 1))
    with MemoryStore(path, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        assert len(store.scopes()) == 151
        assert [m.text for m in store.active("user:u7")] == ["User 7 likes the number 7."]


# -- what the store writes is the format it says -----------------------------------------------


def signature(path: Path) -> dict[str, Any]:
    """The shape of what a store holds: each collection role's collection and
    record metadata keys (user metadata aside) and the journal's record keys. Equal
    shapes, equal format. The lexical index is derived from Chroma and versioned on
    its own (``lexical_layout``)."""
    client = chromadb.PersistentClient(str(path), settings=SETTINGS)
    shape: dict[str, Any] = {}
    for name in migrations.store_collections(client_of(client)):
        collection = client.get_collection(name)
        role = name if not name.startswith("lgm-") else name.rsplit("-", 1)[1]
        keys = set(collection.metadata or {})
        found = collection.get(include=["metadatas"])
        fields = {k for m in found["metadatas"] or [] for k in m or {} if not k.startswith("m.")}
        entry = shape.setdefault(role, {"collection": set(), "records": set()})
        entry["collection"] |= keys
        entry["records"] |= fields
    client.close()  # type: ignore[attr-defined]
    lines = (path / layout.JOURNAL_FILE).read_text("utf-8").splitlines()
    shape["journal"] = {"records": {k for line in lines for k in json.loads(line)}}
    return {k: {kk: sorted(map(str, vv)) for kk, vv in v.items()} for k, v in sorted(shape.items())}


def lexical_layout(path: Path) -> tuple[int, str]:
    """The schema number a store's lexical index file says, and a digest of its tables."""
    lexical = sorted((path / "lexical").glob("*.sqlite3"))[0]
    with sqlite3.connect(lexical) as con:
        tables = sorted(r[0] for r in con.execute("SELECT sql FROM sqlite_master") if r[0])
        (schema,) = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return int(schema), hashlib.sha256("\n".join(tables).encode()).hexdigest()[:16]


#: The tables of each lexical index schema (``store.lexical.index.SCHEMA``), by digest.
LEXICAL_LAYOUTS = {5: "119aadf5bc519f0e"}


def buckets_layout(path: Path) -> tuple[str, str]:
    """The layout the file of bucketed scopes' entries says, and a digest of its tables."""
    with sqlite3.connect(path / "lexical" / bucket_entries.FILE) as con:
        tables = sorted(r[0] for r in con.execute("SELECT sql FROM sqlite_master") if r[0])
        (said,) = con.execute("SELECT value FROM meta WHERE key = 'layout'").fetchone()
    return str(said), hashlib.sha256("\n".join(tables).encode()).hexdigest()[:16]


#: The tables of each layout of that file (``bucket_entries.LAYOUT`` and ``SCHEMA``).
BUCKETS_LAYOUTS = {
    "1.5": "9b2123ea491ed8ae",
    "2.5": "7add75f90e6233f8",
    "3.5": "7add75f90e6233f8",  # the same tables: vectors in 8 bits
    "4.5": "435e2c657413c78f",  # each scope's bucket (``home``); a 3.5 file is upgraded
    "5.5": "435e2c657413c78f",  # the same tables: scopes of their own vouched for (``OWN``)
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture store as this release builds it (``fixtures/stores/build.py``)."""
    folder = tmp_path_factory.mktemp("built") / "out"  # build.py makes the folder
    subprocess.run(
        [sys.executable, str(FIXTURES / "build.py"), str(folder)],
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    return folder / "store"


@pytest.mark.slow  # builds a store of every kind
def test_the_lexical_index_layout_is_the_schema_it_says(built: Path) -> None:
    """A change to the lexical index's tables needs a new ``SCHEMA``: an index file of
    another schema is then erased and rebuilt from Chroma when its scope is next used
    (no store format or migration: nothing in Chroma changed). Pin the new layout here."""
    with MemoryStore(built, embeddings=LocalMiniLM()) as store:
        # The scope with collections of its own has an index file once read (one in a
        # bucket keeps its index in memory).
        assert internals(store).keyword("agent:concierge", "beds Lisbon wing", k=1)
    schema, digest = lexical_layout(built)
    assert schema == SCHEMA
    assert LEXICAL_LAYOUTS.get(schema) == digest, (
        f"the lexical index's tables changed ({digest}): bump store.lexical.index.SCHEMA "
        "to a new number and pin its digest in LEXICAL_LAYOUTS"
    )
    said, digest = buckets_layout(built)
    assert said == f"{bucket_entries.LAYOUT}.{SCHEMA}"
    assert BUCKETS_LAYOUTS.get(said) == digest, (
        f"the tables of {bucket_entries.FILE} changed ({digest}): bump "
        "store.lexical.bucket_entries.LAYOUT and pin its digest in BUCKETS_LAYOUTS"
    )


@pytest.mark.slow  # builds a store of every kind
def test_what_this_release_writes_is_the_format_it_says(built: Path, tmp_path: Path) -> None:
    """Build the fixture store with this release and compare its shape with the
    shape of the fixture of the current format: a change to what the store writes
    needs a new format, a migration step and a fixture (rebuild.py)."""
    current = unpacked(f"format-{formats.FORMAT}", tmp_path / "fixture")
    assert signature(built) == signature(current), (
        "what the store writes changed: bump store.formats.FORMAT, add a migration step "
        "(store/chroma/migrations.py) and a fixture: python tests/fixtures/stores/rebuild.py "
        f"--release <commit> --name format-{formats.FORMAT + 1}"
    )


@pytest.mark.server
def test_a_new_store_is_stamped_with_this_format_on_a_server(chroma_server: ChromaServer) -> None:
    client = chroma_server.client(f"db{uuid.uuid4().hex}")
    with MemoryStore(client=client, embeddings=DeterministicFakeEmbedding(size=8)) as store:
        store.add("user:a", "Likes tea.")
        meta = client.get_collection(layout.REGISTRY).metadata or {}
        assert meta[formats.FORMAT_KEY] == formats.FORMAT
        assert meta[formats.WRITTEN_BY_KEY].startswith("langgraph-memory-kit ")
        assert meta[formats.CHROMADB_KEY] == chromadb.__version__
        cols = internals(store)._core.collections(store.scopes()[0])
        assert cols is not None and cols.bucket is not None
        for name in cols.names:
            assert (client.get_collection(name).metadata or {})[formats.FORMAT_KEY] == (
                formats.FORMAT
            )
