"""HttpTransport: retries, error mapping, streaming, and client ownership.

Most tests run through ``httpx.MockTransport``; faults that need a real socket (a peer closing
mid-body, a server too slow, a refused connection, keep-alive reuse) use a small threaded
server on 127.0.0.1 started by the test itself.
"""

from __future__ import annotations

import gc
import gzip
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import _errors as errors
from aiwrapper._wire import _http as http_module
from aiwrapper._wire._http import HttpTransport, retry_delay
from aiwrapper._wire._httpcall import HttpCall
from aiwrapper.providers._base import error_class_for_status, make_error

pytestmark = pytest.mark.anyio

URL = "https://api.test/v1/chat"


def make_call(
    url: str = URL, *, stream: bool = False, body: dict[str, Any] | None = None
) -> HttpCall:
    return HttpCall(
        url=url,
        headers={"authorization": "Bearer k", "x-extra": "1"},
        body={"model": "m", "text": "héllo"} if body is None else body,
        stream=stream,
    )


def on_error(status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
    cls = error_class_for_status(status)
    return make_error(
        cls, body.decode(), provider="test", status=status, body=body, headers=headers
    )


class Server:
    """A MockTransport handler answering from a script, recording every request."""

    def __init__(self, *responses: httpx.Response | Exception) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(response, Exception):
            raise response
        return response

    def transport(self, **kwargs: Any) -> HttpTransport:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        return HttpTransport(http_client=client, retry_base_delay=0, **kwargs)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the delays slept between retries instead of sleeping."""
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    monkeypatch.setattr(http_module, "sleep", fake_sleep)
    return delays


# --- request_json -------------------------------------------------------------------------


async def test_request_json_posts_compact_utf8_json_with_headers() -> None:
    server = Server(httpx.Response(200, json={"ok": True}))
    result = await server.transport().request_json(make_call(), on_error)
    assert result == {"ok": True}
    [request] = server.requests
    assert request.method == "POST"
    assert str(request.url) == URL
    assert request.content == '{"model":"m","text":"héllo"}'.encode()
    assert request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == "Bearer k"
    assert request.headers["x-extra"] == "1"


async def test_server_errors_are_retried_until_success(sleeps: list[float]) -> None:
    server = Server(httpx.Response(500), httpx.Response(500), httpx.Response(200, json=[1]))
    assert await server.transport().request_json(make_call(), on_error) == [1]
    assert len(server.requests) == 3
    assert len(sleeps) == 2


async def test_exhausted_retries_raise_the_provider_error_with_status_and_body() -> None:
    server = Server(httpx.Response(503, content=b"busy", headers={"x-request-id": "r1"}))
    with pytest.raises(errors.OverloadedError) as info:
        await server.transport(max_retries=2).request_json(make_call(), on_error)
    assert len(server.requests) == 3
    assert info.value.status_code == 503
    assert info.value.body == b"busy"
    assert info.value.request_id == "r1"


async def test_max_retries_zero_sends_once() -> None:
    server = Server(httpx.Response(500, content=b"boom"))
    with pytest.raises(errors.ServerError):
        await server.transport(max_retries=0).request_json(make_call(), on_error)
    assert len(server.requests) == 1


async def test_rate_limit_honors_retry_after_ms(sleeps: list[float]) -> None:
    limited = httpx.Response(429, headers={"retry-after-ms": "250", "retry-after": "9"})
    server = Server(limited, httpx.Response(200, json={}))
    assert await server.transport().request_json(make_call(), on_error) == {}
    assert len(server.requests) == 2
    assert sleeps == [0.25]


async def test_retry_after_seconds_is_capped_at_60(sleeps: list[float]) -> None:
    server = Server(
        httpx.Response(429, headers={"retry-after": "120"}), httpx.Response(200, json=1)
    )
    assert await server.transport().request_json(make_call(), on_error) == 1
    assert sleeps == [60.0]


async def test_backoff_doubles_with_jitter_up_to_the_cap(sleeps: list[float]) -> None:
    server = Server(httpx.Response(502))
    transport = HttpTransport(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        max_retries=4,
        retry_base_delay=1.0,
        retry_max_delay=3.0,
    )
    with pytest.raises(errors.ServerError):
        await transport.request_json(make_call(), on_error)
    assert len(server.requests) == 5
    bounds = [(0.75, 1.0), (1.5, 2.0), (2.25, 3.0), (2.25, 3.0)]
    assert len(sleeps) == 4
    for delay, (low, high) in zip(sleeps, bounds, strict=True):
        assert low <= delay <= high


async def test_x_should_retry_false_stops_a_retryable_status(sleeps: list[float]) -> None:
    server = Server(httpx.Response(500, headers={"x-should-retry": "false"}))
    with pytest.raises(errors.ServerError):
        await server.transport().request_json(make_call(), on_error)
    assert len(server.requests) == 1


async def test_x_should_retry_true_retries_a_client_error(sleeps: list[float]) -> None:
    server = Server(
        httpx.Response(400, headers={"x-should-retry": "true"}), httpx.Response(200, json=2)
    )
    assert await server.transport().request_json(make_call(), on_error) == 2
    assert len(server.requests) == 2


def final_error(status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
    error = on_error(status, body, headers)
    error.retryable = False  # what a provider says of an exhausted quota, say
    return error


async def test_an_error_its_provider_calls_final_is_not_retried(sleeps: list[float]) -> None:
    body = {"error": {"type": "insufficient_quota", "code": "insufficient_quota"}}
    server = Server(httpx.Response(429, json=body))
    with pytest.raises(errors.RateLimitError) as info:
        await server.transport().request_json(make_call(), final_error)
    assert len(server.requests) == 1
    assert json.loads(info.value.body) == body


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_client_errors_are_not_retried(status: int, sleeps: list[float]) -> None:
    server = Server(httpx.Response(status, content=b"no"))
    with pytest.raises(error_class_for_status(status)):
        await server.transport().request_json(make_call(), on_error)
    assert len(server.requests) == 1
    assert sleeps == []


async def test_connect_errors_are_retried(sleeps: list[float]) -> None:
    server = Server(httpx.ConnectError("refused"), httpx.Response(200, json=3))
    assert await server.transport().request_json(make_call(), on_error) == 3
    assert len(server.requests) == 2


async def test_persistent_connect_error_becomes_connection_error(sleeps: list[float]) -> None:
    server = Server(httpx.ConnectError("refused"))
    with pytest.raises(errors.ConnectionError) as info:
        await server.transport().request_json(make_call(), on_error)
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert len(server.requests) == 3
    assert "https://api.test/v1/chat" in str(info.value)


async def test_read_timeout_becomes_request_timeout_and_is_not_retried() -> None:
    server = Server(httpx.ReadTimeout("slow"))
    with pytest.raises(errors.RequestTimeoutError) as info:
        await server.transport().request_json(make_call(), on_error)
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)
    assert len(server.requests) == 1


async def test_invalid_json_on_success_is_a_stream_error() -> None:
    server = Server(httpx.Response(200, content=b"<html>oops"))
    with pytest.raises(errors.StreamError) as info:
        await server.transport().request_json(make_call(), on_error)
    assert isinstance(info.value.__cause__, ValueError)


async def test_query_string_is_kept_out_of_error_messages() -> None:
    server = Server(httpx.ConnectError("refused"))
    transport = server.transport(max_retries=0)
    with pytest.raises(errors.ConnectionError) as info:
        await transport.request_json(make_call(URL + "?key=secret"), on_error)
    assert "secret" not in str(info.value)


async def test_unserializable_body_and_bad_url_are_config_errors() -> None:
    transport = Server(httpx.Response(200, json=1)).transport()
    with pytest.raises(errors.ConfigError):
        await transport.request_json(make_call(body={"x": object()}), on_error)
    with pytest.raises(errors.ConfigError):
        await transport.request_json(make_call("api.test/no-scheme"), on_error)


async def test_a_dropped_connection_is_resent_once_at_once_then_counts_as_a_retry(
    sleeps: list[float],
) -> None:
    server = Server(httpx.RemoteProtocolError("Server disconnected without sending a response."))
    with pytest.raises(errors.ConnectionError):
        await server.transport(max_retries=0).request_json(make_call(), on_error)
    assert len(server.requests) == 2
    assert sleeps == []
    server = Server(httpx.ReadError("reset"))
    with pytest.raises(errors.ConnectionError):
        await server.transport(max_retries=2).request_json(make_call(), on_error)
    assert len(server.requests) == 4  # the free resend, then two retries with backoff
    assert len(sleeps) == 2


async def test_a_refused_connection_gets_no_free_resend(sleeps: list[float]) -> None:
    server = Server(httpx.ConnectError("refused"))
    with pytest.raises(errors.ConnectionError):
        await server.transport(max_retries=0).request_json(make_call(), on_error)
    assert len(server.requests) == 1


async def test_a_non_ascii_header_value_is_a_config_error_that_hides_the_value() -> None:
    server = Server(httpx.Response(200, json=1))
    call = HttpCall(
        url=URL, headers={"authorization": "Bearer sk-\u2026secret"}, body={}, stream=False
    )
    with pytest.raises(errors.ConfigError) as info:
        await server.transport().request_json(call, on_error)
    assert "authorization" in str(info.value)
    assert "secret" not in str(info.value)
    assert server.requests == []


async def test_each_request_goes_out_with_its_own_url_and_headers() -> None:
    server = Server(httpx.Response(200, json=1))
    transport = server.transport()
    first = HttpCall(URL, {"authorization": "Bearer one"}, {}, stream=False)
    second = HttpCall(URL + "/other", {"authorization": "Bearer two", "x-a": "b"}, {}, False)
    many = [HttpCall(URL, {"x-n": str(n)}, {}, stream=False) for n in range(100)]
    for call in [first, second, first, *many, first]:
        await transport.request_json(call, on_error)
    sent = [
        (str(r.url), r.headers.get("authorization"), r.headers.get("x-a")) for r in server.requests
    ]
    assert sent[:3] == [
        (URL, "Bearer one", None),
        (URL + "/other", "Bearer two", "b"),
        (URL, "Bearer one", None),
    ]
    assert [r.headers["x-n"] for r in server.requests[3:-1]] == [str(n) for n in range(100)]
    assert sent[-1] == (URL, "Bearer one", None)
    assert all(r.headers["content-type"] == "application/json" for r in server.requests)


async def test_a_refused_header_or_url_is_refused_at_every_request() -> None:
    server = Server(httpx.Response(200, json=1))
    transport = server.transport()
    bad_header = HttpCall(URL, {"authorization": "Bearer k\n"}, {}, stream=False)
    bad_url = make_call("ftp://api.test/v1")
    for call in (bad_header, bad_url, bad_header, bad_url):
        with pytest.raises(errors.ConfigError):
            await transport.request_json(call, on_error)
    assert server.requests == []


async def test_a_borrowed_clients_headers_apply_as_they_change() -> None:
    server = Server(httpx.Response(200, json=1))
    client = httpx.AsyncClient(transport=httpx.MockTransport(server), timeout=7)
    transport = HttpTransport(http_client=client)
    for team in ("red", "blue"):
        client.headers["x-team"] = team
        await transport.request_json(make_call(), on_error)
    client.headers["authorization"] = "Bearer client"  # the provider's header still wins
    await transport.request_json(make_call(), on_error)
    assert [r.headers["x-team"] for r in server.requests] == ["red", "blue", "blue"]
    assert server.requests[-1].headers.get_list("authorization") == ["Bearer k"]
    assert server.requests[-1].headers["user-agent"].startswith("python-httpx/")
    assert all(r.extensions["timeout"]["read"] == 7 for r in server.requests)
    await client.aclose()


async def test_a_borrowed_clients_cookies_and_query_parameters_are_sent() -> None:
    server = Server(httpx.Response(200, json=1))
    client = httpx.AsyncClient(transport=httpx.MockTransport(server), params={"v": "2"})
    transport = HttpTransport(http_client=client)
    for session in ("one", "two"):
        client.cookies.set("session", session)
        await transport.request_json(make_call(), on_error)
    assert [r.headers["cookie"] for r in server.requests] == ["session=one", "session=two"]
    assert [str(r.url) for r in server.requests] == [URL + "?v=2"] * 2
    await client.aclose()


async def test_a_lone_surrogate_in_the_body_is_sent_escaped() -> None:
    server = Server(httpx.Response(200, json=1))
    body = {"text": "caf\u00e9 \udcff"}
    assert await server.transport().request_json(make_call(body=body), on_error) == 1
    [request] = server.requests
    assert request.content == b'{"text":"caf\\u00e9 \\udcff"}'
    assert json.loads(request.content) == body


async def test_a_borrowed_client_hook_raising_for_status_maps_to_the_provider_error() -> None:
    async def raise_for_status(response: httpx.Response) -> None:
        response.raise_for_status()

    server = Server(httpx.Response(401, json={"error": "key"}, headers={"x-request-id": "r9"}))
    client = httpx.AsyncClient(
        transport=httpx.MockTransport(server), event_hooks={"response": [raise_for_status]}
    )
    with pytest.raises(errors.AuthenticationError) as info:
        await HttpTransport(http_client=client).request_json(make_call(), on_error)
    assert info.value.status_code == 401
    assert info.value.request_id == "r9"
    assert isinstance(info.value.__cause__, httpx.HTTPStatusError)
    await client.aclose()


async def test_absurdly_nested_json_is_a_stream_error() -> None:
    server = Server(httpx.Response(200, content=b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(errors.StreamError):
        await server.transport().request_json(make_call(), on_error)


# --- stream -------------------------------------------------------------------------------


class Body(httpx.AsyncByteStream):
    """A response body that yields ``chunks`` (an exception is raised in place) and records
    whether it was closed."""

    def __init__(self, *chunks: bytes | Exception) -> None:
        self.chunks = chunks
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            if isinstance(chunk, Exception):
                raise chunk
            yield chunk

    async def aclose(self) -> None:
        self.closed = True


async def read_all(transport: HttpTransport, call: HttpCall) -> list[bytes]:
    async with transport.stream(call, on_error) as chunks:
        return [chunk async for chunk in chunks]


async def test_stream_yields_the_body_chunks_and_closes() -> None:
    body = Body(b"data: 1\n\n", b"data: 2\n\n")
    server = Server(httpx.Response(200, stream=body))
    assert await read_all(server.transport(), make_call(stream=True)) == [
        b"data: 1\n\n",
        b"data: 2\n\n",
    ]
    assert body.closed


async def test_stream_undoes_a_content_encoding() -> None:
    packed = gzip.compress(b"data: 1\n\ndata: 2\n\n")
    response = httpx.Response(200, headers={"content-encoding": "gzip"}, content=packed)
    chunks = await read_all(Server(response).transport(), make_call(stream=True))
    assert b"".join(chunks) == b"data: 1\n\ndata: 2\n\n"


async def test_stream_retries_the_response_head(sleeps: list[float]) -> None:
    server = Server(httpx.Response(529, content=b"overloaded"), httpx.Response(200, content=b"ok"))
    assert await read_all(server.transport(), make_call(stream=True)) == [b"ok"]
    assert len(server.requests) == 2


async def test_stream_error_status_raises_before_the_body() -> None:
    server = Server(httpx.Response(401, content=b'{"error":"bad key"}'))
    with pytest.raises(errors.AuthenticationError) as info:
        await read_all(server.transport(), make_call(stream=True))
    assert info.value.body == b'{"error":"bad key"}'
    assert len(server.requests) == 1


async def test_stream_read_error_mid_body_is_a_stream_error() -> None:
    server = Server(httpx.Response(200, stream=Body(b"data: 1\n\n", httpx.ReadError("reset"))))
    received: list[bytes] = []

    async def consume() -> None:
        async with server.transport().stream(make_call(stream=True), on_error) as chunks:
            async for chunk in chunks:
                received.append(chunk)

    with pytest.raises(errors.StreamError) as info:
        await consume()
    assert received == [b"data: 1\n\n"]
    assert isinstance(info.value.__cause__, httpx.ReadError)


async def test_stream_timeout_mid_body_is_a_request_timeout() -> None:
    server = Server(httpx.Response(200, stream=Body(b"x", httpx.ReadTimeout("slow"))))
    with pytest.raises(errors.RequestTimeoutError) as info:
        await read_all(server.transport(), make_call(stream=True))
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


async def test_leaving_a_stream_early_closes_the_response() -> None:
    body = Body(b"a", b"b", b"c")
    server = Server(httpx.Response(200, stream=body))
    async with server.transport().stream(make_call(stream=True), on_error) as chunks:
        async for chunk in chunks:
            assert chunk == b"a"
            break
    assert body.closed
    gc.collect()  # a generator left unfinished would now warn (an error under pytest)


async def test_consumer_error_propagates_unwrapped_and_closes_the_response() -> None:
    body = Body(b"a", b"b")
    server = Server(httpx.Response(200, stream=body))

    async def consume() -> None:
        async with server.transport().stream(make_call(stream=True), on_error) as chunks:
            async for _ in chunks:
                raise KeyError("consumer")

    with pytest.raises(KeyError):
        await consume()
    assert body.closed


async def test_cancelled_stream_closes_the_response() -> None:
    body = Body(b"a", b"b")
    server = Server(httpx.Response(200, stream=body))
    with anyio.CancelScope() as scope:
        async with server.transport().stream(make_call(stream=True), on_error) as chunks:
            async for _ in chunks:
                scope.cancel()
                await anyio.sleep(1)
    assert scope.cancelled_caught
    assert body.closed


# --- clients ------------------------------------------------------------------------------


async def test_borrowed_client_is_used_and_never_closed() -> None:
    server = Server(httpx.Response(200, json=1))
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    async with HttpTransport(http_client=client) as transport:
        assert await transport.request_json(make_call(), on_error) == 1
    assert not client.is_closed
    assert len(server.requests) == 1
    await client.aclose()


async def test_owned_client_is_reused_within_a_loop_and_closed_by_aclose() -> None:
    transport = HttpTransport()
    first = transport._client()
    assert transport._client() is first
    assert first.timeout == httpx.Timeout(60.0, connect=10.0, pool=None)
    await transport.aclose()
    assert first.is_closed
    second = transport._client()
    assert second is not first
    await transport.aclose()


def test_each_event_loop_gets_its_own_client() -> None:
    transport = HttpTransport()
    seen: list[httpx.AsyncClient] = []

    async def grab() -> None:
        seen.append(transport._client())
        seen.append(transport._client())

    anyio.run(grab, backend="asyncio")
    anyio.run(grab, backend="trio")
    anyio.run(grab, backend="asyncio")
    assert seen[0] is seen[1]
    assert seen[2] is seen[3]
    assert seen[4] is seen[5]
    assert len({id(seen[0]), id(seen[2]), id(seen[4])}) == 3
    # The clients of finished asyncio loops are dropped when a new client is made.
    assert seen[0] not in transport._clients.values()

    async def close() -> None:
        await transport.aclose()

    anyio.run(close, backend="asyncio")
    assert len(transport._clients) == 0


@pytest.mark.parametrize(
    ("timeout", "expected"),
    [
        (30.0, httpx.Timeout(30.0, connect=10.0, pool=None)),
        (2.0, httpx.Timeout(2.0, pool=None)),
        (None, httpx.Timeout(None, connect=10.0)),
        (httpx.Timeout(5.0, read=99.0), httpx.Timeout(5.0, read=99.0)),
    ],
)
def test_timeout_normal_form(
    timeout: float | httpx.Timeout | None, expected: httpx.Timeout
) -> None:
    assert HttpTransport(timeout=timeout).timeout == expected


def test_negative_max_retries_is_a_config_error() -> None:
    with pytest.raises(errors.ConfigError):
        HttpTransport(max_retries=-1)


# --- retry_delay --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "headers", "retryable", "expected"),
    [
        (408, {}, None, 1.5),
        (409, {}, None, 1.5),
        (429, {}, None, 1.5),
        (500, {}, None, 1.5),
        (529, {}, None, 1.5),
        (400, {}, None, None),
        (404, {}, None, None),
        (429, {"retry-after": "2"}, None, 2.0),
        (429, {"retry-after-ms": "10", "retry-after": "2"}, None, 0.01),
        (503, {"retry-after": "3600"}, None, 60.0),
        (503, {"x-should-retry": "false"}, None, None),
        (400, {"x-should-retry": "true"}, None, 1.5),
        (429, {}, False, None),  # the provider read its body: retrying cannot help
        (429, {"x-should-retry": "true"}, False, None),  # the provider's verdict wins
        (400, {"x-should-retry": "false", "retry-after": "3"}, True, 3.0),
        (429, {"retry-after-ms": "nan"}, None, 1.5),  # trio's sleep refuses NaN
        (429, {"retry-after-ms": "-5"}, None, 1.5),  # out of range: ignored, as the SDKs do
        (429, {"retry-after-ms": "soon", "retry-after": "2"}, None, 2.0),  # the other speaks
        (429, {"retry-after": "Wed, 21 Oct 2099 07:28:00"}, None, 60.0),  # zone-less: UTC
        (429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, None, 0.0),  # a past date
        (429, {"retry-after": "soon"}, None, 1.5),
        (503, {"x-should-retry": " FALSE "}, None, None),
    ],
)
def test_retry_delay_rules(
    status: int, headers: dict[str, str], retryable: bool | None, expected: float | None
) -> None:
    delay = retry_delay(status, httpx.Headers(headers), backoff=1.5, retryable=retryable)
    assert delay == expected


@pytest.mark.anyio
async def test_a_plain_http_client_never_serves_an_https_url() -> None:
    transport = HttpTransport()
    plain = transport._client("http://127.0.0.1:8080/v1/chat/completions")
    assert transport._client("http://127.0.0.1:8080/v1/x") is plain
    secure = transport._client("https://api.example.com/v1/chat/completions")
    assert secure is not plain
    assert transport._client("https://api.example.com/v1/x") is secure
    assert transport._tls is not None
    await plain.aclose()
    await transport.aclose()
