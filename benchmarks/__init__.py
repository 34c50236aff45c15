"""Evaluation on real benchmarks and on the project's own fixtures.

- ``datasets``: LoCoMo and LongMemEval loaders (paths from the caller; nothing
  is downloaded);
- ``ingest``: replaying a conversation into a store (raw turns, LoCoMo's
  observations, or the full write path with any model);
- ``retrieval`` (+ ``metrics``, ``best_retrieval``): retrieval quality with no
  model at query time, variant against variant in one run;
- ``qa`` (+ ``scoring``, ``judge``, ``report``): answers from retrieved
  memories, scored by LoCoMo's token F1 and an LLM judge;
- ``components``: extraction and reconciliation fixtures, case by case.

Each has a command line: ``python -m langgraph_memory.eval.<module> --help``.
"""
