"""What the offline model says of an image or a document it is shown.

It cannot look at a picture, but it can read what the bytes declare: the media type, the
size, and for a PNG or a GIF the width and height in the header. That is enough for the
examples to show, without an API key, that an image reached the model in its place.
"""

from __future__ import annotations

import struct

from ..._conversation._media import Media

__all__ = ["image_size", "media_sentence"]


def image_size(data: bytes) -> tuple[int, int] | None:
    """The width and height a PNG's IHDR or a GIF's screen descriptor states, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data.startswith((b"GIF87a", b"GIF89a")) and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    return None


def media_sentence(media: Media) -> str:
    """``an image/png image (1,234 bytes, 200x120 pixels)``, or the URL it is at."""
    what = f"{media.media_type or media.kind} {media.kind}"
    article = "an" if what[0] in "aeiou" else "a"
    if media.url is not None:
        return f"{article} {what} at {media.url}"
    facts = [f"{media.size:,} bytes"]
    size = image_size(media.data or b"")
    if size is not None:
        facts.append(f"{size[0]}x{size[1]} pixels")
    named = f" {media.name!r}" if media.name else ""
    return f"{article} {what}{named} ({', '.join(facts)})"
