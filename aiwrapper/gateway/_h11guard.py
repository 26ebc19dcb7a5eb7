"""uvicorn's h11 protocol with a deadline and a size limit for request heads, and a connection cap.

Imported only when ``serve`` builds its server (uvicorn is the optional extra). h11 checks
the size only of a head that arrives in pieces, so the size is also checked here as the bytes
come; a head that does not arrive within ``header_timeout`` closes its connection, and past
``max_connections`` open connections a new one closes the one that has waited longest for a
request head.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, Protocol

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["Corked", "GuardedH11", "HeadLimits", "guarded_h11"]


class HeadLimits(Protocol):
    """The two limits this protocol reads (``ServerLimits`` has them)."""

    @property
    def max_header_bytes(self) -> int: ...

    @property
    def header_timeout(self) -> float: ...


def guarded_h11(limits: HeadLimits, max_connections: int) -> type[GuardedH11]:
    """The protocol class uvicorn is given: ``GuardedH11`` with these limits."""
    settings = {"limits": limits, "max_connections": max_connections}
    return type("GuardedH11", (GuardedH11,), settings)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol, with a deadline and a size limit for request heads and a
    connection cap."""

    limits: ClassVar[HeadLimits]
    max_connections: ClassVar[int]
    arrived = 0.0
    head_timer: asyncio.TimerHandle | None = None
    head = b""  # the request head so far, while it is awaited

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(Corked(transport, self.loop))  # type: ignore[arg-type]
        self.arrived = self.loop.time()
        self.expect_head()
        live = [c for c in self.connections if not c.transport.is_closing()]
        if len(live) > self.max_connections:
            waiting = [c for c in live if isinstance(c, GuardedH11) and c.head_timer]
            oldest = min(waiting, key=lambda c: c.arrived, default=self)
            oldest.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.head_timer is not None and not self.head_fits(data):
            self.head_arrived()
            self.send_400_response("Request head too large")
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is in: the app has it
            self.head_arrived()

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

    def expect_head(self) -> None:
        self.head_arrived()
        timeout = self.limits.header_timeout
        self.head_timer = self.loop.call_later(timeout, self.transport.close)

    def head_arrived(self) -> None:
        self.head = b""
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None


class Corked:
    """A connection's transport whose writes within one turn of the event loop go out as one.

    uvicorn writes a response's head, each part of its body and a chunked body's end marker
    separately: a system call each, more than the rest of serving a small answer costs. Here
    they are joined and written once the task that wrote them gives way (``call_soon``); a
    close writes what is pending first. Everything else is the transport's.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        """Keep ``data`` for the write at the end of this turn of the loop."""
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data)

    def flush(self) -> None:
        """Write what is pending, in one call."""
        pending, self._pending = self._pending, []
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._pending = []
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._pending))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
