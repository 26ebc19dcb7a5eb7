"""Outgoing requests: an ``HttpCall`` turned into the ``httpx.Request`` the transport sends.

Part of the transport (``_http.py`` sends, retries and maps failures). This module checks what
a request carries before httpx sees it (an unsendable header value, a URL without an
http(s) scheme, a body that is not JSON) and serializes the body. What depends only on the
URL and the headers (the parsed URL, the checked headers) is prepared once per distinct pair:
a ``Lang`` sends the same ones on every request, and parsing them costs more than the rest
of building a small request.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

import httpx

from .. import _errors as errors
from ._httpcall import HttpCall
from ._jsontext import write_body
from ._splice import LargeStrings

__all__ = ["RequestBuilder", "json_bytes", "where"]

# RFC 9110 field-value: visible characters, with spaces and tabs only between them.
_SENDABLE_VALUE = re.compile(r"(?:[\x21-\x7e](?:[ \t]*[\x21-\x7e])*)?")
# Distinct (URL, headers) pairs kept: a few per provider and model; per-request headers
# (``extra_headers`` per call, a refreshed token) add more, so the cache starts over when full.
_MOST_PREPARED = 64

_Key = tuple[str, tuple[tuple[str, str], ...]]
# What httpx adds to a request built from ``content``, unless the headers set it already.
_AUTO_HEADERS = ("host", "content-length", "transfer-encoding")
_Merged = tuple[list[tuple[bytes, bytes]], httpx.Headers, "httpx.Headers | None"]


class _Prepared:
    """A call's URL, parsed, and its headers, checked and completed."""

    __slots__ = ("_merged", "headers", "url")

    def __init__(self, url: httpx.URL, headers: dict[str, str]) -> None:
        self.url = url
        self.headers = headers
        # The client's headers as last seen, ours merged over them, and the same after the
        # Host header (None when they set Host or a body length themselves).
        self._merged: _Merged | None = None

    def merged_headers(self, client_headers: httpx.Headers) -> tuple[httpx.Headers, bool]:
        """The client's headers with ours replacing those of the same name, as httpx merges
        them; merged again only when a borrowed client's headers changed.

        Returns:
            The headers, and whether they are complete: the ``Host`` header httpx puts first
            is in, and only the body's length is missing. Not when they set ``Host`` or a
            length themselves: httpx then completes them as it does.
        """
        merged = self._merged
        if merged is None or merged[0] != client_headers.raw:
            merged = self._merge(client_headers)
        if merged[2] is None:
            return merged[1], False
        return merged[2], True

    def _merge(self, client_headers: httpx.Headers) -> _Merged:
        headers = httpx.Headers(client_headers)
        headers.update(self.headers)
        complete = None
        if self.url.host and not any(name in headers for name in _AUTO_HEADERS):
            complete = httpx.Headers([(b"Host", self.url.netloc)])
            complete.update(headers)
        self._merged = (client_headers.raw, headers, complete)
        return self._merged


class RequestBuilder:
    """Builds the ``httpx.Request`` of a call, preparing each URL and header set once."""

    __slots__ = ("_prepared",)

    def __init__(self) -> None:
        self._prepared: dict[_Key, _Prepared] = {}

    def build(self, client: httpx.AsyncClient, call: HttpCall) -> httpx.Request:
        """``POST call.url`` with the call's headers and its body as compact JSON (its
        ``content`` when written already).

        Raises:
            ConfigError: the URL, a header value or the body cannot be sent.
        """
        key = (call.url, tuple(call.headers.items()))
        prepared = self._prepared.get(key)
        if prepared is None:
            prepared = _prepare(call)
            if len(self._prepared) >= _MOST_PREPARED:
                self._prepared.clear()
            self._prepared[key] = prepared
        content = call.content if call.content is not None else json_bytes(call.body)
        if client.cookies or client.params:  # httpx merges these in; rare for an API client
            return client.build_request(
                "POST", prepared.url, content=content, headers=prepared.headers
            )
        # What ``build_request`` builds without cookies or query parameters, without merging
        # the client's headers into ours again for every request.
        extensions = {"timeout": client.timeout.as_dict()}
        headers, complete = prepared.merged_headers(client.headers)
        if not complete:
            return httpx.Request(
                "POST", prepared.url, content=content, headers=headers, extensions=extensions
            )
        # The body as a stream: httpx then adds no header of its own, so the merged ones go
        # in as they are (a copy of a list), and only the length is set per request.
        stream = httpx.ByteStream(content)
        request = httpx.Request(
            "POST", prepared.url, headers=headers, stream=stream, extensions=extensions
        )
        request.headers["Content-Length"] = str(len(content))
        request.read()  # the body on the request, as ``content=`` leaves it for event hooks
        return request


def _prepare(call: HttpCall) -> _Prepared:
    headers = dict(call.headers)  # kept for later requests: a copy the provider cannot touch
    # Header names are case-insensitive: add ours only when the provider set none (a second
    # spelling would go out as a second header line).
    if not any(name.lower() == "content-type" for name in headers):
        headers["content-type"] = "application/json"
    _check_header_values(headers)
    try:
        url = httpx.URL(call.url)
    except httpx.InvalidURL as exc:
        raise errors.ConfigError(f"Invalid URL {where(call)!r}: {exc}") from exc
    if url.scheme not in ("http", "https"):
        raise errors.ConfigError(f"The URL {where(call)!r} needs an http:// or https:// scheme")
    return _Prepared(url, headers)


def _check_header_values(headers: dict[str, str]) -> None:
    """Refuse a header value HTTP/1.1 cannot carry before httpx, h11 or httpcore see it.

    Their errors and DEBUG logs quote the whole value, which is most often an API key pasted
    with a stray character; this error names the header and never shows the value.
    """
    for name, value in headers.items():
        if not value.isascii():
            raise errors.ConfigError(f"Header {name} has a non-ASCII value (not shown)")
        if not _SENDABLE_VALUE.fullmatch(value):
            raise errors.ConfigError(
                f"Header {name} has a value HTTP cannot send: a line break, a control "
                "character, or whitespace at either end (the value is not shown)"
            )


def json_bytes(body: object) -> bytes:
    """The compact UTF-8 JSON of a request body.

    A body carrying large strings (images and documents as base64) is assembled by
    ``_splice`` into one buffer, so that the body's text and bytes are never both in memory.

    Raises:
        ConfigError: the body holds something JSON cannot carry.
    """
    try:
        large = LargeStrings.of(body)
    except RecursionError:  # absurd nesting: the plain path says so
        large = None
    text = _text(body if large is None else large.body)
    try:
        return text.encode() if large is None else large.assemble(text)
    except UnicodeEncodeError:
        # A lone surrogate (a filename read with surrogateescape, say) has no UTF-8 form;
        # the ASCII form escapes it as \udXXX, which JSON allows.
        return json.dumps(body, separators=(",", ":")).encode()


def _text(body: object) -> str:
    try:
        try:
            # NaN and infinities are not JSON, and servers refuse a body holding them.
            return write_body(body)
        except ValueError:
            # One came from the wire (a provider's opaque block replayed) or from extra_body:
            # sent as null, the rest of the conversation intact.
            return write_body(_finite(body))
    except (TypeError, ValueError, RecursionError) as exc:
        raise errors.ConfigError(f"The request body cannot be sent as JSON: {exc}") from exc


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def where(call: HttpCall) -> str:
    """The URL for messages, without a query string (some services put keys there) or the
    user and password a base URL may carry."""
    return _where(call.url)


@functools.lru_cache(maxsize=64)  # named for every request, though read only on a failure
def _where(url: str) -> str:
    url = url.split("?", 1)[0]
    scheme, found, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    if found and "@" in host:
        url = f"{scheme}://[redacted]@{host.rsplit('@', 1)[1]}{slash}{path}"
    return url
