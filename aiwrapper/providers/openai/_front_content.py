"""A Chat Completions client's images and documents, read into parts for the gateway.

User (and tool) messages may hold content parts: ``text``, ``image_url`` (a data URL, decoded
here and checked against its bytes, or an https URL, sent on by reference) and ``file``
(``file_data``, a PDF or plain text as a data URL or bare base64). A list holding only the
kinds the neutral reader knows (text parts, Anthropic-shaped blocks) is left to it
(``message_dicts``), so requests without media are read exactly as before. Anything malformed
is a 400 naming the part's JSON path: a wrong type, bad base64, bytes that are not the type
stated, a ``file_id`` (a file stored at OpenAI, which no other backend can read), an unknown
part type. The follow-up user message this package's encoder writes after a turn's tool
messages (``_content.follow_up``) is read back into those tool results, so a backend whose
tool results hold images gets them there.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard, TypeVar

from ..._conversation._media import Document, Image
from ..._conversation._messages import (
    LangMessage,
    LangMessages,
    MediaPart,
    Part,
    ProviderState,
    TextPart,
    messages_from_dict,
)
from ..._errors import ConfigError
from .._serving import bad_request
from ._content import FOLLOW_UP_HEADER, attached_note

__all__ = ["read_chat_messages"]

# Part types the neutral reader reads (OpenAI text parts and Anthropic-shaped blocks).
_NEUTRAL = frozenset(
    {"text", "input_text", "output_text", "refusal", "thinking", "redacted_thinking"}
    | {"tool_use", "tool_result", "image", "document"}
)
_DETAILS = ("auto", "low", "high", "original")
_TEXT_NAMES = (".txt", ".text", ".md", ".markdown", ".csv")
_HEAD, _TAIL = FOLLOW_UP_HEADER.split("{call_id}")
_M = TypeVar("_M", Image, Document)


def read_chat_messages(raw: Any, prepared: Callable[[Any, str], Mapping[str, Any]]) -> LangMessages:
    """``messages``, a non-empty list, each entry checked by ``prepared`` and read into
    messages, images and documents included; follow-up messages of tool media folded back.

    Raises:
        GatewayError: A 400 naming the entry, or the content part, at fault.
    """
    if not isinstance(raw, list) or not raw:
        raise bad_request("'messages' must be a non-empty list", "messages")
    out = LangMessages()
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        try:
            out.extend(_read(prepared(message, where), where))
        except ConfigError as exc:
            raise bad_request(str(exc), where) from exc
    return _folded(out)


def _read(message: Mapping[str, Any], where: str) -> list[LangMessage]:
    content = message.get("content")
    if message.get("role") not in ("user", "tool") or not _holds_media(content):
        return messages_from_dict(message)
    parts = _parts(content, f"{where}.content")
    (read,) = messages_from_dict({**message, "content": ""})  # role, call id: checked there
    read.parts = parts
    return [read]


def _holds_media(content: Any) -> TypeGuard[list[Any]]:
    """Whether a content list holds a part the neutral reader does not read."""
    if not isinstance(content, list):
        return False
    return any(isinstance(p, dict) and p.get("type", "text") not in _NEUTRAL for p in content)


def _parts(content: list[Any], where: str) -> list[Part]:
    parts: list[Part] = []
    for index, item in enumerate(content):
        part = _part(item, f"{where}[{index}]")
        previous = parts[-1] if parts else None
        if isinstance(part, TextPart) and isinstance(previous, TextPart):
            previous.text += part.text  # consecutive texts as one, as the neutral reader does
        else:
            parts.append(part)
    return parts


def _part(item: Any, where: str) -> Part:
    if not isinstance(item, dict):
        raise bad_request("a content part must be an object", where)
    kind = item.get("type")
    if kind == "text":
        return TextPart(_field(item, "text", str, where))
    if kind == "image_url":
        return _image(_field(item, "image_url", dict, where), f"{where}.image_url")
    if kind == "file":
        return _file(_field(item, "file", dict, where), f"{where}.file")
    if kind == "input_audio":
        raise bad_request("audio input is not supported by this gateway", f"{where}.type")
    raise bad_request(
        f"unknown content part type {kind!r:.60}; text, image_url and file are read",
        f"{where}.type",
    )


def _field(item: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = item.get(key)
    if not isinstance(value, kind):
        shape = "a string" if kind is str else "an object"
        raise bad_request(f"{key!r} must be {shape}", f"{where}.{key}")
    return value


def _image(given: Mapping[str, Any], where: str) -> MediaPart:
    url = _field(given, "url", str, where)
    detail = given.get("detail")
    if detail is not None and detail not in _DETAILS:
        raise bad_request(f"'detail' must be one of {', '.join(_DETAILS)}", f"{where}.detail")
    # A URL goes on by reference, fetched by the backend's servers: https only, so a client
    # cannot make a backend read plain-http hosts or cloud storage on the gateway's behalf.
    if not url.startswith(("data:", "https://")):
        raise bad_request("an image 'url' must be an https:// or a data: URL", f"{where}.url")
    image = _media(lambda: Image.from_url(url), f"{where}.url")
    # The resolution asked for rides on the part: the Chat Completions encoder sends it on.
    state = ProviderState("openai", {"detail": detail}) if detail not in (None, "auto") else None
    return MediaPart(image, state)


def _file(given: Mapping[str, Any], where: str) -> MediaPart:
    if given.get("file_id") is not None:
        raise bad_request(
            "'file_id' names a file stored at OpenAI, which this gateway cannot read; "
            "send the file's bytes as 'file_data'",
            f"{where}.file_id",
        )
    data = _field(given, "file_data", str, where)
    name = given.get("filename")
    if name is not None and not isinstance(name, str):
        raise bad_request("'filename' must be a string", f"{where}.filename")
    return MediaPart(_media(lambda: _document(data, name), f"{where}.file_data"))


def _document(data: str, name: str | None) -> Document:
    """A data URL, or bare base64 (what the field's name says), as a document named ``name``.

    Bare base64 states no type and plain text has no signature: a text file's name tells.
    """
    if data.startswith("data:"):
        read = Document.from_url(data)
        raw, stated = read.data or b"", read.media_type
    else:
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ConfigError("'file_data' is neither a data: URL nor valid base64") from exc
        texty = name is not None and name.lower().endswith(_TEXT_NAMES)
        stated = "text/plain" if texty else None
    return Document.from_bytes(raw, stated, name=name)


def _media(build: Callable[[], _M], where: str) -> _M:
    try:
        return build()
    except ConfigError as exc:
        raise bad_request(str(exc), where) from exc


def _folded(messages: LangMessages) -> LangMessages:
    """The conversation with this package's follow-up messages of tool media read back into
    the tool results they belong to (see ``_content.follow_up``)."""
    out = LangMessages()
    for message in messages:
        after_results = message.role == "user" and out and out[-1].role == "tool"
        if not (after_results and _fold(_last_results(out), message)):
            out.append(message)
    return out


def _last_results(messages: LangMessages) -> dict[str, LangMessage]:
    results: dict[str, LangMessage] = {}
    for message in reversed(messages):
        if message.role != "tool":
            break
        results.setdefault(message.tool_call_id or "", message)
    return results


def _fold(results: dict[str, LangMessage], follow_up: LangMessage) -> bool:
    """Move the follow-up's media into ``results``; False when it is no follow-up of theirs."""
    groups = _groups(follow_up.parts, results)
    if groups is None:
        return False
    for call_id, media in groups:
        result = results[call_id]
        result.parts = _restored(result, media)
    return True


def _groups(
    parts: list[Part], results: dict[str, LangMessage]
) -> list[tuple[str, list[MediaPart]]] | None:
    """The follow-up's (call id, media) groups, or None when it is not one."""
    groups: list[tuple[str, list[MediaPart]]] = []
    for part in parts:
        if isinstance(part, MediaPart) and groups:
            groups[-1][1].append(part)
            continue
        text = part.text if isinstance(part, TextPart) else ""
        call_id = text[len(_HEAD) : -len(_TAIL)]
        if not (text.startswith(_HEAD) and text.endswith(_TAIL) and call_id in results):
            return None
        if groups and not groups[-1][1]:
            return None
        groups.append((call_id, []))
    return groups if groups and groups[-1][1] else None


def _restored(result: LangMessage, media: list[MediaPart]) -> list[Part]:
    """A tool result's parts with each medium back where its note stands in the text.

    Media whose note is not found (a client that rewrote the text) follow the text.
    """
    if any(isinstance(p, MediaPart) for p in result.parts):
        return [*result.parts, *media]
    parts: list[Part] = []
    text, placed = result.content, 0
    for item in media:
        before, note, after = text.partition(attached_note(item))
        if not note:
            break
        if before.removesuffix("\n"):
            parts.append(TextPart(before.removesuffix("\n")))
        parts.append(item)
        text, placed = after.removeprefix("\n"), placed + 1
    if text:
        parts.append(TextPart(text))
    return [*parts, *media[placed:]]
