"""Names: the capitalised words of a text that may name a person (or a place, a
month: a name the text gives with a capital).

>>> names_in("What did Caroline and Melanie's dog do in May?")
['Caroline', 'Melanie', 'May']
"""

from __future__ import annotations

import re

__all__ = ["NAME", "names_in"]

#: A name: a capital, then lower-case letters, a possessive's "'s" left out of the match's
#: group one.
NAME = re.compile(r"\b([A-Z][a-z]+)(?:'s)?\b")


def names_in(text: str) -> list[str]:
    """The capitalised words of a text that may be names (not its first word
    unless it recurs capitalised later), in order, each once.

    >>> names_in("What did Caroline and Melanie do in May?")
    ['Caroline', 'Melanie', 'May']
    >>> names_in("Caroline's sister met Caroline.")
    ['Caroline']
    """
    found = [m.group(1) for m in NAME.finditer(text) if m.start() > 0]
    return list(dict.fromkeys(found))
