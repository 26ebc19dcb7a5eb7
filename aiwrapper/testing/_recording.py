"""Record and replay HTTP exchanges for users' tests: a cassette behind an ``httpx`` client.

``cassette(path, record=True)`` returns an ``httpx.AsyncClient`` that sends requests for real
and writes each exchange to ``path`` (JSON) with every credential the requests carried
redacted wherever it appears (``aiwrapper.testing._cassettesecrets``); with ``record=False``
the same client answers from the file, offline, in order, and a request that no longer matches its
recording fails with :class:`ReplayMismatchError` naming what changed (a damaged file is a
``ConfigError`` naming what is wrong in it).
Pass the client to any ``Lang`` factory as ``http_client``. Streamed bodies are
recorded whole and replayed as one chunk: the decoders see the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from .._knowledge._tables import header_prefixes
from ._cassettefile import load_exchanges
from ._cassettesecrets import REDACTED, Secrets, secret_header

__all__ = ["ReplayMismatchError", "cassette"]

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
    transport = _Recorder(file) if record else _Player(load_exchanges(file), file)
    return httpx.AsyncClient(transport=transport, trust_env=record)


def _request_record(request: httpx.Request, secrets: Secrets) -> dict[str, Any]:
    headers = {
        k: REDACTED if secret_header(k) else secrets.text(v)
        for k, v in request.headers.items()
        if secret_header(k) or k.startswith(header_prefixes())
    }
    return {
        "method": request.method,
        "url": secrets.url(str(request.url)),
        "headers": headers,
        "body": _body(request.content, secrets),
    }


def _body(content: bytes, secrets: Secrets) -> Any:
    """The body as JSON (its text when it is not JSON), with the known credentials redacted."""
    text = content.decode("utf-8", "replace")
    try:
        return secrets.value(json.loads(text)) if text else None
    except ValueError:
        return secrets.text(text)
    except RecursionError:  # nested deeper than a JSON value is followed: kept as text
        return secrets.text(text)


class _Recorder(httpx.AsyncBaseTransport):
    def __init__(self, file: Path, *, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.file = file
        self.exchanges: list[dict[str, Any]] = []
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.secrets = Secrets()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.secrets.learn(request)
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        await response.aclose()
        headers = {k: v for k, v in response.headers.items() if k not in _HOP_HEADERS}
        secrets = self.secrets
        kept = {k: REDACTED if secret_header(k) else secrets.text(v) for k, v in headers.items()}
        self.exchanges.append(
            {
                "request": _request_record(request, self.secrets),
                "response": {"status": response.status_code, "headers": kept,
                             "body": self.secrets.text(body.decode("utf-8", "replace"))},
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
        # Learnt from the requests replayed, redacted as when recording, so that they compare.
        self.secrets = Secrets()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index, self.next = self.next, self.next + 1
        self.secrets.learn(request)
        if index >= len(self.exchanges):
            where = f"{request.method} {self.secrets.url(str(request.url))}"
            raise ReplayMismatchError(
                f"{self.file}: request #{index + 1} ({where}) was not recorded; the cassette "
                f"holds {len(self.exchanges)}: record it again"
            )
        recorded = self.exchanges[index]
        problem = _difference(recorded["request"], _request_record(request, self.secrets))
        if problem is not None:
            raise ReplayMismatchError(
                f"{self.file}: request #{index + 1} does not match its recording: {problem}"
            )
        answer = recorded["response"]
        # Encoded here: httpx takes only ASCII ``str`` header values, and a recorded value is
        # text httpx decoded from whatever bytes the server sent.
        headers = [(k.encode("utf-8"), v.encode("utf-8")) for k, v in answer["headers"].items()]
        return httpx.Response(answer["status"], headers=headers, content=answer["body"].encode())


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
