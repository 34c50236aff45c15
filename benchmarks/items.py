"""Benchmark questions as QA items: what to ask, of which scope, as of when, and the gold.

:func:`items_from_locomo` and :func:`items_from_longmemeval` build them from the
``benchmarks.datasets`` loaders; :func:`write_items` and :func:`read_items` keep them as JSON lines.

>>> item = QAItem.from_json({"id": "conv-1:0", "dataset": "locomo", "category": 4,
...     "question": "Where does Ana live?", "gold": "Pune", "scope": "user:conv-1",
...     "question_date": "2023-05-08T13:56:00+00:00"})
>>> item.category, item.question_date.year, item.is_abstention
('4', 2023, False)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.datasets import Conversation, LmeQuestion, assume_utc


@dataclass(frozen=True)
class QAItem:
    """One question to answer from the memories of ``scope``.

    ``category`` is LoCoMo's category number as a string ("1".."5") or
    LongMemEval's question type; ``is_abstention`` marks questions whose right
    answer is that the information is not available (LoCoMo 5, LongMemEval ``_abs``).
    """

    id: str
    dataset: str
    category: str
    question: str
    gold: str
    scope: str
    question_date: datetime | None = None
    is_abstention: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QAItem:
        """An item from its JSON form (dates in ISO 8601; numbers become strings)."""
        date = data.get("question_date")
        return cls(
            id=str(data["id"]),
            dataset=str(data["dataset"]),
            category=str(data["category"]),
            question=str(data["question"]),
            gold=str(data.get("gold", "")),
            scope=str(data["scope"]),
            question_date=assume_utc(datetime.fromisoformat(date)) if date else None,
            is_abstention=bool(data.get("is_abstention", False)),
        )

    def to_json(self) -> dict[str, Any]:
        """The item's JSON form (the inverse of ``from_json``).

        >>> QAItem("q", "longmemeval", "multi-session", "Q?", "A", "user:q").to_json()["scope"]
        'user:q'
        """
        date = self.question_date.isoformat() if self.question_date else None
        return {**self.__dict__, "question_date": date}


def read_items(path: Path) -> list[QAItem]:
    """The items of a JSON-lines file (blank lines skipped)."""
    with path.open(encoding="utf-8") as f:
        return [QAItem.from_json(json.loads(line)) for line in f if line.strip()]


def write_items(path: Path, items: Iterable[QAItem]) -> int:
    """Write ``items`` as JSON lines; return how many."""
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
            n += 1
    return n


def items_from_locomo(conversations: Iterable[Conversation]) -> Iterator[QAItem]:
    """LoCoMo questions as items: id ``<sample_id>:<index>``, scope ``user:<sample_id>``.

    LoCoMo questions carry no date; they are asked as of the last session (the
    latest date the conversation knows). Category 5 is the abstention category.

    >>> from datetime import timezone
    >>> from benchmarks.datasets import Question, Session
    >>> conv = Conversation("conv-1", ("A", "B"),
    ...     (Session(1, datetime(2023, 5, 8, tzinfo=timezone.utc), ()),),
    ...     (Question("Q?", "x", 5, ()),))
    >>> [(i.id, i.scope, i.is_abstention) for i in items_from_locomo([conv])]
    [('conv-1:0', 'user:conv-1', True)]
    """
    for conv in conversations:
        last = max((s.date for s in conv.sessions), default=None)
        for index, q in enumerate(conv.questions):
            yield QAItem(
                id=f"{conv.sample_id}:{index}",
                dataset="locomo",
                category=str(q.category),
                question=q.question,
                gold=q.answer,
                scope=f"user:{conv.sample_id}",
                question_date=last,
                is_abstention=q.category == 5,
            )


def items_from_longmemeval(questions: Iterable[LmeQuestion]) -> Iterator[QAItem]:
    """LongMemEval questions as items: id and scope from ``question_id``.

    >>> from benchmarks.datasets import LmeQuestion
    >>> q = LmeQuestion("x_abs", "multi-session", "Q?", "A", datetime(2023, 5, 30), (), (),
    ...                 abstention=True)
    >>> [(i.id, i.scope, i.category, i.is_abstention) for i in items_from_longmemeval([q])]
    [('x_abs', 'user:x_abs', 'multi-session', True)]
    """
    for q in questions:
        yield QAItem(
            id=q.question_id,
            dataset="longmemeval",
            category=q.type,
            question=q.question,
            gold=q.answer,
            scope=f"user:{q.question_id}",
            question_date=q.question_date,
            is_abstention=q.abstention,
        )
