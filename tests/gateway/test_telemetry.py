"""The gateway's trace: one server span per request, continuing the client's ``traceparent``,
with the run beneath it and the backend request carrying it on."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from opentelemetry.trace import SpanKind, StatusCode

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..otel_support import Recorded, attributes, recorded

pytestmark = pytest.mark.anyio
__all__ = ["recorded"]  # the fixture, used by name

TRACE_ID, CLIENT_SPAN = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
ANSWER = {
    "id": "chatcmpl-G1",
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hi!"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2},
}
STREAMED = (
    b'data: {"id":"chatcmpl-G2","model":"gpt-4o","choices":[{"index":0,"delta":'
    b'{"content":"Hi!"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def backend(seen: list[httpx.Request]) -> Lang:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if json.loads(request.content).get("stream"):
            return httpx.Response(
                200, content=STREAMED, headers={"content-type": "text/event-stream"}
            )
        return httpx.Response(200, json=ANSWER)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Lang.openai("gpt-4o", api_key="k", http_client=client)


async def ask_gateway(
    gateway: Gateway, body: dict[str, Any], headers: dict[str, str]
) -> httpx.Response:
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.post("/v1/chat/completions", json=body, headers=headers)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_trace_goes_from_the_client_through_the_gateway_to_the_backend(
    recorded: Recorded, stream: bool
) -> None:
    seen: list[httpx.Request] = []
    gateway = Gateway({"m": backend(seen)})
    body = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": stream}
    traceparent = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"
    response = await ask_gateway(gateway, body, {"traceparent": traceparent})
    assert response.status_code == 200
    assert recorded.tree() == [
        ("POST /v1/chat/completions", None),  # its parent is the client's, not recorded here
        ("invoke_agent", "POST /v1/chat/completions"),
        ("chat gpt-4o", "invoke_agent"),
    ]
    server, _, chat = recorded.spans()
    assert server.kind == SpanKind.SERVER
    assert server.parent is not None
    assert f"{server.parent.span_id:016x}" == CLIENT_SPAN
    assert {f"{s.context.trace_id:032x}" for s in recorded.spans()} == {TRACE_ID}
    assert attributes(server) == {
        "http.request.method": "POST",
        "url.path": "/v1/chat/completions",
        "url.scheme": "http",
        "http.response.status_code": 200,
        "http.route": "/v1/chat/completions",
    }
    (upstream,) = seen
    assert upstream.headers["traceparent"] == f"00-{TRACE_ID}-{chat.context.span_id:016x}-01"


async def test_a_request_without_traceparent_starts_a_trace(recorded: Recorded) -> None:
    gateway = Gateway({"m": backend([])})
    body = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}
    response = await ask_gateway(gateway, body, {})
    assert response.status_code == 200
    server = recorded.spans()[0]
    assert server.parent is None
    assert server.name == "POST /v1/chat/completions"


async def test_an_unknown_path_is_named_by_its_method_alone(recorded: Recorded) -> None:
    transport = httpx.ASGITransport(app=Gateway({}), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        response = await client.get("/v1/secret/abc123?key=hidden")
    assert response.status_code == 404
    (server,) = recorded.spans()
    assert server.name == "GET"
    assert attributes(server) == {
        "http.request.method": "GET",
        "url.path": "/v1/secret/abc123",
        "url.scheme": "http",
        "http.response.status_code": 404,
    }
    assert server.status.status_code == StatusCode.UNSET


async def test_a_refused_request_to_a_path_of_the_clients_making_names_no_span(
    recorded: Recorded,
) -> None:
    gateway = Gateway({}, api_keys=["sk-gateway"])
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        response = await client.post("/user/0/secret-token-0", json={})
    assert response.status_code == 401  # refused before any route is looked up
    (server,) = recorded.spans()
    assert server.name == "POST"
    assert "http.route" not in attributes(server)
