"""Size limits keep memory bounded: a stream frame that never ends, a body without end and a
huge error page fail early (or are cut, with a marker), and a huge tool result reaches the model
cut to ``SizeLimits.tool_result_chars`` with a visible note."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import suppress

import httpx
import pytest

from aiwrapper import BadRequestError, ConfigError, Lang, LangOptions, SizeLimits, StreamError, tool
from aiwrapper._wire._framing import NDJSONDecoder, SSEDecoder

from . import wires
from .wires import Wire

pytestmark = pytest.mark.anyio
MIB = 2**20


def test_the_defaults_are_generous_and_documented() -> None:
    limits = SizeLimits()
    assert limits.frame_bytes == 32 * MIB
    assert limits.body_bytes == 512 * MIB
    assert limits.error_body_bytes == 64 * 1024
    assert limits.tool_result_chars == 100_000


@pytest.mark.parametrize("bad", [0, -1, 1.5, "10", None])
def test_a_limit_must_be_a_positive_int(bad: object) -> None:
    with pytest.raises(ConfigError, match="frame_bytes"):
        SizeLimits(frame_bytes=bad)  # type: ignore[arg-type]


def test_the_limits_option_must_be_size_limits() -> None:
    with pytest.raises(ConfigError, match="limits must be a SizeLimits"):
        Lang.scripted(["x"], options={"limits": {"frame_bytes": 1}})


def feed_all(framer: SSEDecoder | NDJSONDecoder, pieces: list[bytes]) -> None:
    for piece in pieces:
        framer.feed(piece)


@pytest.mark.parametrize("piece", [1, 7, 4096])
def test_framers_refuse_a_frame_longer_than_the_cap(piece: int) -> None:
    for framer in (SSEDecoder(max_frame=100), NDJSONDecoder(max_frame=100)):
        line = (b"data: " if isinstance(framer, SSEDecoder) else b"") + b"x" * 150
        pieces = [line[start : start + piece] for start in range(0, len(line), piece)]
        with pytest.raises(StreamError, match="frame_bytes"):
            feed_all(framer, pieces)


def test_framers_take_frames_up_to_the_cap_whatever_the_chunking() -> None:
    sse = SSEDecoder(max_frame=100)
    events = []
    body = (b"data: " + b"y" * 90 + b"\n\n") * 5
    for start in range(0, len(body), 13):
        events += sse.feed(body[start : start + 13])
    assert events == [(None, "y" * 90)] * 5
    ndjson = NDJSONDecoder(max_frame=100)
    lines = []
    body = (b'"' + b"z" * 95 + b'"\n') * 5
    for start in range(0, len(body), 17):
        lines += ndjson.feed(body[start : start + 17])
    assert lines == ['"' + "z" * 95 + '"'] * 5


class EndlessLine:
    """A local server answering 200 with one SSE line that never ends (64 MiB, no newline)."""

    def __init__(self) -> None:
        self.sent = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        conn.settimeout(10)
        with conn, suppress(OSError):
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            )
            conn.sendall(b'data: {"choices":[{"index":0,"delta":{"content":"')
            piece = b"x" * 65536
            while self.sent < 64 * MIB:
                conn.sendall(piece)
                self.sent += len(piece)

    def close(self) -> None:
        self.thread.join(10)
        self.listener.close()


@pytest.fixture
def endless(monkeypatch: pytest.MonkeyPatch) -> Iterator[EndlessLine]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    server = EndlessLine()
    yield server
    server.close()


async def test_a_line_that_never_ends_fails_early(endless: EndlessLine) -> None:
    limits = SizeLimits(frame_bytes=MIB)
    lang = Lang.openai_compatible(endless.url, model="m", options=LangOptions(limits=limits))
    with pytest.raises(StreamError, match="frame_bytes"):
        await lang.ask("go")
    await lang.aclose()
    endless.close()
    # The client stopped reading soon after 1 MiB: what the server got rid of is that plus
    # the socket buffers, far from the 64 MiB it would have sent.
    assert endless.sent < 24 * MIB


async def test_a_streamed_body_past_body_bytes_is_a_stream_error() -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "x" * 1000}}]}
    body = wires.sse(*[chunk] * 100) + b"data: [DONE]\n\n"
    wire = Wire("openai", [body])
    with pytest.raises(StreamError, match="body_bytes"):
        await wire.lang.ask("go", limits=SizeLimits(body_bytes=50_000))


async def test_a_whole_body_past_body_bytes_is_a_stream_error() -> None:
    answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x" * 9000}}]}
    wire = Wire("openai", [httpx.Response(200, json=answer)])
    with pytest.raises(StreamError, match="body_bytes"):
        await wire.lang.ask("go", stream=False, limits=SizeLimits(body_bytes=5_000))


async def test_a_huge_error_body_is_cut_with_a_marker() -> None:
    page = json.dumps({"error": {"message": "no " * 1_000_000}}).encode()
    wire = Wire("openai", [httpx.Response(400, content=page)])
    with pytest.raises(BadRequestError) as info:
        await wire.lang.ask("go")
    kept = str(info.value.body)
    assert kept.endswith("... [error body truncated at 65536 bytes]")
    assert len(kept) < 66_000


async def test_a_huge_tool_result_reaches_the_model_cut_with_a_note() -> None:
    @tool
    def dump(size: int) -> str:
        """Dumps."""
        return "y" * size

    calls = {"function_calls": [{"name": "dump", "arguments": {"size": 250_000}}]}
    script = [calls, calls, "done"]
    result = await Lang.scripted(script).ask("go", functions=[dump])
    content = next(m for m in result.messages if m.role == "tool").content
    assert content.startswith("y" * 100_000 + "\n[... result truncated: 150,000 of 250,000")
    assert len(content) < 100_100
    small = await Lang.scripted(script).ask(
        "go", functions=[dump], limits=SizeLimits(tool_result_chars=10)
    )
    content = next(m for m in small.messages if m.role == "tool").content
    assert content == "y" * 10 + "\n[... result truncated: 249,990 of 250,000 characters not shown]"
    assert small.function_calls[0].result == "y" * 250_000  # the value itself is untouched
