"""What a tool may return besides a value: a result already written for the model.

Writing an ordinary return value as text for the model is :func:`serialize_result`'s, re-exported
here from the package's ground floor, where messages use it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._conversation._content import result_parts
from .._conversation._parts import MediaPart, TextPart
from .._conversation._serialize import serialize_result, to_jsonable

__all__ = ["ToolContent", "media_content", "serialize_result", "to_jsonable"]


@dataclass(frozen=True, slots=True)
class ToolContent:
    """A result already written for the model: text, images and documents, in order.

    An MCP tool's result, or a tool's return value holding an ``Image`` or a ``Document``.
    The loop sends ``parts`` as they are and keeps ``value`` as the call's
    ``FunctionCall.result``.
    """

    parts: tuple[TextPart | MediaPart, ...]
    value: Any = None

    @property
    def text(self) -> str:
        """The text parts, one per line."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def has_media(self) -> bool:
        """Whether an image or a document is among the parts."""
        return any(isinstance(p, MediaPart) for p in self.parts)


def media_content(value: Any) -> ToolContent | None:
    """A return value holding images or documents as parts, else None (written as text).

    An ``Image`` or a ``Document``, or a list or tuple mixing them with strings (sent as they
    are) and JSON-able values (written as JSON text), in the tool's order: the rule
    ``LangMessages.add_tool_result`` follows too (``_conversation._content.result_parts``).
    """
    parts = result_parts(value)
    return None if parts is None else ToolContent(parts, value)
