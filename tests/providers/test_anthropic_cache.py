"""Anthropic prompt caching: automatic breakpoints, the limit of 4, and none kept in messages."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, tool
from aiwrapper._conversation._messages import LangMessage, messages_from_dict
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.anthropic import AnthropicProvider
from aiwrapper.providers.anthropic._cache import place_breakpoints

EPHEMERAL = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


class FakeTool:
    name = "get_weather"

    def schema_for(self, dialect: str) -> dict[str, Any]:
        return TOOL


def encode(messages: list[LangMessage], *, tools: bool = True, **options: Any) -> dict[str, Any]:
    request = ProviderRequest(
        model="claude-sonnet-4-5",
        messages=messages,
        tools=[FakeTool()] if tools else [],  # type: ignore[list-item]
        options=merge_options(options),
        stream=False,
    )
    return AnthropicProvider(api_key="k").encode(request).body


def from_dicts(*dicts: dict[str, Any]) -> list[LangMessage]:
    return [message for data in dicts for message in messages_from_dict(data)]


SYSTEM_AND_USER = [LangMessage.text("system", "Be brief."), LangMessage.text("user", "Oslo?")]


def test_tools_system_and_the_final_message_each_get_one_breakpoint() -> None:
    assert encode(SYSTEM_AND_USER) == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Oslo?", "cache_control": EPHEMERAL}],
            }
        ],
        "system": [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}],
        "tools": [{**TOOL, "cache_control": EPHEMERAL}],
    }


def test_extended_asks_for_the_one_hour_ttl_everywhere() -> None:
    body = encode(SYSTEM_AND_USER, cache="extended")
    assert body["tools"] == [{**TOOL, "cache_control": HOUR}]
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": HOUR}]
    assert body["messages"][0]["content"][0]["cache_control"] == HOUR


def test_cache_false_places_none_and_keeps_system_a_string() -> None:
    body = encode(SYSTEM_AND_USER, cache=False)
    assert body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Oslo?"}]}],
        "system": "Be brief.",
        "tools": [TOOL],
    }
    assert "cache_control" not in json.dumps(body)


def test_without_tools_or_system_only_the_final_message_is_marked() -> None:
    body = encode([LangMessage.text("user", "Oslo?")], tools=False)
    assert body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Oslo?", "cache_control": EPHEMERAL}],
            }
        ],
    }


def test_a_users_breakpoint_in_a_message_dict_is_kept_and_counted() -> None:
    mine = {"type": "ephemeral", "ttl": "5m"}
    messages = from_dicts(
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "A long document.", "cache_control": mine},
                {"type": "text", "text": "Oslo?"},
            ],
        },
    )
    body = encode(messages)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "A long document.", "cache_control": mine},
                {"type": "text", "text": "Oslo?", "cache_control": EPHEMERAL},
            ],
        }
    ]
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    assert body["tools"] == [{**TOOL, "cache_control": EPHEMERAL}]


def test_a_users_breakpoint_where_an_automatic_one_would_go_is_not_doubled() -> None:
    messages = from_dicts(
        {"role": "system", "content": [{"type": "text", "text": "S.", "cache_control": EPHEMERAL}]},
        {"role": "user", "content": [{"type": "text", "text": "Doc.", "cache_control": EPHEMERAL}]},
        {"role": "assistant", "content": "Read."},
        {"role": "user", "content": "Oslo?"},
    )
    body = encode(messages)
    # The user's system breakpoint stands where the automatic one would go; the final
    # message's automatic one is placed, the tools' one too: 2 + 2 = 4.
    assert body["system"] == [{"type": "text", "text": "S.", "cache_control": EPHEMERAL}]
    assert body["messages"][-1]["content"] == [
        {"type": "text", "text": "Oslo?", "cache_control": EPHEMERAL}
    ]
    assert body["tools"] == [{**TOOL, "cache_control": EPHEMERAL}]
    assert json.dumps(body).count("cache_control") == 4


def test_three_user_breakpoints_leave_one_slot_for_the_final_message() -> None:
    messages = from_dicts(
        {"role": "system", "content": "S."},
        *(
            {"role": role, "content": [{"type": "text", "text": t, "cache_control": EPHEMERAL}]}
            for role, t in (("user", "a"), ("assistant", "b"), ("user", "c"))
        ),
        {"role": "assistant", "content": "d"},
        {"role": "user", "content": "Oslo?"},
    )
    body = encode(messages)
    assert body["tools"] == [TOOL]
    assert body["system"] == [{"type": "text", "text": "S."}]
    assert body["messages"][-1]["content"] == [
        {"type": "text", "text": "Oslo?", "cache_control": EPHEMERAL}
    ]
    assert json.dumps(body).count("cache_control") == 4


def test_four_user_breakpoints_leave_no_room_for_automatic_ones() -> None:
    messages = from_dicts(
        *(
            {"role": role, "content": [{"type": "text", "text": t, "cache_control": EPHEMERAL}]}
            for role, t in (("user", "a"), ("assistant", "b"), ("user", "c"), ("assistant", "d"))
        ),
        {"role": "user", "content": "Oslo?"},
    )
    body = encode([LangMessage.text("system", "S."), *messages])
    assert body["tools"] == [TOOL]
    assert body["system"] == [{"type": "text", "text": "S."}]
    assert body["messages"][-1] == {"role": "user", "content": [{"type": "text", "text": "Oslo?"}]}
    assert [
        block.get("cache_control") for message in body["messages"] for block in message["content"]
    ] == [EPHEMERAL] * 4 + [None]


def test_a_top_level_cache_control_in_extra_body_takes_a_slot() -> None:
    messages = from_dicts(
        *(
            {"role": role, "content": [{"type": "text", "text": t, "cache_control": EPHEMERAL}]}
            for role, t in (("user", "a"), ("assistant", "b"), ("user", "c"))
        ),
    )
    body = encode(messages, tools=False, extra_body={"cache_control": EPHEMERAL})
    assert json.dumps(body).count("cache_control") == 4  # 3 blocks and the top-level one


def test_a_users_breakpoint_on_a_tool_use_block_is_replayed() -> None:
    messages = from_dicts(
        {"role": "user", "content": "Oslo?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                    "cache_control": EPHEMERAL,
                }
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
    )
    assert encode(messages, tools=False)["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                    "cache_control": EPHEMERAL,
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "cache_control": EPHEMERAL}
            ],
        },
    ]


def test_a_one_hour_marker_never_follows_a_users_five_minute_one() -> None:
    # The API wants longer TTLs first: after the user's 5-minute marker, automatic ones stay 5m.
    messages = from_dicts(
        {"role": "system", "content": [{"type": "text", "text": "S.", "cache_control": EPHEMERAL}]},
        {"role": "user", "content": "Oslo?"},
    )
    body = encode(messages, cache="extended")
    assert body["tools"] == [{**TOOL, "cache_control": HOUR}]  # before the user's marker
    assert body["messages"][-1]["content"][-1]["cache_control"] == EPHEMERAL


def raw(content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": content}], **extra}


def test_a_thinking_block_last_passes_the_breakpoint_to_the_block_before_it() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Plan:"},
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "redacted_thinking", "data": "x"},
                ],
            },
        ],
    }
    place_breakpoints(body, "auto")
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Plan:", "cache_control": EPHEMERAL},
        {"type": "thinking", "thinking": "t", "signature": "s"},
        {"type": "redacted_thinking", "data": "x"},
    ]
    assert "cache_control" not in body["messages"][0]["content"][0]


def test_an_empty_text_block_and_a_deferred_tool_take_no_breakpoint() -> None:
    deferred = {"name": "rare", "input_schema": {"type": "object"}, "defer_loading": True}
    body = raw(
        [{"type": "text", "text": "Hi"}, {"type": "text", "text": ""}],
        tools=[TOOL, deferred],
        system=[{"type": "text", "text": "S."}, {"type": "text", "text": ""}],
    )
    place_breakpoints(body, "auto")
    assert body == raw(
        [{"type": "text", "text": "Hi", "cache_control": EPHEMERAL}, {"type": "text", "text": ""}],
        tools=[{**TOOL, "cache_control": EPHEMERAL}, deferred],
        system=[
            {"type": "text", "text": "S.", "cache_control": EPHEMERAL},
            {"type": "text", "text": ""},
        ],
    )


def test_an_empty_text_from_a_message_is_never_sent_so_never_marked() -> None:
    message = messages_from_dict({"role": "user", "content": [{"type": "text", "text": "Hi"}]})
    message[0].parts.append(type(message[0].parts[0])(""))
    body = encode(message, tools=False)
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "Hi", "cache_control": EPHEMERAL}
    ]


def test_a_native_tool_gets_its_breakpoint_on_a_copy() -> None:
    search = {"type": "web_search_20250305", "name": "web_search"}
    body = encode([LangMessage.text("user", "News?")], native_tools=[search])
    assert body["tools"] == [TOOL, {**search, "cache_control": EPHEMERAL}]
    assert search == {"type": "web_search_20250305", "name": "web_search"}  # not the user's dict


def message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    usage = {"input_tokens": 10, "output_tokens": 5}
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "usage": usage,
    }


def call_reply(call_id: str, city: str) -> dict[str, Any]:
    use = {"type": "tool_use", "id": call_id, "name": "get_weather", "input": {"city": city}}
    return message([use], "tool_use")


def stripped(value: Any) -> Any:
    """``value`` without any ``cache_control`` key, at any depth."""
    if isinstance(value, dict):
        return {k: stripped(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [stripped(item) for item in value]
    return value


@pytest.mark.anyio
async def test_a_three_round_loop_moves_the_final_breakpoint_and_keeps_none_in_messages() -> None:
    replies = [
        call_reply("toolu_1", "Oslo"),
        call_reply("toolu_2", "Rome"),
        message([{"type": "text", "text": "4C and 18C."}], "end_turn"),
    ]
    sent: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=replies[len(sent) - 1])

    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return {"Oslo": "4C", "Rome": "18C"}[city]

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=client)
        result = await lang.ask(
            "Oslo, then Rome?", functions=[get_weather], system_prompt="Be brief.", stream=False
        )

    assert result.answer == "4C and 18C."
    tool_decl = {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": sent[0]["tools"][0]["input_schema"],
        "cache_control": EPHEMERAL,
    }
    system = [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    user = {"role": "user", "content": [{"type": "text", "text": "Oslo, then Rome?"}]}
    use_1 = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
    use_2 = {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Rome"}}
    result_1 = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "4C"}
    result_2 = {"type": "tool_result", "tool_use_id": "toolu_2", "content": "18C"}

    def marked(block: dict[str, Any]) -> dict[str, Any]:
        return {**block, "cache_control": EPHEMERAL}

    for body in sent:
        assert (body["tools"], body["system"]) == ([tool_decl], system)
    assert sent[0]["messages"] == [{"role": "user", "content": [marked(user["content"][0])]}]
    assert sent[1]["messages"] == [
        user,
        {"role": "assistant", "content": [use_1]},
        {"role": "user", "content": [marked(result_1)]},
    ]
    assert sent[2]["messages"] == [
        user,
        {"role": "assistant", "content": [use_1]},
        {"role": "user", "content": [result_1]},
        {"role": "assistant", "content": [use_2]},
        {"role": "user", "content": [marked(result_2)]},
    ]
    assert [json.dumps(body).count("cache_control") for body in sent] == [3, 3, 3]
    # Nothing of the breakpoints is kept in the conversation.
    states = [part.state for kept in result.messages for part in kept.parts]
    assert "cache_control" not in repr(states)
    assert "cache_control" not in json.dumps(result.messages.to_dicts())
    replay = ProviderRequest(
        "claude-sonnet-4-5", list(result.messages), [], merge_options(cache=False), False
    )
    again = AnthropicProvider(api_key="k").encode(replay)
    assert "cache_control" not in json.dumps(again.body)
    assert stripped(sent[2]["messages"]) == again.body["messages"][:5]


def test_automatic_markers_before_a_users_one_hour_marker_take_the_hour_too() -> None:
    # cache="auto" would write 5-minute markers on the tools and system, before the user's
    # 1-hour one: the API refuses a shorter TTL ahead of a longer one.
    messages = from_dicts(
        {"role": "system", "content": "S."},
        {"role": "user", "content": [{"type": "text", "text": "Doc.", "cache_control": HOUR}]},
        {"role": "assistant", "content": "Read."},
        {"role": "user", "content": "Oslo?"},
    )
    body = encode(messages)
    assert body["tools"] == [{**TOOL, "cache_control": HOUR}]
    assert body["system"] == [{"type": "text", "text": "S.", "cache_control": HOUR}]
    assert body["messages"][0]["content"][0]["cache_control"] == HOUR
    assert body["messages"][-1]["content"][-1]["cache_control"] == EPHEMERAL  # after: 5m is fine
