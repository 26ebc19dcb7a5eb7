"""Images and documents: ``Image`` and ``Document``, content beyond text.

Plain, frozen values on the ground floor, held by a ``MediaPart`` in prompts, tool results and
model answers. The media type is sniffed from the bytes, so a file named ``.png`` that holds a
JPEG is sent as what it is; a type the caller states must agree with the bytes. The base64 text
every wire sends is made at most once per value, however often a conversation is replayed.
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar
from urllib.parse import unquote_to_bytes

from .._errors import ConfigError

__all__ = ["DOCUMENT_TYPES", "IMAGE_TYPES", "Document", "Image", "Media", "sniff_media_type"]

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
DOCUMENT_TYPES = ("application/pdf", "text/plain")

# Extensions that name a type the bytes cannot show (plain text has no signature).
_TEXT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".csv")
_URL_SCHEMES = ("https://", "http://", "gs://", "s3://")
_M = TypeVar("_M", bound="Media")


def sniff_media_type(data: bytes) -> str | None:
    """The media type the bytes' signature shows, or None when they show none we know."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    return None


@dataclass(frozen=True, slots=True, eq=False)
class Media:
    """What an image and a document share: bytes or a URL, a media type, and a name.

    Attributes:
        media_type: The IANA media type (``image/png``, ``application/pdf``...); ``None`` only
            for a URL whose type its path does not show.
        url: The address of a part sent by reference, else ``None``.
        name: The file's name where one is known (documents carry it on some wires).
    """

    media_type: str | None
    url: str | None = None
    name: str | None = None
    _data: bytes | None = field(default=None, repr=False)
    # The base64 text, made on first use and kept: a conversation replays every part each
    # round, and a 20 MB PDF must not be encoded five times.
    _encoded: list[str] = field(default_factory=list, repr=False)
    # The data: URL, kept the same way: wires that send one would otherwise build a new copy
    # of the base64 text for every request. Each wire uses one of the two forms.
    _data_url: list[str] = field(default_factory=list, repr=False)

    accepted: ClassVar[tuple[str, ...]] = ()
    kind: ClassVar[str] = "media"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Media)
        return (self.media_type, self.url, self.name, self._data) == (
            other.media_type,
            other.url,
            other.name,
            other._data,
        )

    def __hash__(self) -> int:
        return hash((type(self), self.media_type, self.url, self.name, self._data))

    @classmethod
    def from_bytes(
        cls: type[_M], data: bytes, media_type: str | None = None, *, name: str | None = None
    ) -> _M:
        """A part holding ``data``; ``media_type`` is sniffed when not given, checked when it is."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ConfigError(f"{cls.__name__}.from_bytes takes bytes, not {type(data).__name__}")
        raw = bytes(data)
        if not raw:
            raise ConfigError(f"{cls.__name__}.from_bytes: the data is empty")
        return cls(cls._checked_type(raw, media_type), name=name, _data=raw)

    @classmethod
    def from_path(cls: type[_M], path: str | os.PathLike[str], media_type: str | None = None) -> _M:
        """A part holding the file at ``path``, read once, here."""
        try:
            with open(path, "rb") as file:
                raw = file.read()
        except OSError as exc:
            raise ConfigError(f"{cls.__name__}.from_path: cannot read {path!s}: {exc}") from exc
        name = os.path.basename(os.fspath(path))
        if media_type is None and name.lower().endswith(_TEXT_SUFFIXES):
            media_type = "text/plain"
        if not raw:
            raise ConfigError(f"{cls.__name__}.from_path: {path!s} is empty")
        return cls(cls._checked_type(raw, media_type), name=name, _data=raw)

    @classmethod
    def from_url(cls: type[_M], url: str, media_type: str | None = None) -> _M:
        """A part sent by reference (never downloaded here); a ``data:`` URL is decoded."""
        if not isinstance(url, str):
            raise ConfigError(f"{cls.__name__}.from_url takes a string, not {type(url).__name__}")
        if url.startswith("data:"):
            stated, raw = _decode_data_url(url, cls.__name__)
            return cls.from_bytes(raw, media_type or stated)
        if not url.startswith(_URL_SCHEMES):
            raise ConfigError(
                f"{cls.__name__}.from_url takes an https:// (or http://, gs://, s3://) or "
                f"data: URL, not {url[:60]!r}; for a local file use {cls.__name__}.from_path"
            )
        if media_type is not None and media_type not in cls.accepted:
            raise ConfigError(cls._unsupported(media_type))
        return cls(media_type or _type_from_suffix(url, cls.accepted), url=url)

    @property
    def data(self) -> bytes | None:
        """The bytes, or ``None`` for a part sent by URL."""
        return self._data

    @property
    def size(self) -> int:
        """The size of the bytes (0 for a part sent by URL)."""
        return len(self._data) if self._data is not None else 0

    def base64(self) -> str:
        """The bytes as base64 text, encoded on first use only."""
        if self._data is None:
            raise ConfigError(f"this {self.kind} is a URL ({self.url}); it has no bytes to encode")
        if not self._encoded:
            if self._data_url:  # encoded already, inside the data: URL
                self._encoded.append(self._data_url[0][len(self._url_head()) :])
            else:
                self._encoded.append(base64.b64encode(self._data).decode("ascii"))
        return self._encoded[0]

    def data_url(self) -> str:
        """``data:<type>;base64,...`` (made on first use only), or the URL of a part sent by
        reference."""
        if self.url is not None:
            return self.url
        if not self._data_url:
            self._data_url.append(self._make_data_url())
        return self._data_url[0]

    def _url_head(self) -> str:
        return f"data:{self.media_type};base64,"

    def _make_data_url(self) -> str:
        if self._encoded:
            return self._url_head() + self._encoded[0]
        if self._data is None:
            raise ConfigError(f"this {self.kind} is a URL ({self.url}); it has no bytes to encode")
        # Built in one buffer: the encoded bytes and the text are never both there in full
        # beside a joined copy.
        built = bytearray(self._url_head().encode("ascii"))
        built += base64.b64encode(self._data)
        return built.decode("ascii")

    def describe(self) -> str:
        """The part as text, for a model or wire that cannot be shown it."""
        what = self.media_type or self.kind
        if self.url is not None:
            return f"[{what} {self.kind} at {self.url}, which this model cannot be shown]"
        named = f" {self.name!r}" if self.name else ""
        return f"[{what} {self.kind}{named} of {self.size} bytes, which this model cannot be shown]"

    @classmethod
    def _checked_type(cls, raw: bytes, stated: str | None) -> str:
        sniffed = sniff_media_type(raw)
        if stated is not None:
            stated = stated.split(";")[0].strip().lower()
            if stated not in cls.accepted:
                raise ConfigError(cls._unsupported(stated))
            if sniffed is not None and sniffed != stated:
                raise ConfigError(
                    f"{cls.__name__}: the bytes are {sniffed}, not the stated {stated}"
                )
            if sniffed is None and stated != "text/plain":
                raise ConfigError(f"{cls.__name__}: the bytes are not {stated}")
            if stated == "text/plain":
                _check_utf8(raw, cls.__name__)
            return stated
        if sniffed is None or sniffed not in cls.accepted:
            found = f"{sniffed}" if sniffed else "of no type it recognises"
            raise ConfigError(
                f"{cls.__name__}: the bytes are {found}; accepted: {', '.join(cls.accepted)}"
            )
        return sniffed

    @classmethod
    def _unsupported(cls, media_type: str) -> str:
        return f"{cls.__name__} does not take {media_type!r}; accepted: {', '.join(cls.accepted)}"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Image(Media):
    """An image (PNG, JPEG, GIF or WebP) in a prompt, a tool result or an answer.

    Build one with ``Image.from_path``, ``Image.from_bytes`` or ``Image.from_url``.
    """

    accepted: ClassVar[tuple[str, ...]] = IMAGE_TYPES
    kind: ClassVar[str] = "image"

    def __repr__(self) -> str:
        return _repr(self)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Document(Media):
    """A document (PDF, or UTF-8 plain text) in a prompt or a tool result.

    Build one with ``Document.from_path``, ``Document.from_bytes`` or ``Document.from_url``.
    """

    accepted: ClassVar[tuple[str, ...]] = DOCUMENT_TYPES
    kind: ClassVar[str] = "document"

    def __repr__(self) -> str:
        return _repr(self)

    @property
    def text(self) -> str | None:
        """A plain-text document's text, else ``None``."""
        if self.media_type == "text/plain" and self._data is not None:
            return self._data.decode("utf-8")
        return None


def _repr(media: Media) -> str:
    where = f"url={media.url!r}" if media.url is not None else f"{media.size} bytes"
    named = f", name={media.name!r}" if media.name else ""
    return f"{type(media).__name__}({media.media_type!r}, {where}{named})"


def _decode_data_url(url: str, owner: str) -> tuple[str | None, bytes]:
    header, comma, payload = url[5:].partition(",")
    if not comma:
        raise ConfigError(f"{owner}.from_url: a data: URL without a comma")
    params = header.split(";")
    stated = params[0].strip().lower() or None
    try:
        if "base64" in (p.strip().lower() for p in params[1:]):
            return stated, base64.b64decode(payload, validate=True)
        return stated, unquote_to_bytes(payload)
    except (binascii.Error, ValueError) as exc:
        raise ConfigError(f"{owner}.from_url: the data: URL's base64 is invalid") from exc


def _check_utf8(raw: bytes, owner: str) -> None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{owner}: text/plain must be UTF-8 ({exc.reason})") from exc


_SUFFIX_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
    ".txt": "text/plain",
}


def _type_from_suffix(url: str, accepted: tuple[str, ...]) -> str | None:
    path = url.split("?", 1)[0].split("#", 1)[0].lower()
    for suffix, media_type in _SUFFIX_TYPES.items():
        if path.endswith(suffix) and media_type in accepted:
            return media_type
    return None
