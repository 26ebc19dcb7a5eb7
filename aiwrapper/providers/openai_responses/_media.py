"""Images and documents as Responses API content parts, in user input and in tool results.

A message or a ``function_call_output`` that holds an image or a document goes as a list of
parts in the conversation's order: ``input_text``, ``input_image`` (``image_url``: a
``data:`` URL with the base64 bytes, or the image's http(s) URL) and ``input_file`` (a PDF
as ``file_data``, a ``data:`` URL, with the ``filename`` the API requires beside it, or a
document's URL as ``file_url``). Nothing is downloaded here: a URL goes by reference. The
published spec makes ``detail`` required on an image in a message and optional in a tool
output, so the API's default, ``"auto"``, is written in messages only. A plain-text
document goes as ``input_text`` holding its text: the API would only extract that text from
an ``input_file``, and compatible servers that read no files take text everywhere. A
message without images or documents keeps the string form (``_encode.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ... import _errors as errors
from ..._conversation._media import Document, Image
from ..._conversation._messages import MediaPart, Part, TextPart

__all__ = ["content_parts", "has_media"]

# The schemes OpenAI fetches itself; gs:// and s3:// mean nothing to it.
_FETCHED = ("https://", "http://")
# The API refuses an inline file without a name; one is made from the type when none is known.
_DEFAULT_NAMES = {"application/pdf": "document.pdf"}


def has_media(parts: Iterable[Part]) -> bool:
    """Whether an image or a document is among ``parts``."""
    return any(isinstance(p, MediaPart) for p in parts)


def content_parts(parts: Iterable[Part], *, in_message: bool) -> list[dict[str, Any]]:
    """``parts`` as content parts: texts (empty ones left out), images and documents, in order.

    Args:
        parts: A message's or a tool result's parts; only text and media are read.
        in_message: For a message's ``content`` (where an image's ``detail`` is required),
            not a ``function_call_output``'s ``output``.

    Raises:
        ConfigError: A part's URL is not one OpenAI can fetch (``gs://``, ``s3://``).
    """
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart) and part.text:
            out.append(_text(part.text))
        elif isinstance(part, MediaPart):
            out.append(_media(part.media, in_message=in_message))
    return out


def _text(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text}


def _media(media: Image | Document, *, in_message: bool) -> dict[str, Any]:
    if media.url is not None:
        _check_fetchable(media)
    if isinstance(media, Image):
        image: dict[str, Any] = {"type": "input_image", "image_url": media.data_url()}
        if in_message:
            image["detail"] = "auto"
        return image
    if media.url is not None:
        return {"type": "input_file", "file_url": media.url}
    text = media.text
    if text is not None:
        return _text(text)
    name = media.name or _DEFAULT_NAMES.get(media.media_type or "", "document")
    return {"type": "input_file", "filename": name, "file_data": media.data_url()}


def _check_fetchable(media: Image | Document) -> None:
    url = media.url or ""
    if not url.startswith(_FETCHED):
        kind = type(media).__name__
        raise errors.ConfigError(
            f"the Responses API fetches only http(s) URLs, not {url[:80]!r}: read the "
            f"{media.kind} with {kind}.from_path or {kind}.from_bytes instead"
        )
