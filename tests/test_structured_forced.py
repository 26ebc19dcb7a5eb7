"""The fallback's output tool is forced by name once no other tool remains to be called.

Anthropic's ``{"type": "any"}`` lets the model pick among the tools offered; with only the
invisible output tool left (no tools given, or ``max_tool_calls`` spent) the choice names it,
``{"type": "tool", "name": "final_result"}``, so the answer cannot come as plain text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, tool

pytestmark = pytest.mark.anyio

ANSWER = {"city": "Oslo", "temperature": 3.5}
OUTPUT_TOOL = {
    "name": "final_result",
    "description": "Give the final answer: call this once, with the answer as arguments.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temperature": {"type": "number"}},
        "required": ["city", "temperature"],
        "additionalProperties": False,
    },
}


@dataclass
class Weather:
    city: str
    temperature: float


@tool
def get_temperature(city: str) -> float:
    """Temperature in a city."""
    return 3.5


def answer(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [block],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


async def ask(*answers: dict[str, Any], **options: Any) -> tuple[Any, list[dict[str, Any]]]:
    """Ask for the weather over a mock Anthropic; the result and every request body."""
    bodies: list[dict[str, Any]] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=queue.pop(0))

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        # A model id aiwrapper cannot place: no native output assumed, the fallback is used.
        lang = Lang.anthropic("claude-custom-alias", api_key="k", http_client=client)
        result = await lang.ask("Weather?", output_type=Weather, stream=False, **options)
    return result, bodies


async def test_without_tools_the_output_tool_is_forced_by_name() -> None:
    # The whole body, so without the cache breakpoints the default cache="auto" adds.
    result, bodies = await ask(answer("final_result", ANSWER, "toolu_1"), cache=False)
    assert result.output == Weather("Oslo", 3.5)
    assert bodies == [
        {
            "model": "claude-custom-alias",
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}],
            "tools": [OUTPUT_TOOL],
            "tool_choice": {"type": "tool", "name": "final_result"},
        }
    ]


async def test_with_tools_any_tool_may_be_called_first() -> None:
    result, bodies = await ask(
        answer("get_temperature", {"city": "Oslo"}, "toolu_1"),
        answer("final_result", ANSWER, "toolu_2"),
        functions=[get_temperature],
    )
    assert result.output == Weather("Oslo", 3.5)
    assert [b["tool_choice"] for b in bodies] == [{"type": "any"}, {"type": "any"}]


async def test_once_max_tool_calls_is_spent_the_output_tool_is_forced_by_name() -> None:
    result, bodies = await ask(
        answer("get_temperature", {"city": "Oslo"}, "toolu_1"),
        answer("final_result", ANSWER, "toolu_2"),
        functions=[get_temperature],
        max_tool_calls=1,
    )
    assert result.output == Weather("Oslo", 3.5)
    assert [b["tool_choice"] for b in bodies] == [
        {"type": "any"},
        {"type": "tool", "name": "final_result"},
    ]
    assert [t["name"] for t in bodies[1]["tools"]] == ["get_temperature", "final_result"]


async def test_parallel_tool_calls_false_still_rides_on_the_named_choice() -> None:
    _, bodies = await ask(answer("final_result", ANSWER, "toolu_1"), parallel_tool_calls=False)
    assert bodies[0]["tool_choice"] == {
        "type": "tool",
        "name": "final_result",
        "disable_parallel_tool_use": True,
    }
