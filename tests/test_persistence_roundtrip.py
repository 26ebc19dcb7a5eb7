"""A conversation written to JSON and read back sends the very request bytes the original does.

For each wire, a tool loop is run for real: recorded responses (``tests/fixtures/<wire>/``:
thinking with signatures, encrypted reasoning, thought signatures, redacted thinking, parallel
calls, calls without ids) are decoded by the wire's own decoder behind ``httpx.MockTransport``,
and the calls end as hypothesis draws them: answered, failed, denied, answered with an image,
or deferred. The conversation then goes through JSON text (``json.dumps``/``loads`` too) and
back, and every request that follows (resuming deferred calls, then a new question) is
compared byte for byte between the original conversation and the one read back.
"""

from __future__ import annotations

import base64
import datetime
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiwrapper import DEFER, FunctionCall, Image, Lang, LangMessage, LangMessages, LangResult
from aiwrapper._conversation._parts import MediaPart, TextPart
from aiwrapper._run._decisions import pending_calls
from aiwrapper.providers._vertex import VertexConfig

FIXTURES = Path(__file__).parent / "fixtures"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
SSE, NDJSON, EVENTS = (
    "text/event-stream",
    "application/x-ndjson",
    "application/vnd.amazon.eventstream",
)
VERTEX = VertexConfig(project="my-proj", location="us-east5", access_token="ya29.tok")

FUNCTIONS = [
    {
        "name": name,
        "description": f"{name} of a place.",
        "parameters": {
            "type": "object",
            "properties": {key: {"type": "string"} for key in ("city", "unit", "tz", "zone")},
        },
    }
    for name in ("get_weather", "get_time")
]


@dataclass(frozen=True)
class Wire:
    """A provider as a test drives it: its ``Lang`` on a client, and recorded answers."""

    name: str
    lang: Callable[[httpx.AsyncClient], Lang]
    rounds: tuple[str, ...]  # answers that make calls
    final: str  # an answer in text
    content_type: str
    options: dict[str, Any] = field(default_factory=dict)
    media: bool = True  # the model takes images: tools may return one, a prompt may hold one


WIRES = [
    Wire(
        "openai",
        lambda c: Lang.openai("gpt-4o-mini", api_key="sk-test", http_client=c, max_retries=0),
        (
            "openai/parallel_interleaved.sse",
            "openai/openrouter_reasoning_details.sse",
            "openai/gemini_extra_content.sse",
            "openai/tool_call_fragments.sse",
        ),
        "openai/text.sse",
        SSE,
    ),
    Wire(
        "deepseek",
        lambda c: Lang.openai_compatible(
            preset="deepseek", model="deepseek-reasoner", api_key="k", http_client=c, max_retries=0
        ),
        ("openai/deepseek_reasoning.sse", "openai/parallel_interleaved.sse"),
        "openai/text.sse",
        SSE,
        media=False,
    ),
    Wire(
        "responses",
        lambda c: Lang.openai("o3", api="responses", api_key="k", http_client=c, max_retries=0),
        ("openai_responses/reasoning_calls.sse",),
        "openai_responses/text.sse",
        SSE,
        {"thinking": "high"},
    ),
    Wire(
        "anthropic",
        lambda c: Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=c, max_retries=0),
        (
            "anthropic/thinking_tool_use.sse",
            "anthropic/parallel_tool_use.sse",
            "anthropic/interleaved_tool_use.sse",
        ),
        "anthropic/redacted_thinking.sse",
        SSE,
        {"thinking": 2048},
    ),
    Wire(
        "vertex",
        lambda c: Lang.anthropic(
            "claude-sonnet-4-5@20250929", vertex=VERTEX, http_client=c, max_retries=0
        ),
        ("anthropic/thinking_tool_use.sse", "anthropic/parallel_tool_use.sse"),
        "anthropic/server_tool.sse",
        SSE,
        {"thinking": 2048},
    ),
    Wire(
        "bedrock",
        lambda c: Lang.bedrock(
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            region="us-west-2",
            api_key="bedrock-key",
            http_client=c,
            max_retries=0,
        ),
        ("bedrock/thinking_tool_use.bin",),
        "bedrock/text.bin",
        EVENTS,
        {"thinking": 2048},
    ),
    Wire(
        "gemini",
        lambda c: Lang.gemini("gemini-3-pro-preview", api_key="k", http_client=c, max_retries=0),
        ("gemini/calls_ids_split.sse", "gemini/calls_no_ids.sse"),
        "gemini/text_signature_final.sse",
        SSE,
    ),
    Wire(
        "ollama",
        lambda c: Lang.ollama("qwen3", http_client=c, max_retries=0),
        ("ollama/parallel_calls.ndjson", "ollama/calls_no_ids.ndjson"),
        "ollama/thinking.ndjson",
        NDJSON,
        media=False,
    ),
]
FATES = ("ok", "error", "deny", "refuse", "object", "media", "defer")


def fate_of(call: FunctionCall, fates: list[str]) -> str:
    """The fate drawn for a call, by its name and arguments (ids may be made up per run)."""
    return fates[zlib.crc32(f"{call.name}{call.raw_arguments}".encode()) % len(fates)]


def handler(fates: list[str]) -> Callable[[FunctionCall], Any]:
    def handle(call: FunctionCall) -> Any:
        fate = fate_of(call, fates)
        if fate == "error":
            raise ValueError(f"no {call.name} for {call.arguments}")
        if fate == "object":  # a result JSON cannot hold as it is
            return {"when": datetime.date(2026, 1, 2), "tags": {"b", "a"}}
        if fate == "media":
            return [f"chart of {call.arguments}", Image.from_bytes(PNG, name="chart.png")]
        return f"{call.name}: sunny ({call.arguments})"

    return handle


def approver(fates: list[str]) -> Callable[[FunctionCall], Any]:
    answers = {"deny": "the user said no", "refuse": False, "defer": DEFER}
    return lambda call: answers.get(fate_of(call, fates), True)


def decide(call: FunctionCall, fates: list[str]) -> bool | str:
    """The decision on a deferred call, drawn as its fate was (from the fates reversed)."""
    answers: dict[str, bool | str] = {"deny": "the manager said no", "refuse": False}
    return answers.get(fate_of(call, fates[::-1]), True)


class Server:
    """Answers each request with the next recorded answer and keeps each request's bytes."""

    def __init__(self, wire: Wire, answers: list[str]) -> None:
        self.answers = answers
        self.sent: list[bytes] = []
        self.content_type = wire.content_type

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request.content)
        answer = (FIXTURES / self.answers[len(self.sent) - 1]).read_bytes()
        return httpx.Response(200, content=answer, headers={"content-type": self.content_type})


async def send(
    wire: Wire, answers: list[str], fates: list[str], call: Callable[[Lang], Any]
) -> tuple[LangResult, list[bytes]]:
    """Run ``call`` on the wire's ``Lang``; the result and the bytes of its requests."""
    server = Server(wire, answers)
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        lang = wire.lang(client)
        options = {"function_handler": handler(fates), "approve": approver(fates)}
        result = await call(lang.__class__(lang.model, options={**wire.options, **options}))
    return result, server.sent


def reread(messages: LangMessages) -> LangMessages:
    """``messages`` through JSON text, as a file or a database column would hold it."""
    text = json.dumps(json.loads(messages.to_json()))
    copy = LangMessages.from_json(text)
    assert copy.to_json() == messages.to_json()
    return copy


def opening(wire: Wire) -> LangMessages:
    parts: list[Any] = [TextPart("Weather in Oslo and Rome, and the time?")]
    if wire.name in ("anthropic", "vertex"):
        parts.append(MediaPart(Image.from_bytes(PNG, name="map.png")))
    return LangMessages(
        [LangMessage("system", [TextPart("Be brief.")]), LangMessage("user", parts)]
    )


async def compare(wire: Wire, rounds: list[str], fates: list[str]) -> None:
    answers = [*rounds, wire.final]
    kept = {"functions": FUNCTIONS}
    result, sent = await send(wire, answers, fates, lambda lang: lang.chat(opening(wire), **kept))
    original, copy = result.messages, reread(result.messages)
    waiting = pending_calls(copy)  # the same calls, read back
    while result.finish_reason == "deferred":
        assert [(c.name, c.raw_arguments) for c in waiting] == [
            (c.name, c.raw_arguments) for c in result.pending
        ]
        decisions = {c.id: decide(c, fates) for c in result.pending}
        # Each its own: calls decoded again in each run may have ids made up anew.
        theirs = {c.id: decide(c, fates) for c in waiting}
        rest = answers[len(sent) :]
        result, sent_a = await send(
            wire, rest, fates, lambda lang, m=original, d=decisions: lang.resume(m, d, **kept)
        )
        other, sent_b = await send(
            wire, rest, fates, lambda lang, m=copy, d=theirs: lang.resume(m, d, **kept)
        )
        assert sent_a == sent_b
        sent += sent_a
        original, copy, waiting = result.messages, reread(other.messages), other.pending
    assert result.finish_reason == "stop"
    follow = [wire.final]
    _, after_a = await send(
        wire, follow, fates, lambda lang: lang.chat(original.with_user("Thanks!"), **kept)
    )
    _, after_b = await send(
        wire, follow, fates, lambda lang: lang.chat(copy.with_user("Thanks!"), **kept)
    )
    assert after_a == after_b
    assert len(after_a) == 1


def plans(wire: Wire) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    fates = [f for f in FATES if wire.media or f != "media"]
    rounds = st.permutations(list(wire.rounds)).flatmap(
        lambda order: st.integers(1, len(order)).map(lambda n: list(order[:n]))
    )
    return st.tuples(rounds, st.lists(st.sampled_from(fates), min_size=1, max_size=6))


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("wire", WIRES, ids=[w.name for w in WIRES])
def test_a_conversation_read_back_from_json_sends_the_same_bytes(wire: Wire, backend: str) -> None:
    @settings(max_examples=12, deadline=None, database=None)
    @given(plans(wire))
    def check(plan: tuple[list[str], list[str]]) -> None:
        rounds, fates = plan
        anyio.run(compare, wire, rounds, fates, backend=backend)

    check()
