"""uvicorn's h11 protocol with ``_guard``'s limits: ``serve``'s protocol without httptools.

h11 checks the size only of a head that arrives in pieces (``h11_max_incomplete_event_size``),
so the size is also checked here as the bytes come: the head so far is kept (up to the limit)
and searched for its end. A request framed both by Content-Length and Transfer-Encoding (a
request-smuggling shape, which httptools refuses) is read as chunked, as h11 does, and its
connection closed once it is answered: what follows it cannot be read as another request.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ._guard import HeadGuard

__all__ = ["GuardedH11"]


class GuardedH11(HeadGuard, H11Protocol):
    """uvicorn's h11 protocol, with a deadline and a size limit for request heads and a
    connection cap."""

    http_parser = "h11"
    head = b""  # the request head so far, while it is awaited

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(self.cork(transport))
        self.guard(self.connections)

    def data_received(self, data: bytes) -> None:
        if self.head_timer is not None and not self.head_fits(data):
            self.head_arrived()
            self.send_400_response("Request head too large")
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is in: the app has it
            self.head_arrived()

    def handle_events(self) -> None:
        served = self.cycle
        super().handle_events()
        if self.cycle is not served:  # a request came in (at most one: h11 pauses on the next)
            names = {name for name, _ in self.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                self.cycle.keep_alive = False

    def head_fits(self, data: bytes) -> bool:
        most = self.limits.max_header_bytes
        self.head = (self.head + data)[: most + 4]
        end = self.head.find(b"\r\n\r\n")
        return (end if end >= 0 else len(self.head)) <= most

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # A pipelined request's head may be in already (h11 went on to it).
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.expect_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self.head_arrived()
        super().connection_lost(exc)

    def head_arrived(self) -> None:
        self.head = b""
        super().head_arrived()
