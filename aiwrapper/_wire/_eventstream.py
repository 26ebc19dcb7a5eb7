"""The binary ``application/vnd.amazon.eventstream`` framing, decoded with its CRCs checked.

Protocol code without I/O, like ``_framing``: fed the body's chunks as they arrive (split
anywhere), it returns each complete message. A message is a 12-byte prelude (total length,
headers length, both big-endian uint32, then the CRC-32 of those 8 bytes), the headers, the
payload and a CRC-32 of everything before it. A header is a 1-byte name length, the name, a
1-byte value type and the value (types 0-9: true, false, byte, short, integer, long, bytes,
string, timestamp, uuid; bytes and strings carry a 2-byte length). A prelude or message whose
CRC does not match, a header of an unknown type, or a message longer than ``max_frame`` is a
``StreamError``: the bytes cannot be trusted past it.

Each message comes out as an SSE-like ``(name, data)`` pair for the provider's decoder: an
event's ``:event-type`` with its payload; an exception's ``:exception-type`` (a stream's
exceptions are members of the same union as its events); an error message as ``":error"``
with ``{"code", "message"}`` from its ``:error-code`` and ``:error-message`` headers.
"""

from __future__ import annotations

import json
import struct
import zlib

from .._errors import StreamError

__all__ = ["EventStreamDecoder", "Headers", "parse_headers"]

Headers = dict[str, object]

_PRELUDE = struct.Struct(">III")
_FIXED = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}  # value types of a fixed size, in bytes
_SIGNED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}
_SMALLEST = 16  # prelude and message CRC, with no headers and no payload


class EventStreamDecoder:
    """Incremental decoder of an eventstream body: ``feed`` bytes, get ``(name, data)`` pairs.

    Args:
        max_frame: The largest message accepted, in bytes (None: no cap).
    """

    __slots__ = ("_buffer", "_max")

    def __init__(self, max_frame: int | None = None) -> None:
        self._buffer = bytearray()
        self._max = max_frame

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        """Decode one chunk of the body; return the messages it completes."""
        self._buffer += chunk
        out: list[tuple[str, str]] = []
        while len(self._buffer) >= 12:
            total = self._check_prelude()
            if len(self._buffer) < total:
                break
            message = bytes(self._buffer[:total])
            del self._buffer[:total]
            out.append(_named(message))
        return out

    def flush(self) -> list[tuple[str, str]]:
        """The body ended: a message left incomplete is a broken stream."""
        if self._buffer:
            raise StreamError(
                f"the event stream ended inside a message ({len(self._buffer)} bytes)"
            )
        return []

    def _check_prelude(self) -> int:
        total, headers, crc = _PRELUDE.unpack_from(self._buffer)
        if zlib.crc32(self._buffer[:8]) != crc:
            raise StreamError("an event stream message's prelude fails its CRC check")
        if total < _SMALLEST or headers > total - _SMALLEST:
            raise StreamError(f"an event stream message declares impossible lengths ({total})")
        if self._max is not None and total > self._max:
            raise StreamError(
                f"an event stream message of {total:,} bytes is longer than {self._max:,} "
                "(SizeLimits.frame_bytes)"
            )
        return int(total)


def _named(message: bytes) -> tuple[str, str]:
    (crc,) = struct.unpack_from(">I", message, len(message) - 4)
    if zlib.crc32(message[:-4]) != crc:
        raise StreamError("an event stream message fails its CRC check")
    (headers_length,) = struct.unpack_from(">I", message, 4)
    headers = parse_headers(message[12 : 12 + headers_length])
    payload = message[12 + headers_length : -4].decode("utf-8", "replace")
    kind = headers.get(":message-type")
    if kind == "exception":
        return str(headers.get(":exception-type", "exception")), payload
    if kind == "error":
        fields = {"code": headers.get(":error-code"), "message": headers.get(":error-message")}
        return ":error", json.dumps(fields)
    return str(headers.get(":event-type", "")), payload


def parse_headers(data: bytes) -> Headers:
    """The headers of one message, by name."""
    headers: Headers = {}
    at = 0
    try:
        while at < len(data):
            size = data[at]
            name = data[at + 1 : at + 1 + size].decode("utf-8")
            at += 1 + size
            headers[name], at = _value(data, at)
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise StreamError(f"an event stream message has unreadable headers ({exc})") from exc
    return headers


def _value(data: bytes, at: int) -> tuple[object, int]:
    kind = data[at]
    at += 1
    if kind in (0, 1):
        return kind == 0, at
    if kind in (6, 7):
        (length,) = struct.unpack_from(">H", data, at)
        raw = data[at + 2 : at + 2 + length]
        if len(raw) != length:
            raise IndexError("value runs past the headers")
        return (raw.decode("utf-8") if kind == 7 else raw), at + 2 + length
    size = _FIXED.get(kind)
    if size is None:
        raise StreamError(f"an event stream header has an unknown value type {kind}")
    raw = data[at : at + size]
    if len(raw) != size:
        raise IndexError("value runs past the headers")
    value = struct.unpack(_SIGNED[kind], raw)[0] if kind in _SIGNED else raw.hex()
    return value, at + size
