"""Our read path next to its peers, same data, same vectors: ``python -m benchmarks.peers``.

- ``compare``: the benchmark (ours, naive Chroma, LangGraph's InMemoryStore, LangMem's search
  tool and mem0 in this process; LoCoMo recall@10 and latency on real-text scopes of
  1k/10k/100k; the report);
- ``mem0_system``: mem0 OSS set up offline on our vectors (``infer=False``, no telemetry);
- ``venv``: the PyPI peer's own virtualenv, created on demand;
- ``engine_runner.py``: the script that virtualenv runs (the peer shares our import name).
"""
