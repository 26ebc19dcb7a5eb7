"""Auth, the loopback rule, the body size limit and keeping upstream keys out of sight.

The gateway is called in process through ``httpx.ASGITransport`` (which lets a test choose the
client's address), on asyncio and trio.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import ConfigError, Lang
from aiwrapper.gateway import Gateway

pytestmark = pytest.mark.anyio

HI = {"model": "local", "messages": [{"role": "user", "content": "Hi"}]}
UPSTREAM_KEY = "sk-upstream-0123456789abcdef"


def _client(gateway: Gateway, address: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


async def test_with_keys_a_request_without_one_is_a_401() -> None:
    gateway = Gateway({"local": Lang.scripted(["hi"])}, api_keys=["gw-1", "gw-2"])
    async with _client(gateway) as client:
        missing = await client.post("/v1/chat/completions", json=HI)
        wrong = await client.post("/v1/messages", json=HI, headers={"x-api-key": "gw-3"})
        health = await client.get("/healthz")
    assert missing.status_code == 401
    assert missing.json()["error"]["type"] == "authentication_error"
    assert wrong.status_code == 401
    assert wrong.json() == {
        "type": "error",
        "error": {"type": "authentication_error", "message": wrong.json()["error"]["message"]},
    }
    assert health.status_code == 200


async def test_with_keys_any_of_them_is_accepted_from_anywhere() -> None:
    gateway = Gateway({"local": Lang.scripted(["one", "two"])}, api_keys=["gw-1", "gw-2"])
    async with _client(gateway, "203.0.113.9") as client:
        bearer = await client.post(
            "/v1/chat/completions", json=HI, headers={"Authorization": "Bearer gw-2"}
        )
        header = await client.post(
            "/v1/messages", json={**HI, "max_tokens": 5}, headers={"x-api-key": "gw-1"}
        )
    assert bearer.json()["choices"][0]["message"]["content"] == "one"
    assert header.json()["content"] == [{"type": "text", "text": "two"}]


@pytest.mark.parametrize("keys", [[""], ["ok", "  "]])
def test_an_empty_key_is_refused_at_construction(keys: list[str]) -> None:
    with pytest.raises(ConfigError, match="non-empty"):
        Gateway({}, api_keys=keys)


async def test_a_single_key_string_is_one_key_not_its_letters() -> None:
    gateway = Gateway({"local": Lang.scripted(["hi"])}, api_keys="gw-key")
    async with _client(gateway) as client:
        letter = await client.get("/v1/models", headers={"x-api-key": "g"})
        whole = await client.get("/v1/models", headers={"x-api-key": "gw-key"})
    assert (letter.status_code, whole.status_code) == (401, 200)


async def test_without_keys_a_client_on_another_machine_is_refused() -> None:
    lang = Lang.scripted(["never"])
    gateway = Gateway({"local": lang})
    async with _client(gateway, "192.0.2.7") as client:
        refused = await client.post("/v1/chat/completions", json=HI)
    async with _client(gateway, "::1") as client:
        served = await client.get("/v1/models")
    assert refused.status_code == 403
    assert refused.json()["error"]["type"] == "permission_error"
    assert lang.requests == []
    assert served.json()["data"][0]["id"] == "local"


async def test_a_body_over_the_limit_is_a_413() -> None:
    lang = Lang.scripted(["never"])
    gateway = Gateway({"local": lang}, max_body_bytes=1000)
    huge = {**HI, "messages": [{"role": "user", "content": "x" * 2000}]}
    async with _client(gateway) as client:
        declared = await client.post("/v1/chat/completions", json=huge)
        anthropic = await client.post("/v1/messages", json=huge)
    assert declared.status_code == 413
    assert declared.json()["error"]["type"] == "invalid_request_error"
    assert anthropic.json()["error"]["type"] == "request_too_large"
    assert lang.requests == []


async def test_the_upstream_key_is_in_no_response_and_no_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def upstream(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
        echo = {"error": {"message": f"Incorrect API key provided: {UPSTREAM_KEY}"}}
        return httpx.Response(401, json=echo)

    backend = Lang.openai(
        api_key=UPSTREAM_KEY,
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(upstream)),
    )
    gateway = Gateway({"local": backend})
    caplog.set_level(logging.DEBUG, logger="aiwrapper")
    async with _client(gateway) as client:
        replies = [
            await client.post("/v1/chat/completions", json=HI),
            await client.post("/v1/chat/completions", json={**HI, "stream": True}),
            await client.post("/v1/messages", json={**HI, "max_tokens": 5}),
        ]
    assert [r.status_code for r in replies] == [502, 502, 502]
    assert all(UPSTREAM_KEY not in r.text for r in replies)
    lines = [record.getMessage() for record in caplog.records]  # the http lines too
    access = [r.getMessage() for r in caplog.records if r.name == "aiwrapper.gateway"]
    assert "127.0.0.1 POST /v1/chat/completions route=local status=502" in access[1]
    assert any(line.startswith("openai model=gpt-") for line in lines)
    assert all(UPSTREAM_KEY[3:] not in line for line in lines)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned[0] == (
        "upstream failure from api.openai.com: AuthenticationError 401 "
        "(Incorrect API key provided: [redacted])"
    )


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/chat/completions", b"not json", 400),
        ("/v1/chat/completions", b"[1, 2]", 400),
        ("/v1/responses", b"not json", 400),
        ("/v1/responses", b'{"input": "Hi"}', 400),
        ("/v1/nothing", b"{}", 404),
    ],
)
async def test_what_is_not_a_request_is_refused(path: str, body: bytes, status: int) -> None:
    gateway = Gateway({"local": Lang.scripted([])})
    async with _client(gateway) as client:
        reply = await client.post(path, content=body, headers={"content-type": "application/json"})
    assert reply.status_code == status
    error: dict[str, Any] = reply.json()["error"]
    assert error["type"] in ("invalid_request_error",)


def _failing(exc: Exception | None = None, status: int = 200) -> Lang:
    def upstream(request: httpx.Request) -> httpx.Response:
        if exc is not None:
            raise exc
        return httpx.Response(status, json={"error": {"message": "no"}})

    client = httpx.AsyncClient(transport=httpx.MockTransport(upstream))
    return Lang.openai(api_key=UPSTREAM_KEY, max_retries=0, http_client=client)


@pytest.mark.parametrize(
    ("backend", "openai_status", "anthropic_status"),
    [
        (lambda: _failing(httpx.ReadTimeout("slow")), 504, 504),
        (lambda: _failing(httpx.ConnectError("refused")), 502, 502),
        (lambda: _failing(status=503), 503, 529),
        (lambda: _failing(status=404), 502, 502),
        (lambda: _failing(status=422), 400, 400),
    ],
    ids=["timeout", "unreachable", "overloaded", "upstream-404", "upstream-422"],
)
async def test_upstream_failures_map_to_each_wires_status(
    backend: Any, openai_status: int, anthropic_status: int
) -> None:
    gateway = Gateway({"local": backend()})
    async with _client(gateway) as client:
        openai_reply = await client.post("/v1/chat/completions", json=HI)
        anthropic_reply = await client.post("/v1/messages", json={**HI, "max_tokens": 5})
    assert openai_reply.status_code == openai_status
    assert anthropic_reply.status_code == anthropic_status
    assert anthropic_reply.json()["type"] == "error"


async def test_a_call_id_holding_the_mark_without_valid_state_is_a_400() -> None:
    lang = Lang.scripted(["never"])
    odd = "call_1__aws_not*base64"
    call = {"id": odd, "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": odd, "content": "done"},
    ]
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post(
            "/v1/chat/completions", json={"model": "local", "messages": messages}
        )
    assert reply.status_code == 400
    assert lang.requests == []


def _echoing(status: int, message: str, **settings: Any) -> Lang:
    def upstream(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"error": {"message": message}})

    client = httpx.AsyncClient(transport=httpx.MockTransport(upstream))
    if "base_url" in settings:
        return Lang.openai_compatible(model="m", max_retries=0, http_client=client, **settings)
    return Lang.openai(api_key=UPSTREAM_KEY, max_retries=0, http_client=client)


async def test_an_upstream_400_quoting_the_routes_key_is_forwarded_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    echo = f"key {UPSTREAM_KEY} (Bearer {UPSTREAM_KEY}) may not ask for that"
    gateway = Gateway({"local": _echoing(400, echo)})
    async with _client(gateway) as client:
        whole = await client.post("/v1/chat/completions", json=HI)
        streamed = await client.post("/v1/messages", json={**HI, "max_tokens": 5, "stream": True})
    assert whole.status_code == 400
    assert whole.json()["error"]["message"] == (
        "the backend refused the request: key [redacted] (Bearer [redacted]) may not ask for that"
    )
    assert UPSTREAM_KEY not in streamed.text
    assert "[redacted]" in streamed.json()["error"]["message"]


async def test_a_base_urls_userinfo_and_query_are_never_forwarded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    base = "https://alice:s3cr3t-pass@llm.example/v1"
    echo = "bad request to https://alice:s3cr3t-pass@llm.example/v1?api_key=abcdef1234 by alice"
    gateway = Gateway({"local": _echoing(400, echo, base_url=base)})
    caplog.set_level(logging.DEBUG, logger="aiwrapper.gateway")
    async with _client(gateway) as client:
        reply = await client.post("/v1/chat/completions", json=HI)
    message = reply.json()["error"]["message"]
    assert message == (
        "the backend refused the request: bad request to https://[redacted]@llm.example/v1 "
        "by [redacted]"
    )


async def test_an_unreachable_upstream_is_logged_with_its_cause_and_host(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    client = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    backend = Lang.openai(
        api_key=UPSTREAM_KEY,
        base_url="http://bob:hunter22@10.0.0.5:8001/v1",
        max_retries=0,
        http_client=client,
    )
    caplog.set_level(logging.INFO, logger="aiwrapper.gateway")
    async with _client(Gateway({"local": backend})) as gateway_client:
        reply = await gateway_client.post("/v1/chat/completions", json=HI)
    assert reply.status_code == 502
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == [
        "upstream failure from 10.0.0.5:8001: ConnectionError (Could not reach "
        "http://[redacted]@10.0.0.5:8001/v1/chat/completions: [Errno 111] Connection refused)"
    ]


@pytest.mark.parametrize(
    "path", ["/v1/x%0Afake 127.0.0.1 POST /v1/ok status=200", "/v1/a%0D%1B[31mred%E2%80%A8"]
)
async def test_control_characters_in_the_path_are_escaped_in_the_access_log(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="aiwrapper.gateway")
    async with _client(Gateway({"local": Lang.scripted([])})) as client:
        reply = await client.get(path)
    assert reply.status_code == 404
    (line,) = [r.getMessage() for r in caplog.records if r.name == "aiwrapper.gateway"]
    for control in ("\n", "\r", "\x1b", "\u2028"):
        assert control not in line
    assert "\\x0a" in line or "\\x0d" in line
    assert "\n" not in reply.json()["error"]["message"]


async def test_a_non_ascii_key_matches_as_utf8_only() -> None:
    gateway = Gateway({"local": Lang.scripted(["hi"])}, api_keys=["clé-ünïcode"])
    async with _client(gateway) as client:
        utf8 = await client.get("/v1/models", headers={"x-api-key": "clé-ünïcode".encode()})
        latin1 = await client.get(
            "/v1/models", headers={"x-api-key": "clé-ünïcode".encode("latin-1")}
        )
        bearer = await client.get(
            "/v1/models", headers={"authorization": b"Bearer " + "clé-ünïcode".encode()}
        )
    assert (utf8.status_code, latin1.status_code, bearer.status_code) == (200, 401, 200)


@pytest.mark.parametrize(
    ("retry_after", "header"),
    [(float("inf"), "86400"), (10**400, "86400"), (1e300, "86400"), (2.1, "3"), (-5.0, "0")],
    ids=["inf", "400-digits", "1e300", "2.1", "negative"],
)
async def test_a_huge_retry_after_is_a_capped_whole_number(
    retry_after: float, header: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiwrapper import RateLimitError

    async def limited(*args: Any, **kwargs: Any) -> Any:
        raise RateLimitError(
            "slow down", provider="gemini", status_code=429, retry_after=retry_after
        )

    lang = Lang.scripted(["never"])
    monkeypatch.setattr(lang, "chat", limited)
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/chat/completions", json=HI)
    assert reply.status_code == 429
    assert reply.headers["retry-after"] == header


async def test_a_nan_retry_after_sends_no_header(monkeypatch: pytest.MonkeyPatch) -> None:
    from aiwrapper import RateLimitError

    async def limited(*args: Any, **kwargs: Any) -> Any:
        raise RateLimitError("slow", provider="gemini", status_code=429, retry_after=float("nan"))

    lang = Lang.scripted(["never"])
    monkeypatch.setattr(lang, "chat", limited)
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/chat/completions", json=HI)
    assert reply.status_code == 429
    assert "retry-after" not in reply.headers


async def test_a_json_body_nested_past_the_parsers_depth_is_a_400() -> None:
    lang = Lang.scripted(["never"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post(
            "/v1/chat/completions",
            content=b"[" * 100_000,
            headers={"content-type": "application/json"},
        )
    assert reply.status_code == 400
    assert reply.json()["error"]["message"] == "the body is not valid JSON"


async def test_a_body_that_trickles_past_the_body_timeout_is_a_408() -> None:
    lang = Lang.scripted(["never"])
    gateway = Gateway({"local": lang}, body_timeout=0.2)
    stalled = anyio.Event()

    async def slow() -> AsyncIterator[bytes]:
        yield b'{"model": "local",'
        await stalled.wait()  # never set: the rest never comes
        yield b"}"

    async with _client(gateway) as client:
        reply = await client.post(
            "/v1/chat/completions", content=slow(), headers={"content-type": "application/json"}
        )
    assert reply.status_code == 408
    assert reply.json()["error"]["message"] == "the request body did not arrive within 0.2 s"
    assert lang.requests == []


@pytest.mark.parametrize(
    "limits", [{"max_body_bytes": 0}, {"body_timeout": -1.0}, {"body_timeout": float("nan")}]
)
def test_a_limit_that_is_not_positive_is_a_config_error(limits: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match="must be a positive number"):
        Gateway({}, **limits)
