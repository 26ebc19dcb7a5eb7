"""OpenAI Chat Completions, for OpenAI itself and every OpenAI-compatible server.

The package owns the whole wire: the server profiles and presets, request encoding, stream and
body decoding, error mapping and the tool-schema dialects (``openai``, ``openai-strict``).
"""

from ._decode import OpenAIStreamDecoder
from ._profiles import (
    COMPATIBLE_PROFILE,
    DEFAULT_BASE_URL,
    OPENAI_ENV_VAR,
    OPENAI_PROFILE,
    PRESETS,
    OpenAIProfile,
    get_preset,
    openai_profile,
    preset_base_url,
    profile_for_base_url,
)
from ._provider import OpenAIProvider

API_KEY_ENV_VARS = (OPENAI_ENV_VAR,)
DEFAULT_MODEL = "gpt-4o-mini"

__all__ = [
    "API_KEY_ENV_VARS",
    "COMPATIBLE_PROFILE",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "OPENAI_ENV_VAR",
    "OPENAI_PROFILE",
    "PRESETS",
    "OpenAIProfile",
    "OpenAIProvider",
    "OpenAIStreamDecoder",
    "get_preset",
    "openai_profile",
    "preset_base_url",
    "profile_for_base_url",
]
