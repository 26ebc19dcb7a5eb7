"""The provider interface, and the small helpers every provider module shares.

A provider is pure translation: ``encode`` a ``ProviderRequest`` into an ``HttpCall``,
``decode_stream`` framed chunks (SSE events or NDJSON lines) into neutral events,
``decode_response`` a whole body into the same events, and ``error`` an HTTP error into the
matching exception. Sending, retrying and framing belong to ``http.py`` and ``framing.py``; the
offline models implement ``Model`` directly, without HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .. import errors
from ..events import Event
from ..httpcall import HttpCall, retry_after_seconds
from ..messages import ImagePart, LangMessage

if TYPE_CHECKING:
    from ..options import LangOptions
    from ..tools import Tool

__all__ = [
    "EventSink",
    "HttpCall",
    "Model",
    "Provider",
    "ProviderRequest",
    "StreamDecoder",
    "ToolChoice",
    "error_class_for_status",
    "error_result_text",
    "make_error",
    "merge_extra_body",
    "parse_json_body",
    "result_text",
    "retry_after_seconds",
    "tool_choice",
]


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """What the loop asks of a model for one round.

    ``messages`` holds the whole conversation (a ``system_prompt`` option already stands first
    as a system message); ``tools`` the declarations to send; ``options`` the merged options.
    """

    model: str
    messages: Sequence[LangMessage]
    tools: Sequence[Tool]
    options: LangOptions
    stream: bool


class StreamDecoder(Protocol):
    """A fresh decoder per response, turning framed chunks into events."""

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE event (its ``event:`` name and joined ``data:``) or NDJSON line."""
        ...

    def close(self) -> list[Event]:
        """The body ended; raise ``StreamError`` if the stream had not finished properly."""
        ...


class Provider(Protocol):
    """A wire format: pure translation between neutral requests/events and HTTP."""

    name: str
    framing: Literal["sse", "ndjson"]

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The HTTP request for one round."""
        ...

    def decode_stream(self) -> StreamDecoder:
        """A fresh stream decoder."""
        ...

    def decode_response(self, body: Any) -> list[Event]:
        """Events for a whole (non-streamed) JSON body."""
        ...

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an HTTP error response."""
        ...


# Receives the events of one received chunk, in order: one await per chunk, not per event,
# keeps the streaming path cheap when a chunk carries many small deltas.
EventSink = Callable[[list[Event]], Awaitable[None]]


class Model(Protocol):
    """Anything the loop can ask for a turn: an HTTP provider, or an offline model."""

    name: str
    model: str

    async def send(self, request: ProviderRequest, sink: EventSink) -> None:
        """Run one round, handing every event to ``sink`` in order, a batch per chunk."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


_STATUS_CLASSES: dict[int, type[errors.ProviderError]] = {
    400: errors.BadRequestError,
    401: errors.AuthenticationError,
    403: errors.PermissionDeniedError,
    404: errors.NotFoundError,
    408: errors.ServerError,  # the server gave up waiting: transient, and retried
    429: errors.RateLimitError,
    503: errors.OverloadedError,
    529: errors.OverloadedError,
}


def error_class_for_status(status: int) -> type[errors.ProviderError]:
    """The error class for an HTTP status (4xx without a class of its own: bad request)."""
    if status in _STATUS_CLASSES:
        return _STATUS_CLASSES[status]
    if status >= 500:
        return errors.ServerError
    if status >= 400:
        return errors.BadRequestError
    return errors.ProviderError


def parse_json_body(body: bytes) -> Any:
    """The body as JSON, or its text when it is not JSON (an HTML error page, say)."""
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", errors="replace")


def make_error(
    cls: type[errors.ProviderError],
    message: str,
    *,
    provider: str,
    status: int | None,
    body: Any,
    headers: Mapping[str, str],
    request_id_header: str = "x-request-id",
) -> errors.ProviderError:
    """Build a provider error with the request id and ``retry-after`` read from the headers."""
    lowered = {k.lower(): v for k, v in headers.items()}
    return cls(
        message,
        provider=provider,
        status_code=status,
        body=body,
        request_id=lowered.get(request_id_header),
        retry_after=retry_after_seconds(lowered),
    )


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """The ``function_call`` option in one normal form: a mode, and a name when forced."""

    mode: Literal["auto", "none", "required", "named"]
    name: str | None = None


def tool_choice(value: str | Mapping[str, str] | None) -> ToolChoice | None:
    """Normalize ``function_call`` (``None`` means: not set, send nothing)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        function = value.get("function")
        name = value.get("name") or (
            function.get("name") if isinstance(function, Mapping) else None
        )
        if not name:
            raise errors.ConfigError(f"function_call dict needs a 'name': {dict(value)!r}")
        return ToolChoice("named", str(name))
    if value in ("auto", "none", "required"):
        return ToolChoice(value)  # type: ignore[arg-type]
    return ToolChoice("named", value)


def error_result_text(message: str, error_type: str | None) -> str:
    """A failed call's result as JSON text, for wires that have no error flag."""
    payload = {"error": message, "error_type": error_type or "Error"}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def result_text(message: LangMessage) -> str:
    """A tool result's text, its images described, for wires that take no images in results."""
    images = [p.describe() for p in message.parts if isinstance(p, ImagePart)]
    return "\n".join(t for t in [message.content, *images] if t) if images else message.content


def stop_sequences(stop: str | Sequence[str] | None) -> list[str] | None:
    """The ``stop`` option as a list (``None`` when not set), for wires that take only lists."""
    if stop is None:
        return None
    return [stop] if isinstance(stop, str) else list(stop)


def merge_extra_body(body: dict[str, Any], extra: Mapping[str, Any] | None) -> None:
    """Add the ``extra_body`` option's keys to ``body``, in place, without replacing any.

    An object the SDK already set (Gemini ``generationConfig``, Ollama ``options``) takes new
    keys one level down. A key the SDK set is never replaced: that would silently drop what
    an option asked for (``tools`` replacing the declared functions, say).

    Raises:
        ConfigError: ``extra`` holds a key the SDK set, named with its path.
    """
    for key, value in (extra or {}).items():
        if key not in body:
            body[key] = value
        elif isinstance(body[key], dict) and isinstance(value, Mapping):
            for inner, inner_value in value.items():
                if inner in body[key]:
                    raise _replaced(f"{key}.{inner}")
                body[key][inner] = inner_value
        else:
            raise _replaced(key)


def _replaced(path: str) -> errors.ConfigError:
    hint = "; provider-native tools go in the native_tools option" if path == "tools" else ""
    return errors.ConfigError(
        f"extra_body cannot replace {path!r}, which the SDK sets from the options; set it "
        f"through its option instead{hint}"
    )
