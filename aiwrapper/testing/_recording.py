"""Record and replay HTTP exchanges for users' tests: a cassette behind an ``httpx`` client.

``cassette(path, record=True)`` returns an ``httpx.AsyncClient`` that sends requests for real
and writes each exchange to ``path`` (JSON) with keys and auth headers redacted; with
``record=False`` the same client answers from the file, offline, in order, and a request that
no longer matches its recording fails with :class:`ReplayMismatchError` naming what changed.
Pass the client to any ``Lang`` factory as ``http_client``. Streamed bodies are
recorded whole and replayed as one chunk: the decoders see the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from .._knowledge._tables import header_prefixes

__all__ = ["ReplayMismatchError", "cassette"]

REDACTED = "REDACTED"
# Headers and query parameters that carry credentials on the supported wires: besides these
# headers, every one named for an API key (``api-key``, ``x-api-key``, ``x-...-api-key``).
_SECRET_HEADERS = {"authorization", "cookie"}
_SECRET_PARAMS = {"key", "api_key", "api-key", "access_token"}
# Set by the transport for the bytes on the wire; the replayed body is plain.
_HOP_HEADERS = {"content-encoding", "content-length", "transfer-encoding", "set-cookie"}


class ReplayMismatchError(AssertionError):
    """A replayed request differs from its recording, or was never recorded."""


def cassette(path: str | Path, *, record: bool = False) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` that records to or replays from ``path``.

    Args:
        path: The cassette file (JSON; created, or overwritten, when recording).
        record: Send requests for real and save them; otherwise replay, offline.

    Returns:
        A client to pass as ``http_client`` to a ``Lang`` factory.
    """
    file = Path(path)
    transport: httpx.AsyncBaseTransport
    if record:
        transport = _Recorder(file)
    else:
        transport = _Player(json.loads(file.read_text(encoding="utf-8"))["exchanges"], file)
    return httpx.AsyncClient(transport=transport, trust_env=record)


def _secret(header: str) -> bool:
    return header in _SECRET_HEADERS or header.endswith("api-key")


def _request_record(request: httpx.Request) -> dict[str, Any]:
    headers = {
        k: REDACTED if _secret(k) else v
        for k, v in request.headers.items()
        if _secret(k) or k.startswith(header_prefixes())
    }
    return {
        "method": request.method,
        "url": _redacted_url(str(request.url)),
        "headers": headers,
        "body": _body(request.content),
    }


def _redacted_url(url: str) -> str:
    parts = urlsplit(url)
    query = [(k, REDACTED if k in _SECRET_PARAMS else v) for k, v in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _body(content: bytes) -> Any:
    text = content.decode("utf-8", "replace")
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


class _Recorder(httpx.AsyncBaseTransport):
    def __init__(self, file: Path) -> None:
        self.file = file
        self.exchanges: list[dict[str, Any]] = []
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        await response.aclose()
        headers = {k: v for k, v in response.headers.items() if k not in _HOP_HEADERS}
        self.exchanges.append(
            {
                "request": _request_record(request),
                "response": {"status": response.status_code, "headers": headers,
                             "body": body.decode("utf-8", "replace")},
            }
        )  # fmt: skip
        # Written after every exchange: a test that fails half-way still leaves what it did.
        self.file.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"exchanges": self.exchanges}, indent=2, ensure_ascii=False)
        self.file.write_text(text + "\n", encoding="utf-8")
        return httpx.Response(response.status_code, headers=headers, content=body)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Player(httpx.AsyncBaseTransport):
    def __init__(self, exchanges: list[dict[str, Any]], file: Path) -> None:
        self.exchanges = exchanges
        self.file = file
        self.next = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index, self.next = self.next, self.next + 1
        if index >= len(self.exchanges):
            where = f"{request.method} {_redacted_url(str(request.url))}"
            raise ReplayMismatchError(
                f"{self.file}: request #{index + 1} ({where}) was not recorded; the cassette "
                f"holds {len(self.exchanges)}: record it again"
            )
        recorded = self.exchanges[index]
        problem = _difference(recorded["request"], _request_record(request))
        if problem is not None:
            raise ReplayMismatchError(
                f"{self.file}: request #{index + 1} does not match its recording: {problem}"
            )
        answer = recorded["response"]
        return httpx.Response(
            answer["status"], headers=answer["headers"], content=answer["body"].encode("utf-8")
        )


def _difference(recorded: dict[str, Any], sent: dict[str, Any]) -> str | None:
    for key in ("method", "url"):
        if recorded[key] != sent[key]:
            return f"{key} was {recorded[key]!r}, now {sent[key]!r}"
    return _first_change(recorded["body"], sent["body"], "body")


def _first_change(old: Any, new: Any, path: str) -> str | None:
    """Where two JSON values first differ, as a path with both values."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(old.keys() | new.keys()):
            if key not in old or key not in new:
                return f"{path}.{key} {'added' if key in new else 'removed'}"
            change = _first_change(old[key], new[key], f"{path}.{key}")
            if change is not None:
                return change
        return None
    if isinstance(old, list) and isinstance(new, list):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            change = _first_change(a, b, f"{path}[{i}]")
            if change is not None:
                return change
        if len(old) != len(new):
            return f"{path} had {len(old)} items, now {len(new)}"
        return None
    return None if old == new else f"{path} was {old!r}, now {new!r}"
