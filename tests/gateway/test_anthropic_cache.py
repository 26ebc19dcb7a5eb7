"""An Anthropic client's cache breakpoints reach an Anthropic backend, and no other."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from aiwrapper.gateway import Gateway

from ..seeds import wires
from ..vendor_sdks import anthropic
from .harness import served

WIRES, Body, recording_client = wires.WIRES, wires.Body, wires.recording_client
GATEWAY = Gateway({})
MARK = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
SYSTEM = [
    {"type": "text", "text": "You are a weather bot.", "cache_control": HOUR},
    {"type": "text", "text": "Be brief."},
]
MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "Oslo?", "cache_control": MARK}]},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "w", "input": {"c": "Oslo"}}],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": "4C",
                "cache_control": MARK,
            }
        ],
    },
]
TOOL = {"name": "w", "input_schema": {"type": "object", "properties": {"c": {"type": "string"}}}}


@pytest.fixture(scope="module")
def client() -> Iterator[anthropic.Anthropic]:
    with served(GATEWAY) as url, anthropic.Anthropic(base_url=url, api_key="-") as client:
        yield client


def ask(client: anthropic.Anthropic, wire: str) -> Body:
    sent: list[Body] = []
    http = recording_client(WIRES[wire], [WIRES[wire].text("4C.", "m")], sent, over_socket=False)
    GATEWAY.routes[wire] = WIRES[wire].make(http)
    answer: Any = client.messages.create(
        model=wire,
        max_tokens=100,
        system=SYSTEM,
        messages=MESSAGES,
        tools=[TOOL],  # type: ignore[arg-type]
    )
    assert answer.content[0].text == "4C."
    (body,) = sent
    return body


def test_an_anthropic_backend_gets_the_clients_breakpoints_and_an_automatic_one(
    client: anthropic.Anthropic,
) -> None:
    body = ask(client, "anthropic")
    # One block each, the client's TTL kept; the one slot left goes to the last system block
    # (the final message already carries the client's own).
    assert body["system"] == [SYSTEM[0], {**SYSTEM[1], "cache_control": MARK}]
    assert body["messages"] == [
        MESSAGES[0],
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "w", "input": {"c": "Oslo"}}],
        },
        MESSAGES[2],
    ]
    assert "cache_control" not in body["tools"][-1]  # 3 of the client's + 1: the limit
    assert json.dumps(body).count("cache_control") == 4


@pytest.mark.parametrize("wire", ["openai", "gemini", "ollama", "openai-responses"])
def test_other_backends_never_see_a_breakpoint(client: anthropic.Anthropic, wire: str) -> None:
    body = ask(client, wire)
    text = json.dumps(body)
    assert "cache_control" not in text
    assert "You are a weather bot." in text
    assert "Be brief." in text
