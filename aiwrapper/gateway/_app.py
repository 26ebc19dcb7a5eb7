"""``Gateway``: the ASGI 3 application that lets clients of every served wire reach any ``Lang``.

It owns HTTP: auth (API keys compared in constant time; loopback clients only without keys),
what a browser may send (``_browser``), loop protection (``_hops``), the body size limit and
timeout, reading bodies (big ones off the event loop: ``_reading``), routing a client's
``model`` to a ``Lang``, mapping errors to the client's wire (credentials redacted), client
disconnects and the access log. What a wire looks like is the business of its front-end,
which lives in the wire's provider package; the gateway mounts every front-end the provider
registry finds, each at its POST path, and knows no wire by name.
A translator, never an agent: each client request is one model request
(``auto_execute=False``); the client runs its own tools and sends their results back.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from .._errors import ConfigError
from .._wire._telemetry import server_span
from ..providers._registry import frontends
from ..providers._serving import Frontend, GatewayError, StreamEncoder
from ._asgi import Exchange, Receive, Scope, Send, error_headers, is_loopback, unless_disconnected
from ._browser import BrowserRules, require_json
from ._calloptions import run_options
from ._hops import HOP_HEADER, Hops
from ._reading import Decoded, read_request, release
from ._redact import Redactor, printable
from ._upstream import as_gateway_error

if TYPE_CHECKING:
    from .._conversation._runevents import RunEvent
    from .._lang import Lang
    from .._run._stream import RunStream

__all__ = ["Gateway"]

logger = logging.getLogger("aiwrapper.gateway")

DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
DEFAULT_BODY_TIMEOUT = 60.0  # seconds for a whole request body: a trickle holds no slot longer


class Gateway:
    """An ASGI 3 application serving each client wire a provider package has a front-end for.

    Today those are ``POST /v1/chat/completions``, ``POST /v1/responses`` and
    ``POST /v1/messages``, each streamed or not, with ``GET /v1/models`` listing the routes.

    Args:
        routes: Maps the ``model`` name a client sends to the ``Lang`` that serves it (its
            own provider and model are used upstream).
        api_keys: Keys clients must send (``Authorization: Bearer`` or ``x-api-key``). Without
            keys, only clients on this machine (loopback) are served, and only requests
            addressed to it (a loopback ``Host``) from no other site's page (``Origin``).
        max_body_bytes: Request bodies past this size are refused with 413.
        body_timeout: Seconds a request body may take to arrive; then 408.
        cors_origins: Origins whose pages may call the gateway from a browser (CORS);
            ``"*"`` for every origin, with keys only. None by default: no CORS headers.

    POST bodies must be sent as ``Content-Type: application/json`` (else 415). Upstream
    requests carry a hop header; a request that comes back to this gateway or passed through
    more than four gateways is refused with 508.

    Serve it with any ASGI server, e.g. ``uvicorn.run(Gateway({...}))``, or run
    ``python -m aiwrapper serve --route NAME=PROVIDER:MODEL``.
    """

    def __init__(
        self,
        routes: Mapping[str, Lang],
        *,
        api_keys: Iterable[str] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        cors_origins: Iterable[str] | None = None,
    ) -> None:
        self.routes = dict(routes)
        self._keys = _checked_keys(api_keys)
        _check_positive(max_body_bytes=max_body_bytes, body_timeout=body_timeout)
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout
        self._browser = BrowserRules(cors_origins, keyless=not self._keys)
        self._hops = Hops()
        self._fronts = frontends()
        self._known = frozenset({"/healthz", "/v1/models", *self._fronts.by_path})  # span names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI 3 entry point."""
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
        elif scope["type"] == "http":
            exchange = Exchange(scope, receive, send)
            began = time.perf_counter()
            try:
                with server_span(exchange, self._known):  # telemetry: continues the traceparent
                    await self._handle(exchange)
            finally:
                _log(exchange, time.perf_counter() - began)

    async def _handle(self, exchange: Exchange) -> None:
        method, path = exchange.scope["method"], exchange.scope["path"]
        mounted = self._fronts.by_path
        front = mounted.get(path, self._fronts.default)  # errors in the client's wire's shape
        try:
            if (method, path) == ("GET", "/healthz"):  # no key needed: load balancers probe it
                await exchange.json(200, {"status": "ok"})
                return
            if self._browser.is_preflight(exchange):  # browsers send no key with it
                await self._browser.preflight(exchange)
                return
            self._authorize(exchange)
            if (method, path) == ("GET", "/v1/models"):
                await exchange.json(200, self._models())
            elif method == "POST" and path in mounted:
                require_json(exchange)
                await self._serve(front, exchange)
            else:
                raise GatewayError(404, "not_found", f"no endpoint {method} {printable(path, 200)}")
        except GatewayError as error:
            await _send_error(front, error, exchange)

    def _authorize(self, exchange: Exchange) -> None:
        if not self._keys:
            if not is_loopback(exchange.scope):
                raise GatewayError(
                    403,
                    "permission",
                    "this gateway has no API keys and serves clients on its own machine only",
                )
            self._browser.check(exchange)
            return
        self._browser.check(exchange)
        given = exchange.raw_header(b"x-api-key") or b""
        bearer = exchange.raw_header(b"authorization") or b""
        if bearer[:7].lower() == b"bearer ":
            given = bearer[7:].strip()
        matched = False
        for key in self._keys:  # every key compared, in constant time: no timing hint
            matched |= hmac.compare_digest(given, key)
        if not matched:
            raise GatewayError(
                401, "authentication", "a valid API key is required (Authorization: Bearer)"
            )

    def _models(self) -> dict[str, Any]:
        owners = {name: lang.provider for name, lang in self.routes.items()}
        return self._fronts.default.model_list(owners)

    async def _serve(self, front: Frontend, exchange: Exchange) -> None:
        hops = self._hops.forward(exchange.header(HOP_HEADER.encode()))
        with anyio.move_on_after(self.body_timeout) as reading:
            chunks = await exchange.read_body(self.max_body_bytes)
        if reading.cancelled_caught:
            message = f"the request body did not arrive within {self.body_timeout:g} s"
            raise GatewayError(408, "invalid_request", message)
        decoded = await read_request(front, chunks)
        lang = self.routes.get(decoded.request.route)
        if lang is None:
            raise GatewayError(
                404,
                "not_found",
                f"the model {decoded.request.route!r} does not exist; try GET /v1/models",
                param="model",
                code="model_not_found",
            )
        exchange.route = decoded.request.route
        await unless_disconnected(
            exchange.receive, lambda: _answer(front, decoded, lang, exchange, hops)
        )
        await release(decoded)  # a big conversation is freed off the loop


def _check_positive(**numbers: float) -> None:
    for name, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ConfigError(f"{name} must be a positive number, not {value!r}")


def _checked_keys(api_keys: Iterable[str] | None) -> list[bytes]:
    """The keys as bytes; an empty key would let in requests that send none."""
    keys = [api_keys] if isinstance(api_keys, str) else list(api_keys or ())
    if any(not isinstance(key, str) or not key.strip() for key in keys):
        raise ConfigError("api_keys must be non-empty strings")
    return [key.strip().encode("utf-8") for key in keys]


async def _answer(
    front: Frontend, decoded: Decoded, lang: Lang, exchange: Exchange, hops: dict[str, str]
) -> None:
    """Run the request on ``lang`` and send the answer; errors go to the client, never up."""
    request = decoded.request
    options = run_options(request.options, lang.options, hops)
    encoder = front.encoder(request) if request.stream else None
    try:
        if encoder is not None:
            await _stream(encoder, lang.stream(decoded.messages, options), exchange)
        else:
            result = await lang.chat(decoded.messages, options)
            await exchange.json(200, front.response(request, result))
    except Exception as exc:
        error = as_gateway_error(exc, front.overloaded_status, Redactor(lang))
        if not exchange.started:
            await _send_error(front, error, exchange)
        elif encoder is not None:  # the stream breaks visibly: an error event, no end marker
            await exchange.body(encoder.error(error), more=False)


async def _stream(encoder: StreamEncoder, run: RunStream[Any], exchange: Exchange) -> None:
    async with run:
        # Nothing goes out before the backend's first output: an upstream error before it
        # is still a proper HTTP error status (a 429 with its retry-after, say).
        head = await _first_output(run, encoder)
        await exchange.start_events()
        await exchange.body(head)
        async for event in run:
            data = encoder.event(event)
            ready = run.ready()  # events that came with it go out in the same write
            if ready:
                data = b"".join([data, *map(encoder.event, ready)])
            if data:
                await exchange.body(data)
        await exchange.body(encoder.finish(run.result), more=False)


async def _first_output(run: RunStream[Any], encoder: StreamEncoder) -> bytes:
    event: RunEvent
    async for event in run:
        data = encoder.event(event)
        if data:
            return data
    return b""


async def _send_error(front: Frontend, error: GatewayError, exchange: Exchange) -> None:
    await exchange.json(error.status, front.error_body(error), error_headers(error))


async def _lifespan(receive: Receive, send: Send) -> None:
    """Nothing to set up or tear down: the routes' ``Lang``s belong to whoever made them."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _log(exchange: Exchange, seconds: float) -> None:
    """One access line: who, what, which route, status, time. Never keys or bodies."""
    if not logger.isEnabledFor(logging.INFO):
        return
    client = exchange.scope.get("client") or ("-", 0)
    logger.info(
        "%s %s %s route=%s status=%s %.1fms",
        printable(str(client[0]), 100),
        printable(str(exchange.scope.get("method")), 20),
        printable(str(exchange.scope.get("path")), 300),
        printable(exchange.route or "-", 100),
        exchange.status if exchange.status is not None else "-",
        seconds * 1000,
    )
