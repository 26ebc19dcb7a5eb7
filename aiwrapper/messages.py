"""The conversation: ``LangMessage``, its parts, and the ``LangMessages`` list.

Pure data shared by every provider. A message is a role and an ordered list of parts (text,
thinking, tool calls, opaque blocks). Opaque provider state (signatures, redacted reasoning,
server-tool blocks) rides on the part it came with as a ``ProviderState``, which only the
provider that made it reads back; encoders for other providers drop it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from .errors import ConfigError
from .jsontext import loads_standard
from .result import FunctionCall

__all__ = [
    "JSONValue",
    "LangMessage",
    "LangMessages",
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


Part = Union[TextPart, ThinkingPart, ToolCallPart, OpaquePart]


@dataclass(slots=True, eq=False)
class LangMessage:
    """One message of a conversation.

    Tool results are messages with role ``tool``: ``content`` is the result text for the model,
    ``tool_call_id`` and ``name`` name the call, ``is_error`` and ``error_type`` mark failures.
    """

    role: Role
    parts: list[Part] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    error_type: str | None = None

    @property
    def content(self) -> str:
        """All text parts joined."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def thinking(self) -> str:
        """All visible reasoning joined."""
        return "".join(p.text for p in self.parts if isinstance(p, ThinkingPart))

    @property
    def tool_calls(self) -> list[FunctionCall]:
        """The calls this (assistant) message made, in order."""
        return [p.call for p in self.parts if isinstance(p, ToolCallPart)]

    @classmethod
    def text(cls, role: Role, text: str) -> LangMessage:
        """A message holding one text part."""
        return cls(role, [TextPart(text)])

    @classmethod
    def tool_result(
        cls,
        call: FunctionCall,
        content: str,
        *,
        is_error: bool = False,
        error_type: str | None = None,
    ) -> LangMessage:
        """The result of ``call`` as the model will see it."""
        return cls(
            "tool",
            [TextPart(content)],
            tool_call_id=call.id,
            name=call.name,
            is_error=is_error,
            error_type=error_type,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LangMessage:
        """Build a message from an OpenAI-shaped dict (``role``, ``content``, ``tool_calls``...)."""
        role = data.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise ConfigError(f"message role must be system, user, assistant or tool, not {role!r}")
        parts: list[Part] = []
        if data.get("thinking"):
            parts.append(ThinkingPart(str(data["thinking"])))
        text = _content_text(data.get("content"))
        if text:
            parts.append(TextPart(text))
        for raw in data.get("tool_calls") or ():
            parts.append(ToolCallPart(_call_from_dict(raw)))
        if role == "tool" and not data.get("tool_call_id"):
            raise ConfigError("a tool message needs the 'tool_call_id' of the call it answers")
        return cls(
            "system" if role == "developer" else role,
            parts,
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
            error_type=data.get("error_type"),
        )

    def to_dict(self) -> dict[str, Any]:
        """This message as an OpenAI-shaped dict (opaque provider state is left out)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.thinking:
            out["thinking"] = self.thinking
        if self.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_json()},
                }
                for c in self.tool_calls
            ]
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
            out["name"] = self.name
            if self.is_error:
                out["is_error"] = True
                if self.error_type:
                    out["error_type"] = self.error_type
        return out

    def __repr__(self) -> str:
        bits = [f"role={self.role!r}"]
        if self.content:
            bits.append(f"content={self.content!r}")
        if self.tool_calls:
            bits.append(f"tool_calls={[c.name for c in self.tool_calls]!r}")
        if self.tool_call_id:
            bits.append(f"tool_call_id={self.tool_call_id!r}")
        return f"LangMessage({', '.join(bits)})"


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    raise ConfigError(f"message content must be a string or a list of text parts, not {content!r}")


def _call_from_dict(raw: Mapping[str, Any]) -> FunctionCall:
    fn = raw.get("function", raw)
    call_id, name = raw.get("id"), fn.get("name") if isinstance(fn, Mapping) else None
    if not call_id or not name:
        raise ConfigError(f"a tool call needs an 'id' and a function 'name': {dict(raw)!r}")
    given = fn.get("arguments", {})
    arguments = _arguments(str(call_id), given)
    return FunctionCall(
        id=str(call_id),
        name=str(name),
        arguments=arguments,
        raw_arguments=given
        if isinstance(given, str)
        else json.dumps(arguments, separators=(",", ":"), ensure_ascii=False),
        status="done",
    )


def _arguments(call_id: str, given: Any) -> dict[str, Any]:
    """A call's arguments (JSON text or an object) as a dict."""
    value = given
    if isinstance(given, str):
        try:
            value = loads_standard(given) if given.strip() else {}
        except ValueError as exc:
            raise ConfigError(f"tool call {call_id!r} has arguments that are not JSON") from exc
    if not isinstance(value, Mapping):
        raise ConfigError(f"tool call {call_id!r} has arguments that are not a JSON object")
    return dict(value)


MessageLike = Union[LangMessage, Mapping[str, Any]]


class LangMessages(list[LangMessage]):
    """The conversation as a list of ``LangMessage``; OpenAI-shaped dicts are accepted too.

    The ``add_*`` helpers append and return the list itself, so calls chain::

        await lang.chat(result.messages.add_user("And tomorrow?"))
    """

    def __init__(self, messages: Iterable[MessageLike] = ()) -> None:
        super().__init__(_to_message(m) for m in messages)

    def add(self, message: MessageLike) -> LangMessages:
        """Append a message (a ``LangMessage`` or an OpenAI-shaped dict)."""
        self.append(_to_message(message))
        return self

    def add_user(self, text: str) -> LangMessages:
        """Append a user message."""
        return self.add(LangMessage.text("user", text))

    def add_system(self, text: str) -> LangMessages:
        """Append a system message."""
        return self.add(LangMessage.text("system", text))

    def add_assistant(self, text: str) -> LangMessages:
        """Append an assistant message."""
        return self.add(LangMessage.text("assistant", text))

    def add_tool_result(
        self, call: FunctionCall, value: Any, *, is_error: bool = False
    ) -> LangMessages:
        """Append the result of ``call`` (any value; non-strings are sent as JSON)."""
        from .tools import serialize_result

        content = value if isinstance(value, str) else serialize_result(value)
        call.result, call.status = value, "error" if is_error else "done"
        return self.add(LangMessage.tool_result(call, content, is_error=is_error))

    def to_dicts(self) -> list[dict[str, Any]]:
        """The conversation as OpenAI-shaped dicts."""
        return [m.to_dict() for m in self]

    def with_thinking_as_text(self) -> LangMessages:
        """A copy in which the model's visible reasoning is plain text, for another provider.

        Providers drop reasoning they did not produce (its signatures mean nothing to them).
        Before moving a conversation, this keeps that reasoning readable instead: each
        thinking part becomes a text part ``<thinking>...</thinking>``, opaque reasoning
        (redacted, encrypted) is left out, and no provider state survives on the copy.
        """
        return LangMessages(_portable(m) for m in self)

    def __repr__(self) -> str:
        return f"LangMessages({list.__repr__(self)})"


def _portable(message: LangMessage) -> LangMessage:
    parts: list[Part] = []
    for part in message.parts:
        if isinstance(part, ThinkingPart):
            if part.text:
                parts.append(TextPart(f"<thinking>{part.text}</thinking>"))
        elif isinstance(part, TextPart):
            parts.append(TextPart(part.text))
        elif isinstance(part, ToolCallPart):
            parts.append(ToolCallPart(part.call))
    return LangMessage(
        message.role,
        parts,
        tool_call_id=message.tool_call_id,
        name=message.name,
        is_error=message.is_error,
        error_type=message.error_type,
    )


def _to_message(message: MessageLike) -> LangMessage:
    if isinstance(message, LangMessage):
        return message
    if isinstance(message, Mapping):
        return LangMessage.from_dict(message)
    raise TypeError(f"expected a LangMessage or a dict, not {type(message).__name__}")
