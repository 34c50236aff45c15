"""Lifecycle jobs over a store's memories: reflection (conclusions drawn from them).

Imported eagerly, on purpose: the function ``reflect`` shares its name with its
module, and a lazy lookup would find the module once anything had imported it.
(``import langgraph_memory`` does not import this package.)

>>> from langgraph_memory.lifecycle import due, reflect
>>> callable(reflect)
True
"""

from langgraph_memory.lifecycle.reflect import due, last_reflection, reflect
from langgraph_memory.lifecycle.reflectors import Reflector

__all__ = ["Reflector", "due", "last_reflection", "reflect"]
