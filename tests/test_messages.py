"""Messages: parts, OpenAI-shaped dicts, and moving a conversation between providers."""

from __future__ import annotations

from aiwrapper import FunctionCall, LangMessage, LangMessages
from aiwrapper.messages import OpaquePart, ProviderState, TextPart, ThinkingPart, ToolCallPart


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
