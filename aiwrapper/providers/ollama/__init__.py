"""Ollama's native chat API (``/api/chat``, NDJSON streaming).

The package owns the whole wire: the server root from ``OLLAMA_HOST``, request encoding,
stream and body decoding (calls written as text included), error mapping and the tool-schema
dialect (``ollama``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from typing_extensions import Unpack

from ..._wire._settings import HttpSettings
from .. import _base as shared
from .._lazy import lazy_exports
from ._defaults import DEFAULT_BASE_URL, NAME, default_base_url
from ._dialect import SCHEMA_DIALECTS

if TYPE_CHECKING:
    from .._http_model import HttpModel
    from ._decode import OllamaDecoder
    from ._provider import OllamaProvider

# A local server needs no key; a hosted one (or a proxy in front) reads this variable.
API_KEY_ENV_VARS = ("OLLAMA_API_KEY",)
DEFAULT_MODEL = "qwen3"
# A local model may think for minutes before its first token: a longer default than the others.
DEFAULT_TIMEOUT = 300.0
# The models.dev catalogue lists Ollama's hosted models under this id.
CATALOGUE_IDS = {NAME: "ollama-cloud"}


class OllamaSettings(HttpSettings, total=False):
    """``Lang.ollama``'s keywords beyond the transport's (see ``OllamaProvider``)."""

    keep_alive: str | int | None
    tool_calls_in_content: bool


def build(
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    keep_alive: str | int | None = None,
    tool_calls_in_content: bool = True,
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """Ollama's native API as a model (``OLLAMA_HOST`` honoured; no key for a local server)."""
    from ._provider import OllamaProvider

    provider = OllamaProvider(
        base_url=base_url or default_base_url(os.environ),
        api_key=shared.api_key(api_key, API_KEY_ENV_VARS, required=False),
        keep_alive=keep_alive,
        tool_calls_in_content=tool_calls_in_content,
    )
    http.setdefault("timeout", DEFAULT_TIMEOUT)
    return shared.connect(provider, model or DEFAULT_MODEL, **http)


if not TYPE_CHECKING:
    # The wire code loads when first read: choosing another provider, or looking up a
    # model's rules, never loads it.
    __getattr__ = lazy_exports(
        __name__, {"OllamaDecoder": "._decode", "OllamaProvider": "._provider"}
    )

__all__ = [
    "API_KEY_ENV_VARS",
    "CATALOGUE_IDS",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "DEFAULT_TIMEOUT",
    "SCHEMA_DIALECTS",
    "OllamaDecoder",
    "OllamaProvider",
    "OllamaSettings",
    "build",
    "default_base_url",
]
