"""The offline rules model: a deterministic extractor and reconciler, no LLM.

Used by the demo and the tests when no chat model is configured. It is a
fallback, not the quality path: it reads plain first-person statements with
regular expressions and reconciles them by *slot* (what a fact is about, such
as ``location`` or ``sister.location``) instead of by meaning.

What it understands (in the user's messages; in assistant, tool or document
messages "you"/"your" stand for the user and "I" is the speaker, not the user):

- name: "my name is Alice", "I'm called Alice", "call me Alice", "I'm Alice";
- where the user lives: "I live in / I'm based in / I (have just) moved to Pune",
  and where they are from ("I'm from Pune");
- work: "I work at/for Acme", "I work as a nurse", "I'm employed by Acme", "I'm a
  teacher" (for a short list of job nouns only), "I quit my job at Acme", and a new
  employer ("I just started a new job at Globex", "I got a job with Initech", "I
  joined Hooli"), which replaces the old one;
- diet and health: "I'm vegetarian/vegan/...", "I'm allergic to peanuts and
  shellfish" (one fact per allergen), "I have a peanut allergy", "I'm lactose
  intolerant", "I eat/drink/smoke ...";
- preferences: "I prefer metric units" (units, temperature, distance, time
  format, theme, seat, hot drink, answer length and contact are recognised
  topics), "I like/love/enjoy/hate jazz", "my favourite food is sushi";
- age ("I'm 34"), marriage ("I'm married to Maria");
- other people and pets, kept attached to them: "my sister lives in Delhi",
  "my wife is called Maria", "I have a sister named Priya", "I have a dog
  named Rex", "my dog's name is Rex";
- "remember that ...": the rest is read by the rules above, or else rewritten
  to the third person where that is simple (I -> User, my -> User's);
- corrections that say the fact again: their lead ("correction:", "sorry", "oops", "I
  mean") and the old value they contrast with (", not Pune", "instead of coffee") go;
- negations: "I no longer ...", "I don't ... anymore", "I'm not ... (anymore)",
  "I don't eat meat", "I stopped eating meat";
- plans, stored as plans with their date, never as changes: "I might / may /
  will / plan to / am going to / am thinking of moving ... move to Pune next
  year" -> "User plans to move to Pune in 2027."; "I'm flying to Rome on Tuesday"
  (a plan's verb in the present progressive, with a date);
- a thing of the user's with a date: "my dentist appointment is next Friday" ->
  "User's dentist appointment is on 2026-03-06." (moved when said again);
- relative dates against the turn's date: today, tonight, tomorrow, yesterday,
  the day after tomorrow, next/last/this/coming/on <weekday>, next/last/this
  week, month and year, in N days/weeks/months/years, N ... ago.

Reconciliation: a fact and a shown memory with the same slot and the same value
-> NOOP; a new value -> UPDATE; a negation of the held value -> DELETE;
otherwise an identical text -> NOOP, else ADD.

What it does not understand:

- anything said about the user in the third person ("Alice lives in Pune"), or by
  "we" ("we moved to Pune");
- pronouns across sentences ("My sister moved. She lives in Delhi now." gives
  nothing about the sister), and ellipsis ("Pune, actually.");
- sarcasm, jokes, hypotheticals and conditionals ("if I lived in Pune ..."),
  wishes ("I want to ..."), past states ("I used to live in Delhi");
- plans other than the listed modal patterns with a short list of verbs
  (move, visit, travel, learn, buy, retire ...);
- non-English text;
- compound sentences beyond splitting on "and", "but", "so", "because" and
  comma splices before "I"/"my"; lists are split only for allergies;
- corrections such as "actually it's Mumbai" or "the Bangalore office, I mean" unless
  they repeat a full pattern ("actually I live in Mumbai", "Correction: I live in
  Mumbai, not Pune");
- a bare weekday with "on" is always taken to be the next one, even in the past
  tense ("I moved on Friday");
- one value per slot: a second sister's name or a second dog of the same
  species replaces the first, and a move does not close an older plan to move;
- two facts of one batch about the same slot when the first is new: the second
  is added too, since a choice can only point at memories that were shown;
- jobs outside that short list ("I'm a sommelier"), "I work in marketing", quantities
  ("I have two kids"), birthdays and most other facts.

>>> from datetime import datetime, timezone
>>> from langgraph_memory.write.types import Turn
>>> turn = Turn.of([("user", "Hi! I'm Alice and I live in Pune. What's the weather?")],
...                when=datetime(2026, 3, 2, tzinfo=timezone.utc))
>>> [f.text for f in RulesModel().extract(turn).facts]
["User's name is Alice.", 'User lives in Pune.']

The rules live in one module per job, each importing only those listed after it:
``model`` (``RulesModel``) -> ``slots`` (slots and reconciliation) -> ``facts``
(sentences and clauses into facts) -> ``standing`` (the standing instructions a
sentence sets, changes or cancels) -> ``instructions`` (their grammar) and ``act_head``
(the classifier of acts, trained and shipped, which gates them: issue 43) ->
``predicates`` (the patterns) -> ``grammar`` (English) -> ``dates`` and
``vocabulary`` (the word lists). ``acts`` (the classifier's features) imports none
of them.

Standing instructions: the classifier of acts tells a sentence that sets, changes or
cancels one from the rest, in any words; a new rule also needs a word that says it
lasts ("always", "from now on", "every ...", "by default"), since on real chat most
requests are for the answer at hand; a change ("make that 50 words") rewrites the held
rule it shares words with, and a cancel ("the no-emoji thing is over") retires it.
"""

from langgraph_memory.write.rules.act_head import ActHead, gated, shipped_head
from langgraph_memory.write.rules.acts import ACTS, RULE_ACTS, act_tokens, token_vector
from langgraph_memory.write.rules.instructions import CHANGE_SLOT, DROP_SLOT, rule_slot
from langgraph_memory.write.rules.model import RulesModel
from langgraph_memory.write.rules.slots import choose_batch, topic_of
from langgraph_memory.write.rules.standing import LASTING, read_rules

__all__ = [
    "ACTS",
    "CHANGE_SLOT",
    "DROP_SLOT",
    "LASTING",
    "RULE_ACTS",
    "ActHead",
    "RulesModel",
    "act_tokens",
    "choose_batch",
    "gated",
    "read_rules",
    "rule_slot",
    "shipped_head",
    "token_vector",
    "topic_of",
]
