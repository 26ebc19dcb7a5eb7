"""Sending a built request through an httpx client's transport, past the layers that would do
nothing for it.

Part of the transport (``_http.py`` sends and retries). ``AsyncClient.send`` takes every
request through an auth flow, a redirect loop, the event hooks and the cookie jar, which
builds urllib's request and response wrappers around each response before it looks for a
``Set-Cookie`` header: about half of what the client adds to a small API request, on every
round of a tool loop. For a client with no auth, no event hooks, that follows no redirects
and whose sending methods are httpx's own (neither overridden nor patched), those layers do
nothing for our requests; ``send`` then hands the request to the transport the client would
pick and gives the response what the client would: its request, the cookies a server set
(read only then, into the client's jar), the client's default encoding, the redirect it
names, httpx's INFO log line. Any other client sends as it always does.

Only ``response.elapsed`` is left unset (nobody here reads it). The client's private
attributes are read once per class; an httpx without them sends the usual way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import httpx

__all__ = ["send"]

_httpx_log = logging.getLogger("httpx")
# The methods a request goes through in ``AsyncClient.send``: a class that overrides or
# wraps any of them sends the usual way.
_PATH = (
    "send",
    "_send_handling_auth",
    "_send_handling_redirects",
    "_send_single_request",
    "_transport_for_url",
    "_build_redirect_request",
)
# What the direct path reads of a client (set by AsyncClient.__init__ in httpx 0.23-0.28).
_ATTRIBUTES = ("_auth", "_event_hooks", "_state", "_default_encoding", "follow_redirects")

try:  # httpx's own: the request an exception is about, as the client attaches it
    from httpx._client import ClientState
    from httpx._exceptions import request_context as _request_context
except ImportError:  # pragma: no cover - an httpx without them: every client sends as usual
    ClientState = None  # type: ignore[assignment,misc]
    _request_context = None  # type: ignore[assignment]

# Per client class: the ``send`` and ``_send_single_request`` seen, and the verdict.
_classes: dict[type, tuple[Any, Any, bool]] = {}


def send(client: httpx.AsyncClient, request: httpx.Request) -> Awaitable[httpx.Response]:
    """``client.send(request, stream=True)``, directly through the transport when the client's
    layers would do nothing (see the module docstring). The body is left unread."""
    if _direct(client, request):
        return _send_direct(client, request)
    return client.send(request, stream=True)


def _direct(client: httpx.AsyncClient, request: httpx.Request) -> bool:
    cls = type(client)
    known = _classes.get(cls)
    if known is None or known[0] is not cls.send or known[1] is not cls._send_single_request:
        known = _classes[cls] = (cls.send, cls._send_single_request, _httpx_own(cls, client))
    if not known[2]:
        return False
    hooks = client._event_hooks
    return (
        client._auth is None
        and not client.follow_redirects
        and not hooks["request"]
        and not hooks["response"]
        and client._state is not ClientState.CLOSED  # closed: send raises its own error
        and not request.url.userinfo  # credentials in the URL: send adds basic auth
    )


def _httpx_own(cls: type, client: httpx.AsyncClient) -> bool:
    """Whether ``cls`` sends through httpx's own methods, unpatched, and has what the direct
    path reads."""
    if ClientState is None or not all(hasattr(client, name) for name in _ATTRIBUTES):
        return False  # pragma: no cover - another httpx
    for name in _PATH:
        function = getattr(cls, name, None)
        if getattr(function, "__module__", None) != "httpx._client":
            return False
        own = getattr(httpx.AsyncClient, name, None)
        code = getattr(function, "__code__", None)
        if function is not own or code is None or code.co_name != name:
            return False  # overridden, or wrapped under httpx's name (functools.wraps)
    return True


async def _send_direct(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """What ``AsyncClient.send`` does for a request no layer acts on, without the layers."""
    client._state = ClientState.OPENED
    if "timeout" not in request.extensions:
        request.extensions["timeout"] = client.timeout.as_dict()
    transport = client._transport_for_url(request.url)
    with _context(request):
        response = await transport.handle_async_request(request)
    response.request = request
    try:
        headers = response.headers
        if "set-cookie" in headers or "set-cookie2" in headers:
            client.cookies.extract_cookies(response)
        response.default_encoding = client._default_encoding
        if _httpx_log.isEnabledFor(logging.INFO):
            _httpx_log.info(
                'HTTP Request: %s %s "%s %d %s"',
                request.method,
                request.url,
                response.http_version,
                response.status_code,
                response.reason_phrase,
            )
        if response.has_redirect_location:  # not followed: named, as the client names it
            response.next_request = client._build_redirect_request(request, response)
    except BaseException:
        await response.aclose()
        raise
    return response


def _context(request: httpx.Request) -> AbstractContextManager[Any]:
    make: Callable[..., AbstractContextManager[Any]] | None = _request_context
    return nullcontext() if make is None else make(request=request)
