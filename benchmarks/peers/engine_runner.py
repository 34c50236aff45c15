"""The PyPI peer ``langgraph-memory==0.1.0`` loaded, asked and timed in its own virtualenv.

A plain script, not imported by the benchmark: ``benchmarks.peers.venv`` runs it with the peer
virtualenv's python, isolated (``-I``), on a request file, and reads back a result file::

    PEER_VENV/bin/python -I benchmarks/peers/engine_runner.py request.json result.json

The peer shares our import name (``langgraph_memory``), so the two packages cannot be
installed in one environment, and ``pip install -e`` of this checkout into the peer's
virtualenv would overwrite the peer. So the runner first imports what it needs of this
checkout, by path: the benchmarks' stand-in embedders and, for the real embedder, our
``langgraph_memory.embeddings.LocalMiniLM`` itself (the module alone: the package's
``__init__`` would load the store and Chroma, which the peer's virtualenv does not have).
Then it takes this checkout off ``sys.path`` and out of ``sys.modules``, so that
``import langgraph_memory`` finds the peer, and checks that it did.

The request holds the memories (text, namespace, LoCoMo turn id), their vectors and the
questions' vectors (computed once by the benchmark), and the stages: load the memories up to
``upto``, then run the stage's jobs. Each job asks the peer's ``MemoryEngine.recall`` every
query of a list, either with the vector given (the embedder answers from the table) or
embedding the question inside the call (``live``). A stage that the ingest rate measured so
far could not reach within ``ingest_budget_s`` ends the run (``capped`` says why).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

#: This checkout's root: benchmarks/peers/engine_runner.py is three levels below it.
REPO = Path(__file__).resolve().parents[2]
#: The namespace field the peer's ``InMemoryStore`` index embeds.
FIELDS = ["content"]


def _import_ours(module: str) -> Any:
    """``module`` of this checkout's ``langgraph_memory``, its package ``__init__`` not run."""
    if "langgraph_memory" not in sys.modules:
        package = REPO / "langgraph_memory"
        spec = importlib.util.spec_from_file_location(
            "langgraph_memory", package / "__init__.py", submodule_search_locations=[str(package)]
        )
        if spec is None:
            raise RuntimeError(f"no langgraph_memory package at {package}")
        sys.modules["langgraph_memory"] = importlib.util.module_from_spec(spec)
    return importlib.import_module(module)


def load_embedders(kind: str) -> tuple[Any, Any]:
    """The live embedder (``"minilm"``: our LocalMiniLM, loaded; ``"hashed"``: the stand-in)
    and the ``benchmarks.embedders`` module (the table embedder, the vector table), both from
    this checkout, which then leaves this process."""
    sys.path.insert(0, str(REPO))
    try:
        embedders = importlib.import_module("benchmarks.embedders")
        if kind == "minilm":
            model = _import_ours("langgraph_memory.embeddings").LocalMiniLM()
            model.embed_query("warm up")  # loads the ONNX session and the tokenizer now
        else:
            model = embedders.HashedUnitEmbeddings()
    finally:
        sys.path.remove(str(REPO))
        for name in [n for n in sys.modules if n.split(".")[0] == "langgraph_memory"]:
            del sys.modules[name]
        importlib.invalidate_caches()
    return model, embedders


def import_peer() -> tuple[Any, Any]:
    """The peer's package and its ``types`` module (refused if it is this checkout's)."""
    peer = importlib.import_module("langgraph_memory")
    where = Path(str(peer.__file__)).resolve()
    if REPO in where.parents or not hasattr(peer, "MemoryEngine"):
        raise RuntimeError(f"imported {where}, not the peer package langgraph-memory")
    return peer, importlib.import_module("langgraph_memory.types")


def run_job(engine: Any, emb: Any, job: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """Ask the engine every query of a job; the timed calls' seconds and turn ids. Like the
    benchmark's ``time_within``: when one probe call says the job would take more than
    ``read_budget_s``, only the first of its timed queries are timed (at least
    ``min_timed_slow``), after ``slow_warmup`` warm-up calls."""
    emb.live = job["live"]
    calls = [(tuple(ns), q) for ns, q in job["queries"]]
    warm, timed = calls[: job["warmup"]], calls[job["warmup"] :]
    if warm and "read_budget_s" in request:
        began = time.perf_counter()
        engine.recall(warm[0][1], warm[0][0], limit=job["k"])
        probe = time.perf_counter() - began
        if probe * len(calls) > request["read_budget_s"]:
            keep = max(request["min_timed_slow"], int(request["read_budget_s"] / probe))
            warm, timed = warm[len(warm) - request["slow_warmup"] :], timed[:keep]
    for ns, q in warm:
        engine.recall(q, ns, limit=job["k"])
    seconds, keys = [], []
    for ns, q in timed:
        began = time.perf_counter()
        got = engine.recall(q, ns, limit=job["k"])
        seconds.append(time.perf_counter() - began)
        keys.append([m.record.metadata.get("dia_id", "") for m in got])
    emb.live = False
    return {"seconds": seconds, "keys": keys}


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Load the memories into the peer stage by stage, running each stage's jobs after its
    load; a stage the measured ingest rate cannot reach within the budget is left out."""
    model, embedders = load_embedders(request["embedder"])
    peer, types = import_peer()
    from langgraph.store.memory import InMemoryStore

    docs = request["docs"]
    doc_vectors = np.load(request["doc_vectors"])
    query_vectors = np.load(request["query_vectors"])
    table = embedders.VectorTable(
        [d["text"] for d in docs] + list(request["query_texts"]),
        np.concatenate([doc_vectors, query_vectors]),
    )
    emb = embedders.TableEmbeddings(model, table)
    store = InMemoryStore(index={"embed": emb, "dims": doc_vectors.shape[1], "fields": FIELDS})
    engine = peer.MemoryEngine(
        store,
        extractor=lambda text: [],
        consolidator=lambda fact, similar: types.ConsolidationDecision(action="insert"),
        config=types.MemoryConfig(consolidation_threshold=1.0),  # memories loaded as they are
    )
    result: dict[str, Any] = {"load": {}, "capped": None, "jobs": {}}
    loaded, spent, previous = 0, 0.0, 0
    for stage in request["stages"]:
        more = stage["upto"] - loaded
        rate = loaded / spent if spent > 0 else float("inf")
        if loaded and more / rate > request["ingest_budget_s"]:
            result["capped"] = {
                "stopped_at": previous,
                "next_size": stage["upto"] - request["stages"][0]["upto"],
                "rate_per_s": rate,
                "projected_s": more / rate,
                "budget_s": request["ingest_budget_s"],
            }
            break
        started = time.perf_counter()
        for d in docs[loaded : stage["upto"]]:
            engine.remember_facts(
                [types.ExtractedFact(content=d["text"])],
                tuple(d["ns"]),
                metadata={"dia_id": d["dia_id"]},
            )
        seconds = time.perf_counter() - started
        spent += seconds
        result["load"][stage["name"]] = {
            "memories": more,
            "seconds": seconds,
            "per_s": more / seconds if seconds > 0 else None,
            "total": stage["upto"],
        }
        loaded = stage["upto"]
        previous = loaded - request["stages"][0]["upto"]
        for job in stage["jobs"]:
            result["jobs"][job["name"]] = run_job(engine, emb, job, request)
    result["probes"] = model.embed_documents(list(request["probes"]))
    result["versions"] = {
        p: importlib.metadata.version(p) for p in ("langgraph-memory", "langgraph", "onnxruntime")
    }
    return result


def main(argv: list[str]) -> int:
    """``engine_runner.py REQUEST RESULT``: read the request, write the result (JSON)."""
    if len(argv) != 2:
        print("usage: engine_runner.py REQUEST.json RESULT.json", file=sys.stderr)
        return 2
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = run(request)
    Path(argv[1]).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
