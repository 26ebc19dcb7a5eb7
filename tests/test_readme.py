"""Every Python snippet in the README runs, offline, as written."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
# A durable run's snippet is a worker's script: it runs as one, in a process of its own.
DURABLE = [s for s in SNIPPETS if "aiwrapper.durable" in s]
IN_PROCESS = [s for s in SNIPPETS if s not in DURABLE]
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


@pytest.mark.parametrize("snippet", IN_PROCESS, ids=[f"snippet{i}" for i in range(len(IN_PROCESS))])
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


@pytest.mark.parametrize("snippet", DURABLE, ids=[f"durable{i}" for i in range(len(DURABLE))])
def test_a_durable_snippet_runs_as_a_worker_script(snippet: str, tmp_path: Path) -> None:
    pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")
    script = tmp_path / "worker.py"
    script.write_text(snippet, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["PYTHONPATH"] = str(README.parent)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "(offline model):\n" in done.stdout  # the run's answer, on the offline model
    assert done.stdout.endswith("cents for A-17\n")
    assert (tmp_path / "aiwrapper_durable.sqlite").exists()  # the default: in the cwd
