"""Prompts of the lifecycle jobs, each module a prompt with its response schema beside it
(as in ``write/prompts``): ``consolidate`` asks which near-duplicates say one thing.

>>> from langgraph_memory.lifecycle.prompts import consolidate
>>> consolidate.VERSION
'2026-12-10'
"""
