"""Eventstream messages built byte by byte, as Bedrock's ConverseStream sends them.

Written from the framing's definition (prelude, headers, payload, two CRC-32s), independently
of the decoder under test; botocore's own parser checks every message built here.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any


def message(headers: dict[str, str], payload: bytes) -> bytes:
    """One message whose headers are all strings (value type 7)."""
    encoded = b"".join(
        bytes([len(name)])
        + name.encode()
        + b"\x07"
        + struct.pack(">H", len(value.encode()))
        + value.encode()
        for name, value in headers.items()
    )
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(kind: str, payload: dict[str, Any]) -> bytes:
    """An event message of ``kind`` (``contentBlockDelta``...) carrying ``payload``."""
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return message(headers, json.dumps(payload, separators=(",", ":")).encode())


def exception(kind: str, text: str) -> bytes:
    """An exception message (``throttlingException``...) with its ``message``."""
    headers = {
        ":exception-type": kind,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return message(headers, json.dumps({"message": text}).encode())
