"""The gateway mounts the front-ends the provider packages export, and knows no wire by name.

A made-up wire (``POST /v1/echo``) handed to the gateway through the registry is served like
the real ones; the registry refuses two packages claiming one path, and anything but exactly
one default front-end. Routes to presets and providers are built by name for ``serve``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from aiwrapper import ConfigError, Lang, LangMessage, LangMessages, LangResult
from aiwrapper.gateway import Gateway
from aiwrapper.gateway import _app as app
from aiwrapper.providers import _registry, anthropic, openai, openai_responses
from aiwrapper.providers._registry import Mounts, build_for_route, frontends, mounts_of
from aiwrapper.providers._serving import ClientRequest, GatewayError, StreamEncoder

pytestmark = pytest.mark.anyio


class EchoFront:
    """A wire of its own: ``{"model", "say"}`` in, ``{"echo"}`` out, errors as ``{"oops"}``."""

    name = "echo"
    overloaded_status = 503

    def decode(self, body: Any) -> ClientRequest:
        messages = LangMessages([LangMessage.text("user", str(body["say"]))])
        return ClientRequest(route=str(body["model"]), messages=messages)

    def response(self, request: ClientRequest, result: LangResult) -> dict[str, Any]:
        return {"echo": result.answer, "route": request.route}

    def encoder(self, request: ClientRequest) -> StreamEncoder:
        raise NotImplementedError  # never streamed here

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return {"oops": error.kind, "status": error.status}

    def model_list(self, owners: dict[str, str]) -> dict[str, Any]:
        return {"routes": sorted(owners)}


def test_every_served_path_comes_from_its_wire_package() -> None:
    mounts = frontends()
    assert mounts.by_path == {
        **openai.FRONTENDS,
        **openai_responses.FRONTENDS,
        **anthropic.FRONTENDS,
    }
    assert sorted(mounts.by_path) == ["/v1/chat/completions", "/v1/messages", "/v1/responses"]
    assert mounts.default is openai.DEFAULT_FRONTEND


async def test_a_wire_the_registry_finds_is_served_without_a_line_in_the_gateway(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    echo = EchoFront()
    monkeypatch.setattr(app, "frontends", lambda: Mounts({"/v1/echo": echo}, echo))
    lang = Lang.scripted(["heard you"])
    transport = httpx.ASGITransport(app=Gateway({"local": lang}), client=("127.0.0.1", 5000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        served = await client.post("/v1/echo", json={"model": "local", "say": "hello"})
        listed = await client.get("/v1/models")
        missing = await client.post("/v1/chat/completions", json={"model": "local"})
    assert served.json() == {"echo": "heard you", "route": "local"}
    assert lang.requests[0].messages[-1].content == "hello"
    assert listed.json() == {"routes": ["local"]}
    assert (missing.status_code, missing.json()) == (404, {"oops": "not_found", "status": 404})


def test_two_packages_serving_one_path_are_refused() -> None:
    echo = EchoFront()
    first = SimpleNamespace(FRONTENDS={"/v1/echo": echo}, DEFAULT_FRONTEND=echo)
    second = SimpleNamespace(FRONTENDS={"/v1/echo": EchoFront()})
    with pytest.raises(ConfigError, match="two provider packages serve POST /v1/echo"):
        mounts_of([first, second])


@pytest.mark.parametrize("defaults", [0, 2])
def test_anything_but_one_default_front_end_is_refused(defaults: int) -> None:
    packages = [SimpleNamespace(DEFAULT_FRONTEND=EchoFront()) for _ in range(defaults)]
    with pytest.raises(ConfigError, match=f"{defaults} provider packages export"):
        mounts_of([SimpleNamespace(), *packages])


def test_a_route_is_built_from_a_provider_or_a_preset_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    by_provider = build_for_route("anthropic", "claude-haiku-4-5")
    by_preset = build_for_route("vllm", "qwen3")
    assert (by_provider.name, by_provider.model) == ("anthropic", "claude-haiku-4-5")
    assert by_preset.model == "qwen3"
    assert by_preset.provider.url == "http://localhost:8000/v1/chat/completions"
    with pytest.raises(ConfigError, match="nowhere"):
        build_for_route("nowhere", "m")
    assert _registry.HTTP_PROVIDERS == ("openai", "anthropic", "gemini", "ollama", "bedrock")
