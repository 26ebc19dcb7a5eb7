"""Ollama's native ``/api/chat`` wire: request encoding, NDJSON decoding and error mapping.

This module owns everything Ollama-specific: the request body
(``options``, ``think``, ``keep_alive``, explicit ``stream``), the ``OLLAMA_HOST`` conventions,
the NDJSON stream (whole tool calls, a final ``done`` line with metrics, ``{"error"}`` lines),
and two model quirks: ``<think>...</think>`` written into ``content`` is split off as thinking,
and tool calls written as JSON text in ``content`` become real calls when they name a declared
tool. Sending bytes and splitting lines belong to ``http.py`` and ``framing.py``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from ... import errors, jsonscan
from ...events import (
    Event,
    FinishEvent,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ...messages import LangMessage, ThinkingPart, ToolCallPart
from ...modelrules import thinking_effort
from ...options import LangOptions
from ...output import output_spec
from ...result import FunctionCall
from ...tools.walk import inline_refs
from ..base import (
    HttpCall,
    ProviderRequest,
    error_class_for_status,
    error_result_text,
    make_error,
    merge_extra_body,
    parse_json_body,
    result_text,
    stop_sequences,
    tool_choice,
)
from ._content import TextGate, ThinkSplitter, UnreadFields, calls_from_text, unread_fields

__all__ = ["DEFAULT_BASE_URL", "OllamaDecoder", "OllamaProvider", "default_base_url"]

DEFAULT_BASE_URL = "http://localhost:11434"
_NAME = "ollama"
_loads = jsonscan.loads  # a module global: one lookup per line on the hot path, not two


def default_base_url(env: Mapping[str, str]) -> str:
    """The server root from ``OLLAMA_HOST``, read the way Ollama's own clients read it.

    ``host``, ``host:port``, ``[::1]:port`` and ``scheme://host[:port][/path]`` are accepted.
    Without a scheme the URL is ``http`` on port 11434; with an explicit scheme and no port
    the scheme's own port applies (80/443), as in the ``ollama`` CLI. ``0.0.0.0`` and ``::``
    (what a server is told to *listen* on) are read as ``localhost`` so a client can connect.

    Raises:
        ConfigError: The value has an unknown scheme or a port that is not a number.
    """
    raw = env.get("OLLAMA_HOST", "").strip().rstrip("/")
    if not raw:
        return DEFAULT_BASE_URL
    scheme, sep, rest = raw.partition("://")
    scheme = scheme.lower() if sep else "http"
    if scheme not in ("http", "https"):
        raise errors.ConfigError(f"OLLAMA_HOST must use http or https, not {raw!r}")
    hostport, _, path = (rest if sep else raw).partition("/")
    host, port = _host_port(hostport, raw)
    if host in ("0.0.0.0", "::"):
        host = "localhost"
    port = port or (None if sep else 11434)
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port else ""
    return f"{scheme}://{netloc}" + (f"/{path}" if path else "")


def _host_port(hostport: str, raw: str) -> tuple[str, int | None]:
    try:  # a bare IPv6 address (``::1``) has colons that are not a port separator
        return str(ipaddress.ip_address(hostport.strip("[]"))), None
    except ValueError:
        pass
    split = urlsplit(f"//{hostport}")
    try:
        return split.hostname or "localhost", split.port
    except ValueError as exc:
        raise errors.ConfigError(f"OLLAMA_HOST has an invalid port: {raw!r}") from exc


class OllamaProvider:
    """The native Ollama chat API (``POST {base_url}/api/chat``), local or ollama.com.

    Args:
        base_url: The server root, without ``/api`` (see ``default_base_url`` for
            ``OLLAMA_HOST``).
        api_key: Sent as a bearer token; only ollama.com needs one.
        keep_alive: How long the server keeps the model loaded (``"5m"``, seconds, ``-1``).
        tool_calls_in_content: Recognize tool calls that a model wrote as JSON text in its
            answer (only when they name a declared tool and make up the whole answer).
    """

    name: str = _NAME
    framing: Literal["sse", "ndjson"] = "ndjson"

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        keep_alive: str | int | None = None,
        tool_calls_in_content: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.keep_alive = keep_alive
        self.tool_calls_in_content = tool_calls_in_content
        # Thinking goes back on assistant turns: Ollama's tool-calling guide asks for the
        # turn's thinking, content and calls together, and the model's template decides what
        # to render (Qwen templates keep it within a tool loop; confirmed by ollama/ollama
        # #18281). ollama.com itself reportedly answers 400 to history messages carrying
        # ``thinking`` (can1357/oh-my-pi#1000; unconfirmed by Ollama's docs), so not there.
        self._replay_thinking = urlsplit(self.base_url).hostname != "ollama.com"

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The ``/api/chat`` request for one round.

        Raises:
            ConfigError: ``function_call`` forces a call, or ``parallel_tool_calls=False``,
                with tools given: Ollama's native API has neither switch. Or thinking is
                turned off for GPT-OSS, which always reasons.
        """
        options = request.options
        messages = _encode_messages(request, thinking=self._replay_thinking)
        body: dict[str, Any] = {"model": request.model, "messages": messages}
        tools = _encode_tools(request)
        if tools:
            body["tools"] = tools
        body["stream"] = request.stream  # explicit: Ollama streams when the key is missing
        think = _encode_think(options.thinking, request.model)
        if think is not None:
            body["think"] = think
        output = output_spec(options.output_type)
        if output is not None:  # a JSON schema that constrains the answer; refs inlined
            body["format"] = inline_refs(output.schema, output.schema)
        generation = _encode_generation(options)
        if generation:
            body["options"] = generation
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        merge_extra_body(body, options.extra_body)
        return HttpCall(self.base_url + "/api/chat", self._headers(options), body, request.stream)

    def decode_stream(self, tool_names: Collection[str] = ()) -> OllamaDecoder:
        """A fresh decoder; ``tool_names`` (the request's tools) enables the JSON fallback."""
        return OllamaDecoder(tool_names if self.tool_calls_in_content else ())

    def decode_response(self, body: Any, tool_names: Collection[str] = ()) -> list[Event]:
        """Events for a whole ``stream: false`` body (one object with ``done: true``)."""
        decoder = self.decode_stream(tool_names)
        return decoder.feed_object(body) + decoder.close()

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an HTTP error; the message says how to fix the common ones."""
        parsed = parse_json_body(body)
        message = _with_hint(status, _error_message(parsed, status))
        cls = error_class_for_status(status)
        return make_error(cls, message, provider=_NAME, status=status, body=parsed, headers=headers)

    def _headers(self, options: LangOptions) -> dict[str, str]:
        headers: dict[str, str] = {}  # http.py sets the JSON content type
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        headers.update(options.extra_headers or {})
        return headers


# --- request encoding -----------------------------------------------------------------------


def _encode_messages(request: ProviderRequest, *, thinking: bool) -> list[dict[str, Any]]:
    """The conversation as Ollama messages (tool results name their call's tool)."""
    calls = {c.id: c for m in request.messages for c in m.tool_calls}
    out: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "assistant":
            out.append(_encode_assistant(message, thinking=thinking))
        elif message.role == "tool":
            out.append(_encode_result(message, calls.get(message.tool_call_id or "")))
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def _encode_assistant(message: LangMessage, *, thinking: bool) -> dict[str, Any]:
    # Fields the decoder kept unread go back first, so they never replace what the SDK writes.
    out: dict[str, Any] = {**unread_fields(message, _NAME), "role": "assistant"}
    out["content"] = message.content
    # Ollama's thinking is plain text with no signature, so thinking without state (or with
    # ours) goes back; another provider's signed or encrypted reasoning is not ours to send.
    text = "".join(
        p.text
        for p in message.parts
        if isinstance(p, ThinkingPart) and (p.state is None or p.state.provider == _NAME)
    )
    if text and thinking:
        out["thinking"] = text
    calls = [_encode_call(p.call) for p in message.parts if isinstance(p, ToolCallPart)]
    if calls:
        out["tool_calls"] = calls
    return out


def _encode_call(call: FunctionCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": call.arguments}  # an object on this wire
    # Only ids the server issued go back: an old server gave none, and a made-up one would
    # be a reference the template never saw.
    return {"function": function} if call.synthetic_id else {"id": call.id, "function": function}


def _encode_result(message: LangMessage, call: FunctionCall | None) -> dict[str, Any]:
    content = result_text(message)
    if message.is_error:
        content = error_result_text(content, message.error_type)
    out: dict[str, Any] = {"role": "tool"}
    name = message.name or (call.name if call else None)
    if name:  # what templates render; a result with no known name goes without (not null)
        out["tool_name"] = name
    if message.tool_call_id and not (call and call.synthetic_id):
        out["tool_call_id"] = message.tool_call_id
    out["content"] = content
    return out


def _encode_tools(request: ProviderRequest) -> list[Any]:
    if request.options.native_tools:
        raise errors.ConfigError(
            "Ollama's API has no provider-native tools (native_tools); declare them as "
            "functions instead"
        )
    if not request.tools:
        return []
    choice = tool_choice(request.options.function_call)
    if choice is not None and choice.mode in ("required", "named"):
        raise errors.ConfigError(
            "Ollama's native API cannot force a tool call (function_call="
            f"{request.options.function_call!r}); use function_call='auto' and ask for the "
            "call in the prompt, or pass only that function"
        )
    if choice is not None and choice.mode == "none":
        return []  # the protocol's only way to forbid calls
    if request.options.parallel_tool_calls is False:
        raise errors.ConfigError(
            "Ollama's native API cannot stop a model from making several calls per turn; "
            "leave parallel_tool_calls unset (parallel=False runs the calls one at a time)"
        )
    return [tool.schema_for("ollama") for tool in request.tools]


def _encode_think(thinking: bool | int | str | None, model: str) -> bool | str | None:
    if thinking is None or isinstance(thinking, str):
        return thinking  # levels ("low"...) go through; the server checks the model takes them
    if _levels_only(model):
        return _think_level(thinking)
    # The wire has no budget: any positive budget means "think", zero means "don't".
    return thinking > 0


def _levels_only(model: str) -> bool:
    """GPT-OSS takes only levels: booleans are ignored for it."""
    return model.rsplit("/", 1)[-1].startswith("gpt-oss")


def _think_level(thinking: bool | int) -> str:
    if thinking is False or thinking <= 0:
        # think=false is ignored and GPT-OSS reasons anyway (confirmed: ollama/ollama#11751).
        raise errors.ConfigError(
            "GPT-OSS on Ollama cannot turn reasoning off (thinking=False is ignored); use "
            "thinking='low' for the least, or leave thinking unset"
        )
    if thinking is True:
        return "medium"  # the model's own default level
    return thinking_effort(thinking)


def _encode_generation(options: LangOptions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if options.temperature is not None:
        out["temperature"] = options.temperature
    if options.max_tokens is not None:
        out["num_predict"] = options.max_tokens
    if options.top_p is not None:
        out["top_p"] = options.top_p
    if options.stop is not None:
        out["stop"] = stop_sequences(options.stop)
    return out


# --- errors ---------------------------------------------------------------------------------

_MODEL_NOT_FOUND = re.compile(r"model ['\"]?([^'\"\s]+?)['\"]? not found")


def _error_message(parsed: Any, status: int) -> str:
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict):
            error = error.get("message")
        if error:
            return str(error)
    if isinstance(parsed, str) and parsed.strip():
        return parsed.strip()[:500]
    return f"HTTP {status}"


def _with_hint(status: int, message: str) -> str:
    lowered = message.lower()
    if "does not support tools" in lowered:
        return (
            f"{message}: this model cannot call functions; use a tool-capable model "
            "(e.g. qwen3 or llama3.1, see https://ollama.com/search?c=tools)"
        )
    if "does not support thinking" in lowered:
        return f"{message}: leave the thinking option unset for this model"
    found = _MODEL_NOT_FOUND.search(message)
    if status == 404 and found:
        return f"{message} (run `ollama pull {found.group(1)}`)"
    if status == 404:  # not a model: the path is wrong, e.g. a base URL ending in /v1
        return f"{message} (base_url must be the server root, like {DEFAULT_BASE_URL})"
    if status == 401:
        return f"{message} (ollama.com needs an API key: OLLAMA_API_KEY)"
    return message


def _stream_error(line: Mapping[str, Any]) -> errors.AIWrapperError:
    message = _error_message(dict(line), 200)
    lowered = message.lower()
    if "rate limit" in lowered or "too many requests" in lowered:
        cls: type[errors.ProviderError] = errors.RateLimitError
    elif "overloaded" in lowered or "server busy" in lowered:
        cls = errors.OverloadedError
    else:
        return errors.StreamError(f"Ollama reported an error mid-stream: {message}")
    return make_error(cls, message, provider=_NAME, status=None, body=line, headers={})


# --- stream decoding ------------------------------------------------------------------------


class OllamaDecoder:
    """Turns the NDJSON lines of one ``/api/chat`` response into neutral events.

    Args:
        tool_names: The tools declared in the request. When given, an answer whose whole
            text is a JSON tool call naming one of them becomes a call; such text (starting
            with ``{``, ``[``, a code fence or ``<tool_call>``) is held back until the turn
            ends, and released as text if it is not a call.
    """

    def __init__(self, tool_names: Collection[str] = ()) -> None:
        self._tool_names = frozenset(tool_names)
        self._think = ThinkSplitter()
        self._text = TextGate(active=bool(self._tool_names))
        self._calls = 0
        self._unread = UnreadFields()
        self._done = False

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one NDJSON line (``event`` is unused: NDJSON has no event names)."""
        if self._done:
            return []  # nothing follows ``done`` on this wire; ignore stray lines
        try:
            line = _loads(data)
        except ValueError as exc:
            if not data.strip():  # checked only here: framing already drops blank lines
                return []
            raise errors.StreamError(
                f"Ollama sent a line that is not JSON: {data[:200]!r}"
            ) from exc
        # Almost every line is one token of answer text: decode it here, in one frame,
        # before the general path (the stream benchmark measures exactly this).
        if line.__class__ is dict and line.get("error") is None and not line.get("done"):
            message = line.get("message")
            if message.__class__ is dict and self._text.state == "pass":
                content = message.get("content")
                if (
                    content.__class__ is str
                    and len(message) == 2  # content and role: no thinking, calls or else
                    and "role" in message
                    and self._think.is_plain(content)
                ):
                    if not content:
                        return []
                    return [ThinkingDelta(content) if self._think.thinking else TextDelta(content)]
        return self.feed_object(line)

    def feed_object(self, line: Any) -> list[Event]:
        """Decode one already-parsed line (or a whole non-streamed body)."""
        if not isinstance(line, dict):
            raise errors.StreamError(f"Ollama sent a line that is not an object: {line!r}")
        # An error can come as a line after the 200 status; ``"error": null`` is no error.
        if "error" in line and line["error"] is not None:
            raise _stream_error(line)
        message = line.get("message")
        try:
            events = self._message(message or {})
            if line.get("done"):
                events += self._finish(line)
        except (KeyError, TypeError, AttributeError) as exc:
            raise errors.StreamError(f"Ollama sent a line that cannot be read: {line!r}") from exc
        return events

    def close(self) -> list[Event]:
        """The body ended; raise ``StreamError`` unless the ``done`` line arrived."""
        if not self._done:
            raise errors.StreamError("the Ollama stream ended before its final 'done' line")
        return []

    def _message(self, message: Mapping[str, Any]) -> list[Event]:
        events: list[Event] = []
        if message.get("thinking"):
            events.append(ThinkingDelta(str(message["thinking"])))
        if message.get("content"):
            for is_thinking, text in self._think.push(str(message["content"])):
                events += self._segment(is_thinking, text)
        for call in message.get("tool_calls") or ():
            events += self._native_call(call)
        self._unread.add(message)
        return events

    def _segment(self, is_thinking: bool, text: str) -> list[Event]:
        if is_thinking:
            return [ThinkingDelta(text)]
        now = self._text.push(text)
        return [TextDelta(now)] if now else []

    def _native_call(self, call: Mapping[str, Any]) -> list[Event]:
        # Calls arrive whole, one or more per line, and older servers give no id: index
        # them ourselves across the turn.
        function = call["function"]
        index = self._next_index()
        start = ToolCallStart(index, call.get("id") or None, str(function["name"]))
        arguments = function.get("arguments")
        if arguments is None or isinstance(arguments, dict):
            return [start, ToolCallEnd(index, arguments or {})]
        if isinstance(arguments, str):  # not this wire's shape, but let validation judge it
            return [start, ToolCallDelta(index, arguments), ToolCallEnd(index)]
        raise errors.StreamError(
            f"Ollama sent tool call arguments that are not an object: {call!r}"
        )

    def _next_index(self) -> int:
        self._calls += 1
        return self._calls - 1

    def _finish(self, line: Mapping[str, Any]) -> list[Event]:
        self._done = True
        events: list[Event] = []
        for is_thinking, text in self._think.flush():
            events += self._segment(is_thinking, text)
        events += self._release_text() + self._unread.events(_NAME)
        # ``*_count`` tokens and ``*_duration`` nanoseconds of the final line
        metrics = {k: v for k, v in line.items() if k.endswith(("_count", "_duration"))}
        events.append(
            UsageEvent(line.get("prompt_eval_count"), line.get("eval_count"), raw=metrics)
        )
        raw_reason = line.get("done_reason")
        # ``done_reason`` says "stop" even when the model called tools;
        # "length" is kept with calls, so the cut-off is not lost.
        reason: Literal["tool_calls", "length", "stop"] = (
            "length" if raw_reason == "length" else "tool_calls" if self._calls else "stop"
        )
        if line.get("model"):  # every line names it; read once, from the last
            events.append(ModelEvent(str(line["model"])))
        events.append(FinishEvent(reason, raw_reason))
        return events

    def _release_text(self) -> list[Event]:
        held, suspect = self._text.take()
        if not held:
            return []
        calls = calls_from_text(held, self._tool_names) if suspect and not self._calls else None
        if calls is None:
            return [TextDelta(held)]
        events: list[Event] = []
        for name, arguments in calls:
            index = self._next_index()
            events += [ToolCallStart(index, None, name), ToolCallEnd(index, arguments)]
        return events
