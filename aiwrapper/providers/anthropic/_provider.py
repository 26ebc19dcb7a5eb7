"""The Anthropic Messages wire format (``POST /v1/messages``).

This module owns the translation both ways: ``encode`` turns a ``ProviderRequest`` into the
Messages request (top-level ``system``, content-block messages, tools, ``tool_choice``, thinking
per model generation from ``_models``), the stream decoder turns SSE events into neutral
events, and ``error`` maps error responses. Thinking blocks, signatures, redacted thinking and
server-tool blocks ride on the assistant message as ``ProviderState`` and are replayed verbatim
and in order, because the API rejects a tool loop whose thinking blocks were altered. Sending,
retrying and SSE framing are left to ``http.py`` and ``framing.py``.

Decisions where the wire leaves a choice:

* ``max_tokens`` is always sent. Left unset, it is ``default_max_tokens`` plus the thinking
  budget (or, for adaptive thinking, the budget matching the effort), so thinking never eats
  the answer. Set by the user, it must exceed a budget the user gave, else ``ConfigError``; a
  budget picked for ``True`` or an effort is fitted into it (at most half).
* A forced ``function_call`` (``"required"`` or a name) with thinking on, with no tools, or
  naming a tool not sent; a ``temperature`` other than 1 or a ``top_p`` below 0.95 with
  thinking on; both ``temperature`` and ``top_p`` on models from Opus 4.1 on; any sampling
  parameter on a model that removed them (Opus 4.7+); and thinking on while the calls
  awaiting results were made without Anthropic thinking (another provider's) are
  ``ConfigError`` before the request.
* HTTP 402 ``billing_error`` maps to ``PermissionDeniedError``: the key is valid but the
  account may not use the API until billing is fixed, and retrying cannot help.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ... import errors
from ...events import Event
from ...messages import (
    ImagePart,
    LangMessage,
    OpaquePart,
    Part,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ...models import model_info
from ...options import LangOptions
from ...output import output_spec
from ..base import (
    HttpCall,
    ProviderRequest,
    error_class_for_status,
    make_error,
    merge_extra_body,
    parse_json_body,
)
from ._decode import NAME, AnthropicStreamDecoder
from ._models import (
    check_thinking_turn,
    encode_sampling,
    encode_thinking,
    encode_tool_choice,
    family_for,
)
from ._output import output_format

__all__ = ["AnthropicProvider", "AnthropicStreamDecoder", "encode_messages", "wire_id"]

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
            requires one), before thinking headroom is added. ``None`` (default) sends the
            model's output limit when ``aiwrapper.models`` knows it, else 4096 plus headroom.
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
        default_max_tokens: int | None = None,
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.version = version
        self.betas = tuple(betas)
        self.default_max_tokens = default_max_tokens

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The Messages request for one round.

        A history holding ``tool_use``/``tool_result`` blocks is sent without ``tools`` when
        the round declares none: the API once answered that with 400 "Requests which include
        `tool_use` or `tool_result` blocks must define tools" (anthropic-sdk-python#494), but
        has accepted it since 2025-02-27 (API release notes; maintainer's answer in
        anthropic-sdk-python#849), so no stub declarations are invented for it.
        """
        options = request.options
        family = family_for(request.model)
        thinking, reserve = encode_thinking(options.thinking, family, max_tokens=options.max_tokens)
        extra_thinking = (options.extra_body or {}).get("thinking")
        thinking_on = bool(thinking) or _enabled(extra_thinking)
        system, messages = encode_messages(request.messages, thinking=thinking_on)
        if thinking_on:
            check_thinking_turn(messages, _own_call_ids(request.messages))
        names = [tool.name for tool in request.tools]
        choice = encode_tool_choice(options, names, thinking_on=thinking_on)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": self._max_tokens(request.model, options, thinking, reserve),
            "messages": messages,
        }
        if system:
            body["system"] = system
        if request.tools or options.native_tools:  # server tools go beside the functions
            body["tools"] = [tool.schema_for("anthropic") for tool in request.tools]
            body["tools"] += options.native_tools or ()
        if choice is not None:
            body["tool_choice"] = choice
        body.update(encode_sampling(options, family, request.model, thinking_on=thinking_on))
        body.update(thinking)
        output = output_spec(options.output_type)
        if output is not None:  # beside a thinking effort, in the same output_config
            output_config = body.setdefault("output_config", {})
            output_config["format"] = output_format(output.schema)
        if request.stream:
            body["stream"] = True
        merge_extra_body(body, options.extra_body)
        return HttpCall(
            self.base_url + "/v1/messages", self._headers(options), body, request.stream
        )

    def decode_stream(self, request: ProviderRequest | None = None) -> AnthropicStreamDecoder:
        """A fresh decoder for one streamed response."""
        return AnthropicStreamDecoder()

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
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

    def _max_tokens(
        self, model: str, options: LangOptions, thinking: dict[str, Any], reserve: int
    ) -> int:
        if options.max_tokens is None:
            limit = _output_limit(model) if self.default_max_tokens is None else None
            if limit is not None:
                return limit
            return (self.default_max_tokens or _FALLBACK_MAX_TOKENS) + reserve
        budget = thinking.get("thinking", {}).get("budget_tokens")
        # With interleaved thinking the budget may exceed max_tokens.
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


_FALLBACK_MAX_TOKENS = 4096


def _output_limit(model: str) -> int | None:
    """The model's own output limit: thinking counts toward it, so no headroom is added."""
    info = model_info(NAME, model)
    return info.max_output_tokens if info is not None else None


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
        # Anthropic wants every tool_result block first in its user message, before any other block.
        entry["content"].sort(key=lambda block: block.get("type") != "tool_result")
    return "\n\n".join(text for text in system if text), out


def _own_call_ids(messages: Sequence[LangMessage]) -> set[str]:
    """Wire ids of the calls this provider made (the ones that can carry its thinking)."""
    return {
        wire_id(part.call.id)
        for message in messages
        if message.role == "assistant"
        for part in message.parts
        if isinstance(part, ToolCallPart) and part.call.provider == NAME
    }


def _tool_result(message: LangMessage) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": wire_id(message.tool_call_id or ""),
    }
    images = [_image(p) for p in message.parts if isinstance(p, ImagePart)]
    if images:  # content as a list of blocks: text first, then each image
        text = [{"type": "text", "text": message.content}] if message.content else []
        block["content"] = [*text, *images]
    elif message.content:
        block["content"] = message.content
    if message.is_error:
        block["is_error"] = True
    return block


def _image(part: ImagePart) -> dict[str, Any]:
    source = {"type": "base64", "media_type": part.media_type, "data": part.data}
    return {"type": "image", "source": source}


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
        kept = data.get("block") if data else None
        if not isinstance(kept, dict) or not isinstance(kept.get("type"), str):
            return None  # a block without a type (one that could not be read) is rejected
        return dict(kept)
    return None
