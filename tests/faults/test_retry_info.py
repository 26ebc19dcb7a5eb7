"""Gemini's ``RetryInfo.retryDelay`` in an error body is honoured between retries, as
``retry-after`` is (capped the same way)."""

from __future__ import annotations

import json

import httpx
import pytest

from aiwrapper import RateLimitError
from aiwrapper._wire import _http as http_module

from . import wires
from .wires import Wire

pytestmark = pytest.mark.anyio


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    monkeypatch.setattr(http_module, "sleep", fake_sleep)
    return delays


def quota(delay: str, headers: dict[str, str] | None = None) -> httpx.Response:
    detail = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
    body = {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}
    body["error"]["details"] = [detail]  # type: ignore[index]
    return httpx.Response(429, content=json.dumps(body).encode(), headers=headers or {})


async def test_retry_delay_is_waited_before_the_retry(sleeps: list[float]) -> None:
    wire = Wire("gemini", [quota("3s"), quota("0.5s"), wires.TEXT["gemini"]("ok")])
    wire.lang.model.transport.max_retries = 2  # type: ignore[attr-defined]
    result = await wire.lang.ask("go")
    assert result.answer == "ok"
    assert sleeps == [3.0, 0.5]


async def test_a_huge_retry_delay_is_capped_like_retry_after(sleeps: list[float]) -> None:
    wire = Wire("gemini", [quota("86400s"), wires.TEXT["gemini"]("ok")])
    wire.lang.model.transport.max_retries = 1  # type: ignore[attr-defined]
    assert (await wire.lang.ask("go")).answer == "ok"
    assert sleeps == [60.0]


async def test_the_last_refusal_raises_with_retry_after(sleeps: list[float]) -> None:
    wire = Wire("gemini", [quota("2s")])
    with pytest.raises(RateLimitError) as info:
        await wire.lang.ask("go")
    assert info.value.retry_after == 2.0
    assert sleeps == []
