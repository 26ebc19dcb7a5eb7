"""Stand-in for the conversation document (``aiwrapper._conversation._document``) until it lands.

TEMPORARY: the portable message dicts, with what became of each call, enough for text, calls
and results; replaced by the real document, which keeps opaque provider state and media too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._conversation._messages import LangMessage, LangMessages
from .._conversation._serialize import to_jsonable

__all__ = ["messages_from_jsonable", "messages_to_jsonable"]


def messages_to_jsonable(messages: Iterable[LangMessage]) -> dict[str, Any]:
    """The versioned document of ``messages``."""
    return {"aiwrapper": 1, "messages": [_message(m) for m in messages]}


def messages_from_jsonable(data: Any) -> LangMessages:
    """The messages of a document ``messages_to_jsonable`` wrote."""
    messages = LangMessages(data["messages"])
    for message, source in zip(messages, data["messages"], strict=False):
        for call, fate in zip(message.tool_calls, source.get("calls", ()), strict=False):
            call.status, call.result, call.error = fate
    return messages


def _message(message: LangMessage) -> dict[str, Any]:
    out = message.to_dict()
    if message.tool_calls:
        out["calls"] = [[c.status, to_jsonable(c.result), c.error] for c in message.tool_calls]
    return out
