"""Known fields of the wrong type (a call id that is an object, a name that is a number, text
that is a list, a token count that is a string) are a ``StreamError`` on every wire, raised
before any tool runs, never a bare ``TypeError`` after a tool already had its side effect."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper import StreamError, tool

from . import wires
from .wires import Wire

pytestmark = pytest.mark.anyio

BAD_VALUES = [{"x": 1}, ["x"], 7, 1.5, True]


def recording_tool() -> tuple[Any, list[str]]:
    ran: list[str] = []

    @tool
    def get_weather(city: str = "Oslo") -> str:
        """Weather."""
        ran.append(city)
        return "sunny"

    return get_weather, ran


async def assert_stream_error_and_nothing_ran(wire: Wire) -> None:
    get_weather, ran = recording_tool()
    with pytest.raises(StreamError) as info:
        await wire.lang.ask("go", functions=[get_weather])
    assert ran == []
    assert info.value.result is not None
    assert len(wire.sent) == 1


@pytest.mark.parametrize("name", wires.WIRES)
@pytest.mark.parametrize("bad", BAD_VALUES)
async def test_a_call_id_of_the_wrong_type(name: str, bad: Any) -> None:
    arguments: Any = {"city": "Oslo"} if name in ("gemini", "ollama") else '{"city":"Oslo"}'
    body = wires.CALL[name](bad, "get_weather", arguments)
    await assert_stream_error_and_nothing_ran(Wire(name, [body]))


@pytest.mark.parametrize("name", ["openai", "anthropic"])
@pytest.mark.parametrize("bad", BAD_VALUES)
async def test_a_call_name_of_the_wrong_type(name: str, bad: Any) -> None:
    body = wires.CALL[name]("call_1", bad, '{"city":"Oslo"}')
    await assert_stream_error_and_nothing_ran(Wire(name, [body]))


@pytest.mark.parametrize("bad", BAD_VALUES)
async def test_anthropic_partial_json_of_the_wrong_type(bad: Any) -> None:
    body = wires.anthropic_call("toolu_1", "get_weather", bad)
    await assert_stream_error_and_nothing_ran(Wire("anthropic", [body]))


@pytest.mark.parametrize("field", ["text", "thinking"])
@pytest.mark.parametrize("bad", BAD_VALUES)
async def test_anthropic_text_and_thinking_of_the_wrong_type(field: str, bad: Any) -> None:
    kind = "text" if field == "text" else "thinking"
    delta = {"type": f"{kind}_delta", field: bad}
    body = wires.anthropic([({"type": kind, kind: ""}, [delta])])
    with pytest.raises(StreamError):
        await Wire("anthropic", [body]).lang.ask("go")
    start = {"type": kind, kind: bad}
    with pytest.raises(StreamError):
        await Wire("anthropic", [wires.anthropic([(start, [])])]).lang.ask("go")


@pytest.mark.parametrize("bad", ["12", 1.5, True, [1], {"n": 1}])
@pytest.mark.parametrize(
    ("name", "usage"),
    [
        ("openai", lambda bad: wires.openai_text("hi", {"prompt_tokens": bad})),
        ("openai", lambda bad: wires.openai_text("hi", {"completion_tokens": bad})),
        ("ollama", lambda bad: wires.ollama({"content": "hi"}, {"eval_count": bad})),
        ("ollama", lambda bad: wires.ollama({"content": "hi"}, {"prompt_eval_count": bad})),
        (
            "anthropic",
            lambda bad: wires.anthropic(
                [({"type": "text", "text": "hi"}, [])], {"input_tokens": 1, "output_tokens": bad}
            ),
        ),
        ("gemini", lambda bad: wires.gemini([{"text": "hi"}], {"candidatesTokenCount": bad})),
    ],
)
async def test_a_token_count_that_is_not_an_integer(name: str, usage: Any, bad: Any) -> None:
    wire = Wire(name, [usage(bad)])
    try:
        result = await wire.lang.ask("go")
    except StreamError:
        return
    # A decoder may also ignore a count it cannot read; totals must still add up.
    assert isinstance(result.usage.total_tokens, int)
    assert all(type(r.output_tokens) is int for r in result.usage.requests)


@pytest.mark.parametrize("name", wires.WIRES)
async def test_the_same_bodies_with_good_values_run_the_tool(name: str) -> None:
    arguments: Any = {"city": "Rome"} if name in ("gemini", "ollama") else '{"city":"Rome"}'
    wire = Wire(
        name, [wires.CALL[name]("call_1", "get_weather", arguments), wires.TEXT[name]("ok")]
    )
    get_weather, ran = recording_tool()
    result = await wire.lang.ask("go", functions=[get_weather])
    assert (ran, result.answer) == (["Rome"], "ok")
    assert result.usage.total_tokens > 0


@pytest.mark.parametrize("bad", ["", *BAD_VALUES])
async def test_a_gemini_call_without_a_usable_name(bad: Any) -> None:
    # Its result must name the function back: without a name the conversation is dead.
    body = wires.gemini_call(None, bad, {"city": "Oslo"})
    await assert_stream_error_and_nothing_ran(Wire("gemini", [body]))
