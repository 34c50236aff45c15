"""A cheap gate in front of fact extraction: could this user turn hold a fact about the user?

Extraction costs one LLM call per turn. Many turns cannot hold a durable fact about the
user (a bare question, a greeting, "thanks!", "lol"), and ``may_hold_fact`` skips those
in microseconds with a few regexes and no model. It is deliberately lopsided: a fact the
gate skips is lost forever, while a turn it passes needlessly costs one call, so every
rule below errs towards passing.

>>> may_hold_fact("I'm vegetarian, what should I cook tonight?")
True
>>> may_hold_fact("My daughter turns 5 next week - any party ideas?")
True
>>> may_hold_fact("Can you help me write a poem?")
False
>>> may_hold_fact("thanks!")
False
"""

from __future__ import annotations

import re

from langgraph_memory.errors import InvalidTypeError
from langgraph_memory.text import sentences, spoken_words
from langgraph_memory.write.rules.standing import may_touch_rules

__all__ = ["asks_only", "may_hold_fact"]

# Typographic apostrophes and quotes are folded to ASCII first, so that "I\u2019m" from a phone
# keyboard matches the same rules as "I'm".
_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})

# An explicit memory request ("remember that...", "don't forget", "note that", "for future
# reference", "from now on", "call me Sam") is the user asking us to keep something: always
# pass, whatever else the message looks like.
_MEMORY_REQUEST = re.compile(
    r"\b(?:remember|don'?t\s+forget|do\s+not\s+forget|keep\s+in\s+mind|note\s+that|"
    r"make\s+a\s+note|take\s+note|for\s+future\s+reference|from\s+now\s+on|going\s+forward|"
    r"call\s+me|my\s+name)\b",
    re.IGNORECASE,
)

# Words that put the user (or the user's household: "we", "our") in the sentence as owner
# or as a subject with a contraction. These pass wherever they occur, questions included:
# "What should I get for my wife?" tells us there is a wife, and "since I'm vegetarian"
# inside a question is still a statement. Contractions need their apostrophe ("we'll", not
# "well"; "I'd", not "id"), except "im"/"ive", typed without one often enough to be worth a
# check of the next word.
_FIRST_PERSON_STRONG = re.compile(
    r"\b(?:my|mine|myself|our|ours|ourselves|i'm|i've|i'd|i'll|we're|we've|we'd|we'll)\b"
    r"|\b(?:im|ive)\s+(?:a|an|the|not|so|really|just|been|got|going|looking|trying|from|in)\b",
    re.IGNORECASE,
)

# A bare subject "I"/"we". Right after an auxiliary it is the inverted subject of a question
# ("should I", "can we", "do I"), which asks rather than tells, so it does not count there;
# anywhere else ("if I need", "that's why I love") it is the user saying something about
# themselves.
_SUBJECT = re.compile(r"\b(?:I|i|we|We)\b")
_INVERTING_AUXILIARY = re.compile(
    r"\b(?:do|does|did|can|could|should|would|will|shall|may|might|must|am|are|was|were|have|"
    r"has|had)\s*$",
    re.IGNORECASE,
)

# A sentence is a request rather than a statement when it ends with "?" or opens the way
# questions and commands do: a wh-word, an auxiliary before its subject ("can you", "is
# there"), or a common imperative aimed at the assistant ("tell me", "write", "help"), after
# any leading "ok," or "thanks,".
# Objects like "me" in a request ("can you help me") only name who wants the favour.
_REQUEST_START = re.compile(
    r"^\W*(?:(?:ok|okay|sure|yes|yeah|great|thanks|oh|well|hmm|so|and|also|alright|cool|now)\W+)*"
    r"(?:please\s+)?(?:"
    r"what|what's|whats|who|who's|whom|whose|where|where's|when|why|how|how's|which|"
    r"(?:do|does|did|can|could|would|will|should|shall|may|is|are|was|were|have|has)"
    r"\s+(?:you|it|there|this|that|they|he|she|the|a|an|any)|"
    r"tell|give|write|help|show|explain|list|suggest|recommend|make|create|generate|"
    r"summari[sz]e|translate|find|describe|provide|compare|define|rewrite|draft|let\s+me|"
    r"any|anything|is\s+it"
    r")\b",
    re.IGNORECASE,
)


# A question that opens with a wh-word asks even when it names remembering ("What does
# Joanna do to remember her dog?"); one that opens with an auxiliary may be a request to
# remember ("Can you remember that my flight lands at 6?").
_WH_START = re.compile(
    r"^\W*(?:(?:ok|okay|sure|yes|yeah|great|thanks|oh|well|hmm|so|and|also|alright|cool|now)"
    r"\W+)*(?:what|what's|whats|who|who's|whom|whose|where|where's|when|why|how|how's|which)\b",
    re.IGNORECASE,
)


def _word_set(words: str) -> frozenset[str]:
    """A word list written as one whitespace-separated string, which keeps long lists short."""
    return frozenset(words.split())


# Small talk: a sentence made only of greetings, thanks, acknowledgements, laughter and
# stock praise ("Hi there!", "ok", "lol", "Thanks so much!", "Wow, that's awesome!").
# A capitalised word right after a greeting or thanks, or ending the sentence, is dropped
# first: it is the name of whom the user greets or thanks ("Hey Caroline!", "Thanks, Sam.").
# Other capitalised words stay, so "It's Shia LaBeouf!" (an answer) is not small talk.
_SMALL_TALK_WORDS = _word_set(
    """
    hi hey hello hiya yo morning evening afternoon night there everyone all guys
    bye goodbye later soon ttyl cya take care night
    thanks thank thx ty cheers appreciate appreciated it much lot lots so very really
    ok okay k kk sure yes yeah yep yup ya no nope nah alright fine right exactly true indeed
    agreed absolutely definitely totally of course np problem welcome got understood noted
    haha hahaha hehe lol lmao rofl omg wow whoa woah oh ah aw aww awww hmm hm um uh huh
    good great nice cool awesome amazing fun lovely sweet cute beautiful wonderful fantastic
    fabulous incredible impressive perfect gorgeous neat super brilliant excellent glad happy
    sorry to hear that that's thats this is it's its sounds looks seems pretty quite such too
    just the a an and for you well done luck congrats congratulations best wishes again see
    please go ahead continue makes sense
    """
)
# First-person acknowledgements ("I see.", "I agree!") say nothing about the user although
# they have a subject "I"; they are small talk only when they are the whole sentence.
_FIRST_PERSON_ACK = re.compile(
    r"^\W*(?:(?:ok|okay|oh|ah|yes|yeah|hmm|sure)\W+)*"
    r"i\s+(?:see|agree|understand|know|guess(?:\s+so)?|think\s+so|don'?t\s+know|get\s+it|got\s+it)"
    r"(?:\W+(?:now|thanks|thank\s+you))?\W*$",
    re.IGNORECASE,
)
_BEFORE_NAME = _word_set("hi hey hello hiya yo bye thanks thank you thx ty wow great")

# A statement whose subject is "you" is about the other party (the assistant, or in a group
# chat the person addressed): "You're right", "Your recipe worked great". The user's own
# facts in such a turn come with a first-person word, which is checked before this.
_ADDRESSEE_START = re.compile(r"^\W*(?:you|your|you're|youre|you've|you'll|you'd)\b", re.I)


# Sentences (``text.sentences``) are not split further into clauses: the rules below look
# at words, not at clause structure.
def may_hold_fact(text: str) -> bool:
    """Whether ``text`` (the user's part of one turn) could state a durable fact about the user.

    ``False`` means: skip the extraction call, nothing personal can be in here. ``True``
    means: maybe, let the model look. A statement without any first-person word still
    passes, because it may answer the assistant's question ("Around $500.", "She moved to
    Chicago."); only requests, small talk and remarks about the addressee are skipped.

    >>> may_hold_fact("Remember that my flight lands at 6pm.")
    True
    >>> may_hold_fact("What's the weather?")
    False
    >>> may_hold_fact("Vegetarian, since 2019.")
    True
    >>> may_hold_fact("Hey Sam! Thanks so much, that's awesome.")
    False
    >>> may_hold_fact("Make that 50 words.")  # a change of a standing instruction
    True
    """
    folded = text.translate(_FOLD)
    if _MEMORY_REQUEST.search(folded) or _FIRST_PERSON_STRONG.search(folded):
        return True
    said = sentences(folded)
    if any(_sentence_tells(s) for s in said):
        return True
    # A request may set, change or cancel a standing instruction in any words ("Make that
    # 50 words.", "When you write code, add comments every time."): the classifier of
    # acts tells (microseconds a sentence; write/rules/standing).
    return any(may_touch_rules(s) for s in said)


def asks_only(text: str) -> bool:
    """Whether ``text`` (what one speaker said in a turn) only asks or makes small talk:
    every sentence a question, a request, or a greeting, thanks or acknowledgement, with
    no statement about the speaker or the world beside them.

    Such a turn is not a memory of what happened: a read ranks its episode below
    statements, as evidence that the user wondered, and never returns it for the same
    question asked again (it would match itself first). A sentence that opens as a
    question and ends with "?" asks, whatever it mentions on the way ("Where did I
    park my car?"); any other sentence with a
    first-person subject or possessive ("I'm in Pune, where should I eat?"), a remark
    about the addressee ("You can use coconut oil") or a request to remember something
    is a statement.

    >>> asks_only("Where do I live?"), asks_only("Hey! Thanks. So what's on my list?")
    (True, True)
    >>> asks_only("I'm in Pune. Where should I eat?")
    False
    >>> asks_only("Since I'm vegan, what can I cook?")
    False
    >>> asks_only("You can use coconut oil instead of butter."), asks_only("  ")
    (False, False)
    >>> asks_only("What does Ana do to remember her dog?"), asks_only("Can you remember my PIN?")
    (True, False)
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"asks_only() takes a str, got {type(text).__name__}")
    folded = text.translate(_FOLD)
    said = sentences(folded)
    return bool(said) and all(_sentence_asks(s) for s in said)


def _sentence_asks(sentence: str) -> bool:
    """Whether one sentence asks, requests or makes small talk (see ``asks_only``)."""
    question = sentence.rstrip().endswith("?")
    if question and _WH_START.match(sentence):
        return True
    if _MEMORY_REQUEST.search(sentence):
        return False
    if _FIRST_PERSON_ACK.match(sentence):
        return True
    opens = _REQUEST_START.match(sentence) is not None
    if question and opens:
        return True
    if _FIRST_PERSON_STRONG.search(sentence) or _has_subject(sentence):
        return False
    return question or opens or _small_talk(sentence)


def _sentence_tells(sentence: str) -> bool:
    """Whether one sentence (already free of the strong signals) may tell about the user."""
    if _FIRST_PERSON_ACK.match(sentence):
        return False
    if _has_subject(sentence):
        return True
    if sentence.rstrip().endswith("?") or _REQUEST_START.match(sentence):
        return False
    if _ADDRESSEE_START.match(sentence):
        return False
    return not _small_talk(sentence)


def _has_subject(sentence: str) -> bool:
    """Whether "I" or "we" is the subject somewhere, not the inverted subject of a question."""
    return any(
        not _INVERTING_AUXILIARY.search(sentence, 0, m.start()) for m in _SUBJECT.finditer(sentence)
    )


def _small_talk(sentence: str) -> bool:
    """Whether a sentence is made only of small-talk words and the names of whom it greets."""
    words = spoken_words(sentence)
    return all(
        w.lower() in _SMALL_TALK_WORDS
        or (
            i > 0
            and w[0].isupper()
            and (i == len(words) - 1 or words[i - 1].lower() in _BEFORE_NAME)
        )
        for i, w in enumerate(words)
    )
