"""Requests built on prepared headers: what goes out is what ``client.build_request`` builds.

``RequestBuilder`` hands httpx the body as a stream with the headers completed once per URL,
header set and client headers: ``Host`` first, the client's headers, the call's, and the
length last; a client that sets ``Host`` or a length itself gets httpx's own completion.
Owned clients read cookies only from responses that set one, and keep them as httpx does.
"""

from __future__ import annotations

import httpx
import pytest

from aiwrapper._wire._http import _OwnedClient
from aiwrapper._wire._httpcall import HttpCall
from aiwrapper._wire._outgoing import RequestBuilder, where

pytestmark = pytest.mark.anyio

URL = "http://127.0.0.1:8123/v1/chat/completions"
CALL = HttpCall(URL, {"Authorization": "Bearer k", "X-Extra": "1"}, {"model": "m", "é": 1}, False)


def _expected(client: httpx.AsyncClient, call: HttpCall, content: bytes) -> httpx.Request:
    headers = {**call.headers, "content-type": "application/json"}
    return client.build_request("POST", call.url, content=content, headers=headers)


@pytest.mark.anyio(False)
@pytest.mark.parametrize(
    "client_headers",
    [None, {"User-Agent": "mine", "x-extra": "client"}, {"Authorization": "Bearer other"}],
)
def test_a_request_carries_what_build_request_builds(client_headers: dict[str, str] | None) -> None:
    client = httpx.AsyncClient(headers=client_headers)
    request = RequestBuilder().build(client, CALL)
    expected = _expected(client, CALL, request.content)
    assert sorted(request.headers.multi_items()) == sorted(expected.headers.multi_items())
    assert request.headers.raw[0] == (b"Host", b"127.0.0.1:8123")
    assert request.headers.raw[-1] == (b"Content-Length", str(len(request.content)).encode())
    assert (request.method, request.url, request.content) == (
        "POST",
        URL,
        b'{"model":"m","\xc3\xa9":1}',
    )
    assert request.extensions == {"timeout": client.timeout.as_dict()}


@pytest.mark.anyio(False)
def test_the_client_headers_are_merged_again_when_they_change() -> None:
    client = httpx.AsyncClient()
    builder = RequestBuilder()
    builder.build(client, CALL)
    client.headers["X-Later"] = "2"
    assert builder.build(client, CALL).headers["x-later"] == "2"


@pytest.mark.anyio(False)
@pytest.mark.parametrize("name", ["Host", "Content-Length", "Transfer-Encoding"])
def test_headers_that_set_what_httpx_adds_are_completed_by_httpx(name: str) -> None:
    value = "example.test" if name == "Host" else ("3" if name == "Content-Length" else "chunked")
    client = httpx.AsyncClient(headers={name: value})
    request = RequestBuilder().build(client, CALL)
    expected = _expected(client, CALL, request.content)
    assert request.headers.raw == expected.headers.raw


async def test_the_body_goes_out_whole_and_can_be_read_again_by_hooks() -> None:
    seen: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.content)
        return httpx.Response(200, json={})

    async def hook(request: httpx.Request) -> None:
        seen.append(request.content)

    transport = httpx.MockTransport(answer)
    async with httpx.AsyncClient(transport=transport, event_hooks={"request": [hook]}) as client:
        await client.send(RequestBuilder().build(client, CALL))
    assert seen == [b'{"model":"m","\xc3\xa9":1}'] * 2


@pytest.mark.anyio(False)
def test_an_error_names_the_url_without_query_or_credentials() -> None:
    call = HttpCall("https://user:pw@host.test/v1/x?key=secret", {}, {}, False)
    assert where(call) == "https://[redacted]@host.test/v1/x"


async def test_an_owned_client_keeps_the_cookies_a_server_sets_and_reads_no_other_response() -> (
    None
):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/set":
            return httpx.Response(200, headers={"set-cookie": "session=abc; Path=/"})
        return httpx.Response(200, json={"cookie": request.headers.get("cookie")})

    async with _OwnedClient(transport=httpx.MockTransport(answer)) as client:
        await client.get("http://host.test/plain")
        assert dict(client.cookies) == {}
        await client.get("http://host.test/set")
        assert dict(client.cookies) == {"session": "abc"}
        reply = await client.get("http://host.test/echo")
    assert reply.json() == {"cookie": "session=abc"}
