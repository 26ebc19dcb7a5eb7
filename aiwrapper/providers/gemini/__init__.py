"""Google Gemini: the Generative Language API and Vertex AI.

The package owns the whole wire: request encoding, stream and body decoding with thought
signatures, error mapping and the tool-schema dialects (``gemini``, ``gemini-json``).
"""

from ._provider import DEFAULT_BASE_URL, GeminiProvider, GeminiStreamDecoder, VertexConfig

# GOOGLE_API_KEY is what Google's own SDKs read; GEMINI_API_KEY wins when both are set.
API_KEY_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
DEFAULT_MODEL = "gemini-2.5-flash"

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "GeminiProvider",
    "GeminiStreamDecoder",
    "VertexConfig",
]
