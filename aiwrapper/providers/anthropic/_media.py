"""Images and documents as Messages content blocks, with the API's size limits checked first.

An ``Image`` becomes an ``image`` block, a ``Document`` a ``document`` block, in a user message
or inside a ``tool_result``'s content. The block's ``source`` is one of the wire's three:
``{"type": "base64", "media_type", "data"}`` for bytes, ``{"type": "text", "media_type":
"text/plain", "data"}`` for a plain-text document (its text as it is), ``{"type": "url",
"url"}`` for a part sent by reference (an https image, or a PDF; the API fetches it). A
document's file name, when known, goes in its ``title`` (cut to the 500 characters the API
takes), which the API passes to the model.

The wire's limits, from Anthropic's vision and PDF guides, checked before anything is sent:

* an image's base64 text is at most 5 MB (5,242,880 characters; the API measures the encoded
  form, so about 3.75 MB of bytes);
* the whole request is at most 32 MB, so the parts' encoded sizes together must stay below it;
* Claude on Vertex AI takes base64 sources only (the vision guide says so of Google Cloud and
  Bedrock): a URL there is refused.
"""

from __future__ import annotations

from typing import Any

from ... import _errors as errors
from ..._conversation._media import Document, Media
from ..._conversation._parts import MediaPart

__all__ = ["IMAGE_LIMIT", "REQUEST_LIMIT", "TITLE_LENGTH", "MediaBlocks", "encoded_size"]

MB = 1024 * 1024
IMAGE_LIMIT = 5 * MB  # an image's base64 text
REQUEST_LIMIT = 32 * MB  # the whole request body
TITLE_LENGTH = 500  # a document's title: the API refuses a longer one
_FETCHED = ("https://", "http://")  # the URLs the API fetches itself


class MediaBlocks:
    """Writes one request's media blocks, keeping the running total of their encoded size.

    Args:
        urls: Whether the endpoint takes ``url`` sources (Anthropic's API does; Claude on
            Vertex AI does not).
    """

    def __init__(self, *, urls: bool = True) -> None:
        self.urls = urls
        self.total = 0  # encoded bytes of the parts written so far

    def block(self, part: MediaPart) -> dict[str, Any]:
        """The ``image`` or ``document`` block for ``part``.

        Raises:
            ConfigError: A URL the endpoint cannot fetch, or a part past a size limit.
        """
        media = part.media
        block: dict[str, Any] = {"type": media.kind, "source": self._source(media)}
        if media.kind == "document" and media.name:
            block["title"] = media.name[:TITLE_LENGTH]
        return block

    def _source(self, media: Media) -> dict[str, Any]:
        if media.url is not None:
            return {"type": "url", "url": self._checked_url(media)}
        self._count(media)
        if isinstance(media, Document) and media.text is not None:
            return {"type": "text", "media_type": "text/plain", "data": media.text}
        return {"type": "base64", "media_type": media.media_type, "data": media.base64()}

    def _checked_url(self, media: Media) -> str:
        url = media.url or ""
        if not self.urls:
            raise errors.ConfigError(
                f"Claude on Vertex AI takes images and documents as base64 only, not by URL "
                f"({url[:80]}): build the {media.kind} with from_path or from_bytes"
            )
        if not url.startswith(_FETCHED):
            raise errors.ConfigError(
                f"Anthropic fetches https URLs only, not {url[:80]}: build the {media.kind} "
                "with from_path or from_bytes"
            )
        if media.media_type == "text/plain":
            raise errors.ConfigError(
                f"Anthropic takes a document by URL only as a PDF, not text/plain ({url[:80]}): "
                "build it with Document.from_path or Document.from_bytes"
            )
        return url

    def _count(self, media: Media) -> None:
        encoded = encoded_size(media)
        if media.kind == "image" and encoded > IMAGE_LIMIT:
            raise errors.ConfigError(
                f"Anthropic takes an image of at most 5 MB as base64 (about 3.75 MB of bytes); "
                f"{_named(media)} is {encoded / MB:.1f} MB encoded: make it smaller"
            )
        self.total += encoded
        if self.total > REQUEST_LIMIT:
            raise errors.ConfigError(
                f"Anthropic takes requests of at most 32 MB, and with {_named(media)} the "
                f"images and documents alone come to {self.total / MB:.1f} MB: send fewer"
            )


def encoded_size(media: Media) -> int:
    """The size of the part on the wire: its base64 text, or a plain text's UTF-8 bytes."""
    if media.media_type == "text/plain":
        return media.size
    return 4 * -(-media.size // 3)  # base64 writes 4 characters for every 3 bytes begun


def _named(media: Media) -> str:
    named = f" {media.name!r}" if media.name else ""
    return f"the {media.media_type} {media.kind}{named} ({media.size} bytes)"
