"""Images and documents on the Chat Completions wire: user content parts and tool-result media.

A user message holding images or documents is sent as a list of content parts, in order:
``{"type": "text"}``, ``{"type": "image_url", "image_url": {"url": ...}}`` (a data URL, or an
http(s) URL the server fetches) and ``{"type": "file", "file": {"filename", "file_data"}}``
(``file_data`` a ``data:application/pdf;base64,...`` URL). A user message of text alone stays
a plain string, so conversations without media keep their bytes.

A ``tool`` message on this wire carries text only. A turn's image and document results
therefore travel in one user message right after the turn's last tool message, in call order,
each call's parts introduced by a text part naming its call id (``FOLLOW_UP_HEADER``); the tool
message keeps the texts and, where each image or document stood, a note that it is attached
below (``attached_note``), so the model reads the result in the tool's order and a result of
an image alone is never an empty string. The gateway's front-end reads this convention back
into the tool results. The neutral checks (size limits, capabilities) run before this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _errors as errors
from ..._conversation._media import Document, Image
from ..._conversation._messages import LangMessage, MediaPart, TextPart

__all__ = [
    "FOLLOW_UP_HEADER",
    "attached_note",
    "follow_up",
    "has_media",
    "inline_text",
    "media_part",
    "tool_text",
    "user_content",
]

FOLLOW_UP_HEADER = "Output of tool call {call_id}:"
_DEFAULT_PDF_NAME = "document.pdf"
# The image URLs a server fetches itself; gs:// and s3:// are other clouds' storage.
_FETCHED = ("https://", "http://")


def has_media(message: LangMessage) -> bool:
    """Whether the message holds an image or a document."""
    return any(isinstance(p, MediaPart) for p in message.parts)


def user_content(message: LangMessage) -> str | list[dict[str, Any]]:
    """A user message's ``content``: its text, or its content parts when it holds media."""
    if not has_media(message):
        return message.content
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, MediaPart):
            parts.append(media_part(part))
        elif isinstance(part, TextPart) and part.text:
            parts.append({"type": "text", "text": part.text})
    return parts


def media_part(part: MediaPart) -> dict[str, Any]:
    """One image or document as a content part.

    Raises:
        ConfigError: A URL this wire cannot take by reference (a document's, or a ``gs://``
            or ``s3://`` image's); nothing is downloaded here.
    """
    media = part.media
    if isinstance(media, Image):
        if media.url is not None and not media.url.startswith(_FETCHED):
            raise _by_reference(media, "image URLs over https or http only")
        image_url = {"url": media.data_url()}
        detail = _detail(part)
        if detail is not None:
            image_url["detail"] = detail
        return {"type": "image_url", "image_url": image_url}
    if media.url is not None:
        raise _by_reference(media, "documents as bytes only (no file URL)")
    if media.media_type == "text/plain":
        # Chat Completions takes files as PDF only: a plain-text document is its text.
        return {"type": "text", "text": media.text or ""}
    name = media.name or _DEFAULT_PDF_NAME
    return {"type": "file", "file": {"filename": name, "file_data": media.data_url()}}


def _detail(part: MediaPart) -> str | None:
    """The resolution a Chat Completions client asked of this image through the gateway.

    It is this wire's field, kept on the part as state of the ``openai`` wire, so it goes on
    to any Chat Completions server and is left out elsewhere.
    """
    state = part.state
    detail = state.data.get("detail") if state is not None and state.provider == "openai" else None
    return detail if isinstance(detail, str) else None


def _by_reference(media: Image | Document, takes: str) -> errors.ConfigError:
    kind = type(media).__name__
    return errors.ConfigError(
        f"Chat Completions takes {takes}, not {media.url}: load the {media.kind} with "
        f"{kind}.from_path or {kind}.from_bytes to send its bytes"
    )


def inline_text(part: MediaPart) -> str | None:
    """A plain-text document's text, which a tool message carries itself; None for an image
    or a PDF, which travel in the follow-up user message."""
    media = part.media
    return media.text if isinstance(media, Document) else None


def attached_note(part: MediaPart) -> str:
    """The note a tool message holds where an image or a PDF of its result stood."""
    media = part.media
    return f"[{media.media_type or media.kind} {media.kind} attached below]"


def tool_text(message: LangMessage) -> str:
    """A tool result's text: its texts, plain-text documents and notes of what follows, in order.

    A result of text alone is its text, unchanged.
    """
    if not has_media(message):
        return message.content
    pieces: list[str] = []
    for part in message.parts:
        if isinstance(part, MediaPart):
            text = inline_text(part)
            pieces.append(attached_note(part) if text is None else text)
        elif isinstance(part, TextPart):
            pieces.append(part.text)
    return "\n".join(piece for piece in pieces if piece)


def follow_up(results: Sequence[tuple[str, LangMessage]]) -> dict[str, Any] | None:
    """The user message carrying a turn's images and documents, or None when it has none.

    Args:
        results: The turn's tool messages, in order, each with the call id sent for it.
    """
    content: list[dict[str, Any]] = []
    for call_id, message in results:
        media = [p for p in message.parts if isinstance(p, MediaPart) and inline_text(p) is None]
        if media:
            content.append({"type": "text", "text": FOLLOW_UP_HEADER.format(call_id=call_id)})
            content.extend(media_part(p) for p in media)
    return {"role": "user", "content": content} if content else None
