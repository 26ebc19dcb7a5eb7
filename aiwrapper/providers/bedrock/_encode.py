"""The Converse request's conversation: ``system`` blocks and content-block ``messages``.

This module owns how the neutral conversation becomes Converse content blocks: ``text``,
``toolUse`` (input as an object), ``toolResult`` (text content, ``status: "error"`` for a failed
call) gathered first in the next user message, consecutive same-role messages merged (the API
wants the roles to alternate), Bedrock's own reasoning replayed from the state it came with
(``reasoningText`` with its signature, or ``redactedContent``; another provider's reasoning is
dropped, as it cannot be verified here), and images and documents as ``image`` and ``document``
blocks (``_media``) in user messages and in ``toolResult`` content, in the tool's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._conversation._messages import (
    LangMessage,
    MediaPart,
    OpaquePart,
    Part,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from .._base import result_text
from ..anthropic._encode import wire_id  # a toolUseId takes what a tool_use id takes
from ._media import MediaBlocks, check_message
from ._name import NAME

__all__ = ["encode_messages", "wire_id"]


def encode_messages(
    messages: Sequence[LangMessage],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``system`` blocks and the ``messages`` array of a Converse request.

    Raises:
        ConfigError: An image or document the wire cannot take, or a message breaking the
            rules on them (see ``_media``).
    """
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    media = MediaBlocks()
    for message in messages:
        if message.role == "system":
            if message.content:  # the API refuses an empty system text
                system.append({"text": message.content})
            continue
        role = "user" if message.role == "tool" else message.role
        blocks = _message_blocks(message, media)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for entry in out:  # a turn's results come first in their user message
        entry["content"].sort(key=lambda block: "toolResult" not in block)
        check_message(entry["content"])
    return system, out


def _message_blocks(message: LangMessage, media: MediaBlocks) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [_tool_result(message, media)]
    # Only a user message takes images and documents; an assistant's (one another provider
    # generated, say) stay in the conversation but are not sent back, as on the other wires.
    return _blocks(message.parts, media if message.role == "user" else None)


def _tool_result(message: LangMessage, media: MediaBlocks) -> dict[str, Any]:
    content = [{"text": result_text(message) or " "}]  # an empty text is refused
    if any(isinstance(p, MediaPart) for p in message.parts):  # blocks, in the tool's order
        content = [_result_block(p, media) for p in message.parts if _is_content(p)]
    result: dict[str, Any] = {"toolUseId": wire_id(message.tool_call_id or ""), "content": content}
    if message.is_error:
        result["status"] = "error"
    return {"toolResult": result}


def _is_content(part: Part) -> bool:
    return isinstance(part, MediaPart) or (isinstance(part, TextPart) and bool(part.text))


def _result_block(part: Part, media: MediaBlocks) -> dict[str, Any]:
    if isinstance(part, MediaPart):
        return media.block(part)
    assert isinstance(part, TextPart)
    return {"text": part.text}


def _blocks(parts: Sequence[Part], media: MediaBlocks | None) -> list[dict[str, Any]]:
    blocks = (_media_block(p, media) if isinstance(p, MediaPart) else _block(p) for p in parts)
    return [block for block in blocks if block is not None]


def _media_block(part: MediaPart, media: MediaBlocks | None) -> dict[str, Any] | None:
    return None if media is None else media.block(part)


def _own(state: ProviderState | None) -> dict[str, Any] | None:
    """The state's payload when Bedrock made it; another provider's state is dropped."""
    return state.data if state is not None and state.provider == NAME else None


def _block(part: Part) -> dict[str, Any] | None:
    data = _own(part.state)
    if isinstance(part, TextPart):
        return {"text": part.text} if part.text else None
    if isinstance(part, ThinkingPart):
        if data is None or "signature" not in data:
            return None  # unsigned reasoning cannot be replayed: the model checks it
        reasoning = {"text": part.text, "signature": data["signature"]}
        return {"reasoningContent": {"reasoningText": reasoning}}
    if isinstance(part, ToolCallPart):
        call = part.call
        use = {"toolUseId": wire_id(call.id), "name": call.name, "input": call.arguments}
        return {"toolUse": use}
    if isinstance(part, OpaquePart) and data is not None and "redacted" in data:
        return {"reasoningContent": {"redactedContent": data["redacted"]}}
    return None
