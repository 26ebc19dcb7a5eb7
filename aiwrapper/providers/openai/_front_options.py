"""The keys a Chat Completions client may set inside ``tool_choice``, ``stream_options`` and
``response_format``.

Like the keys of messages and tools (``_front_keys``), each key inside these option objects
is read, or refused with a 400 naming its path (``tool_choice.function.zzz``,
``stream_options.foo``), never dropped. A named ``tool_choice`` is ``{"type": "function",
"function": {"name": ...}}``; the other kinds (``allowed_tools``, ``custom``) are refused where
it is read. ``stream_options.include_usage`` asks for the closing usage chunk;
``include_obfuscation`` asks for random padding on each chunk, which this gateway never adds,
so ``false`` is served and ``true`` refused by name. ``response_format`` is served only as
``{"type": "text"}``: any other is refused where it is read. ``logprobs`` (true or false) and
``top_logprobs`` (0 to 20, only with ``logprobs: true``) are checked as OpenAI checks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._front_fields import check_flag, refuse_extra, refuse_value
from .._serving import bad_request, check_number, check_type

__all__ = ["check_options", "check_stream_options", "read_logprobs", "read_top_logprobs"]

_MOST_ALTERNATIVES = 20  # top_logprobs

_CHOICE = frozenset({"type", "function"})
_CHOICE_FUNCTION = frozenset({"name"})
_STREAM_OPTIONS = frozenset({"include_usage", "include_obfuscation"})
_TEXT_FORMAT = frozenset({"type"})
_NO_PADDING = "no obfuscation padding is added to the chunks; leave it out or false"


def check_options(body: Mapping[str, Any]) -> bool:
    """A 400 naming the first key inside an option object of ``body`` that is not read.

    Returns:
        Whether ``stream_options`` asks for the closing usage chunk.
    """
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type", "function") == "function":
        refuse_extra(choice, _CHOICE, "tool_choice")
        function = choice.get("function")
        if isinstance(function, Mapping):
            refuse_extra(function, _CHOICE_FUNCTION, "tool_choice.function")
    wanted = body.get("response_format")
    if isinstance(wanted, Mapping) and wanted.get("type") == "text":
        refuse_extra(wanted, _TEXT_FORMAT, "response_format")
    return check_stream_options(body, _STREAM_OPTIONS)


def check_stream_options(body: Mapping[str, Any], known: frozenset[str]) -> bool:
    """``stream_options`` (the keys ``known`` on this wire) checked; whether it asks for usage.

    Both OpenAI wires share ``include_obfuscation``; only Chat Completions has
    ``include_usage`` (Responses streams always end with their usage).
    """
    options = body.get("stream_options")
    if not isinstance(options, Mapping):
        return False  # absent; a wrong type is refused where the field is read
    refuse_extra(options, known, "stream_options")
    check_flag(options, "include_obfuscation", "stream_options")
    refuse_value(options, "include_obfuscation", "stream_options", (False,), _NO_PADDING)
    return bool(check_flag(options, "include_usage", "stream_options"))


def read_logprobs(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``logprobs`` and ``top_logprobs`` options, or a 400 naming the field at fault."""
    logprobs = check_type(body, "logprobs", bool)
    top = read_top_logprobs(body)
    if top is not None and logprobs is not True:
        raise bad_request("'top_logprobs' needs 'logprobs' set to true", "top_logprobs")
    return {"logprobs": logprobs, "top_logprobs": top}


def read_top_logprobs(body: Mapping[str, Any]) -> int | None:
    """``top_logprobs``, an integer from 0 to 20 on both OpenAI APIs, or a 400 naming it."""
    top = check_number(body, "top_logprobs", integer=True)
    if top is not None and not 0 <= top <= _MOST_ALTERNATIVES:
        message = (
            f"'top_logprobs' must be an integer from 0 to {_MOST_ALTERNATIVES}, not {top!r:.80}"
        )
        raise bad_request(message, "top_logprobs")
    return top  # type: ignore[no-any-return]
