"""What a sentence does, as the classifier of acts sees it: its features.

The offline model is to tell a sentence's act (sets a standing instruction, cancels one,
states a fact about the speaker, asks a question ...; ``ACTS``) by a small head learned
from a labelled corpus (``benchmarks/acts/``, trained by ``python -m benchmarks
acts-train``), not by word lists. The head reads two things: the sentence's MiniLM vector
(what it is about) and its words and word pairs, hashed into ``2 ** NGRAM_BITS`` slots
(what it does lies in a few words: "always", "no need ... anymore", "make that"), with
the first two words apart, since an act shows at a sentence's start. This module is the one
place those features are computed, for the trainer and for the model alike.

>>> v = ngram_features("From now on, answer in French?")
>>> v.shape, int(v.sum())
((4096,), 15)
"""

from __future__ import annotations

import itertools
import re
import zlib

import numpy as np

__all__ = ["ACTS", "NGRAM_BITS", "ngram_features"]

#: The acts, in the head's order (``benchmarks/acts/README.md`` defines them).
ACTS = (
    "rule_set",
    "rule_change",
    "rule_cancel",
    "fact",
    "fact_change",
    "plan",
    "question",
    "other_person",
    "small_talk",
    "not_user",
)
#: Words and word pairs are hashed into this many bits' worth of slots.
NGRAM_BITS = 12
_WORD = re.compile(r"[a-z0-9']+|[?!]")
_MASK = (1 << NGRAM_BITS) - 1


def ngram_features(text: str) -> np.ndarray:
    """0/1 slots of ``text``'s lowercased words, word pairs, first word and first pair
    (crc32 of each, so the same on every machine and Python).

    >>> bool((ngram_features("No need for bullets") == ngram_features("no NEED for bullets")).all())
    True
    """
    words = _WORD.findall(text.lower())
    tokens = {f"w:{w}" for w in words}
    tokens.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    if words:
        tokens.add(f"f:{words[0]}")
    if len(words) > 1:
        tokens.add(f"f2:{words[0]} {words[1]}")
    out = np.zeros(1 << NGRAM_BITS)
    for token in tokens:
        out[zlib.crc32(token.encode("utf-8")) & _MASK] = 1.0
    return out
