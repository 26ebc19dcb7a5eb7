"""A big request body is parsed off the event loop: ``/healthz`` answers meanwhile.

The real Chat Completions front-end decodes a 2 MiB body, wrapped so that it waits (in
whatever thread it runs) until the health check has been answered. Parsed on the event loop
it would hold the loop: the health check could not be answered until the wait timed out, and
the big request would be routed first. Order, not timing, is asserted.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

pytestmark = pytest.mark.anyio

BIG = {
    "model": "local",
    "messages": [{"role": "user", "content": f"message {i} " + "x" * 200} for i in range(10_000)],
}


class _Waiting:
    """A front-end whose ``decode`` waits for ``release`` (at most 10 s) after the real one."""

    def __init__(self, real: Any, release: threading.Event) -> None:
        self.real = real
        self.release = release

    def decode(self, body: Any) -> Any:
        decoded = self.real.decode(body)
        self.release.wait(10)
        return decoded

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class _Routes(dict):  # type: ignore[type-arg]
    """Routes that note when a request is routed (right after its body was decoded)."""

    def __init__(self, order: list[str], **routes: Lang) -> None:
        super().__init__(routes)
        self.order = order

    def get(self, name: Any, default: Any = None) -> Any:
        self.order.append(f"routed {name}")
        return super().get(name, default)


async def test_healthz_answers_while_a_2_mib_body_is_parsed() -> None:
    body = json.dumps(BIG).encode()
    assert len(body) > 2 * 1024 * 1024
    order: list[str] = []
    release = threading.Event()
    gateway = Gateway({})
    gateway.routes = _Routes(order, local=Lang.scripted(["done"]))
    path = "/v1/chat/completions"
    gateway._fronts.by_path[path] = _Waiting(gateway._fronts.by_path[path], release)
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:

        async def big() -> None:
            headers = {"content-type": "application/json"}
            reply = await client.post(path, content=body, headers=headers, timeout=60)
            order.append(f"big {reply.status_code}")

        async with anyio.create_task_group() as group:
            group.start_soon(big)
            await anyio.sleep(0.05)  # the big request is on its way
            health = await client.get("/healthz")
            order.append(f"health {health.status_code}")
            release.set()
    assert order == ["health 200", "routed local", "big 200"]


def test_a_body_past_the_threshold_is_read_by_the_scanner_that_lets_the_loop_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aiwrapper.gateway import _reading

    read: list[bytes] = []
    real = _reading.loads_in_steps

    def spied(body: bytes) -> object:
        read.append(body)
        return real(body)

    monkeypatch.setattr(_reading, "loads_in_steps", spied)
    big = {"model": "m", "metadata": {"v": [[i, -i, i / 2] for i in range(40_000)]}}
    text = json.dumps(big).encode()
    assert len(text) > _reading._PREEMPTIBLE_BODY_BYTES
    assert _reading._parse(text) == big  # the same value json's C parser would give
    assert read == [text]
    assert _reading._parse(b'{"model": "m"}') == {"model": "m"}
    assert read == [text]  # a small body: json's C parser, as before
