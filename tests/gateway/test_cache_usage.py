"""Cached input read and written by a backend reaches each front-end in its own usage shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from aiwrapper.gateway import Gateway

from ..seeds import wires
from ..vendor_sdks import anthropic, openai
from .harness import served

WIRES, Body, recording_client = wires.WIRES, wires.Body, wires.recording_client
GATEWAY = Gateway({})
PLAIN = b'"usage": {"input_tokens": 5, "output_tokens": 1}'
CACHED = (
    b'"usage": {"input_tokens": 5, "cache_creation_input_tokens": 100, '
    b'"cache_read_input_tokens": 1000, "output_tokens": 1}'
)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(autouse=True)
def cached_backend() -> None:
    answer = WIRES["anthropic"].text("Sunny.", "m")
    assert PLAIN in answer
    answers = [answer.replace(PLAIN, CACHED)] * 2
    client = recording_client(WIRES["anthropic"], answers, [], over_socket=False)
    GATEWAY.routes["claude"] = WIRES["anthropic"].make(client)


@pytest.mark.parametrize("stream", [False, True])
def test_an_anthropic_client_gets_uncached_input_and_the_cache_fields(
    base_url: str, stream: bool
) -> None:
    ask: dict[str, Any] = {
        "model": "claude",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "Hi"}],
    }
    with anthropic.Anthropic(base_url=base_url, api_key="-", max_retries=0) as client:
        if stream:
            with client.messages.stream(**ask) as events:
                usage = events.get_final_message().usage
        else:
            usage = client.messages.create(**ask).usage
    assert usage.input_tokens == 5  # the wire's input_tokens: uncached input only
    assert usage.cache_creation_input_tokens == 100
    assert usage.cache_read_input_tokens == 1000
    assert usage.output_tokens == 4


@pytest.mark.parametrize("stream", [False, True])
def test_an_openai_client_gets_cached_tokens_within_prompt_tokens(
    base_url: str, stream: bool
) -> None:
    ask: dict[str, Any] = {"model": "claude", "messages": [{"role": "user", "content": "Hi"}]}
    with openai.OpenAI(base_url=base_url + "/v1", api_key="-", max_retries=0) as client:
        if stream:
            chunks = client.chat.completions.create(
                **ask, stream=True, stream_options={"include_usage": True}
            )
            (usage,) = [chunk.usage for chunk in chunks if chunk.usage is not None]
        else:
            usage = client.chat.completions.create(**ask).usage
    assert usage is not None
    assert usage.prompt_tokens == 1105  # cached and written input included, as on the wire
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 1000


def test_a_responses_client_gets_cached_tokens_in_its_details(base_url: str) -> None:
    with openai.OpenAI(base_url=base_url + "/v1", api_key="-", max_retries=0) as client:
        usage = client.responses.create(model="claude", input="Hi").usage
    assert usage is not None
    assert usage.input_tokens == 1105
    assert usage.input_tokens_details.cached_tokens == 1000
