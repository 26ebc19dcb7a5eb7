"""The OpenTelemetry GenAI conventions' ``gen_ai.provider.name`` of each provider.

A provider whose name the conventions spell otherwise is listed; any other is used as is (an
OpenAI-compatible service is named by its preset: ``groq``, ``deepseek``, ...).
"""

from __future__ import annotations

__all__ = ["genai_name"]

_NAMES = {
    "openai-responses": "openai",
    "gemini": "gcp.gemini",
    "mistral": "mistral_ai",
    "xai": "x_ai",
}


def genai_name(provider: str) -> str:
    """``gen_ai.provider.name`` for the provider aiwrapper calls ``provider``."""
    return _NAMES.get(provider, provider)
