"""Gemini's ``RetryInfo.retryDelay`` in an error body is honoured between retries, as
``retry-after`` is (capped the same way)."""

from __future__ import annotations

import json

import httpx
import pytest

from aiwrapper import RateLimitError
from aiwrapper._wire import _http as http_module
from aiwrapper._wire._httpcall import retry_after_seconds
from aiwrapper.providers.gemini import _errors as gemini_errors

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


DAY = 86_400.0


@pytest.mark.parametrize(
    ("delay", "expected"),
    [("1" * 400 + "s", None), ("9" * 30 + ".5s", DAY), ("999999999s", DAY), ("90000s", DAY)],
)
async def test_an_absurd_retry_delay_is_capped_or_ignored_never_infinite(
    sleeps: list[float], delay: str, expected: float | None
) -> None:
    wire = Wire("gemini", [quota(delay)])
    with pytest.raises(RateLimitError) as info:
        await wire.lang.ask("go")
    assert info.value.retry_after == expected


async def test_an_absurd_retry_delay_waits_the_backoff_or_the_cap_between_retries(
    sleeps: list[float],
) -> None:
    wire = Wire(
        "gemini", [quota("1" * 400 + "s"), quota("9" * 300 + "s"), wires.TEXT["gemini"]("ok")]
    )
    wire.lang.model.transport.max_retries = 2  # type: ignore[attr-defined]
    assert (await wire.lang.ask("go")).answer == "ok"
    assert len(sleeps) == 2
    assert 0 < sleeps[0] <= 0.5  # the backoff: the infinite hint was ignored
    assert sleeps[1] == 60.0  # the cap between retries


def test_a_retry_delay_inside_a_stream_error_is_bounded_too() -> None:
    detail = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7" * 400 + "s"}
    error = {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "m", "details": [detail]}
    raised = gemini_errors.error_in_stream({"error": error})
    assert isinstance(raised, RateLimitError)
    assert raised.retry_after is None


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "1" * 400}, None),
        ({"retry-after": "1e400"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "-5"}, None),
        ({"retry-after": "99999999999"}, DAY),
        ({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}, DAY),
        ({"retry-after-ms": "9" * 300}, DAY),
        ({"retry-after-ms": "1" * 400, "retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500"}, 1.5),
    ],
)
def test_retry_after_headers_are_finite_and_capped_at_a_day(
    headers: dict[str, str], expected: float | None
) -> None:
    assert retry_after_seconds(headers) == expected
