"""A call's provider state, carried to the client inside the call's id and back again.

Some backends need state of a call on the next turn (a thought signature, without which a
backend may refuse the replayed call). The gateway keeps nothing between requests,
but every client echoes a call's id unchanged, in the assistant message and in the tool
result, so the state rides there: ``<id>__aws_<base64url of JSON>``. Calls without state keep
their own ids. The same packing (``packed``/``unpacked``) carries other state a client echoes
unchanged, such as the state of a reasoning item on the Responses wire.

What comes back is replayed upstream, so a client must not be able to write it: each packing
ends in an HMAC-SHA256 tag (truncated to 128 bits) over the JSON and the id it belongs to,
keyed by a secret of this process (random at start; set ``AIWRAPPER_STATE_SECRET`` to share
one between workers or replicas). Text after the mark whose tag does not verify, forged or
tampered with or packed by another secret, is a 400, never replayed; an id without the mark
is a client's own and kept as it is.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
from typing import Any

from .._conversation._messages import LangMessages, ProviderState, ToolCallPart
from .._conversation._result import FunctionCall, LangResult
from ._serving import bad_request, turn_parts

__all__ = ["call_part", "packed", "packed_id", "unpack_calls", "unpacked"]

_MARK = "__aws_"
_TAG_CHARS = 22  # 16 bytes of HMAC-SHA256 in unpadded base64url
_SECRET_VARIABLE = "AIWRAPPER_STATE_SECRET"


def _load_secret() -> bytes:
    configured = os.environ.get(_SECRET_VARIABLE, "")
    return configured.encode("utf-8") if configured.strip() else secrets.token_bytes(32)


_SECRET = _load_secret()  # fixed for the life of the process: never reassigned


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
    return call_id + packed(part.state, bound=_CALL + call_id, s=part.call.synthetic_id)


def packed(state: ProviderState, *, bound: str = "", **extra: Any) -> str:
    """``state`` (and ``extra`` keys) as ``__aws_<base64url of JSON><tag>``.

    The tag covers ``bound`` too (the id the state rides on), so state cannot move to
    another call.
    """
    fields = {"p": state.provider, "d": state.data, **extra}
    data = json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return _MARK + _b64(data) + _tag(bound, data)


def unpacked(text: str, *, bound: str = "") -> dict[str, Any] | None:
    """The fields ``packed`` wrote (``p``, ``d`` and the extras); ``None`` for text without
    the mark.

    Raises:
        GatewayError: A 400: the text has the mark but not a valid tag from this secret.
    """
    if not text.startswith(_MARK):
        return None
    encoded, tag = text[len(_MARK) : -_TAG_CHARS], text[-_TAG_CHARS:]
    try:
        data = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        expected = _tag(bound, data).encode("ascii")
        given = tag.encode("utf-8", "surrogatepass")  # bytes: a non-ASCII tag is just wrong
        valid = len(text) > len(_MARK) + _TAG_CHARS and hmac.compare_digest(given, expected)
        state = json.loads(data.decode("utf-8")) if valid else None
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise _forged() from exc
    if not isinstance(state, dict) or not isinstance(state.get("d"), dict) or "p" not in state:
        raise _forged()
    return state


def _forged() -> Exception:
    message = "a call id or encrypted_content holds state this gateway did not write"
    return bad_request(message, None)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


# A call's state is signed with the call's id under this label, a reasoning item's without
# one: state signed for one purpose never verifies for the other.
_CALL = "call\0"


def _tag(bound: str, data: bytes) -> str:
    signed = bound.encode("utf-8", "surrogatepass") + b"\0" + data
    return _b64(hmac.new(_SECRET, signed, hashlib.sha256).digest()[:16])


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
    state = unpacked(mark + encoded, bound=_CALL + original) if mark else None
    return (original, state) if state is not None else (call_id, None)
