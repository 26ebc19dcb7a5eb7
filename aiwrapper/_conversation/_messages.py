"""The conversation: ``LangMessage``, its parts, and the ``LangMessages`` list.

Pure data shared by every provider. A message is a role and an ordered list of parts (text,
thinking, tool calls, images and documents, opaque blocks), which live on the floor below
(``_parts``) and are exported here too. Message dicts (a ``role``; ``content`` as text, text
parts or content blocks, images and documents among them; ``tool_calls``) are read by
``message_dicts`` into fields, from which messages are built here; a prompt (a ``str``, or a
list of ``str``, ``Image`` and ``Document``) becomes a user message by ``_content``'s rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from .._errors import ConfigError
from ._call import FunctionCall
from ._content import PromptLike, is_prompt, is_prompt_item, parts_text, prompt_parts, result_parts
from ._document import document_json, messages_to_jsonable, read_document, read_json
from ._media import Document, Image
from ._media_dicts import media_dict
from ._message_dicts import read_message_dict
from ._parts import (
    JSONValue,
    MediaPart,
    OpaquePart,
    Part,
    ProviderState,
    Role,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ._serialize import serialize_result

__all__ = [
    "JSONValue",
    "LangMessage",
    "LangMessages",
    "MediaPart",
    "OpaquePart",
    "Part",
    "ProviderState",
    "Role",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "messages_from_dict",
    "messages_from_jsonable",
    "messages_to_jsonable",
    "opening",
]


@dataclass(slots=True, eq=False)
class LangMessage:
    """One message of a conversation.

    Tool results are messages with role ``tool``: ``content`` is the result text for the model,
    ``tool_call_id`` and ``name`` name the call, ``is_error`` and ``error_type`` mark failures.
    A user message, or a tool result whose tool returned them, may hold images and documents
    (``MediaPart``) among its text parts, in order: ``media`` lists them.
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
        parts = self.parts
        if len(parts) == 1 and parts[0].__class__ is TextPart:  # most messages: one text
            return parts[0].text
        return "".join(p.text for p in parts if isinstance(p, TextPart))

    @property
    def answer(self) -> str:
        """The text after the last server-side tool block, joined (all text when there is none).

        A turn that used a provider-side tool (web search, code execution) writes a preamble
        before it and its answer after its result; like text written before local tool calls,
        the preamble stays in the message but is not the answer.
        """
        parts = self.parts
        if len(parts) == 1 and parts[0].__class__ is TextPart:  # most answers: one text
            return parts[0].text
        start = 0
        for i in range(len(parts) - 1, -1, -1):
            part = parts[i]
            if type(part) is OpaquePart and part.kind == "raw":
                start = i + 1
                break
        return "".join(p.text for p in parts[start:] if isinstance(p, TextPart))

    @property
    def media(self) -> list[Image | Document]:
        """The images and documents of this message, in order."""
        return [p.media for p in self.parts if isinstance(p, MediaPart)]

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
        parts: Iterable[TextPart | MediaPart] | None = None,
    ) -> LangMessage:
        """The result of ``call`` as the model will see it.

        ``parts`` (text, images and documents in the tool's order) replace ``content`` when
        the result holds more than text.
        """
        # Positional, in the order of the fields: keywords cost more, on every call's result.
        texts: list[Part] = [TextPart(content)] if parts is None else list(parts)
        return cls("tool", texts, call.id, call.name, is_error, error_type)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LangMessage:
        """Build a message from a message dict (``role``, ``content``...: see ``message_dicts``).

        Raises:
            ConfigError: The dict cannot be read, or holds several messages (a user turn of
                ``tool_result`` blocks: give it to ``LangMessages`` instead).
        """
        messages = messages_from_dict(data)
        if len(messages) != 1:
            raise ConfigError(
                f"this dict holds {len(messages)} messages (tool results): add it to a "
                "LangMessages instead"
            )
        return messages[0]

    def to_dict(self) -> dict[str, Any]:
        """This message as a dict of ``role``, ``content`` and ``tool_calls`` (function calls
        with JSON ``arguments``), which ``from_dict`` reads back.

        The portable, lossy form, for showing a message or handing it to other tools: opaque
        provider state (signatures, encrypted reasoning) and calls' status and results are
        left out. A message holding images or documents has a list of content parts as its
        ``content`` (``text``, ``image_url``, ``file``: the Chat Completions shapes, which most
        servers read), the bytes written as ``data:`` URLs. To save a conversation and
        continue it, use ``LangMessages.to_json``, which keeps everything.
        """
        out: dict[str, Any] = {"role": self.role, "content": self._content_for_dict()}
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

    def _content_for_dict(self) -> str | list[dict[str, Any]]:
        if not any(isinstance(p, MediaPart) for p in self.parts):
            return self.content
        return [
            media_dict(p) if isinstance(p, MediaPart) else {"type": "text", "text": p.text}
            for p in self.parts
            if isinstance(p, MediaPart) or (isinstance(p, TextPart) and p.text)
        ]

    def __repr__(self) -> str:
        bits = [f"role={self.role!r}"]
        if self.content:
            bits.append(f"content={self.content!r}")
        if self.media:
            bits.append(f"media={[m.media_type or m.kind for m in self.media]!r}")
        if self.tool_calls:
            bits.append(f"tool_calls={[c.name for c in self.tool_calls]!r}")
        if self.tool_call_id:
            bits.append(f"tool_call_id={self.tool_call_id!r}")
        return f"LangMessage({', '.join(bits)})"


MessageLike = Union[LangMessage, Mapping[str, Any]]


class LangMessages(list[LangMessage]):
    """The conversation as a list of ``LangMessage``; message dicts are read too.

    The ``add_*`` helpers append and return the list itself, so calls chain::

        await lang.chat(result.messages.add_user("And tomorrow?"))

    ``with_user`` returns a new list instead and leaves this one as it is, so a notebook cell
    that continues a conversation can run twice without asking the question twice::

        await lang.chat(result.messages.with_user("And tomorrow?"))
    """

    def __init__(self, messages: Iterable[MessageLike] = ()) -> None:
        super().__init__(m for i, given in enumerate(messages) for m in _to_messages(given, i))

    def add(self, message: MessageLike) -> LangMessages:
        """Append a message (a ``LangMessage``, or a message dict ``from_dict`` reads)."""
        self.extend(_to_messages(message))
        return self

    def add_user(self, content: PromptLike) -> LangMessages:
        """Append a user message: a ``str``, or a list of ``str``, ``Image`` and ``Document``.

        Raises:
            ConfigError: An item of the list is none of the three (its index is named).
        """
        return self.add(LangMessage("user", list(prompt_parts(content, what="a user message"))))

    def with_user(self, content: PromptLike) -> LangMessages:
        """A copy with a user message appended (as ``add_user``); this one is left unchanged."""
        return LangMessages(self).add_user(content)

    def add_system(self, text: str) -> LangMessages:
        """Append a system message."""
        return self.add(LangMessage.text("system", text))

    def add_assistant(self, text: str) -> LangMessages:
        """Append an assistant message."""
        return self.add(LangMessage.text("assistant", text))

    def add_tool_result(
        self, call: FunctionCall, value: Any, *, is_error: bool = False
    ) -> LangMessages:
        """Append the result of ``call`` (any value; non-strings are sent as JSON).

        An ``Image`` or a ``Document``, or a list mixing them with other values, is sent as
        the model's wire takes images and documents in tool results, in the list's order.
        """
        parts = result_parts(value)
        if parts is not None:
            content = parts_text(parts)
        else:
            content = value if isinstance(value, str) else serialize_result(value)
        call.result, call.status = value, "error" if is_error else "done"
        return self.add(LangMessage.tool_result(call, content, is_error=is_error, parts=parts))

    def to_dicts(self) -> list[dict[str, Any]]:
        """The conversation as dicts (``LangMessage.to_dict``: portable, and lossy)."""
        return [m.to_dict() for m in self]

    def to_json(self) -> str:
        """The whole conversation as JSON text that ``from_json`` reads back (``_document``).

        Everything is kept: parts in order, opaque provider state, images and documents,
        calls with their status, results and errors. Read back, the conversation sends the
        same request bytes as this one to every provider.

        Raises:
            ConfigError: Provider state or arguments hold something that is not JSON.
        """
        return document_json(messages_to_jsonable(self))

    def to_jsonable(self) -> dict[str, Any]:
        """``to_json``'s document as plain data (``{"aiwrapper": 1, "messages": [...]}``)."""
        return messages_to_jsonable(self)

    @classmethod
    def from_json(cls, text: str | bytes | bytearray) -> LangMessages:
        """The conversation ``to_json`` wrote.

        Raises:
            ConfigError: The text is not JSON, a document of a newer version, or malformed
                (the error names the place, e.g. ``messages[3].parts[1].state``).
        """
        return cls(LangMessage(**fields) for fields in read_json(text))

    @classmethod
    def from_jsonable(cls, obj: Any) -> LangMessages:
        """The conversation ``to_jsonable`` wrote (raises as ``from_json``)."""
        return cls(LangMessage(**fields) for fields in read_document(obj))

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
        elif isinstance(part, MediaPart):  # the bytes are anyone's; a part's state is not
            parts.append(MediaPart(part.media))
    return LangMessage(
        message.role,
        parts,
        tool_call_id=message.tool_call_id,
        name=message.name,
        is_error=message.is_error,
        error_type=message.error_type,
    )


def _to_messages(message: MessageLike, index: int | None = None) -> list[LangMessage]:
    """``message`` as messages; ``index``, its place in a list, is named in any error."""
    if isinstance(message, LangMessage):
        return [message]
    where = "message" if index is None else f"message {index}"
    if not isinstance(message, Mapping):
        hint = (
            " (a prompt list holds only str, Image and Document)" if is_prompt_item(message) else ""
        )
        raise ConfigError(
            f"{where} must be a LangMessage or a message dict, not {type(message).__name__}{hint}"
        )
    try:
        return messages_from_dict(message)
    except ConfigError as exc:
        if index is None:
            raise
        raise ConfigError(f"{where}: {exc}") from exc


def opening(given: object) -> tuple[str, LangMessages]:
    """The prompt and the conversation a run starts from, given a prompt or a conversation.

    A prompt is a ``str``, or a list of ``str``, ``Image`` and ``Document`` (see
    ``_content.is_prompt``): one user message of those parts, in order; its text is the
    prompt. The prompt of a conversation is its last user message's text.

    Raises:
        ConfigError: ``given`` is neither, an item of a prompt list is not one of the three,
            or a message cannot be read; the error names the item or message by its index.
    """
    if is_prompt(given):
        parts = prompt_parts(given)
        return parts_text(parts), LangMessages([LangMessage("user", list(parts))])
    if not isinstance(given, Iterable) or isinstance(given, (bytes, bytearray, Mapping)):
        raise ConfigError(
            "expected a prompt string or a conversation (a list of LangMessage or message "
            f"dicts), not {type(given).__name__}"
        )
    conversation = LangMessages(given)
    users = [m for m in conversation if m.role == "user"]
    return (users[-1].content if users else ""), conversation


def messages_from_jsonable(obj: Any) -> LangMessages:
    """The conversation a document holds (``LangMessages.from_jsonable``)."""
    return LangMessages.from_jsonable(obj)


def messages_from_dict(data: Mapping[str, Any]) -> list[LangMessage]:
    """The messages one message dict holds (several for a user turn of tool results).

    Raises:
        ConfigError: The dict cannot be read (see ``message_dicts``).
    """
    return [LangMessage(**fields) for fields in read_message_dict(data)]
