"""Prompts and tool results beyond text: a list of text, images and documents as parts.

A prompt is a ``str`` or a sequence of ``str``, ``Image`` and ``Document``, read here into the
parts of one user message, in order. A tool's return value holding images or documents is read
into the parts of its result the same way (other values in it written as JSON text). Building
messages from the parts is ``_messages``'s; this module stands below it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

from .._errors import ConfigError
from ._media import Document, Image, Media
from ._parts import MediaPart, TextPart
from ._serialize import serialize_result

__all__ = [
    "ContentPart",
    "PromptItem",
    "PromptLike",
    "is_prompt",
    "is_prompt_item",
    "labelled_text",
    "media_label",
    "parts_text",
    "prompt_parts",
    "result_parts",
]

PromptItem = Union[str, Image, Document]
PromptLike = Union[str, Sequence[PromptItem]]
ContentPart = Union[TextPart, MediaPart]


def is_prompt_item(value: object) -> bool:
    """Whether ``value`` may stand in a prompt list: a ``str``, an ``Image`` or a ``Document``."""
    return isinstance(value, (str, Media))


def is_prompt(given: object) -> bool:
    """Whether ``given`` is a prompt rather than a conversation.

    A ``str``, an ``Image`` or a ``Document``, or a list or tuple whose first item is one of
    them (its other items are checked by ``prompt_parts``). A list of messages or message
    dicts, and any other iterable, is a conversation.
    """
    if isinstance(given, (str, Media)):
        return True
    if not isinstance(given, (list, tuple)) or not given:
        return False
    return is_prompt_item(given[0])


def prompt_parts(given: object, *, what: str = "a prompt") -> list[ContentPart]:
    """The parts of the user message ``given`` stands for: text, images and documents in order.

    Args:
        given: A ``str``, or a sequence (list, tuple) of ``str``, ``Image`` and ``Document``.
        what: How errors name ``given`` (``"a prompt"``, ``"add_user's content"``...).

    Raises:
        ConfigError: ``given`` is neither, or an item of it is not one of the three; the
            error names the item's index and type.
    """
    if isinstance(given, str):
        return [TextPart(given)]
    if isinstance(given, (Image, Document)):
        return [MediaPart(given)]
    if isinstance(given, (bytes, bytearray, Mapping)) or not isinstance(given, Iterable):
        raise ConfigError(
            f"{what} is a str or a list of str, Image and Document, not {type(given).__name__}"
        )
    parts: list[ContentPart] = []
    for index, item in enumerate(given):
        if isinstance(item, str):
            parts.append(TextPart(item))
        elif isinstance(item, (Image, Document)):
            parts.append(MediaPart(item))
        else:
            raise ConfigError(
                f"item {index} of {what} is a {type(item).__name__}: a prompt list holds "
                "only str, Image and Document (a conversation: only messages)"
            )
    if not parts:
        raise ConfigError(f"{what} is an empty list: give text, an Image or a Document")
    return parts


def parts_text(parts: Iterable[ContentPart]) -> str:
    """The text parts, one per line (images and documents left out)."""
    return "\n".join(p.text for p in parts if isinstance(p, TextPart))


def media_label(media: Media) -> str:
    """A short label for views (traces, notebooks): ``[image/png image, 1,234 bytes]``."""
    what = f"{media.media_type or media.kind} {media.kind}"
    if media.url is not None:
        return f"[{what} at {media.url}]"
    named = f" {media.name!r}" if media.name else ""
    return f"[{what}{named}, {media.size:,} bytes]"


def labelled_text(parts: Iterable[object]) -> str:
    """The text of a message's parts, each image or document as its label, one per line."""
    texts = (
        p.text if isinstance(p, TextPart) else media_label(p.media)
        for p in parts
        if isinstance(p, (TextPart, MediaPart))
    )
    return "\n".join(t for t in texts if t)


def result_parts(value: Any) -> tuple[ContentPart, ...] | None:
    """A tool's return value holding images or documents as parts, else None (sent as text).

    An ``Image`` or a ``Document``, or a list or tuple mixing them with strings (sent as they
    are) and JSON-able values (written as JSON text), in the tool's order.
    """
    if isinstance(value, (Image, Document)):
        return (MediaPart(value),)
    if not isinstance(value, (list, tuple)) or not any(isinstance(v, Media) for v in value):
        return None
    parts: list[ContentPart] = []
    for item in value:
        if isinstance(item, (Image, Document)):
            parts.append(MediaPart(item))
        else:
            parts.append(TextPart(item if isinstance(item, str) else serialize_result(item)))
    return tuple(parts)
