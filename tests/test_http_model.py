"""HttpModel: a fake provider on top of HttpTransport, through httpx.MockTransport."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
import pytest

from aiwrapper import _errors as errors
from aiwrapper._conversation._events import Event, FinishEvent, TextDelta
from aiwrapper._conversation._messages import LangMessage, TextPart
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._http import HttpTransport
from aiwrapper._wire._httpcall import HttpCall
from aiwrapper.providers._base import error_class_for_status, make_error
from aiwrapper.providers._http_model import HttpModel

pytestmark = pytest.mark.anyio

URL = "https://fake.test/v1/chat"


class EchoDecoder:
    """Turns each item into a TextDelta ``"<event>|<data>"``; needs ``[DONE]`` before close."""

    def __init__(self, tool_names: tuple[str, ...] | None = None) -> None:
        self.tool_names = tool_names
        self.done = False

    def feed(self, event: str | None, data: str) -> list[Event]:
        if data == "[DONE]":
            self.done = True
            return []
        if data == "bad json":
            json.loads(data)  # a decoder bug: the ValueError must not escape as is
        if data == "overloaded":
            raise errors.OverloadedError("busy", provider="fake")
        return [TextDelta(f"{event}|{data}")]

    def close(self) -> list[Event]:
        if not self.done:
            raise errors.StreamError("the stream ended before [DONE]")
        names = ",".join(self.tool_names) if self.tool_names is not None else "-"
        return [FinishEvent("stop", raw=names)]


class FakeProvider:
    name = "fake"

    def __init__(self, framing: Literal["sse", "ndjson"] = "sse") -> None:
        self.framing = framing
        self.decoders: list[EchoDecoder] = []

    def encode(self, request: ProviderRequest) -> HttpCall:
        body = {"model": request.model, "n": len(request.messages), "stream": request.stream}
        return HttpCall(URL, {"authorization": "Bearer k"}, body, request.stream)

    def decode_stream(self, request: ProviderRequest) -> EchoDecoder:
        self.decoders.append(EchoDecoder())
        return self.decoders[-1]

    def decode_response(self, body: Any, request: ProviderRequest) -> list[Event]:
        return [TextDelta(body["text"]), FinishEvent("stop")]

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        cls = error_class_for_status(status)
        return make_error(
            cls, body.decode(), provider="fake", status=status, body=body, headers=headers
        )


class ToolNamesProvider(FakeProvider):
    """Like Ollama: its stream decoder reads the declared tool names from the request."""

    def decode_stream(self, request: ProviderRequest) -> EchoDecoder:
        self.decoders.append(EchoDecoder(request.tool_names))
        return self.decoders[-1]


@dataclass
class FakeTool:
    name: str

    def schema_for(self, dialect: str) -> dict[str, Any]:
        return {"name": self.name}


@dataclass
class Wire:
    """A MockTransport handler sending one scripted response, recording the requests."""

    response: httpx.Response
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.response


class Chunks(httpx.AsyncByteStream):
    def __init__(self, *chunks: bytes | Exception) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            if isinstance(chunk, Exception):
                raise chunk
            yield chunk


def request(*, stream: bool = True, tools: list[FakeTool] | None = None) -> ProviderRequest:
    return ProviderRequest(
        model="m1",
        messages=[LangMessage(role="user", parts=[TextPart("hi")])],
        tools=tools or [],  # type: ignore[arg-type]
        options=LangOptions(),
        stream=stream,
    )


def model_for(provider: FakeProvider, response: httpx.Response) -> tuple[HttpModel, Wire]:
    wire = Wire(response)
    client = httpx.AsyncClient(transport=httpx.MockTransport(wire))
    transport = HttpTransport(http_client=client, retry_base_delay=0)
    return HttpModel(provider, transport, model="m1"), wire


async def collect(model: HttpModel, req: ProviderRequest) -> list[Event]:
    events: list[Event] = []

    async def sink(batch: list[Event]) -> None:
        events.extend(batch)

    await model.send(req, sink)
    return events


async def test_streamed_sse_events_reach_the_sink_in_order() -> None:
    body = Chunks(
        b": OPENROUTER PROCESSING\r\n\r\ndata: a\r\n",
        b"\r\nevent: delta\ndata: b\ndata: c\n\nda",
        b"ta: [DONE]\n\n",
    )
    model, wire = model_for(FakeProvider(), httpx.Response(200, stream=body))
    assert model.name == "fake"
    assert model.model == "m1"
    assert await collect(model, request()) == [
        TextDelta("None|a"),
        TextDelta("delta|b\nc"),
        FinishEvent("stop", raw="-"),
    ]
    [sent] = wire.requests
    assert json.loads(sent.content) == {"model": "m1", "n": 1, "stream": True}


async def test_sse_event_without_final_blank_line_is_flushed_before_close() -> None:
    body = Chunks(b"data: a\n\ndata: [DONE]")
    model, _ = model_for(FakeProvider(), httpx.Response(200, stream=body))
    assert await collect(model, request()) == [TextDelta("None|a"), FinishEvent("stop", raw="-")]


async def test_ndjson_lines_are_fed_without_event_names() -> None:
    body = Chunks(b'{"x":1}\r\n{"y"', b":2}\n\n[DONE]")
    model, _ = model_for(FakeProvider("ndjson"), httpx.Response(200, stream=body))
    assert await collect(model, request()) == [
        TextDelta('None|{"x":1}'),
        TextDelta('None|{"y":2}'),
        FinishEvent("stop", raw="-"),
    ]


async def test_a_decoder_is_given_the_request_and_its_tool_names() -> None:
    provider = ToolNamesProvider()
    body = Chunks(b"data: [DONE]\n\n")
    model, _ = model_for(provider, httpx.Response(200, stream=body))
    events = await collect(model, request(tools=[FakeTool("get_weather"), FakeTool("add")]))
    assert events == [FinishEvent("stop", raw="get_weather,add")]
    assert provider.decoders[0].tool_names == ("get_weather", "add")


async def test_non_streamed_body_is_decoded_whole() -> None:
    model, wire = model_for(FakeProvider(), httpx.Response(200, json={"text": "hello"}))
    assert await collect(model, request(stream=False)) == [TextDelta("hello"), FinishEvent("stop")]
    assert json.loads(wire.requests[0].content)["stream"] is False


async def test_stream_without_end_marker_is_a_stream_error() -> None:
    model, _ = model_for(FakeProvider(), httpx.Response(200, stream=Chunks(b"data: a\n\n")))
    with pytest.raises(errors.StreamError, match=r"before \[DONE\]"):
        await collect(model, request())


@pytest.mark.parametrize("framing", ["sse", "ndjson"])
async def test_a_last_frame_before_a_missing_end_marker_is_kept(
    framing: Literal["sse", "ndjson"],
) -> None:
    # The body ends inside its last frame and without [DONE]: that frame is decoded and
    # handed over before close() reports the cut, so the result keeps it.
    body = Chunks(b"data: a\n\ndata: b" if framing == "sse" else b"a\nb")
    model, _ = model_for(FakeProvider(framing), httpx.Response(200, stream=body))
    events: list[Event] = []

    async def sink(batch: list[Event]) -> None:
        events.extend(batch)

    with pytest.raises(errors.StreamError, match=r"before \[DONE\]"):
        await model.send(request(), sink)
    assert events == [TextDelta("None|a"), TextDelta("None|b")]


async def test_decoder_bug_is_wrapped_as_stream_error() -> None:
    body = Chunks(b"data: bad json\n\n")
    model, _ = model_for(FakeProvider(), httpx.Response(200, stream=body))
    with pytest.raises(errors.StreamError) as info:
        await collect(model, request())
    assert isinstance(info.value.__cause__, ValueError)


async def test_decode_response_bug_is_wrapped_as_stream_error() -> None:
    model, _ = model_for(FakeProvider(), httpx.Response(200, json={"no_text": 1}))
    with pytest.raises(errors.StreamError) as info:
        await collect(model, request(stream=False))
    assert isinstance(info.value.__cause__, KeyError)


async def test_provider_errors_inside_the_stream_pass_through() -> None:
    body = Chunks(b"data: a\n\ndata: overloaded\n\n")
    model, _ = model_for(FakeProvider(), httpx.Response(200, stream=body))
    events: list[Event] = []

    async def sink(batch: list[Event]) -> None:
        events.extend(batch)

    with pytest.raises(errors.OverloadedError):
        await model.send(request(), sink)
    assert events == [TextDelta("None|a")]


async def test_error_status_is_mapped_by_the_provider() -> None:
    model, wire = model_for(FakeProvider(), httpx.Response(404, content=b"no such model"))
    with pytest.raises(errors.NotFoundError, match="no such model"):
        await collect(model, request())
    assert len(wire.requests) == 1


async def test_body_broken_mid_stream_is_a_stream_error() -> None:
    body = Chunks(b"data: a\n\n", httpx.RemoteProtocolError("peer closed"))
    model, _ = model_for(FakeProvider(), httpx.Response(200, stream=body))
    with pytest.raises(errors.StreamError) as info:
        await collect(model, request())
    assert isinstance(info.value.__cause__, httpx.RemoteProtocolError)


async def test_sink_errors_are_not_wrapped() -> None:
    model, _ = model_for(FakeProvider(), httpx.Response(200, stream=Chunks(b"data: a\n\n")))

    async def sink(batch: list[Event]) -> None:
        raise LookupError("from the user's callback")

    with pytest.raises(LookupError):
        await model.send(request(), sink)


async def test_aclose_closes_the_transport_but_not_a_borrowed_client() -> None:
    client = httpx.AsyncClient(transport=httpx.MockTransport(Wire(httpx.Response(200))))
    transport = HttpTransport()
    owned = transport._client()
    model = HttpModel(FakeProvider(), HttpTransport(http_client=client), model="m1")
    await model.aclose()
    await HttpModel(FakeProvider(), transport, model="m1").aclose()
    assert owned.is_closed
    assert not client.is_closed
    await client.aclose()


def test_unknown_framing_is_a_config_error() -> None:
    provider = FakeProvider()
    provider.framing = "xml"  # type: ignore[assignment]
    with pytest.raises(errors.ConfigError):
        HttpModel(provider, HttpTransport(), model="m1")
