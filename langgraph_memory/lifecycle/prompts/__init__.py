"""Prompts of the lifecycle jobs, each module a prompt with its response schema beside it
(as in ``write/prompts``): ``reflect`` asks for conclusions drawn from memories.

>>> from langgraph_memory.lifecycle.prompts import reflect
>>> reflect.VERSION
'2026-12-10'
"""
