"""Images and documents in a Responses request, read into parts for the gateway's backends.

A user message's ``content`` list, or a ``function_call_output``'s ``output`` list, that holds
an ``input_image`` or an ``input_file`` is read here part by part, in order: ``input_text``
as text, ``input_image`` from its ``image_url`` (a ``data:`` URL is decoded to bytes; an
http(s) URL is kept as a reference, never fetched here), ``input_file`` from ``file_data``
(a ``data:`` URL, or bare base64, named by ``filename``) or ``file_url``. A ``file_id``
names a file stored at OpenAI, which no other backend can read and this gateway cannot
fetch: a 400 naming it. ``detail`` is checked and left behind: each backend sizes images its
own way. Anything malformed is a 400 naming the field, in the Responses error shape.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard, TypeVar

from ..._conversation._media import Document, Image
from ..._conversation._messages import MediaPart, Part, TextPart
from ..._errors import ConfigError
from .._serving import bad_request

__all__ = ["holds_media", "read_parts"]

_MEDIA = ("input_image", "input_file")
_DETAILS = {
    "input_image": ("auto", "low", "high", "original"),
    "input_file": ("auto", "low", "high"),
}
# A bare base64 file names no type, and plain text has no signature to sniff: the name tells.
_TEXT_NAMES = (".txt", ".text", ".md", ".markdown", ".csv")
_T = TypeVar("_T")


def holds_media(content: Any) -> TypeGuard[list[Any]]:
    """Whether ``content`` is a list holding an ``input_image`` or an ``input_file`` part."""
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") in _MEDIA for part in content
    )


def read_parts(content: list[Any], where: str) -> list[Part]:
    """The text, image and document parts of ``content`` (at ``where``), in order."""
    parts: list[Part] = []
    for index, raw in enumerate(content):
        at = f"{where}[{index}]"
        if not isinstance(raw, Mapping):
            raise bad_request("a content part must be an object", at)
        kind = raw.get("type")
        if kind == "input_text":
            parts.append(TextPart(_string(raw, "text", at)))
        elif kind in _MEDIA:
            _check_common(raw, at)
            parts.append(MediaPart(_image(raw, at) if kind == "input_image" else _file(raw, at)))
        else:
            message = f"content parts of type {kind!r} are not read here (input_text, "
            raise bad_request(message + "input_image and input_file are)", f"{at}.type")
    return parts


def _check_common(raw: Mapping[str, Any], at: str) -> None:
    if raw.get("file_id") is not None:
        raise bad_request(
            "'file_id' names a file stored at OpenAI, which this gateway cannot read: send the "
            "bytes as a data: URL (image_url, file_data) or an https URL instead",
            f"{at}.file_id",
        )
    detail = raw.get("detail")
    allowed = _DETAILS[raw["type"]]
    if detail is not None and detail not in allowed:
        raise bad_request(f"'detail' must be one of {', '.join(allowed)}", f"{at}.detail")


def _image(raw: Mapping[str, Any], at: str) -> Image:
    url = raw.get("image_url")
    if not isinstance(url, str) or not url:
        message = "an input_image needs an 'image_url': a data: URL or an https URL"
        raise bad_request(message, f"{at}.image_url")
    return _read(lambda: Image.from_url(url), f"{at}.image_url")


def _file(raw: Mapping[str, Any], at: str) -> Document:
    data, url, name = raw.get("file_data"), raw.get("file_url"), raw.get("filename")
    if name is not None and not isinstance(name, str):
        raise bad_request("'filename' must be a string", f"{at}.filename")
    if (data is None) == (url is None):
        raise bad_request("an input_file needs one of 'file_data' or 'file_url'", at)
    key = "file_url" if url is not None else "file_data"
    value = raw[key]
    if not isinstance(value, str) or not value:
        raise bad_request(f"{key!r} must be a non-empty string", f"{at}.{key}")
    if url is not None:
        return _read(lambda: Document.from_url(value), f"{at}.file_url")
    return _read(lambda: _inline(value, name), f"{at}.file_data")


def _inline(data: str, name: str | None) -> Document:
    """A document from ``file_data``: a ``data:`` URL, or the bare base64 some clients send."""
    if data.startswith("data:"):
        document = Document.from_url(data)
        raw, stated = document.data or b"", document.media_type
    else:
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ConfigError("'file_data' is neither a data: URL nor valid base64") from exc
        texty = name is not None and name.lower().endswith(_TEXT_NAMES)
        stated = "text/plain" if texty else None
    return Document.from_bytes(raw, stated, name=name)


def _read(build: Callable[[], _T], param: str) -> _T:
    """What ``build`` makes, its ``ConfigError`` (an unknown type, bad base64) a 400."""
    try:
        return build()
    except ConfigError as exc:
        raise bad_request(str(exc), param) from exc


def _string(raw: Mapping[str, Any], key: str, at: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise bad_request(f"{key!r} must be a string", f"{at}.{key}")
    return value
