"""Deprecated: terminal and prompt safety is ``langgraph_memory.text.safety`` (text
handling is one subpackage, ``langgraph_memory.text``). Every name of it is answered
from there, with a DeprecationWarning, until release 0.4.0.

>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     from langgraph_memory.text.safety import for_terminal
>>> for_terminal.__module__
'langgraph_memory.text.safety'
"""

from __future__ import annotations

from langgraph_memory.deprecation import renamed


def __getattr__(name: str) -> object:
    import langgraph_memory.text.safety as moved

    table = {n: (moved.__name__, n) for n in vars(moved) if not n.startswith("__")}
    return renamed(__name__, name, table)
