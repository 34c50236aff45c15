"""The two test tiers (pyproject's ``slow`` marker, ``.ci/run``): every test that a run
without ``-m`` collects, the stress runs aside, is in exactly one of them: the default
``python -m pytest -q`` or the slow ``python -m pytest -q -m slow``. Checked on this run's
own collection (tests/conftest.py records it before ``-m`` deselects), so it costs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.mark.expression import Expression
from conftest import COLLECTED

ROOT = Path(__file__).resolve().parents[1]
SLOW = "slow"  # the slow tier's expression, as .ci/run passes it


def default_expression(config: pytest.Config) -> str:
    """The ``-m`` of pyproject's addopts: what a plain ``python -m pytest -q`` selects."""
    args = list(config.getini("addopts"))  # split as a shell splits it
    return str(args[args.index("-m") + 1])


def selects(expression: str, markers: frozenset[str]) -> bool:
    return Expression.compile(expression).evaluate(lambda name, **_: name in markers)


def test_the_default_tier_leaves_out_the_slow_and_stress_tiers(
    request: pytest.FixtureRequest,
) -> None:
    assert default_expression(request.config) == "not stress and not slow"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "\nrun_tier -n 2 || failed=1 " in ci  # the default tier: python -m pytest -q -n 2
    assert f"\nrun_tier -m {SLOW} -n 2 --dist loadfile || failed=1 " in ci


def test_every_test_is_in_exactly_one_tier(request: pytest.FixtureRequest) -> None:
    default = default_expression(request.config)
    collected = request.config.stash[COLLECTED]
    assert collected  # at least this test
    wrong = {
        nodeid: sorted(markers)
        for nodeid, markers in collected.items()
        if [selects(default, markers), selects(SLOW, markers)].count(True)
        != (0 if selects("stress", markers) else 1)
    }
    assert wrong == {}
