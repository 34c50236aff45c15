"""A package face that loads each name's module on first use (PEP 562).

A face lists where each of its names lives; importing the package loads none of
those modules, and the first use of a name loads its module and keeps the name in
the package, so a module of one room pays only for what it uses of another.

>>> import types
>>> face = types.ModuleType("demo")
>>> face.__getattr__, face.__dir__ = faces("demo", {"dumps": "json"}, face.__dict__)
>>> face.dumps([1])
'[1]'
>>> face.nothing_here
Traceback (most recent call last):
...
AttributeError: module 'demo' has no attribute 'nothing_here'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["faces"]


def faces(
    package: str, where: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for the names of ``where``.

    Args:
        package: the package's name (``__name__``), for the error a missing name raises.
        where: each name the face gives, and the module it comes from.
        namespace: the package's ``globals()``: a loaded name is kept there, so that
            ``__getattr__`` runs once per name.

    Returns:
        ``(__getattr__, __dir__)``, to assign at the package's top level.
    """

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
