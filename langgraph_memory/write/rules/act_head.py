"""The classifier of acts as shipped: the head ``python -m benchmarks acts-train`` makes.

The head file (``langgraph_memory/data/acts_head.json``, ~1 MB) holds the head's outputs
(an act each of ``ACTS``, then ``"rule"``: any standing-instruction act), each output's
threshold, the vocabulary of tokens it reads (``acts.act_tokens``) and its weights,
float32. It is pinned by ``HEAD_SHA256``, as the embedder's model is: a file that is not
the one this release was measured with is refused, never read. Scoring a sentence sums
the weight rows of the tokens it holds, so it costs microseconds and needs no embedder.

>>> head = shipped_head()
>>> head.outputs[-1], len(head.vocabulary) > 1000
('rule', True)
>>> sorted(head.acts("From now on, please keep every answer under 100 words."))
['rule', 'rule_set']
>>> "rule" in head.acts("I always keep my answers short in meetings.")
False
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files

import numpy as np

from langgraph_memory.errors import ModelFileError
from langgraph_memory.write.rules.acts import RULE_ACTS, act_tokens

__all__ = ["HEAD_SHA256", "ActHead", "gated", "shipped_head"]

#: sha256 of the shipped ``data/acts_head.json`` (``python -m benchmarks acts-train --out``
#: on corpus version 3; its per-act table is docs/results/acts.md).
HEAD_SHA256 = "55a412083fbb50db9634d9812d2359eab825429bb079a347a3374c431bf5bc48"
_RESOURCE = "data/acts_head.json"


@dataclass(frozen=True)
class ActHead:
    """A one-hidden-layer network over token columns, one sigmoid per output."""

    outputs: tuple[str, ...]
    thresholds: tuple[float, ...]
    vocabulary: Mapping[str, int]
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def _probabilities(self, text: str) -> np.ndarray:
        columns = [c for t in act_tokens(text) if (c := self.vocabulary.get(t)) is not None]
        hidden = np.maximum(self.w1[columns].sum(axis=0) + self.b1, 0.0)
        out: np.ndarray = 1.0 / (1.0 + np.exp(-(hidden @ self.w2 + self.b2)))
        return out

    def scores(self, text: str) -> dict[str, float]:
        """Each output's probability for ``text``."""
        out = self._probabilities(text)
        return {name: float(p) for name, p in zip(self.outputs, out, strict=True)}

    def acts(self, text: str) -> frozenset[str]:
        """What ``text`` does: the outputs ``gated`` says for its probabilities."""
        said = gated(self._probabilities(text)[None, :], self.thresholds, self.outputs)[0]
        return frozenset(name for name, on in zip(self.outputs, said, strict=True) if on)

    @classmethod
    def from_json(cls, text: str) -> ActHead:
        """The head a head file's text describes (``benchmarks/acts_train.py``,
        ``head_json``); ``ModelFileError`` when it is not one."""
        try:
            data = json.loads(text)
            vocabulary = {token: i for i, token in enumerate(data["vocabulary"])}
            outputs, hidden = tuple(data["outputs"]), int(data["hidden"])
            thresholds = tuple(float(t) for t in data["thresholds"])
            missing = {*RULE_ACTS, "rule"} - set(outputs)
            if missing or len(thresholds) != len(outputs):
                raise ModelFileError(
                    f"not a head of acts: outputs {list(outputs)} with {len(thresholds)} "
                    f"thresholds (it needs {sorted(missing)} too, and a threshold each)"
                )

            def array(name: str, shape: tuple[int, ...]) -> np.ndarray:
                raw = np.frombuffer(base64.b64decode(data[name]), dtype="<f4")
                return raw.astype(np.float64).reshape(shape)

            return cls(
                outputs=outputs,
                thresholds=thresholds,
                vocabulary=vocabulary,
                w1=array("w1", (len(vocabulary), hidden)),
                b1=array("b1", (hidden,)),
                w2=array("w2", (hidden, len(outputs))),
                b2=array("b2", (len(outputs),)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"not a head of acts: {exc!r}") from exc


def gated(scores: np.ndarray, thresholds: Sequence[float], outputs: Sequence[str]) -> np.ndarray:
    """Which outputs each row of ``scores`` says: those whose probability reaches their
    threshold, except that the rule acts follow the gate (``"rule"``): a row it admits
    does the one of ``RULE_ACTS`` scored highest, and a row it does not admit none of
    them. (Set, change and cancel blur into each other; the gate tells a rule from the
    rest more surely than each of them alone: benchmarks/acts_train.py.) The head's
    ``acts`` and the trainer's measurements both read scores through this.

    >>> outputs = ("rule_set", "rule_change", "rule_cancel", "fact", "rule")
    >>> gated(np.array([[0.3, 0.2, 0.5, 0.1, 0.9]]), [0.5] * 5, outputs).tolist()
    [[False, False, True, False, True]]
    """
    said = scores >= np.asarray(thresholds)
    rule = np.array([outputs.index(a) for a in RULE_ACTS])
    said[:, rule] = False
    admitted = np.flatnonzero(said[:, outputs.index("rule")])
    said[admitted, rule[np.argmax(scores[np.ix_(admitted, rule)], axis=1)]] = True
    return said


@functools.cache
def shipped_head() -> ActHead:
    """The head this release ships, read once per process and checked against
    ``HEAD_SHA256`` first."""
    try:
        raw = (files("langgraph_memory") / _RESOURCE).read_bytes()
    except OSError as exc:
        raise ModelFileError(
            f"cannot read langgraph_memory/{_RESOURCE} ({exc}); reinstall langgraph-memory-kit"
        ) from exc
    digest = hashlib.sha256(raw).hexdigest()
    if digest != HEAD_SHA256:
        raise ModelFileError(
            f"langgraph_memory/{_RESOURCE} has sha256 {digest}, not the {HEAD_SHA256} this "
            "release was measured with; reinstall langgraph-memory-kit"
        )
    return ActHead.from_json(raw.decode("utf-8"))
