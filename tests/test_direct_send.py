"""Requests sent straight to a client's transport when its layers would do nothing, and through
``AsyncClient.send`` otherwise: the same request on the wire, the same response, cookies and
log line either way."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from aiwrapper import _errors as errors
from aiwrapper._wire import _direct
from aiwrapper._wire._http import HttpTransport, _OwnedClient
from aiwrapper._wire._httpcall import HttpCall

pytestmark = pytest.mark.anyio

URL = "https://api.test/v1/chat"
CALL = HttpCall(URL, {"authorization": "Bearer k"}, {"model": "m", "text": "héllo"}, False)


def on_error(status: int, body: bytes, headers: Any) -> errors.ProviderError:
    return errors.ProviderError(f"status {status}", status_code=status)


class Server:
    """Answers every request with ``response``; records the requests and how they came."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.requests: list[tuple[str, list[tuple[bytes, bytes]], bytes]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((str(request.url), request.headers.raw, request.content))
        return self.response


def client(server: Server, **settings: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(server), **settings)


class Counting(httpx.AsyncClient):
    """A client that counts the requests its ``send`` saw (an instrumented client)."""

    sent = 0

    async def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        self.sent += 1
        return await super().send(request, **kwargs)


def _ok() -> httpx.Response:
    return httpx.Response(200, json={"ok": True})


async def test_the_direct_path_sends_what_client_send_sends_and_reads_the_same_answer() -> None:
    direct, usual = Server(_ok()), Server(_ok())
    plain = client(direct)
    hooked = client(usual, event_hooks={"request": [_nothing], "response": [_nothing]})
    assert _direct._direct(plain, plain.build_request("POST", URL))
    assert not _direct._direct(hooked, hooked.build_request("POST", URL))
    for borrowed in (plain, hooked):
        answer = await HttpTransport(http_client=borrowed).request_json(CALL, on_error)
        assert answer == {"ok": True}
        await borrowed.aclose()
    assert direct.requests == usual.requests
    assert direct.requests[0][2] == '{"model":"m","text":"héllo"}'.encode()


async def test_a_cookie_the_server_sets_lands_in_the_borrowed_clients_jar() -> None:
    server = Server(httpx.Response(200, json=1, headers={"set-cookie": "route=b7; Path=/"}))
    borrowed = client(server)
    assert await HttpTransport(http_client=borrowed).request_json(CALL, on_error) == 1
    assert borrowed.cookies.get("route") == "b7"
    server.response = _ok()
    await HttpTransport(http_client=borrowed).request_json(CALL, on_error)
    assert (b"Cookie", b"route=b7") in server.requests[1][1]
    await borrowed.aclose()


async def test_clients_whose_layers_act_send_through_client_send() -> None:
    server = Server(_ok())
    request = httpx.Request("POST", URL)
    acting = [
        client(server, auth=("user", "secret")),
        client(server, follow_redirects=True),
        client(server, event_hooks={"response": [_nothing]}),
        Counting(transport=httpx.MockTransport(server)),
    ]
    assert [_direct._direct(c, request) for c in acting] == [False] * 4
    with_userinfo = httpx.Request("POST", "https://u:p@api.test/v1")
    assert not _direct._direct(client(server), with_userinfo)
    assert _direct._direct(_OwnedClient(), request)  # ours: only the cookie jar differs
    counted = acting[3]
    assert isinstance(counted, Counting)
    await HttpTransport(http_client=counted).request_json(CALL, on_error)
    assert counted.sent == 1


async def test_a_send_patched_on_httpx_itself_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    original = httpx.AsyncClient.send

    async def instrumented(self: httpx.AsyncClient, request: httpx.Request, **kw: Any) -> Any:
        seen.append(str(request.url))
        return await original(self, request, **kw)

    monkeypatch.setattr(httpx.AsyncClient, "send", instrumented)
    server = Server(_ok())
    borrowed = client(server)
    await HttpTransport(http_client=borrowed).request_json(CALL, on_error)
    assert seen == [URL]
    await borrowed.aclose()


async def test_a_closed_borrowed_client_fails_as_httpx_says() -> None:
    borrowed = client(Server(_ok()))
    await borrowed.aclose()
    with pytest.raises(RuntimeError, match="client has been closed"):
        await HttpTransport(http_client=borrowed).request_json(CALL, on_error)


async def test_httpx_logs_its_line_and_a_redirect_is_named_not_followed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server(httpx.Response(302, headers={"location": "/elsewhere"}))
    borrowed = client(server)
    request = borrowed.build_request("POST", URL, content=b"{}")
    with caplog.at_level(logging.INFO, logger="httpx"):
        response = await _direct.send(borrowed, request)
    assert response.next_request is not None
    assert str(response.next_request.url) == "https://api.test/elsewhere"
    assert response.request is request
    assert [r.getMessage() for r in caplog.records if r.name == "httpx"] == [
        f'HTTP Request: POST {URL} "HTTP/1.1 302 Found"'
    ]
    await response.aclose()
    await borrowed.aclose()


async def test_a_transport_failure_carries_its_request() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    borrowed = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    request = borrowed.build_request("POST", URL, content=b"{}")
    with pytest.raises(httpx.ConnectError) as info:
        await _direct.send(borrowed, request)
    assert info.value.request is request
    await borrowed.aclose()


async def _nothing(value: object) -> None:
    return None
