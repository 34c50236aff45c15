"""LoCoMo's official answer scoring, reimplemented without its dependencies.

This follows ``task_eval/evaluation.py`` of snap-research/locomo:

- ``normalize_answer``: drop commas, lowercase, strip ASCII punctuation, drop the
  words "a", "an", "the" and "and" (LoCoMo adds "and" to SQuAD's articles),
  collapse whitespace;
- ``token_f1`` (their ``f1_score``): F1 of the Porter-stemmed tokens (NLTK's
  ``PorterStemmer``, default mode, reimplemented below so nltk is not needed);
- ``multi_answer_f1`` (their ``f1``, category 1, multi-hop): split prediction and
  gold on commas, and average over gold parts the best F1 against any predicted part;
- category 3 (open-domain) scores against the gold's first ``;`` part only;
- category 5 (adversarial) scores 1 when the output contains "no information
  available" or "not mentioned" (``OFFICIAL_ABSTAIN``), else 0.

``answer_f1`` applies these per category; LongMemEval items are scored like
LoCoMo's categories 2-4 (plain token F1), its ``_abs`` items like category 5.
Deviation: none intended in the numbers. Their ``numpy.mean`` is ``statistics.fmean``
here, and an empty prediction scores 0 as in theirs.

``abstains`` is the lenient test used for abstention *accuracy*: the official
phrases plus a few equivalents (``ABSTAIN_PHRASES``), so a model that says "I
don't know" is not marked as answering an unanswerable question.

>>> normalize_answer("The cat, and a Dog!")
'cat dog'
>>> round(token_f1("She went to Paris in May", "Paris"), 3)
0.286
>>> answer_f1("Paris, London", "London, Rome, Paris", dataset="locomo", category="1")
0.6666666666666666
>>> answer_f1("No information available.", "", dataset="locomo", category="5", abstention=True)
1.0
>>> abstains("I don't know that yet.")
True
"""

from __future__ import annotations

import re
import string
from collections import Counter
from statistics import fmean

#: The phrases LoCoMo's evaluation.py accepts for category 5 (substring, lowercased).
OFFICIAL_ABSTAIN: tuple[str, ...] = ("no information available", "not mentioned")
#: Equivalent phrasings accepted by ``abstains`` (regexes on the lowercased output;
#: apostrophes normalised to "'"). Each says the answer is not known or not given.
ABSTAIN_PHRASES: tuple[str, ...] = (
    *(re.escape(p) for p in OFFICIAL_ABSTAIN),
    r"\bno (?:such |relevant )?information\b",
    r"\b(?:not|never) (?:been )?(?:mentioned|stated|specified|said|discussed|provided)\b",
    r"\b(?:don't|do not|doesn't|does not|didn't|did not) (?:know|say|mention|specify)\b",
    r"\b(?:can't|cannot|can not) (?:be )?(?:determined|tell|answer|say|know)\b",
    r"\bnot enough (?:information|context|details?)\b",
    r"\b(?:information|answer) is (?:not available|unavailable|unknown)\b",
    r"\bno (?:record|mention|memory|memories) (?:of|about)\b",
    r"\bi (?:don't|do not) (?:remember|recall)\b",
    r"\b(?:have|has) no (?:information|record|memory|details?)\b",
    r"\bunanswerable\b",
)
_ABSTAIN = re.compile("|".join(ABSTAIN_PHRASES))
_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


def normalize_answer(text: str) -> str:
    """LoCoMo's normalisation (see the module docstring).

    >>> normalize_answer("  Rock-climbing, and the SEA. ")
    'rockclimbing sea'
    """
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def tokens(text: str) -> list[str]:
    """Normalised, stemmed tokens: what ``token_f1`` compares.

    >>> tokens("The dogs were running")
    ['dog', 'were', 'run']
    """
    return [stem(w) for w in normalize_answer(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    """Token F1 of ``prediction`` against ``gold`` (LoCoMo's ``f1_score``).

    >>> token_f1("running dogs", "the dog runs")
    1.0
    >>> token_f1("", "Paris")
    0.0
    """
    predicted, wanted = tokens(prediction), tokens(gold)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: str, gold: str) -> float:
    """Category 1: mean over comma-separated gold parts of the best part F1.

    >>> multi_answer_f1("hiking, painting", "painting, hiking")
    1.0
    >>> multi_answer_f1("hiking", "painting, hiking")
    0.5
    """
    predicted = [p.strip() for p in prediction.split(",")]
    wanted = [g.strip() for g in gold.split(",")]
    return fmean(max(token_f1(p, g) for p in predicted) for g in wanted)


def official_abstains(output: str) -> bool:
    """LoCoMo's category-5 test: one of its two phrases appears.

    >>> official_abstains("Not mentioned in the conversation."), official_abstains("Unknown")
    (True, False)
    """
    lowered = output.lower()
    return any(phrase in lowered for phrase in OFFICIAL_ABSTAIN)


def abstains(output: str) -> bool:
    """Whether ``output`` says the answer is not available (lenient: ``ABSTAIN_PHRASES``).

    >>> abstains("The memories do not mention it."), abstains("She moved to Paris.")
    (True, False)
    """
    return bool(_ABSTAIN.search(output.lower().replace("\u2019", "'")))


def answer_f1(
    prediction: str, gold: str, *, dataset: str, category: str, abstention: bool = False
) -> float:
    """The official LoCoMo score for one answer (see the module docstring).

    >>> answer_f1("Paris", "Paris; a city in France", dataset="locomo", category="3")
    1.0
    """
    if abstention:
        return 1.0 if official_abstains(prediction) else 0.0
    if dataset == "locomo" and category == "1":
        return multi_answer_f1(prediction, gold)
    if dataset == "locomo" and category == "3":
        gold = gold.split(";")[0].strip()
    return token_f1(prediction, gold)


# --- NLTK's PorterStemmer (mode NLTK_EXTENSIONS), written from the algorithm ---
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
