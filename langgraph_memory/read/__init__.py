"""The read path: blended retrieval and rendering into a prompt.

>>> from langgraph_memory.read import Retrieved, aretrieve, render, retrieve, rules_of
"""

from langgraph_memory.read.async_reads import aretrieve
from langgraph_memory.read.render import render
from langgraph_memory.read.retrieve import Retrieved, retrieve, rules_of

__all__ = ["Retrieved", "aretrieve", "render", "retrieve", "rules_of"]
