"""The read path: blended retrieval and rendering into a prompt.

>>> from langgraph_memory.read import Retrieved, render, retrieve, rules_of
"""

from langgraph_memory.read.render import render
from langgraph_memory.read.retrieve import Retrieved, retrieve, rules_of

__all__ = ["Retrieved", "render", "retrieve", "rules_of"]
