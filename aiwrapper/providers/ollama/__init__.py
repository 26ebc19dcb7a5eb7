"""Ollama's native chat API (``/api/chat``, NDJSON streaming).

The package owns the whole wire: the server root from ``OLLAMA_HOST``, request encoding,
stream and body decoding (calls written as text included), error mapping and the tool-schema
dialect (``ollama``).
"""

from ._decode import OllamaDecoder
from ._defaults import DEFAULT_BASE_URL, default_base_url
from ._provider import OllamaProvider

# A local server needs no key; a hosted one (or a proxy in front) reads this variable.
API_KEY_ENV_VARS = ("OLLAMA_API_KEY",)
DEFAULT_MODEL = "qwen3"

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "OllamaDecoder",
    "OllamaProvider",
    "default_base_url",
]
