"""Message dicts of the wrong shape: a ConfigError naming the field and the message, never a
TypeError or AttributeError from deep inside."""

from __future__ import annotations

import re
from typing import Any

import pytest

from aiwrapper import ConfigError, Lang, LangMessages
from aiwrapper._conversation._messages import messages_from_dict

USER = {"role": "user", "content": "hi"}
BOTH = "needs an 'id' and a function 'name', both strings"
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ({"role": "assistant", "tool_calls": 5}, "'tool_calls' must be a list of tool calls"),
        ({"role": "assistant", "tool_calls": "ab"}, "'tool_calls' must be a list of tool calls"),
        ({"role": "assistant", "tool_calls": {"id": "c1"}}, "'tool_calls' must be a list"),
        ({"role": "assistant", "tool_calls": [5]}, "'tool_calls' must be a list of tool calls"),
        ({"role": "assistant", "tool_calls": [CALL, "x"]}, "'tool_calls' must be a list"),
        ({"role": "tool", "tool_call_id": 5, "content": "4"}, "'tool_call_id' must be a string"),
        ({"role": "tool", "tool_call_id": ["c1"], "content": "4"}, "'tool_call_id' must be"),
        ({"role": "tool", "tool_call_id": "c1"}, "a tool message needs 'content'"),
        ({"role": "user"}, "a user message needs 'content'"),
        ({"role": "system", "content": None}, "a system message needs 'content'"),
        ({"role": "user", "content": 5}, "'content' must be a string or a list"),
        ({"role": "user", "content": {"text": "hi"}}, "'content' must be a string or a list"),
        ({"role": "user", "content": ["hi"]}, "'content' must be a string or a list"),
        ({"role": "user", "content": "hi", "name": 5}, "'name' must be a string"),
        ({"role": "assistant", "content": "x", "thinking": 5}, "'thinking' must be a string"),
        ({"role": "tool", "tool_call_id": "c", "content": "", "is_error": "no"}, "'is_error'"),
        ({"role": "tool", "tool_call_id": "c", "content": "", "error_type": 1}, "'error_type'"),
        ({"role": ["user"], "content": "hi"}, "role must be"),
        ({"role": "user", "content": [{"type": ["text"], "text": "hi"}]}, "cannot be read"),
        ({"role": "user", "content": [{"type": "text", "text": 5}]}, "needs a string 'text'"),
    ],
)
def test_a_message_dict_of_the_wrong_shape_is_a_config_error_naming_the_field(
    message: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        messages_from_dict(message)


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        ({**CALL, "id": 5}, BOTH),
        ({**CALL, "function": {"name": 5, "arguments": "{}"}}, BOTH),
        ({**CALL, "function": 5}, BOTH),
        ({**CALL, "function": {"name": "f", "arguments": 5}}, "not a JSON object"),
        ({"type": "tool_use", "id": "t", "name": "f", "input": [1]}, "not a JSON object"),
    ],
)
def test_a_tool_call_of_the_wrong_shape_is_a_config_error(
    call: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        messages_from_dict({"role": "assistant", "tool_calls": [call]})


def test_a_thinking_block_with_a_signature_that_is_not_a_string_is_a_config_error() -> None:
    block = {"type": "thinking", "thinking": "hm", "signature": 5}
    with pytest.raises(ConfigError, match="'signature' must be a string"):
        messages_from_dict({"role": "assistant", "content": [block]})


def test_an_assistant_message_needs_no_content_when_it_calls_tools() -> None:
    [message] = messages_from_dict({"role": "assistant", "content": None, "tool_calls": [CALL]})
    assert [c.id for c in message.tool_calls] == ["c1"]
    assert message.content == ""


def test_chat_sync_with_tool_calls_of_5_is_a_config_error_naming_the_message_index() -> None:
    lang = Lang.scripted(["never"])
    with pytest.raises(ConfigError, match=r"^message 1: 'tool_calls' must be a list"):
        lang.chat_sync([USER, {"role": "assistant", "tool_calls": 5}])
    assert lang.requests == []


def test_the_index_names_the_dict_in_the_list_given() -> None:
    with pytest.raises(ConfigError, match=r"^message 2: a user message needs 'content'"):
        LangMessages([USER, USER, {"role": "user"}])


@pytest.mark.parametrize("entry", [5, "hi", None, ["x"]])
def test_an_entry_that_is_not_a_message_is_a_config_error(entry: object) -> None:
    with pytest.raises(ConfigError, match=r"^message 1 must be a LangMessage or a message dict"):
        LangMessages([USER, entry])  # type: ignore[list-item]


def test_chat_sync_of_a_list_holding_5_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="message 0 must be a LangMessage or a message dict"):
        Lang.scripted(["never"]).chat_sync([5])  # type: ignore[list-item]


@pytest.mark.parametrize("prompt", [None, 5, b"hi", {"role": "user", "content": "hi"}])
def test_ask_sync_of_what_is_no_prompt_is_a_config_error(prompt: Any) -> None:
    lang = Lang.scripted(["never"])
    with pytest.raises(ConfigError, match="a prompt string or a conversation"):
        lang.ask_sync(prompt)
    assert lang.requests == []


@pytest.mark.parametrize("messages", [None, 5, b"hi", {"role": "user", "content": "hi"}])
def test_chat_sync_of_what_is_no_conversation_is_a_config_error(messages: Any) -> None:
    with pytest.raises(ConfigError, match="a conversation"):
        Lang.scripted(["never"]).chat_sync(messages)
