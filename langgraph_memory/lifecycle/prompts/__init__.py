"""Prompts of the lifecycle jobs, each module a prompt with its response schema beside it
(as in ``write/prompts``): ``reflect`` asks for conclusions drawn from memories,
``consolidate`` which near-duplicates say one thing.

>>> from langgraph_memory.lifecycle.prompts import consolidate, reflect
>>> reflect.VERSION, consolidate.VERSION
('2026-12-10', '2026-12-10')
"""
