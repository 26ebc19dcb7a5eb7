"""The OpenAI Chat Completions wire, for OpenAI itself and every OpenAI-compatible server.

This module owns the translation both ways: requests with ``tools``,
``tool_choice`` and replayed tool-call turns; the streamed ``chat.completion.chunk`` events and
the whole ``chat.completion`` body, decoded into neutral events; and error bodies mapped to the
exception tree. Server differences are data in ``_compat.OpenAIProfile``; HTTP, retries
and SSE framing belong to the transport.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ... import errors, jsonscan
from ...events import (
    Event,
    FinishEvent,
    FinishReason,
    ModelEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ...messages import LangMessage, ProviderState, TextPart, ThinkingPart, ToolCallPart
from ...output import OutputSpec, output_spec
from ..base import (
    HttpCall,
    ProviderRequest,
    ToolChoice,
    error_result_text,
    make_error,
    merge_extra_body,
    parse_json_body,
    result_text,
)
from ._compat import (
    COMPATIBLE_PROFILE,
    DEFAULT_BASE_URL,
    OPENAI_ENV_VAR,
    OPENAI_PROFILE,
    PRESETS,
    KeptFields,
    OpenAIProfile,
    arguments_text,
    call_ids,
    checked_tool_choice,
    content_items,
    error_fields,
    get_preset,
    profile_for_base_url,
    status_class,
    stream_error,
    thinking_fields,
    usage_event,
    wire_call_id,
)

if TYPE_CHECKING:
    from ...options import LangOptions
    from ...tools import Tool

# Profiles and presets live in openai_compat; they are re-exported here for the factories.
__all__ = [
    "COMPATIBLE_PROFILE",
    "DEFAULT_BASE_URL",
    "OPENAI_ENV_VAR",
    "OPENAI_PROFILE",
    "PRESETS",
    "OpenAIProfile",
    "OpenAIProvider",
    "OpenAIStreamDecoder",
    "get_preset",
    "profile_for_base_url",
]

_loads = jsonscan.loads
_EMPTY: dict[str, Any] = {}

# Wire finish_reason -> canonical. "tool_calls" without calls in the turn
# is not trusted; calls are detected from content, never from the reason alone.
_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "error": "error",
}


def encode_response_format(output: OutputSpec) -> dict[str, Any]:
    """``response_format`` for structured output: a named JSON schema, strict when lossless.

    The schema goes through the same strict post-pass as a tool's parameters; when that would
    lose a rule (a length bound, a free-form dict), it is sent without ``strict``.
    """
    function = output.tool.schema_for("openai")["function"]
    json_schema: dict[str, Any] = {"name": output.name, "schema": function["parameters"]}
    if function.get("strict"):
        json_schema["strict"] = True
    return {"type": "json_schema", "json_schema": json_schema}


class OpenAIProvider:
    """Chat Completions for OpenAI or any compatible server described by ``profile``.

    Args:
        api_key: Sent as ``Authorization: Bearer``; None for local servers without auth.
        base_url: Including the version (``https://api.openai.com/v1``).
        profile: What the server accepts (see ``_compat.PRESETS``).
        organization: Sent as ``OpenAI-Organization``.
        project: Sent as ``OpenAI-Project``.
    """

    framing: Literal["sse", "ndjson"] = "sse"

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        profile: OpenAIProfile = OPENAI_PROFILE,
        organization: str | None = None,
        project: str | None = None,
    ) -> None:
        self.name = profile.name
        self.profile = profile
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        if organization:
            self._headers["OpenAI-Organization"] = organization
        if project:
            self._headers["OpenAI-Project"] = project

    def __repr__(self) -> str:
        return f"OpenAIProvider(name={self.name!r}, url={self.url!r})"

    # -- requests ---------------------------------------------------------------------------

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The ``POST /chat/completions`` request for one round."""
        options = request.options
        body: dict[str, Any] = {
            "model": request.model,
            "messages": self._encode_messages(request.messages),
        }
        if request.tools:
            self._encode_tools(request.tools, options, body)
        if options.native_tools:  # the server's own tool types, beside the functions
            body["tools"] = [*body.get("tools", ()), *options.native_tools]
        if request.stream:
            body["stream"] = True
            if self.profile.include_usage:
                body["stream_options"] = {"include_usage": True}
        self._encode_sampling(options, body)
        body.update(thinking_fields(self.profile, options.thinking))
        output = output_spec(options.output_type)
        if output is not None:
            body["response_format"] = encode_response_format(output)
        merge_extra_body(body, options.extra_body)
        headers = dict(self._headers)
        if options.extra_headers:
            headers.update(options.extra_headers)
        return HttpCall(self.url, headers, body, request.stream)

    def _encode_sampling(self, options: LangOptions, body: dict[str, Any]) -> None:
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.top_p is not None:
            body["top_p"] = options.top_p
        if options.max_tokens is not None:
            body[self.profile.max_tokens_field] = options.max_tokens
        if options.stop is not None:
            body["stop"] = options.stop if isinstance(options.stop, str) else list(options.stop)

    def _encode_tools(
        self, tools: Sequence[Tool], options: LangOptions, body: dict[str, Any]
    ) -> None:
        choice = checked_tool_choice(self.profile, [t.name for t in tools], options)
        if choice is not None and choice.mode == "none" and not self.profile.supports_tool_choice:
            return  # no tool_choice on this server: "none" is said by sending no tools
        if (
            choice is not None
            and choice.mode == "named"
            and not self.profile.supports_named_tool_choice
        ):
            # The server serves a named choice as "auto": offer only that tool, and require a
            # call, which forces the same call.
            tools = [t for t in tools if t.name == choice.name]
            choice = ToolChoice("required")
        body["tools"] = [t.schema_for("openai") for t in tools]
        if choice is not None and self.profile.supports_tool_choice:
            body["tool_choice"] = _wire_tool_choice(choice)
        parallel = options.parallel_tool_calls
        if parallel is None and any(t.strict is True for t in tools):
            # Strict mode is documented as incompatible with parallel calls (a parallel call
            # may not match its schema). A user who asked for strict wants that guarantee, so
            # parallel calls go off; strict picked automatically (strict=None, lossless)
            # keeps them on, since every call is validated here anyway.
            parallel = False
        if parallel is not None and self.profile.supports_parallel_tool_calls:
            body["parallel_tool_calls"] = parallel

    def _encode_messages(self, messages: Sequence[LangMessage]) -> list[dict[str, Any]]:
        ids = call_ids(self.profile, messages)
        return [self._encode_message(m, ids) for m in messages]

    def _encode_message(self, message: LangMessage, ids: Mapping[str, str]) -> dict[str, Any]:
        if message.role == "assistant":
            return self._encode_assistant(message, ids)
        if message.role == "tool":
            return self._encode_result(message, ids)
        return {"role": message.role, "content": message.content}

    def _encode_result(self, message: LangMessage, ids: Mapping[str, str]) -> dict[str, Any]:
        call_id = message.tool_call_id
        if not call_id:  # the wire pairs a result with its call by id alone
            raise errors.ConfigError(
                f"a tool result needs the tool_call_id of its call: {message!r}"
            )
        content = result_text(message)  # no images in a tool message on this wire
        if message.is_error:  # no error flag on this wire: the error is said in the text
            content = error_result_text(content, message.error_type)
        wire_id = ids.get(call_id) or wire_call_id(self.profile, call_id)
        return {"role": "tool", "tool_call_id": wire_id, "content": content}

    def _encode_assistant(self, message: LangMessage, ids: Mapping[str, str]) -> dict[str, Any]:
        texts: list[str] = []
        thinking: list[str] = []
        calls: list[dict[str, Any]] = []
        replay: dict[str, Any] = {}  # this server's own opaque keys, sent back verbatim
        for part in message.parts:
            own = part.state is not None and part.state.provider == self.name
            if isinstance(part, ToolCallPart):
                calls.append(self._encode_call(part, own, ids))
                continue
            if isinstance(part, TextPart):
                texts.append(part.text)
            elif isinstance(part, ThinkingPart) and (own or part.state is None):
                thinking.append(part.text)
            if own and part.state is not None:
                _merge_replay(replay, part.state.data)
        out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
        if calls:
            out["tool_calls"] = calls
            echo = self.profile.reasoning_echo_field
            if echo and (thinking or self.profile.reasoning_echo_required):
                out[echo] = "".join(thinking)
        elif out["content"] is None:
            out["content"] = ""  # an assistant message needs content or tool_calls
        out.update(replay)
        return out

    def _encode_call(self, part: ToolCallPart, own: bool, ids: Mapping[str, str]) -> dict[str, Any]:
        call = part.call
        entry: dict[str, Any] = {
            "id": ids[call.id],
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_json()},
        }
        if own and part.state is not None:
            entry.update(part.state.data)  # e.g. Gemini-compat extra_content, verbatim
        return entry

    # -- responses --------------------------------------------------------------------------

    def decode_stream(self) -> OpenAIStreamDecoder:
        """A fresh decoder for one streamed response."""
        return OpenAIStreamDecoder(self.name)

    def decode_response(self, body: Any) -> list[Event]:
        """Events for a whole ``chat.completion`` body, the same a stream would produce."""
        decoder = OpenAIStreamDecoder(self.name)
        try:
            if body.get("error") is not None or body.get("object") == "error":
                raise stream_error(self.name, body.get("error") or body)
            choice = body["choices"][0]
            message = dict(choice.get("message") or _EMPTY)
            calls = message.get("tool_calls")
            if calls:
                message["tool_calls"] = [{**c, "index": i} for i, c in enumerate(calls)]
            chunk = {
                "choices": [{"delta": message, "finish_reason": choice.get("finish_reason")}],
                "usage": body.get("usage"),
                "model": body.get("model"),
            }
            return decoder.decode_chunk(chunk) + decoder.feed(None, "[DONE]")
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            raise errors.StreamError(
                f"{self.name}: unexpected response body: {body!r:.300}"
            ) from exc

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an HTTP error response (``{"error": {...}}`` and variants)."""
        payload = parse_json_body(body)
        message, tags = error_fields(payload)
        # insufficient_quota is a 429 that retrying cannot fix.
        quota = "insufficient_quota" in tags
        if quota:
            message += " (quota exhausted: retrying will not help)"
        cls = status_class(status)
        if cls is errors.ServerError and "overloaded" in tags:
            cls = errors.OverloadedError
        err = make_error(
            cls,
            message or f"HTTP {status}",
            provider=self.name,
            status=status,
            body=payload,
            headers=headers,
        )
        if quota:
            err.retry_after = None
        return err


def _wire_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.mode == "named":
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode


# Kept for the user but never sent back: a Chat Completions assistant message has no
# ``annotations`` field, and strict servers (Groq) reject message fields they do not know.
_KEPT_NOT_SENT = frozenset({"annotations"})


def _merge_replay(replay: dict[str, Any], data: Mapping[str, Any]) -> None:
    for key, value in data.items():
        if key in _KEPT_NOT_SENT:
            continue
        if key == "reasoning_details" and key in replay:
            replay[key] = [*replay[key], *value]
        else:
            replay[key] = value


class OpenAIStreamDecoder:
    """Turns ``chat.completion.chunk`` payloads into events; one per streamed response.

    Calls are keyed by ``delta.tool_calls[].index``: the first delta of an index starts the
    call (its ``id`` and ``name``), later ones only add argument fragments. The per-chunk path
    is kept lean: one ``json.loads`` and a few dict lookups for a plain text delta.
    """

    __slots__ = (
        "_calls",
        "_done",
        "_finish",
        "_ids",
        "_kept",
        "_model",
        "_name",
        "_pending",
        "_refused",
    )

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: dict[int, bool] = {}  # started index -> any argument text seen
        self._pending: dict[int, tuple[str | None, str]] = {}  # index without a name yet
        self._ids: dict[str, int] = {}  # id -> index, for servers that omit "index"
        self._kept = KeptFields()  # reasoning_details and annotations, until the turn ends
        self._finish: str | None = None
        self._refused = False
        self._done = False
        self._model: str | None = None

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE ``data`` payload (``event`` names are not used on this wire)."""
        if data == "[DONE]":
            return self._on_done()
        if self._done:
            return []
        try:
            return self.decode_chunk(_loads(data))
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            raise errors.StreamError(f"{self._name}: undecodable stream chunk {data:.200}") from exc

    def close(self) -> list[Event]:
        """The body ended; a stream without ``data: [DONE]`` was cut off."""
        if not self._done:
            raise errors.StreamError(f"{self._name}: stream ended before [DONE]")
        return []

    def decode_chunk(self, chunk: dict[str, Any]) -> list[Event]:
        """Events for one parsed chunk (also used for whole bodies, as a single chunk)."""
        # An error object can arrive inside a 200 stream ("error": null is no error);
        # OpenRouter's docs confirm its mid-generation errors come this way, with an int code.
        if "error" in chunk and chunk["error"] is not None:
            raise stream_error(self._name, chunk["error"])
        if self._model is None:  # the first chunk names the model that answers
            self._model = str(chunk.get("model") or "")
            head: list[Event] = [ModelEvent(self._model)] if self._model else []
            return head + self.decode_chunk(chunk)
        choices = chunk.get("choices")
        if not choices:  # the include_usage chunk has "choices": []
            if chunk.get("object") == "error":  # vLLM / Mistral error shape
                raise stream_error(self._name, chunk)
            usage = chunk.get("usage")
            return [usage_event(usage)] if usage else []
        choice = choices[0]
        out: list[Event] = []
        delta = choice.get("delta")
        if delta:
            # Nearly every delta has one key, a piece of text or of one call's arguments:
            # those skip the checks ``_delta`` makes for the rarer keys.
            content = delta.get("content")
            if len(delta) > 1:
                self._delta(delta, out)
            elif content and content.__class__ is str:
                out.append(TextDelta(content))
            elif delta.get("tool_calls"):
                self._tool_deltas(delta["tool_calls"], out)
            else:
                self._delta(delta, out)
        if choice.get("finish_reason"):
            self._on_finish(choice["finish_reason"], out)
        usage = chunk.get("usage")  # Mistral and others put it on the last choice chunk
        if usage:
            out.append(usage_event(usage))
        return out

    def _delta(self, delta: dict[str, Any], out: list[Event]) -> None:
        get = delta.get
        # DeepSeek / llama.cpp / older vLLM say reasoning_content, OpenRouter / Ollama / newer
        # vLLM say reasoning; some send both with the same text, so take one.
        reasoning = get("reasoning_content") or get("reasoning")
        if reasoning and reasoning.__class__ is str:
            out.append(ThinkingDelta(reasoning))
        content = get("content")
        if content:
            if content.__class__ is str:
                out.append(TextDelta(content))
            else:
                content_items(content, out)
        refusal = get("refusal")
        if refusal:
            self._refused = True
            out.append(TextDelta(refusal))  # shown as text; the turn ends as content_filter
        if get("tool_calls"):
            self._tool_deltas(delta["tool_calls"], out)
        if get("reasoning_details") or get("annotations"):
            self._kept.add(delta)
        if get("extra_content") and out:  # Gemini-compat signature on the part just sent
            state = ProviderState(self._name, {"extra_content": delta["extra_content"]})
            out.append(PartStateEvent(state))

    def _tool_deltas(self, tool_calls: list[dict[str, Any]], out: list[Event]) -> None:
        calls = self._calls
        for tc in tool_calls:
            index = tc.get("index")
            if index is None:
                index = self._index_without(tc)
            function = tc.get("function") or _EMPTY
            seen = calls.get(index)
            # id and name are read on the first delta of an index only, so servers that
            # resend them on later deltas merge idempotently.
            if seen is None and not self._start(index, tc, function, out):
                continue
            arguments = function.get("arguments")
            if arguments:
                if arguments.__class__ is not str:
                    arguments = arguments_text(arguments)
                out.append(ToolCallDelta(index, arguments))
                if not seen:
                    calls[index] = True

    def _start(
        self, index: int, tc: dict[str, Any], function: dict[str, Any], out: list[Event]
    ) -> bool:
        pending = self._pending.pop(index, None)
        call_id = tc.get("id") or (pending[0] if pending else None)
        buffered = pending[1] if pending else ""
        name = function.get("name")
        if not name:  # id before name: wait for the name, keeping any arguments
            arguments = function.get("arguments") or ""
            if arguments.__class__ is not str:
                arguments = arguments_text(arguments)
            self._pending[index] = (call_id, buffered + arguments)
            return False
        self._calls[index] = bool(buffered)
        out.append(ToolCallStart(index, call_id, name))
        if tc.get("extra_content"):  # Gemini-compat thought signature on this call
            state = ProviderState(self._name, {"extra_content": tc["extra_content"]})
            out.append(PartStateEvent(state, index=index))
        if buffered:
            out.append(ToolCallDelta(index, buffered))
        return True

    def _index_without(self, tc: dict[str, Any]) -> int:
        call_id = tc.get("id")
        if call_id is None:  # a continuation: the latest call
            return max(self._calls, default=0)
        if call_id not in self._ids:
            self._ids[call_id] = len(self._ids)
        return self._ids[call_id]

    def _on_finish(self, reason: str, out: list[Event]) -> None:
        if self._finish is None:  # some servers repeat the finish chunk: end calls once
            self._end_calls(out)
        self._finish = reason

    def _end_calls(self, out: list[Event]) -> None:
        for index, seen in self._calls.items():
            out.append(ToolCallEnd(index, None if seen else {}))  # no arguments at all = {}
        out += self._kept.flush(self._name)

    def _on_done(self) -> list[Event]:
        if self._done:
            return []
        self._done = True
        out: list[Event] = []
        if self._finish is None:  # [DONE] without a finish_reason: end what was started
            self._end_calls(out)
        else:  # reasoning details that came after the finish chunk are kept too
            out += self._kept.flush(self._name)
        out.append(FinishEvent(self._reason(), self._finish))
        return out

    def _reason(self) -> FinishReason:
        reason = _FINISH.get(self._finish or "stop", "stop")
        if reason == "length":  # kept with calls: their arguments may be cut off
            return reason
        if self._calls:  # named tool_choice reports "stop" with calls
            return "tool_calls"
        if reason == "stop" and self._refused:
            return "content_filter"
        return reason
