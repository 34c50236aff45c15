"""The LLM judge "J": is a generated answer CORRECT or WRONG against the gold one?

The prompt follows the judge of Mem0's LoCoMo evaluation (arXiv:2504.19413):
generous on length, format and paraphrase, strict on the facts, dates compared
by the day or period they mean. Unlike Mem0, which drops LoCoMo's adversarial
category, unanswerable questions are judged too: the answer is CORRECT only if
it says the information is not available. Any chat model can judge; the verdict
is read with ``langgraph_memory.write.steps.ask`` (tool calling, else JSON in plain text).

>>> from langgraph_memory.testing import ScriptedChatModel
>>> judge = ScriptedChatModel(script=[{"reasoning": "Same city.", "label": "CORRECT"}])
>>> verdict = judge_answer(judge, "Where does Ana live?", "Pune", "She lives in Pune.")
>>> verdict.label, verdict.correct, verdict.reasoning
('CORRECT', True, 'Same city.')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, field_validator

from langgraph_memory.write.steps import ask

#: Part of the cache key of verdicts: change it whenever the prompt changes.
JUDGE_PROMPT_VERSION = "j1"

SYSTEM = """You grade answers to questions about a person's past conversations.
You get a question, a gold (ground-truth) answer and a generated answer, and label
the generated answer CORRECT or WRONG.

Be generous on form: the generated answer may be longer, worded differently or
formatted differently; it is CORRECT when it states the same fact as the gold answer.
Be strict on facts: a different person, place, thing, number or event is WRONG, and
so is an answer that hedges between several options or says nothing definite.
Dates and times are compared by meaning: "7 May 2023", "May 7th" and "the Sunday
before 8 May 2023" are the same date when they name the same day; a date or period
that differs from the gold one is WRONG."""

ANSWERABLE = """Question: {question}
Gold answer: {gold}
Generated answer: {answer}

Give one sentence of reasoning, then the label. Reply with JSON only:
{{"reasoning": "...", "label": "CORRECT" or "WRONG"}}"""

UNANSWERABLE = """Question: {question}
This question cannot be answered from the conversations (the gold answer is that the
information is not available{note}).
Generated answer: {answer}

The generated answer is CORRECT only if it says the information is not available,
not mentioned or unknown, without asserting an answer; any answer it asserts is WRONG.
Give one sentence of reasoning, then the label. Reply with JSON only:
{{"reasoning": "...", "label": "CORRECT" or "WRONG"}}"""

_LABEL = re.compile(r"\b(CORRECT|WRONG)\b")


class Verdict(BaseModel):
    """What the judge is asked to return."""

    reasoning: str = Field(description="One sentence on why the answer is right or wrong.")
    label: Literal["CORRECT", "WRONG"] = Field(description="CORRECT or WRONG.")

    @field_validator("label", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        # Small models write "correct" or "Correct."; the meaning is the same.
        return value.strip(" .").upper() if isinstance(value, str) else value


@dataclass(frozen=True)
class Judgement:
    """A verdict on one answer; ``label`` is "INVALID" when the judge's reply had none."""

    label: str
    reasoning: str
    raw: str = ""

    @property
    def correct(self) -> bool:
        """Whether the answer was judged CORRECT."""
        return self.label == "CORRECT"


def judge_messages(
    question: str, gold: str, answer: str, *, abstention: bool = False
) -> list[BaseMessage]:
    """The judge prompt for one answer.

    >>> print(judge_messages("When?", "8 May 2023", "May 8")[1].content.splitlines()[1])
    Gold answer: 8 May 2023
    """
    if abstention:
        note = f"; a misleading answer would be: {gold}" if gold else ""
        text = UNANSWERABLE.format(question=question, answer=answer, note=note)
    else:
        text = ANSWERABLE.format(question=question, gold=gold, answer=answer)
    return [SystemMessage(SYSTEM), HumanMessage(text)]


def judge_answer(
    model: BaseChatModel, question: str, gold: str, answer: str, *, abstention: bool = False
) -> Judgement:
    """Ask ``model`` to judge ``answer``; a reply without a usable label is INVALID.

    >>> from langgraph_memory.testing import ScriptedChatModel
    >>> judge_answer(ScriptedChatModel(script=["I think it is WRONG."]), "Q?", "a", "b").label
    'WRONG'
    """
    verdict, raw = ask(
        model, judge_messages(question, gold, answer, abstention=abstention), Verdict
    )
    if verdict is not None:
        return Judgement(verdict.label, verdict.reasoning, raw)
    # A reply that names exactly one label still says what the judge meant.
    labels = set(_LABEL.findall(raw))
    if len(labels) == 1:
        return Judgement(labels.pop(), raw.strip(), raw)
    return Judgement("INVALID", f"no CORRECT/WRONG label in the judge's reply: {raw[:200]!r}", raw)
