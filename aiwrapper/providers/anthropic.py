"""The Anthropic Messages wire format (``POST /v1/messages``), per protocols.md section 2.

This module owns the translation both ways: ``encode`` turns a ``ProviderRequest`` into the
Messages request (top-level ``system``, content-block messages, tools, ``tool_choice``, thinking
per model generation from ``anthropic_models``), the stream decoder turns SSE events into neutral
events, and ``error`` maps error responses. Thinking blocks, signatures, redacted thinking and
server-tool blocks ride on the assistant message as ``ProviderState`` and are replayed verbatim
and in order, because the API rejects a tool loop whose thinking blocks were altered. Sending,
retrying and SSE framing are left to ``http.py`` and ``framing.py``.

Decisions where the wire leaves a choice:

* ``max_tokens`` is always sent. Left unset, it is ``default_max_tokens`` plus the thinking
  budget (or, for adaptive thinking, the budget matching the effort), so thinking never eats
  the answer. Set by the user, it must exceed a thinking budget, else ``ConfigError``.
* A forced ``function_call`` (``"required"`` or a name) with thinking on, a ``temperature``
  other than 1 or a ``top_p`` below 0.95 with thinking on, and any sampling parameter on a
  model that removed them (Opus 4.7+) are ``ConfigError`` before the request.
* HTTP 402 ``billing_error`` maps to ``PermissionDeniedError``: the key is valid but the
  account may not use the API until billing is fixed, and retrying cannot help.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from .. import errors
from ..events import (
    Event,
    FinishEvent,
    FinishReason,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..messages import (
    LangMessage,
    OpaquePart,
    Part,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ..options import LangOptions
from .anthropic_models import encode_sampling, encode_thinking, encode_tool_choice, family_for
from .base import (
    HttpCall,
    ProviderRequest,
    error_class_for_status,
    make_error,
    parse_json_body,
)

__all__ = ["AnthropicProvider", "AnthropicStreamDecoder", "wire_id"]

NAME = "anthropic"
_ID_OK = re.compile(r"[a-zA-Z0-9_-]+")
_ID_BAD_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


class AnthropicProvider:
    """The Anthropic Messages API.

    Args:
        api_key: Sent as ``x-api-key``; ``None`` sends no key (a proxy that adds its own).
        base_url: The server root without ``/v1`` (``https://api.anthropic.com``).
        version: The ``anthropic-version`` header.
        betas: Flags joined into one ``anthropic-beta`` header
            (e.g. ``"interleaved-thinking-2025-05-14"`` for thinking between tool calls on
            Claude 4 models that use budgets).
        default_max_tokens: ``max_tokens`` when the options leave it unset (the API
            requires one), before thinking headroom is added.
    """

    name = NAME
    framing: Literal["sse", "ndjson"] = "sse"

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str = "https://api.anthropic.com",
        version: str = "2023-06-01",
        betas: Sequence[str] = (),
        default_max_tokens: int = 4096,
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.version = version
        self.betas = tuple(betas)
        self.default_max_tokens = default_max_tokens

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The Messages request for one round."""
        options = request.options
        family = family_for(request.model)
        thinking, reserve = encode_thinking(options.thinking, family)
        extra_thinking = (options.extra_body or {}).get("thinking")
        thinking_on = bool(thinking) or _enabled(extra_thinking)
        system, messages = encode_messages(request.messages, thinking=thinking_on)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": self._max_tokens(options, thinking, reserve),
            "messages": messages,
        }
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [tool.schema_for("anthropic") for tool in request.tools]
            choice = encode_tool_choice(options, thinking_on=thinking_on)
            if choice is not None:
                body["tool_choice"] = choice
        body.update(encode_sampling(options, family, request.model, thinking_on=thinking_on))
        body.update(thinking)
        if request.stream:
            body["stream"] = True
        body.update(options.extra_body or {})
        return HttpCall(
            self.base_url + "/v1/messages", self._headers(options), body, request.stream
        )

    def decode_stream(self) -> AnthropicStreamDecoder:
        """A fresh decoder for one streamed response."""
        return AnthropicStreamDecoder()

    def decode_response(self, body: Any) -> list[Event]:
        """Events for a whole (non-streamed) message body, as its stream would give them."""
        return AnthropicStreamDecoder().decode_message(body)

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an error response (``{"type":"error","error":{type,message}}``)."""
        parsed = parse_json_body(body)
        kind, message = _error_detail(parsed, status)
        # The error type wins where it is more precise than the status (a 500 that says
        # overloaded_error is an overload; 402 billing_error has no status class of its own).
        cls = _TYPE_OVER_STATUS.get(str(kind)) or error_class_for_status(status)
        err = make_error(
            cls,
            message,
            provider=NAME,
            status=status,
            body=parsed,
            headers=headers,
            request_id_header="request-id",
        )
        if err.request_id is None and isinstance(parsed, dict):
            request_id = parsed.get("request_id")
            err.request_id = request_id if isinstance(request_id, str) else None
        return err

    def _max_tokens(self, options: LangOptions, thinking: dict[str, Any], reserve: int) -> int:
        if options.max_tokens is None:
            return self.default_max_tokens + reserve
        budget = thinking.get("thinking", {}).get("budget_tokens")
        # With interleaved thinking the budget may exceed max_tokens (protocols.md 2.6).
        interleaved = any(beta.startswith("interleaved-thinking") for beta in self.betas)
        if budget is not None and options.max_tokens <= budget and not interleaved:
            raise errors.ConfigError(
                f"max_tokens ({options.max_tokens}) must be larger than the thinking budget "
                f"({budget}): Anthropic counts thinking tokens toward max_tokens"
            )
        return options.max_tokens

    def _headers(self, options: LangOptions) -> dict[str, str]:
        headers = {"anthropic-version": self.version, "content-type": "application/json"}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        if self.betas:
            headers["anthropic-beta"] = ",".join(self.betas)
        headers.update(options.extra_headers or {})
        return headers


_TYPE_OVER_STATUS: dict[str, type[errors.ProviderError]] = {
    "overloaded_error": errors.OverloadedError,
    "rate_limit_error": errors.RateLimitError,
    "billing_error": errors.PermissionDeniedError,
}


def _enabled(thinking: object) -> bool:
    """Whether a raw ``thinking`` field (given through ``extra_body``) turns thinking on."""
    return isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive")


def _error_detail(parsed: Any, status: int) -> tuple[str | None, str]:
    """The ``error.type`` and message of an error body (its text when it is not JSON)."""
    detail = parsed.get("error") if isinstance(parsed, dict) else None
    detail = detail if isinstance(detail, dict) else {}
    kind, message = detail.get("type"), detail.get("message")
    if not isinstance(message, str) or not message:
        message = parsed.strip()[:500] if isinstance(parsed, str) else ""
    return (kind if isinstance(kind, str) else None), message or f"HTTP {status}"


# --- conversation ---------------------------------------------------------------------------


def wire_id(call_id: str) -> str:
    """A tool-call id the API accepts (``^[a-zA-Z0-9_-]+$``), the same for ``tool_use`` and
    ``tool_result``; a foreign id gets a hash suffix so two ids never collide after cleaning."""
    if _ID_OK.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()[:8]
    return f"{_ID_BAD_CHARS.sub('_', call_id)}_{digest}"


def encode_messages(
    messages: Sequence[LangMessage], *, thinking: bool
) -> tuple[str, list[dict[str, Any]]]:
    """The top-level ``system`` text and the ``messages`` array.

    System messages are joined into ``system``; tool results become ``tool_result`` blocks of
    a user message; consecutive same-role messages merge into one (the API wants alternation
    and all results of a turn in the single next user message, before any text). With
    ``thinking`` off, thinking blocks are left out: the API rejects them in the final
    assistant message then, and ignores them in earlier turns anyway.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.content)
            continue
        role = "user" if message.role == "tool" else message.role
        if message.role == "tool":
            blocks = [_tool_result(message)]
        else:
            blocks = _blocks(message.parts, thinking=thinking)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for entry in out:
        # protocols.md 2.5: inside the user message, every tool_result block comes first.
        entry["content"].sort(key=lambda block: block.get("type") != "tool_result")
    return "\n\n".join(text for text in system if text), out


def _tool_result(message: LangMessage) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": wire_id(message.tool_call_id or ""),
    }
    if message.content:
        block["content"] = message.content
    if message.is_error:
        block["is_error"] = True
    return block


def _blocks(parts: Sequence[Part], *, thinking: bool) -> list[dict[str, Any]]:
    kept = (p for p in parts if thinking or not _is_reasoning(p))
    blocks = (_block(part) for part in kept)
    return [block for block in blocks if block is not None]


def _is_reasoning(part: Part) -> bool:
    return isinstance(part, ThinkingPart) or (
        isinstance(part, OpaquePart) and part.kind == "thinking"
    )


def _own(state: ProviderState | None) -> dict[str, Any] | None:
    """The state's payload when this provider made it; another provider's state is dropped."""
    return state.data if state is not None and state.provider == NAME else None


def _block(part: Part) -> dict[str, Any] | None:
    data = _own(part.state)
    if isinstance(part, TextPart):
        if not part.text:
            return None  # the API rejects empty text blocks
        block: dict[str, Any] = {"type": "text", "text": part.text}
        if data and data.get("citations"):
            block["citations"] = data["citations"]
        return block
    if isinstance(part, ThinkingPart):
        # Unsigned or foreign thinking cannot be replayed (the API verifies the signature).
        if data is None or "signature" not in data:
            return None
        return {"type": "thinking", "thinking": part.text, "signature": data["signature"]}
    if isinstance(part, ToolCallPart):
        call = part.call
        block = {"type": "tool_use", "id": wire_id(call.id), "name": call.name}
        block["input"] = call.arguments
        block.update((data or {}).get("extra", {}))  # e.g. "caller" (programmatic tool calling)
        return block
    if isinstance(part, OpaquePart):
        return dict(data["block"]) if data and isinstance(data.get("block"), dict) else None
    return None


# --- responses ------------------------------------------------------------------------------

# protocols.md 6.5; pause_turn means "resend to continue" (a server-tool loop paused).
_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
    "pause_turn": "pause",
}

# The error classes of an ``error`` event inside a 200 stream (protocols.md 2.9).
_STREAM_ERRORS: dict[str, type[errors.ProviderError]] = {
    "invalid_request_error": errors.BadRequestError,
    "request_too_large": errors.BadRequestError,
    "authentication_error": errors.AuthenticationError,
    "permission_error": errors.PermissionDeniedError,
    "billing_error": errors.PermissionDeniedError,
    "not_found_error": errors.NotFoundError,
    "rate_limit_error": errors.RateLimitError,
    "api_error": errors.ServerError,
    "timeout_error": errors.ServerError,
    "overloaded_error": errors.OverloadedError,
}


def _state(data: dict[str, Any]) -> ProviderState:
    return ProviderState(provider=NAME, data=data)


class _Block:
    """What the decoder remembers about one open content block."""

    __slots__ = ("citations", "fragments", "kind", "opened", "raw")

    def __init__(self, kind: str, raw: dict[str, Any]) -> None:
        self.kind = kind  # "text", "thinking", "tool_use" or "opaque"
        self.raw = raw  # the block as content_block_start gave it
        self.opened = False  # a text part was started for it
        self.fragments: list[str] = []  # input_json_delta pieces
        self.citations: list[Any] = list(raw.get("citations") or [])


class AnthropicStreamDecoder:
    """Turns the SSE events of one Messages stream into neutral events.

    Blocks are keyed by their ``index``. Each text and thinking block starts a new part, so
    consecutive blocks never run together. Blocks the SDK does not read (``redacted_thinking``,
    ``server_tool_use``, ``*_tool_result``, unknown types) are collected, including their
    streamed ``input``, and emitted whole as an ``OpaquePartEvent`` when they stop.
    """

    def __init__(self) -> None:
        self._handlers: dict[str, Callable[[dict[str, Any]], list[Event]]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "error": self._error,
        }
        self._blocks: dict[int, _Block] = {}
        self._usage: dict[str, Any] = {}
        self._stop_reason: str | None = None
        self._saw_calls = False
        self._done = False

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE event (its ``event:`` name and joined ``data:`` text)."""
        if self._done or event == "ping":
            return []
        try:
            payload = json.loads(data)
        except ValueError as exc:
            raise errors.StreamError(
                f"anthropic sent an event that is not JSON: {data[:200]!r}"
            ) from exc
        if not isinstance(payload, dict):
            raise errors.StreamError(
                f"anthropic sent an event that is not an object: {data[:200]!r}"
            )
        return self.feed_object(payload.get("type") or event, payload)

    def feed_object(self, kind: str | None, payload: dict[str, Any]) -> list[Event]:
        """Decode one already parsed event; malformed events become ``StreamError``."""
        handler = self._handlers.get(kind or "")
        if handler is None:
            return []  # ping and event types newer than this SDK (forward compatibility)
        try:
            return handler(payload)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise errors.StreamError(f"malformed anthropic {kind} event: {exc!r}") from exc

    def close(self) -> list[Event]:
        """The body ended: a stream without ``message_stop`` was cut off."""
        if not self._done:
            raise errors.StreamError("anthropic stream ended before message_stop")
        return []

    def decode_message(self, body: Any) -> list[Event]:
        """Events for a whole message body, replayed through the streaming path."""
        if not isinstance(body, dict):
            raise errors.StreamError(f"anthropic response is not a JSON object: {body!r:.200}")
        if body.get("type") == "error":
            return self._error(body)
        content = body.get("content")
        if not isinstance(content, list):
            raise errors.StreamError("anthropic response has no content array")
        start = {"message": {**body, "content": []}}
        events = self.feed_object("message_start", start)
        for index, block in enumerate(content):
            events += self.feed_object(
                "content_block_start", {"index": index, "content_block": block}
            )
            events += self.feed_object("content_block_stop", {"index": index})
        events += self.feed_object(
            "message_delta", {"delta": {"stop_reason": body.get("stop_reason")}}
        )
        return events + self.feed_object("message_stop", {})

    def _message_start(self, payload: dict[str, Any]) -> list[Event]:
        self._usage = dict(payload["message"].get("usage") or {})
        return [self._usage_event()]

    def _block_start(self, payload: dict[str, Any]) -> list[Event]:
        index, raw = int(payload["index"]), dict(payload["content_block"])
        kind = raw["type"] if raw["type"] in ("text", "thinking", "tool_use") else "opaque"
        block = self._blocks[index] = _Block(kind, raw)
        if kind == "text" and raw.get("text"):
            block.opened = True
            return [TextDelta(raw["text"], new_part=True)]
        if kind == "thinking":
            # Start the part now: a block with empty text and only a signature is still a part.
            events: list[Event] = [ThinkingDelta(raw.get("thinking") or "", new_part=True)]
            if raw.get("signature"):
                events.append(PartStateEvent(_state({"signature": raw["signature"]})))
            return events
        if kind == "tool_use":
            return self._tool_start(index, raw)
        return []

    def _tool_start(self, index: int, raw: dict[str, Any]) -> list[Event]:
        self._saw_calls = True
        events: list[Event] = [ToolCallStart(index, raw["id"], raw["name"])]
        extra = {k: v for k, v in raw.items() if k not in ("type", "id", "name", "input")}
        if extra:  # e.g. "caller": kept so the replayed tool_use block is unchanged
            events.append(PartStateEvent(_state({"extra": extra}), index=index))
        return events

    def _block_delta(self, payload: dict[str, Any]) -> list[Event]:
        index, delta = int(payload["index"]), payload["delta"]
        block, kind = self._blocks[index], delta["type"]
        if block.kind == "opaque":
            _accumulate(block, delta)
            return []
        if kind == "text_delta":
            first, block.opened = not block.opened, True
            return [TextDelta(delta["text"], new_part=first)]
        if kind == "thinking_delta":
            return [ThinkingDelta(delta["thinking"])]
        if kind == "signature_delta":  # sent once, just before the block stops: assign
            return [PartStateEvent(_state({"signature": delta["signature"]}))]
        if kind == "input_json_delta" and delta["partial_json"]:
            block.fragments.append(delta["partial_json"])
            return [ToolCallDelta(index, delta["partial_json"])]
        if kind == "citations_delta":
            block.citations.append(delta["citation"])
        return []

    def _block_stop(self, payload: dict[str, Any]) -> list[Event]:
        block = self._blocks.pop(int(payload["index"]))
        if block.kind == "tool_use":
            # Streamed input is parsed by the assembler from the deltas; a whole body (or a
            # call with no input deltas) carries the object itself.
            whole = block.raw.get("input")
            arguments = None if block.fragments else (whole if isinstance(whole, dict) else {})
            return [ToolCallEnd(int(payload["index"]), arguments)]
        if block.kind == "text" and block.citations:
            # Attached at the end: state on the part earlier would split later text deltas.
            events: list[Event] = [] if block.opened else [TextDelta("", new_part=True)]
            return [*events, PartStateEvent(_state({"citations": block.citations}))]
        if block.kind == "opaque":
            if block.fragments:
                block.raw["input"] = json.loads("".join(block.fragments))
            kind: Literal["thinking", "raw"] = (
                "thinking" if block.raw["type"] == "redacted_thinking" else "raw"
            )
            return [OpaquePartEvent(_state({"block": block.raw}), kind=kind)]
        return []

    def _message_delta(self, payload: dict[str, Any]) -> list[Event]:
        reason = (payload.get("delta") or {}).get("stop_reason")
        if reason:
            self._stop_reason = reason
        usage = payload.get("usage")
        if not usage:
            return []
        # message_delta usage is cumulative: later values replace, never add.
        self._usage.update({k: v for k, v in usage.items() if v is not None})
        return [self._usage_event()]

    def _message_stop(self, payload: dict[str, Any]) -> list[Event]:
        self._done = True
        # protocols.md 5.1: calls are detected from content, not from the stop reason.
        reason = "tool_calls" if self._saw_calls else _STOP_REASONS.get(self._stop_reason or "")
        return [FinishEvent(reason or "stop", raw=self._stop_reason)]

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        detail = payload.get("error") or {}
        kind, message = detail.get("type"), detail.get("message") or "stream error"
        cls = _STREAM_ERRORS.get(str(kind))
        if cls is None:
            raise errors.StreamError(f"anthropic stream error ({kind}): {message}")
        request_id = payload.get("request_id")
        raise cls(
            message,
            provider=NAME,
            body=payload,
            request_id=request_id if isinstance(request_id, str) else None,
        )

    def _usage_event(self) -> UsageEvent:
        usage = self._usage
        uncached = usage.get("input_tokens")
        written, read = (
            usage.get("cache_creation_input_tokens"),
            usage.get("cache_read_input_tokens"),
        )
        details = usage.get("output_tokens_details") or {}
        return UsageEvent(
            # protocols.md 2.8: input_tokens counts uncached input only; the prompt is all three.
            input_tokens=None if uncached is None else uncached + (written or 0) + (read or 0),
            output_tokens=usage.get("output_tokens"),
            cached_input_tokens=read,
            cache_write_tokens=written,
            reasoning_tokens=details.get("thinking_tokens"),
            raw=dict(usage),
        )


def _accumulate(block: _Block, delta: dict[str, Any]) -> None:
    """Fold a delta into a block kept whole (a server_tool_use streams its input, say)."""
    kind, raw = delta["type"], block.raw
    if kind == "input_json_delta":
        block.fragments.append(delta["partial_json"])
    elif kind == "text_delta":
        raw["text"] = raw.get("text", "") + delta["text"]
    elif kind == "thinking_delta":
        raw["thinking"] = raw.get("thinking", "") + delta["thinking"]
    elif kind == "signature_delta":
        raw["signature"] = delta["signature"]
    elif kind == "citations_delta":
        raw["citations"] = [*raw.get("citations", []), delta["citation"]]
