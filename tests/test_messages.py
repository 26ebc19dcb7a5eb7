"""Messages: parts, OpenAI-shaped dicts, and moving a conversation between providers."""

from __future__ import annotations

import re
from typing import Any

import pytest

from aiwrapper import ConfigError, FunctionCall, LangMessage, LangMessages
from aiwrapper._conversation._messages import (
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)


def anthropic_turn() -> LangMessage:
    signed = ProviderState("anthropic", {"signature": "sig"})
    call = FunctionCall(id="toolu_1", name="f", arguments={"x": 1}, provider="anthropic")
    return LangMessage(
        "assistant",
        [
            ThinkingPart("Need f.", signed),
            OpaquePart(
                ProviderState("anthropic", {"block": {"type": "redacted_thinking"}}), "thinking"
            ),
            TextPart("Calling f."),
            ToolCallPart(call, ProviderState("anthropic", {"extra": {}})),
        ],
    )


def test_with_thinking_as_text_keeps_reasoning_readable_and_drops_provider_state() -> None:
    messages = LangMessages([{"role": "user", "content": "go"}]).add(anthropic_turn())
    portable = messages.with_thinking_as_text()
    turn = portable[1]
    assert [type(p).__name__ for p in turn.parts] == ["TextPart", "TextPart", "ToolCallPart"]
    assert turn.content == "<thinking>Need f.</thinking>Calling f."
    assert turn.thinking == ""
    assert all(p.state is None for p in turn.parts)  # type: ignore[union-attr]
    assert turn.tool_calls[0].id == "toolu_1"
    assert messages[1].thinking == "Need f."  # the original is untouched


def test_tool_results_survive_the_copy() -> None:
    call = FunctionCall(id="c1", name="f")
    messages = LangMessages().add_tool_result(call, {"ok": True}, is_error=False)
    copy = messages.with_thinking_as_text()[0]
    assert (copy.role, copy.tool_call_id, copy.name, copy.content) == (
        "tool",
        "c1",
        "f",
        '{"ok":true}',
    )


def test_openai_dicts_round_trip_through_messages() -> None:
    dicts = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Øslo?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "thinking": "Need the tool.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Øslo"}'},
                }
            ],
        },
        {
            "role": "tool",
            "content": '{"error":"down"}',
            "tool_call_id": "call_1",
            "name": "weather",
            "is_error": True,
            "error_type": "ConnectionError",
        },
        {"role": "assistant", "content": "It is down."},
    ]
    messages = LangMessages(dicts)
    assert messages.to_dicts() == dicts
    assert LangMessages(messages.to_dicts()).to_dicts() == dicts
    call = messages[2].tool_calls[0]
    assert (call.arguments, call.raw_arguments, call.status) == (
        {"city": "Øslo"},
        '{"city":"Øslo"}',
        "done",
    )
    assert messages[3].error_type == "ConnectionError"


def test_from_dict_accepts_developer_content_parts_and_object_arguments() -> None:
    messages = LangMessages(
        [
            {"role": "developer", "content": [{"type": "text", "text": "a"}, {"text": "b"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": {"n": 1}}}],
            },
            {
                "role": "assistant",
                "tool_calls": [{"id": "y", "function": {"name": "g", "arguments": " "}}],
            },
        ]
    )
    assert (messages[0].role, messages[0].content) == ("system", "ab")
    assert messages[1].tool_calls[0].raw_arguments == '{"n":1}'
    assert messages[2].tool_calls[0].arguments == {}


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        (
            {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]},
            "needs an 'id' and a function 'name'",
        ),
        (
            {"role": "assistant", "tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]},
            "needs an 'id' and a function 'name'",
        ),
        (
            {"role": "assistant", "tool_calls": [{"id": "x", "function": "f"}]},
            "needs an 'id' and a function 'name'",
        ),
        (
            {"role": "assistant", "tool_calls": [{"id": "x", "name": "f", "arguments": "[1]"}]},
            "'x' has arguments that are not a JSON object",
        ),
        (
            {"role": "assistant", "tool_calls": [{"id": "x", "name": "f", "arguments": 5}]},
            "not a JSON object",
        ),
        ({"role": "tool", "content": "4"}, "needs the 'tool_call_id'"),
        ({"content": "hi"}, "role must be"),
    ],
)
def test_malformed_dicts_are_config_errors(message: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        LangMessages([message])


def test_a_non_message_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="message 0 must be a LangMessage or a message dict"):
        LangMessages(["hi"])  # type: ignore[list-item]


def test_add_helpers_chain_and_add_tool_result_records_the_value() -> None:
    call = FunctionCall(id="c1", name="f")
    messages = LangMessages().add_system("s").add_user("u").add_assistant("a")
    assert messages.add_tool_result(call, [1, "x"], is_error=True) is messages
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool"]
    assert (messages[3].content, messages[3].is_error) == ('[1,"x"]', True)
    assert (call.result, call.status) == ([1, "x"], "error")
    assert messages.add_tool_result(call, "plain")[-1].content == "plain"


def test_answer_is_the_text_after_the_last_server_tool_block() -> None:
    state = ProviderState("anthropic", {"type": "server_tool_use"})
    thinking = OpaquePart(ProviderState("anthropic", {"type": "redacted_thinking"}), "thinking")
    turn = LangMessage(
        "assistant",
        [TextPart("Let me look. "), OpaquePart(state), TextPart("It is "), TextPart("4.")],
    )
    assert turn.answer == "It is 4."
    assert turn.content == "Let me look. It is 4."
    plain = LangMessage("assistant", [thinking, TextPart("Hi "), TextPart("there")])
    assert plain.answer == "Hi there"  # reasoning blocks do not split the answer
    assert LangMessage("assistant", [TextPart("a"), OpaquePart(state)]).answer == ""
