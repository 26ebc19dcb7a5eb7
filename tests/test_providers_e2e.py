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

from aiwrapper import (
    CallArgumentsDelta,
    CallFinished,
    CallReady,
    Lang,
    LangResult,
    RunEvent,
    RunFinished,
    TextDelta,
    TurnFinished,
    TurnStarted,
    tool,
)

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


def phase(event: RunEvent) -> tuple[Any, ...] | None:
    """An event as a step of the run's skeleton, with call statuses as they were then."""
    if isinstance(event, (TurnStarted, RunFinished)):
        return (type(event).__name__, getattr(event, "iteration", None))
    if isinstance(event, TurnFinished):
        return ("TurnFinished", event.iteration, event.finish_reason)
    if isinstance(event, (CallReady, CallFinished)):
        return (type(event).__name__, event.call.id, event.call.status)
    return None  # deltas, checked apart


@pytest.mark.parametrize("name", sorted(CASES))
async def test_the_events_of_a_two_round_run_with_parallel_calls_on_every_provider(
    name: str,
) -> None:
    case = CASES[name]
    sent: list[dict[str, Any]] = []
    async with recording_client(case, sent) as client:
        lang = case.make(client)
        skeleton: list[tuple[Any, ...] | None] = []

        def heard(event: RunEvent) -> None:  # on_event: call statuses as they are right then
            skeleton.append(phase(event))

        async with lang.stream(
            "Weather?", functions=[get_weather, get_time], on_event=heard
        ) as run:
            events = [event async for event in run]
    result = run.result
    first, second = result.function_calls  # two calls made in parallel in the first turn
    ids = [first.id, second.id]
    skeleton = [step for step in skeleton if step is not None]
    finished = sorted(skeleton[4:6])
    assert skeleton[:4] + finished + skeleton[6:] == [
        ("TurnStarted", 1),
        ("CallReady", ids[0], "pending"),
        ("CallReady", ids[1], "pending"),
        ("TurnFinished", 1, "tool_calls"),
        *sorted([("CallFinished", ids[0], "done"), ("CallFinished", ids[1], "done")]),
        ("TurnStarted", 2),
        ("TurnFinished", 2, "stop"),
        ("RunFinished", None),
    ]
    for call in (first, second):
        mine = [e for e in events if getattr(e, "call", None) is call]
        kinds = [type(e).__name__ for e in mine]
        assert kinds[0] == "CallStarted"
        assert kinds[-2:] == ["CallReady", "CallFinished"]
        assert set(kinds[1:-2]) <= {"CallArgumentsDelta"}
        fragments = "".join(e.fragment for e in mine if isinstance(e, CallArgumentsDelta))
        assert json.loads(fragments or call.raw_arguments) == call.arguments
        assert events.index(mine[0]) > 0  # after TurnStarted
    turn_two = events.index(
        next(e for e in events if isinstance(e, TurnStarted) and e.iteration == 2)
    )
    assert "".join(e.text for e in events[turn_two:] if isinstance(e, TextDelta)) == "Oslo is nice."
    assert all(event.result is result for event in events)
    assert case.results_of(sent[1]) == case.results
