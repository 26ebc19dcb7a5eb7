"""Log lines under ``logging.getLogger("aiwrapper")``: requests, retries, tool calls, fallbacks."""

from __future__ import annotations

import logging
import re

import httpx
import pytest

from aiwrapper import Lang, tool
from aiwrapper.testing import call, scripted, turn

KEY = "sk-test-1234567890secret"
REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-4o-mini",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}
    ],
}


def _http_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "aiwrapper.http"]


def test_each_attempt_is_one_debug_line_with_the_retry_decision(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answers = iter(
        [
            httpx.Response(429, headers={"x-request-id": "req_1"}, json={"error": {}}),
            httpx.Response(200, headers={"x-request-id": "req_2"}, json=REPLY),
        ]
    )
    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda _: next(answers)))
    lang = Lang.openai(
        api_key=KEY, http_client=client, retry_base_delay=0.001, retry_max_delay=0.002
    )
    caplog.set_level(logging.DEBUG, logger="aiwrapper")
    assert lang.ask_sync("Hi", stream=False).answer == "Hi."
    first, second = _http_lines(caplog)
    pattern = (
        r"openai model=gpt-4o-mini POST https://api\.openai\.com/v1/chat/completions "
        r"-> {status} in \d+\.\d{{3}}s request_id={rid}{rest}"
    )
    assert re.fullmatch(
        pattern.format(status=429, rid="req_1", rest=r"; retrying in 0\.00s"), first
    )
    assert re.fullmatch(pattern.format(status=200, rid="req_2", rest=""), second)
    assert all(KEY not in r.getMessage() and "Hi" not in r.getMessage() for r in caplog.records)


def test_a_final_failure_says_it_gives_up_and_the_query_string_is_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from aiwrapper._wire._httpcall import HttpCall
    from aiwrapper._wire._logs import log_attempt

    caplog.set_level(logging.DEBUG, logger="aiwrapper.http")
    secret_url = "https://example.com/v1/models/m:generate?key=AIzaSECRET"
    log_attempt(
        HttpCall(secret_url, {}, {}, False, "gemini", "m"), 0.0, "ConnectError", None, "giving up"
    )
    (line,) = _http_lines(caplog)
    assert line.startswith("gemini model=m POST https://example.com/v1/models/m:generate -> ")
    assert line.endswith("request_id=-; giving up")
    assert "SECRET" not in line


def test_tool_calls_are_logged_and_their_exceptions_warned_with_the_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool
    def explode() -> None:
        """Fail."""
        raise RuntimeError("boom")

    lang = scripted([turn(call("add", a=2, b=3, id="c1"), call("explode", id="c2")), "Done."])
    caplog.set_level(logging.DEBUG, logger="aiwrapper")
    lang.ask_sync("Go", functions=[add, explode], parallel=False)
    tools = [r for r in caplog.records if r.name == "aiwrapper.tools"]
    warning = next(r for r in tools if r.levelno == logging.WARNING)
    assert warning.getMessage() == (
        "tool explode (c2) raised RuntimeError; the model gets it as an error result"
    )
    assert warning.exc_info is not None
    assert str(warning.exc_info[1]) == "boom"
    debug = [r.getMessage() for r in tools if r.levelno == logging.DEBUG]
    assert re.fullmatch(r"tool add \(c1\) -> done in \d+\.\d{3}s", debug[0])
    assert re.fullmatch(r"tool explode \(c2\) -> error in \d+\.\d{3}s", debug[1])


def test_from_env_says_it_falls_back_to_the_offline_model(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AIWRAPPER_PROVIDER"):
        monkeypatch.delenv(key, raising=False)
    assert Lang.from_env().provider == "offline"
    (record,) = [r for r in caplog.records if r.name == "aiwrapper"]
    assert record.levelno == logging.WARNING
    assert "no API key found" in record.getMessage()
    caplog.clear()
    monkeypatch.setenv("AIWRAPPER_PROVIDER", "offline")  # asked for: nothing to say
    assert Lang.from_env().provider == "offline"
    assert caplog.records == []


def test_the_factories_take_the_backoff_settings() -> None:
    lang = Lang.anthropic(api_key=KEY, max_retries=5, retry_base_delay=0.1, retry_max_delay=2.0)
    transport = lang.model.transport  # type: ignore[attr-defined]
    assert (transport.max_retries, transport.retry_base_delay, transport.retry_max_delay) == (
        5,
        0.1,
        2.0,
    )
