"""Evaluation and benchmarks of langgraph-memory-kit: scripts run from a checkout, in no wheel.

Everything here uses the package's public API only (``tests/test_benchmarks_public_api.py``
checks every import); where a benchmark needs more, the API grows. Nothing in
``langgraph_memory`` imports this package.

Evaluation on real benchmarks (LoCoMo, LongMemEval: pass their folder as ``--data``;
``datasets.SOURCES`` names the files and where they come from, and the project's copy sits at
``../shared/data`` beside the checkout, with a README) and on the project's own fixtures:

- ``datasets``: LoCoMo and LongMemEval loaders (paths from the caller; nothing is downloaded);
- ``ingest``: replaying a conversation into a store (raw turns, LoCoMo's observations, or the
  full write path with any model);
- ``retrieval`` (+ ``metrics``): retrieval quality with no model at query
  time, variant against variant in one run;
- ``qa`` (+ ``items``, ``prepare``, ``answer_scoring``, ``judge``, ``qa_report``): answers
  from retrieved memories, scored by LoCoMo's token F1 and an LLM judge;
- ``components``: extraction and reconciliation fixtures, case by case;
- ``redteam``: memory-poisoning attempts through a compiled graph, and what got through;
- ``plots``: PNG charts of the JSON results.

Benchmarks (they measure; tests only check that they run):

- ``store_latency``, ``graph_overhead``, ``ingest_speed``, ``write_cost``, ``gate_recall``;
- ``peers``: our read path next to naive Chroma, LangGraph's InMemoryStore and a PyPI peer
  (which runs in its own virtualenv).

Each has a command line: ``python -m benchmarks.<module> --help``; ``python -m benchmarks``
lists the benchmarks by short name.
"""
