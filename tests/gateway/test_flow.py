"""Flow through the gateway: a client that goes away cancels the upstream request, and a slow
client slows the upstream read instead of the gateway buffering without bound."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._events import FinishEvent, TextDelta
from aiwrapper._run._contract import EventSink, ProviderRequest
from aiwrapper.gateway import Gateway

from .harness import served

GATEWAY = Gateway({})
ASK = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}


class Hanging:
    """A backend that sends a little text, then waits forever, noting when it is cancelled."""

    name = "hanging"
    model = "hanging"

    def __init__(self) -> None:
        self.waiting = threading.Event()
        self.cancelled = threading.Event()

    async def send(self, request: ProviderRequest, sink: EventSink) -> None:
        await sink([TextDelta("partial")])
        self.waiting.set()
        try:
            await anyio.sleep_forever()
        finally:
            self.cancelled.set()

    async def aclose(self) -> None:
        pass


class Endless:
    """A backend with a long answer, counting the deltas it has handed over."""

    name = "endless"
    model = "endless"

    def __init__(self, deltas: int) -> None:
        self.deltas = deltas
        self.sent = 0

    async def send(self, request: ProviderRequest, sink: EventSink) -> None:
        piece = "x" * 10_000
        for _ in range(self.deltas):
            await sink([TextDelta(piece)])
            self.sent += 1
        await sink([FinishEvent("stop")])

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.mark.parametrize("stream", [True, False])
def test_a_client_that_disconnects_cancels_the_upstream_request(
    base_url: str, stream: bool
) -> None:
    backend = Hanging()
    GATEWAY.routes["m"] = Lang(backend)
    body: dict[str, Any] = {**ASK, "stream": stream}
    with httpx.Client(timeout=10) as client:
        request = client.build_request("POST", base_url + "/v1/chat/completions", json=body)
        response = client.send(request, stream=True) if stream else None
        if response is not None:  # the stream has started: the text came through
            assert b"partial" in next(response.iter_raw())
        else:
            threading.Thread(target=_post_and_drop, args=(base_url, body), daemon=True).start()
        assert backend.waiting.wait(10)
        if response is not None:
            response.close()  # closes the connection mid-stream
    assert backend.cancelled.wait(10), "the upstream request went on after the client left"


def _post_and_drop(base_url: str, body: dict[str, Any]) -> None:
    with contextlib.suppress(httpx.TimeoutException):  # it gives up: its connection closes
        httpx.post(base_url + "/v1/chat/completions", json=body, timeout=0.5)


def test_a_slow_client_holds_the_upstream_read_back(base_url: str) -> None:
    backend = Endless(deltas=5_000)  # 50 MB of text: far more than any socket buffers
    GATEWAY.routes["m"] = Lang(backend)
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", base_url + "/v1/chat/completions", json={**ASK, "stream": True}) as r,
    ):
        chunks = r.iter_raw()
        next(chunks)  # then the client stops reading
        _wait_until_still(lambda: backend.sent)
        held_at = backend.sent
        assert held_at < backend.deltas // 2
        received = sum(len(chunk) for chunk in chunks)  # reading again lets it go on
    assert backend.sent == backend.deltas
    assert received > 50_000_000


def _wait_until_still(count: Any) -> None:
    """Wait until ``count()`` stops changing (bounded: 20 s)."""
    deadline = time.monotonic() + 20
    last = -1
    while count() != last and time.monotonic() < deadline:
        last = count()
        time.sleep(0.3)
