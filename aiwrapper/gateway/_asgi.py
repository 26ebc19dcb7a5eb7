"""ASGI 3 plumbing for the gateway: one exchange's request body, response and disconnect.

Plain ASGI, no framework: ``Exchange`` reads a size-limited body, sends a JSON or a streamed
response (each ``send`` waits while the server's write buffer is full, so a slow client slows
the upstream read instead of piling bytes up here), and remembers the status for the access
log. ``cancel_on_disconnect`` ends whatever work is running when the client goes away.
"""

from __future__ import annotations

import asyncio
import ipaddress
import math
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
from anyio import CancelScope

from .._wire._jsontext import json_writer
from ..providers._serving import GatewayError

__all__ = [
    "Exchange",
    "Receive",
    "Scope",
    "Send",
    "cancel_on_disconnect",
    "is_loopback",
    "unless_disconnected",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_COMPACT = json_writer(allow_nan=True)  # json.dumps(ensure_ascii=False, separators=(",", ":"))
MAX_RETRY_AFTER = 86_400  # seconds: a day; an upstream's longer delay is no plan
_SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),  # proxies (nginx) pass events on at once
]


class Exchange:
    """One HTTP request and its response."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.scope = scope
        self.receive = receive
        self._send = send
        self.status: int | None = None  # set when the response starts
        self.route: str | None = None  # the route served, for the access log
        self.extra_headers: list[tuple[bytes, bytes]] = []  # on every response (CORS)
        self._headers: dict[bytes, bytes] | None = None  # the request's, by lower-case name

    @property
    def started(self) -> bool:
        """The response's status line has gone out."""
        return self.status is not None

    def header(self, name: bytes) -> str | None:
        """A request header's value (``name`` in lower case), its bytes read as latin-1."""
        value = self.raw_header(name)
        return None if value is None else value.decode("latin-1")

    def raw_header(self, name: bytes) -> bytes | None:
        """A request header's value as sent (``name`` in lower case; the first one of a
        repeated header)."""
        headers = self._headers
        if headers is None:  # looked up by name from now on: a request reads several
            headers = self._headers = {}
            for key, value in self.scope.get("headers") or ():
                headers.setdefault(key.lower(), value)
        value = headers.get(name)
        return None if value is None else bytes(value)

    async def read_body(self, limit: int) -> list[bytes]:
        """The request body as the chunks it came in, refused with 413 past ``limit`` bytes
        (chunked uploads too). Not joined here: copying megabytes would hold the loop."""
        declared = self.header(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _too_large(limit)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise GatewayError(400, "invalid_request", "the client went away")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:  # stop reading at once: the rest is never buffered
                raise _too_large(limit)
            if chunk:
                chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks

    async def json(
        self, status: int, body: Any, headers: list[tuple[bytes, bytes]] | None = None
    ) -> None:
        """A whole JSON response, its length given (not sent in chunks)."""
        data = _COMPACT(body).encode("utf-8")
        head = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            *(headers or []),
        ]
        await self.start(status, head)
        await self.body(data, more=False)

    async def start_events(self) -> None:
        """Start a 200 server-sent-events response."""
        await self.start(200, _SSE_HEADERS)

    async def start(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        """Send the status line and headers."""
        self.status = status
        headers = [*headers, *self.extra_headers]
        await self._send({"type": "http.response.start", "status": status, "headers": headers})

    async def body(self, data: bytes, *, more: bool = True) -> None:
        """Send part of the body (the last part when ``more`` is False)."""
        await self._send({"type": "http.response.body", "body": data, "more_body": more})


def error_headers(error: GatewayError) -> list[tuple[bytes, bytes]]:
    """``retry-after`` (whole seconds, rounded up, at most a day) for an error that has one.

    An upstream may say anything (a 400-digit delay is ``inf`` once read): a value that is
    not a number says nothing, and a huge one is capped.
    """
    try:
        seconds = float(error.retry_after)  # type: ignore[arg-type]
    except OverflowError:  # an int too large for a float
        seconds = math.inf
    except (TypeError, ValueError):
        return []
    if math.isnan(seconds):
        return []
    capped = min(max(seconds, 0.0), MAX_RETRY_AFTER)
    return [(b"retry-after", str(math.ceil(capped)).encode())]


def _too_large(limit: int) -> GatewayError:
    return GatewayError(413, "request_too_large", f"the request body is larger than {limit} bytes")


def is_loopback(scope: Scope) -> bool:
    """The client connects from this machine (a Unix socket counts: it has no address)."""
    client = scope.get("client")
    if not client:
        return True
    try:
        return ipaddress.ip_address(str(client[0]).split("%")[0]).is_loopback
    except ValueError:
        return False  # a name or anything else unparseable is not known to be local


async def unless_disconnected(receive: Receive, work: Callable[[], Awaitable[None]]) -> None:
    """Run ``work()``, cancelled when the client disconnects meanwhile (after the body was read).

    On asyncio the watcher is a bare task, cancelled once ``work`` is over: an anyio task
    group costs about 60 microseconds more per request (making the task, cancelling its scope,
    waiting for the watcher to end), a tenth of serving a small request. Elsewhere (trio) it is
    a task group. Either way a disconnect cancels ``work`` through an anyio cancel scope.
    """
    if _asyncio_task() is None:
        async with anyio.create_task_group() as group:
            group.start_soon(cancel_on_disconnect, receive, group.cancel_scope)
            try:
                await work()
            finally:
                group.cancel_scope.cancel()
        return
    with CancelScope() as scope:
        watcher = asyncio.get_running_loop().create_task(_watch(receive, scope))
        try:
            await work()
        finally:
            watcher.cancel()  # it ends at its next step; nothing waits for that
            if watcher.done() and not watcher.cancelled():
                watcher.result()  # a failure of ``receive`` is raised, as a task group would


async def _watch(receive: Receive, scope: CancelScope) -> None:
    """``cancel_on_disconnect``, also cancelling ``scope`` when ``receive`` fails (as a task
    group cancels its tasks when one fails)."""
    try:
        await cancel_on_disconnect(receive, scope)
    except Exception:
        scope.cancel()
        raise


def _asyncio_task() -> asyncio.Task[Any] | None:
    """The asyncio task running this, or None under another event loop (trio)."""
    try:
        return asyncio.current_task()
    except RuntimeError:  # no asyncio loop running in this thread
        return None


async def cancel_on_disconnect(receive: Receive, scope: CancelScope) -> None:
    """Cancel ``scope`` when the client disconnects (run after the body has been read)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            scope.cancel()
            return
