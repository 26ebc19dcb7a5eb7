"""The streams' exact shapes, read as raw SSE (in process, through ``httpx.ASGITransport``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

pytestmark = pytest.mark.anyio

TURN = {
    "thinking": "Hmm.",
    "text": "Let me look that up.",
    "function_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_1"}],
}
TOOL = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}
ASK = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": True}


async def _events(path: str, body: dict[str, Any]) -> list[tuple[str | None, str]]:
    """``(event name, data)`` of each SSE event of the response."""
    gateway = Gateway({"m": Lang.scripted([TURN])})
    transport = httpx.ASGITransport(app=gateway)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        reply = await client.post(path, json=body)
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = []
    for block in reply.text.split("\n\n")[:-1]:
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((fields.get("event"), fields["data"]))
    assert reply.text.endswith("\n\n")
    return events


async def test_openai_chunks_follow_the_official_shape() -> None:
    body = {**ASK, "tools": [{"type": "function", "function": TOOL}]}
    body["stream_options"] = {"include_usage": True}
    events = await _events("/v1/chat/completions", body)
    assert events[-1] == (None, "[DONE]")
    chunks = [json.loads(data) for _, data in events[:-1]]
    assert {c["id"] for c in chunks} == {chunks[0]["id"]}
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert deltas[0] == {"role": "assistant", "content": ""}
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "Hmm."
    assert "".join(d.get("content") or "" for d in deltas) == "Let me look that up."
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0] == {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    assert all(c.keys() == {"index", "function"} for c in calls[1:])
    assert "".join(c["function"]["arguments"] for c in calls) == '{"city": "Oslo"}'
    finish = chunks[-2]["choices"][0]
    assert (finish["delta"], finish["finish_reason"]) == ({}, "tool_calls")
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-2])
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["total_tokens"] == chunks[-1]["usage"]["completion_tokens"]
    assert all(c["usage"] is None for c in chunks[:-1])


async def test_anthropic_events_follow_the_official_sequence() -> None:
    tool = {"name": TOOL["name"], "input_schema": TOOL["parameters"]}
    events = await _events("/v1/messages", {**ASK, "max_tokens": 100, "tools": [tool]})
    payloads = [json.loads(data) for _, data in events]
    assert [name for name, _ in events] == [p["type"] for p in payloads]
    outline = [
        (p["type"], p.get("index"), (p.get("content_block") or p.get("delta") or {}).get("type"))
        for p in payloads
    ]
    thinking = ("content_block_delta", 0, "thinking_delta")
    text = ("content_block_delta", 1, "text_delta")
    arguments = ("content_block_delta", 2, "input_json_delta")
    assert _squeezed(outline) == [
        ("message_start", None, None),
        ("content_block_start", 0, "thinking"),
        thinking,
        ("content_block_stop", 0, None),
        ("content_block_start", 1, "text"),
        text,
        ("content_block_stop", 1, None),
        ("content_block_start", 2, "tool_use"),
        arguments,
        ("content_block_stop", 2, None),
        ("message_delta", None, None),
        ("message_stop", None, None),
    ]
    assert payloads[0]["message"]["content"] == []
    starts = [p["content_block"] for p in payloads if p["type"] == "content_block_start"]
    assert starts[2] == {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}
    assert payloads[-2]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}


def _squeezed(outline: list[Any]) -> list[Any]:
    """The outline with runs of the same delta kept once."""
    return [item for i, item in enumerate(outline) if i == 0 or item != outline[i - 1]]
