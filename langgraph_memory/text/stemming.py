"""Stemming: the one stemmer of the lexical index's terms (and so of provenance checks).

Porter's algorithm, NLTK's rules (see ``porter``): "painting", "paints" and "painted"
meet at "paint". On LoCoMo, BM25 alone found 0.612 of the evidence in its top 10 with
it, 0.592 with a lighter suffix stripper and 0.569 with none
(``benchmarks/lexical_choice.py --stemmers``).

Porter is kept over Snowball's English stemmer (``snowballstemmer``, "Porter2"), by
measured recall: LoCoMo product R@10 (``python -m benchmarks.retrieval --data
../shared/data --dataset locomo``, categories 1-4, 1,531 questions) is 0.8017 with
Porter and 0.8008 with Snowball (R@5 0.7211 / 0.7207, R@25 0.8814 / 0.8810; the
lexical index alone, R@10 0.7337 / 0.7344). Snowball would drop what ships and add a
dependency; Porter is needed anyway, since LoCoMo's answer scoring stems with NLTK's
Porter. A change of stemmer changes what stored indexes hold: bump the lexical
index's ``SCHEMA`` (``tests/test_text.py`` pins the terms).

>>> [stem(w) for w in ["painting", "paints", "parties", "likes", "liked", "2023s"]]
['paint', 'paint', 'parti', 'like', 'like', '2023s']
"""

from __future__ import annotations

import functools

from langgraph_memory.text import porter

__all__ = ["stem"]


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A word's stem; numbers and ids keep their form, so "2023s" or "0a1b2c3d" are
    found as written. Cached: a scope's vocabulary is small, and a stemmer in Python
    is not fast."""
    return porter.stem(word) if word.isalpha() else word
