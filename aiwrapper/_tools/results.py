"""What a tool may return besides a value: a result already written for the model.

Writing an ordinary return value as text for the model is :func:`serialize_result`'s, re-exported
here from the package's ground floor, where messages use it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._conversation._parts import ImagePart
from .._conversation._serialize import serialize_result, to_jsonable

__all__ = ["ToolContent", "serialize_result", "to_jsonable"]


@dataclass(frozen=True, slots=True)
class ToolContent:
    """A result already written for the model, as text and images (an MCP tool's result).

    The loop sends ``text`` and ``images`` as they are and keeps ``value`` as the call's
    ``FunctionCall.result``.
    """

    text: str
    images: tuple[ImagePart, ...] = ()
    value: Any = None
