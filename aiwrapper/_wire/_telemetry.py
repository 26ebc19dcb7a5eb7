"""OpenTelemetry, when its API is installed: aiwrapper's tracer and instruments, and the hooks
the transport and the gateway call.

aiwrapper records through the global tracer and meter providers (no-ops until the application
configures an SDK). The API is imported when a run with ``telemetry`` on first needs it, never
by ``import aiwrapper``, and a missing API turns every hook into nothing. This module imports
nothing of aiwrapper, so the transport (``_http.py``) and the gateway stand on it; the spans of
runs, model requests and tool calls are built in ``_telemetry_run.py``.

While a model request is sent, ``REQUEST`` holds its span: the transport labels it with the
server (host and port only: a URL's path and query, where some services put keys, never) and
with an event per retry, and passes its context upstream as a W3C ``traceparent`` header.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Iterator, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "REQUEST",
    "Otel",
    "RequestSpan",
    "error_type",
    "fail",
    "on_retry",
    "on_send",
    "otel",
    "server_span",
    "use_providers",
]

SCOPE = "aiwrapper"
_TOKEN_BUCKETS = [4.0**n for n in range(14)]  # 1 .. 4**13 tokens, as the conventions advise
_SECOND_BUCKETS = [0.01 * 2.0**n for n in range(14)]  # 10 ms .. 82 s
_PROPAGATED = (b"traceparent", b"tracestate", b"baggage")


@dataclass(slots=True)
class Otel:
    """The imported API, with aiwrapper's tracer and the two GenAI client histograms."""

    trace: Any
    context: Any
    propagate: Any
    metrics: Any
    tracer: Any
    tokens: Any  # gen_ai.client.token.usage
    duration: Any  # gen_ai.client.operation.duration


# The import's outcome, made once per process (an import, not state: the API keeps its own),
# and "given" once a test handed in providers of its own.
_loaded: dict[str, Any] = {}


def otel() -> Otel | None:
    """The API with aiwrapper's instruments, or None when ``opentelemetry-api`` is missing or
    nothing would be recorded.

    Until the application sets a global tracer or meter provider, the API's proxies record
    nothing; making spans through them would still cost every run about a hundred
    microseconds, so a run then makes none. The providers are looked at again for each run,
    so an SDK configured later is used from the next run on.

    An application sets a provider through the API, which it then has imported, or names one
    in ``OTEL_PYTHON_TRACER_PROVIDER`` / ``OTEL_PYTHON_METER_PROVIDER``: until either is so,
    nothing could be recorded and the API is not imported (a library may have installed it
    without anyone using it; importing it costs a process about a megabyte).
    """
    try:
        api: Otel | None = _loaded["api"]
    except KeyError:
        if not _wanted():
            return None  # asked again at the next run: an SDK may be set up by then
        api = _loaded["api"] = _load(None, None)
    if api is None or "given" in _loaded or _configured(api):
        return api
    return None


_API_MODULES = ("opentelemetry.trace", "opentelemetry.metrics")
# The variables naming a provider for the API to load (when none was set in code).
_PROVIDER_VARIABLES = ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER")


def _wanted() -> bool:
    """Whether a global provider may have been set: the API imported, or one named."""
    return any(name in sys.modules for name in _API_MODULES) or any(
        os.environ.get(name) for name in _PROVIDER_VARIABLES
    )


def use_providers(tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Record through these providers instead of the global ones (None: the global one).

    The global providers can be set once per process; tests hand in their own here.
    """
    _loaded["api"] = _load(tracer_provider, meter_provider)
    _loaded["given"] = None


def _configured(api: Otel) -> bool:
    """Whether the application set a global tracer or meter provider (not the API's own
    proxies or no-ops, which record nothing)."""
    if _unset(api):
        return False
    tracing = api.trace.get_tracer_provider()
    if not isinstance(tracing, (api.trace.ProxyTracerProvider, api.trace.NoOpTracerProvider)):
        return True
    metering = api.metrics.get_meter_provider()
    return not isinstance(metering, api.metrics.NoOpMeterProvider) and (
        type(metering).__name__ != "_ProxyMeterProvider"  # the API's unset global
    )


def _unset(api: Otel) -> bool:
    """Whether neither global provider is set nor named in the environment: told from the
    API's globals, without its getters, which look each variable up and raise and catch a
    KeyError for each (on every run). False when it cannot be told so."""
    internal = sys.modules.get("opentelemetry.metrics._internal")
    set_in_code = (
        getattr(api.trace, "_TRACER_PROVIDER", True) is not None
        or getattr(internal, "_METER_PROVIDER", True) is not None
    )
    if set_in_code:
        return False
    # Looked at again whenever the environment grows or shrinks (a variable set later).
    size = len(os.environ)
    known = _loaded.get("environment")
    if known is None or known[0] != size:
        named = any(name in os.environ for name in _PROVIDER_VARIABLES)
        known = _loaded["environment"] = (size, named)
    return not known[1]


def _load(tracer_provider: Any, meter_provider: Any) -> Otel | None:
    try:
        from opentelemetry import context, metrics, propagate, trace
    except ImportError:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("aiwrapper")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        ours = ""

    tracer = trace.get_tracer(SCOPE, ours, tracer_provider)
    meter = metrics.get_meter(SCOPE, ours, meter_provider)
    tokens = meter.create_histogram(
        "gen_ai.client.token.usage",
        unit="{token}",
        description="Number of input and output tokens used.",
        explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
    )
    duration = meter.create_histogram(
        "gen_ai.client.operation.duration",
        unit="s",
        description="GenAI operation duration.",
        explicit_bucket_boundaries_advisory=_SECOND_BUCKETS,
    )
    return Otel(trace, context, propagate, metrics, tracer, tokens, duration)


def error_type(exc: BaseException) -> str:
    """The conventions' low-cardinality ``error.type`` of ``exc``."""
    cancelled = type(exc).__name__ in ("CancelledError", "Cancelled")  # asyncio's, trio's
    return "cancelled" if cancelled else type(exc).__qualname__


def fail(
    api: Otel, span: Any, exc: BaseException, kind: str | None = None, *, described: bool = False
) -> None:
    """Mark ``span`` failed with ``exc``: ``error.type``, the error status, an exception event.

    The exception's traceback stays out of the span, and so does its message unless
    ``described`` (a tool's own error, which the model is shown anyway): a provider's error
    body may quote the key it refused, a connection error the URL's user and password, and
    spans leave the process. The type is what a trace needs to group failures; the message is
    in the exception the caller gets.
    """
    kind = kind or error_type(exc)
    span.set_attribute("error.type", kind)
    status = (str(exc) or kind) if described else kind
    span.set_status(api.trace.Status(api.trace.StatusCode.ERROR, status))
    if kind != "cancelled":
        span.add_event("exception", {"exception.type": _qualified(type(exc))})


def _qualified(cls: type) -> str:
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


@dataclass(slots=True)
class RequestSpan:
    """The span of the model request being sent (None when the run is not recorded), and the
    server the transport sent it to."""

    span: Any
    address: str | None = None
    port: int | None = None


REQUEST: ContextVar[RequestSpan | None] = ContextVar("aiwrapper_request_span", default=None)


def on_send(url: str, headers: MutableMapping[str, str]) -> None:
    """Note the server of the request being sent; label its span and put its context into
    ``headers`` (as ``traceparent``) when it has one."""
    current = REQUEST.get()
    if current is None:  # no telemetry for this request
        return
    current.address, current.port = _server(url)
    span = current.span
    if span is None:  # the run is not recorded: the server is for the metrics
        return
    if current.address:
        span.set_attribute("server.address", current.address)
        span.set_attribute("server.port", current.port)
    api = otel()
    assert api is not None  # the span was made with it
    api.propagate.inject(headers)


@lru_cache(maxsize=64)  # a model's requests go to one URL: parsed once
def _server(url: str) -> tuple[str | None, int | None]:
    """The host and port of ``url``: never its path or query, where some services put keys."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number: the request fails on its own
        return None, None
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def on_retry(attempt: int, reason: str, delay: float) -> None:
    """Note a retry on the request's span: what failed, and how long until the next try."""
    current = REQUEST.get()
    if current is not None and current.span is not None:
        attributes = {"http.request.resend_count": attempt, "error.type": reason}
        current.span.add_event("aiwrapper.retry", {**attributes, "aiwrapper.retry.delay": delay})


@contextmanager
def server_span(exchange: Any, known: Collection[str] = ()) -> Iterator[None]:
    """The gateway's span of one HTTP request, continuing the client's ``traceparent``.

    ``exchange`` has the ASGI ``scope`` and, once answered, the response ``status``. Only a
    path in ``known`` (the gateway's own endpoints) names the span and its ``http.route``:
    any other path is the client's to choose, and would make names without end.
    """
    api = otel()
    if api is None:
        yield
        return
    scope = exchange.scope
    carrier = {
        name.decode("latin-1"): value.decode("latin-1")
        for name, value in scope.get("headers", ())
        if name.lower() in _PROPAGATED
    }
    method, path = scope.get("method", "GET"), scope.get("path", "/")
    span = api.tracer.start_span(
        method,
        context=api.propagate.extract(carrier),
        kind=api.trace.SpanKind.SERVER,
        attributes={
            "http.request.method": method,
            "url.path": path,
            "url.scheme": scope.get("scheme", "http"),
        },
    )
    token = api.context.attach(api.trace.set_span_in_context(span))
    try:
        yield
    except BaseException as exc:
        fail(api, span, exc)
        raise
    finally:
        api.context.detach(token)
        _answered(api, span, exchange.status, f"{method} {path}" if path in known else None)


def _answered(api: Otel, span: Any, status: int | None, route: str | None) -> None:
    if status is not None:
        span.set_attribute("http.response.status_code", status)
        if route is not None:  # one of the gateway's endpoints: few names, all its own
            span.set_attribute("http.route", route.partition(" ")[2])
            span.update_name(route)
        if status >= 500:
            span.set_attribute("error.type", str(status))
            span.set_status(api.trace.Status(api.trace.StatusCode.ERROR))
    span.end()
