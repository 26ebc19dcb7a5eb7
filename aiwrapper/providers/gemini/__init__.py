"""Google Gemini: the Generative Language API and Vertex AI.

The package owns the whole wire: request encoding, stream and body decoding with thought
signatures, error mapping and the tool-schema dialects (``gemini``, ``gemini-json``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from typing_extensions import Unpack

from ..._wire._settings import HttpSettings
from .. import _base as shared
from .._lazy import lazy_exports
from ._dialect import SCHEMA_DIALECTS
from ._rules import CATALOGUE_IDS, EXAMPLE_MODELS, MODEL_RULES

if TYPE_CHECKING:
    from .._http_model import HttpModel
    from ._provider import DEFAULT_BASE_URL, GeminiProvider, GeminiStreamDecoder, VertexConfig

# GOOGLE_API_KEY is what Google's own SDKs read; GEMINI_API_KEY wins when both are set.
API_KEY_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
DEFAULT_MODEL = "gemini-2.5-flash"
HEADER_PREFIXES = ("x-goog-",)  # Google's own headers (the key's is redacted)


class GeminiSettings(HttpSettings, total=False):
    """``Lang.gemini``'s keywords beyond the transport's (see ``GeminiProvider``)."""

    api_version: str
    schema_dialect: Literal["gemini", "gemini-json"]


def build(
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    vertex: VertexConfig | None = None,
    api_version: str = "v1beta",
    schema_dialect: Literal["gemini", "gemini-json"] = "gemini",
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """Gemini as a model (key from ``GEMINI_API_KEY``, then ``GOOGLE_API_KEY``; Vertex AI
    with ``vertex``, where the key is optional)."""
    from ._provider import DEFAULT_BASE_URL, GeminiProvider

    provider = GeminiProvider(
        # On Vertex with a project, Google credentials are meant: a key from the environment
        # (often set on Google machines) is read only for express mode, as Google's SDK does.
        api_key=api_key
        if vertex is not None and vertex.project
        else shared.api_key(api_key, API_KEY_ENV_VARS, required=vertex is None),
        base_url=base_url or DEFAULT_BASE_URL,
        api_version=api_version,
        schema_dialect=schema_dialect,
        vertex=vertex,
    )
    return shared.connect(provider, model or DEFAULT_MODEL, **http)


if not TYPE_CHECKING:
    # The wire code loads when first read: choosing another provider, or looking up a
    # model's rules, never loads it.
    __getattr__ = lazy_exports(
        __name__,
        dict.fromkeys(
            ("DEFAULT_BASE_URL", "GeminiProvider", "GeminiStreamDecoder", "VertexConfig"),
            "._provider",
        ),
    )

__all__ = [
    "API_KEY_ENV_VARS",
    "CATALOGUE_IDS",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "EXAMPLE_MODELS",
    "HEADER_PREFIXES",
    "MODEL_RULES",
    "SCHEMA_DIALECTS",
    "GeminiProvider",
    "GeminiSettings",
    "GeminiStreamDecoder",
    "VertexConfig",
    "build",
]
