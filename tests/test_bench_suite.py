"""The peers, graph and ingest benchmarks and the dispatcher run end to end at tiny sizes, and
every runner that reads a dataset says what to put in a missing data folder.

No timing is asserted (benchmarks measure, tests check behaviour). The data is a tiny
LoCoMo-shaped file and a tiny LongMemEval-S-shaped one written here, and the embedder is the
bench's hashed fake, so nothing needs the shared data folder or the model. The PyPI peer
(``langgraph-memory==0.1.0`` in its own virtualenv, installed by pip) is left out unless
``LGM_BENCH_PEER=1`` is set; mem0 (``mem0ai``, benchmark-only, not a package dependency) takes
part when it is installed, and LangMem (in the dev extra) always.
"""

from __future__ import annotations

import importlib.util
import json
import lzma
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import __main__ as dispatcher
from benchmarks import (
    basestore_batch,
    episodes,
    gate_recall,
    graph_overhead,
    ingest_speed,
    maintenance,
    mcp_roundtrip,
    qa,
    retrieval,
    telemetry,
    write_cost,
)
from benchmarks.peers import compare as peers
from benchmarks.plots import draw

# Benchmarks' smoke runs: the slow tier.
pytestmark = pytest.mark.slow

PEER = os.environ.get("LGM_BENCH_PEER") == "1"
MEM0 = importlib.util.find_spec("mem0") is not None

_SENTENCES = [
    "I moved to Pune last week.",
    "My sister Maya works as a nurse.",
    "Thanks, that sounds great!",
    "I adopted a dog named Rex in May.",
    "We went hiking at the lake on Sunday.",
    "I am allergic to peanuts.",
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data folder holding a two-conversation LoCoMo-shaped ``locomo/locomo10.json``."""
    samples = []
    for c in range(2):
        turns = [
            {
                "speaker": "Alice" if i % 2 == 0 else "Bob",
                "dia_id": f"D1:{i + 1}",
                "text": f"{_SENTENCES[i % len(_SENTENCES)]} (note {c}-{i})",
            }
            for i in range(36)
        ]
        samples.append(
            {
                "sample_id": f"conv-t{c}",
                "conversation": {
                    "speaker_a": "Alice",
                    "speaker_b": "Bob",
                    "session_1_date_time": "1:56 pm on 8 May, 2023",
                    "session_1": turns,
                },
                "observation": {
                    "session_1_observation": {
                        "Alice": [["Alice moved to Pune.", "D1:1"]],
                        "Bob": [["Bob's sister Maya is a nurse.", "D1:2"]],
                    }
                },
                "qa": [
                    {
                        "question": f"Where did Alice move? ({c}-{q})",
                        "answer": "Pune",
                        "evidence": [f"D1:{q + 1}"],
                        "category": 1,
                    }
                    for q in range(8)
                ],
            }
        )
    folder = tmp_path / "data"
    (folder / "locomo").mkdir(parents=True)
    (folder / "locomo" / "locomo10.json").write_text(json.dumps(samples), encoding="utf-8")
    # LongMemEval-S's shape for the real-text scope: 12 sessions of 6 distinct turns.
    sessions = {
        f"s{n}": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"{text} (s{n}-{i})"}
            for i, text in enumerate(_SENTENCES)
        ]
        for n in range(12)
    }
    questions = [
        {
            "question": f"Where did I move? ({q})",
            "haystack_session_ids": ["s0"],
            "haystack_dates": ["2023/05/20 (Sat) 10:00"],
        }
        for q in range(24)
    ]
    (folder / "longmemeval").mkdir()
    (folder / "longmemeval" / "longmemeval_s_cleaned.dedup.json.xz").write_bytes(
        lzma.compress(json.dumps({"questions": questions, "sessions": sessions}).encode("utf-8"))
    )
    return folder


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every attempt to connect a socket off this machine fails, and is recorded."""
    tried: list[object] = []
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if host is not None and host not in ("127.0.0.1", "::1", "localhost"):
            tried.append(address)
            raise OSError(f"the peers benchmark tried the network: {address!r}")
        connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return tried


def test_peers_bench_reports_recall_and_ratios(
    data: Path, tmp_path: Path, no_network: list[object]
) -> None:
    out = tmp_path / "peers.json"
    args = ["--data", str(data), "--queries", "4", "--sizes", "20,60", "--fake-embedder"]
    args += ["--out", str(out), "--cache", str(tmp_path / "cache")]
    if PEER:
        args += ["--peer-venv", str(tmp_path / "peer-venv")]
    else:
        args.append("--skip-peer-package")
    assert peers.main(args) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["config"]["memories"] == 72 and report["config"]["questions"] == 16
    assert report["config"]["sizes"] == [20, 60] and report["config"]["real_questions"] == 24
    systems = {"ours_retrieve", "ours_nearest", "naive_chroma", "lg_inmemory", "langmem_tool"}
    if MEM0:
        systems.add("mem0")
        assert report["systems"]["mem0"].startswith("mem0ai ")
    else:
        assert report["systems"]["mem0"].startswith("not installed")
    assert systems <= set(report["recall_at_10"])
    for r in report["recall_at_10"].values():
        assert 0.0 <= r["recall"] <= r["hit"] <= 1.0 and r["n"] == 16
    # The same data and vectors: plain vector search finds the same turns in every system.
    recall = report["recall_at_10"]
    assert recall["ours_nearest"] == recall["naive_chroma"] == recall["lg_inmemory"]
    assert recall["langmem_tool"] == recall["lg_inmemory"]  # the tool searches that store
    if MEM0:
        assert recall["mem0"] == recall["naive_chroma"]
    assert set(report["latency"]) == {
        "locomo/vector",
        "locomo/embed",
        "real-20/vector",
        "real-20/embed",
        "real-60/vector",
        "real-60/embed",
    }
    for stats in report["latency"].values():
        assert systems <= set(stats)
        assert stats["ours_retrieve"]["ratio_over_ours_retrieve"]["p50"] == pytest.approx(1.0)
    assert report["load"]["ours"]["real-60"]["total"] == 72 + 60
    assert report["capped"] == {}
    if PEER:
        assert "peer_engine" in report["recall_at_10"]
        assert "peer_engine" in report["latency"]["real-60/vector"]
        assert report["peer"]["embedder_max_abs_diff"] < 1e-5
    else:
        assert report["peer"]["status"].startswith("skipped")
    assert draw(report, tmp_path, "peers").read_bytes()[:4] == b"\x89PNG"
    assert no_network == []  # mem0 without telemetry, LangMem, the stores: all offline


def test_peers_bench_stops_a_slow_system_at_its_ingest_budget(data: Path, tmp_path: Path) -> None:
    """A zero budget: every system but ours stops after LoCoMo, with its rate as the reason."""
    out = tmp_path / "peers.json"
    args = ["--data", str(data), "--queries", "4", "--sizes", "20", "--fake-embedder"]
    args += ["--out", str(out), "--skip-peer-package", "--skip-mem0", "--ingest-budget", "0"]
    assert peers.main(args) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["capped"]) == {"naive", "lg"}
    assert report["capped"]["lg"]["stopped_at"] == 0 and report["capped"]["lg"]["rate_per_s"] > 0
    assert set(report["latency"]["real-20/vector"]) == {"ours_retrieve", "ours_nearest"}
    assert "lg_inmemory" in report["latency"]["locomo/vector"]
    assert "not run: ingest" in peers.render_markdown(report)


def test_graph_bench_reports_invoke_ratio_and_write_path(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data", str(data), "--turns", "3", "--prefill", "20", "--write-turns", "12"]
    stall = ["--users", "3", "--user-turns", "2", "--user-prefill", "10", "--no-server"]
    assert graph_overhead.main([*args, *stall, "--fake-embedder"]) == 0
    text = capsys.readouterr().out
    assert "no memory (baseline)" in text and "write path's own" in text
    assert "3 users at once, 2 turns each" in text and "embedded store |" in text
    assert "another Python thread's longest wait" in text


def test_ingest_bench_reports_ratios_vs_default(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "ingest.json"
    only = "unsorted,add_many_10,pipelined_thread,embed_only"
    args = ["--data", str(data), "--n", "40", "--repeats", "1", "--only", only]
    assert ingest_speed.main([*args, "--fake-embedder", "--out", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))["results"]
    assert set(results) == {"default", *only.split(",")}
    assert results["default"]["ratio_vs_default"] == pytest.approx(1.0)
    assert all(r["turns_per_s_median"] > 0 for r in results.values())


def test_episodes_bench_reports_what_episodes_cost(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "episodes.json"
    args = ["--data", str(data), "--turns", "20", "--graph-turns", "6", "--prefill", "10"]
    assert episodes.main([*args, "--fake-embedder", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    counts = report["inline"]["counts"]
    assert counts["episodes_on"]["episodes"] == 20 and counts["episodes_off"]["episodes"] == 0
    assert counts["episodes_on"]["facts"] == counts["episodes_off"]["facts"]
    assert counts["episodes_on"]["model_calls"] == counts["episodes_off"]["model_calls"]
    assert report["inline"]["bytes_per_turn_added"] > 0
    graphs = {"no_memory", "write_on", "write_off", "memory_on", "memory_off"}
    assert graphs <= set(report["deferred"]["idle"]) and graphs <= set(
        report["deferred"]["back_to_back"]
    )


def test_maintenance_bench_reports_paths_per_1k_against_a_read(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "maintenance.json"
    args = ["--data", str(data), "--sizes", "4", "--repeats", "2", "--fake-embedder"]
    assert maintenance.main([*args, "--out", str(out)]) == 0
    [size] = json.loads(out.read_text(encoding="utf-8"))["sizes"]
    assert size["memories"] == 5, "4 facts and the first one stated again"
    assert set(size["paths"]) == set(maintenance.PATHS)
    assert size["paths"]["read"]["ratio_vs_read"] == pytest.approx(1.0)
    # Both conversations hold the same two facts: two clusters of identical texts.
    assert size["paths"]["consolidate_rules"]["merged"] == 2
    chat = size["paths"]["consolidate_chat"]
    assert (chat["merged"], chat["model_calls"]) == (2, pytest.approx(2 * 1000 / 5)), "per 1k"
    again = size["paths"]["maintain_again"]
    assert again["merged"] == again["decayed"] == 0, "a second run right after changes nothing"


def test_dispatcher_knows_every_bench(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    benches = {
        "store",
        "peers",
        "graph",
        "ingest",
        "write-cost",
        "gate",
        "episodes",
        "cli",
        "imports",
        "multiprocess",
        "scale",
        "rules",
        "window",
        "inspector",
        "basestore-batch",
        "users",
        "concurrency",
        "telemetry",
        "mcp",
    }
    benches |= {"maintenance"}
    evaluations = {"retrieval", "qa", "components", "redteam", "plots", "reads"}
    # the corpus of acts, its trainer and the model with it (issue 43)
    tools = {"acts-corpus", "acts-train", "acts-product"}
    assert set(dispatcher.BENCHES) == benches | evaluations | tools
    assert dispatcher.main([]) == 2
    assert dispatcher.main(["nope"]) == 2
    args = ["--data", str(data), "--n", "10", "--repeats", "1", "--only", "embed_only"]
    assert dispatcher.main(["ingest", *args, "--fake-embedder"]) == 0
    assert "ratio vs default" in capsys.readouterr().out


def test_basestore_batch_bench_compares_the_two_stores(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "batch.json"
    args = ["--data", str(data), "--ops", "120", "--tasks", "3", "--batch", "10", "--repeats", "1"]
    assert dispatcher.main(["basestore-batch", *args, "--fake-embedder"]) == 0
    assert "ratio MemoryStore / InMemoryStore" in capsys.readouterr().out
    assert basestore_batch.main([*args, "--fake-embedder", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["ops"] == 120 and report["ratio"] > 0
    for name in ("memorystore", "inmemory"):
        # Each batch's puts embed in one call (a batch without puts makes none).
        assert report[name]["embed_documents_calls_per_batch"] <= 1.0


def test_basestore_batch_bench_sends_single_calls_too(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "calls.json"
    args = ["--data", str(data), "--ops", "120", "--tasks", "3", "--batch", "10", "--repeats", "1"]
    args += ["--single-calls", "--fake-embedder", "--out", str(out)]
    assert basestore_batch.main(args) == 0
    assert "MemoryStore, a batch per call" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["sent_as"] == "single calls" and report["gathered_speedup"] > 0
    # Gathered, the single calls make fewer embedder calls than one batch per call does.
    gathered, per_call = report["memorystore"], report["memorystore_per_call"]
    assert gathered["embed_documents_calls_per_batch"] < per_call["embed_documents_calls_per_batch"]


RUNNERS = {
    "peers": peers.main,
    "graph": graph_overhead.main,
    "ingest": ingest_speed.main,
    "write-cost": write_cost.main,
    "gate": gate_recall.main,
    "episodes": episodes.main,
    "maintenance": maintenance.main,
    "basestore-batch": basestore_batch.main,
    "telemetry": telemetry.main,
    "retrieval": lambda argv: retrieval.main([*argv, "--dataset", "locomo"]),
    "qa": lambda argv: qa.main([*argv, "--dataset", "locomo", "--no-judge"]),
}


@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_a_runner_without_its_data_says_what_to_put_there(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:  # --data is required: no default folder
        RUNNERS[name]([])
    assert exited.value.code == 2 and "--data" in capsys.readouterr().err
    assert RUNNERS[name](["--data", str(tmp_path / "nowhere")]) == 2
    message = capsys.readouterr().err
    assert f"{tmp_path / 'nowhere'} not found" in message
    assert "locomo/locomo10.json: LoCoMo-10" in message and "../shared/data" in message


def test_peers_loads_a_text_said_twice_in_one_scope(tmp_path: Path) -> None:
    """LoCoMo repeats turns within a conversation: every system keeps each as a memory."""
    emb = peers.TableEmbeddings(peers.HashedUnitEmbeddings(), {})
    systems = peers.InProcess(tmp_path, emb, mem0=False, langmem=True)
    try:
        docs = [peers.Doc("conv-x", "Alice: ok", f"D1:{i}") for i in (1, 2)]
        took = systems.add(docs, systems.loaders)
        assert set(took) == {"ours", "naive", "lg"}
        paths = systems.paths(["conv-x"], ["Alice: ok"], systems.loaders)
        for name, path in paths.items():
            assert sorted(path.texts(path.call(0))) == ["D1:1", "D1:2"], name
    finally:
        systems.close()


def test_telemetry_bench_records_one_span_a_read_on_and_none_off(
    data: Path, tmp_path: Path
) -> None:
    """In a process of its own: OpenTelemetry's global providers are set once a process."""
    out = tmp_path / "telemetry.json"
    args = ["--data", str(data), "--questions", "5", "--rounds", "2"]
    args += ["--fake-embedder", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "telemetry", *args],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ratio on / off" in done.stdout
    report = json.loads(out.read_text())
    asked = report["questions"]
    assert asked > 0 and report["reads_per_side"] == 2 * asked
    # Each read on is one exported span and one latency point (the warm-up's and the
    # first asks' too); off, none.
    first = report["first_ask"]
    assert report["spans_per_read_on"] == 1.0 and first["reads_per_side"] == asked
    assert report["read_duration_points"] == 2 * asked + asked + asked
    assert report["off_p50_ms"] > 0 and report["ratio_on_off"] > 0 and first["ratio_on_off"] > 0
    # The SDK's floor, a span made by hand around the same read, is a side of both rows.
    for row in (report, first):
        assert row["sdk_alone_p50_ms"] > 0
        assert row["ratio_on_sdk_alone"] == row["on_p50_ms"] / row["sdk_alone_p50_ms"]
    assert "SDK alone / off" in done.stdout
    assert "asked the first time" in done.stdout


def test_mcp_bench_times_a_search_each_way_against_in_process(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command over stdio and HTTP in subprocesses, each side's searches counted."""
    out = tmp_path / "mcp.json"
    args = ["--data", str(data), "--questions", "3", "--rounds", "1", "--out", str(out)]
    assert mcp_roundtrip.main(args) == 0
    assert "ratio stdio / in process" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["searches_per_side"] == 3
    for side in mcp_roundtrip.SIDES:
        assert report[f"{side}_p50_ms"] > 0
    assert report["ratio_stdio_in_process"] > 0 and report["ratio_http_in_process"] > 0
