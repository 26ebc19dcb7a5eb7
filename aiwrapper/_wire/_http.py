"""The HTTP transport: the one module that talks to the network, and the only httpx user.

``HttpTransport`` POSTs a provider's ``HttpCall`` as JSON, retries what the official vendor
SDKs retry, turns every httpx failure into an aiwrapper error, and
hands streamed bodies over as raw byte chunks. What goes into a request and what a body means
belong to the providers (``providers/<name>.py``); cutting bytes into events to ``_framing.py``.

Owned ``httpx.AsyncClient`` instances are kept per event loop, on the transport instance: a
connection pool is bound to the loop that opened its sockets, and the sync facade may run
several loops over a transport's life. On asyncio they read and write through asyncio's own
transports (``_asyncionet.py``), not anyio's streams; on trio, httpcore's backend is used.

Owned clients keep httpx's ``trust_env=True``, as the vendor SDKs do: ``HTTPS_PROXY``,
``HTTP_PROXY``, ``ALL_PROXY``, ``NO_PROXY`` and ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` apply, so
the SDK works behind a corporate proxy. A local model server is proxied too unless
``NO_PROXY`` names it; a user who wants no environment borrows ``httpx.AsyncClient(
trust_env=False)``. HTTP/2 is not used: one stream per connection over HTTP/1.1 keep-alive.
"""

from __future__ import annotations

import json
import random
import ssl
import sys
import time
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any

import anyio
import anyio.lowlevel
import httpcore  # noqa: F401 - httpx loads it at the first client; pay it at construction
import httpx
from anyio import sleep

from .. import _errors as errors
from ._bodies import BodyChunks, read_body, read_error_body, release
from ._direct import send
from ._httpcall import HttpCall, retry_after_seconds
from ._logs import log_attempt
from ._outgoing import RequestBuilder
from ._outgoing import where as _where
from ._settings import HttpSettings, check_http_settings
from ._sizelimits import SizeLimits
from ._telemetry import on_retry, on_send

__all__ = ["HttpSettings", "HttpTransport", "OnError", "retry_delay"]

OnError = Callable[[int, bytes, Mapping[str, str]], errors.ProviderError]
"""Builds the provider's exception from an error response: ``(status, body, headers)``."""

_CONNECT_TIMEOUT = 10.0
_MAX_RETRY_AFTER = 60.0
# A model call holds its connection for seconds to minutes, so a service running many runs at
# once needs many connections: the default serves a few hundred concurrent streams. Idle ones
# are kept a while (the vendors' servers keep them 60 s or more), a few dozen at most.
MAX_CONNECTIONS = 512
_MAX_IDLE = 64
_KEEPALIVE_EXPIRY = 30.0
# Failures where the server did not take the request (refused, reset, a stale keep-alive
# connection closed under us): resending is safe, and the vendor SDKs do it.
_RETRY_EXCEPTIONS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)
# The connection dropped before any response head: most often a pooled keep-alive connection
# the server closed just as it was reused (a race the pool's liveness check cannot see).
# Resent once at once, outside ``max_retries``, as browsers do for a reused connection.
_DEFAULT_SIZES = SizeLimits()
_DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


class HttpTransport:
    """Sends provider calls over HTTP/1.1 keep-alive with retries, and streams bodies.

    Args:
        timeout: Seconds to wait for the server (each read and write), or a full
            ``httpx.Timeout``; ``None`` waits forever. Connecting is capped at 10 s. Waiting
            for a free connection when all ``max_connections`` are busy is not limited by it
            (those connections are busy with streams that may rightly take minutes); the run's
            ``timeout`` option bounds a whole run.
        max_connections: Connections open at once to all servers (owned clients only; a
            borrowed client keeps its own limits). Runs beyond it wait for a free one.
        max_retries: Retries after the first attempt, for retryable statuses and failures to
            connect.
        http_client: An ``httpx.AsyncClient`` to borrow. It is used as is (its own timeout,
            limits, proxies, auth and event hooks apply; its ``base_url`` is ignored, as the
            providers send absolute URLs; its headers are sent unless a provider header of
            the same name replaces them) and never closed by the transport.
        retry_base_delay: Backoff before the first retry, doubled at each further one.
        retry_max_delay: Upper bound of the backoff (a server's ``retry-after`` may ask more).
    """

    def __init__(
        self,
        *,
        timeout: float | httpx.Timeout | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
    ) -> None:
        check_http_settings(
            timeout=None if isinstance(timeout, httpx.Timeout) else timeout,
            max_retries=max_retries,
            retry_base_delay=retry_base_delay,
            retry_max_delay=retry_max_delay,
        )
        self._limits = _limits(max_connections, borrowing=http_client is not None)
        self.timeout = _normal_timeout(timeout)
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self._borrowed = http_client
        # loop -> (client, whether it verifies TLS)
        self._clients: weakref.WeakKeyDictionary[object, tuple[httpx.AsyncClient, bool]] = (
            weakref.WeakKeyDictionary()
        )
        self._tls: ssl.SSLContext | None = None  # built once, shared by the clients of all loops
        self._requests = RequestBuilder()

    async def request_json(
        self, call: HttpCall, on_error: OnError, *, limits: SizeLimits | None = None
    ) -> Any:
        """POST ``call`` and return its JSON response body.

        Raises:
            ProviderError: what ``on_error`` builds for a non-2xx status after the retries.
            ConnectionError: the server could not be reached.
            RequestTimeoutError: the server did not answer in time.
            StreamError: the body broke off, is not JSON, or exceeds ``limits.body_bytes``.
        """
        limits = limits or _DEFAULT_SIZES
        response = await self._open(call, on_error, limits)
        body = await read_body(response, _where(call), limits.body_bytes)
        try:
            return json.loads(body)
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
            excerpt = body[:200].decode("utf-8", "replace")
            raise errors.StreamError(
                f"{_where(call)} answered with invalid JSON "
                f"({response.headers.get('content-type', 'no content-type')}): {excerpt!r}"
            ) from exc

    @asynccontextmanager
    async def stream(
        self, call: HttpCall, on_error: OnError, *, limits: SizeLimits | None = None
    ) -> AsyncIterator[AsyncIterator[bytes]]:
        """POST ``call`` and yield an iterator over the raw chunks of its 2xx body.

        Retries apply to the response head only, before any byte is handed out. Read the
        iterator to its end so the connection goes back to the pool; leaving early (an
        error, a cancellation) closes the response and its connection.

        Raises:
            ProviderError: what ``on_error`` builds for a non-2xx status after the retries.
            ConnectionError: the server could not be reached.
            RequestTimeoutError: the server did not answer, or stopped sending, in time.
            StreamError: the body broke off (reset, closed mid-message), or exceeds
                ``limits.body_bytes``.
        """
        limits = limits or _DEFAULT_SIZES
        response = await self._open(call, on_error, limits)
        chunks = BodyChunks(response, _where(call), limits.body_bytes)
        try:
            yield chunks
        finally:
            await release(response, chunks)

    async def aclose(self) -> None:
        """Close the owned client of the current event loop; forget those of other loops.

        A client of another loop cannot be closed from this one (its sockets belong to that
        loop), so it is dropped. A borrowed client is left open. The transport stays usable:
        the next request opens a new client.
        """
        key = _loop_key()
        clients = list(self._clients.items())
        self._clients.clear()
        for loop, (client, _) in clients:
            if loop is key:
                await client.aclose()

    async def __aenter__(self) -> HttpTransport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _client(self, url: str = "") -> httpx.AsyncClient:
        """The borrowed client, or the owned one of the running event loop."""
        if self._borrowed is not None:
            return self._borrowed
        key = _loop_key()
        client, verifies = self._clients.get(key, (None, False))
        secure = not url.startswith("http://")  # verify TLS unless it is known to be unused
        if client is None or client.is_closed or (secure and not verifies):
            self._forget_closed_loops()
            client = _OwnedClient(
                timeout=self.timeout, limits=self._limits, verify=self._verify(secure)
            )
            self._clients[key] = (client, secure)
        return client

    def _verify(self, secure: bool) -> ssl.SSLContext | bool:
        # Loading the CA bundle costs tens of milliseconds: done once per transport, and not
        # at all for a plain-http server (a local model), which never does TLS. Redirects are
        # not followed, so such a client never reaches an https URL; if the transport is later
        # given one, ``_client`` builds a verifying client instead.
        if not secure:
            return False
        if self._tls is None:
            self._tls = httpx.create_ssl_context()
        return self._tls

    def _forget_closed_loops(self) -> None:
        # A client's pooled sockets keep their loop alive, so the weak keys alone would never
        # let go of the clients of finished asyncio loops (the sync facade makes those).
        for loop in list(self._clients.keys()):
            is_closed = getattr(loop, "is_closed", None)
            if callable(is_closed) and is_closed():
                del self._clients[loop]

    async def _open(self, call: HttpCall, on_error: OnError, limits: SizeLimits) -> httpx.Response:
        """Send ``call`` until a 2xx response head arrives; return it unread."""
        client = self._client(call.url)
        request = self._requests.build(client, call)
        on_send(call.url, request.headers)  # telemetry: the server, and traceparent upstream
        attempt = 0
        resent = False
        while True:
            started = time.monotonic()
            try:
                response = await send(client, request)
            except httpx.HTTPError as exc:
                failure = type(exc).__name__
                if not resent and isinstance(exc, _DROPPED):
                    resent = True
                    log_attempt(call, started, failure, decision="resent at once")
                    on_retry(attempt + 1, failure, 0.0)  # telemetry: resend number 1 + attempt
                    continue
                if attempt >= self.max_retries or not isinstance(exc, _RETRY_EXCEPTIONS):
                    log_attempt(call, started, failure, decision="giving up")
                    raise _request_error(exc, _where(call), on_error) from exc
                delay = self._backoff(attempt)
                log_attempt(call, started, failure, decision=f"retrying in {delay:.2f}s")
            else:
                if response.is_success:
                    log_attempt(call, started, str(response.status_code), response.headers)
                    return response
                body = await read_error_body(response, _where(call), limits.error_body_bytes)
                delay = self._rejected(response, body, attempt, on_error, started, call)
                failure = str(response.status_code)
            on_retry(attempt + 1 + resent, failure, delay)  # telemetry: an event on its span
            await sleep(delay)
            attempt += 1

    def _rejected(
        self,
        response: httpx.Response,
        body: bytes,
        attempt: int,
        on_error: OnError,
        started: float,
        call: HttpCall,
    ) -> float:
        """The delay before retrying an error response, or raise its error."""
        error = on_error(response.status_code, body, response.headers)
        delay = None
        if attempt < self.max_retries:
            delay = retry_delay(
                response.status_code,
                response.headers,
                backoff=self._backoff(attempt),
                hint=error.retry_after,
                retryable=error.retryable,
            )
        status = str(response.status_code)
        if delay is None:
            log_attempt(call, started, status, response.headers, "giving up")
            raise error
        log_attempt(call, started, status, response.headers, f"retrying in {delay:.2f}s")
        return delay

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with up to 25 % jitter, so parallel clients spread out."""
        delay = min(self.retry_base_delay * 2.0**attempt, self.retry_max_delay)
        return delay * (1 - 0.25 * random.random())


class _SetCookies(httpx.Cookies):
    """A client's cookie jar that reads a response only when it sets a cookie.

    httpx hands every response to the jar, which builds urllib's request and response
    wrappers before it looks for a header: tens of microseconds a request, for API servers
    that set no cookie. The jar, and every cookie a server sets, stay as httpx keeps them.
    """

    def extract_cookies(self, response: httpx.Response) -> None:
        headers = response.headers
        if "set-cookie" in headers or "set-cookie2" in headers:
            super().extract_cookies(response)


class _OwnedClient(httpx.AsyncClient):
    """The transport's own client: httpx's, with the cookie jar above and, on asyncio, the
    network backend of ``_asyncionet.py`` (proxy transports keep httpcore's)."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._cookies = _SetCookies(self._cookies.jar)
        if "asyncio" in sys.modules:  # else not on asyncio: trio need not import it (10 ms)
            from ._asyncionet import install

            install(self._transport)  # asyncio's own sockets, not anyio's streams


def retry_delay(
    status: int,
    headers: Mapping[str, str],
    *,
    backoff: float,
    hint: float | None = None,
    retryable: bool | None = None,
) -> float | None:
    """Seconds to wait before retrying an error response, or None when it is final.

    The provider's verdict (``retryable``) decides when it has one; then the server's
    ``x-should-retry``, as the official vendor SDKs read it; otherwise 408, 409, 429 and every
    5xx (529 included) are retried. The server's ``retry-after-ms`` / ``retry-after`` (or a
    ``hint`` from the body) is honored up to 60 s; without one, ``backoff``.

    Args:
        status: The response status.
        headers: The response headers (case-insensitive, such as ``httpx.Headers``, or with
            lower-case keys).
        backoff: The delay to use when the server names none.
        hint: The delay the provider read from the error body, which wins over the headers.
        retryable: The provider's reading of the error body (``ProviderError.retryable``):
            ``False`` never retries, ``True`` always does, ``None`` leaves it to the rest.
    """
    if retryable is not None:
        return _delay(headers, backoff, hint) if retryable else None
    flag = (headers.get("x-should-retry") or "").strip().lower()
    if flag == "false" or (flag != "true" and not _retryable_status(status)):
        return None
    return _delay(headers, backoff, hint)


def _delay(headers: Mapping[str, str], backoff: float, hint: float | None) -> float:
    hinted = hint if hint is not None else retry_after_seconds(headers)
    if hinted is None or hinted != hinted:  # absent, or a hostile "nan" that sleep() rejects
        return backoff
    return min(max(hinted, 0.0), _MAX_RETRY_AFTER)


def _retryable_status(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def _normal_timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if isinstance(timeout, httpx.Timeout):
        return timeout
    connect = _CONNECT_TIMEOUT if timeout is None else min(timeout, _CONNECT_TIMEOUT)
    # pool=None: a run waiting for a connection is not failing, other runs are using them.
    return httpx.Timeout(timeout, connect=connect, pool=None)


def _limits(max_connections: int | None, *, borrowing: bool) -> httpx.Limits:
    if max_connections is not None:
        if borrowing:
            raise errors.ConfigError(
                "max_connections applies to the SDK's own client; a borrowed http_client "
                "keeps its own limits (httpx.AsyncClient(limits=httpx.Limits(...)))"
            )
        if isinstance(max_connections, bool) or not isinstance(max_connections, int):
            raise errors.ConfigError(f"max_connections must be an int, not {max_connections!r}")
        if max_connections < 1:
            raise errors.ConfigError(f"max_connections must be >= 1, got {max_connections}")
    size = MAX_CONNECTIONS if max_connections is None else max_connections
    return httpx.Limits(
        max_connections=size,
        max_keepalive_connections=min(size, _MAX_IDLE),
        keepalive_expiry=_KEEPALIVE_EXPIRY,
    )


def _loop_key() -> object:
    """The running event loop (asyncio) or trio token, as a dictionary key."""
    token = anyio.lowlevel.current_token()
    # anyio >= 4.11 wraps the native token in a new EventLoopToken at each call.
    return getattr(token, "native_token", token)


def _request_error(exc: httpx.HTTPError, where: str, on_error: OnError) -> errors.AIWrapperError:
    """The error for a request that got no response head (none that httpx handed over)."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return errors.RequestTimeoutError(f"{where} did not answer in time ({detail})")
    if isinstance(exc, httpx.HTTPStatusError):
        # A borrowed client's response hook called ``raise_for_status``; httpx closed the
        # response unread, but its status still names the provider's error class.
        return on_error(exc.response.status_code, b"", exc.response.headers)
    if isinstance(exc, httpx.LocalProtocolError):
        # h11 refused to send what we built: a header value with a line break, most often.
        return errors.ConfigError(f"The request to {where} cannot be sent: {detail}")
    return errors.ConnectionError(f"Could not reach {where}: {detail}")
