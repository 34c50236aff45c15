"""NLTK's ``PorterStemmer`` (mode ``NLTK_EXTENSIONS``), written from the algorithm.

The lexical index stems with it (see ``stemming``), and the benchmarks' LoCoMo
answer scoring stems with it as LoCoMo does; reimplemented so that neither needs
nltk (or its corpus downloads). ``tests/test_eval_qa.py`` checks it against
nltk's.

>>> [stem(w) for w in ["painting", "paints", "parties", "adoption"]]
['paint', 'paint', 'parti', 'adopt']
"""

from __future__ import annotations

__all__ = ["stem"]

# LoCoMo stems with it; reimplemented so scoring needs no nltk (and no corpus
# downloads). The rules are Porter (1980) with NLTK's documented extensions: an
# irregular-forms table, words of <= 2 letters kept, "ies"/"ied" on 4-letter
# words -> "ie", y -> i only after a consonant, bli -> ble, alli re-run, fulli,
# logi, and the 2-letter vc case of the cvc test.

_IRREGULAR = {
    "skies": "sky", "sky": "sky", "dying": "die", "lying": "lie", "tying": "tie",
    "news": "news", "innings": "inning", "inning": "inning", "outings": "outing",
    "outing": "outing", "cannings": "canning", "canning": "canning", "howe": "howe",
    "proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}  # fmt: skip
_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
    ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
    ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
    ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("fulli", "ful"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
    ("ful", ""), ("ness", ""),
)  # fmt: skip
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


def _consonant(word: str, i: int) -> bool:
    if word[i] in "aeiou":
        return False
    if word[i] == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    shape = "".join("c" if _consonant(stem, i) else "v" for i in range(len(stem)))
    return shape.count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    n = len(word)
    if n == 2:
        return not _consonant(word, 0) and _consonant(word, 1)
    return (
        n >= 3
        and _consonant(word, n - 3)
        and not _consonant(word, n - 2)
        and _consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


def _first_rule(word: str, rules: tuple[tuple[str, str], ...], min_measure: int) -> str:
    # Porter applies only the first (longest listed) matching suffix, even when
    # its condition then fails.
    for suffix, replacement in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > min_measure else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-1]
    if word.endswith("sses") or word.endswith("ies"):
        return word[:-2]
    if word.endswith("ss"):
        return word
    return word[:-1] if word.endswith("s") else word


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-1] if len(word) == 4 else word[:-2]
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    else:
        return word
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if _double_consonant(stem):
        return stem if stem[-1] in "lsz" else stem[:-1]
    return stem + "e" if _measure(stem) == 1 and _cvc(stem) else stem


def _step1c(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and _consonant(word, len(word) - 2):
        return word[:-1] + "i"
    return word


def _step2(word: str) -> str:
    if word.endswith("alli") and _measure(word[:-4]) > 0:
        return _step2(word[:-2])
    if word.endswith("logi"):  # the "l" stays with the stem (NLTK's extension)
        return word[:-1] if _measure(word[:-3]) > 0 else word
    return _first_rule(word, _STEP2, 0)


def _step4(word: str) -> str:
    for suffix in _STEP4:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            ok = _measure(stem) > 1 and (suffix != "ion" or stem.endswith(("s", "t")))
            return stem if ok else word
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word[:-1]) > 1:
        word = word[:-1]
    return word


def stem(word: str) -> str:
    """The Porter stem of ``word``, as NLTK's ``PorterStemmer().stem`` gives it.

    >>> [stem(w) for w in ["caresses", "ponies", "dies", "agreed", "hopping", "happy",
    ...                    "relational", "generalization", "adjustment", "is"]]
    ['caress', 'poni', 'die', 'agre', 'hop', 'happi', 'relat', 'gener', 'adjust', 'is']
    """
    word = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2:
        return word
    word = _step1c(_step1b(_step1a(word)))
    word = _first_rule(_step2(word), _STEP3, 0)
    return _step5(_step4(word))
