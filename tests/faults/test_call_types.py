"""A call whose name is not a string, or whose arguments are of the wrong type (a fragment
that is not a string on the wires that stream arguments as text, arguments that are not an
object on the others), is a ``StreamError`` before any tool runs, on every wire, streamed and
not, even when a good call precedes it in the same turn."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from aiwrapper import StreamError

from . import wires
from .test_decoder_types import recording_tool
from .wires import Wire

pytestmark = pytest.mark.anyio

GOOD = ("call_0", "get_weather", {"city": "Rome"})
BAD_NAMES = [12345, {"x": 1}, ["get_weather"], 1.5, True]
# Arguments as the wire sends them: a text fragment on OpenAI and the Responses API (and in
# Anthropic's stream), an object on Gemini and Ollama (and in Anthropic's whole answers). An
# object where text belongs is read on OpenAI Chat Completions (some servers send one), and
# text where an object belongs on Ollama (left to validation): not wrong types there.
BAD_ARGUMENTS = [5, 0, ["x"], [], 1.5, True, False]
TEXT_WIRES = {"openai", "openai-responses"}


def _arguments(wire: str, stream: bool, value: dict[str, Any]) -> Any:
    as_text = wire in TEXT_WIRES or (wire == "anthropic" and stream)
    return json.dumps(value) if as_text else value


def _streamed(wire: str, calls: list[tuple[Any, Any, Any]]) -> bytes:
    if wire == "openai":
        # Each call starts, then its arguments come in a chunk of their own, the batched
        # decoder's fast path.
        chunks = [
            {"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": i, **head, "function": function}
            ]}}]}
            for i, (c, n, a) in enumerate(calls)
            for head, function in [
                ({"id": c, "type": "function"}, {"name": n, "arguments": ""}),
                ({}, {"arguments": a}),
            ]
        ]  # fmt: skip
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        return wires.sse(*chunks) + b"data: [DONE]\n\n"
    if wire == "anthropic":
        return wires.anthropic(
            [
                ({"type": "tool_use", "id": c, "name": n, "input": {}},
                 [{"type": "input_json_delta", "partial_json": a}])
                for c, n, a in calls
            ]
        )  # fmt: skip
    if wire == "gemini":
        return wires.gemini(
            [{"functionCall": {"id": c, "name": n, "args": a}} for c, n, a in calls]
        )
    if wire == "ollama":
        tool_calls = [{"id": c, "function": {"name": n, "arguments": a}} for c, n, a in calls]
        return wires.ollama({"content": "", "tool_calls": tool_calls})
    items = [
        ({"type": "function_call", "id": f"fc_{i}", "call_id": c, "name": n, "arguments": a},
         [{"delta": a}])
        for i, (c, n, a) in enumerate(calls)
    ]  # fmt: skip
    return wires.responses(items)


def _whole(wire: str, calls: list[tuple[Any, Any, Any]]) -> dict[str, Any]:
    if wire == "openai":
        tool_calls = [
            {"id": c, "type": "function", "function": {"name": n, "arguments": a}}
            for c, n, a in calls
        ]
        message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
        return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    if wire == "anthropic":
        blocks = [{"type": "tool_use", "id": c, "name": n, "input": a} for c, n, a in calls]
        usage = {"input_tokens": 3, "output_tokens": 2}
        return {"type": "message", "role": "assistant", "content": blocks,
                "stop_reason": "tool_use", "usage": usage}  # fmt: skip
    if wire == "gemini":
        parts = [{"functionCall": {"id": c, "name": n, "args": a}} for c, n, a in calls]
        return {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP"}]}  # fmt: skip
    if wire == "ollama":
        tool_calls = [{"id": c, "function": {"name": n, "arguments": a}} for c, n, a in calls]
        message = {"role": "assistant", "content": "", "tool_calls": tool_calls}
        return {"message": message, "done": True, "done_reason": "stop"}
    output = [
        {"type": "function_call", "id": f"fc_{i}", "call_id": c, "name": n, "arguments": a,
         "status": "completed"}
        for i, (c, n, a) in enumerate(calls)
    ]  # fmt: skip
    return {"id": "resp_1", "status": "completed", "model": "o3", "output": output,
            "usage": {"input_tokens": 3, "output_tokens": 2}}  # fmt: skip


def _whole_text(wire: str, text: str) -> httpx.Response:
    answers: dict[str, Any] = {
        "openai": {"choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text}}]},
        "anthropic": {"type": "message", "role": "assistant", "stop_reason": "end_turn",
                      "content": [{"type": "text", "text": text}],
                      "usage": {"input_tokens": 3, "output_tokens": 2}},
        "gemini": {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                   "finishReason": "STOP"}]},
        "ollama": {"message": {"role": "assistant", "content": text}, "done": True},
        "openai-responses": {"id": "resp_2", "status": "completed", "model": "o3", "output": [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]}]},
    }  # fmt: skip
    return httpx.Response(200, json=answers[wire])


def _body(wire: str, stream: bool, calls: list[tuple[Any, Any, Any]]) -> bytes | httpx.Response:
    if stream:
        return _streamed(wire, calls)
    return httpx.Response(200, json=_whole(wire, calls))


async def _assert_refused_before_any_tool(wire: str, stream: bool, bad: tuple[Any, ...]) -> None:
    good = (GOOD[0], GOOD[1], _arguments(wire, stream, GOOD[2]))
    get_weather, ran = recording_tool()
    lang = Wire(wire, [_body(wire, stream, [good, bad])]).lang
    with pytest.raises(StreamError) as raised:
        await lang.ask("go", functions=[get_weather], stream=stream)
    assert ran == []
    assert raised.value.result is not None


@pytest.mark.parametrize("bad", BAD_NAMES, ids=repr)
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("wire", wires.WIRES)
async def test_a_call_name_that_is_not_a_string(wire: str, stream: bool, bad: Any) -> None:
    arguments = _arguments(wire, stream, {"city": "Oslo"})
    await _assert_refused_before_any_tool(wire, stream, ("call_1", bad, arguments))


def _bad_arguments() -> list[tuple[str, bool, Any]]:
    cases = []
    for wire in wires.WIRES:
        for stream in (True, False):
            as_text = wire in TEXT_WIRES or (wire == "anthropic" and stream)
            extra = [] if wire in ("openai", "ollama") else [{"city": "Oslo"} if as_text else "c"]
            cases += [(wire, stream, bad) for bad in [*BAD_ARGUMENTS, *extra]]
    return cases


@pytest.mark.parametrize(("wire", "stream", "bad"), _bad_arguments(), ids=repr)
async def test_arguments_of_the_wrong_type(wire: str, stream: bool, bad: Any) -> None:
    await _assert_refused_before_any_tool(wire, stream, ("call_1", "get_weather", bad))


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("wire", wires.WIRES)
async def test_the_same_turn_with_good_values_runs_both_calls(wire: str, stream: bool) -> None:
    good = (GOOD[0], GOOD[1], _arguments(wire, stream, GOOD[2]))
    other = ("call_1", "get_weather", _arguments(wire, stream, {"city": "Oslo"}))
    text = wires.TEXT[wire]("ok") if stream else _whole_text(wire, "ok")
    get_weather, ran = recording_tool()
    lang = Wire(wire, [_body(wire, stream, [good, other]), text]).lang
    result = await lang.ask("go", functions=[get_weather], stream=stream)
    assert sorted(ran) == ["Oslo", "Rome"]
    assert result.answer == "ok"
