"""The Anthropic Messages API.

The package owns the whole wire: request encoding (thinking, tool choice, structured output per
model family), stream and body decoding with the opaque thinking blocks, and error mapping.
"""

from ._provider import AnthropicProvider, AnthropicStreamDecoder, wire_id

API_KEY_ENV_VARS = ("ANTHROPIC_API_KEY",)
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MODEL = "claude-sonnet-4-5"

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "AnthropicProvider",
    "AnthropicStreamDecoder",
    "wire_id",
]
