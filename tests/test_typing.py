"""Typing as users see it: mypy checks tests/typing/*.py, which assert the types of results."""

from __future__ import annotations

from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")
TYPING = Path(__file__).resolve().parent / "typing"


def test_output_type_types_result_output_for_mypy() -> None:
    # --warn-unused-ignores makes the file's one "type: ignore" a check too: mypy must know
    # that result.output is a Weather (which has no humidity), not Any.
    stdout, stderr, status = api.run(
        ["--strict", "--warn-unused-ignores", "--no-error-summary", str(TYPING / "output_types.py")]
    )
    assert status == 0, stdout + stderr


def test_a_wrong_expectation_fails(tmp_path: Path) -> None:
    # The check can fail: asserting another type than the one asked for is an error.
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "from typing_extensions import assert_type\n"
        "from aiwrapper import Lang\n"
        "def f(lang: Lang) -> None:\n"
        "    assert_type(lang.ask_sync('x', output_type=int).output, str)\n"
    )
    stdout, _, status = api.run(["--strict", "--no-error-summary", str(wrong)])
    assert status == 1
    assert 'Expression is of type "int", not "str"' in stdout
