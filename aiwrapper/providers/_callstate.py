"""A call's provider state, carried to the client inside the call's id and back again.

Some backends need state of a call on the next turn (a thought signature, without which a
backend may refuse the replayed call). The gateway keeps nothing between requests,
but every client echoes a call's id unchanged, in the assistant message and in the tool
result, so the state rides there: ``<id>__aws_<base64url of JSON>``. Calls without state keep
their own ids. An id that does not unpack is kept as it is (a client's own id, say). The same
packing (``packed``/``unpacked``) carries other state a client echoes unchanged, such as the
state of a reasoning item on the Responses wire.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from .._conversation._messages import LangMessages, ProviderState, ToolCallPart
from .._conversation._result import FunctionCall, LangResult
from ._serving import turn_parts

__all__ = ["call_part", "packed", "packed_id", "unpack_calls", "unpacked"]

_MARK = "__aws_"


def packed_id(call_id: str, part: ToolCallPart | None) -> str:
    """``call_id`` with the part's provider state packed in (as is when it has none).

    An empty state on a made-up id (a backend's marker of its own calls, on a call it gave
    no id) is not worth the longer id: without it the backend treats the call as any other
    provider's, which is all it would do with the call anyway.
    """
    if part is None or part.state is None:
        return call_id
    if not part.state.data and part.call.synthetic_id:
        return call_id
    return call_id + packed(part.state, s=part.call.synthetic_id)


def packed(state: ProviderState, **extra: Any) -> str:
    """``state`` (and ``extra`` keys) as ``__aws_<base64url of JSON>``."""
    fields = {"p": state.provider, "d": state.data, **extra}
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return _MARK + base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def unpacked(text: str) -> dict[str, Any] | None:
    """The fields ``packed`` wrote (``p``, ``d`` and the extras), or ``None`` for other text."""
    if not text.startswith(_MARK):
        return None
    encoded = text[len(_MARK) :]
    try:
        decoded = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")
        state = json.loads(decoded)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(state, dict) or not isinstance(state.get("d"), dict) or "p" not in state:
        return None
    return state


def unpack_calls(messages: LangMessages) -> None:
    """Restore, in place, the ids and provider state packed into the conversation's calls."""
    for message in messages:
        if message.tool_call_id:
            message.tool_call_id = _unpacked(message.tool_call_id)[0]
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                call_id, state = _unpacked(part.call.id)
                if state is not None:
                    part.call.id, part.call.provider = call_id, str(state["p"])
                    part.call.synthetic_id = bool(state.get("s"))
                    part.state = ProviderState(str(state["p"]), dict(state["d"]))


def call_part(result: LangResult, call: FunctionCall) -> ToolCallPart | None:
    """The part holding ``call`` in the turn being streamed (or the turn just finished)."""
    for part in turn_parts(result):
        if isinstance(part, ToolCallPart) and part.call is call:
            return part
    return None


def _unpacked(call_id: str) -> tuple[str, dict[str, Any] | None]:
    original, mark, encoded = call_id.partition(_MARK)
    state = unpacked(mark + encoded) if mark else None
    return (original, state) if state is not None else (call_id, None)
