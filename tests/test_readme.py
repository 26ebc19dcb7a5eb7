"""Every Python snippet in the README runs, offline, as written."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AIWRAPPER_PROVIDER",
    "AIWRAPPER_MODEL",
)


def test_the_readme_has_snippets() -> None:
    assert len(SNIPPETS) >= 5


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_readme_snippet_runs(
    snippet: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    logger = logging.getLogger("aiwrapper")
    level = logger.level
    try:
        exec(compile(snippet, str(README), "exec", dont_inherit=True), {"__name__": "readme"})
    finally:  # the logging snippet turns DEBUG on: not for the tests that follow
        logger.setLevel(level)
    assert "Traceback" not in capsys.readouterr().err


def test_the_logging_snippet_prints_what_its_comments_say(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (snippet,) = [s for s in SNIPPETS if "logging.basicConfig" in s]
    said = re.findall(r"^# ((?:DEBUG|INFO|WARNING|ERROR):aiwrapper[\w.]*:.*)$", snippet, re.M)
    logger = logging.getLogger("aiwrapper")
    monkeypatch.setattr(logger, "level", logger.level)  # the snippet turns DEBUG on
    exec(compile(snippet, str(README), "exec", dont_inherit=True), {"__name__": "readme"})
    printed = [f"{r.levelname}:{r.name}:{r.getMessage()}" for r in caplog.records]
    duration = re.compile(r"in \d+\.\d+s$")
    assert [duration.sub("in 0.001s", line) for line in printed] == said
    (warned,) = [r for r in caplog.records if r.levelname == "WARNING"]
    assert warned.exc_info is not None  # the traceback the comment mentions, ending in:
    error = warned.exc_info[1]
    assert f"# Traceback (most recent call last): ... {type(error).__name__}: {error}" in snippet
