"""Images and documents on the Gemini wire: ``inlineData`` and ``fileData`` parts, both ways.

Owns what Gemini makes of a ``MediaPart``. Bytes go as ``inlineData`` (``mimeType`` and the
part's base64, encoded once however often the conversation is replayed); a URL goes as
``fileData`` where the API fetches it itself: on the Gemini API an https URL (a Files API URI,
a YouTube link, a public or signed link, taken since January 2026), on Vertex AI also
``gs://``. Nothing is downloaded here. Gemini reads PNG, JPEG and WebP images (400 "MIME type
must be image/png, image/jpeg, image/webp, image/heic, or image/heif" for a GIF), PDF and
plain text; plain-text documents go as ``text/plain`` inline data too, which keeps a fetched
file apart from the prompt's own words. The Gemini API's documented limits, 100 MB of inline
data per request (base64) and 50 MB per PDF, are checked before sending.

It also reads the ``inlineData`` of an answer (a generated image) back into a part; data that
cannot be read is kept, described, as an opaque part rather than failing the turn.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any

from ..._conversation._events import Event, MediaEvent, OpaquePartEvent
from ..._conversation._media import (
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    Document,
    Image,
    Media,
    sniff_media_type,
)
from ..._conversation._messages import ProviderState
from ..._errors import ConfigError
from ._name import PROVIDER

__all__ = ["GEMINI_TYPES", "check_inline_limits", "decode_inline", "encode_media"]

GEMINI_TYPES = ("image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain")
_MB = 1024 * 1024
# The Gemini API's inline limits (January 2026): 100 MB of base64 per request, 50 MB per PDF.
# Read as MiB, so a request Google would take is never refused here.
_REQUEST_LIMIT = 100 * _MB
_PDF_LIMIT = 50 * _MB
_READ = (*IMAGE_TYPES, *DOCUMENT_TYPES)


def check_inline_limits(media: Iterable[Media]) -> None:
    """Check the Gemini API's limits on a request's inline data, before anything is encoded.

    Sizes are counted from the bytes (base64 is 4 characters for every 3 bytes), so a request
    that is refused costs no encoding. A part given by URL does not count.

    Raises:
        ConfigError: A PDF past 50 MB, or the request past 100 MB of base64, naming the part.
    """
    used = 0
    for item in media:
        if item.url is not None:
            continue
        if item.media_type == "application/pdf" and item.size > _PDF_LIMIT:
            raise ConfigError(
                f"{item!r} is larger than the 50 MB the Gemini API takes for an inline PDF; "
                "send it by URL (a Files API URI or an https link) instead"
            )
        used += 4 * ((item.size + 2) // 3)
        if used > _REQUEST_LIMIT:
            raise ConfigError(
                f"with {item!r} the request carries {used} bytes of inline base64, past the "
                "Gemini API's 100 MB per request; send large files by URL (a Files API URI or "
                "an https link) instead"
            )


def encode_media(media: Media, *, vertex: bool) -> dict[str, Any]:
    """The Gemini part for ``media``: ``inlineData`` for bytes, ``fileData`` for a URL.

    Raises:
        ConfigError: A type Gemini does not read, or a URL it cannot fetch.
    """
    if media.media_type is not None and media.media_type not in GEMINI_TYPES:
        raise ConfigError(
            f"Gemini does not take {media.media_type} ({media!r}); it reads PNG, JPEG and WebP "
            "images, PDF and plain text: convert it first"
        )
    if media.url is not None:
        return {"fileData": _file_data(media, media.url, vertex)}
    return {"inlineData": {"mimeType": media.media_type, "data": media.base64()}}


def _file_data(media: Media, url: str, vertex: bool) -> dict[str, Any]:
    fetched = ("https://", "gs://") if vertex else ("https://",)
    if not url.startswith(fetched):
        raise ConfigError(f"{_unfetched(url, vertex)} ({media!r}); {_LOCAL}")
    if media.media_type is None:  # a Files API URI knows its own type
        return {"fileUri": url}
    return {"mimeType": media.media_type, "fileUri": url}


_LOCAL = "pass the bytes instead with from_path or from_bytes"


def _unfetched(url: str, vertex: bool) -> str:
    if url.startswith("gs://"):
        return (
            "the Gemini API reads gs:// URLs only on Vertex AI (or once the object is "
            "registered with its Files API: pass that file's URI)"
        )
    if url.startswith("s3://"):
        return "Gemini cannot read s3:// URLs (a presigned https URL works)"
    where = "gs:// or https" if vertex else "https"
    return f"Gemini fetches only {where} URLs, not {url[:60]!r}"


def decode_inline(part: dict[str, Any]) -> list[Event]:
    """Events for an answer's ``inlineData`` part: a media part, or an opaque one.

    An image or document becomes a ``MediaEvent`` with the part's signature and unknown fields
    as state; other media (speech audio, say) stay an opaque part replayed verbatim, and data
    that cannot be read is kept as an opaque part whose ``problem`` says why.
    """
    blob = part["inlineData"]
    mime = blob.get("mimeType") if isinstance(blob, dict) else None
    stated = mime.split(";")[0].strip().lower() if isinstance(mime, str) and mime else None
    if stated is not None and stated not in _READ:
        return [OpaquePartEvent(ProviderState(PROVIDER, {"part": dict(part)}))]
    try:
        media = _media(blob, stated)
    except (ConfigError, ValueError, TypeError) as exc:
        problem = f"Gemini sent inlineData that cannot be read: {exc}"
        return [OpaquePartEvent(ProviderState(PROVIDER, {"part": dict(part)}), problem=problem)]
    return [MediaEvent(media, _state(part))]


def _media(blob: Any, stated: str | None) -> Image | Document:
    data = blob.get("data") if isinstance(blob, dict) else None
    if not isinstance(data, str) or not data:
        raise ValueError("it holds no base64 data")
    raw = _bytes(data)
    kind = Document if (stated or sniff_media_type(raw)) in DOCUMENT_TYPES else Image
    return kind.from_bytes(raw, stated)


def _bytes(text: str) -> bytes:
    """Base64 as Google's JSON writes bytes: standard, or URL-safe, padded or not."""
    if "-" in text or "_" in text:
        text = text.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except binascii.Error as exc:
        raise ValueError(f"its data is not base64 ({exc})") from exc


def _state(part: dict[str, Any]) -> ProviderState | None:
    """What goes back with the media: its signature, and fields this SDK does not read."""
    data: dict[str, Any] = {}
    extra = {k: v for k, v in part.items() if k not in ("inlineData", "thoughtSignature")}
    if extra:
        data["extra"] = extra
    signature = part.get("thoughtSignature")
    if isinstance(signature, str):
        data["thoughtSignature"] = signature
    return ProviderState(PROVIDER, data) if data else None
