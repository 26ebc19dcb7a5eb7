"""The parts of a message: text, thinking, tool calls, images and documents, opaque blocks.

Plain data on the ground floor of the package, below the messages that hold these parts and
the reader of message dicts that builds them. Opaque provider state (signatures, redacted
reasoning, server-tool blocks) rides on the part it came with as a ``ProviderState``, which
only the provider that made it reads back; encoders for other providers drop it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union

from ._call import FunctionCall
from ._media import Document, Image

__all__ = [
    "JSONValue",
    "MediaPart",
    "OpaquePart",
    "Part",
    "ProviderState",
    "Role",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
]

JSONValue = Union[None, bool, int, float, str, list["JSONValue"], dict[str, "JSONValue"]]
Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ProviderState:
    """Opaque state a provider attached to a part, replayed verbatim to that provider only."""

    provider: str
    data: dict[str, Any]


@dataclass(slots=True)
class TextPart:
    """Text written by the user or the model."""

    text: str
    state: ProviderState | None = None


@dataclass(slots=True)
class ThinkingPart:
    """Visible reasoning of the model; ``state`` holds its signature where there is one."""

    text: str
    state: ProviderState | None = None


@dataclass(slots=True)
class ToolCallPart:
    """A call the model made, in its place among the other parts."""

    call: FunctionCall
    state: ProviderState | None = None


@dataclass(slots=True)
class OpaquePart:
    """A block the SDK keeps without reading (redacted thinking, server-tool blocks).

    It is replayed verbatim to the provider that sent it and dropped toward any other.

    Attributes:
        state: The block itself, as the provider sent it.
        kind: ``"thinking"`` for reasoning (left out when thinking is off), else ``"raw"``.
        problem: ``None`` when the block was read whole. Otherwise why it could not be (its
            streamed input was not JSON, say): the block is then kept, and replayed, as far
            as it was read, and the rest of the turn is unaffected.
    """

    state: ProviderState
    kind: Literal["thinking", "raw"] = "raw"
    problem: str | None = None


@dataclass(slots=True)
class MediaPart:
    """An image or a document: in a prompt, a tool result, or a model's answer."""

    media: Image | Document
    state: ProviderState | None = None

    def describe(self) -> str:
        """The part as text, for a model or wire that cannot be shown it."""
        return self.media.describe()


Part = Union[TextPart, ThinkingPart, ToolCallPart, OpaquePart, MediaPart]
