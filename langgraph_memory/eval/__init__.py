"""Evaluations of the write path's parts, run case by case against any model.

``components`` scores extraction and reconciliation on the fixture files in
``tests/fixtures``: ``python -m langgraph_memory.eval.components --help``.
"""
