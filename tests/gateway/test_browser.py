"""What a web page can make a browser send: the Host, Origin and content-type rules, and CORS.

A keyless gateway serves its own machine only, and a browser on that machine is a client any
web page can drive: without keys only loopback ``Host`` values are served (a DNS-rebound name
is not), a cross-site ``Origin`` is refused, and POST bodies must be declared JSON, which no
form or ``no-cors`` fetch can send without a preflight. CORS answers only configured origins.
Called in process through ``httpx.ASGITransport``, on asyncio and trio.
"""

from __future__ import annotations

import httpx
import pytest

from aiwrapper import ConfigError, Lang
from aiwrapper.gateway import Gateway

pytestmark = pytest.mark.anyio

HI = b'{"model": "local", "messages": [{"role": "user", "content": "Hi"}]}'
JSON = {"content-type": "application/json"}


def _client(gateway: Gateway, address: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000")


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
@pytest.mark.parametrize("keys", [None, ["gw-key"]])
async def test_a_post_body_not_declared_json_is_a_415(
    content_type: str | None, keys: list[str] | None
) -> None:
    lang = Lang.scripted(["never"])
    headers = {"authorization": "Bearer gw-key"}
    if content_type is not None:
        headers["content-type"] = content_type
    async with _client(Gateway({"local": lang}, api_keys=keys)) as client:
        chat = await client.post("/v1/chat/completions", content=HI, headers=headers)
        messages = await client.post("/v1/messages", content=HI, headers=headers)
    assert chat.status_code == 415
    assert chat.json()["error"]["type"] == "invalid_request_error"
    assert "application/json" in chat.json()["error"]["message"]
    assert messages.status_code == 415
    assert messages.json()["type"] == "error"
    assert lang.requests == []


@pytest.mark.parametrize("content_type", ["application/json", "Application/JSON; charset=utf-8"])
async def test_a_json_content_type_is_served(content_type: str) -> None:
    async with _client(Gateway({"local": Lang.scripted(["hi"])})) as client:
        reply = await client.post(
            "/v1/chat/completions", content=HI, headers={"content-type": content_type}
        )
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["content"] == "hi"


@pytest.mark.parametrize(
    "host",
    ["attacker.example", "attacker.example:8000", "127.0.0.1.nip.io", "192.168.1.5:8000", "[::2]"],
)
async def test_without_keys_a_host_that_is_not_loopback_is_refused(host: str) -> None:
    lang = Lang.scripted(["never"])
    async with _client(Gateway({"local": lang})) as client:
        post = await client.post("/v1/chat/completions", content=HI, headers={**JSON, "host": host})
        models = await client.get("/v1/models", headers={"host": host})
    assert (post.status_code, models.status_code) == (403, 403)
    assert post.json()["error"]["type"] == "permission_error"
    assert "Host" in post.json()["error"]["message"]
    assert lang.requests == []


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]", "[::1]:8000"]
)
async def test_without_keys_loopback_hosts_are_served(host: str) -> None:
    async with _client(Gateway({"local": Lang.scripted(["hi"])})) as client:
        reply = await client.post(
            "/v1/chat/completions", content=HI, headers={**JSON, "host": host}
        )
    assert reply.status_code == 200


async def test_with_keys_any_host_is_served() -> None:
    gateway = Gateway({"local": Lang.scripted(["hi"])}, api_keys=["gw-key"])
    headers = {**JSON, "host": "gateway.example.com", "x-api-key": "gw-key"}
    async with _client(gateway, "203.0.113.9") as client:
        reply = await client.post("/v1/chat/completions", content=HI, headers=headers)
    assert reply.status_code == 200


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://127.0.0.1.evil.example"]
)
async def test_without_keys_a_cross_site_origin_is_refused(origin: str) -> None:
    lang = Lang.scripted(["never"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post(
            "/v1/chat/completions", content=HI, headers={**JSON, "origin": origin}
        )
        fetched = await client.get("/v1/models", headers={"sec-fetch-site": "cross-site"})
    assert reply.status_code == 403
    assert reply.json()["error"]["type"] == "permission_error"
    assert "access-control-allow-origin" not in reply.headers
    assert fetched.status_code == 403
    assert lang.requests == []


async def test_without_keys_a_page_on_this_machine_is_served_without_cors_headers() -> None:
    async with _client(Gateway({"local": Lang.scripted(["hi"])})) as client:
        reply = await client.post(
            "/v1/chat/completions", content=HI, headers={**JSON, "origin": "http://localhost:3000"}
        )
    assert reply.status_code == 200
    assert "access-control-allow-origin" not in reply.headers


async def test_without_a_cors_policy_a_preflight_gets_no_cors_headers() -> None:
    preflight = {"origin": "https://app.example", "access-control-request-method": "POST"}
    gateway = Gateway({"local": Lang.scripted([])}, api_keys=["gw-key"])
    async with _client(gateway) as client:
        reply = await client.options("/v1/chat/completions", headers=preflight)
    assert reply.status_code == 403
    assert not any(name.startswith("access-control-") for name in reply.headers)


async def test_a_configured_origin_gets_a_preflight_answer_and_cors_headers() -> None:
    gateway = Gateway(
        {"local": Lang.scripted(["hi"])},
        api_keys=["gw-key"],
        cors_origins=["https://app.example"],
    )
    preflight = {
        "origin": "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, x-stainless-os",
    }
    async with _client(gateway) as client:
        allowed = await client.options("/v1/chat/completions", headers=preflight)
        other = await client.options(
            "/v1/chat/completions", headers={**preflight, "origin": "https://evil.example"}
        )
        served = await client.post(
            "/v1/chat/completions",
            content=HI,
            headers={**JSON, "origin": "https://app.example", "x-api-key": "gw-key"},
        )
        unlisted = await client.post(
            "/v1/chat/completions",
            content=HI,
            headers={**JSON, "origin": "https://evil.example", "x-api-key": "gw-key"},
        )
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert allowed.headers["access-control-allow-methods"] == "GET, POST, OPTIONS"
    assert (
        allowed.headers["access-control-allow-headers"]
        == "authorization, content-type, x-stainless-os"
    )
    assert allowed.headers["vary"] == "Origin"
    assert other.status_code == 403
    assert "access-control-allow-origin" not in other.headers
    assert served.status_code == 200
    assert served.headers["access-control-allow-origin"] == "https://app.example"
    assert "retry-after" in served.headers["access-control-expose-headers"]
    assert "access-control-allow-origin" not in unlisted.headers


async def test_without_keys_a_configured_origin_is_served() -> None:
    gateway = Gateway({"local": Lang.scripted(["hi"])}, cors_origins=["https://app.example"])
    async with _client(gateway) as client:
        reply = await client.post(
            "/v1/chat/completions", content=HI, headers={**JSON, "origin": "https://app.example"}
        )
    assert reply.status_code == 200
    assert reply.headers["access-control-allow-origin"] == "https://app.example"


@pytest.mark.parametrize(
    ("origins", "keys"),
    [(["*"], None), (["app.example"], None), (["https://app.example/path"], ["k"]), ([5], ["k"])],
)
def test_a_cors_origin_that_is_not_one_is_a_config_error(
    origins: list[object], keys: list[str] | None
) -> None:
    with pytest.raises(ConfigError, match="cors_origins"):
        Gateway({}, api_keys=keys, cors_origins=origins)  # type: ignore[arg-type]


async def test_with_keys_every_origin_may_be_allowed() -> None:
    gateway = Gateway({"local": Lang.scripted(["hi"])}, api_keys=["k"], cors_origins=["*"])
    headers = {**JSON, "origin": "https://any.example", "x-api-key": "k"}
    async with _client(gateway) as client:
        reply = await client.post("/v1/chat/completions", content=HI, headers=headers)
    assert reply.headers["access-control-allow-origin"] == "https://any.example"
