"""History replay: every request body is valid JSON on every wire. Arguments that are not a
valid JSON object (cut off, malformed, NaN) are replayed as ``{}`` with an error result that
quotes what the model sent; a tool's NaN or infinite result never reaches a body."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper import FunctionCall, tool

from . import wires
from .wires import Wire, strict_json

pytestmark = pytest.mark.anyio

ran: list[Any] = []


@tool
def get_weather(city: str = "Oslo", temp: float = 0.0) -> str:
    """Weather."""
    ran.append(city)
    return "sunny"


def replayed_arguments(name: str, body: dict[str, Any]) -> Any:
    """The arguments of the one call replayed in a second request."""
    if name == "openai":
        [call] = next(m for m in body["messages"] if m["role"] == "assistant")["tool_calls"]
        return json.loads(call["function"]["arguments"])
    if name == "anthropic":
        turn = next(m for m in body["messages"] if m["role"] == "assistant")
        return next(b for b in turn["content"] if b["type"] == "tool_use")["input"]
    if name == "openai-responses":
        call = next(i for i in body["input"] if i["type"] == "function_call")
        return json.loads(call["arguments"])
    if name == "gemini":
        turn = next(c for c in body["contents"] if c["role"] == "model")
        return next(p for p in turn["parts"] if "functionCall" in p)["functionCall"]["args"]
    turn = next(m for m in body["messages"] if m["role"] == "assistant")
    return turn["tool_calls"][0]["function"]["arguments"]


def call_with_raw_arguments(name: str, text: str) -> bytes:
    """A call whose arguments are exactly ``text`` on the wire (spliced for object wires)."""
    if name in ("openai", "anthropic", "openai-responses"):
        return wires.CALL[name]("call_1", "get_weather", text)
    placeholder = {"__raw__": 1}
    body = wires.CALL[name]("call_1", "get_weather", placeholder)
    return body.replace(json.dumps(placeholder).encode(), text.encode())


BAD_TEXT = ['{"city": "Os', '{"city": "Oslo",}', '["Oslo"]', "Oslo", '{"temp": NaN}']
BAD_OBJECTS = ['{"temp": NaN}', '{"temp": Infinity}', '{"temp": -Infinity, "city": "X"}']


@pytest.mark.parametrize("text", BAD_TEXT)
@pytest.mark.parametrize("name", ["openai", "anthropic", "openai-responses"])
async def test_arguments_that_are_not_a_json_object_are_replayed_as_an_empty_object(
    name: str, text: str
) -> None:
    await _replayed_as_empty(name, text)


@pytest.mark.parametrize("text", BAD_OBJECTS)
@pytest.mark.parametrize("name", wires.WIRES)
async def test_nan_and_infinity_in_arguments_never_reach_a_body(name: str, text: str) -> None:
    await _replayed_as_empty(name, text)


async def _replayed_as_empty(name: str, text: str) -> None:
    ran.clear()
    wire = Wire(name, [call_with_raw_arguments(name, text), wires.TEXT[name]("ok")])
    result = await wire.lang.ask("go", functions=[get_weather])
    assert result.answer == "ok"
    assert ran == []
    second = strict_json(wire.raw[1])
    assert replayed_arguments(name, second) == {}
    [call] = result.function_calls
    assert call.status == "error"
    shown = (call.error or "").replace(" ", "")
    assert text.replace(" ", "") in shown  # the model is shown what it sent


def test_a_calls_arguments_are_checked_once_however_often_they_are_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aiwrapper._conversation import _call

    checked: list[str] = []

    def counted(text: str) -> bool:
        checked.append(text)
        return is_json_object(text)

    is_json_object = _call.is_json_object
    monkeypatch.setattr(_call, "is_json_object", counted)
    call = FunctionCall("c", "f", {"a": 1}, raw_arguments='{"a":1}')
    assert [call.arguments_json() for _ in range(3)] == ['{"a":1}'] * 3
    call.raw_arguments = '{"a": 1'  # changed (cut off): checked again, and refused
    assert call.arguments_json() == '{"a":1}'  # the parsed arguments instead
    assert checked == ['{"a":1}', '{"a": 1']


def test_arguments_json_of_a_cut_off_call_is_an_empty_object() -> None:
    assert FunctionCall("c", "f", raw_arguments='{"a": 1').arguments_json() == "{}"
    assert FunctionCall("c", "f", raw_arguments='{"a": NaN}').arguments_json() == "{}"
    assert FunctionCall("c", "f", {"a": 1}, raw_arguments='{"a":1}').arguments_json() == '{"a":1}'


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("name", wires.WIRES)
async def test_a_tool_returning_nan_sends_valid_json(name: str, value: float) -> None:
    @tool
    def measure() -> dict[str, Any]:
        """Measures."""
        return {"reading": value, "items": [value, 1.5]}

    arguments: Any = {} if name in ("gemini", "ollama") else "{}"
    first = wires.CALL[name]("call_1", "measure", arguments)
    wire = Wire(name, [first, wires.TEXT[name]("ok")])
    result = await wire.lang.ask("go", functions=[measure])
    assert result.answer == "ok"
    strict_json(wire.raw[1])
    content = next(m for m in result.messages if m.role == "tool").content
    assert strict_json(content.encode())["reading"] in ("NaN", "Infinity", "-Infinity")


@pytest.mark.parametrize("name", ["gemini", "ollama", "anthropic"])
async def test_nan_in_a_block_replayed_verbatim_is_sent_as_null(name: str) -> None:
    # A part or field the SDK keeps whole and replays to the same provider, holding NaN.
    odd = {
        "gemini": wires.sse(
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [{"text": "hi"}, {"videoMetadata": {"fps": "__NAN__"}}],
                        },
                        "finishReason": "STOP",
                    }
                ]
            }
        ),
        "ollama": wires.ollama({"content": "hi", "images_meta": {"fps": "__NAN__"}}),
        "anthropic": wires.anthropic(
            [
                ({"type": "text", "text": "hi"}, []),
                (
                    {
                        "type": "server_tool_use",
                        "id": "srv_1",
                        "name": "web_search",
                        "input": {"fps": "__NAN__"},
                    },
                    [],
                ),
            ]
        ),
    }[name].replace(b'"__NAN__"', b"NaN")
    wire = Wire(name, [odd, wires.TEXT[name]("ok")])
    first = await wire.lang.ask("go")
    follow = Wire(name, [wires.TEXT[name]("ok")])
    await follow.lang.chat(first.messages.add_user("more"))
    body = strict_json(follow.raw[0])
    assert "NaN" not in json.dumps(body)
