"""The notebook display renders the growing result as Markdown."""

from __future__ import annotations

from aiwrapper import FunctionCall, LangMessages, LangResult
from aiwrapper.notebook import render_markdown


def test_render_markdown_shows_calls_thinking_and_answer() -> None:
    result = LangResult(prompt="p", messages=LangMessages())
    result.function_calls.append(
        FunctionCall(id="c1", name="add", raw_arguments='{"a":1}', status="done")
    )
    result.function_calls.append(FunctionCall(id="c2", name="sub", status="running"))
    result.thinking = "line one\nline two"
    result.answer = "Done."
    assert render_markdown(result) == (
        '- ✓ `add({"a":1})`\n\n- ⏳ `sub({})`\n\n> line one\n> line two\n\nDone.'
    )
