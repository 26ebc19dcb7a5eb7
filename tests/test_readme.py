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
