"""Stand-in for the conversation document (``aiwrapper._conversation._document``) until it lands.

TEMPORARY: the portable message dicts, enough for text, calls and results; replaced by the
real document, which keeps opaque provider state, media and calls whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._conversation._messages import LangMessage, LangMessages

__all__ = ["messages_from_jsonable", "messages_to_jsonable"]


def messages_to_jsonable(messages: Iterable[LangMessage]) -> dict[str, Any]:
    """The versioned document of ``messages``."""
    return {"aiwrapper": 1, "messages": [m.to_dict() for m in messages]}


def messages_from_jsonable(data: Any) -> LangMessages:
    """The messages of a document ``messages_to_jsonable`` wrote."""
    return LangMessages(data["messages"])
