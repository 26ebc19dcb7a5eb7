"""uvicorn's httptools protocol with ``_guard``'s limits: ``serve``'s protocol where httptools is.

httptools (llhttp, the parser of Node.js) parses in C what h11 parses in Python, and it parses
ahead: the heads of pipelined requests are read while an earlier request is served, and it
bounds no head's size (a 1 MB header goes through, whole or in pieces). So the size of the
head being read is counted here as its bytes come, whether or not a request is in flight:

- a head that ends within the data just received is measured from what the parser made of it
  (request line and headers as received, less the blank line that ends it, as for h11);
- the bytes of a head still open when the data runs out all count, less those of the data
  that went before it (bodies and whole heads): trailing spaces and chunk sizes count too, so
  the measure errs on the large side, and only for a client that pipelines.

Past ``max_header_bytes``, the parser is stopped and the client gets a 400 and the connection
closes; as with a request httptools cannot parse, answers already due on the connection (to
pipelined requests before it) go out first, where uvicorn would write the 400 among them.
"""

from __future__ import annotations

import asyncio

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ._guard import HeadGuard

__all__ = ["GuardedHttpTools"]

_TOO_LARGE = "Request head too large"


class HeadTooLarge(Exception):
    """Raised in a parser callback to stop the parser: the head is past the limit."""


class GuardedHttpTools(HeadGuard, HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline and a size limit for request heads and a
    connection cap."""

    http_parser = "httptools"
    head_open = False  # a request head has begun and is not whole yet
    head_bytes = 0  # its bytes so far, less those of the data before it (see data_received)
    parsed = 0  # bytes of the data being parsed that were bodies and whole heads
    refusal: str | None = None  # why the parser stopped: the 400 due once answers are out

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(self.cork(transport))
        self.guard(self.connections)

    def data_received(self, data: bytes) -> None:
        if self.refusal is not None:  # the parser has stopped: nothing more is read
            return
        self._unset_keepalive_if_required()
        self.parsed = 0
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:  # serve speaks no WebSocket: the app answers
            self.logger.warning("Unsupported upgrade request.")
        except httptools.HttpParserError as exc:
            if not isinstance(exc.__context__, HeadTooLarge):
                self.logger.warning("Invalid HTTP request received.")
                self.refuse("Invalid HTTP request received.")
            else:
                self.refuse(_TOO_LARGE)
            return
        if self.head_open:
            self.head_bytes += len(data)
            if self.head_bytes > self.limits.max_header_bytes:
                self.refuse(_TOO_LARGE)

    def refuse(self, reason: str) -> None:
        """Answer 400 and close, once the answers due on this connection are out."""
        self.refusal = reason
        self.head_arrived()
        cycle = self.cycle  # the last request whose head came in
        if cycle is None or cycle.response_complete or cycle.more_body:  # its body is cut short
            self.send_400_response(reason)
        else:  # it and any pipelined before it are answered first
            self.flow.pause_reading()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head_open = True
        self.head_bytes = -self.parsed

    def on_headers_complete(self) -> None:
        size = self.head_size()
        if max(size, self.head_bytes) > self.limits.max_header_bytes:
            raise HeadTooLarge
        self.parsed += size + 4 - max(self.head_bytes, 0)
        self.head_open = False
        self.head_arrived()
        super().on_headers_complete()

    def head_size(self) -> int:
        """The bytes of the head just parsed, less the blank line that ends it."""
        line = len(self.parser.get_method()) + len(self.url) + len(" HTTP/1.1 \r\n")
        return line + sum(len(name) + len(value) + 4 for name, value in self.headers) - 2

    def on_body(self, body: bytes) -> None:
        self.parsed += len(body)
        super().on_body(body)

    def on_response_complete(self) -> None:
        queued = bool(self.pipeline)  # a pipelined request whose head is in, served next
        super().on_response_complete()
        if queued or self.transport.is_closing():
            return
        if self.refusal is not None:
            self.send_400_response(self.refusal)
        else:
            self.expect_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self.head_arrived()
        super().connection_lost(exc)
