"""Our read path next to its peers, same data, same vectors: ``python -m benchmarks.peers``.

- ``compare``: the benchmark (ours, naive Chroma and LangGraph's InMemoryStore in this
  process; the report);
- ``venv``: the PyPI peer's own virtualenv, created on demand;
- ``engine_runner.py``: the script that virtualenv runs (the peer shares our import name).
"""
