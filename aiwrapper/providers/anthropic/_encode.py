"""The Messages request's conversation: the ``system`` text and the content-block messages.

This module owns how the neutral conversation becomes content blocks: tool results as
``tool_result`` blocks first in a user message, consecutive same-role messages merged, call ids
fitted to the API's rule, and this provider's thinking, citations and server-tool blocks
replayed verbatim from the state they came with (another provider's state is dropped), images
and documents as blocks of their own (``_media``) in user messages and tool results; and the
sampling options only some wires have (``top_k``, the end user's id in ``metadata``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ... import _errors as errors
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
from .._base import extra_sampling
from ._media import MediaBlocks
from ._name import NAME

if TYPE_CHECKING:
    from ..._run._options import LangOptions

__all__ = ["encode_extra_sampling", "encode_messages", "holds_state", "own_call_ids", "wire_id"]

_ID_OK = re.compile(r"[a-zA-Z0-9_-]+")
_ID_BAD_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def wire_id(call_id: str) -> str:
    """A tool-call id the API accepts (``^[a-zA-Z0-9_-]+$``), the same for ``tool_use`` and
    ``tool_result``; a foreign id gets a hash suffix so two ids never collide after cleaning."""
    if _ID_OK.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()[:8]
    return f"{_ID_BAD_CHARS.sub('_', call_id)}_{digest}"


def encode_extra_sampling(
    options: LangOptions, model: str, *, sampling: bool, thinking_on: bool
) -> dict[str, Any]:
    """``top_k`` and ``metadata.user_id``; the other extra sampling options are refused.

    ``top_k`` follows ``temperature``: models that reject sampling options reject it too, and
    extended thinking takes no ``top_k`` (400 from the API).
    """
    fields = extra_sampling(options, NAME, {"top_k": "top_k", "user": "user"})
    if "top_k" in fields and not sampling:
        raise errors.ConfigError(f"{model} does not accept top_k; leave it unset")
    if "top_k" in fields and thinking_on:
        raise errors.ConfigError("Anthropic thinking does not take top_k; leave it unset")
    user = fields.pop("user", None)
    if user is not None:
        fields["metadata"] = {"user_id": user}
    return fields


def encode_messages(
    messages: Sequence[LangMessage], *, thinking: bool, urls: bool = True
) -> tuple[str | list[dict[str, Any]], list[dict[str, Any]]]:
    """The top-level ``system`` text and the ``messages`` array.

    System messages are joined into ``system``; tool results become ``tool_result`` blocks of
    a user message; consecutive same-role messages merge into one (the API wants alternation
    and all results of a turn in the single next user message, before any text). With
    ``thinking`` off, thinking blocks are left out: the API rejects them in the final
    assistant message then, and ignores them in earlier turns anyway. A cache breakpoint the
    user placed on a system message's block makes ``system`` a list of text blocks, one per
    system message, each with its own breakpoint. Images and documents become ``image`` and
    ``document`` blocks in user messages and tool results (``urls=False`` where the endpoint
    takes no ``url`` source); an image in an assistant's turn (one another provider generated)
    stays in the conversation but is not sent back, as on the other wires.

    Raises:
        ConfigError: A part the wire cannot take (see ``MediaBlocks``).
    """
    media = MediaBlocks(urls=urls)
    system: list[LangMessage] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message)
            continue
        role = "user" if message.role == "tool" else message.role
        if message.role == "tool":
            blocks = [_tool_result(message, media)]
        else:
            blocks = _blocks(message.parts, thinking=thinking, media=_media_for(role, media))
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for entry in out:
        # Anthropic wants every tool_result block first in its user message, before any other block.
        _results_first(entry["content"])
    return _system(system), out


def _results_first(blocks: list[dict[str, Any]]) -> None:
    """Move ``tool_result`` blocks before the others (a stable sort, done only when needed)."""
    other = False
    for block in blocks:
        if block.get("type") != "tool_result":
            other = True
        elif other:
            blocks.sort(key=lambda block: block.get("type") != "tool_result")
            return


def _system(messages: Sequence[LangMessage]) -> str | list[dict[str, Any]]:
    marked = [(message.content, _user_breakpoint(message.parts)) for message in messages]
    if not any(marker for _, marker in marked):
        return "\n\n".join(text for text, _ in marked if text)
    blocks: list[dict[str, Any]] = []
    for text, marker in marked:
        if text:
            blocks.append({"type": "text", "text": text})
            if marker is not None:
                blocks[-1]["cache_control"] = marker
    return blocks


def _user_breakpoint(parts: Sequence[Part]) -> Any:
    """The last cache breakpoint the user placed on one of these parts, or None."""
    markers = [data.get("cache_control") for part in parts if (data := _own(part.state))]
    return next((marker for marker in reversed(markers) if marker is not None), None)


def holds_state(messages: Sequence[LangMessage]) -> bool:
    """Whether a part of ``messages`` carries this provider's state (where the blocks the user
    wrote, cache breakpoints among them, are kept)."""
    for message in messages:
        for part in message.parts:
            state = part.state
            if state is not None and state.provider == NAME:
                return True
    return False


def own_call_ids(messages: Sequence[LangMessage]) -> set[str]:
    """Wire ids of the calls this provider made (the ones that can carry its thinking)."""
    return {
        wire_id(part.call.id)
        for message in messages
        if message.role == "assistant"
        for part in message.parts
        if isinstance(part, ToolCallPart) and part.call.provider == NAME
    }


def _tool_result(message: LangMessage, media: MediaBlocks) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": wire_id(message.tool_call_id or ""),
    }
    parts = message.parts
    if len(parts) == 1 and parts[0].__class__ is TextPart and parts[0].state is None:
        if parts[0].text:  # the common result: one text, nothing kept with it
            block["content"] = parts[0].text
        if message.is_error:
            block["is_error"] = True
        return block
    if any(isinstance(p, MediaPart) for p in message.parts):  # blocks, in the tool's order
        block["content"] = [_result_block(p, media) for p in message.parts if _is_content(p)]
    elif message.content:
        block["content"] = message.content
    if message.is_error:
        block["is_error"] = True
    marker = _user_breakpoint(message.parts)
    if marker is not None:
        block["cache_control"] = marker
    return block


def _is_content(part: Part) -> bool:
    return isinstance(part, MediaPart) or (isinstance(part, TextPart) and bool(part.text))


def _result_block(part: Part, media: MediaBlocks) -> dict[str, Any]:
    # A breakpoint placed on a result's part is the tool_result's own (see _tool_result).
    if isinstance(part, MediaPart):
        return media.block(part)
    assert isinstance(part, TextPart)
    return {"type": "text", "text": part.text}


def _media_for(role: str, media: MediaBlocks) -> MediaBlocks | None:
    """The writer of media blocks for a message of ``role``: none for the assistant's, whose
    images (one another provider generated, say) are not sent back."""
    return media if role == "user" else None


def _blocks(
    parts: Sequence[Part], *, thinking: bool, media: MediaBlocks | None
) -> list[dict[str, Any]]:
    blocks = []
    for part in parts:
        if thinking or not _is_reasoning(part):
            block = _media_block(part, media) if isinstance(part, MediaPart) else _block(part)
            if block is not None:
                blocks.append(block)
    return blocks


def _media_block(part: MediaPart, media: MediaBlocks | None) -> dict[str, Any] | None:
    if media is None:
        return None
    block = media.block(part)
    data = _own(part.state)
    if data and data.get("cache_control") is not None:  # one the user placed
        block["cache_control"] = data["cache_control"]
    return block


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
        if data and data.get("cache_control") is not None:  # one the user placed
            block["cache_control"] = data["cache_control"]
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
