"""Benchmarks (scripts, not tests): run them with ``python -m langgraph_memory.bench.<name>``."""
