"""Typing as users see it: mypy and pyright check tests/typing/*.py like a user's own code.

``user_code.py`` and ``output_types.py`` must pass both checkers in strict mode (their
``type: ignore`` lines must still be needed); every line of ``mistakes.py`` marked
``# error:`` must be reported by both, and no other line.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TYPING = Path(__file__).resolve().parent / "typing"
CLEAN = [str(TYPING / "user_code.py"), str(TYPING / "output_types.py")]
MISTAKES = TYPING / "mistakes.py"


def _mypy(*args: str) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api")
    stdout, stderr, status = api.run(["--strict", "--no-error-summary", *args])
    return stdout + stderr, status


@functools.cache
def _mypy_all() -> tuple[str, int]:
    """One mypy run over the clean files and the mistakes: each file is checked on its own."""
    return _mypy("--warn-unused-ignores", *CLEAN, str(MISTAKES))


@functools.cache
def _pyright_all() -> tuple[dict[str, object], ...]:
    """One pyright run (a Node.js start) over the clean files and the mistakes."""
    return tuple(_pyright(*CLEAN, str(MISTAKES)))


def _in(path: str | Path, errors: tuple[dict[str, object], ...]) -> list[dict[str, object]]:
    return [d for d in errors if Path(str(d["file"])) == Path(path)]


def _pyright(*paths: str) -> list[dict[str, object]]:
    beside = Path(sys.executable).with_name("pyright")  # the venv's, active or not
    pyright = str(beside) if beside.exists() else shutil.which("pyright")
    if pyright is None:
        pytest.skip("pyright is not installed (pip install pyright)")
    command = [pyright, "--outputjson", "--pythonpath", sys.executable, *paths]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    try:
        diagnostics: list[dict[str, object]] = json.loads(done.stdout)["generalDiagnostics"]
    except (ValueError, KeyError):  # no Node.js, and no network to fetch one
        pytest.skip(f"pyright could not run here: {(done.stderr or done.stdout)[-300:]}")
    return [d for d in diagnostics if d["severity"] == "error"]


def _marked_lines() -> set[int]:
    lines = MISTAKES.read_text().splitlines()
    return {number for number, line in enumerate(lines, 1) if "# error:" in line}


def test_user_code_passes_mypy_strict() -> None:
    output, _ = _mypy_all()
    lines = output.splitlines()  # mypy names each file as given or relative to the cwd
    errors = [line for line in lines if Path(line.split(":", 1)[0]).resolve() != MISTAKES]
    assert errors == [], output


def test_user_code_passes_pyright_strict() -> None:
    errors = _pyright_all()
    assert [d for d in errors if d not in _in(MISTAKES, errors)] == []


def test_mypy_reports_every_mistake() -> None:
    output, status = _mypy_all()
    assert status == 1
    reported = {int(n) for n in re.findall(r"mistakes\.py:(\d+): error", output)}
    assert reported == _marked_lines(), output
    assert 'Unexpected keyword argument "temprature"' in output
    assert 'did you mean "temperature"?' in output


def test_pyright_reports_every_mistake() -> None:
    errors = _in(MISTAKES, _pyright_all())
    reported = {d["range"]["start"]["line"] + 1 for d in errors}  # type: ignore[index]
    assert reported == _marked_lines(), errors


def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    # The check can fail: asserting another type than the one asked for is an error.
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "from typing_extensions import assert_type\n"
        "from aiwrapper import Lang\n"
        "def f(lang: Lang) -> None:\n"
        "    assert_type(lang.ask_sync('x', output_type=int).output, str)\n"
    )
    output, status = _mypy(str(wrong))
    assert status == 1
    assert 'Expression is of type "int", not "str"' in output
