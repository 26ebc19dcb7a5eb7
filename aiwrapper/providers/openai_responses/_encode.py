"""Encoding a round as a Responses API request body (``POST {base}/responses``).

The conversation travels whole in ``input`` on every request (``store: false``; no
``previous_response_id``), so ``result.messages`` stays self-sufficient and can be edited or
moved to another provider. An assistant turn this provider made for the same model is replayed
as the output items it kept (reasoning with its ``encrypted_content``, then message and
``function_call`` items with their ids, in their order), because OpenAI pairs a call with the
reasoning item before it by id. Any other turn is sent without ids and without reasoning:
its text as an assistant message, its calls by ``call_id`` alone. User messages and tool
results that hold images or documents go as lists of content parts (``_media.py``). Tools go
in the flat function shape with ``strict`` always explicit (left out, the API picks strict when
it can). Token log probabilities are asked for with the ``message.output_text.logprobs``
entry of ``include`` and the top-level ``top_logprobs``. Which server quirks apply is the Chat
Completions profile's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ... import _errors as errors
from ..._conversation._messages import LangMessage, OpaquePart, TextPart, ToolCallPart
from ..._knowledge._modelrules import thinking_effort
from ..._run._contract import ProviderRequest
from ..._run._options import LangOptions
from ..._run._output import OutputSpec, output_spec
from ..._tools import Tool
from ..._wire._jsontext import Declaration
from .._base import (
    error_result_text,
    extra_sampling,
    merge_extra_body,
    result_text,
    sampling_fields,
)
from ..openai._cache import add_cache_fields
from ..openai._encode import call_ids, encode_tools, wire_call_id
from ..openai._profiles import OPENAI_PROFILE, OpenAIProfile
from ..openai._rules import rules_for
from ._logprobs import INCLUDE
from ._media import content_parts, has_media

__all__ = ["flat_tool", "request_body"]

# The smallest max_output_tokens the API takes.
_MIN_OUTPUT_TOKENS = 16
# The extra sampling options this wire has (logprobs go into ``include``, not as a key).
_EXTRA = {"user": "user", "logprobs": "logprobs", "top_logprobs": "top_logprobs"}
# A dated snapshot ("o3-2025-04-16") answers for its alias ("o3"): the same model.
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def request_body(
    request: ProviderRequest, profile: OpenAIProfile, *, openai: bool
) -> dict[str, Any]:
    """The JSON body for one round.

    Args:
        request: The round.
        profile: The server's quirks; its ``name`` is this provider's (kept items carry it).
        openai: OpenAI itself, where reasoning items are replayed with their encrypted content
            (compatible servers refuse it, or have none).

    Raises:
        ConfigError: ``stop`` is set (the API has no stop sequences), or a tool choice this
            server cannot enforce.
    """
    options = request.options
    if options.stop is not None:
        raise errors.ConfigError(
            "the Responses API has no stop sequences: leave the stop option unset, or use "
            "api='chat' (Chat Completions) for them"
        )
    instructions, conversation = _instructions(request.messages)
    model = request.model if openai else None  # no replayed items toward compatible servers
    body: dict[str, Any] = {"model": request.model}
    if instructions:
        body["instructions"] = instructions
    body["input"] = encode_input(conversation, profile, model=model)
    body["store"] = False  # stateless: the whole history is sent every time
    if openai and rules_for(OPENAI_PROFILE.name, request.model).get("reasoning") is not False:
        # Without it a reasoning item comes back without its encrypted content, and with
        # store false the next request's replay of it fails (404 "Item ... not found").
        body["include"] = ["reasoning.encrypted_content"]
    if request.tools:
        _encode_tools(request, profile, body)
    if options.native_tools:  # the server's own tool types, beside the functions
        body["tools"] = [*body.get("tools", ()), *options.native_tools]
    _encode_sampling(options, body)
    output = output_spec(options.output_type)
    if output is not None:
        body["text"] = {"format": text_format(output)}
    if request.stream:
        body["stream"] = True
        if openai:  # padding on every delta, on by default: nothing to read in it
            body["stream_options"] = {"include_obfuscation": False}
    merge_extra_body(body, options.extra_body)
    if profile.prompt_cache:  # after extra_body: a key set there is kept
        add_cache_fields(body, options.cache, conversation="input")
    return body


def flat_tool(tool: Tool) -> dict[str, Any]:
    """A tool in the Responses shape: the Chat Completions function, flattened."""
    return _flat(tool.schema_for("openai")["function"])


def _flat_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool entry flattened; a shared declaration's flat form is shared."""
    if isinstance(entry, Declaration):
        return entry.derived("responses", lambda shared: _flat(shared["function"]))
    return _flat(entry["function"])


def _flat(function: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {"type": "function", "name": function["name"]}
    if function.get("description"):
        flat["description"] = function["description"]
    flat["parameters"] = function["parameters"]
    # Omitted, strict means "strict when the schema allows": said explicitly, it is strict
    # exactly when the schema converts without loss.
    flat["strict"] = bool(function.get("strict"))
    return flat


def text_format(output: OutputSpec) -> dict[str, Any]:
    """``text.format`` for structured output: the flat form of a named JSON schema."""
    function = output.tool.schema_for("openai")["function"]
    return {
        "type": "json_schema",
        "name": output.name,
        "schema": function["parameters"],
        "strict": bool(function.get("strict")),
    }


def encode_input(
    messages: Sequence[LangMessage], profile: OpenAIProfile, *, model: str | None
) -> list[dict[str, Any]]:
    """The ``input`` items for ``messages`` (system messages after the first user turn too).

    ``model`` is the model asked now: assistant turns it made are replayed as their kept
    items; ``None`` replays none.
    """
    ids = call_ids(profile, messages)
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            kept = _kept_items(message, profile.name, model)
            items += kept if kept is not None else _assistant(message, ids)
        elif message.role == "tool":
            items.append(_result(message, ids, profile))
        else:
            items.append(_message(message))
    return items


def _message(message: LangMessage) -> dict[str, Any]:
    """A user (or later system) message: its text as a string, its parts when it holds media.

    The string form is the one servers that read only it and spec validators agree on.
    """
    content: str | list[dict[str, Any]] = message.content
    if has_media(message.parts):
        content = content_parts(message.parts, in_message=True)
    return {"type": "message", "role": message.role, "content": content}


def _instructions(messages: Sequence[LangMessage]) -> tuple[str, Sequence[LangMessage]]:
    """The leading system messages as ``instructions``, and the rest of the conversation."""
    lead = 0
    while lead < len(messages) and messages[lead].role == "system":
        lead += 1
    return "\n\n".join(m.content for m in messages[:lead]), messages[lead:]


def _kept_items(
    message: LangMessage, provider: str, model: str | None
) -> list[dict[str, Any]] | None:
    """The turn's kept output items, when they may be replayed to ``model``, else None.

    They may when this provider kept them for the same model and they hold every call of the
    turn (a call cut off at the token limit has no item: the turn then goes without ids).
    """
    kept = None
    for part in message.parts:
        if isinstance(part, OpaquePart) and part.state.provider == provider:
            kept = part.state.data
            break
    if kept is None or model is None or not _same_model(kept.get("model"), model):
        return None
    items: list[dict[str, Any]] = kept["items"]
    by_call = {i.get("call_id"): i for i in items if i.get("type") == "function_call"}
    calls = {c.id: c for c in message.tool_calls}
    if not by_call.keys() >= calls.keys():
        return None
    # Verbatim, but for arguments that were not a JSON object: those go as the call says
    # (an item is copied only then).
    replayed = []
    for item in items:
        key = item.get("call_id")
        call = calls.get(key) if key is not None else None
        if call is not None:
            arguments = call.arguments_json()
            if item.get("arguments") != arguments:
                item = {**item, "arguments": arguments}
        replayed.append(item)
    return replayed


def _same_model(kept: object, model: str) -> bool:
    return isinstance(kept, str) and _undated(kept) == _undated(model)


@functools.lru_cache(maxsize=64)  # a conversation names a model or two, in every request
def _undated(model: str) -> str:
    return _SNAPSHOT.sub("", model)


def _assistant(message: LangMessage, ids: Mapping[str, str]) -> list[dict[str, Any]]:
    """A turn from elsewhere: text in the easy form, calls by ``call_id`` only, no reasoning."""
    items: list[dict[str, Any]] = []
    text: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            text.append(part.text)
        elif isinstance(part, ToolCallPart):
            items += _text_item(text)
            call = part.call
            items.append(
                {
                    "type": "function_call",
                    "call_id": ids[call.id],
                    "name": call.name,
                    "arguments": call.arguments_json(),
                }
            )
    return items + _text_item(text)


def _text_item(text: list[str]) -> list[dict[str, Any]]:
    joined = "".join(text)
    text.clear()
    return [{"type": "message", "role": "assistant", "content": joined}] if joined else []


def _result(message: LangMessage, ids: Mapping[str, str], profile: OpenAIProfile) -> dict[str, Any]:
    call_id = message.tool_call_id
    if not call_id:  # the wire pairs an output with its call by call_id alone
        raise errors.ConfigError(f"a tool result needs the tool_call_id of its call: {message!r}")
    output: str | list[dict[str, Any]]
    parts = message.parts
    if message.is_error:  # no error flag on this wire: the error is said in the text
        output = error_result_text(result_text(message), message.error_type)
    elif len(parts) == 1 and parts[0].__class__ is TextPart:  # most results: one text
        output = parts[0].text
    elif has_media(parts):  # a list of parts, in the tool's order
        output = content_parts(message.parts, in_message=False)
    else:
        output = message.content
    wire_id = ids.get(call_id) or wire_call_id(profile, call_id)
    return {"type": "function_call_output", "call_id": wire_id, "output": output}


def _encode_tools(request: ProviderRequest, profile: OpenAIProfile, body: dict[str, Any]) -> None:
    # Chat Completions' rules decide what this server is offered (which choices it enforces,
    # parallel calls off for tools declared strict); only the shapes differ here.
    encode_tools(profile, request, body)
    if "tools" in body:
        body["tools"] = [_flat_entry(entry) for entry in body["tools"]]
    choice = body.get("tool_choice")
    if isinstance(choice, dict):  # flat, unlike Chat Completions' {"function": {"name"}}
        body["tool_choice"] = {"type": "function", "name": choice["function"]["name"]}


def _encode_sampling(options: LangOptions, body: dict[str, Any]) -> None:
    # A model known to refuse temperature and top_p has lost them already, with a warning;
    # stop was refused before (request_body).
    body.update(sampling_fields(options, max_tokens="max_output_tokens", top_p="top_p", stop=""))
    # The Responses API has no seed, penalties, logit_bias or top_k: each is refused by name.
    extra = extra_sampling(options, "the Responses API", _EXTRA)
    if extra.pop("logprobs", None):  # asked for as one more thing the answer includes
        included = body.get("include") or []
        body["include"] = included if INCLUDE in included else [*included, INCLUDE]
    body.update(extra)
    if options.max_tokens is not None:
        body["max_output_tokens"] = max(options.max_tokens, _MIN_OUTPUT_TOKENS)
    thinking = options.thinking
    if thinking:  # True: the model's own default effort
        reasoning: dict[str, Any] = {"summary": "auto"}
        if thinking is not True:
            effort = thinking if isinstance(thinking, str) else thinking_effort(thinking)
            reasoning = {"effort": effort, **reasoning}
        body["reasoning"] = reasoning
