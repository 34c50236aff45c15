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

from langgraph_memory.text.porter import stem

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
