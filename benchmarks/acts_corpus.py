"""The sentences of the acts corpus (``benchmarks/acts/``), drawn from the development data.

What a sentence *does* (sets a standing instruction, states a fact about the speaker, asks
a question ...) is what the offline model has to tell; the corpus holds real sentences
labelled with it (see ``benchmarks/acts/README.md``). This module draws the real ones:
sentences of LoCoMo's turns (two people chatting; every speaker is a user; a session is a
conversation, as there are only ten pairs of speakers) and of the
LongMemEval **oracle** file's user turns (people asking an assistant), and a few of its
assistant turns (words that are not the user's). Never LongMemEval S: it is the held-out
acceptance set. The draw is deterministic (a seeded sample of the sentences, in the data's
order), and each sentence carries its group, the conversation it came from, which decides
its split (``split_of``)::

    python -m benchmarks acts-corpus --data ../shared/data --out /tmp/candidates.jsonl

>>> sentences("I moved to Pune last May. Thanks! Can you help me pack?")
['I moved to Pune last May.', 'Thanks!', 'Can you help me pack?']
>>> split_of("locomo:conv-26:s1"), split_of("lme-oracle:gpt4_2655b836")
('test', 'test')
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks.datasets import DATASETS, iter_longmemeval, load_locomo, missing_data

__all__ = ["Candidate", "draw", "main", "sentences", "split_of"]

#: A sentence's words, within which it is kept: shorter is rarely an act, longer is a
#: document or a list pasted into the chat.
WORDS = (2, 60)
#: One in this many groups is in the test split (by a hash of the group's name).
TEST_ONE_IN = 5
_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


@dataclass(frozen=True)
class Candidate:
    """A sentence to label: ``id`` names its place in the data, ``group`` its
    conversation (the unit of the split), ``role`` who said it."""

    id: str
    group: str
    role: str
    text: str


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences at a stop followed by a capital or a digit; lines are
    sentences too."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(part.strip() for part in _END.split(line.strip()) if part.strip())
    return out


def split_of(group: str) -> str:
    """``"test"`` for one group in ``TEST_ONE_IN`` (a hash of its name), else ``"train"``."""
    digest = int(hashlib.sha256(group.encode("utf-8")).hexdigest()[:8], 16)
    return "test" if digest % TEST_ONE_IN == 0 else "train"


def _kept(text: str) -> bool:
    words = len(text.split())
    return WORDS[0] <= words <= WORDS[1] and not text.lstrip().startswith(("http", "|", "```"))


def _locomo(data: Path) -> Iterator[Candidate]:
    for chat in load_locomo(data / DATASETS["locomo"]):
        for session in chat.sessions:
            for turn in session.turns:
                for n, text in enumerate(sentences(turn.text)):
                    if _kept(text):
                        cid = f"locomo:{chat.sample_id}:{turn.dia_id}:{n}"
                        group = f"locomo:{chat.sample_id}:s{session.index}"
                        yield Candidate(cid, group, "user", text)


def _oracle(data: Path) -> Iterator[Candidate]:
    seen: set[str] = set()  # a session shared by questions is drawn from once
    for question in iter_longmemeval(data / DATASETS["longmemeval-oracle"]):
        group = f"lme-oracle:{question.question_id}"
        for session in question.sessions:
            if session.session_id in seen:
                continue
            seen.add(session.session_id)
            for t, turn in enumerate(session.turns):
                for n, text in enumerate(sentences(turn.content)):
                    if _kept(text):
                        cid = f"lme-oracle:{question.question_id}:{session.session_id}:{t}:{n}"
                        yield Candidate(cid, group, turn.role, text)


def draw(
    data: Path, *, locomo: int, oracle_user: int, oracle_assistant: int, seed: int = 43
) -> list[Candidate]:
    """A seeded sample of each source's sentences, distinct texts only, in the data's order."""
    rng = random.Random(seed)
    out: list[Candidate] = []
    texts: set[str] = set()
    oracle = list(_oracle(data))  # the 14 MB file read once for both roles
    pools = {
        "locomo": list(_locomo(data)),
        "user": [c for c in oracle if c.role == "user"],
        "assistant": [c for c in oracle if c.role == "assistant"],
    }
    for name, n in (("locomo", locomo), ("user", oracle_user), ("assistant", oracle_assistant)):
        pool = []
        for c in pools[name]:
            if c.text not in texts:
                texts.add(c.text)
                pool.append(c)
        picked = sorted(rng.sample(range(len(pool)), min(n, len(pool))))
        out.extend(pool[i] for i in picked)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks acts-corpus``; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks acts-corpus", description=__doc__)
    p.add_argument("--data", type=Path, required=True, help="the datasets' folder")
    p.add_argument("--out", type=Path, required=True, help="the candidates, as JSON lines")
    p.add_argument("--locomo", type=int, default=1300)
    p.add_argument("--oracle-user", type=int, default=1300)
    p.add_argument("--oracle-assistant", type=int, default=160)
    args = p.parse_args(argv)
    if problem := missing_data(args.data, DATASETS["locomo"], DATASETS["longmemeval-oracle"]):
        print(problem, file=sys.stderr)
        return 2
    drawn = draw(
        args.data,
        locomo=args.locomo,
        oracle_user=args.oracle_user,
        oracle_assistant=args.oracle_assistant,
    )
    with args.out.open("w", encoding="utf-8") as out:
        for c in drawn:
            out.write(json.dumps({**asdict(c), "split": split_of(c.group)}) + "\n")
    print(f"{len(drawn)} sentences -> {args.out}")
    return 0
