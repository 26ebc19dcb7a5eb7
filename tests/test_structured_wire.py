"""Structured output on each provider's wire, through ``httpx.MockTransport``.

The request must carry each provider's own structured-output field, exactly; the Anthropic
fallback's forced tool must stay invisible (no call in ``function_calls``, none in the
``messages`` a user passes back); repair rounds and ``OutputValidationError`` work on the wire.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Annotated, Any

import httpx
import pytest

from aiwrapper import (
    CapabilityWarning,
    Lang,
    OutputValidationError,
    Param,
    Tool,
    tool,
)
from aiwrapper._run import _capabilities as capabilities
from aiwrapper._tools.sources import ToolSource

pytestmark = pytest.mark.anyio


@dataclass
class Weather:
    city: str
    temperature: float


WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temperature": {"type": "number"}},
    "required": ["city", "temperature"],
    "additionalProperties": False,
}
ANSWER = {"city": "Oslo", "temperature": 3.5}


@dataclass
class Code:
    code: Annotated[str, Param(max_length=3)]


@tool
def get_temperature(city: str) -> float:
    """Temperature in a city."""
    return 3.5


@pytest.fixture(autouse=True)
def fresh_warnings() -> Iterator[None]:
    capabilities._WARNED.seen.clear()
    yield
    capabilities._WARNED.seen.clear()


class Server:
    """Answers each request with the next canned body and records the request bodies."""

    def __init__(self, *answers: bytes | dict[str, Any]) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        answer = self.answers.pop(0)
        if isinstance(answer, bytes):
            return httpx.Response(
                200, content=answer, headers={"content-type": "text/event-stream"}
            )
        return httpx.Response(200, json=answer)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))


def openai_text(text: str) -> bytes:
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text[:10]}}]},
        {"choices": [{"index": 0, "delta": {"content": text[10:]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + (
        b"data: [DONE]\n\n"
    )


# -- OpenAI ----------------------------------------------------------------------------------


async def test_openai_sends_a_strict_json_schema_and_streams_the_answer() -> None:
    server = Server(openai_text(json.dumps(ANSWER)))
    async with server.client() as client:
        lang = Lang.openai("gpt-4o-mini", api_key="k", http_client=client)
        result = await lang.ask("Weather in Oslo?", output_type=Weather)
    assert result.output == Weather("Oslo", 3.5)
    assert server.bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Weather", "schema": WEATHER_SCHEMA, "strict": True},
    }


async def test_openai_sends_no_strict_when_it_would_lose_a_rule() -> None:
    server = Server(openai_text('{"code": "abc"}'))
    async with server.client() as client:
        lang = Lang.openai("gpt-4o-mini", api_key="k", http_client=client)
        result = await lang.ask("A code?", output_type=Code)
    assert result.output == Code("abc")
    assert server.bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "Code",
            "schema": {
                "type": "object",
                "properties": {"code": {"type": "string", "maxLength": 3}},
                "required": ["code"],
                "additionalProperties": False,
            },
        },
    }


async def test_openai_repair_round_sends_the_errors_then_raises_with_the_result() -> None:
    server = Server(openai_text('{"city": "Oslo"}'), openai_text('{"city": 7, "temperature": 1}'))
    async with server.client() as client:
        lang = Lang.openai("gpt-4o-mini", api_key="k", http_client=client)
        with pytest.raises(OutputValidationError) as caught:
            await lang.ask("Weather in Oslo?", output_type=Weather)
    assert server.bodies[1]["messages"][-2:] == [
        {"role": "assistant", "content": '{"city": "Oslo"}'},
        {
            "role": "user",
            "content": "Your answer does not match the required output schema:\n"
            "- /temperature: missing required field (expected a number)\n"
            "Answer again with only the corrected JSON.",
        },
    ]
    assert str(caught.value) == (
        "the answer does not fit output_type: /city: expected a string, got number 7"
    )
    assert caught.value.result.iterations == 2
    assert caught.value.result.messages[-1].content == '{"city": 7, "temperature": 1}'


# -- Gemini ----------------------------------------------------------------------------------


def gemini_answer(*parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}]
    }


async def test_gemini_sends_response_mime_type_and_json_schema() -> None:
    server = Server(gemini_answer({"text": json.dumps(ANSWER)}))
    async with server.client() as client:
        lang = Lang.gemini("gemini-3-flash-preview", api_key="k", http_client=client)
        result = await lang.ask("Weather in Oslo?", output_type=Weather, stream=False)
    assert result.output == Weather("Oslo", 3.5)
    assert server.bodies[0]["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseJsonSchema": WEATHER_SCHEMA,
    }


async def test_gemini_2_with_tools_answers_through_the_final_tool() -> None:
    server = Server(
        gemini_answer({"functionCall": {"name": "get_temperature", "args": {"city": "Oslo"}}}),
        gemini_answer({"functionCall": {"name": "final_result", "args": ANSWER}}),
    )
    async with server.client() as client:
        lang = Lang.gemini("gemini-2.5-flash", api_key="k", http_client=client)
        result = await lang.ask(
            "Weather?", functions=[get_temperature], output_type=Weather, stream=False
        )
    first = server.bodies[0]
    assert "generationConfig" not in first
    declared = first["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declared] == ["get_temperature", "final_result"]
    assert first["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert result.output == Weather("Oslo", 3.5)
    assert [c.name for c in result.function_calls] == ["get_temperature"]
    assert result.messages[-1].tool_calls == []
    assert json.loads(result.messages[-1].content) == ANSWER


# -- Ollama ----------------------------------------------------------------------------------


async def test_ollama_sends_the_schema_as_format() -> None:
    answer = {
        "message": {"role": "assistant", "content": '{"value": [2, 3, 5]}'},
        "done": True,
        "done_reason": "stop",
    }
    server = Server(answer)
    async with server.client() as client:
        lang = Lang.ollama("qwen3", http_client=client)
        result = await lang.ask("Primes below 6?", output_type=list[int], stream=False)
    assert result.output == [2, 3, 5]
    assert server.bodies[0]["format"] == {
        "type": "object",
        "properties": {"value": {"type": "array", "items": {"type": "integer"}}},
        "required": ["value"],
        "additionalProperties": False,
    }


# -- Anthropic -------------------------------------------------------------------------------


def anthropic_answer(*content: dict[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": list(content),
        "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


async def test_anthropic_native_structured_output_where_the_model_has_it() -> None:
    server = Server(anthropic_answer({"type": "text", "text": json.dumps(ANSWER)}))
    async with server.client() as client:
        lang = Lang.anthropic("claude-opus-4-6", api_key="k", http_client=client)
        result = await lang.ask("Weather?", output_type=Weather, thinking="high", stream=False)
    assert result.output == Weather("Oslo", 3.5)
    body = server.bodies[0]
    assert body["output_config"] == {
        "effort": "high",
        "format": {"type": "json_schema", "schema": WEATHER_SCHEMA},
    }
    assert "tools" not in body


async def test_anthropic_fallback_tool_is_invisible_to_the_user() -> None:
    server = Server(
        anthropic_answer(
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_temperature",
                "input": {"city": "Oslo"},
            },
            stop="tool_use",
        ),
        anthropic_answer(
            {"type": "tool_use", "id": "toolu_2", "name": "final_result", "input": ANSWER},
            stop="tool_use",
        ),
        anthropic_answer({"type": "text", "text": "Cold."}),
    )
    async with server.client() as client:
        # An id aiwrapper cannot place: native output is not assumed, the fallback is used.
        lang = Lang.anthropic("claude-custom-alias", api_key="k", http_client=client)
        result = await lang.ask(
            "Weather?", functions=[get_temperature], output_type=Weather, stream=False
        )
        more = await lang.chat(result.messages.add_user("Is that cold?"), stream=False)
    first = server.bodies[0]
    assert "output_config" not in first
    assert [t["name"] for t in first["tools"]] == ["get_temperature", "final_result"]
    assert first["tools"][1]["input_schema"] == WEATHER_SCHEMA
    assert first["tool_choice"] == {"type": "any"}
    assert result.output == Weather("Oslo", 3.5)
    assert result.finish_reason == "stop"
    assert [c.name for c in result.function_calls] == ["get_temperature"]
    assert json.loads(result.answer) == ANSWER
    assert all(c.name != "final_result" for m in result.messages for c in m.tool_calls)
    # Passed back, the conversation holds the answer as text, never the forced tool.
    replayed = server.bodies[2]
    assert "tools" not in replayed
    assert replayed["messages"][-2] == {
        "role": "assistant",
        "content": [{"type": "text", "text": json.dumps(ANSWER, separators=(",", ":"))}],
    }
    assert "final_result" not in json.dumps(replayed)
    assert more.output == "Cold."


async def test_anthropic_fallback_for_a_schema_outside_the_native_subset() -> None:
    server = Server(
        anthropic_answer(
            {"type": "tool_use", "id": "toolu_1", "name": "final_result", "input": {"code": "ab"}},
            stop="tool_use",
        )
    )
    async with server.client() as client:
        lang = Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=client)
        result = await lang.ask("A code?", output_type=Code, stream=False)
    assert result.output == Code("ab")
    assert server.bodies[0]["tool_choice"] == {"type": "tool", "name": "final_result"}
    assert "output_config" not in server.bodies[0]


async def test_anthropic_model_known_without_native_output_warns_once() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "final_result", "input": ANSWER}
    server = Server(
        anthropic_answer(call, stop="tool_use"), anthropic_answer(call, stop="tool_use")
    )
    async with server.client() as client:
        lang = Lang.anthropic("claude-3-5-haiku-latest", api_key="k", http_client=client)
        with pytest.warns(CapabilityWarning, match="has no native structured output"):
            result = await lang.ask("Weather?", output_type=Weather, stream=False)
        again = await lang.ask("Weather?", output_type=Weather, stream=False)  # no warning
    assert result.output == again.output == Weather("Oslo", 3.5)


async def test_anthropic_fallback_repair_round_asks_for_the_tool_again() -> None:
    server = Server(
        anthropic_answer({"type": "text", "text": "It is cold in Oslo."}),
        anthropic_answer(
            {"type": "tool_use", "id": "toolu_1", "name": "final_result", "input": ANSWER},
            stop="tool_use",
        ),
    )
    async with server.client() as client:
        lang = Lang.anthropic("claude-custom-alias", api_key="k", http_client=client)
        result = await lang.ask("Weather?", output_type=Weather, thinking=2048, stream=False)
    # Thinking forbids a forced tool choice: the tool is offered, not required.
    assert "tool_choice" not in server.bodies[0]
    repair = server.bodies[1]["messages"][-1]["content"][0]["text"]
    assert repair.endswith("Call final_result again with corrected arguments.")
    assert "the answer is not valid JSON" in repair
    assert result.output == Weather("Oslo", 3.5)


def anthropic_sse(*blocks: dict[str, Any], stop: str) -> bytes:
    """A streamed message: each block started, its content in two deltas, stopped."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start, half = {"type": "text", "text": ""}, len(block["text"]) // 2
            deltas = [
                {"type": "text_delta", "text": t}
                for t in (block["text"][:half], block["text"][half:])
            ]
        else:
            start = {**block, "input": {}}
            raw = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in (raw[:9], raw[9:])]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}}
    )
    events.append({"type": "message_stop"})
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


async def test_streamed_fallback_answer_sends_no_call_events() -> None:
    from aiwrapper import CallArgumentsDelta, CallReady, CallStarted, RunFinished

    server = Server(
        anthropic_sse(
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_temperature",
                "input": {"city": "Oslo"},
            },
            stop="tool_use",
        ),
        anthropic_sse(
            {"type": "tool_use", "id": "toolu_2", "name": "final_result", "input": ANSWER},
            stop="tool_use",
        ),
    )
    async with server.client() as client:
        lang = Lang.anthropic("claude-custom-alias", api_key="k", http_client=client)
        async with lang.stream("Weather?", functions=[get_temperature], output_type=Weather) as run:
            seen = [event async for event in run]
    call_events = [e for e in seen if isinstance(e, (CallStarted, CallArgumentsDelta, CallReady))]
    assert {e.call.name for e in call_events} == {"get_temperature"}
    assert [type(e).__name__ for e in call_events] == [
        "CallStarted",
        "CallArgumentsDelta",
        "CallArgumentsDelta",
        "CallReady",
    ]
    assert isinstance(seen[-1], RunFinished)
    assert run.result.output == Weather("Oslo", 3.5)
    assert [c.name for c in run.result.function_calls] == ["get_temperature"]


class OneToolSource(ToolSource):
    """A tool server stand-in: its tools are known only once the run opens it."""

    async def open_for_run(self, stack: AsyncExitStack) -> Callable[[], Awaitable[list[Tool]]]:
        tools = [get_temperature]

        async def feed() -> list[Tool]:
            return tools

        return feed


async def test_tools_of_a_server_count_as_tools_for_the_gemini_2_fallback() -> None:
    server = Server(gemini_answer({"functionCall": {"name": "final_result", "args": ANSWER}}))
    async with server.client() as client:
        lang = Lang.gemini("gemini-2.5-flash", api_key="k", http_client=client)
        result = await lang.ask(
            "Weather?", functions=[OneToolSource()], output_type=Weather, stream=False
        )
    declared = server.bodies[0]["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declared] == ["get_temperature", "final_result"]
    assert "generationConfig" not in server.bodies[0]
    assert result.output == Weather("Oslo", 3.5)
