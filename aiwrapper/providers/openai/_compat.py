"""Server profiles for the OpenAI Chat Completions wire: OpenAI itself and compatible servers.

A profile is data, not code: which output-cap field a server knows, whether it accepts
``tool_choice`` and ``parallel_tool_calls``, how it wants thinking switched on, which field
carries reasoning text back on assistant tool-call turns, and which tool call ids it accepts.
``openai.py`` reads these switches while encoding; this module also holds the presets (base URL,
API-key environment variable, profile), the pure helpers that depend on a profile (thinking
options, tool call ids, which tool choices a server can enforce) and the per-server response
quirks (Mistral content chunks, OpenRouter ``reasoning_details``, usage field names, the error
body shapes). Sending requests belongs to the transport.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ... import errors
from ...events import Event, OpaquePartEvent, TextDelta, ThinkingDelta, UsageEvent
from ...messages import LangMessage, ProviderState
from ...modelrules import thinking_effort
from ..base import ToolChoice, error_class_for_status, tool_choice

if TYPE_CHECKING:
    from ...options import LangOptions

__all__ = [
    "COMPATIBLE_PROFILE",
    "DEFAULT_BASE_URL",
    "OPENAI_ENV_VAR",
    "OPENAI_PROFILE",
    "PRESETS",
    "KeptFields",
    "OpenAIProfile",
    "ThinkingStyle",
    "arguments_text",
    "call_ids",
    "checked_tool_choice",
    "content_items",
    "error_fields",
    "get_preset",
    "keep_annotations",
    "merge_reasoning_details",
    "profile_for_base_url",
    "status_class",
    "stream_error",
    "thinking_fields",
    "usage_event",
    "wire_call_id",
]

_NO_DETAILS: dict[str, Any] = {}
ThinkingStyle = Literal["reasoning_effort", "openrouter", "deepseek"]
ThinkingValue = bool | int | str


@dataclass(frozen=True, slots=True)
class OpenAIProfile:
    """What one OpenAI-compatible server accepts; every switch is plain data.

    Attributes:
        name: The provider name errors and opaque state carry (``"openai"``, ``"deepseek"``...).
        max_tokens_field: ``"max_completion_tokens"`` (OpenAI) or ``"max_tokens"`` (others).
        reasoning_echo_field: Field that carries reasoning text back on assistant tool-call
            turns (DeepSeek ``"reasoning_content"``, newer vLLM ``"reasoning"``), or None.
        reasoning_echo_required: Send ``reasoning_echo_field`` on every tool-call turn, empty
            when the turn has no reasoning to give (a turn made by another provider, say).
        supports_tool_choice: False when the server rejects ``tool_choice`` (Ollama ``/v1``).
        supports_named_tool_choice: False when a named choice is ignored (llama.cpp); the
            encoder then sends only that tool with ``"required"``.
        supports_parallel_tool_calls: Whether ``parallel_tool_calls`` may be sent.
        tool_call_id_style: The ids the server accepts for calls it did not issue itself:
            ``"mistral9"`` (exactly 9 alphanumerics), ``"openai40"`` (at most 40 of
            ``[A-Za-z0-9_-]``, which OpenAI and Anthropic both accept; the default), or
            None to replay every id verbatim.
        thinking_style: How the ``thinking`` option is sent, or None to leave it out.
        include_usage: Send ``stream_options: {"include_usage": true}`` when streaming.
    """

    name: str
    max_tokens_field: str = "max_tokens"
    reasoning_echo_field: str | None = None
    reasoning_echo_required: bool = False
    supports_tool_choice: bool = True
    supports_named_tool_choice: bool = True
    supports_parallel_tool_calls: bool = True
    tool_call_id_style: Literal["mistral9", "openai40"] | None = "openai40"
    thinking_style: ThinkingStyle | None = "reasoning_effort"
    include_usage: bool = True


DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_ENV_VAR = "OPENAI_API_KEY"
OPENAI_PROFILE = OpenAIProfile("openai", max_tokens_field="max_completion_tokens")
COMPATIBLE_PROFILE = OpenAIProfile("openai-compatible")

# name -> (default base URL, API-key environment variable or None, profile).
PRESETS: dict[str, tuple[str, str | None, OpenAIProfile]] = {
    "openrouter": (
        "https://openrouter.ai/api/v1",
        "OPENROUTER_API_KEY",
        OpenAIProfile("openrouter", thinking_style="openrouter"),
    ),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY", OpenAIProfile("groq")),
    # DeepSeek: a tool-call turn made in thinking mode must come back with its
    # reasoning_content, else 400 "Missing `reasoning_content` field".
    # The check is on the field's presence: a turn with no reasoning of DeepSeek's own (made
    # by another provider, or before thinking was on) passes with an empty string, the fix
    # clients adopted for the same 400 (continuedev/continue#11285); confirmed by reports.
    "deepseek": (
        "https://api.deepseek.com",
        "DEEPSEEK_API_KEY",
        OpenAIProfile(
            "deepseek",
            reasoning_echo_field="reasoning_content",
            reasoning_echo_required=True,
            thinking_style="deepseek",
        ),
    ),
    # Mistral: replayed tool call ids must match [a-zA-Z0-9]{9}; it validates unknown body
    # keys strictly and reports usage on the last chunk unasked, so no stream_options.
    "mistral": (
        "https://api.mistral.ai/v1",
        "MISTRAL_API_KEY",
        OpenAIProfile(
            "mistral", tool_call_id_style="mistral9", thinking_style=None, include_usage=False
        ),
    ),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY", OpenAIProfile("together")),
    "xai": ("https://api.x.ai/v1", "XAI_API_KEY", OpenAIProfile("xai")),
    # vLLM renamed reasoning_content -> reasoning; newer releases read only "reasoning".
    "vllm": (
        "http://localhost:8000/v1",
        None,
        OpenAIProfile("vllm", reasoning_echo_field="reasoning"),
    ),
    # llama-server reads only the string forms of tool_choice: a named object is silently
    # served as "auto" (confirmed: ggml-org/llama.cpp#26535, #26849), so the encoder sends
    # only the named tool with "required", which forces the same call.
    "llamacpp": (
        "http://localhost:8080/v1",
        None,
        OpenAIProfile("llamacpp", supports_named_tool_choice=False, thinking_style=None),
    ),
    "lmstudio": ("http://localhost:1234/v1", None, OpenAIProfile("lmstudio")),
    # Ollama /v1: tool_choice is not supported and silently ignored, so
    # "none" still calls tools and a forced choice returns text (confirmed: ollama/ollama#8421,
    # #17921); Ollama has no parallel switch either. The encoder omits the tools for "none"
    # and refuses what it cannot express (ConfigError) rather than downgrade it.
    "ollama": (
        "http://localhost:11434/v1",
        None,
        OpenAIProfile("ollama", supports_tool_choice=False, supports_parallel_tool_calls=False),
    ),
}


def get_preset(name: str) -> tuple[str, str | None, OpenAIProfile]:
    """The preset called ``name`` (base URL, key variable, profile); ConfigError if unknown."""
    try:
        return PRESETS[name.lower()]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise errors.ConfigError(
            f"unknown OpenAI-compatible preset {name!r}; known: {known}"
        ) from None


def profile_for_base_url(base_url: str) -> OpenAIProfile:
    """The profile of a known hosted service at ``base_url``, else the generic compatible one.

    Only remote hosts are matched: a localhost port says nothing reliable about the server.
    """
    if base_url.rstrip("/") == DEFAULT_BASE_URL:
        return OPENAI_PROFILE
    host = urlsplit(base_url).hostname or ""
    for preset_url, _, profile in PRESETS.values():
        preset_host = urlsplit(preset_url).hostname
        if preset_host not in (None, "localhost") and host == preset_host:
            return profile
    return COMPATIBLE_PROFILE


def _effort(thinking: ThinkingValue) -> str:
    if isinstance(thinking, str):
        return thinking
    if thinking is True:
        return "medium"
    return thinking_effort(thinking)


def thinking_fields(profile: OpenAIProfile, thinking: ThinkingValue | None) -> dict[str, Any]:
    """Body keys that switch thinking on for this server (none for unset, False or 0)."""
    if not thinking or profile.thinking_style is None:
        return {}
    if profile.thinking_style == "deepseek":
        return {"thinking": {"type": "enabled"}}
    if profile.thinking_style == "openrouter":
        # OpenRouter takes an effort OR a token budget, never both.
        if isinstance(thinking, int) and not isinstance(thinking, bool):
            return {"reasoning": {"max_tokens": thinking}}
        return {"reasoning": {"effort": _effort(thinking)}}
    return {"reasoning_effort": _effort(thinking)}


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


def checked_tool_choice(
    profile: OpenAIProfile, names: Sequence[str], options: LangOptions
) -> ToolChoice | None:
    """``function_call`` in normal form, for a request declaring the tools ``names``.

    Raises:
        ConfigError: A named choice that is not declared, or a forced choice or
            ``parallel_tool_calls=False`` that this server would silently ignore.
    """
    choice = tool_choice(options.function_call)
    if choice is not None and choice.mode == "named" and choice.name not in names:
        raise errors.ConfigError(
            f"function_call names {choice.name!r}, which is not among the functions given: "
            f"{', '.join(names)}"
        )
    if (
        choice is not None
        and choice.mode in ("required", "named")
        and not (profile.supports_tool_choice)
    ):
        raise errors.ConfigError(
            f"{profile.name} ignores tool_choice, so function_call={options.function_call!r} "
            "cannot be enforced; use 'auto' or 'none' and ask for the call in the prompt"
        )
    if options.parallel_tool_calls is False and not profile.supports_parallel_tool_calls:
        raise errors.ConfigError(
            f"{profile.name} cannot stop a model from making several calls per turn; leave "
            "parallel_tool_calls unset (parallel=False runs the calls one at a time)"
        )
    return choice


# -- response quirks of particular servers ----------------------------------------------------


def content_items(items: list[dict[str, Any]], out: list[Event]) -> None:
    """Events for ``content`` sent as typed chunks instead of a string.

    Mistral reasoning models do this: ``{"type": "text"}`` chunks are answer text, a
    ``{"type": "thinking"}`` chunk holds its own list of text chunks.
    """
    for item in items:
        kind = item.get("type")
        if kind == "text" and item.get("text"):
            out.append(TextDelta(item["text"]))
        elif kind == "thinking":
            text = "".join(t.get("text", "") for t in item.get("thinking") or ())
            if text:
                out.append(ThinkingDelta(text))


def merge_reasoning_details(merged: list[Any], details: Any) -> None:
    """Fold streamed OpenRouter ``reasoning_details`` pieces into whole items, in place.

    Pieces of one item share its ``index``: their ``text``/``summary``/``data`` strings are
    joined and later keys win (the signature arrives last). Replay needs the whole items. An
    item of another shape is kept as it came, never raised on: it is not ours to read.
    """
    for detail in details if isinstance(details, list) else [details]:
        last = merged[-1] if merged else None
        if not isinstance(detail, dict) or not isinstance(last, dict):
            merged.append(dict(detail) if isinstance(detail, dict) else detail)
            continue
        index = detail.get("index")
        if index is None or last.get("index") != index:
            merged.append(dict(detail))
            continue
        for key, value in detail.items():
            if key in ("text", "summary", "data") and isinstance(value, str):
                last[key] = (last.get(key) or "") + value
            elif value is not None:
                last[key] = value


def keep_annotations(kept: list[Any], annotations: Any) -> None:
    """Add the annotations of one delta (or whole message) to ``kept``, each once.

    Some servers repeat a citation on later deltas; an exact repeat adds nothing.
    """
    for item in annotations if isinstance(annotations, list) else [annotations]:
        if item not in kept:
            kept.append(item)


class KeptFields:
    """Message fields no event carries, kept whole until the turn ends (streamed or not).

    OpenRouter's ``reasoning_details`` are merged per item and replayed to the same server;
    ``annotations`` (url citations of search models) are kept for the user. Neither raises on
    a shape it does not expect: those fields are not ours to read.
    """

    __slots__ = ("annotations", "details")

    def __init__(self) -> None:
        self.details: list[Any] = []
        self.annotations: list[Any] = []

    def add(self, delta: dict[str, Any]) -> None:
        """Keep the fields of one delta (or of a whole message)."""
        if delta.get("reasoning_details"):
            merge_reasoning_details(self.details, delta["reasoning_details"])
        if delta.get("annotations"):  # on a text delta, or alone in the last (search models)
            keep_annotations(self.annotations, delta["annotations"])

    def flush(self, provider: str) -> list[Event]:
        """One opaque part per kept field, then empty again."""
        out: list[Event] = []
        if self.details:
            state = ProviderState(provider, {"reasoning_details": self.details})
            out.append(OpaquePartEvent(state, kind="thinking"))
        if self.annotations:
            out.append(OpaquePartEvent(ProviderState(provider, {"annotations": self.annotations})))
        self.details, self.annotations = [], []
        return out


def error_fields(payload: Any) -> tuple[str, set[str]]:
    """The message of an error body and its lower-cased type/code tags.

    Shapes: OpenAI ``{"error": {"message", "type", "code"}}`` (OpenRouter: an int ``code`` and
    ``metadata``), vLLM/Mistral ``{"object": "error", "message", "type", "code"}`` (Mistral's
    message may be an object), FastAPI ``{"detail": ...}``, or a plain text/HTML page.
    """
    if isinstance(payload, str):
        return payload.strip()[:500], set()
    if not isinstance(payload, dict):
        return json.dumps(payload)[:500], set()
    inner = payload.get("error", payload)
    if not isinstance(inner, dict):
        return str(inner), set()
    message = inner.get("message", inner.get("detail", ""))
    if not isinstance(message, str):
        message = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    metadata = inner.get("metadata")
    if isinstance(metadata, dict) and metadata.get("provider_name"):
        message += f" (upstream provider: {metadata['provider_name']})"
    tags = {str(inner[k]).lower() for k in ("type", "code") if inner.get(k) is not None}
    return message, tags


def status_class(status: int) -> type[errors.ProviderError]:
    """The error class for an HTTP status on this wire.

    402 is OpenRouter's "out of credits": like Anthropic's 402
    ``billing_error`` it is a ``PermissionDeniedError``, which retrying cannot fix.
    """
    if status == 402:
        return errors.PermissionDeniedError
    return error_class_for_status(status)


def stream_error(provider: str, error: Any) -> errors.AIWrapperError:
    """The exception for an error object that arrived inside a 200 stream.

    A known ``type``/``code`` keeps its class (rate limit, overload, server error); an int
    ``code`` between 400 and 599 is read as an HTTP status, as OpenRouter and vLLM send it;
    anything else is a ``StreamError``.
    """
    message, tags = error_fields(error)
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and not isinstance(code, bool) else 0
    words = " ".join(tags)
    cls: type[errors.ProviderError]
    # too_many_requests: the Responses API's nested in-stream error for a rate limit.
    if "rate_limit" in words or "too_many_requests" in words or "insufficient_quota" in words:
        cls = errors.RateLimitError
    elif "overloaded" in words:
        cls = errors.OverloadedError
    elif "server_error" in words:
        cls = errors.ServerError
    elif 400 <= status < 600:
        cls = status_class(status)
    else:
        return errors.StreamError(f"{provider}: error in stream: {message}")
    return cls(message or "error in stream", provider=provider, status_code=None, body=error)


def arguments_text(arguments: Any) -> str:
    """Arguments some servers send as a whole object instead of JSON text, as JSON text."""
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def usage_event(usage: dict[str, Any]) -> UsageEvent:
    """The usage object of a chunk or body as an event."""
    prompt = usage.get("prompt_tokens_details") or _NO_DETAILS
    completion = usage.get("completion_tokens_details") or _NO_DETAILS
    cached = prompt.get("cached_tokens")
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek's name for it
    return UsageEvent(
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        cached_input_tokens=cached,
        cache_write_tokens=prompt.get("cache_write_tokens"),
        reasoning_tokens=completion.get("reasoning_tokens"),
        raw=usage,
    )
