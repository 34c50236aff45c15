"""Run a benchmark or an evaluation by name: ``python -m benchmarks <name> [args...]``.

Benchmarks: ``store`` (store_latency), ``peers``, ``graph`` (graph_overhead), ``ingest``
(ingest_speed), ``write-cost``, ``gate`` (gate_recall), ``episodes``, ``cli``
(cli_startup), ``imports`` (import_time), ``maintenance``, ``multiprocess``, ``scale``
(the product read at scale, on real text), ``rules`` (rules_cost), ``window`` (working
memory: a long thread with and without ``max_tokens``), ``inspector`` (the memory
inspector's pages for a person with 5,000 memories, and its screenshots) and
``basestore-batch`` (basestore_batch: concurrent mixed BaseStore batches against
LangGraph's InMemoryStore), ``users`` (a store of many people: memory, reads, adds
and disk as the number of users grows), ``concurrency`` (many people's turns at once
through one graph on one event loop: turn latency, the loop's stall), ``telemetry``
(a read with OpenTelemetry's spans and metrics on against off) and ``mcp``
(mcp_roundtrip: a search through ``langgraph-memory mcp`` over stdio and HTTP against the
same search in process); evaluations:
``reads`` (the current value first, and questions asked again),
``retrieval``, ``qa``, ``components`` and ``redteam`` (memory poisoning); ``plots`` draws
their results; tools: ``acts-corpus`` (acts_corpus: the real sentences of the corpus of acts),
``acts-train`` (acts_train: the classifier of acts, trained and measured) and ``acts-product``
(acts_product: the rules model with it, on the test split and real chat). The arguments
after the name go to that module's own ``main``; ``python -m benchmarks <name> --help`` lists
them.

>>> main(["nope"])
2
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

#: Command name -> module under ``benchmarks`` (each has a ``main(argv)``).
BENCHES: dict[str, str] = {
    "store": "store_latency",
    "peers": "peers.compare",
    "graph": "graph_overhead",
    "ingest": "ingest_speed",
    "write-cost": "write_cost",
    "gate": "gate_recall",
    "episodes": "episodes",
    "cli": "cli_startup",
    "imports": "import_time",
    "maintenance": "maintenance",
    "multiprocess": "multiprocess",
    "scale": "scale",
    "rules": "rules_cost",
    "window": "window",
    "inspector": "inspector",
    "basestore-batch": "basestore_batch",
    "users": "users",
    "concurrency": "concurrency",
    "telemetry": "telemetry",
    "mcp": "mcp_roundtrip",
    "reads": "reads",
    "retrieval": "retrieval",
    "qa": "qa",
    "components": "components",
    "redteam": "redteam",
    "plots": "plots",
    "acts-corpus": "acts_corpus",
    "acts-train": "acts_train",
    "acts-product": "acts_product",
}


def usage() -> str:
    """One line per benchmark: its command name and its module."""
    lines = ["usage: python -m benchmarks {" + ",".join(BENCHES) + "} [args...]", ""]
    for name, module in BENCHES.items():
        lines.append(f"  {name:<15} benchmarks.{module}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to the named benchmark's ``main``; 2 for an unknown or missing name."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in BENCHES:
        print(f"unknown benchmark {name!r}\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"benchmarks.{BENCHES[name]}")
    status = module.main(rest)
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
