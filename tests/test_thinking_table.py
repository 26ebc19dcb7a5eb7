"""One thinking table for every provider: an effort and a token budget mean the same on each."""

from __future__ import annotations

import pytest

from aiwrapper._knowledge._modelrules import EFFORTS, thinking_budget, thinking_effort


def test_each_effort_has_one_budget() -> None:
    budgets = [thinking_budget(effort) for effort in ("minimal", *EFFORTS)]
    assert budgets == [512, 1024, 8192, 24576]


@pytest.mark.parametrize("effort", EFFORTS)
def test_an_efforts_own_budget_stands_for_that_effort(effort: str) -> None:
    assert thinking_effort(thinking_budget(effort)) == effort


@pytest.mark.parametrize(
    ("budget", "effort"),
    [(1, "low"), (1025, "medium"), (2048, "medium"), (8193, "high"), (100_000, "high")],
)
def test_a_budget_stands_for_the_smallest_effort_that_covers_it(budget: int, effort: str) -> None:
    assert thinking_effort(budget) == effort
