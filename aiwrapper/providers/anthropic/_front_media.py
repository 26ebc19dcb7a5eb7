"""A Messages client's images and documents, read into parts for the gateway's front-end.

``image`` and ``document`` blocks in a user message, and inside a ``tool_result``'s content,
become ``MediaPart``s in their place; every other block is read as ``chat`` reads message
dicts. The sources read are the wire's own: ``base64`` (an image's PNG, JPEG, GIF or WebP, a
document's PDF), ``text`` (a plain-text document) and ``url`` (fetched by whichever backend
takes URLs; the others refuse it by name). A ``file`` source names a file in Anthropic's Files
API, which no backend here can read, and a ``content`` source custom-chunked text: both are a
400, as is any block that cannot be read, naming the field at fault in the message (the
Messages error shape has no field of its own for it). A block's ``cache_control`` rides on its
part, for an Anthropic backend; ``title`` becomes the document's name; the citation fields
(``citations``, ``context``), which only an Anthropic backend could honour, are refused unless
empty.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..._conversation._media import IMAGE_TYPES, Document, Image
from ..._conversation._messages import (
    LangMessage,
    LangMessages,
    MediaPart,
    Part,
    ProviderState,
    Role,
    TextPart,
    messages_from_dict,
)
from ..._errors import ConfigError
from .._serving import bad_request, read_messages
from ._name import NAME

__all__ = ["read_conversation"]

_MEDIA = ("image", "document")
_KEYS = {
    "image": frozenset({"type", "source", "cache_control"}),
    "document": frozenset({"type", "source", "cache_control", "title", "citations", "context"}),
}
_FETCHED = ("https://", "http://")
_T = TypeVar("_T")


def read_conversation(raw: Any, prepared: Callable[[Any, str], Mapping[str, Any]]) -> LangMessages:
    """``messages`` read as ``read_messages`` reads them, images and documents included.

    Raises:
        GatewayError: A 400 naming the entry, or the field of a block, that cannot be read.
    """
    if not isinstance(raw, list) or not raw:
        return read_messages(raw, prepared)  # its 400 for a missing or empty list
    out = LangMessages()
    for index, entry in enumerate(raw):
        where = f"messages[{index}]"
        message = prepared(entry, where)
        content = message.get("content")
        if isinstance(content, list) and any(_holds_media(block) for block in content):
            out.extend(_with_media(message["role"], content, where))
        else:
            out.extend(_read(message, where))
    return out


def _holds_media(block: Any) -> bool:
    if _is_media(block):
        return True
    inner = block.get("content") if isinstance(block, dict) else None
    return (
        _type(block) == "tool_result"
        and isinstance(inner, list)
        and any(_is_media(b) for b in inner)
    )


def _is_media(block: Any) -> bool:
    return _type(block) in _MEDIA


def _type(block: Any) -> Any:
    """A block's ``type``, or None for what is not an object."""
    return block.get("type") if isinstance(block, dict) else None


def _read(message: Mapping[str, Any], where: str) -> list[LangMessage]:
    """The messages the shared reader makes of a dict; what it refuses is a 400 at ``where``."""
    try:
        return messages_from_dict(message)
    except ConfigError as exc:
        raise bad_request(f"{where}: {exc}", where) from exc


def _with_media(role: Role, content: list[Any], where: str) -> list[LangMessage]:
    """A message holding images or documents: tool results first, then the user's parts."""
    results: list[LangMessage] = []
    parts: list[Part] = []
    for index, block in enumerate(content):
        at = f"{where}.content[{index}]"
        if role != "user" and _holds_media(block):
            raise bad_request(f"{at}: images and documents are read in user messages only", at)
        if _is_media(block):
            parts.append(_read_media(block, at))
        elif _type(block) == "tool_result":
            results.extend(_tool_result(block, at))
        else:
            parts.extend(p for m in _read({"role": role, "content": [block]}, at) for p in m.parts)
    return [*results, LangMessage(role, parts)] if parts else results


def _tool_result(block: dict[str, Any], at: str) -> list[LangMessage]:
    inner = block.get("content")
    if not (isinstance(inner, list) and any(_is_media(b) for b in inner)):
        return _read({"role": "user", "content": [block]}, at)
    call_id, is_error = block.get("tool_use_id"), block.get("is_error", False)
    if not isinstance(call_id, str) or not call_id:
        raise bad_request(f"{at}.tool_use_id: a tool_result needs its tool_use_id", at)
    if not isinstance(is_error, bool):
        raise bad_request(f"{at}.is_error: must be true or false", f"{at}.is_error")
    parts: list[Part] = [_result_part(b, f"{at}.content[{i}]") for i, b in enumerate(inner)]
    marker = _marker(block, at)
    if marker is not None:  # the result's own breakpoint, as the shared reader keeps it
        parts.append(TextPart("", marker))
    return [LangMessage("tool", parts, tool_call_id=call_id, is_error=is_error)]


def _result_part(block: Any, at: str) -> TextPart | MediaPart:
    if _is_media(block):
        return _read_media(block, at)
    if _type(block) != "text" or not isinstance(block.get("text"), str):
        raise bad_request(f"{at}: a tool_result holds text, image and document blocks", at)
    return TextPart(block["text"], _marker(block, at))


def _read_media(block: dict[str, Any], at: str) -> MediaPart:
    """An ``image`` or ``document`` block as a part.

    Raises:
        GatewayError: A 400 naming the field that cannot be read.
    """
    kind = block["type"]
    for key, value in block.items():
        if key not in _KEYS[kind]:
            raise bad_request(f"{at}.{key}: not supported in {kind} blocks here", f"{at}.{key}")
        if key in ("citations", "context") and value not in (None, {}, {"enabled": False}, ""):
            raise bad_request(f"{at}.{key}: citations are not supported here", f"{at}.{key}")
    source = block.get("source")
    if not isinstance(source, dict):
        raise bad_request(f"{at}.source: {kind} blocks need a source object", f"{at}.source")
    if kind == "image":
        media: Image | Document = _image(source, f"{at}.source")
    else:
        media = _document(source, f"{at}.source", _title(block, at))
    return MediaPart(media, _marker(block, at))


def _image(source: dict[str, Any], at: str) -> Image:
    kind = _source_type(source, at, ("base64", "url"))
    if kind == "url":
        return _made(Image.from_url, f"{at}.url", _url(source, at))
    media_type = source.get("media_type")
    if media_type not in IMAGE_TYPES:
        allowed = ", ".join(IMAGE_TYPES)
        raise bad_request(f"{at}.media_type: must be one of {allowed}", f"{at}.media_type")
    return _made(Image.from_bytes, f"{at}.data", _decoded(source, at), media_type)


def _document(source: dict[str, Any], at: str, title: str | None) -> Document:
    kind = _source_type(source, at, ("base64", "text", "url"))
    if kind == "url":
        found = _made(Document.from_url, f"{at}.url", _url(source, at), "application/pdf")
        return dataclasses.replace(found, name=title) if title else found
    wanted = "application/pdf" if kind == "base64" else "text/plain"
    if source.get("media_type") != wanted:
        message = f"{at}.media_type: a {kind} document source is {wanted}"
        raise bad_request(message, f"{at}.media_type")
    if kind == "base64":
        raw = _decoded(source, at)
    elif isinstance(source.get("data"), str):
        # A lone surrogate becomes bytes that are not UTF-8, which Document refuses by name.
        raw = source["data"].encode("utf-8", "surrogatepass")
    else:
        raise bad_request(f"{at}.data: must be the document's text", f"{at}.data")
    return _made(Document.from_bytes, f"{at}.data", raw, wanted, name=title)


def _source_type(source: dict[str, Any], at: str, known: tuple[str, ...]) -> str:
    kind = source.get("type")
    if kind == "file":
        message = (
            f"{at}.file_id: file sources (Anthropic's Files API) cannot be read here; "
            "send the file as a base64 source"
        )
        raise bad_request(message, f"{at}.file_id")
    if kind not in known:
        message = f"{at}.type: the source type must be one of {', '.join(known)}"
        raise bad_request(message, f"{at}.type")
    return str(kind)


def _url(source: dict[str, Any], at: str) -> str:
    url = source.get("url")
    if not isinstance(url, str) or not url.startswith(_FETCHED):
        raise bad_request(f"{at}.url: must be an https URL", f"{at}.url")
    return url


def _decoded(source: dict[str, Any], at: str) -> bytes:
    data = source.get("data")
    if not isinstance(data, str):
        raise bad_request(f"{at}.data: must be base64 text", f"{at}.data")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise bad_request(f"{at}.data: not valid base64", f"{at}.data") from exc


def _made(make: Callable[..., _T], at: str, *args: Any, **kwargs: Any) -> _T:
    """``make(...)``, its ConfigError (bytes that are not the stated type, say) a 400 at ``at``."""
    try:
        return make(*args, **kwargs)
    except ConfigError as exc:
        raise bad_request(f"{at}: {exc}", at) from exc


def _title(block: dict[str, Any], at: str) -> str | None:
    title = block.get("title")
    if title is not None and not isinstance(title, str):
        raise bad_request(f"{at}.title: must be a string", f"{at}.title")
    return title or None


def _marker(block: dict[str, Any], at: str) -> ProviderState | None:
    """A cache breakpoint the client placed on a block, kept for an Anthropic backend."""
    marker = block.get("cache_control")
    if marker is None:
        return None
    if not isinstance(marker, dict):
        raise bad_request(f"{at}.cache_control: must be an object", f"{at}.cache_control")
    return ProviderState(NAME, {"cache_control": marker})
