"""Ollama's ``/api/chat`` request body: messages, tools, thinking and generation options.

This module owns the encoding side of the native wire; ``_provider.py`` assembles the body
from these parts and ``_decode.py`` reads the answer. Images travel in a message's ``images``
(base64 without a ``data:`` prefix), on user and on tool messages alike: the server gathers
the images of every message, whatever its role, and marks each one's place in its text.
Ollama reads no documents: a plain-text one is sent as text, a PDF is refused; it fetches
nothing either, so a part given by URL is refused too.
"""

from __future__ import annotations

from typing import Any

from ... import _errors as errors
from ..._conversation._media import Document
from ..._conversation._messages import LangMessage, MediaPart, TextPart, ThinkingPart, ToolCallPart
from ..._conversation._result import FunctionCall
from ..._knowledge._modelrules import thinking_effort
from ..._run._contract import ProviderRequest
from ..._run._options import LangOptions
from ..._tools.decorator import read_only_schema
from .._base import (
    error_result_text,
    extra_sampling,
    refuse_unenforceable,
    result_text,
    sampling_fields,
)
from ._content import unread_fields
from ._defaults import NAME

__all__ = [
    "encode_generation",
    "encode_logprobs",
    "encode_messages",
    "encode_think",
    "encode_tools",
]


def encode_messages(request: ProviderRequest, *, thinking: bool) -> list[dict[str, Any]]:
    """The conversation as Ollama messages (tool results name their call's tool)."""
    calls = {c.id: c for m in request.messages for c in m.tool_calls}
    out: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "assistant":
            out.append(_encode_assistant(message, thinking=thinking))
        elif message.role == "tool":
            out.append(_encode_result(message, calls.get(message.tool_call_id or "")))
        else:
            out.append(_encode_prompt(message))
    return out


def _encode_prompt(message: LangMessage) -> dict[str, Any]:
    if not any(isinstance(p, MediaPart) for p in message.parts):
        return {"role": message.role, "content": message.content}
    content, images = _content(message)
    return {"role": message.role, "content": content, "images": images}


def _content(message: LangMessage) -> tuple[str, list[str]]:
    """A message holding media as its text (one piece per line) and its images' base64.

    Raises:
        ConfigError: A part given by URL, or a document that is not plain text.
    """
    texts: list[str] = []
    images: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            texts.append(part.text)
        elif isinstance(part, MediaPart):
            media = part.media
            if media.url is not None:
                raise errors.ConfigError(
                    f"Ollama fetches no URLs, so {media!r} cannot be sent; pass its bytes "
                    f"with {type(media).__name__}.from_path or .from_bytes"
                )
            if isinstance(media, Document):
                texts.append(_document_text(media))
            else:
                images.append(media.base64())
    return "\n".join(texts), images


def _document_text(document: Document) -> str:
    text = document.text
    if text is None:
        raise errors.ConfigError(
            f"Ollama reads no documents, only text and images: {document!r} cannot be sent; "
            "pass its text instead (a text/plain Document is sent as text)"
        )
    return text


def _encode_assistant(message: LangMessage, *, thinking: bool) -> dict[str, Any]:
    # Fields the decoder kept unread go back first, so they never replace what the SDK writes.
    out: dict[str, Any] = {**unread_fields(message, NAME), "role": "assistant"}
    out["content"] = message.content
    # Ollama's thinking is plain text with no signature, so thinking without state (or with
    # ours) goes back; another provider's signed or encrypted reasoning is not ours to send.
    text = "".join(
        p.text
        for p in message.parts
        if isinstance(p, ThinkingPart) and (p.state is None or p.state.provider == NAME)
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
    images: list[str] = []
    if any(isinstance(p, MediaPart) for p in message.parts):
        content, images = _content(message)
    else:
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
    if images:
        out["images"] = images
    return out


def encode_tools(request: ProviderRequest) -> list[Any]:
    if request.options.native_tools:
        raise errors.ConfigError(
            "Ollama's API has no provider-native tools (native_tools); declare them as "
            "functions instead"
        )
    if not request.tools:
        return []
    choice = request.tool_choice
    # Ollama's native API has no tool_choice and no parallel_tool_calls.
    options = request.options
    refuse_unenforceable(NAME, choice, options, forces_calls=False, forbids_parallel_calls=False)
    if choice is not None and choice.mode == "none":
        return []  # the protocol's only way to forbid calls
    return [read_only_schema(tool, "ollama") for tool in request.tools]


def encode_think(thinking: bool | int | str | None, model: str) -> bool | str | None:
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


def encode_generation(options: LangOptions) -> dict[str, Any]:
    """The body's ``options`` object: sampling and the output cap (``num_predict``)."""
    fields = sampling_fields(options, max_tokens="num_predict", top_p="top_p", stop="stop")
    extra = extra_sampling(options, NAME, _EXTRA_SAMPLING)
    if options.logprobs:  # top-level keys of the body, not runner options: encode_logprobs
        extra.pop("logprobs")
        extra.pop("top_logprobs", None)
    return {**fields, **extra}


def encode_logprobs(options: LangOptions) -> dict[str, Any]:
    """The body's top-level ``logprobs`` and ``top_logprobs`` (Ollama 0.12.11 and later)."""
    if not options.logprobs:
        return {}
    if options.top_logprobs is None:
        return {"logprobs": True}
    return {"logprobs": True, "top_logprobs": options.top_logprobs}


# The runner's sampling parameters; it takes no logit bias nor an end user's id.
_EXTRA_SAMPLING = {
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "top_k": "top_k",
    "logprobs": "logprobs",  # named so extra_sampling lets them by; they go top level
    "top_logprobs": "top_logprobs",
}
