"""Adding a provider is one package plus one factory line: the example provider proves it.

``tests/example_provider`` is a whole provider for a made-up "echo" wire, written against the
contract alone; ``EchoLang.echo`` below is its factory line. Through them the SDK's own
machinery (transport, NDJSON framing, assembler, tool loop, usage, errors) runs unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from typing_extensions import Unpack

from aiwrapper import Lang, RateLimitError, StreamError, tool
from aiwrapper._run._options import OptionsLike
from aiwrapper._wire._http import HttpSettings

from . import example_provider as echo

pytestmark = pytest.mark.anyio


class EchoLang(Lang):
    """``Lang`` as it would be with the example provider added."""

    @classmethod
    def echo(
        cls,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        options: OptionsLike = None,
        **settings: Unpack[HttpSettings],
    ) -> Lang:
        """The echo wire (key from ``ECHO_API_KEY``, optional)."""
        model_ = echo.build(model, api_key=api_key, base_url=base_url, **settings)
        return cls(model_, options=options)


@tool
def shout(text: str) -> str:
    """Shout a text."""
    return text.upper()


def _answer(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The echo server's lines for a request: a call first when tools are given, then echo."""
    last = body["messages"][-1]
    if body["model"] == "cut":
        return [{"text": "Half"}]  # no done line: the stream broke off
    if last["role"] == "tool":
        return [{"text": f"echo: {last['text']}"}, _done("stop", 9, 3)]
    if body["tools"]:
        call = {"id": "c1", "name": body["tools"][0]["name"], "arguments": {"text": last["text"]}}
        return [{"text": "Calling."}, {"call": call}, _done("tool_calls", 5, 2)]
    return [{"text": "echo: "}, {"text": last["text"]}, _done("stop", 4, 2)]


def _done(reason: str, used_in: int, used_out: int) -> dict[str, Any]:
    return {"done": True, "reason": reason, "usage": {"in": used_in, "out": used_out}}


class EchoServer:
    """The other end of the wire, behind ``httpx.MockTransport``; keeps every request body."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.urls: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        self.urls.append(str(request.url))
        if body["model"] == "busy":
            return httpx.Response(429, json={"error": "slow down"}, headers={"retry-after": "7"})
        lines = _answer(body)
        if not body["stream"]:
            return httpx.Response(200, json={"lines": lines})
        ndjson = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        return httpx.Response(200, content=ndjson)


def _lang(server: EchoServer, model: str | None = None, **settings: Any) -> Lang:
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    return EchoLang.echo(model, base_url="https://echo.test/v2", http_client=client, **settings)


async def test_the_example_provider_runs_the_tool_loop() -> None:
    server = EchoServer()
    result = await _lang(server).ask("hello", functions=[shout])
    assert result.answer == "echo: HELLO"
    assert [(c.name, c.arguments, c.result) for c in result.function_calls] == [
        ("shout", {"text": "hello"}, "HELLO")
    ]
    assert (result.iterations, result.finish_reason, result.usage.total_tokens) == (2, "stop", 19)
    assert server.urls == ["https://echo.test/v2/echo"] * 2
    declared = [{"name": "shout", "parameters": shout.parameters}]
    assert server.bodies[1] == {
        "model": "echo-1",
        "messages": [
            {"role": "user", "text": "hello"},
            {
                "role": "assistant",
                "text": "Calling.",
                "calls": [{"id": "c1", "name": "shout", "arguments": {"text": "hello"}}],
            },
            {"role": "tool", "text": "HELLO", "call_id": "c1"},
        ],
        "tools": declared,
        "stream": True,
    }


async def test_a_whole_body_answer_goes_through_the_same_decoder() -> None:
    server = EchoServer()
    result = await _lang(server, "echo-2").ask("hi", stream=False)
    assert (result.answer, result.model, result.usage.input_tokens) == ("echo: hi", "echo-2", 4)
    assert server.bodies[0]["stream"] is False


async def test_the_example_providers_errors_are_the_sdks_errors() -> None:
    server = EchoServer()
    with pytest.raises(RateLimitError) as caught:
        await _lang(server, "busy", max_retries=0).ask("hi")
    assert (caught.value.provider, caught.value.status_code) == ("echo", 429)
    assert (caught.value.retry_after, str(caught.value)) == (7.0, "echo 429: slow down")


async def test_a_stream_cut_before_its_done_line_keeps_a_continuable_result() -> None:
    with pytest.raises(StreamError, match="ended before its done line") as caught:
        await _lang(EchoServer(), "cut").ask("hi")
    assert caught.value.result is not None
    assert caught.value.result.messages[-1].content == "Half"


async def test_the_decoder_reads_the_callable_tools_from_the_request() -> None:
    # The server calls a tool anyway; function_call="none" let the model call none.
    with pytest.raises(StreamError, match="a call to 'shout', which was not allowed"):
        await _lang(EchoServer()).ask("hi", functions=[shout], function_call="none")
