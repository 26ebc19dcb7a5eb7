"""Anthropic blocks the SDK does not interpret: kept whole, replayed verbatim, never fatal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    UsageEvent,
)
from aiwrapper._conversation._messages import LangMessage, OpaquePart, ProviderState
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions, merge_options
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.anthropic import AnthropicProvider
from aiwrapper.providers.gemini import GeminiProvider
from aiwrapper.providers.ollama import OllamaProvider
from aiwrapper.providers.openai import OpenAIProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "anthropic"
PROVIDER = AnthropicProvider(api_key="k")
SIGNATURE = "EpADCkYIBxgCKkDhZHZpc29yLXNpZ25hdHVyZS1vbmU+p3QkZmRkYW5vdGhlcg=="
SERVER_TOOL_USE = {"type": "server_tool_use", "id": "srvtoolu_01Adv7", "name": "advisor"}
ADVISOR_RESULT = {
    "type": "advisor_tool_result",
    "tool_use_id": "srvtoolu_01Adv7",
    "content": {
        "type": "advisor_result",
        "text": "4. Two plus two is four.",
        "stop_reason": "end_turn",
    },
}
START_USAGE = {
    "input_tokens": 1450,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "output_tokens": 3,
}
FINAL_USAGE = {**START_USAGE, "output_tokens": 61, "server_tool_use": {"advisor_requests": 1}}
COUNTS = {"input_tokens": 1450, "cached_input_tokens": 0, "cache_write_tokens": 0}


def decode(data: bytes, *, chunk: int = 0) -> list[Event]:
    """Feed SSE bytes through framing and a fresh decoder, in ``chunk``-byte pieces."""
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)] if chunk else [data]
    framing, decoder = SSEDecoder(), PROVIDER.decode_stream()
    events: list[Event] = []
    for piece in pieces:
        for event_name, text in framing.feed(piece):
            events += decoder.feed(event_name, text)
    for event_name, text in framing.flush():
        events += decoder.feed(event_name, text)
    # The answering model (ModelEvent) is checked in tests/seeds/test_model_and_truncation.py.
    return [e for e in events + decoder.close() if not isinstance(e, ModelEvent)]


def assemble(events: list[Event]) -> LangMessage:
    assembler = Assembler(provider="anthropic")
    assembler.add_all(events)
    return assembler.finish()


def fixture_turn(name: str) -> LangMessage:
    return assemble(decode((FIXTURES / name).read_bytes()))


def whole_content() -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = json.loads((FIXTURES / "advisor_tool.json").read_bytes())[
        "content"
    ]
    return content


def replayed(turn: LangMessage) -> list[dict[str, Any]]:
    """The content of ``turn`` in the next Anthropic request (thinking on, as it was)."""
    messages = [LangMessage.text("user", "2+2?"), turn, LangMessage.text("user", "Thanks")]
    request = ProviderRequest(
        "claude-opus-4-5", messages, [], merge_options({"thinking": 2048}), stream=True
    )
    content: list[dict[str, Any]] = PROVIDER.encode(request).body["messages"][1]["content"]
    return content


@pytest.mark.parametrize("chunk", [0, 1, 7])
def test_server_tool_turn_with_one_empty_input_delta_reads_whole(chunk: int) -> None:
    events = decode((FIXTURES / "advisor_tool.sse").read_bytes(), chunk=chunk)
    assert events == [
        UsageEvent(output_tokens=3, raw=START_USAGE, **COUNTS),
        ThinkingDelta("", new_part=True),
        PartStateEvent(ProviderState("anthropic", {"signature": SIGNATURE})),
        TextDelta("Let me", new_part=True),
        TextDelta(" check with"),
        TextDelta(" the advisor."),
        OpaquePartEvent(ProviderState("anthropic", {"block": {**SERVER_TOOL_USE, "input": {}}})),
        OpaquePartEvent(ProviderState("anthropic", {"block": ADVISOR_RESULT})),
        TextDelta("The", new_part=True),
        TextDelta(" answer is **4**."),
        UsageEvent(output_tokens=61, raw=FINAL_USAGE, **COUNTS),
        FinishEvent("stop", raw="end_turn"),
    ]


def test_the_same_turn_whole_gives_the_same_message() -> None:
    body = json.loads((FIXTURES / "advisor_tool.json").read_bytes())
    whole = assemble(PROVIDER.decode_response(body))
    streamed = fixture_turn("advisor_tool.sse")
    assert whole.parts == streamed.parts
    assert replayed(whole) == whole_content()


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("advisor_tool.sse", {}),  # "input": {} and one "" delta
        ("advisor_input_split.sse", {"q": "x"}),  # '{"q":' + '"x"}'
        ("advisor_input_empty_then_object.sse", {}),  # "" + "{}"
        ("advisor_input_no_delta.sse", {}),  # no delta at all
        ("advisor_input_in_start.sse", {"q": "x"}),  # only in content_block_start
    ],
)
def test_every_way_of_streaming_the_input_is_read_and_replayed_unchanged(
    name: str, tool_input: dict[str, Any]
) -> None:
    turn = fixture_turn(name)
    expected = whole_content()
    expected[2] = {**SERVER_TOOL_USE, "input": tool_input}
    assert replayed(turn) == expected
    assert [p.problem for p in turn.parts if isinstance(p, OpaquePart)] == [None, None]
    assert turn.content == "Let me check with the advisor.The answer is **4**."
    assert turn.answer == "The answer is **4**."


@pytest.mark.anyio
@pytest.mark.parametrize("watched", [False, True])
async def test_lang_reads_the_turn_and_the_next_request_replays_blocks_0_to_4(
    watched: bool,
) -> None:
    sent: list[dict[str, Any]] = []
    seen: list[str] = []  # the answer as on_result saw it grow
    replies = [FIXTURES / "advisor_tool.sse", FIXTURES / "text.sse"]

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = replies[len(sent) - 1].read_bytes()
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.anthropic("claude-opus-4-5", api_key="sk-ant-test", http_client=client)
        on_result = (lambda r: seen.append(r.answer)) if watched else None
        result = await lang.ask("What is 2+2?", thinking=2048, on_result=on_result, cache=False)
        assert seen[-1:] == ([result.answer] if watched else [])
        assert result.messages[-1].parts[-1].text == "The answer is **4**."  # type: ignore[union-attr]
        assert result.answer == "The answer is **4**."  # the preamble stays in messages
        assert result.finish_reason == "stop"
        assert (result.usage.input_tokens, result.usage.output_tokens) == (1450, 61)
        await lang.chat(result.messages.add_user("Thanks"), thinking=2048, cache=False)

    assert sent[1]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}]},
        {"role": "assistant", "content": whole_content()},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]


def test_the_turn_sent_to_another_provider_keeps_its_text_and_drops_the_blocks() -> None:
    turn = fixture_turn("advisor_tool.sse")
    messages = [LangMessage.text("user", "2+2?"), turn]
    request = ProviderRequest("m", messages, [], LangOptions(), stream=True)
    text = "Let me check with the advisor.The answer is **4**."
    for provider in (OpenAIProvider(api_key="k"), OllamaProvider()):
        assistant = provider.encode(request).body["messages"][1]
        assert assistant == {"role": "assistant", "content": text}
    assert GeminiProvider(api_key="k").encode(request).body["contents"][1] == {
        "role": "model",
        "parts": [{"text": "Let me check with the advisor."}, {"text": "The answer is **4**."}],
    }


# --- blocks that cannot be read -----------------------------------------------------------


def sse(*payloads: dict[str, Any]) -> bytes:
    """An SSE body: each payload as one event named by its ``type``."""
    return "".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n" for p in payloads).encode()


def message(*middle: dict[str, Any]) -> bytes:
    """A turn: text at index 0, the given events, a tool_use at index 9, then the end."""
    return sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        delta(0, {"type": "text_delta", "text": "Before."}),
        {"type": "content_block_stop", "index": 0},
        *middle,
        {"type": "content_block_start", "index": 9, "content_block": TOOL_USE},
        delta(9, {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'}),
        {"type": "content_block_stop", "index": 9},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    )


TOOL_USE = {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {}}


def delta(index: int, body: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": body}


def block(index: int, start: dict[str, Any], *deltas: Any) -> list[dict[str, Any]]:
    """The start, delta and stop events of one block."""
    events = [{"type": "content_block_start", "index": index, "content_block": start}]
    events += [delta(index, body) for body in deltas]
    return [*events, {"type": "content_block_stop", "index": index}]


def opaque_parts(turn: LangMessage) -> list[OpaquePart]:
    return [p for p in turn.parts if isinstance(p, OpaquePart)]


def assert_text_and_call_intact(turn: LangMessage) -> None:
    assert turn.content == "Before."
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("toolu_9", "get_weather", {"city": "Oslo"})
    ]


@pytest.mark.parametrize(
    ("deltas", "kept", "problem"),
    [
        (
            [{"type": "input_json_delta", "partial_json": '{"q": '}],
            {**SERVER_TOOL_USE, "input": {}},
            "its streamed input is not JSON",
        ),
        (
            [{"type": "input_json_delta", "partial_json": 42}],
            {**SERVER_TOOL_USE, "input": {}},
            "could not be folded (TypeError('expected a string, not int'))",
        ),
        (
            [{"type": "tool_progress_delta", "step": 1}],
            {**SERVER_TOOL_USE, "input": {}},
            "could not be folded (ValueError(\"unknown delta type 'tool_progress_delta'\")",
        ),
        (
            [{"partial_json": "{}"}, "not a delta"],
            {**SERVER_TOOL_USE, "input": {}},
            "could not be folded (KeyError('type')): {'partial_json': '{}'}",
        ),
    ],
)
def test_a_block_that_cannot_be_read_is_reported_on_its_part_and_the_turn_survives(
    deltas: list[Any], kept: dict[str, Any], problem: str
) -> None:
    start = {**SERVER_TOOL_USE, "input": {}}
    turn = assemble(decode(message(*block(1, start, *deltas))))
    assert_text_and_call_intact(turn)
    (part,) = opaque_parts(turn)
    assert part.state == ProviderState("anthropic", {"block": kept})
    assert part.problem is not None
    assert problem in part.problem
    # Kept as far as it was read, it is still replayed in its place.
    assert replayed(turn)[1] == kept


def test_unknown_blocks_fold_every_known_delta_kind_into_the_block() -> None:
    citation = {"type": "char_location", "cited_text": "x"}
    deltas = [
        {"type": "text_delta", "text": "a"},
        {"type": "text_delta", "text": "b"},
        {"type": "thinking_delta", "thinking": "t"},
        {"type": "signature_delta", "signature": "sig"},
        {"type": "citations_delta", "citation": citation},
        {"type": "input_json_delta", "partial_json": "[1, "},
        {"type": "input_json_delta", "partial_json": "2]"},
    ]
    turn = assemble(decode(message(*block(1, {"type": "future_block"}, *deltas))))
    assert_text_and_call_intact(turn)
    (part,) = opaque_parts(turn)
    assert part.problem is None
    assert part.state.data["block"] == {
        "type": "future_block",
        "text": "ab",
        "thinking": "t",
        "signature": "sig",
        "citations": [citation],
        "input": [1, 2],
    }


def test_a_block_without_a_type_is_kept_whole_but_not_replayed() -> None:
    start = {"citations": 7, "payload": {"k": "v"}}
    turn = assemble(decode(message(*block(1, start))))
    assert_text_and_call_intact(turn)
    assert [p.state.data for p in opaque_parts(turn)] == [{"block": start}]
    assert [b["type"] for b in replayed(turn)] == ["text", "tool_use"]


def test_a_block_that_is_not_an_object_is_named_on_its_part_streamed_or_whole() -> None:
    streamed = assemble(decode(message(*block(1, "oops", {"type": "text_delta", "text": "x"}))))
    body = {
        "content": [
            {"type": "text", "text": "Before."},
            "oops",
            {**TOOL_USE, "input": {"city": "Oslo"}},
        ],
        "stop_reason": "tool_use",
    }
    whole = assemble(PROVIDER.decode_response(body))
    for turn in (streamed, whole):
        assert_text_and_call_intact(turn)
        (part,) = opaque_parts(turn)
        assert part.problem == "the block is not an object: 'oops'"
        assert [b["type"] for b in replayed(turn)] == ["text", "tool_use"]


def test_a_kept_block_the_stream_never_stopped_is_still_kept() -> None:
    start = {**SERVER_TOOL_USE, "input": {}}
    unstopped = [
        {"type": "content_block_start", "index": 1, "content_block": start},
        delta(1, {"type": "input_json_delta", "partial_json": '{"q": "x"}'}),
    ]
    turn = assemble(decode(message(*unstopped)))
    assert_text_and_call_intact(turn)
    (part,) = opaque_parts(turn)
    assert part.state.data == {"block": {**SERVER_TOOL_USE, "input": {"q": "x"}}}
    assert part.problem == "the stream ended before the block stopped"
