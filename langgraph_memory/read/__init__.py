"""The read path: blended retrieval and rendering into a prompt.

>>> from langgraph_memory.read import Retrieved, render, retrieve
"""

from langgraph_memory.read.render import render
from langgraph_memory.read.retrieve import Retrieved, retrieve

__all__ = ["Retrieved", "render", "retrieve"]
