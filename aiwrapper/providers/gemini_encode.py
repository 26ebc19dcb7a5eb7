"""Request bodies for the Gemini wire (Generative Language API and Vertex AI).

Owns the translation of a neutral ``ProviderRequest`` into a ``generateContent`` body
(protocols.md §3.1-3.6): ``contents`` with an explicit ``user``/``model`` role on every entry,
``systemInstruction``, ``functionDeclarations``, ``toolConfig`` and ``generationConfig``, and the
replay of thought signatures on the exact part they came with. URLs, headers and error mapping
live in ``gemini.py``; decoding answers lives in ``gemini_decode.py``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..messages import (
    LangMessage,
    OpaquePart,
    Part,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ..result import FunctionCall
from .base import ProviderRequest, tool_choice

if TYPE_CHECKING:
    from ..options import LangOptions

__all__ = ["PROVIDER", "SKIP_SIGNATURE", "encode_body", "encode_thinking"]

PROVIDER = "gemini"
SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The documented placeholder signature for function calls Gemini never produced (§3.6)."""

_LEVELS = ("minimal", "low", "medium", "high")
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}

# call id -> (the call, whether Gemini itself issued that id)
_CallIndex = dict[str, tuple[FunctionCall, bool]]


def encode_body(request: ProviderRequest, *, dialect: str) -> dict[str, Any]:
    """The JSON body of a ``generateContent`` / ``streamGenerateContent`` request.

    Args:
        request: The round to encode.
        dialect: The tool schema dialect, ``"gemini"`` or ``"gemini-json"``.

    Raises:
        ConfigError: An option Gemini cannot honour (see ``encode_tool_config``,
            ``encode_thinking``, and ``parallel_tool_calls=False``).
    """
    options = request.options
    _check_parallel(options)
    body: dict[str, Any] = {"contents": encode_contents(request.messages)}
    system = encode_system(request.messages)
    if system is not None:
        body["systemInstruction"] = system
    names = [tool.name for tool in request.tools]
    if request.tools:
        declarations = [tool.schema_for(dialect) for tool in request.tools]
        body["tools"] = [{"functionDeclarations": declarations}]
    tool_config = encode_tool_config(options, names)
    if tool_config is not None:
        body["toolConfig"] = tool_config
    generation = encode_generation_config(options)
    if generation:
        body["generationConfig"] = generation
    body.update(options.extra_body or {})  # extra_body is a shallow merge, applied last
    return body


def _check_parallel(options: LangOptions) -> None:
    # §3.3: Gemini has no switch for parallel calls. Dropping the user's explicit False would
    # be a silent downgrade, so refuse it; ``parallel=False`` still runs calls one by one.
    if options.parallel_tool_calls is False:
        raise ConfigError(
            "Gemini has no way to forbid parallel function calls (parallel_tool_calls=False); "
            "leave parallel_tool_calls unset, or use parallel=False to run calls one at a time"
        )


def encode_system(messages: Sequence[LangMessage]) -> dict[str, Any] | None:
    """``systemInstruction`` from every system message, or None when there is none."""
    parts = [{"text": m.content} for m in messages if m.role == "system" and m.content]
    return {"parts": parts} if parts else None


def encode_contents(messages: Sequence[LangMessage]) -> list[dict[str, Any]]:
    """``contents``: user and model turns; consecutive tool results become ONE user content."""
    calls = _index_calls(messages)
    contents: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            responses.append(_function_response(message, calls))
            continue
        if responses:
            # §3.5: all responses of a turn go back in one user content, in call order.
            contents.append({"role": "user", "parts": responses})
            responses = []
        if message.role == "user":
            contents.append({"role": "user", "parts": _user_parts(message)})
        elif message.role == "assistant":
            parts = _model_parts(message)
            if parts:  # an empty parts list is a 400; a turn of only foreign thinking vanishes
                contents.append({"role": "model", "parts": parts})
    if responses:
        contents.append({"role": "user", "parts": responses})
    return contents


def _user_parts(message: LangMessage) -> list[dict[str, Any]]:
    parts = [{"text": p.text} for p in message.parts if isinstance(p, TextPart)]
    return parts or [{"text": ""}]


def _is_gemini_turn(message: LangMessage) -> bool:
    """Whether Gemini produced this turn: some part carries Gemini state.

    The decoder marks every function call Gemini makes with Gemini state (a signature, or an
    empty marker), so any turn with Gemini calls qualifies.
    """
    return any(p.state is not None and p.state.provider == PROVIDER for p in message.parts)


def _signature(state: ProviderState | None) -> str | None:
    if state is None or state.provider != PROVIDER:
        return None
    value = state.data.get("thoughtSignature")
    return value if isinstance(value, str) else None


def _model_parts(message: LangMessage) -> list[dict[str, Any]]:
    gemini_turn = _is_gemini_turn(message)
    needs_placeholder = not gemini_turn
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        encoded = _model_part(part, gemini_turn)
        if encoded is None:
            continue
        if needs_placeholder and "functionCall" in encoded:
            # §3.6: calls Gemini never produced get the documented dummy signature on the
            # first call part of the turn, or Gemini 3 rejects the history.
            encoded["thoughtSignature"] = SKIP_SIGNATURE
            needs_placeholder = False
        parts.append(encoded)
    return parts


def _model_part(part: Part, gemini_turn: bool) -> dict[str, Any] | None:
    match part:
        case TextPart():
            return _with_signature({"text": part.text}, part.state, keep_empty=False)
        case ThinkingPart():
            # Thought summaries are replayed only to Gemini, and only when they are Gemini's.
            foreign = part.state is not None and part.state.provider != PROVIDER
            if not gemini_turn or foreign:
                return None
            return _with_signature({"text": part.text, "thought": True}, part.state)
        case ToolCallPart():
            return _with_signature(_function_call(part.call, gemini_turn), part.state)
        case OpaquePart():
            raw = part.state.data.get("part") if part.state.provider == PROVIDER else None
            return dict(raw) if isinstance(raw, dict) else None
    return None  # pragma: no cover - Part is a closed union


def _with_signature(
    encoded: dict[str, Any], state: ProviderState | None, *, keep_empty: bool = True
) -> dict[str, Any] | None:
    # §3.6: a signature goes back unchanged on the very part it arrived with, even when that
    # part's text is empty (the final streamed chunk of a text answer).
    signature = _signature(state)
    if signature is not None:
        encoded["thoughtSignature"] = signature
    elif not keep_empty and not encoded.get("text"):
        return None
    return encoded


def _function_call(call: FunctionCall, gemini_turn: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"name": call.name, "args": call.arguments}
    if gemini_turn and not call.synthetic_id:
        # §5.3: never send Gemini an id it did not issue.
        body = {"id": call.id, **body}
    return {"functionCall": body}


def _index_calls(messages: Sequence[LangMessage]) -> _CallIndex:
    index: _CallIndex = {}
    for message in messages:
        if message.role != "assistant":
            continue
        gemini_turn = _is_gemini_turn(message)
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                call = part.call
                index[call.id] = (call, gemini_turn and not call.synthetic_id)
    return index


def _function_response(message: LangMessage, calls: _CallIndex) -> dict[str, Any]:
    call, issued = calls.get(message.tool_call_id or "", (None, False))
    name = message.name or (call.name if call is not None else None)
    if not name:
        raise ConfigError(
            f"tool result {message.tool_call_id!r} names no function; "
            "Gemini needs the function name in every functionResponse"
        )
    # §3.5: ``response`` must be a JSON object: {"output": ...} or {"error": ...}.
    if message.is_error:
        response: dict[str, Any] = {"error": message.content}
    else:
        response = {"output": _json_or_text(message.content)}
    body: dict[str, Any] = {"name": name, "response": response}
    if issued:
        body = {"id": message.tool_call_id, **body}
    return {"functionResponse": body}


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def encode_tool_config(options: LangOptions, names: Sequence[str]) -> dict[str, Any] | None:
    """``toolConfig.functionCallingConfig`` from ``function_call`` (§3.3), or None when unset.

    Raises:
        ConfigError: A call is forced but no tools are sent, or the named tool is not sent.
    """
    choice = tool_choice(options.function_call)
    if choice is None:
        return None
    if not names:
        if choice.mode in ("auto", "none"):
            return None  # nothing to call: the mode is moot, and toolConfig alone is noise
        raise ConfigError(f"function_call={options.function_call!r} but no functions were given")
    if choice.mode == "named":
        if choice.name not in names:
            raise ConfigError(
                f"function_call names {choice.name!r}, which is not among the functions "
                f"given: {', '.join(names)}"
            )
        config: dict[str, Any] = {"mode": "ANY", "allowedFunctionNames": [choice.name]}
    else:
        config = {"mode": _MODES[choice.mode]}
    return {"functionCallingConfig": config}


def encode_generation_config(options: LangOptions) -> dict[str, Any]:
    """``generationConfig``: sampling, output cap, stop sequences and thinking."""
    config: dict[str, Any] = {}
    if options.temperature is not None:
        config["temperature"] = options.temperature
    if options.max_tokens is not None:
        config["maxOutputTokens"] = options.max_tokens
    if options.top_p is not None:
        config["topP"] = options.top_p
    if options.stop is not None:
        stop = options.stop
        config["stopSequences"] = [stop] if isinstance(stop, str) else list(stop)
    thinking = encode_thinking(options.thinking)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    return config


def encode_thinking(value: object) -> dict[str, Any] | None:
    """``thinkingConfig`` for the ``thinking`` option (§3.6).

    ``True`` asks for thought summaries with the model's default thinking; an int is a
    ``thinkingBudget`` (Gemini 2.5; ``-1`` dynamic); ``"minimal"``/``"low"``/``"medium"``/
    ``"high"`` is a ``thinkingLevel`` (Gemini 3). Budget and level are never both sent (400).
    ``False`` or ``0`` sends ``thinkingBudget: 0``, Gemini's way to switch thinking off, without
    ``includeThoughts`` (there are no thoughts to include).

    Raises:
        ConfigError: A string that is not a thinking level.
    """
    if value is None:
        return None
    if value is True:
        return {"includeThoughts": True}
    if value is False or value == 0:
        return {"thinkingBudget": 0}
    if isinstance(value, int):
        return {"includeThoughts": True, "thinkingBudget": value}
    if isinstance(value, str) and value.lower() in _LEVELS:
        return {"includeThoughts": True, "thinkingLevel": value.upper()}
    raise ConfigError(
        f"thinking={value!r} is not valid for Gemini: use True, a token budget (int), "
        f"or one of {', '.join(_LEVELS)}"
    )
