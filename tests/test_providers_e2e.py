"""Every provider end to end: ``Lang`` → HttpModel → wire fixture → loop → second request.

Each case replays a recorded first response holding calls and a second holding text, through
``httpx.MockTransport``, and checks what a user sees (answer, calls, results, usage) and that
the second request carried the results in that provider's shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, LangResult, tool

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent / "fixtures"


@tool
def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    """Weather in a city."""
    return {"city": city, "temp": len(city)}


@tool
def get_time(tz: str) -> str:
    """Time in a zone."""
    return f"12:00 {tz}"


@dataclass
class Case:
    make: Callable[[httpx.AsyncClient], Lang]
    first: str
    second: bytes
    content_type: str
    results_of: Callable[[dict[str, Any]], list[Any]]
    results: list[Any]


def sse(*events: dict[str, Any], done: bool = False) -> bytes:
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    return body + (b"data: [DONE]\n\n" if done else b"")


def openai_results(body: dict[str, Any]) -> list[Any]:
    return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]


def anthropic_results(body: dict[str, Any]) -> list[Any]:
    last = body["messages"][-1]
    return [(b["tool_use_id"], b["content"]) for b in last["content"]]


def gemini_results(body: dict[str, Any]) -> list[Any]:
    last = body["contents"][-1]
    return [
        (p["functionResponse"]["name"], p["functionResponse"]["response"]) for p in last["parts"]
    ]


def ollama_results(body: dict[str, Any]) -> list[Any]:
    return [(m["tool_name"], m["content"]) for m in body["messages"] if m["role"] == "tool"]


CASES = {
    "openai": Case(
        lambda c: Lang.openai(api_key="k", http_client=c),
        "openai/parallel_interleaved.sse",
        sse(
            {"choices": [{"index": 0, "delta": {"content": "Oslo is nice."}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}},
            done=True,
        ),
        "text/event-stream",
        openai_results,
        [("call_a1", '{"city":"Rome","temp":4}'), ("call_b2", "12:00 CET")],
    ),
    "anthropic": Case(
        lambda c: Lang.anthropic(api_key="k", http_client=c),
        "anthropic/parallel_tool_use.sse",
        b'event: message_start\ndata: {"type":"message_start","message":{"usage":'
        b'{"input_tokens":5,"output_tokens":1}}}\n\n'
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"text","text":""}}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"Oslo is nice."}}\n\n'
        b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
        b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":'
        b'"end_turn"},"usage":{"output_tokens":4}}\n\n'
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
        "text/event-stream",
        anthropic_results,
        [("toolu_01A", '{"city":"Oslo","temp":4}'), ("toolu_01B", '{"city":"Rome","temp":4}')],
    ),
    "gemini": Case(
        lambda c: Lang.gemini(api_key="k", http_client=c),
        "gemini/calls_no_ids.sse",
        sse(
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": "Oslo is nice."}]},
                        "finishReason": "STOP",
                    }
                ]
            }
        ),
        "text/event-stream",
        gemini_results,
        [
            ("get_weather", {"output": {"city": "Oslo", "temp": 4}}),
            ("get_weather", {"output": {"city": "Rome", "temp": 4}}),
        ],
    ),
    "ollama": Case(
        lambda c: Lang.ollama(http_client=c),
        "ollama/parallel_calls.ndjson",
        b'{"message":{"role":"assistant","content":"Oslo is nice."},"done":false}\n'
        b'{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",'
        b'"prompt_eval_count":3,"eval_count":4}\n',
        "application/x-ndjson",
        ollama_results,
        [
            ("get_weather", '{"city":"Tokyo","temp":5}'),
            ("get_weather", '{"city":"Paris","temp":5}'),
        ],
    ),
}


def recording_client(case: Case, sent: list[dict[str, Any]]) -> httpx.AsyncClient:
    answers = [(FIXTURES / case.first).read_bytes(), case.second]

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = answers[len(sent) - 1]
        return httpx.Response(200, content=body, headers={"content-type": case.content_type})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_two_round_tool_loop_on_every_provider(name: str) -> None:
    case = CASES[name]
    sent: list[dict[str, Any]] = []
    seen: list[str] = []

    def on_result(result: LangResult) -> None:
        seen.append(result.answer)

    async with recording_client(case, sent) as client:
        lang = case.make(client)
        result = await lang.ask("Weather?", functions=[get_weather, get_time], on_result=on_result)
    assert result.answer == "Oslo is nice."
    assert result.iterations == 2
    assert len(sent) == 2
    assert all(c.status == "done" for c in result.function_calls)
    assert case.results_of(sent[1]) == case.results
    assert result.usage.total_tokens > 0
    assert seen[-1] == "Oslo is nice."
    assert result.finish_reason == "stop"
