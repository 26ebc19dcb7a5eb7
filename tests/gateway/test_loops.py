"""Loop protection: the hop header, and a route that points back at its own gateway.

Called in process through ``httpx.ASGITransport``, on asyncio and trio: a route whose
``Lang`` sends its requests to the gateway serving it is a loop without any network.
"""

from __future__ import annotations

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

pytestmark = pytest.mark.anyio

HI = {"model": "local", "messages": [{"role": "user", "content": "Hi"}]}
HOPS = "x-aiwrapper-gateway-hops"


def _client(gateway: Gateway) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


class _Counting(httpx.AsyncBaseTransport):
    """Hands requests to ``app``, refusing past ``limit`` nested ones (the old endless loop)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sent: list[httpx.Request] = []
        self.app: httpx.ASGITransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        if len(self.sent) > self.limit or self.app is None:
            return httpx.Response(500, json={"error": {"message": "too deep"}})
        return await self.app.handle_async_request(request)


async def test_a_route_that_points_at_its_own_gateway_is_refused_with_508() -> None:
    counting = _Counting(limit=5)
    backend = Lang.openai(
        "local",
        api_key="-",
        base_url="http://127.0.0.1/v1",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=counting),
    )
    gateway = Gateway({"local": backend})
    counting.app = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50001))
    async with _client(gateway) as client:
        reply = await client.post("/v1/chat/completions", json=HI)
    assert len(counting.sent) == 1  # the second arrival was refused before any upstream call
    assert counting.sent[0].headers[HOPS] == gateway._hops.id
    assert reply.status_code == 508
    assert reply.json()["error"]["code"] == "loop_detected"


async def test_upstream_requests_carry_the_gateways_passed_through() -> None:
    lang = Lang.scripted(["hi"])
    gateway = Gateway({"local": lang})
    async with _client(gateway) as client:
        fresh = await client.post("/v1/chat/completions", json=HI)
    sent = lang.requests[0].options.extra_headers
    assert fresh.status_code == 200
    assert sent == {HOPS: gateway._hops.id}


async def test_four_gateways_before_this_one_are_served_five_are_refused() -> None:
    lang = Lang.scripted(["hi", "again"])
    gateway = Gateway({"local": lang})
    async with _client(gateway) as client:
        four = await client.post("/v1/chat/completions", json=HI, headers={HOPS: "a, b, c, d"})
        five = await client.post(
            "/v1/messages", json={**HI, "max_tokens": 5}, headers={HOPS: "a,b,c,d,e"}
        )
        own = await client.post(
            "/v1/chat/completions", json=HI, headers={HOPS: f"a, {gateway._hops.id}"}
        )
        huge = await client.post("/v1/chat/completions", json=HI, headers={HOPS: "a" * 5000})
        odd = await client.post("/v1/chat/completions", json=HI, headers={HOPS: "é, x y".encode()})
    assert four.status_code == 200
    assert lang.requests[0].options.extra_headers == {HOPS: f"a, b, c, d, {gateway._hops.id}"}
    assert (five.status_code, own.status_code, huge.status_code) == (508, 508, 508)
    assert five.json()["type"] == "error"
    assert odd.status_code == 200
    assert lang.requests[1].options.extra_headers == {HOPS: f"unknown, unknown, {gateway._hops.id}"}
    assert len(lang.requests) == 2
