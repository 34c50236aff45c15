"""What a sentence does, as the classifier of acts sees it: its features.

The offline model is to tell a sentence's act (sets a standing instruction, cancels one,
states a fact about the speaker, asks a question ...; ``ACTS``) by a small head learned
from a labelled corpus (``benchmarks/acts/``, trained by ``python -m benchmarks
acts-train``), not by word lists. The head reads which of a vocabulary of words and word
pairs a sentence holds (what it does lies in a few words: "always", "no need ... anymore",
"make that"), with the first word and the first pair apart, since an act shows at a
sentence's start. The vocabulary is learned with the head and shipped with its weights.
Measured on the train split's folds (the recall of any standing-instruction act at
precision 0.95): the tokens hashed into 4,096 slots beside the MiniLM vector 0.833, as a
vocabulary 0.864, and without the vector 0.900: the vector tells what a sentence is about,
not what it does, so the head reads no vector and needs no embedder. This module is the
one place the tokens are read, for the trainer and for the model alike.

>>> sorted(act_tokens("Make that 5?"))
['b:5 ?', 'b:make that', 'b:that 5', 'f2:make that', 'f:make', 'w:5', 'w:?', 'w:make', 'w:that']
>>> token_vector("make THAT six", {"b:make that": 0, "w:five": 1}).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping

import numpy as np

__all__ = ["ACTS", "RULE_ACTS", "act_tokens", "token_vector"]

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
#: The acts about the standing instructions, which the head's gate (its output ``"rule"``)
#: stands for: a sentence does at most one of them.
RULE_ACTS = ("rule_set", "rule_change", "rule_cancel")
_WORD = re.compile(r"[a-z0-9']+|[?!]")


def act_tokens(text: str) -> frozenset[str]:
    """``text``'s lowercased words (``w:``), word pairs (``b:``), first word (``f:``)
    and first pair (``f2:``).

    >>> act_tokens("No need for bullets") == act_tokens("no NEED for bullets")
    True
    """
    words = _WORD.findall(text.lower())
    tokens = {f"w:{w}" for w in words}
    tokens.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    if words:
        tokens.add(f"f:{words[0]}")
    if len(words) > 1:
        tokens.add(f"f2:{words[0]} {words[1]}")
    return frozenset(tokens)


def token_vector(text: str, vocabulary: Mapping[str, int]) -> np.ndarray:
    """0/1 per entry of ``vocabulary`` (token -> column): whether ``text`` holds it.
    Tokens outside the vocabulary count for nothing."""
    out = np.zeros(len(vocabulary))
    for token in act_tokens(text):
        column = vocabulary.get(token)
        if column is not None:
            out[column] = 1.0
    return out
