"""What ``serve``'s two HTTP protocols share: the limits on request heads and connections.

uvicorn by itself waits forever for a request's head and keeps every connection it accepts.
``HeadGuard`` is mixed into both of ``serve``'s protocols (``_httptoolsguard`` over httptools'
parser, ``_h11guard`` over h11's): a request head that does not arrive within
``header_timeout`` closes its connection, and past ``max_connections`` open connections a new
one closes the one that has waited longest for a request head. Each protocol checks the size
of a head itself, as its bytes come, since neither parser bounds it (llhttp takes a 1 MB
header; h11 checks only a head that arrives in pieces). ``Corked`` joins a connection's
writes within one turn of the event loop.

Imported only when ``serve`` builds its server (uvicorn is the optional extra).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, ClassVar, Protocol

__all__ = ["Corked", "HeadGuard", "HeadLimits"]


class HeadLimits(Protocol):
    """The two limits the protocols read (``ServerLimits`` has them)."""

    @property
    def max_header_bytes(self) -> int: ...

    @property
    def header_timeout(self) -> float: ...


class HeadGuard:
    """A request-head deadline and the connection cap, for a uvicorn protocol class.

    The protocol calls ``guard`` once connected, ``expect_head`` whenever it waits for a
    request head again and ``head_arrived`` once one is in (or the connection is lost).
    ``limits`` and ``max_connections`` are set on the class ``serve`` hands uvicorn.
    """

    http_parser: ClassVar[str]  # its name, for a person
    limits: ClassVar[HeadLimits]
    max_connections: ClassVar[int]
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    arrived = 0.0
    head_timer: asyncio.TimerHandle | None = None

    def cork(self, transport: asyncio.Transport) -> asyncio.Transport:
        """``transport`` with its writes joined per turn of the loop (``Corked``)."""
        return Corked(transport, self.loop)  # type: ignore[return-value]

    def guard(self, connections: Iterable[object]) -> None:
        """Start the head deadline; past the cap, close the connection waiting longest."""
        self.arrived = self.loop.time()
        self.expect_head()
        live = [c for c in connections if isinstance(c, HeadGuard) and not c.transport.is_closing()]
        if len(live) > self.max_connections:
            waiting = [c for c in live if c.head_timer]
            oldest = min(waiting, key=lambda c: c.arrived, default=self)
            oldest.transport.close()

    def expect_head(self) -> None:
        """Give the next request head ``header_timeout`` seconds to arrive whole."""
        self.head_arrived()
        self.head_timer = self.loop.call_later(self.limits.header_timeout, self.transport.close)

    def head_arrived(self) -> None:
        """Stop the head deadline."""
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
