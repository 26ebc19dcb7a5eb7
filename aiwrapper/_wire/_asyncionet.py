"""An asyncio-native network backend for httpcore, given to the transport's own client.

Part of the transport (``_http.py`` builds the client and calls ``install``). On asyncio,
httpcore's default backend goes through anyio streams: every socket read and write enters a
cancel scope, takes a checkpoint and pauses or resumes the transport's reading, about 17% of
the process's CPU for a small API call. Measured on 2 shared cores, A/B in one session:
``Lang.chat`` to a local server, 570-635 us of CPU per request with it, 440-530 us with this
backend; the gateway's CPU per small proxied request (``benchmarks/gateway.py``), 1.47-2.20 ms
with it, 1.17-1.50 ms with this one.

Here a read waits on one future (with a timer handle when there is a timeout), a write hands
the bytes to the transport and waits only while asyncio asks it to pause. Reading stays on
between requests, so the protocol itself sees a server closing an idle keep-alive connection
(httpcore's ``is_readable``); it stops reading while more than ``_HIGH_WATER`` bytes wait, so a
slow consumer of a fast stream buffers a bounded amount. Errors are httpcore's, mapped as its
anyio backend maps them. Under trio (or any other library) every call goes to httpcore's own
backend; borrowed clients and proxy transports keep theirs.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import sys
from collections import deque
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

import httpcore
import httpx

__all__ = ["AsyncioBackend", "AsyncioStream", "install"]

_T = TypeVar("_T")
# The socket is not read while more than this waits unread; reading resumes below _LOW_WATER.
_HIGH_WATER = 256 * 1024
_LOW_WATER = 64 * 1024
_HAPPY_EYEBALLS_DELAY = 0.25  # as anyio's connect_tcp: the next address after this long
_SOCKET_OPTION = Any  # httpcore's SOCKET_OPTION: a (level, option, value) tuple
# httpcore's names for what a stream tells (get_extra_info) that asyncio names otherwise;
# the others ("ssl_object", "socket") are the same.
_EXTRA = {"client_addr": "sockname", "server_addr": "peername"}


def install(transport: object) -> None:
    """Give httpx's default ``transport`` this backend, when it holds httpcore's plain pool;
    any other (a mock, a proxy, an httpx or httpcore without these attributes) keeps its own."""
    if type(transport) is not httpx.AsyncHTTPTransport:
        return
    pool = getattr(transport, "_pool", None)
    if type(pool) is not httpcore.AsyncConnectionPool:  # AsyncHTTPProxy is a subclass
        return
    default = getattr(pool, "_network_backend", None)
    if isinstance(default, httpcore.AsyncNetworkBackend):
        pool._network_backend = AsyncioBackend(default)


class _Protocol(asyncio.Protocol):
    """What the socket delivered, and the one reader and one writer waiting for it."""

    def __init__(self) -> None:
        self.transport: asyncio.BaseTransport | None = None
        self.chunks: deque[bytes] = deque()
        self.buffered = 0
        self.start = 0  # where the unread part of the first chunk starts
        self.eof = False  # the peer closed (or the connection is gone)
        self.error: BaseException | None = None  # why the connection broke, if it did
        self.reading_paused = False
        self.writing_paused = False
        self.reader: asyncio.Future[bool] | None = None
        self.writer: asyncio.Future[bool] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered > _HIGH_WATER and not self.reading_paused:
            self.reading_paused = True
            self.transport.pause_reading()  # type: ignore[union-attr]
        _wake(self.reader)

    def eof_received(self) -> None:
        self.eof = True  # returning None: the transport closes itself
        _wake(self.reader)

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self.writing_paused = False
        _wake(self.reader)
        _wake(self.writer)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        _wake(self.writer)

    def take(self, max_bytes: int) -> bytes:
        """The first buffered chunk, or its next ``max_bytes`` (a chunk is buffered)."""
        chunk, start = self.chunks[0], self.start
        if start == 0 and len(chunk) <= max_bytes:
            data = self.chunks.popleft()
        else:  # read in slices: only the bytes returned are copied, never the rest
            data = chunk[start : start + max_bytes]
            self.start = start + len(data)
            if self.start == len(chunk):
                self.chunks.popleft()
                self.start = 0
        self.buffered -= len(data)
        if self.reading_paused and self.buffered <= _LOW_WATER:
            self.reading_paused = False
            self.transport.resume_reading()  # type: ignore[union-attr]
        return data


def _wake(waiter: asyncio.Future[bool] | None, woken: bool = True) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(woken)  # False: the timer ran out


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection (plain or TLS) as httpcore's network stream, on asyncio transports."""

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._loop = asyncio.get_running_loop()
        self._closed = False

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        while not protocol.chunks:
            if self._closed:
                raise httpcore.ReadError("the connection is closed")
            if protocol.error is not None:
                raise httpcore.ReadError(str(protocol.error)) from protocol.error
            if protocol.eof:
                return b""
            woke = await self._wait(timeout, reading=True)
            if not woke and not protocol.chunks and not protocol.eof:
                raise httpcore.ReadTimeout("timed out reading from the server")
        return protocol.take(max_bytes)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if self._closed or self._transport.is_closing():
            raise httpcore.WriteError(_broken(protocol)) from protocol.error
        self._transport.write(buffer)
        while protocol.writing_paused:
            if not await self._wait(timeout, reading=False) and protocol.writing_paused:
                raise httpcore.WriteTimeout("timed out writing to the server")
        if protocol.error is not None:  # broke while the bytes waited to be sent
            raise httpcore.WriteError(_broken(protocol)) from protocol.error

    async def _wait(self, timeout: float | None, *, reading: bool) -> bool:
        """Wait until the protocol wakes us (True) or ``timeout`` passes (False); cancelled
        or not, the timer and the protocol's reference to the future are dropped."""
        waiter: asyncio.Future[bool] = self._loop.create_future()
        timer = None if timeout is None else self._loop.call_later(timeout, _wake, waiter, False)
        if reading:
            self._protocol.reader = waiter
        else:
            self._protocol.writer = waiter
        try:
            return await waiter
        finally:
            if reading:
                self._protocol.reader = None
            else:
                self._protocol.writer = None
            if timer is not None:
                timer.cancel()

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            # As httpcore's anyio backend: bytes asyncio still holds are dropped, not kept for
            # a server that may never read them, and TLS ends without the close_notify
            # exchange, whose wait for the server's answer could keep the socket 30 s.
            self._transport.abort()
            await asyncio.sleep(0)  # one loop turn: asyncio closes the socket in it

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        starting = self._loop.start_tls(
            self._transport, self._protocol, ssl_context, server_hostname=server_hostname
        )
        try:
            transport = await _within(starting, timeout)
        except BaseException as exc:
            await self.aclose()
            if isinstance(exc, asyncio.TimeoutError):
                raise httpcore.ConnectTimeout("timed out during the TLS handshake") from exc
            if isinstance(exc, (OSError, ssl.SSLError)):
                raise httpcore.ConnectError(str(exc)) from exc
            raise
        if transport is None:  # the loop gives None when the connection was already lost
            raise httpcore.ConnectError("the server closed the connection during TLS")
        self._protocol.transport = transport
        return AsyncioStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # idle: only the server's EOF or stray bytes come in
            return bool(self._closed or self._protocol.chunks or self._protocol.eof)
        value = self._transport.get_extra_info(_EXTRA.get(info, info))
        # Addresses as (host, port), as anyio gives them; asyncio's IPv6 ones are 4-tuples.
        return value[:2] if info.endswith("_addr") and isinstance(value, tuple) else value


def _broken(protocol: _Protocol) -> str:
    return str(protocol.error) if protocol.error is not None else "the connection is closed"


async def _within(coroutine: Coroutine[Any, Any, _T], timeout: float | None) -> _T:
    """Await ``coroutine``, raising ``asyncio.TimeoutError`` after ``timeout`` seconds."""
    if timeout is None:
        return await coroutine
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):
            return await coroutine
    return await asyncio.wait_for(coroutine, timeout)  # pragma: no cover - Python 3.10


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Connects with asyncio's transports on asyncio; elsewhere with ``default``, httpcore's
    own backend (the pool's), which picks anyio or trio itself."""

    def __init__(self, default: httpcore.AsyncNetworkBackend) -> None:
        self._default = default

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if not _on_asyncio():
            default = self._default
            return await default.connect_tcp(host, port, timeout, local_address, socket_options)
        loop = asyncio.get_running_loop()
        local = None if local_address is None else (local_address, 0)
        if isinstance(loop, asyncio.BaseEventLoop):
            connecting = loop.create_connection(
                _Protocol, host, port, local_addr=local, happy_eyeballs_delay=_HAPPY_EYEBALLS_DELAY
            )
        else:  # uvloop's takes no happy_eyeballs_delay: it tries the addresses in turn
            connecting = loop.create_connection(_Protocol, host, port, local_addr=local)
        try:
            transport, protocol = await _within(connecting, timeout)
        except asyncio.TimeoutError as exc:
            raise httpcore.ConnectTimeout("timed out connecting to the server") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        _set_options(transport, socket_options or ())
        return AsyncioStream(transport, protocol)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return await self._default.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await (asyncio.sleep(seconds) if _on_asyncio() else self._default.sleep(seconds))


def _on_asyncio() -> bool:
    # An asyncio task is running this code: not trio, nor trio's guest mode on an asyncio loop.
    try:
        return asyncio.current_task() is not None
    except RuntimeError:  # no asyncio loop in this thread
        return False


def _set_options(transport: asyncio.Transport, options: Iterable[_SOCKET_OPTION]) -> None:
    sock = transport.get_extra_info("socket")
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as anyio's connect_tcp
        for option in options:
            sock.setsockopt(*option)
    except OSError as exc:
        transport.close()
        raise httpcore.ConnectError(str(exc)) from exc
