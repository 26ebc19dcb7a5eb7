"""Server profiles for the OpenAI Chat Completions wire: OpenAI itself and compatible servers.

A profile is data, not code: which output-cap field a server knows, whether it accepts
``tool_choice`` and ``parallel_tool_calls``, how it wants thinking switched on, which field
carries reasoning text back on assistant tool-call turns, and which tool call ids it accepts.
The encoder reads these switches; this module also holds the presets (base URL, API-key
environment variable, profile) and the thinking options a profile asks for. Sending requests
belongs to the transport.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from ... import _errors as errors
from ..._knowledge._modelrules import thinking_effort

__all__ = [
    "COMPATIBLE_PROFILE",
    "DEFAULT_BASE_URL",
    "OPENAI_ENV_VAR",
    "OPENAI_PROFILE",
    "PRESETS",
    "OpenAIProfile",
    "ThinkingStyle",
    "get_preset",
    "openai_profile",
    "preset_base_url",
    "profile_for_base_url",
    "thinking_fields",
]

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
        forces_calls: ``tool_choice: "required"`` is relied on to force a typed answer's
            final tool (only on OpenAI itself; elsewhere the tool is offered, not forced).
        prompt_cache: The server takes ``prompt_cache_key`` and ``prompt_cache_retention``
            (OpenAI itself); elsewhere the ``cache`` option sends neither.
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
    forces_calls: bool = False
    prompt_cache: bool = False


DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_ENV_VAR = "OPENAI_API_KEY"
OPENAI_PROFILE = OpenAIProfile(
    "openai", max_tokens_field="max_completion_tokens", forces_calls=True, prompt_cache=True
)
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


def openai_profile(base_url: str) -> OpenAIProfile:
    """The profile for ``Lang.openai`` at ``base_url``.

    A known hosted service behind ``base_url`` keeps its quirks; anything else (a proxy, Azure)
    is treated as OpenAI itself, which is what that factory promises.
    """
    profile = profile_for_base_url(base_url)
    return OPENAI_PROFILE if profile is COMPATIBLE_PROFILE else profile


def preset_base_url(name: str, env: Mapping[str, str] | None = None) -> str:
    """The base URL of the preset ``name``; the Ollama preset follows ``OLLAMA_HOST``.

    ``Lang.ollama`` reads ``OLLAMA_HOST`` for the native API; the preset serves the same
    server's ``/v1`` path, so it reads the variable the same way (``env``: ``os.environ``).

    Raises:
        ConfigError: An unknown preset, or an ``OLLAMA_HOST`` that cannot be read.
    """
    url = get_preset(name)[0]
    if name.lower() != "ollama":
        return url
    from ..ollama import default_base_url  # only this preset needs the other package

    return default_base_url(env).rstrip("/") + "/v1"
