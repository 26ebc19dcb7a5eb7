"""The ``Lang`` factories: each hands its keywords to its provider package's builder."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from aiwrapper import ConfigError, Lang
from aiwrapper.providers._http_model import HttpModel

_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def _http(lang: Lang) -> HttpModel:
    assert isinstance(lang.model, HttpModel)
    return lang.model


@pytest.mark.parametrize(
    ("factory", "provider", "model", "read_timeout"),
    [
        (lambda: Lang.openai(api_key="k"), "openai", "gpt-4o-mini", 60.0),
        (lambda: Lang.anthropic(api_key="k"), "anthropic", "claude-sonnet-4-5", 60.0),
        (lambda: Lang.gemini(api_key="k"), "gemini", "gemini-2.5-flash", 60.0),
        (lambda: Lang.ollama(), "ollama", "qwen3", 300.0),
        (
            lambda: Lang.openai_compatible("http://127.0.0.1:8080/v1", model="m"),
            "openai-compatible",
            "m",
            60.0,
        ),
    ],
)
def test_each_factory_has_its_providers_defaults(
    factory: Any, provider: str, model: str, read_timeout: float
) -> None:
    http = _http(factory())
    assert (http.name, http.model, http.transport.timeout.read) == (provider, model, read_timeout)
    assert (http.transport.max_retries, http.transport.retry_base_delay) == (2, 0.5)


def test_the_transport_settings_reach_the_transport() -> None:
    http = _http(Lang.ollama("llama3", timeout=5.0, max_retries=0, retry_max_delay=1.0))
    transport = http.transport
    assert (http.model, transport.timeout.read, transport.max_retries) == ("llama3", 5.0, 0)
    assert transport.retry_max_delay == 1.0


async def _never(request: httpx.Request) -> httpx.Response:
    raise AssertionError("no request is sent")


@pytest.mark.parametrize(
    ("lang", "attribute", "value"),
    [
        (lambda: Lang.anthropic(api_key="k", betas=["b1", "b2"]), "betas", ("b1", "b2")),
        (lambda: Lang.anthropic(api_key="k", version="2024-01-01"), "version", "2024-01-01"),
        (lambda: Lang.anthropic(api_key="k", default_max_tokens=77), "default_max_tokens", 77),
        (lambda: Lang.gemini(api_key="k", api_version="v1"), "api_version", "v1"),
        (lambda: Lang.ollama(keep_alive="10m"), "keep_alive", "10m"),
        (lambda: Lang.ollama(tool_calls_in_content=False), "tool_calls_in_content", False),
    ],
)
def test_a_providers_own_keywords_reach_the_provider(
    lang: Any, attribute: str, value: object
) -> None:
    assert getattr(_http(lang()).provider, attribute) == value


def test_a_key_read_from_a_file_loses_its_newline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "  sk-ant-test\n")
    assert _http(Lang.anthropic()).provider.api_key == "sk-ant-test"  # type: ignore[attr-defined]


def test_a_borrowed_client_is_used_as_is() -> None:
    client = httpx.AsyncClient(transport=httpx.MockTransport(_never))
    http = _http(Lang.gemini(api_key="k", http_client=client))
    assert http.transport._borrowed is client


def test_an_unknown_aiwrapper_provider_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIWRAPPER_PROVIDER", "openia")
    with pytest.raises(ConfigError, match=r"AIWRAPPER_PROVIDER='openia' is not one of \["):
        Lang.from_env()


def test_aiwrapper_provider_picks_ollama_with_its_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIWRAPPER_PROVIDER", "ollama")
    monkeypatch.delenv("AIWRAPPER_MODEL", raising=False)
    lang = Lang.from_env(options={"temperature": 0.5})
    assert (lang.provider, lang.model.model, lang.options) == (
        "ollama",
        "qwen3",
        {"temperature": 0.5},
    )


def test_keys_are_tried_in_order_openai_first(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*_KEYS, "AIWRAPPER_PROVIDER", "AIWRAPPER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "g")
    assert Lang.from_env().provider == "gemini"
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    assert Lang.from_env().provider == "openai"
