"""Reading response bodies for the transport, within the size limits.

Part of the transport (``_http.py`` sends and retries; this module reads what comes back): the
chunks of a streamed body with httpx failures mapped to aiwrapper errors and the total size
capped, a whole body read the same way, and the head of an error body kept with a marker
instead of the whole of a possibly huge page.
"""

from __future__ import annotations

from contextlib import suppress

import anyio
import httpx

from .. import _errors as errors

__all__ = [
    "BodyChunks",
    "body_error",
    "close_response",
    "read_body",
    "read_error_body",
    "release",
]


class BodyChunks:
    """The chunks of a response body, with httpx failures mapped to aiwrapper errors.

    More than ``max_bytes`` in all (None: no cap) is a ``StreamError`` naming the limit.
    """

    __slots__ = ("_chunks", "_done", "_max", "_size", "_where")

    def __init__(self, response: httpx.Response, where: str, max_bytes: int | None = None) -> None:
        # Raw bytes skip one generator per chunk; ``aiter_bytes`` is needed for a compressed
        # body, and for one already read into memory (``httpx.MockTransport`` content).
        encoded = response.headers.get("content-encoding", "identity") != "identity"
        if encoded or response.is_stream_consumed:
            self._chunks = response.aiter_bytes()
        else:
            self._chunks = response.aiter_raw()
        self._where = where
        self._done = False
        self._max = max_bytes
        self._size = 0

    def __aiter__(self) -> BodyChunks:
        return self

    async def __anext__(self) -> bytes:
        try:
            chunk = await self._chunks.__anext__()
        except StopAsyncIteration:
            self._done = True
            raise
        except httpx.HTTPError as exc:
            self._done = True
            raise body_error(exc, self._where) from exc
        self._size += len(chunk)
        if self._max is not None and self._size > self._max:
            raise errors.StreamError(
                f"The response from {self._where} is larger than {self._max:,} bytes "
                "(SizeLimits.body_bytes; pass limits=SizeLimits(body_bytes=...) to allow more)"
            )
        return chunk

    async def finish(self) -> None:
        """Run httpx's chain of body generators to its end, once the response is closed.

        Closing only the outermost generator would leave the inner ones to the garbage
        collector, which trio reports as a ResourceWarning. Resumed under a cancelled scope,
        every one of them ends: on a closed connection the next read fails at once, and an
        in-memory body (``httpx.MockTransport``) is simply read out.
        """
        if self._done:
            return
        self._done = True
        with anyio.CancelScope() as scope:
            scope.cancel()
            with suppress(Exception):
                async for _ in self._chunks:
                    pass


async def release(response: httpx.Response, chunks: BodyChunks) -> None:
    """Close ``response`` and end ``chunks``, even from a cancelled scope."""
    if chunks._done and response.is_closed:
        # Read to its end: httpx closed the response itself and nothing is left to await,
        # so the shielded scope (a few microseconds on every request) is not needed.
        _unbind(response)
        return
    with anyio.CancelScope(shield=True):
        await response.aclose()
        await chunks.finish()
    _unbind(response)


def _unbind(response: httpx.Response) -> None:
    """Break the cycle between a closed response and the stream httpx bound to it.

    Left in place, the response, its request and the body it sent wait for the garbage
    collector, which a few large allocations do not wake: a tool loop replaying a 20 MB PDF
    would keep each round's 27 MB body through the next rounds.
    """
    response.stream = _SPENT


_SPENT = httpx.ByteStream(b"")  # what a closed response streams: nothing, and no cycle


async def read_body(response: httpx.Response, where: str, max_bytes: int) -> bytes:
    """The whole body of ``response`` (at most ``max_bytes``); the response is closed."""
    chunks = BodyChunks(response, where, max_bytes)
    try:
        return b"".join([chunk async for chunk in chunks])
    finally:
        await release(response, chunks)


async def read_error_body(response: httpx.Response, where: str, limit: int) -> bytes:
    """The first ``limit`` bytes of an error body, with a marker when there was more.

    Only that much is read: a server answering an error with a huge page cannot fill memory.
    A body that breaks off counts as empty: the status alone still decides.
    """
    chunks = BodyChunks(response, where)
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in chunks:
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    except errors.AIWrapperError:
        parts, size = [], 0
    finally:
        await release(response, chunks)
    body = b"".join(parts)
    if size > limit:
        body = body[:limit] + b"... [error body truncated at %d bytes]" % limit
    return body


async def close_response(response: httpx.Response) -> None:
    """Close ``response``, even from a cancelled scope."""
    with anyio.CancelScope(shield=True):
        await response.aclose()


def body_error(exc: httpx.HTTPError, where: str) -> errors.AIWrapperError:
    """The error for a response body that could not be read to its end."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return errors.RequestTimeoutError(f"{where} stopped sending in time ({detail})")
    return errors.StreamError(f"The response from {where} broke off: {detail}")
