"""What the crash tests check: what a recovered run must show."""

from __future__ import annotations

from pathlib import Path

from .fakeopenai import ANSWER, USAGE, FakeOpenAI
from .workers import lines


def check_recovered(
    result: dict[str, object], server: FakeOpenAI, work: Path, interrupted: bool = True
) -> None:
    """The run finished after the crash: the first tool ran once, no finished request was
    sent again, the ``interrupted`` call ran again, and the answer and usage are whole."""
    assert result == {
        "answer": ANSWER,
        "finish_reason": "stop",
        "pending": [],
        "iterations": 3,
        "calls": [["first", "done"], ["second", "done"]],
        "input_tokens": 3 * USAGE["prompt_tokens"],  # the replayed requests' usage counts
        "output_tokens": 3 * USAGE["completion_tokens"],
    }
    assert lines(work / "first") == ["one"]  # ran once, before the crash
    assert dict(server.stages) == {0: 1, 1: 1, 2: 1}  # no finished request sent again
    # Cut by the crash, then run again; or run once, after the crash.
    assert len(lines(work / "second-started")) == (2 if interrupted else 1)
    assert len(lines(work / "second-done")) == 1
