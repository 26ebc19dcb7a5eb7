"""Images and documents in message dicts: OpenAI's and Anthropic's content parts, both ways.

Read: OpenAI Chat's ``image_url`` (a ``data:`` or https URL, with its ``detail``) and ``file``
(``file_data``, a ``data:`` URL or bare base64, with its ``filename``; ``file_url`` for one sent by
reference), and Anthropic's ``image`` and ``document`` blocks (``base64`` and ``url`` sources,
and ``text`` sources for plain-text documents). Each becomes a ``MediaPart``, its bytes
checked against the type it states; files uploaded beforehand (``file_id``, Anthropic's
``file`` source) are refused, since nothing here can fetch them. Written: a ``MediaPart`` as
OpenAI Chat's shape, the portable form ``LangMessage.to_dict`` uses.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, NoReturn

from .._errors import ConfigError
from ._media import Document, Image
from ._parts import MediaPart, ProviderState

__all__ = ["MEDIA_BLOCKS", "media_dict", "read_media"]

MEDIA_BLOCKS = ("image_url", "file", "image", "document")
_DETAILS = ("auto", "low", "high")
_OPENAI = "openai"  # an image's ``detail`` is OpenAI's own setting
_ANTHROPIC = "anthropic"
_UPLOADED = (
    "files uploaded beforehand (a file id) are not supported: give the bytes instead "
    "(Image.from_path / Document.from_path, or a data: URL)"
)


def read_media(block: Mapping[str, Any], kind: str) -> MediaPart:
    """The part one media block stands for (``kind`` is its ``type``, one of MEDIA_BLOCKS).

    Raises:
        ConfigError: A field is missing or of the wrong type, the base64 is invalid, the
            bytes are not the type stated, a URL scheme is not taken, or the file was uploaded.
    """
    if kind == "image_url":
        return _image_url(_object(block, "image_url"))
    if kind == "file":
        return MediaPart(_file(_object(block, "file")))
    source = _object(block, "source")
    media = _image_source(source) if kind == "image" else _document_source(source, block)
    marker = block.get("cache_control")
    return MediaPart(
        media, ProviderState(_ANTHROPIC, {"cache_control": marker}) if marker else None
    )


def _object(block: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = block.get(key)
    if not isinstance(value, Mapping):
        raise ConfigError(f"this {block.get('type')} block needs an object {key!r}")
    return value


def _text(value: Mapping[str, Any], key: str, owner: str) -> str:
    text = value.get(key)
    if not isinstance(text, str) or not text:
        raise ConfigError(f"{owner} needs a string {key!r}")
    return text


def _image_url(value: Mapping[str, Any]) -> MediaPart:
    image = Image.from_url(_text(value, "url", "an image_url"))
    detail = value.get("detail")
    if detail is None:
        return MediaPart(image)
    if detail not in _DETAILS:
        raise ConfigError(f"an image_url's 'detail' is one of {', '.join(_DETAILS)}")
    return MediaPart(image, ProviderState(_OPENAI, {"detail": detail}))


def _file(value: Mapping[str, Any]) -> Document:
    name = value.get("filename")
    if not isinstance(name, (str, type(None))):
        raise ConfigError("a file's 'filename' must be a string")
    if "file_data" in value:
        data = _text(value, "file_data", "a file")
        if data.startswith("data:"):
            return _named(Document.from_url(data), name)
        return Document.from_bytes(_base64(data, "a file's 'file_data'"), name=name)
    if "file_url" in value:
        return _named(Document.from_url(_text(value, "file_url", "a file")), name)
    if "file_id" in value:
        raise ConfigError(f"a file part holds a 'file_id': {_UPLOADED}")
    raise ConfigError("a file part needs its 'file_data' (a data: URL)")


def _named(document: Document, name: str | None) -> Document:
    if name is None:
        return document
    if document.url is not None:
        return Document(document.media_type, url=document.url, name=name)
    assert document.data is not None
    return Document.from_bytes(document.data, document.media_type, name=name)


def _image_source(source: Mapping[str, Any]) -> Image:
    kind = source.get("type")
    if kind == "base64":
        return Image.from_bytes(_decoded(source), _stated(source))
    if kind == "url":
        return Image.from_url(_text(source, "url", "a url source"))
    return _unknown_source(kind)


def _document_source(source: Mapping[str, Any], block: Mapping[str, Any]) -> Document:
    title = block.get("title")
    name = title if isinstance(title, str) and title else None
    kind = source.get("type")
    if kind == "base64":
        return Document.from_bytes(_decoded(source), _stated(source), name=name)
    if kind == "text":
        text = source.get("data")
        if not isinstance(text, str) or not text:
            raise ConfigError("a text source needs its text in 'data'")
        return Document.from_bytes(text.encode("utf-8", "surrogatepass"), "text/plain", name=name)
    if kind == "url":
        return _named(Document.from_url(_text(source, "url", "a url source")), name)
    return _unknown_source(kind)


def _unknown_source(kind: object) -> NoReturn:
    if kind == "file":
        raise ConfigError(f"a 'file' source: {_UPLOADED}")
    raise ConfigError(f"a source of type {kind!r:.40} cannot be read (base64, url and text are)")


def _stated(source: Mapping[str, Any]) -> str:
    return _text(source, "media_type", "a base64 source")


def _decoded(source: Mapping[str, Any]) -> bytes:
    return _base64(_text(source, "data", "a base64 source"), "a base64 source's 'data'")


def _base64(data: str, what: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConfigError(f"{what} is not valid base64 (nor a data: URL)") from exc


def media_dict(part: MediaPart) -> dict[str, Any]:
    """``part`` as an OpenAI Chat content part (``image_url``, or ``file`` for a document)."""
    media = part.media
    if isinstance(media, Image):
        image: dict[str, Any] = {"url": media.data_url()}
        state = part.state
        if state is not None and state.provider == _OPENAI and "detail" in state.data:
            image["detail"] = state.data["detail"]
        return {"type": "image_url", "image_url": image}
    where = "file_url" if media.url is not None else "file_data"
    file: dict[str, Any] = {where: media.data_url()}
    if media.name:
        file["filename"] = media.name
    return {"type": "file", "file": file}
