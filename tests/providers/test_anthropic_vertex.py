"""Claude on Vertex AI: the Messages wire at Vertex's URL, as Anthropic's Vertex client sends it.

The same Messages body without ``model`` and with ``anthropic_version: vertex-2023-10-16``,
posted to ``.../publishers/anthropic/models/{model}:streamRawPredict`` (``:rawPredict`` when
not streamed) with a Google bearer token; answers, streamed or whole, are Anthropic's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

from aiwrapper import AuthenticationError, Lang, LangOptions, VertexConfig, tool
from aiwrapper._conversation._messages import LangMessage
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.anthropic import AnthropicProvider

from ..vendor_sdks import anthropic

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures"
VERTEX = VertexConfig(project="my-proj", location="us-east5", access_token="ya29.tok")
MODEL = "claude-sonnet-4-5@20250929"


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: The city's name.
    """
    return f"Sunny in {city}"


def encoded(stream: bool, vertex: VertexConfig = VERTEX) -> tuple[str, dict[str, str], bytes]:
    provider = AnthropicProvider(api_key=None, vertex=vertex)
    request = ProviderRequest(
        MODEL,
        [LangMessage.text("user", "Weather in Oslo?")],
        [get_weather],
        merge_options({"max_tokens": 1024}),
        stream=stream,
    )
    call = provider.encode(request)
    return call.url, call.headers, json.dumps(call.body, separators=(",", ":")).encode()


def official(body: dict[str, Any], *, location: str = "us-east5") -> httpx2.Request:
    """The request Anthropic's own Vertex client sends for the same Messages body."""
    sent: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(200, json=json.loads((FIXTURES / "anthropic/text.json").read_text()))

    client = anthropic.AnthropicVertex(
        region=location,
        project_id="my-proj",
        access_token="ya29.tok",
        http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
        max_retries=0,
    )
    answer_ = client.messages.create(**body)
    if body.get("stream"):
        answer_.close()  # the request is what is compared: its stream is never read
    return sent[0]


def sent_by_anthropics_client(ours: dict[str, Any], location: str = "us-east5") -> httpx2.Request:
    """What Anthropic's Vertex client sends given the Messages body ``ours`` came from."""
    body = {key: value for key, value in ours.items() if key != "anthropic_version"}
    return official({**body, "model": MODEL}, location=location)


@pytest.mark.parametrize("stream", [True, False])
def test_the_request_is_the_one_anthropics_vertex_client_sends(stream: bool) -> None:
    url, headers, body = encoded(stream)
    ours = json.loads(body)
    theirs = sent_by_anthropics_client(ours)
    assert url == str(theirs.url)
    # The client fills anthropic_version with its own release's API version; Vertex's
    # documented value, which both Google's and Anthropic's Vertex pages require, is ours.
    assert ours.pop("anthropic_version") == "vertex-2023-10-16"
    theirs_body = json.loads(theirs.content)
    assert theirs_body.pop("anthropic_version")
    assert ours == theirs_body
    assert headers["Authorization"] == theirs.headers["authorization"] == "Bearer ya29.tok"


@pytest.mark.parametrize("stream", [True, False])
def test_the_request_matches_its_fixture_byte_for_byte(stream: bool) -> None:
    url, headers, body = encoded(stream)
    name = "request_stream" if stream else "request_whole"
    fixture = json.loads((FIXTURES / f"anthropic_vertex/{name}.json").read_text())
    assert url == fixture["url"]
    assert body == fixture["body"].encode()
    assert headers == {"content-type": "application/json", "Authorization": "Bearer ya29.tok"}


@pytest.mark.parametrize(
    ("location", "host"),
    [
        ("global", "https://aiplatform.googleapis.com"),
        ("us", "https://aiplatform.us.rep.googleapis.com"),
        ("eu", "https://aiplatform.eu.rep.googleapis.com"),
        ("europe-west1", "https://europe-west1-aiplatform.googleapis.com"),
    ],
)
def test_each_location_has_the_host_anthropics_client_uses(location: str, host: str) -> None:
    vertex = VertexConfig(project="my-proj", location=location, access_token="ya29.tok")
    url, _, body = encoded(False, vertex)
    theirs = sent_by_anthropics_client(json.loads(body), location)
    assert url.startswith(host + "/v1/projects/my-proj/locations/")
    assert url == str(theirs.url)


def test_a_base_url_replaces_the_vertex_host() -> None:
    provider = AnthropicProvider(api_key=None, vertex=VERTEX, base_url="http://127.0.0.1:9/")
    request = ProviderRequest(
        MODEL, [LangMessage.text("user", "hi")], [], merge_options(), stream=False
    )
    assert provider.encode(request).url == (
        "http://127.0.0.1:9/v1/projects/my-proj/locations/us-east5"
        f"/publishers/anthropic/models/{MODEL}:rawPredict"
    )


def test_the_api_key_is_never_sent_to_vertex(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    lang = Lang.anthropic(MODEL, vertex=VERTEX)
    headers = lang.model.provider.encode(  # type: ignore[attr-defined]
        ProviderRequest(MODEL, [LangMessage.text("user", "hi")], [], merge_options(), stream=False)
    ).headers
    assert "x-api-key" not in headers
    assert "sk-ant-secret" not in json.dumps(headers)


def vertex_server(sent: list[httpx.Request], answers: list[tuple[int, str]]) -> httpx.AsyncClient:
    """A local Vertex endpoint answering each request with the next fixture."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        status, fixture = answers[len(sent) - 1]
        content = (FIXTURES / fixture).read_bytes()
        kind = "text/event-stream" if fixture.endswith(".sse") else "application/json"
        return httpx.Response(status, content=content, headers={"content-type": kind})

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


@pytest.mark.parametrize("stream", [True, False])
async def test_a_tool_loop_runs_on_claude_on_vertex(stream: bool) -> None:
    sent: list[httpx.Request] = []
    ext = "sse" if stream else "json"
    client = vertex_server(
        sent, [(200, f"anthropic/parallel_tool_use.{ext}"), (200, f"anthropic/text.{ext}")]
    )
    lang = Lang.anthropic(MODEL, vertex=VERTEX, http_client=client, max_retries=0)
    result = await lang.ask("Weather?", options=LangOptions(functions=[get_weather], stream=stream))
    method = "streamRawPredict" if stream else "rawPredict"
    assert [r.url.path for r in sent] == [
        f"/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/{MODEL}:{method}"
    ] * 2
    assert [c.name for c in result.function_calls] == ["get_weather", "get_weather"]
    second = json.loads(sent[1].content)
    assert "model" not in second
    assert second["anthropic_version"] == "vertex-2023-10-16"
    assert [b["type"] for b in second["messages"][-1]["content"]] == ["tool_result"] * 2
    assert result.answer


async def test_a_static_token_refused_is_an_authentication_error() -> None:
    sent: list[httpx.Request] = []
    client = vertex_server(sent, [(401, "anthropic_vertex/unauthenticated.json")])
    lang = Lang.anthropic(MODEL, vertex=VERTEX, http_client=client, max_retries=0)
    with pytest.raises(AuthenticationError) as caught:
        await lang.ask("hi")
    assert len(sent) == 1  # a token the user gave cannot be refreshed: no second try
    assert "ya29.tok" not in str(caught.value)


def test_a_vertex_anthropic_route_reads_its_project_and_region(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aiwrapper.providers._registry import build_for_route

    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "route-proj")
    monkeypatch.setenv("CLOUD_ML_REGION", "europe-west1")
    model = build_for_route("vertex-anthropic", MODEL)
    vertex = model.provider.vertex  # type: ignore[attr-defined]
    assert (vertex.project, vertex.location, model.model) == ("route-proj", "europe-west1", MODEL)
    assert model.provider.auth is not None  # type: ignore[attr-defined]


def test_a_vertex_anthropic_route_without_a_project_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aiwrapper import ConfigError
    from aiwrapper.providers._registry import build_for_route

    for name in ("GOOGLE_CLOUD_PROJECT", "ANTHROPIC_VERTEX_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="GOOGLE_CLOUD_PROJECT"):
        build_for_route("vertex-anthropic", MODEL)
