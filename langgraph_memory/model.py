"""Deprecated: the records module is ``langgraph_memory.records`` ("model" meant a
language model everywhere else). Every name of it is answered from there, with a
DeprecationWarning, until release 0.4.0.

>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     from langgraph_memory.model import Memory
>>> Memory.__module__
'langgraph_memory.records'
"""

from __future__ import annotations

from langgraph_memory.deprecation import renamed


def __getattr__(name: str) -> object:
    import langgraph_memory.records as records

    table = {n: ("langgraph_memory.records", n) for n in vars(records) if not n.startswith("__")}
    table["Op"] = ("langgraph_memory.records", "DecisionOp")
    return renamed(__name__, name, table)
