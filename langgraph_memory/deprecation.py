"""Names kept for one release after a rename, with a warning that says the new one.

A module lists its renamed names in a dict and answers them from its
``__getattr__`` (PEP 562), so an old import keeps working, warns once per call
site, and never shows in ``dir()`` or the public surface.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     table = {"Op": ("langgraph_memory.records", "DecisionOp")}
...     value = renamed("langgraph_memory", "Op", table)
>>> value.__name__, caught[0].category.__name__
('DecisionOp', 'DeprecationWarning')
"""

from __future__ import annotations

import importlib
import warnings

#: The release after which the old names go away.
REMOVED_IN = "0.4.0"


def renamed(module: str, name: str, table: dict[str, tuple[str, str]]) -> object:
    """The value of ``module.name`` under its new name, with a DeprecationWarning;
    AttributeError (as Python raises it) when ``name`` was never renamed."""
    if name not in table:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new_module, new_name = table[name]
    warnings.warn(
        f"{module}.{name} is renamed {new_module}.{new_name}; "
        f"the old name goes away in {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(new_module), new_name)
