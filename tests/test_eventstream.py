"""The binary eventstream framing: messages out of any split, CRCs and lengths checked.

Every recorded stream is also read by botocore's own parser, so the bytes are the ones AWS's
clients accept.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest
from botocore.eventstream import EventStreamBuffer

from aiwrapper import StreamError
from aiwrapper._wire._eventstream import EventStreamDecoder

from .providers.eventstream import event, exception, message

FIXTURES = Path(__file__).parent / "fixtures" / "bedrock"
STREAMS = ["text.bin", "thinking_tool_use.bin", "throttled.bin"]


def decoded(data: bytes, *, step: int | None = None) -> list[tuple[str, str]]:
    decoder = EventStreamDecoder()
    out: list[tuple[str, str]] = []
    pieces = [data] if step is None else [data[i : i + step] for i in range(0, len(data), step)]
    for piece in pieces:
        out += decoder.feed(piece)
    return out + decoder.flush()


def botocores(data: bytes) -> list[tuple[str, str]]:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    out = []
    for parsed in buffer:
        headers = parsed.headers
        name = headers.get(":event-type") or headers.get(":exception-type")
        out.append((name, parsed.payload.decode()))
    return out


@pytest.mark.parametrize("name", STREAMS)
def test_each_recorded_stream_reads_as_botocore_reads_it(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    assert decoded(data) == botocores(data)


@pytest.mark.parametrize("step", [1, 2, 3, 7, 12, 13, 64])
def test_a_stream_split_anywhere_gives_the_same_messages(step: int) -> None:
    data = (FIXTURES / "thinking_tool_use.bin").read_bytes()
    assert decoded(data, step=step) == decoded(data)


def test_an_event_comes_out_as_its_type_and_payload() -> None:
    data = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}})
    assert decoded(data) == [("contentBlockDelta", '{"contentBlockIndex":0,"delta":{"text":"Hi"}}')]


def test_an_exception_comes_out_as_its_exception_type() -> None:
    assert decoded(exception("throttlingException", "slow down")) == [
        ("throttlingException", '{"message": "slow down"}')
    ]


def test_an_error_message_comes_out_with_its_code_and_text() -> None:
    data = message(
        {":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom"}, b""
    )
    assert [(n, json.loads(d)) for n, d in decoded(data)] == [
        (":error", {"code": "InternalFailure", "message": "boom"})
    ]


def test_a_damaged_prelude_is_a_stream_error() -> None:
    data = bytearray(event("messageStart", {"role": "assistant"}))
    data[9] ^= 0xFF  # inside the prelude's CRC
    with pytest.raises(StreamError, match="prelude fails its CRC"):
        decoded(bytes(data))


def test_a_damaged_payload_is_a_stream_error() -> None:
    data = bytearray(event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}))
    data[-8] ^= 0x01  # a payload byte: the message CRC no longer matches
    with pytest.raises(StreamError, match="fails its CRC check"):
        decoded(bytes(data))


def test_a_stream_cut_inside_a_message_is_a_stream_error() -> None:
    data = (FIXTURES / "text.bin").read_bytes()
    with pytest.raises(StreamError, match="ended inside a message"):
        decoded(data[:-5])


def test_a_message_longer_than_the_frame_limit_is_refused_before_it_is_read() -> None:
    decoder = EventStreamDecoder(max_frame=64)
    big = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "x" * 500}})
    with pytest.raises(StreamError, match="longer than 64"):
        decoder.feed(big[:20])  # the prelude alone tells the length


def test_impossible_lengths_are_a_stream_error() -> None:
    prelude = struct.pack(">II", 8, 0)
    data = prelude + struct.pack(">I", zlib.crc32(prelude)) + b"\x00" * 8
    with pytest.raises(StreamError, match="impossible lengths"):
        decoded(data)


def test_a_header_of_an_unknown_type_is_a_stream_error() -> None:
    headers = b"\x05:oops\x0a\x00"
    payload = b"{}"
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + headers + payload
    with pytest.raises(StreamError, match="unknown value type 10"):
        decoded(body + struct.pack(">I", zlib.crc32(body)))
