"""The notebook display renders the growing result as Markdown."""

from __future__ import annotations

import pytest

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


def _finished_result() -> LangResult:
    from aiwrapper import tool
    from aiwrapper.testing import call, scripted, turn

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    script = [turn(call("add", a=2, b=3), text="Adding. ", thinking="Use the tool."), "It is 5."]
    return scripted(script).ask_sync("2 + 3?", functions=[add])


def test_a_bare_result_shows_calls_thinking_answer_and_usage() -> None:
    result = _finished_result()
    result.thinking = "Easy."
    text = result._repr_markdown_()
    assert text.startswith('- ✓ `add({"a": 2, "b": 3})` → 5\n\n')
    assert "<details><summary>Thinking</summary>\n\nEasy.\n\n</details>" in text
    assert "\n\nIt is 5.\n\n" in text
    assert text.endswith("output tokens, 2 requests, 1 tool calls*")


def test_a_bare_call_shows_its_status_arguments_and_outcome() -> None:
    done = FunctionCall(id="c1", name="add", arguments={"a": 1}, status="done", result=[1])
    denied = FunctionCall(id="c2", name="rm", status="denied", error="not allowed")
    assert done._repr_markdown_() == "✓ `add({'a': 1})` → [1]"
    assert denied._repr_markdown_() == "⊘ `rm({})` → not allowed"


def test_notebook_is_reachable_from_a_bare_import_and_loaded_lazily() -> None:
    import subprocess
    import sys

    code = (
        "import sys, aiwrapper\n"
        "assert 'aiwrapper.notebook' not in sys.modules\n"
        "print(aiwrapper.notebook.live.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "live\n"


def test_live_outside_a_notebook_prints_the_answer_as_it_grows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from aiwrapper import tool
    from aiwrapper.notebook import live
    from aiwrapper.testing import call, scripted, turn

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    lang = scripted([turn(call("add", a=2, b=3), text="Adding. "), "It is 5."])
    lang.ask_sync("2 + 3?", functions=[add], on_result=live())
    assert capsys.readouterr().out == 'Adding. \n✓ `add({"a": 2, "b": 3})` → 5\nIt is 5.\n'


def test_live_in_a_kernel_updates_one_display_with_a_plain_text_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys
    import types

    from aiwrapper.notebook import live
    from aiwrapper.testing import scripted

    shown: list[dict[str, str]] = []
    handle = types.SimpleNamespace(update=lambda data, raw: shown.append(data))
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: types.SimpleNamespace(kernel=object())  # type: ignore[attr-defined]
    display = types.ModuleType("IPython.display")
    display.display = lambda data, raw, display_id: handle  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    scripted(["Hello there."]).ask_sync("hi", on_result=live())
    assert shown[-1] == {"text/markdown": "Hello there.", "text/plain": "Hello there."}
    assert len(shown) > 1  # redrawn as the answer streamed


def test_with_user_leaves_the_conversation_and_chat_leaves_its_input_alone() -> None:
    from aiwrapper.testing import scripted

    lang = scripted(["Oslo: 2 °C.", "Paris: 11 °C.", "Paris: 11 °C.", "Hello."])
    first = lang.ask_sync("Weather in Oslo?")
    before = first.messages.to_dicts()
    for _ in range(2):  # a notebook cell run twice asks the same question once each time
        again = lang.chat_sync(first.messages.with_user("And Paris?"))
        assert [m.content for m in again.messages][-2:] == ["And Paris?", "Paris: 11 °C."]
    assert first.messages.to_dicts() == before
    dicts = [{"role": "user", "content": "hi"}]
    lang.chat_sync(dicts)
    assert dicts == [{"role": "user", "content": "hi"}]
    assert [m.content for m in lang.requests[2].messages] == [
        "Weather in Oslo?",
        "Oslo: 2 °C.",
        "And Paris?",
    ]
