"""Words: how every part of the package splits a text into words, and the terms of
the lexical index.

Two kinds of word, one pattern each, and no other word pattern in the package (a
test refuses one elsewhere):

- :data:`WORD`, a run of letters and digits of any script: what the lexical index,
  a query and the comparisons of texts see. An apostrophe, hyphen or underscore
  splits words ("LH-761" is "LH" and "761").
- :data:`SPOKEN_WORD`, the same with the apostrophe of a contraction or a possessive
  kept inside ("don't", "Sam's"): what the small-talk gate and the stand-in chat
  model see.

The index's terms (:func:`tokenize`) are the case-folded words without stop words,
stemmed (see ``stemming``): a record's lexical text and a query meet on them, and
provenance checks compare words through them.

>>> tokenize("Caroline's painting classes started on 2023-05-08!")
['carolin', 'paint', 'class', 'start', '2023', '05', '08']
>>> words("LH-761 leaves"), spoken_words("Don't go, Sam's here")
(['LH', '761', 'leaves'], ["Don't", 'go', "Sam's", 'here'])
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.text.stemming import stem

__all__ = [
    "SPOKEN_WORD",
    "STOP_WORDS",
    "WORD",
    "said_digest",
    "said_form",
    "sentences",
    "spoken_words",
    "tokenize",
    "words",
]

#: Where a sentence may end, after its stop (``sentences``).
_SENTENCE_END = {stops: re.compile(rf"(?<=[{stops}])\s+|\n+") for stops in (".!?", ".!?;")}
#: A stop that ends an abbreviation, not a sentence ("Dr. Lee").
_ABBREVIATION = re.compile(r"(?:^|\W)(?:dr|mr|mrs|ms|mx|st|jr|sr|prof|vs|etc|e\.g|i\.e)\.$", re.I)


def sentences(text: str, stops: str = ".!?") -> list[str]:
    """The sentences of ``text``: cut after a stop in ``stops`` (".!?" or ".!?;") and at
    line breaks, never after an abbreviation; blank ones left out.

    >>> sentences("Would Ana like Dr. Seuss? Maybe.\\nYes!")
    ['Would Ana like Dr. Seuss?', 'Maybe.', 'Yes!']
    >>> sentences("I live in Pune; I work at Acme.", ".!?;")
    ['I live in Pune;', 'I work at Acme.']
    """
    out: list[str] = []
    start = 0
    for end in _SENTENCE_END[stops].finditer(text):
        piece = text[start : end.start()]
        if "\n" in end.group() or not _ABBREVIATION.search(piece):
            out.append(piece)
            start = end.end()
    out.append(text[start:])
    return [s for s in out if s.strip()]


#: A word: letters and digits of any script; anything else splits words.
WORD = re.compile(r"[^\W_]+")
#: A spoken word: a :data:`WORD` that keeps a contraction's or possessive's apostrophe.
SPOKEN_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
#: Words that say nothing about which record is meant (English function words and fillers).
STOP_WORDS = frozenset(
    """a an the and or but if of to in on at for with by from as is are was were be been being
    do does did have has had i me my we our you your he him his she her it its they them their
    this that these those what which who whom whose when where why how there here not no so than
    too very can will would should could just about into over after before up down out off again
    further then once all any both each few more most other some such only own same s t don now
    ever am also yeah yes oh wow hey hi really thanks thank much get got go going lot""".split()  # noqa: SIM905 - reads as prose
)
#: Typographic apostrophes and quotes, folded to ASCII: a phone keyboard's "I\u2019m" is "I'm".
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
#: What may close a sentence, or wrap it, without changing what it says.
_ENDS = " \t\n.!?\u2026\"'"
_SPACES = re.compile(r"\s+")


def words(text: str) -> list[str]:
    """The :data:`WORD` s of a text, in order, as written (case kept).

    >>> words("Zürich, 2023_05: ok")
    ['Zürich', '2023', '05', 'ok']
    """
    return WORD.findall(text)


def spoken_words(text: str) -> list[str]:
    """The :data:`SPOKEN_WORD` s of a text, in order, as written (case kept).

    >>> spoken_words("'90s rock'n'roll isn't it")
    ['90s', "rock'n'roll", "isn't", 'it']
    """
    return SPOKEN_WORD.findall(text)


def tokenize(text: str, *, stemmed: bool = True) -> list[str]:
    """The index terms of a text, in order, repeats kept (BM25 counts them): its
    case-folded words without stop words, stemmed unless ``stemmed=False``.

    >>> tokenize("She was painting flights to Zürich, ID 0a1b2c3d.")
    ['paint', 'flight', 'zürich', 'id', '0a1b2c3d']
    >>> tokenize("LH-761 flights", stemmed=False), tokenize("What is it?")
    (['lh', '761', 'flights'], [])
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"tokenize() takes a str, got {type(text).__name__}")
    found = [w for w in words(text.casefold()) if w not in STOP_WORDS]
    return [stem(w) for w in found] if stemmed else found


def said_form(text: str) -> str:
    """A text as it counts when two sayings are compared: Unicode-normalised (NFKC),
    case-folded, typographic quotes folded, runs of white space made one space, and
    without the punctuation, quotes or spaces that open or close it. Two texts with
    the same form say the same words; anything inside (a comma, a hyphen, a digit)
    still tells them apart.

    >>> said_form("  Where do I live?  ") == said_form("where do I  live")
    True
    >>> said_form("I\u2019m in Pune.") == said_form("I'm in Pune!")
    True
    >>> said_form("I'm 3.5") == said_form("I'm 35")
    False
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"said_form() takes a str, got {type(text).__name__}")
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return _SPACES.sub(" ", folded).strip(_ENDS)


def said_digest(text: str, source: str, speaker: str = "") -> str:
    """A short digest of ``text`` said by ``speaker`` (a name, or "") as ``source`` (a
    role: "user", "assistant", ...): equal when the :func:`said_form`, the source and
    the speaker are. The write path stores it as an episode's key of words said, and a
    read compares episodes by it.

    >>> said_digest("Where do I live?", "user") == said_digest("where do I live", "user")
    True
    >>> said_digest("Hi!", "user") == said_digest("Hi!", "user", "Ana")
    False
    """
    if not isinstance(source, str) or not isinstance(speaker, str):
        raise InvalidTypeError(
            f"said_digest() takes a str source and speaker, got {type(source).__name__} "
            f"and {type(speaker).__name__}"
        )
    form = said_form(text)  # refuses a text that is no str
    who = "\x1f".join([source, speaker, form])
    return hashlib.blake2b(who.encode("utf-8"), digest_size=8).hexdigest()
