"""The Responses wire's output items and response object, for both of its front-end modules.

A turn's parts become output items in their order: a run of text is a ``message`` item (one
``output_text`` part), a thinking part a ``reasoning`` item (its text as one ``summary_text``
part), a call a ``function_call`` item whose ``call_id`` carries the call's provider state
(``aiwrapper.providers._callstate``). Backend state on reasoning (Anthropic signatures and
redacted thinking,
Gemini thought signatures) rides in the reasoning item's ``encrypted_content``, the field
every Responses client already echoes back unchanged, so the backend gets it again.
``_front.py`` builds whole responses from these, ``_front_stream.py`` the items
it streams, so both say the same thing.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, TypeGuard, Union

from ..._conversation._messages import (
    OpaquePart,
    Part,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ..._conversation._result import LangResult
from .._callstate import packed, packed_id, unpacked
from .._serving import ClientRequest

__all__ = [
    "Reasoning",
    "call_item",
    "is_reasoning",
    "message_item",
    "new_id",
    "output_items",
    "output_text",
    "reasoning_item",
    "reasoning_part",
    "response_object",
]

Reasoning = Union[ThinkingPart, OpaquePart]
_OPAQUE = "opaque"  # the packed state was a block kept whole (redacted thinking), no text
_NO_STATE = ProviderState("", {})  # thinking the backend attached nothing to


def new_id(prefix: str) -> str:
    """A fresh id in OpenAI's form (``resp_...``, ``msg_...``, ``rs_...``, ``fc_...``)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def is_reasoning(part: Part) -> TypeGuard[Reasoning]:
    """The part goes out as a reasoning item."""
    return isinstance(part, ThinkingPart) or (
        isinstance(part, OpaquePart) and part.kind == "thinking"
    )


def output_text(text: str, logprobs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An ``output_text`` content part, with its tokens' log probabilities when asked."""
    tokens = logprobs if logprobs is not None else []
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": tokens}


def message_item(
    item_id: str, text: str | None, logprobs: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A ``message`` item; ``text=None`` is the empty one a stream opens with."""
    done = text is not None
    return {
        "id": item_id,
        "type": "message",
        "status": "completed" if done else "in_progress",
        "role": "assistant",
        "content": [output_text(text, logprobs)] if text is not None else [],
    }


def reasoning_item(item_id: str, part: Reasoning | None) -> dict[str, Any]:
    """A ``reasoning`` item; ``part=None`` is the empty one a stream opens with."""
    item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    if isinstance(part, ThinkingPart):
        if part.text:
            item["summary"] = [{"type": "summary_text", "text": part.text}]
        # Always set, as OpenAI sets it: a stateless client must not send back a reasoning
        # item without it (OpenAI would look the id up), so without it the thinking is lost.
        item["encrypted_content"] = packed(part.state or _NO_STATE)
    elif part is not None:
        item["encrypted_content"] = packed(part.state, k=_OPAQUE)
    return item


def reasoning_part(text: str, encrypted: Any) -> Reasoning | None:
    """A reasoning item read back: thinking with its backend state restored when it has one.

    ``encrypted_content`` this gateway did not write (OpenAI's own, say) means nothing to any
    backend here, so only the summary text is kept; an item with neither is dropped.
    """
    fields = unpacked(encrypted) if isinstance(encrypted, str) else None
    if fields is None:
        return ThinkingPart(text) if text else None
    state = ProviderState(str(fields["p"]), dict(fields["d"]))
    if fields.get("k") == _OPAQUE:
        return OpaquePart(state, kind="thinking")
    return ThinkingPart(text, state if state.provider else None)


def call_item(item_id: str, call_id: str, part: ToolCallPart, *, done: bool) -> dict[str, Any]:
    """A ``function_call`` item: empty arguments while it streams, all of them when done."""
    call = part.call
    return {
        "id": item_id,
        "type": "function_call",
        "status": "completed" if done else "in_progress",
        "call_id": call_id,
        "name": call.name,
        "arguments": call.arguments_json() if done else "",
    }


def output_items(parts: list[Part]) -> list[dict[str, Any]]:
    """A finished turn's parts as output items, in order (text runs joined)."""
    items: list[dict[str, Any]] = []
    text: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            text.append(part.text)
            continue
        if any(text):
            items.append(message_item(new_id("msg"), "".join(text)))
        text = []
        if is_reasoning(part):
            items.append(reasoning_item(new_id("rs"), part))
        elif isinstance(part, ToolCallPart):
            items.append(call_item(new_id("fc"), packed_id(part.call.id, part), part, done=True))
    if any(text):
        items.append(message_item(new_id("msg"), "".join(text)))
    return items


def response_object(
    request: ClientRequest,
    response_id: str,
    created_at: int,
    output: list[dict[str, Any]],
    result: LangResult | None,
) -> dict[str, Any]:
    """The ``response`` object: ``result=None`` while in progress, usage and status once over."""
    status, incomplete = _status(result)
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "completed_at": int(time.time()) if status == "completed" else None,
        "error": None,
        "incomplete_details": incomplete,
        "model": request.route,
        "output": output,
        "usage": _usage(result) if result is not None else None,
        "store": False,  # nothing is kept: every request carries its whole conversation
        **request.echo,
    }


def _status(result: LangResult | None) -> tuple[str, dict[str, str] | None]:
    """The response status, and why it is incomplete when it is."""
    if result is None:
        return "in_progress", None
    if result.truncated or result.finish_reason == "length":  # calls cut off included
        return "incomplete", {"reason": "max_output_tokens"}
    if result.finish_reason == "content_filter":
        return "incomplete", {"reason": "content_filter"}
    return "completed", None


def _usage(result: LangResult) -> dict[str, Any]:
    usage = result.usage
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {
            "cached_tokens": usage.cached_input_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
        },
        "output_tokens": usage.output_tokens,  # reasoning included, as on the wire
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }
