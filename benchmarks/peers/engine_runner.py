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
questions' vectors (computed once by the benchmark), and the jobs to run: each job asks the
peer's ``MemoryEngine.recall`` every query of a list, either with the vector given (the
embedder answers from the table) or embedding the question inside the call (``live``).
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


def load_embedders(kind: str) -> tuple[Any, type[Any]]:
    """The live embedder (``"minilm"``: our LocalMiniLM, loaded; ``"hashed"``: the stand-in)
    and the table embedder class, both from this checkout, which then leaves this process."""
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
    return model, embedders.TableEmbeddings


def import_peer() -> tuple[Any, Any]:
    """The peer's package and its ``types`` module (refused if it is this checkout's)."""
    peer = importlib.import_module("langgraph_memory")
    where = Path(str(peer.__file__)).resolve()
    if REPO in where.parents or not hasattr(peer, "MemoryEngine"):
        raise RuntimeError(f"imported {where}, not the peer package langgraph-memory")
    return peer, importlib.import_module("langgraph_memory.types")


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Load the memories into the peer, run the jobs; timings and returned turn ids."""
    model, table_embeddings = load_embedders(request["embedder"])
    peer, types = import_peer()
    from langgraph.store.memory import InMemoryStore

    doc_vectors: list[list[float]] = np.load(request["doc_vectors"]).tolist()
    query_vectors: list[list[float]] = np.load(request["query_vectors"]).tolist()
    table = {d["text"]: v for d, v in zip(request["docs"], doc_vectors, strict=True)}
    table.update(zip(request["query_texts"], query_vectors, strict=True))
    emb = table_embeddings(model, table)
    store = InMemoryStore(index={"embed": emb, "dims": len(doc_vectors[0]), "fields": FIELDS})
    engine = peer.MemoryEngine(
        store,
        extractor=lambda text: [],
        consolidator=lambda fact, similar: types.ConsolidationDecision(action="insert"),
        config=types.MemoryConfig(consolidation_threshold=1.0),  # memories loaded as they are
    )
    started = time.perf_counter()
    for d in request["docs"]:
        engine.remember_facts(
            [types.ExtractedFact(content=d["text"])],
            tuple(d["ns"]),
            metadata={"dia_id": d["dia_id"]},
        )
    result: dict[str, Any] = {
        "load_seconds": time.perf_counter() - started,
        "probes": model.embed_documents(list(request["probes"])),
        "jobs": {},
    }
    for job in request["jobs"]:
        emb.live = job["live"]
        calls = [(tuple(ns), q) for ns, q in job["queries"]]
        for ns, q in calls[: job["warmup"]]:
            engine.recall(q, ns, limit=job["k"])
        seconds, keys = [], []
        for ns, q in calls[job["warmup"] :]:
            began = time.perf_counter()
            got = engine.recall(q, ns, limit=job["k"])
            seconds.append(time.perf_counter() - began)
            keys.append([m.record.metadata.get("dia_id", "") for m in got])
        result["jobs"][job["name"]] = {"seconds": seconds, "keys": keys}
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
