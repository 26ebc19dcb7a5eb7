"""An image crosses the gateway from one vendor's client to another vendor's wire, both ways.

The official ``openai`` SDK sends an image to routes backed by the Anthropic and Gemini wires;
the official ``anthropic`` SDK sends one to routes backed by Chat Completions and Gemini, in a
prompt and inside a tool result. Each backend (a recording ``httpx.MockTransport``) must get
the same bytes in its own wire's place.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aiwrapper.gateway import Gateway

from ..providers.chat_media import RED_PNG
from ..seeds.wires import WIRES, recording_client
from ..vendor_sdks import anthropic, openai
from .harness import served

RED_B64 = base64.b64encode(RED_PNG).decode()
RED_URL = "data:image/png;base64," + RED_B64
GATEWAY = Gateway({})
Body = dict[str, Any]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


def route(wire: str, answers: list[bytes]) -> list[Body]:
    """Route ``wire`` to a backend of that wire answering ``answers``; the bodies it got."""
    sent: list[Body] = []
    client = recording_client(WIRES[wire], answers, sent, over_socket=False)
    GATEWAY.routes[wire] = WIRES[wire].make(client)
    return sent


def _anthropic_prompt(body: Body) -> list[Any]:
    return body["messages"][0]["content"]


def _gemini_prompt(body: Body) -> list[Any]:
    return body["contents"][0]["parts"]


def _openai_prompt(body: Body) -> list[Any]:
    return body["messages"][-1]["content"]


ANTHROPIC_IMAGE = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": RED_B64},
}
GEMINI_IMAGE = {"inlineData": {"mimeType": "image/png", "data": RED_B64}}
OPENAI_IMAGE = {"type": "image_url", "image_url": {"url": RED_URL}}


def _without_cache_marks(blocks: list[Any]) -> list[Any]:
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in blocks]


FROM_OPENAI: dict[str, tuple[Callable[[Body], list[Any]], list[Any]]] = {
    "anthropic": (_anthropic_prompt, [{"type": "text", "text": "What is it?"}, ANTHROPIC_IMAGE]),
    "gemini": (_gemini_prompt, [{"text": "What is it?"}, GEMINI_IMAGE]),
}


@pytest.mark.parametrize("wire", sorted(FROM_OPENAI))
def test_an_image_from_an_openai_client_reaches_the_wire_in_its_own_place(
    base_url: str, wire: str
) -> None:
    sent = route(wire, [WIRES[wire].text("A red dot.", "m")])
    content = [
        {"type": "text", "text": "What is it?"},
        {"type": "image_url", "image_url": {"url": RED_URL}},
    ]
    with openai.OpenAI(base_url=base_url + "/v1", api_key="-", max_retries=0) as client:
        answer = client.chat.completions.create(
            model=wire, messages=[{"role": "user", "content": content}]
        )
    assert answer.choices[0].message.content == "A red dot."
    read, expected = FROM_OPENAI[wire]
    assert _without_cache_marks(read(sent[0])) == expected


FROM_ANTHROPIC: dict[str, tuple[Callable[[Body], list[Any]], list[Any]]] = {
    "openai": (_openai_prompt, [{"type": "text", "text": "What is it?"}, OPENAI_IMAGE]),
    "gemini": (_gemini_prompt, [{"text": "What is it?"}, GEMINI_IMAGE]),
}


@pytest.mark.parametrize("wire", sorted(FROM_ANTHROPIC))
def test_an_image_from_an_anthropic_client_reaches_the_wire_in_its_own_place(
    base_url: str, wire: str
) -> None:
    sent = route(wire, [WIRES[wire].text("A red dot.", "m")])
    content = [{"type": "text", "text": "What is it?"}, ANTHROPIC_IMAGE]
    with anthropic.Anthropic(base_url=base_url, api_key="-", max_retries=0) as client:
        answer = client.messages.create(
            model=wire, max_tokens=100, messages=[{"role": "user", "content": content}]
        )
    assert [block.text for block in answer.content if block.type == "text"] == ["A red dot."]
    read, expected = FROM_ANTHROPIC[wire]
    assert read(sent[0]) == expected


def test_an_image_in_an_anthropic_tool_result_reaches_chat_completions_after_the_tool_message(
    base_url: str,
) -> None:
    calls = [("call_1", "snapshot", '{"city":"Oslo"}')]
    openai_wire = WIRES["openai"]
    sent = route("openai", [openai_wire.calls(calls, False, "m"), openai_wire.text("Clear.", "m")])
    tool = {
        "name": "snapshot",
        "description": "The sky over a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    with anthropic.Anthropic(base_url=base_url, api_key="-", max_retries=0) as client:
        ask: list[Any] = [{"role": "user", "content": "Show Oslo's sky."}]
        turn = client.messages.create(model="openai", max_tokens=100, messages=ask, tools=[tool])
        (use,) = [block for block in turn.content if block.type == "tool_use"]
        result = {
            "type": "tool_result",
            "tool_use_id": use.id,
            "content": [{"type": "text", "text": "Clear."}, ANTHROPIC_IMAGE],
        }
        answer = client.messages.create(
            model="openai",
            max_tokens=100,
            messages=[
                *ask,
                {"role": "assistant", "content": [use.model_dump(exclude_none=True)]},
                {"role": "user", "content": [result]},
            ],
            tools=[tool],
        )
    assert [block.text for block in answer.content if block.type == "text"] == ["Clear."]
    body = sent[1]
    tool_message, follow_up = body["messages"][-2:]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "call_1"
    assert follow_up["role"] == "user"
    assert follow_up["content"][-1] == OPENAI_IMAGE
