"""Anthropic across a tool loop: decoded turns replayed verbatim in the next request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, tool
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._messages import LangMessage, TextPart, ToolCallPart
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._errors import ConfigError
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.anthropic import AnthropicProvider, wire_id

FIXTURES = Path(__file__).parent.parent / "fixtures" / "anthropic"
PROVIDER = AnthropicProvider(api_key="k")
TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


class FakeTool:
    name = "get_weather"

    def schema_for(self, dialect: str) -> dict[str, Any]:
        return TOOL


def streamed_turn(name: str) -> LangMessage:
    """The assistant message the shared assembler builds from a streamed fixture."""
    framing, decoder = SSEDecoder(), PROVIDER.decode_stream()
    assembler = Assembler(provider="anthropic")
    for event_name, data in framing.feed((FIXTURES / name).read_bytes()):
        for event in decoder.feed(event_name, data):
            assembler.add(event)
    for event in decoder.close():
        assembler.add(event)
    return assembler.finish()


def whole_content(name: str) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = json.loads((FIXTURES / name).read_bytes())["content"]
    return content


def body(messages: list[LangMessage], **options: Any) -> dict[str, Any]:
    request = ProviderRequest(
        model="claude-sonnet-4-5",
        messages=messages,
        tools=[FakeTool()],  # type: ignore[list-item]
        options=merge_options({"thinking": 2048, "cache": False, **options}),
        stream=True,
    )
    return PROVIDER.encode(request).body


def test_two_round_tool_loop_with_thinking_replays_the_turn_unchanged() -> None:
    conversation = [LangMessage.text("system", "Be brief."), LangMessage.text("user", "Oslo?")]
    first = body(conversation)
    assert first == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,  # the model's output limit
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Oslo?"}]}],
        "tools": [TOOL],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "stream": True,
    }

    turn = streamed_turn("thinking_tool_use.sse")
    (call,) = turn.tool_calls
    conversation += [turn, LangMessage.tool_result(call, '{"temp_c": 4}')]
    second = body(conversation)
    assert second == {
        **first,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Oslo?"}]},
            # Exactly the content array of the same answer sent whole: thinking text and
            # signature byte-for-byte, blocks in their original order.
            {"role": "assistant", "content": whole_content("thinking_tool_use.json")},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01T", "content": '{"temp_c": 4}'}
                ],
            },
        ],
    }
    assert second["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "The user wants the weather in Oslo. I should call get_weather.\n",
        "signature": "EqQBCkYIBxgCKkBzaWduYXR1cmUtb25l+/Tk9QxQ7vL2==",
    }


def test_parallel_results_come_first_in_one_user_message() -> None:
    turn = streamed_turn("parallel_tool_use.sse")
    oslo, rome = turn.tool_calls
    messages = [
        LangMessage.text("user", "Oslo and Rome?"),
        turn,
        LangMessage.tool_result(oslo, '{"temp_c": 4}'),
        LangMessage.tool_result(rome, "timeout", is_error=True, error_type="TimeoutError"),
        LangMessage.text("user", "Prefer Celsius."),
    ]
    assert body(messages, thinking=None)["messages"][1:] == [
        {"role": "assistant", "content": whole_content("parallel_tool_use.json")},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": '{"temp_c": 4}'},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01B",
                    "content": "timeout",
                    "is_error": True,
                },
                {"type": "text", "text": "Prefer Celsius."},
            ],
        },
    ]


def test_redacted_and_signature_only_thinking_are_replayed_in_order() -> None:
    turn = streamed_turn("redacted_thinking.sse")
    messages = [LangMessage.text("user", "Q?"), turn, LangMessage.text("user", "Thanks")]
    assert body(messages)["messages"][1] == {
        "role": "assistant",
        "content": whole_content("redacted_thinking.json"),
    }


def test_server_tool_blocks_and_citations_are_replayed_verbatim() -> None:
    turn = streamed_turn("server_tool.sse")
    assert turn.content == "It is 4 C and cloudy in Oslo."
    messages = [LangMessage.text("user", "Weather?"), turn, LangMessage.text("user", "Thanks")]
    content = body(messages, thinking=None)["messages"][1]["content"]
    assert [block["type"] for block in content] == [
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert content[0]["input"] == {"query": "weather Oslo"}
    assert content[1]["content"][0]["encrypted_content"] == "Eo8BCioIAhgB"
    assert content[2] == {
        "type": "text",
        "text": "It is 4 C and cloudy in Oslo.",
        "citations": [
            {
                "type": "web_search_result_location",
                "cited_text": "Oslo: 4 C, cloudy",
                "url": "https://example.com/oslo",
                "title": "Oslo weather",
                "encrypted_index": "EpMBCioI",
            }
        ],
    }


def test_a_turn_from_another_provider_loses_its_reasoning_state() -> None:
    turn = streamed_turn("thinking_tool_use.sse")
    for part in turn.parts:
        if part.state is not None:
            part.state = type(part.state)("gemini", part.state.data)
    messages = [LangMessage.text("user", "Oslo?"), turn]
    assert body(messages, thinking=None)["messages"][1]["content"] == [
        {"type": "tool_use", "id": "toolu_01T", "name": "get_weather", "input": {"city": "Oslo"}}
    ]


@pytest.mark.anyio
async def test_lang_runs_the_tool_loop_over_http_with_thinking() -> None:
    sent: list[dict[str, Any]] = []
    replies = [FIXTURES / "thinking_tool_use.sse", FIXTURES / "text.sse"]

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url == "https://api.anthropic.com/v1/messages"
        assert request.headers["x-api-key"] == "sk-ant-test"
        sent.append(json.loads(request.content))
        body = replies[len(sent) - 1].read_bytes()
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    @tool
    def get_weather(city: str) -> dict[str, int]:
        """Current weather for a city."""
        return {"temp_c": 4} if city == "Oslo" else {"temp_c": 0}

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.anthropic("claude-sonnet-4-5", api_key="sk-ant-test", http_client=client)
        result = await lang.ask("Oslo?", functions=[get_weather], thinking=2048, cache=False)

    assert result.answer == "Hello! How can I help?"
    assert [c.arguments for c in result.function_calls] == [{"city": "Oslo"}]
    assert result.usage.input_tokens == 512 + 1325
    assert sent[1]["messages"][1:] == [
        {"role": "assistant", "content": whole_content("thinking_tool_use.json")},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01T", "content": '{"temp_c":4}'}
            ],
        },
    ]


def test_three_round_loop_replays_every_thinking_turn_byte_for_byte_and_in_order() -> None:
    # Interleaved thinking: each round of the loop opens with its own signed thinking block.
    betas = AnthropicProvider(api_key="k", betas=["interleaved-thinking-2025-05-14"])
    conversation = [LangMessage.text("user", "Oslo, then Rome?")]
    first = streamed_turn("thinking_tool_use.sse")
    conversation += [first, LangMessage.tool_result(first.tool_calls[0], "4C")]
    second = streamed_turn("interleaved_tool_use.sse")
    conversation += [second, LangMessage.tool_result(second.tool_calls[0], "18C")]

    def request(messages: list[LangMessage]) -> dict[str, Any]:
        options = merge_options({"thinking": 2048, "cache": False})
        call = ProviderRequest("claude-sonnet-4-5", messages, [FakeTool()], options, True)  # type: ignore[list-item]
        return betas.encode(call).body

    round_two, round_three = request(conversation[:3]), request(conversation)
    assert round_three["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Oslo, then Rome?"}]},
        {"role": "assistant", "content": whole_content("thinking_tool_use.json")},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01T", "content": "4C"}],
        },
        {"role": "assistant", "content": whole_content("interleaved_tool_use.json")},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_02R", "content": "18C"}],
        },
    ]
    # The earlier rounds go out as the same bytes every time (what the signature covers).
    dump = json.dumps(round_three["messages"][:3], ensure_ascii=False).encode()
    assert json.dumps(round_two["messages"], ensure_ascii=False).encode() == dump
    assert round_three["messages"][3]["content"][0]["thinking"] == (
        "Oslo is 4 °C. Now Rome — the user also asked «Roma» 🌤."
    )


def foreign_turn(provider: str | None) -> list[LangMessage]:
    call = FunctionCall(id="call_abc.1", name="get_weather", arguments={"city": "Oslo"})
    call.provider = provider
    return [
        LangMessage.text("user", "Oslo?"),
        LangMessage("assistant", [TextPart("Checking."), ToolCallPart(call)]),
        LangMessage.tool_result(call, "4C"),
    ]


@pytest.mark.parametrize("provider", ["openai", "gemini", None])
def test_thinking_on_results_for_calls_made_without_thinking_is_a_config_error(
    provider: str | None,
) -> None:
    with pytest.raises(ConfigError, match="made without Anthropic thinking"):
        body(foreign_turn(provider))
    with pytest.raises(ConfigError, match="made without Anthropic thinking"):
        body([*foreign_turn(provider), LangMessage.text("user", "Also Rome?")])


def test_foreign_tool_turn_goes_through_with_thinking_off_or_once_the_loop_ended() -> None:
    messages = foreign_turn("openai")
    assert body(messages, thinking=None)["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": wire_id("call_abc.1"),
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": wire_id("call_abc.1"), "content": "4C"}
            ],
        },
    ]
    ended = [*messages, LangMessage.text("assistant", "4C."), LangMessage.text("user", "Rome?")]
    assert body(ended)["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_claudes_own_turn_without_thinking_is_left_to_the_api() -> None:
    turn = streamed_turn("parallel_tool_use.sse")  # made with thinking off
    oslo, rome = turn.tool_calls
    messages = [
        LangMessage.text("user", "Oslo and Rome?"),
        turn,
        LangMessage.tool_result(oslo, "4C"),
        LangMessage.tool_result(rome, "18C"),
    ]
    assert body(messages)["messages"][1]["content"][0] == {
        "type": "text",
        "text": "I'll check both cities.",
    }


def test_a_gemini_turn_continues_on_anthropic_with_clean_ids_and_no_signatures() -> None:
    from aiwrapper._conversation._messages import ProviderState, ThinkingPart

    def gemini(data: dict[str, Any]) -> ProviderState:
        return ProviderState("gemini", data)

    call = FunctionCall(id="fc.7a:0", name="get_weather", arguments={"city": "Oslo"})
    call.provider = "gemini"
    turn = LangMessage(
        "assistant",
        [
            ThinkingPart("Plan.", gemini({"thoughtSignature": "CtMB"})),
            TextPart("Looking.", gemini({"thoughtSignature": "T1"})),
            ToolCallPart(call, gemini({})),
        ],
    )
    messages = [
        LangMessage.text("user", "Oslo?"),
        turn,
        LangMessage.tool_result(call, "4C"),
        LangMessage.text("assistant", "4C."),
        LangMessage.text("user", "Thanks"),
    ]
    sent = body(messages)["messages"]
    assert sent[1:3] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {
                    "type": "tool_use",
                    "id": wire_id("fc.7a:0"),
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": wire_id("fc.7a:0"), "content": "4C"}
            ],
        },
    ]
    assert wire_id("fc.7a:0").startswith("fc_7a_0_")
