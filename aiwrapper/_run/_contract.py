"""The contract between the loop and the models: what a round asks, and what answers it.

The loop builds a ``ProviderRequest`` per round and hands it to a ``Model``, which streams the
answer back as neutral events through an ``EventSink``. An HTTP provider is a ``Provider`` (pure
translation between requests, events and HTTP) that ``HttpModel`` pairs with the transport; an
offline model implements ``Model`` directly. Nothing here knows a wire format, so the loop and
the transport depend on this module and never on a provider.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .. import _errors as errors
from .._conversation._events import Event
from .._conversation._messages import LangMessage
from .._wire._httpcall import HttpCall

if TYPE_CHECKING:
    from .._tools import Tool
    from ._options import LangOptions

__all__ = [
    "NO_OUTPUT_SUPPORT",
    "EventSink",
    "Framing",
    "Model",
    "OutputSupport",
    "Provider",
    "ProviderRequest",
    "StreamDecoder",
    "ToolChoice",
    "output_support",
    "tool_choice",
]

ToolMode = Literal["auto", "none", "required", "named"]
_MODES: dict[str, ToolMode] = {"auto": "auto", "none": "none", "required": "required"}


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """The ``function_call`` option in one normal form: a mode, and a name when forced."""

    mode: ToolMode
    name: str | None = None


def tool_choice(value: str | Mapping[str, Any] | None) -> ToolChoice | None:
    """Normalize ``function_call`` (``None`` means: not set, send nothing).

    Raises:
        ConfigError: a dict that names no function.
    """
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
    mode = _MODES.get(value)
    return ToolChoice(mode) if mode is not None else ToolChoice("named", value)


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """What the loop asks of a model for one round.

    ``messages`` holds the whole conversation (a ``system_prompt`` option already stands first
    as a system message); ``tools`` the declarations to send; ``options`` the merged options.
    Derived once here, so no provider reads ``options.function_call`` itself: ``tool_choice``
    is that option normalized (``None`` when unset), and ``tool_names`` the names of the
    functions the model may call this round (none when the choice is ``"none"``).
    """

    model: str
    messages: Sequence[LangMessage]
    tools: Sequence[Tool]
    options: LangOptions
    stream: bool
    tool_choice: ToolChoice | None = field(init=False)
    tool_names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        choice = tool_choice(self.options.function_call)
        callable_names = () if choice is not None and choice.mode == "none" else self.tools
        object.__setattr__(self, "tool_choice", choice)
        object.__setattr__(self, "tool_names", tuple(t.name for t in callable_names))


class StreamDecoder(Protocol):
    """A fresh decoder per response, turning framed chunks into events.

    A decoder may also offer ``feed_events(events, into)`` (SSE) or ``feed_lines(lines,
    into)`` (NDJSON): all the frames one body chunk completed, decoded into the list ``into``
    exactly as ``feed`` would decode them one at a time. The transport then uses it, so the
    common deltas are read in one loop; the events decoded before a failure stay in ``into``.
    """

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE event (its ``event:`` name and joined ``data:``) or NDJSON line."""
        ...

    def close(self) -> list[Event]:
        """The body ended; raise ``StreamError`` if the stream had not finished properly."""
        ...


@dataclass(frozen=True, slots=True)
class OutputSupport:
    """What a wire offers a run that asks for a typed answer (the ``output_type`` option).

    Attributes:
        forced_call: The wire can require a tool call, so the fallback's final tool is made
            required (while thinking is off).
        native_schemas: Set where native structured output goes only to models known to have
            it, and only with the schemas it accepts; ``None`` sends it to every model not
            known to lack it.
    """

    forced_call: bool = False
    native_schemas: Callable[[dict[str, Any]], bool] | None = None


NO_OUTPUT_SUPPORT = OutputSupport()  # a wire that declares nothing: no forced call


def output_support(wire: object) -> OutputSupport:
    """What a provider or model declares as its ``output_support``, else ``NO_OUTPUT_SUPPORT``.

    Declaring it is optional, so a model written before it (or for a test) keeps working.
    """
    declared = getattr(wire, "output_support", None)
    return declared if isinstance(declared, OutputSupport) else NO_OUTPUT_SUPPORT


# How a streamed answer is cut into messages: Server-Sent Events, newline-delimited JSON, or
# AWS's binary eventstream.
Framing = Literal["sse", "ndjson", "eventstream"]


class Provider(Protocol):
    """A wire format: pure translation between neutral requests/events and HTTP.

    A decoder gets the request it decodes the answer to, so whatever it must know of it (the
    declared tool names, say) comes from there. A provider whose decoders need nothing of it
    may default ``request`` to ``None``. A provider may also declare ``output_support`` (an
    ``OutputSupport``: see ``output_support``).
    """

    name: str
    framing: Framing

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The HTTP request for one round."""
        ...

    def decode_stream(self, request: ProviderRequest) -> StreamDecoder:
        """A fresh decoder for the streamed answer to ``request``."""
        ...

    def decode_response(self, body: Any, request: ProviderRequest) -> list[Event]:
        """Events for a whole (non-streamed) JSON body answering ``request``."""
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
