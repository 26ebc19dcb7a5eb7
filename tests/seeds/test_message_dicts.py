"""Content-list message dicts (OpenAI and Anthropic forms) given to ``chat``, on every wire."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper import ConfigError, LangMessage, LangMessages, tool
from aiwrapper._conversation._messages import OpaquePart, ProviderState, ThinkingPart

from .wires import WIRES, Body, recording_client

pytestmark = pytest.mark.anyio
NAMES = sorted(WIRES)


@tool
def get_weather(city: str) -> str:
    """Weather in a city."""
    return f"sunny in {city}"


ANTHROPIC_FORM: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo and Rome?"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Rome"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [{"type": "text", "text": "sunny in Oslo"}],
            },
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "rain", "is_error": True},
            {"type": "text", "text": "And which is warmer?"},
        ],
    },
]


@pytest.mark.parametrize("name", NAMES)
async def test_anthropic_content_lists_reach_every_wire(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    async with recording_client(wire, [wire.text("Oslo.", "m")], sent) as client:
        result = await wire.make(client).chat(ANTHROPIC_FORM, functions=[get_weather])
    body = json.dumps(sent[0])
    results = wire.results(sent[0])
    assert len(results) == 2
    assert "sunny in Oslo" in results[0]
    assert "rain" in results[1]
    for text in ("Weather in Oslo and Rome?", "Checking.", "And which is warmer?"):
        assert text in body
    assert result.answer == "Oslo."


def test_an_anthropic_turn_of_results_becomes_tool_messages_then_the_user_text() -> None:
    messages = LangMessages(ANTHROPIC_FORM)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "tool", "user"]
    assert [c.arguments for c in messages[1].tool_calls] == [{"city": "Oslo"}, {"city": "Rome"}]
    assert (messages[2].tool_call_id, messages[2].content) == ("toolu_1", "sunny in Oslo")
    assert (messages[3].is_error, messages[3].content) == (True, "rain")
    assert messages[4].content == "And which is warmer?"


def test_anthropic_thinking_blocks_keep_their_signature_for_replay() -> None:
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgB"}
    (message,) = LangMessages(
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Look it up.", "signature": "sig-1"},
                    redacted,
                    {"type": "text", "text": "Done."},
                ],
            }
        ]
    )
    assert message.parts[0] == ThinkingPart(
        "Look it up.", ProviderState("anthropic", {"signature": "sig-1"})
    )
    assert message.parts[1] == OpaquePart(
        ProviderState("anthropic", {"block": redacted}), "thinking"
    )
    assert message.content == "Done."


@pytest.mark.parametrize("name", NAMES)
async def test_openai_content_part_lists_are_read(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    messages = [
        {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [{"type": "text", "text": "sunny in Oslo"}],
        },
    ]
    async with recording_client(wire, [wire.text("Sunny.", "m")], sent) as client:
        await wire.make(client).chat(messages, functions=[get_weather])
    body = json.dumps(sent[0])
    assert "Be brief." in body
    assert "Hi there" in body
    assert "sunny in Oslo" in wire.results(sent[0])[0]


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
            "content part 0 (image_url): Image.from_url takes an https://",
        ),
        (
            {"role": "user", "content": [{"type": "image", "source": {"type": "base64"}}]},
            "content part 0 (image): a base64 source needs a string 'data'",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
            },
            "this user message holds a content block",
        ),
        (
            {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
            "this assistant message holds a content block",
        ),
        (
            {"role": "user", "content": [{"type": "tool_result", "content": "x"}]},
            "needs its 'tool_use_id'",
        ),
        (
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image"}]}
                ],
            },
            "(tool_result), part 0 (image): this image block needs an object 'source'",
        ),
        ({"role": "user", "content": [{"type": "text"}]}, "a 'text' block needs a string 'text'"),
        ({"role": "user", "content": ["hi"]}, "a string or a list of content blocks"),
    ],
)
async def test_blocks_that_cannot_be_read_are_config_errors_before_sending(
    message: dict[str, Any], fragment: str
) -> None:
    wire = WIRES["openai"]
    sent: list[Body] = []
    async with recording_client(wire, [], sent) as client:
        with pytest.raises(ConfigError) as info:
            await wire.make(client).chat([message])
    assert fragment in str(info.value)
    assert sent == []


def test_from_dict_refuses_a_dict_holding_several_messages() -> None:
    with pytest.raises(ConfigError, match="this dict holds 3 messages"):
        LangMessage.from_dict(ANTHROPIC_FORM[2])
