"""Images and documents as Converse content blocks, with the API's rules checked first.

An ``Image`` becomes ``{"image": {"format", "source": {"bytes"}}}`` and a ``Document``
``{"document": {"format", "name", "source": {"bytes"}}}``, in a user message or inside a
``toolResult``'s content. ``bytes`` is a blob: in the JSON body it is the bytes' base64 text
(the AWS SDKs encode it for their callers). The Converse API reference states the rest:

* image formats ``png``, ``jpeg``, ``gif``, ``webp``; document formats include ``pdf`` and
  ``txt`` (the two a ``Document`` holds);
* a message holds at most 20 images of at most 3.75 MB each and at most 5 documents of at
  most 4.5 MB each (sizes of the bytes); images and documents go in user messages only;
* a message holding a document must hold a text block too;
* a document's ``name`` (1 to 200 characters) may hold only alphanumerics, single whitespace
  characters, hyphens, parentheses and square brackets, and no two documents of a request may
  share one. Names are made from the file's name (its extension and every other character
  dropped, accents too), ``document`` when nothing is left, and numbered in conversation order
  when taken (``report (2)``), so a replayed conversation keeps its names and its bytes.

The sources Converse takes are bytes and S3 locations: a part sent by URL (https, or even
``s3://``, whose bucket owner the request would have to name) is refused here, pointing at
``from_path`` / ``from_bytes``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ... import _errors as errors
from ..._conversation._media import Media
from ..._conversation._parts import MediaPart

__all__ = ["MediaBlocks", "check_message"]

MB = 1024 * 1024
_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
    "application/pdf": "pdf",
    "text/plain": "txt",
}
_LIMITS = {"image": (20, int(3.75 * MB), "3.75 MB"), "document": (5, int(4.5 * MB), "4.5 MB")}
_NAME_LENGTH = 200
_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")
_SPACES = re.compile(r"\s+")


class MediaBlocks:
    """Writes one request's media blocks, their names unique across the request."""

    def __init__(self) -> None:
        self._names: set[str] = set()  # casefolded, as the names given so far

    def block(self, part: MediaPart) -> dict[str, Any]:
        """The ``image`` or ``document`` block for ``part``.

        Raises:
            ConfigError: A part sent by URL, or past its size limit.
        """
        media = part.media
        self._check(media)
        inner: dict[str, Any] = {"format": _FORMATS[media.media_type or ""]}
        if media.kind == "document":
            inner["name"] = self._name(media.name)
        inner["source"] = {"bytes": media.base64()}
        return {media.kind: inner}

    def _check(self, media: Media) -> None:
        if media.url is not None:
            raise errors.ConfigError(
                f"Bedrock's Converse API takes images and documents as bytes, not by URL "
                f"({media.url[:80]}); aiwrapper does not send S3 locations: build the "
                f"{media.kind} with from_path or from_bytes"
            )
        _, size, shown = _LIMITS[media.kind]
        if media.size > size:
            raise errors.ConfigError(
                f"Bedrock takes {media.kind}s of at most {shown} each; {_named(media)} is "
                f"{media.size / MB:.2f} MB: make it smaller"
            )

    def _name(self, given: str | None) -> str:
        base = _allowed(_stem(given or "")) or "document"
        name, number = base, 1
        while name.casefold() in self._names:
            number += 1
            suffix = f" ({number})"
            name = base[: _NAME_LENGTH - len(suffix)].rstrip() + suffix
        self._names.add(name.casefold())
        return name


def check_message(content: list[dict[str, Any]]) -> None:
    """Refuse a Converse message holding more images or documents than the API takes (its
    tool results' counted in), or a document and no text beside it.

    Raises:
        ConfigError: Naming the rule the message breaks.
    """
    nested = (inner for block in content for inner in _result_content(block))
    blocks = [*content, *nested]
    for kind, (most, _, _) in _LIMITS.items():
        count = sum(kind in block for block in blocks)
        if count > most:
            raise errors.ConfigError(
                f"Bedrock takes at most {most} {kind}s in one message, not {count}"
            )
    if any("document" in block for block in content) and not any("text" in b for b in content):
        raise errors.ConfigError(
            "Bedrock's Converse API takes a document in a message only beside text: add a "
            "question or an instruction to the prompt that holds it"
        )


def _result_content(block: dict[str, Any]) -> list[dict[str, Any]]:
    result = block.get("toolResult")
    return result["content"] if isinstance(result, dict) else []


def _stem(name: str) -> str:
    """The file's name without its extension (a dot is no name character)."""
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def _allowed(text: str) -> str:
    """``text`` with only the characters a name may hold, single-spaced and cut to length;
    accented letters lose their accents first (``été`` is ``ete``)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    spaced = _SPACES.sub(" ", _NOT_IN_NAMES.sub(" ", plain)).strip()
    return spaced[:_NAME_LENGTH].rstrip()


def _named(media: Media) -> str:
    named = f" {media.name!r}" if media.name else ""
    return f"the {media.media_type} {media.kind}{named}"
