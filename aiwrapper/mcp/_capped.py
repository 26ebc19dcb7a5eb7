"""A cap on the size of a JSON answer from a streamable-HTTP MCP server.

The ``mcp`` package reads a JSON answer whole before parsing it (an SSE answer is capped by
its own ``max_sse_event_size``), so a server answering 500 MB would be read into memory. The
hook here keeps no more than ``max_message_bytes`` and hands the package, in place of the
answer, a JSON-RPC error for the request that waited: that call fails with a message naming
the cap, and the connection goes on.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2
from mcp_types import PARSE_ERROR

__all__ = ["MessageTooLarge", "capping_hook", "too_large"]


class MessageTooLarge(httpx2.StreamError):
    """A JSON answer from an MCP server went past ``max_message_bytes`` (request id unknown)."""


def too_large(limit: int) -> str:
    """What an answer over the cap is called in errors."""
    return f"the server sent a message of more than {limit:,} bytes (max_message_bytes)"


def capping_hook(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    """A response hook for ``httpx2.AsyncClient``: JSON bodies are read through the cap.

    A hook, not a transport of our own, so the client keeps its proxies from the environment.
    """

    async def cap(response: httpx2.Response) -> None:
        if response.headers.get("content-type", "").lower().startswith("application/json"):
            response.stream = _CappedStream(response, limit)

    return cap


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, response: httpx2.Response, limit: int) -> None:
        inner = response.stream
        assert isinstance(inner, httpx2.AsyncByteStream)  # what an async transport returns
        self._inner = inner
        self._request = response.request
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # The body is held until it is known to fit: the package would read it whole anyway.
        # Past the cap the rest is read and dropped, not cut off: a half-read body would be
        # left to the garbage collector (a ResourceWarning on trio). The call's timeout bounds
        # a body without end.
        chunks: list[bytes] = []
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen <= self._limit:
                chunks.append(chunk)
            elif chunks:
                chunks.clear()
        yield self._refusal() if seen > self._limit else b"".join(chunks)

    def _refusal(self) -> bytes:
        try:
            ident = json.loads(self._request.content)["id"]
        except (ValueError, TypeError, KeyError, httpx2.RequestNotRead) as exc:
            raise MessageTooLarge(too_large(self._limit)) from exc
        error = {"code": PARSE_ERROR, "message": too_large(self._limit)}
        return json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}).encode()

    async def aclose(self) -> None:
        await self._inner.aclose()
