"""OpenAI prompt caching: a ``prompt_cache_key`` stable for a conversation, 24-hour retention."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._messages import LangMessage
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.openai import COMPATIBLE_PROFILE, PRESETS, OpenAIProvider
from aiwrapper.providers.openai_responses import ResponsesProvider

from .responses_sdk import assert_sdk_accepts
from .test_cache_prefixes import get_weather, run_loop

OPENING = [LangMessage.text("system", "Be brief."), LangMessage.text("user", "Oslo?")]


def encode(provider: Any, messages: list[LangMessage], **options: Any) -> dict[str, Any]:
    request = ProviderRequest("gpt-4.1", messages, [], merge_options(options), False)
    body: dict[str, Any] = provider.encode(request).body
    return body


PROVIDERS = [OpenAIProvider(api_key="k"), ResponsesProvider(api_key="k")]


@pytest.mark.anyio
@pytest.mark.parametrize("wire", ["chat", "responses"])
async def test_the_key_is_the_same_in_every_round_of_a_tool_loop(wire: str) -> None:
    keys = [json.loads(raw)["prompt_cache_key"] for raw in await run_loop(wire)]
    assert keys[0].startswith("aiw-")
    assert len(keys[0]) == 28
    assert keys == [keys[0]] * 3


@pytest.mark.parametrize("provider", PROVIDERS, ids=["chat", "responses"])
def test_a_later_run_of_the_same_conversation_keeps_the_key(provider: Any) -> None:
    first = encode(provider, OPENING)
    later = encode(provider, [*OPENING, LangMessage.text("assistant", "4C."), *OPENING[1:]])
    assert later["prompt_cache_key"] == first["prompt_cache_key"]
    other = encode(provider, [OPENING[0], LangMessage.text("user", "Rome?")])
    assert other["prompt_cache_key"] != first["prompt_cache_key"]


@pytest.mark.parametrize("provider", PROVIDERS, ids=["chat", "responses"])
def test_extended_asks_for_24_hour_retention_and_false_sends_neither(provider: Any) -> None:
    extended = encode(provider, OPENING, cache="extended")
    assert extended["prompt_cache_retention"] == "24h"
    assert extended["prompt_cache_key"] == encode(provider, OPENING)["prompt_cache_key"]
    assert "prompt_cache_retention" not in encode(provider, OPENING)
    off = encode(provider, OPENING, cache=False)
    assert ("prompt_cache_key" in off, "prompt_cache_retention" in off) == (False, False)


def test_the_responses_body_with_cache_fields_is_one_the_sdk_accepts() -> None:
    body = encode(ResponsesProvider(api_key="k"), OPENING, cache="extended")
    assert_sdk_accepts(body)


@pytest.mark.parametrize("provider", PROVIDERS, ids=["chat", "responses"])
def test_a_key_and_retention_the_user_set_are_kept(provider: Any) -> None:
    mine = {"prompt_cache_key": "tenant-7", "prompt_cache_retention": "in_memory"}
    body = encode(provider, OPENING, cache="extended", extra_body=mine)
    assert (body["prompt_cache_key"], body["prompt_cache_retention"]) == ("tenant-7", "in_memory")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_compatible_servers_get_neither_field(name: str) -> None:
    base_url, _, profile = PRESETS[name]
    for provider in (
        OpenAIProvider(api_key="k", base_url=base_url, profile=profile),
        ResponsesProvider(api_key="k", base_url=base_url, profile=profile),
    ):
        body = encode(provider, OPENING, cache="extended")
        assert not {"prompt_cache_key", "prompt_cache_retention"} & set(body)
    body = encode(OpenAIProvider(api_key="k", profile=COMPATIBLE_PROFILE), OPENING)
    assert "prompt_cache_key" not in body


@pytest.mark.anyio
async def test_a_second_run_continuing_the_conversation_sends_the_same_key() -> None:
    sent: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        message = {"role": "assistant", "content": f"Answer {len(sent)}."}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return httpx.Response(200, json={"id": "c", "choices": [choice]})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.openai("gpt-4.1", api_key="k", api="chat", http_client=client)
        options: dict[str, Any] = {"functions": [get_weather], "stream": False}
        first = await lang.ask("Oslo?", system_prompt="Be brief.", **options)
        await lang.chat(first.messages.add_user("And Rome?"), **options)
    assert len(sent) == 2
    assert sent[1]["messages"][:2] == sent[0]["messages"]  # the same opening, continued
    assert sent[0]["prompt_cache_key"] == sent[1]["prompt_cache_key"]
