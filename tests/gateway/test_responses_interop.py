"""aiwrapper's own Responses provider (``api="responses"``) against the gateway's Responses front.

Both ends of the wire are this project's: the client runs its tool loop over
``POST /v1/responses`` to the gateway (uvicorn on 127.0.0.1), which serves it from a scripted
backend. The items one side writes, the other reads back: the reasoning summary as thinking,
calls by ``call_id``, results paired with their calls.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aiwrapper import Lang, tool
from aiwrapper.gateway import Gateway

from .harness import served

pytestmark = pytest.mark.anyio

TWO_CALLS = {
    "thinking": "Two cities.",
    "text": "Checking both.",
    "function_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_oslo"},
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_paris"},
    ],
}
GATEWAY = Gateway({})


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return {"Oslo": "2°", "Paris": "11°"}[city]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.mark.parametrize("stream", [False, True])
async def test_the_responses_provider_runs_a_tool_loop_through_the_gateway(
    base_url: str, stream: bool
) -> None:
    backend = Lang.scripted([TWO_CALLS, "Oslo 2°, Paris 11°."])
    GATEWAY.routes["weather"] = backend
    client = Lang.openai_compatible(
        base_url + "/v1", model="weather", api_key="-", api="responses", max_retries=0
    )
    try:
        result = await client.chat(
            "Weather in Oslo and Paris?", functions=[get_weather], stream=stream
        )
    finally:
        await client.aclose()
    assert result.answer == "Oslo 2°, Paris 11°."
    assert [c.id for c in result.messages[1].tool_calls] == ["call_oslo", "call_paris"]
    assert result.messages[1].thinking == "Two cities."
    _, second = backend.requests
    turn = second.messages[1]
    assert turn.content == "Checking both."
    assert [(c.id, c.arguments) for c in turn.tool_calls] == [
        ("call_oslo", {"city": "Oslo"}),
        ("call_paris", {"city": "Paris"}),
    ]
    assert [(m.role, m.tool_call_id, m.content) for m in second.messages[2:]] == [
        ("tool", "call_oslo", "2°"),
        ("tool", "call_paris", "11°"),
    ]
