"""The Chat Completions request body: messages, tools, tool choice, sampling, output format.

This module owns the encoding side of the wire for every server profile: the ids replayed
calls carry, which tool choices a server can enforce, and the assistant turns sent back with
this server's own opaque keys. Images and documents in user messages and tool results are
written by ``_content``. ``_provider.py`` assembles the body from these parts.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ... import _errors as errors
from ..._conversation._messages import LangMessage, TextPart, ThinkingPart, ToolCallPart
from ..._run._contract import ProviderRequest, ToolChoice
from ..._run._output import OutputSpec
from ..._tools.decorator import read_only_schema
from .._base import error_result_text, extra_sampling, refuse_unenforceable
from ._content import follow_up, tool_text, user_content
from ._profiles import OpenAIProfile

if TYPE_CHECKING:
    from ..._run._options import LangOptions

__all__ = [
    "call_ids",
    "encode_messages",
    "encode_response_format",
    "encode_sampling",
    "encode_tools",
    "wire_call_id",
]

_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
_OPENAI_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _base62(text: str, length: int) -> str:
    number = int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")
    out = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        out.append(_ALPHABET[digit])
    return "".join(out)


def wire_call_id(profile: OpenAIProfile, call_id: str) -> str:
    """The id to send for ``call_id``: kept when the server accepts it, else a stable hash.

    The mapping is deterministic, so an assistant call and its tool result stay paired.
    """
    style = profile.tool_call_id_style
    if style == "mistral9":
        return call_id if _MISTRAL_ID.fullmatch(call_id) else _base62(call_id, 9)
    if style == "openai40":
        return call_id if _OPENAI_ID.fullmatch(call_id) else "call_" + _base62(call_id, 24)
    return call_id


def call_ids(profile: OpenAIProfile, messages: Sequence[LangMessage]) -> dict[str, str]:
    """The id to send for each call of the conversation, shared by the call and its result.

    Ids this server issued go back verbatim; others (Gemini ``function-call-<uuid>``,
    Anthropic ``toolu_...``, made-up ones) are kept when they fit the server's id rule and
    mapped to a stable id that does otherwise (OpenAI refuses ids over 40 characters).
    """
    ids: dict[str, str] = {}
    for message in messages:
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            own = call.provider == profile.name and not call.synthetic_id
            ids[call.id] = call.id if own else wire_call_id(profile, call.id)
    return ids


def encode_response_format(output: OutputSpec) -> dict[str, Any]:
    """``response_format`` for structured output: a named JSON schema, strict when lossless.

    The schema goes through the same strict post-pass as a tool's parameters; when that would
    lose a rule (a length bound, a free-form dict), it is sent without ``strict``.
    """
    function = output.tool.schema_for("openai")["function"]
    json_schema: dict[str, Any] = {"name": output.name, "schema": function["parameters"]}
    if function.get("strict"):
        json_schema["strict"] = True
    return {"type": "json_schema", "json_schema": json_schema}


def encode_sampling(profile: OpenAIProfile, options: LangOptions, body: dict[str, Any]) -> None:
    """The sampling options into ``body``, in place (the output cap under the profile's field)."""
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.top_p is not None:
        body["top_p"] = options.top_p
    if options.max_tokens is not None:
        body[profile.max_tokens_field] = options.max_tokens
    if options.stop is not None:
        body["stop"] = options.stop if isinstance(options.stop, str) else list(options.stop)
    body.update(extra_sampling(options, profile.name, _EXTRA_SAMPLING))


def encode_tools(profile: OpenAIProfile, request: ProviderRequest, body: dict[str, Any]) -> None:
    """``tools``, ``tool_choice`` and ``parallel_tool_calls`` into ``body``, in place.

    Raises:
        ConfigError: A choice or switch this server cannot honour (``refuse_unenforceable``).
    """
    tools, options, choice = request.tools, request.options, request.tool_choice
    refuse_unenforceable(
        profile.name,
        choice,
        options,
        forces_calls=profile.supports_tool_choice,
        forbids_parallel_calls=profile.supports_parallel_tool_calls,
    )
    if choice is not None and choice.mode == "none" and not profile.supports_tool_choice:
        return  # no tool_choice on this server: "none" is said by sending no tools
    if choice is not None and choice.mode == "named" and not profile.supports_named_tool_choice:
        # The server serves a named choice as "auto": offer only that tool, and require a
        # call, which forces the same call.
        tools = [t for t in tools if t.name == choice.name]
        choice = ToolChoice("required")
    declarations = []
    strict = False
    for t in tools:  # one pass: the declarations, and whether one is declared strict
        declarations.append(read_only_schema(t, "openai"))
        strict = strict or t.strict is True
    body["tools"] = declarations
    if choice is not None and profile.supports_tool_choice:
        body["tool_choice"] = _wire_tool_choice(choice)
    parallel = options.parallel_tool_calls
    if parallel is None and strict:
        # Strict mode is documented as incompatible with parallel calls (a parallel call
        # may not match its schema). A user who asked for strict wants that guarantee, so
        # parallel calls go off; strict picked automatically (strict=None, lossless)
        # keeps them on, since every call is validated here anyway.
        parallel = False
    if parallel is not None and profile.supports_parallel_tool_calls:
        body["parallel_tool_calls"] = parallel


def encode_messages(
    profile: OpenAIProfile, messages: Sequence[LangMessage]
) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages, call ids fitted to the server.

    A turn's tool results that hold images or documents are followed by one user message
    carrying those (``_content.follow_up``): a tool message takes text only.
    """
    ids = call_ids(profile, messages)
    out: list[dict[str, Any]] = []
    turn: list[tuple[str, LangMessage]] = []  # the run of tool messages being written
    for message in messages:
        if message.role != "tool" and turn:
            _close_turn(out, turn)
        out.append(_encode_message(profile, message, ids))
        if message.role == "tool":
            turn.append((out[-1]["tool_call_id"], message))
    if turn:
        _close_turn(out, turn)
    return out


def _close_turn(out: list[dict[str, Any]], turn: list[tuple[str, LangMessage]]) -> None:
    """Add the turn's follow-up user message, if its results hold media, and start anew."""
    message = follow_up(turn)
    if message is not None:
        out.append(message)
    turn.clear()


def _encode_message(
    profile: OpenAIProfile, message: LangMessage, ids: Mapping[str, str]
) -> dict[str, Any]:
    if message.role == "assistant":
        return _encode_assistant(profile, message, ids)
    if message.role == "tool":
        return _encode_result(profile, message, ids)
    if message.role == "user":
        return {"role": "user", "content": user_content(message)}
    return {"role": message.role, "content": message.content}


def _encode_result(
    profile: OpenAIProfile, message: LangMessage, ids: Mapping[str, str]
) -> dict[str, Any]:
    call_id = message.tool_call_id
    if not call_id:  # the wire pairs a result with its call by id alone
        raise errors.ConfigError(f"a tool result needs the tool_call_id of its call: {message!r}")
    content = tool_text(message)  # text only: its images and documents follow the turn
    if message.is_error:  # no error flag on this wire: the error is said in the text
        content = error_result_text(content, message.error_type)
    wire_id = ids.get(call_id) or wire_call_id(profile, call_id)
    return {"role": "tool", "tool_call_id": wire_id, "content": content}


def _encode_assistant(
    profile: OpenAIProfile, message: LangMessage, ids: Mapping[str, str]
) -> dict[str, Any]:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    replay: dict[str, Any] = {}  # this server's own opaque keys, sent back verbatim
    # An assistant message here holds text and calls only: an image the model made (another
    # provider's) stays in the conversation but is not sent back.
    for part in message.parts:
        own = part.state is not None and part.state.provider == profile.name
        if isinstance(part, ToolCallPart):
            calls.append(_encode_call(part, own, ids))
            continue
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ThinkingPart) and (own or part.state is None):
            thinking.append(part.text)
        if own and part.state is not None:
            _merge_replay(replay, part.state.data)
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        out["tool_calls"] = calls
        echo = profile.reasoning_echo_field
        if echo and (thinking or profile.reasoning_echo_required):
            out[echo] = "".join(thinking)
    elif out["content"] is None:
        out["content"] = ""  # an assistant message needs content or tool_calls
    out.update(replay)
    return out


def _encode_call(part: ToolCallPart, own: bool, ids: Mapping[str, str]) -> dict[str, Any]:
    call = part.call
    entry: dict[str, Any] = {
        "id": ids[call.id],
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json()},
    }
    if own and part.state is not None:
        entry.update(part.state.data)  # e.g. Gemini-compat extra_content, verbatim
    return entry


def _wire_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.mode == "named":
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode


# Kept for the user but never sent back: a Chat Completions assistant message has no
# ``annotations`` field, and strict servers (Groq) reject message fields they do not know.
# Chat Completions has no top_k (compatible servers that take one get it through extra_body).
_EXTRA_SAMPLING = {
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "logit_bias": "logit_bias",
    "user": "user",
    "logprobs": "logprobs",
    "top_logprobs": "top_logprobs",
}
_KEPT_NOT_SENT = frozenset({"annotations"})


def _merge_replay(replay: dict[str, Any], data: Mapping[str, Any]) -> None:
    for key, value in data.items():
        if key in _KEPT_NOT_SENT:
            continue
        if key == "reasoning_details" and key in replay:
            replay[key] = [*replay[key], *value]
        else:
            replay[key] = value
