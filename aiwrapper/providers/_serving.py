"""The serving contract: the decoded client request, the error record, the front-end protocol.

A front-end is the reverse of a provider: it decodes a client's request body (its own wire)
into the neutral conversation and options, and encodes the run's outcome (a whole
``LangResult``, or the run events of ``Lang.stream``) as that wire's response body or stream.
Front-ends live in their wire's provider package, beside its encoder and decoder, and export
themselves as ``FRONTENDS`` (POST path -> ``Frontend``); the gateway mounts what it finds and
owns HTTP: auth, limits, routing, errors and disconnects. The front-ends own no I/O. This
module stands below both, so neither imports the other.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .._conversation._assembler import Assembler
from .._conversation._messages import LangMessages, Part, messages_from_dict
from .._conversation._result import LangResult
from .._conversation._runevents import RunEvent
from .._errors import AIWrapperError, ConfigError
from .._tools import Tool, to_tool
from .._wire._jsontext import json_writer

__all__ = [
    "MAX_TOOLS",
    "SLOT",
    "ClientRequest",
    "DefaultFrontend",
    "ErrorKind",
    "Frontend",
    "GatewayError",
    "SSEShape",
    "StreamEncoder",
    "bad_request",
    "check_number",
    "check_type",
    "in_call_order",
    "read_messages",
    "read_route",
    "read_tools",
    "sse",
    "turn_parts",
]

# Tools one request may declare: above what providers take (the strictest allows 128), so
# the cap never refuses a request a backend would serve; it bounds the gateway's own work.
MAX_TOOLS = 512

# The meaning of an error, which each front-end spells in its own wire's error shape.
ErrorKind = Literal[
    "invalid_request",
    "authentication",
    "permission",
    "not_found",
    "request_too_large",
    "rate_limit",
    "overloaded",
    "upstream",
    "timeout",
]


# One wire tool entry (and its JSON path) as a definition dict ``to_tool`` reads.
ToolShape = Callable[[Mapping[str, Any], str], Mapping[str, Any]]


class GatewayError(AIWrapperError):
    """Raised inside the gateway for a response it refuses or cannot give.

    Attributes:
        status: The HTTP status for the client.
        kind: What went wrong, spelt by each front-end in its wire's error shape.
        param: The JSON path of the offending request field, for 400s.
        code: A machine-readable code (``model_not_found``).
        retry_after: Seconds a rate-limited client should wait.
    """

    def __init__(
        self,
        status: int,
        kind: ErrorKind,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.param = param
        self.code = code
        self.retry_after = retry_after


def in_call_order(messages: LangMessages) -> LangMessages:
    """The conversation with each turn's tool results in the order of the calls they answer.

    Clients may send results in any order (some wires' clients often do), but backends whose
    calls carry no ids pair results with calls by position.
    """
    out = LangMessages()
    order: dict[str | None, int] = {}
    for is_result, run in itertools.groupby(messages, key=lambda m: m.role == "tool"):
        group = list(run)
        if is_result:  # sorted() is stable: results of unknown calls keep their places
            group = sorted(group, key=lambda m: order.get(m.tool_call_id, len(order)))
        else:
            calls = [c for m in group if m.role == "assistant" for c in m.tool_calls]
            order = {c.id: index for index, c in enumerate(calls)}
        out.extend(group)
    return out


def turn_parts(result: LangResult) -> list[Part]:
    """The parts of the turn being streamed, or of the turn just finished.

    Run events carry only their own payload; what they leave out (signatures, call state,
    blocks kept whole) is on the parts, which the turn being streamed holds as they arrive.
    """
    streaming = result._streaming
    if isinstance(streaming, Assembler):
        return streaming.message.parts
    return result.messages[-1].parts


def sse(data: Mapping[str, Any], event: str | None = None) -> bytes:
    """One server-sent event: ``data`` as compact JSON, named ``event`` when given."""
    text = _COMPACT(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


# ``json.dumps(ensure_ascii=False, separators=(",", ":"))``, set up once.
_COMPACT = json_writer(allow_nan=True)
# Where a value goes in an ``SSEShape``'s data: a string no value of ours is.
SLOT = "\x00aiwrapper-slot\x00"
_SLOT_JSON = _COMPACT(SLOT)
_QUOTE = json.encoder.encode_basestring  # a str as JSON writes it (ensure_ascii off)


class SSEShape:
    """One kind of server-sent event written once, with ``SLOT`` where its values go.

    A stream sends the same event again and again with one or two values changed (a text
    delta, and an index or sequence number): ``text`` and ``numbered`` write only those, the
    bytes ``sse`` would write for the data with the values in place.

    Raises:
        ValueError: ``data`` holds ``SLOT`` neither once nor twice.
    """

    __slots__ = ("_head", "_middle", "_tail")

    def __init__(self, data: Mapping[str, Any], event: str | None = None) -> None:
        pieces = sse(data, event).decode().split(_SLOT_JSON)
        if len(pieces) not in (2, 3):
            raise ValueError("an SSEShape has one or two slots")
        self._head, self._tail = pieces[0], pieces[-1]
        self._middle = pieces[1] if len(pieces) == 3 else ""

    def text(self, value: str) -> bytes:
        """The event of one slot with ``value`` in it."""
        return f"{self._head}{_QUOTE(value)}{self._tail}".encode()

    def numbered(self, number: int, value: str) -> bytes:
        """The event of two slots with ``number`` in the first and ``value`` in the second."""
        return f"{self._head}{int(number)}{self._middle}{_QUOTE(value)}{self._tail}".encode()


def bad_request(message: str, param: str | None) -> GatewayError:
    """A 400 naming the request field at fault."""
    return GatewayError(400, "invalid_request", message, param=param)


@dataclass(slots=True)
class ClientRequest:
    """A client's request decoded: the route, the conversation and the run options."""

    route: str
    messages: LangMessages
    options: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    include_usage: bool = False
    echo: dict[str, Any] = field(default_factory=dict)  # request fields the reply repeats


class StreamEncoder(Protocol):
    """Turns the events of one run into the bytes of one streamed response."""

    def event(self, event: RunEvent) -> bytes:
        """The bytes for one run event (empty when it shows nothing on this wire)."""
        ...

    def finish(self, result: LangResult) -> bytes:
        """The bytes that end a stream that succeeded."""
        ...

    def error(self, error: GatewayError) -> bytes:
        """The bytes that end a stream that failed midway (never a clean finish)."""
        ...


class Frontend(Protocol):
    """One client wire: request decoding, response and stream encoding, error shape."""

    name: str
    overloaded_status: int  # the status this wire's clients know as "overloaded"

    def decode(self, body: Any) -> ClientRequest:
        """The request, or ``GatewayError`` 400 naming the field at fault."""
        ...

    def response(self, request: ClientRequest, result: LangResult) -> dict[str, Any]:
        """The whole (non-streamed) response body."""
        ...

    def encoder(self, request: ClientRequest) -> StreamEncoder:
        """A fresh encoder for one streamed response."""
        ...

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        """The error in this wire's shape."""
        ...


class DefaultFrontend(Frontend, Protocol):
    """The front-end that also speaks for the gateway's own endpoints.

    Its wire lists the routes at ``GET /v1/models``, and its error shape answers requests to
    paths no front-end serves; one provider package exports it as ``DEFAULT_FRONTEND``.
    """

    def model_list(self, owners: Mapping[str, str]) -> dict[str, Any]:
        """The ``GET /v1/models`` body for ``owners`` (route name -> the provider serving it)."""
        ...


def read_route(body: Any) -> str:
    """The route a request body names in ``model``; a 400 when the body cannot have one."""
    if not isinstance(body, dict):
        raise bad_request("the body must be a JSON object", None)
    route = check_type(body, "model", str)
    if not route:
        raise bad_request("'model' is required", "model")
    return str(route)


def read_messages(raw: Any, prepared: Callable[[Any, str], Mapping[str, Any]]) -> LangMessages:
    """``messages``, a non-empty list, each entry read as ``chat`` reads message dicts.

    ``prepared`` turns one entry (and its JSON path) into the dict ``messages_from_dict``
    reads, or raises ``GatewayError``; what the reader refuses is a 400 naming the entry.
    """
    if not isinstance(raw, list) or not raw:
        raise bad_request("'messages' must be a non-empty list", "messages")
    out = LangMessages()
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        try:
            out.extend(messages_from_dict(prepared(message, where)))
        except ConfigError as exc:
            raise bad_request(str(exc), where) from exc
    return out


def check_type(body: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """``body[key]`` when absent or of ``kind``; otherwise a 400 naming ``key``."""
    value = body.get(key)
    if value is None:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int to Python, never to JSON: ``true`` is no temperature.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise bad_request(f"{key!r} has the wrong type", key)
    return value


def check_number(body: Mapping[str, Any], key: str, *, integer: bool = False) -> Any:
    """A finite number (an int when ``integer``) at ``key``, or ``None`` when absent."""
    value = check_type(body, key, int if integer else (int, float))
    try:
        finite = value is None or math.isfinite(value)
    except OverflowError:  # an integer of hundreds of digits: JSON has no bound, floats do
        finite = False
    if not finite:
        raise bad_request(f"{key!r} must be a finite number", key)
    return value


def read_tools(raw: Any, param: str, shape: ToolShape) -> list[Tool]:
    """The client's tool declarations as ``Tool`` definitions (no implementation).

    ``shape`` turns one wire entry into a definition dict ``to_tool`` reads, or raises
    ``GatewayError``; a definition whose schema is unusable is a 400 naming its index, and
    so are more than ``MAX_TOOLS`` tools and two tools of one name (checked in linear time).
    """
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise bad_request("'tools' must be a list", param)
    if len(raw) > MAX_TOOLS:
        raise bad_request(f"a request may declare at most {MAX_TOOLS} tools", param)
    tools: list[Tool] = []
    names: set[str] = set()
    for index, entry in enumerate(raw):
        where = f"{param}[{index}]"
        if not isinstance(entry, Mapping):
            raise bad_request("a tool must be an object", where)
        try:
            tools.append(to_tool(shape(entry, where)))
        except AIWrapperError as exc:
            if isinstance(exc, GatewayError):
                raise
            raise bad_request(str(exc), where) from exc
        if tools[-1].name in names:
            raise bad_request(f"two tools are named {tools[-1].name!r}", where)
        names.add(tools[-1].name)
    return tools
