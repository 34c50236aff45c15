"""Provenance, checked in code: whose words a text is, and which words support it.

A model's answer claims what the write path must not take on trust: who stated a fact
(extraction's ``speaker``), what text to store (reconcile's ``text``), what to remember (a
tool call's ``text``). Each claim is checked against what was said, word by word. The words of
a text (``words``) are its content words, case-folded and stemmed as the lexical index stems
them, with function words and the subject "user" left out and invisible characters removed
first (a zero-width space inside "ad\u200bmin" hides nothing). Two words match when they are
equal, or when the shorter, of four letters or more, begins the longer ("allerg" and
"allergi", "admin" and "administr"); numbers match only themselves.

A user's message holds the user's own words and, sometimes, someone else's: a quoted email
(``>`` lines, a forwarded message, what follows "... wrote:"), a quotation in double quotes (a
sentence, or what follows "said", "wrote", a colon ...; a quoted title or name stays the
user's: "I'm reading "The Lean Startup""), hidden HTML (comments, tags and their attributes,
elements hidden by style or attribute), a markdown link's target and title. ``own_and_quoted``
splits them, and quoted words count as a document's, never as the user's statement.

``speaker_of`` names the role whose words a fact was taken from, counting only the fact's words
said somewhere in the turn (a resolved date was not): the speaker the model claims, else the
most trusted of the roles that said the most of them; and when the fact needs words that role
did not say, the least trusted role it needs them from (a fact that carries a quoted or a
tool's word carries that source's trust). So the result is never more trusted than the claim,
and a fact none of whose words were said is taken from no one.

>>> from datetime import datetime, timezone
>>> turn = Turn.of([("user", "What's my status?"), ("tool", "User's password is hunter2.")],
...                when=datetime(2026, 3, 2, tzinfo=timezone.utc))
>>> speaker_of("User's password is hunter2.", turn), speaker_of("User is an admin.", turn)
('tool', None)
>>> speaker_of("User's password is hunter2.", turn, claimed="user")
'tool'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from langgraph_memory.text import for_terminal, tokenize
from langgraph_memory.write.types import Role, Turn

__all__ = ["least_trusted", "own_and_quoted", "speaker_of", "support", "words"]

#: Roles from the least trusted to the most: a tie goes to the one listed first.
_BY_TRUST: tuple[Role, ...] = ("tool", "document", "assistant", "user")
#: The write path writes facts about "User"; that word says nothing about who said them.
_SUBJECT = frozenset({"user"})
#: Shortest word that may match a longer one it begins.
_PREFIX_MIN = 4

# Someone else's words inside a user's message. Hidden elements go first, whole (their
# text is invisible), then comments, then any other tag (its attributes are not shown).
_HIDDEN_ELEMENT = re.compile(
    r"<(\w+)\b[^>]*?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|"
    r"\bhidden\b|aria-hidden\s*=\s*[\"']?true)[^>]*>.*?</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_TAG = re.compile(r"<[A-Za-z/!][^<>]*>")
# A markdown link or image: [text](target "title"), the title in "", '' or ().
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(\s*([^()\s]*(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?)\s*\)")
_DOUBLE_QUOTED = re.compile(r"\"([^\"]*)\"|\u201c([^\u201d]*)\u201d|\u00ab([^\u00bb]*)\u00bb")
# A quoted span is someone else's words when it is a sentence (it ends in . ! or ?) or
# follows a verb of saying or a colon; otherwise it is a title or a name the user cites
# ("I'm reading "The Lean Startup"").
_SAYING = re.compile(
    r"(?:\b(?:said|says|say|wrote|writes|write|told(?: me| us)?|tells|asked|asks|replied|"
    r"claims?|claimed|states?|stated|reads?|texted|emailed|messaged|posted)|:)\s*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?][\s'\u2019)]*$")
_QUOTED_LINE = re.compile(r"^\s*>")
# A line after which the rest of the message is someone else's: a forwarded or
# replied-to message, or "On Monday, Ana wrote:".
_QUOTE_START = re.compile(
    r"^\s*(?:-{2,}\s*(?:forwarded|original) message|begin forwarded message|"
    r"from:\s*\S+@|.*\bwrote:\s*$)",
    re.IGNORECASE,
)


def words(text: str) -> frozenset[str]:
    """The content words of ``text``, as they are compared (see the module docstring).

    >>> sorted(words("User's nut allergy needs an EpiPen."))
    ['allergi', 'epipen', 'need', 'nut']
    >>> sorted(words("ad\\u200bmin")), sorted(words("the user is"))
    (['admin'], [])
    """
    return frozenset(tokenize(for_terminal(text))) - _SUBJECT


def _matches(word: str, other: str) -> bool:
    if word == other:
        return True
    if word.isalpha() and other.isalpha():
        short, long = sorted((word, other), key=len)
        return len(short) >= _PREFIX_MIN and long.startswith(short)
    return False


def _found(word: str, pool: Collection[str]) -> bool:
    return word in pool or any(_matches(word, other) for other in pool)


def support(text: str, source: str | Collection[str]) -> float:
    """The share of ``text``'s words that ``source`` (a text, or its ``words``) holds;
    1.0 for a text with no content words (it states nothing).

    >>> support("User is allergic to peanuts.", "I'm allergic to peanuts")
    1.0
    >>> support("User's invoices go to billing@evil.example.", "Remember my invoice address")
    0.25
    """
    claimed = words(text)
    pool = words(source) if isinstance(source, str) else source
    if not claimed:
        return 1.0
    return sum(_found(w, pool) for w in claimed) / len(claimed)


def own_and_quoted(content: str) -> tuple[str, str]:
    """A user's message split into the user's own words and the words they quote or paste
    unseen (see the module docstring), each as text.

    >>> own_and_quoted("My boss wrote:\\n> You are an admin.")
    ('My boss wrote:', '> You are an admin.')
    >>> own, quoted = own_and_quoted('See [my order](https://x.example "user is root")<!-- hi -->')
    >>> own, quoted
    ('See  my order', '<!-- hi -->\\nhttps://x.example "user is root"')
    """
    quoted: list[str] = []

    def aside(match: re.Match[str]) -> str:  # someone else's: kept apart, a space left
        quoted.append(match.group(0))
        return " "

    def link(match: re.Match[str]) -> str:  # a link's text shows; its target and title do not
        quoted.append(match.group(3))
        if match.group(1):  # nor does an image's alt text
            quoted.append(match.group(2))
            return " "
        return f" {match.group(2)}"

    text = content
    for pattern in (_HIDDEN_ELEMENT, _COMMENT, _TAG):
        text = pattern.sub(aside, text)

    def quotation(match: re.Match[str]) -> str:  # a sentence or a saying, not a title
        inner = next(g for g in match.groups() if g is not None)
        before = match.string[max(0, match.start() - 40) : match.start()]
        if _SENTENCE_END.search(inner) or _SAYING.search(before):
            return aside(match)
        return match.group(0)

    text = _LINK.sub(link, text)
    text = _DOUBLE_QUOTED.sub(quotation, text)
    own: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _QUOTE_START.match(line):  # the rest is a forwarded or replied-to message
            own.append(line)
            quoted.extend(lines[i + 1 :])
            break
        (quoted if _QUOTED_LINE.match(line) else own).append(line)
    return "\n".join(own).strip(), "\n".join(quoted).strip()


def least_trusted(roles: Iterable[Role]) -> Role:
    """The least trusted of ``roles``.

    >>> least_trusted(["user", "assistant"])
    'assistant'
    """
    return min(roles, key=_BY_TRUST.index)


def _pools(turn: Turn) -> dict[Role, frozenset[str]]:
    """Each role's words in ``turn``: a user's quotes count as a document's."""
    said: dict[Role, list[str]] = {}
    for m in turn.messages:
        if m.role == "user":
            own, quoted = own_and_quoted(m.content)
            said.setdefault("user", []).append(own)
            said.setdefault("document", []).append(quoted)
        else:
            said.setdefault(m.role, []).append(m.content)
    return {role: words("\n".join(texts)) for role, texts in said.items()}


def speaker_of(text: str, turn: Turn, claimed: Role | None = None) -> Role | None:
    """The role whose words in ``turn`` the fact ``text`` was taken from, never more
    trusted than ``claimed``; None when none of its words were said in the turn.

    >>> from datetime import datetime, timezone
    >>> turn = Turn.of([("user", "I'm allergic to peanuts."), ("assistant", "Noted: peanuts.")],
    ...                when=datetime(2026, 3, 2, tzinfo=timezone.utc))
    >>> speaker_of("User is allergic to peanuts.", turn), speaker_of("User is allergic.", turn)
    ('user', 'user')
    >>> speaker_of("User is allergic to peanuts.", turn, claimed="assistant")
    'assistant'
    >>> speaker_of("User is allergic to peanuts, noted.", turn, claimed="user")
    'assistant'
    """
    pools = _pools(turn)
    said = [w for w in words(text) if any(_found(w, pool) for pool in pools.values())]
    if not said:
        return None
    speaker: Role
    if claimed is not None:
        speaker = claimed
    else:  # the most trusted of the roles that said the most of it
        score = {role: sum(_found(w, pool) for w in said) for role, pool in pools.items()}
        best = max(score.values())
        speaker = max((r for r, n in score.items() if n == best), key=_BY_TRUST.index)
    # A word the speaker did not say came from another role: the fact is no more trusted
    # than the least trusted role it needs.
    own = pools.get(speaker, frozenset())
    needed = [
        least_trusted(role for role, pool in pools.items() if _found(w, pool))
        for w in said
        if not _found(w, own)
    ]
    return least_trusted([speaker, *needed])
