"""The sampling options only some wires have: sent where the wire has them, refused by name.

``seed``, ``presence_penalty``, ``frequency_penalty``, ``logit_bias``, ``user`` and
``top_k`` each reach the request body of every provider whose API has the field, under its
name there; toward a provider without it they are a ``ConfigError`` naming the option and
the provider, before any request, never dropped.
"""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper import ConfigError, Lang
from aiwrapper._conversation._messages import LangMessage
from aiwrapper._run._contract import Provider, ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.anthropic import AnthropicProvider
from aiwrapper.providers.gemini import GeminiProvider
from aiwrapper.providers.ollama import OllamaProvider
from aiwrapper.providers.openai import OpenAIProvider
from aiwrapper.providers.openai_responses import ResponsesProvider

USER = [LangMessage.text("user", "Hi")]
ALL = {
    "seed": 7,
    "presence_penalty": 0.5,
    "frequency_penalty": -0.5,
    "logit_bias": {"50256": -100},
    "user": "user-42",
    "top_k": 40,
}


def _body(provider: Provider, model: str, **options: Any) -> dict[str, Any]:
    request = ProviderRequest(model, USER, [], merge_options(options), stream=False)
    body = provider.encode(request).body
    assert isinstance(body, dict)
    return body


def _sent(name: str, **options: Any) -> dict[str, Any]:
    providers: dict[str, tuple[Provider, str]] = {
        "openai": (OpenAIProvider(api_key="k"), "gpt-4o"),
        "responses": (ResponsesProvider(api_key="k"), "gpt-4o"),
        "anthropic": (AnthropicProvider(api_key="k"), "claude-sonnet-4-5"),
        "gemini": (GeminiProvider(api_key="k"), "gemini-2.5-flash"),
        "ollama": (OllamaProvider(), "qwen3"),
    }
    provider, model = providers[name]
    return _body(provider, model, **options)


def test_openai_chat_sends_seed_penalties_logit_bias_and_user() -> None:
    wanted = {k: v for k, v in ALL.items() if k != "top_k"}
    body = _sent("openai", **wanted)
    assert {key: body[key] for key in wanted} == wanted


def test_anthropic_sends_top_k_and_the_user_as_metadata() -> None:
    body = _sent("anthropic", top_k=40, user="user-42")
    assert (body["top_k"], body["metadata"]) == (40, {"user_id": "user-42"})


def test_gemini_sends_seed_penalties_and_top_k_in_its_generation_config() -> None:
    body = _sent("gemini", seed=7, presence_penalty=0.5, frequency_penalty=-0.5, top_k=40)
    config = body["generationConfig"]
    assert (config["seed"], config["presencePenalty"], config["frequencyPenalty"]) == (7, 0.5, -0.5)
    assert config["topK"] == 40


def test_ollama_sends_seed_penalties_and_top_k_as_runner_options() -> None:
    body = _sent("ollama", seed=7, presence_penalty=0.5, frequency_penalty=-0.5, top_k=40)
    assert {
        k: body["options"][k] for k in ("seed", "presence_penalty", "frequency_penalty", "top_k")
    } == {
        "seed": 7,
        "presence_penalty": 0.5,
        "frequency_penalty": -0.5,
        "top_k": 40,
    }


def test_the_responses_api_sends_the_user() -> None:
    assert _sent("responses", user="user-42")["user"] == "user-42"


REFUSED = [
    ("openai", "top_k"),
    ("responses", "seed"),
    ("responses", "presence_penalty"),
    ("responses", "logit_bias"),
    ("responses", "top_k"),
    ("anthropic", "seed"),
    ("anthropic", "frequency_penalty"),
    ("anthropic", "logit_bias"),
    ("gemini", "logit_bias"),
    ("gemini", "user"),
    ("ollama", "logit_bias"),
    ("ollama", "user"),
]


@pytest.mark.parametrize(("provider", "option"), REFUSED)
def test_an_option_the_wire_lacks_is_a_config_error_naming_it(provider: str, option: str) -> None:
    with pytest.raises(ConfigError, match=f"{option} is not supported by"):
        _sent(provider, **{option: ALL[option]})


def test_anthropic_thinking_takes_no_top_k() -> None:
    with pytest.raises(ConfigError, match="top_k"):
        _sent("anthropic", top_k=40, thinking=2048, max_tokens=4096)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("seed", 1.5),
        ("presence_penalty", 3),
        ("frequency_penalty", "high"),
        ("logit_bias", {"1": 500}),
        ("logit_bias", [1]),
        ("user", ""),
        ("top_k", 0),
    ],
)
def test_a_value_out_of_range_is_a_config_error_naming_the_option(option: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=option):
        Lang.scripted(["x"]).ask_sync("Hi", **{option: value})


def test_the_scripted_model_records_the_options() -> None:
    lang = Lang.scripted(["x"])
    lang.ask_sync("Hi", seed=7, top_k=3, user="u")
    options = lang.requests[0].options
    assert (options.seed, options.top_k, options.user) == (7, 3, "u")
