"""Text handling, in one place for the store, the read path and the write path.

It sits at the bottom of the package, beside ``records``: it imports the standard
library and ``errors`` only, never the store, the read or write paths or the graph.

- ``words``: the package's word patterns (:data:`WORD`, :data:`SPOKEN_WORD`), stop
  words, and :func:`tokenize`, the lexical index's terms;
- ``stemming``: the one stemmer (:func:`stem`; ``porter`` holds the algorithm);
- ``dates``: month and weekday names, :func:`date_words`;
- ``names``: :func:`names_in`, the capitalised words that may be names;
- ``safety``: untrusted text made safe to show, :func:`for_terminal` and
  :func:`for_prompt`.

>>> tokenize("Caroline's painting classes")
['carolin', 'paint', 'class']
>>> for_terminal("tea\\x1b[2J")
'tea'
"""

from langgraph_memory.text.dates import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    WEEKDAYS,
    date_words,
    month_number,
)
from langgraph_memory.text.names import names_in
from langgraph_memory.text.safety import for_prompt, for_terminal
from langgraph_memory.text.stemming import stem
from langgraph_memory.text.words import (
    SPOKEN_WORD,
    STOP_WORDS,
    WORD,
    said_digest,
    said_form,
    sentences,
    spoken_words,
    tokenize,
    words,
)

__all__ = [
    "MONTHS",
    "MONTH_ABBREVIATIONS",
    "SPOKEN_WORD",
    "STOP_WORDS",
    "WEEKDAYS",
    "WORD",
    "date_words",
    "for_prompt",
    "for_terminal",
    "month_number",
    "names_in",
    "said_digest",
    "said_form",
    "sentences",
    "spoken_words",
    "stem",
    "tokenize",
    "words",
]
