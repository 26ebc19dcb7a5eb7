"""``api=`` on ``Lang.openai`` and ``Lang.openai_compatible``: which wire each model gets."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from aiwrapper import ConfigError, Lang, NotFoundError
from aiwrapper.providers.openai import OpenAIProvider
from aiwrapper.providers.openai_responses import ResponsesProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_responses"


@pytest.mark.parametrize(
    "model", ["o1-pro", "o3-pro", "o3-pro-2025-06-10", "gpt-5-pro", "gpt-5-codex"]
)
def test_auto_picks_responses_for_the_models_only_it_serves(model: str) -> None:
    provider = Lang.openai(model, api_key="k").model.provider  # type: ignore[attr-defined]
    assert isinstance(provider, ResponsesProvider)
    assert provider.url == "https://api.openai.com/v1/responses"


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4.1", "o3", "gpt-5", "o3-pro-max"])
def test_auto_keeps_chat_completions_for_every_other_model(model: str) -> None:
    provider = Lang.openai(model, api_key="k").model.provider  # type: ignore[attr-defined]
    assert isinstance(provider, OpenAIProvider)
    assert provider.url == "https://api.openai.com/v1/chat/completions"


def test_api_chooses_the_wire_whatever_the_model() -> None:
    assert Lang.openai("gpt-4o-mini", api_key="k", api="responses").provider == "openai-responses"
    assert Lang.openai("o3-pro", api_key="k", api="chat").provider == "openai"


def test_compatible_servers_speak_responses_when_asked() -> None:
    lang = Lang.openai_compatible(preset="ollama", model="gpt-oss:20b", api="responses")
    provider = lang.model.provider  # type: ignore[attr-defined]
    assert isinstance(provider, ResponsesProvider)
    assert provider.url == "http://localhost:11434/v1/responses"
    assert lang.provider == "ollama-responses"
    chat = Lang.openai_compatible(preset="ollama", model="gpt-oss:20b")
    assert chat.provider == "ollama"


def test_an_unknown_api_is_a_config_error_naming_the_choices() -> None:
    with pytest.raises(ConfigError, match="api='response' is not one of chat, responses, auto"):
        Lang.openai("o3", api_key="k", api="response")  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_a_responses_lang_answers_through_its_factory() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = (FIXTURES / "text.sse").read_bytes()
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.openai("o3", api_key="sk-test", api="responses", http_client=client)
        result = await lang.ask("Weather?", system_prompt="Be terse.")
    assert result.answer == "Oslo is 4 °C and Rome 19 °C."
    assert result.model == "o3-2025-04-16"
    assert (result.usage.input_tokens, result.usage.cached_input_tokens) == (520, 256)
    (request,) = seen
    assert request.url == "https://api.openai.com/v1/responses"
    assert json.loads(request.content)["instructions"] == "Be terse."


@pytest.mark.anyio
async def test_a_missing_stored_item_is_a_not_found_error_and_never_retried() -> None:
    message = (
        "Item with id 'rs_68f3a1c3aa' not found. Items are not persisted when `store` is set "
        "to false. Try again with `store` set to true, or remove this item from your input."
    )
    error = {"message": message, "type": "invalid_request_error", "param": "input", "code": None}
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(404, json={"error": error}, headers={"x-request-id": "req_1"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.openai("o3", api_key="k", api="responses", http_client=client, max_retries=2)
        with pytest.raises(NotFoundError, match="Items are not persisted") as caught:
            await lang.ask("Hi")
    assert len(seen) == 1
    assert (caught.value.provider, caught.value.request_id) == ("openai-responses", "req_1")
