"""The Anthropic Messages API.

The package owns the whole wire: request encoding (thinking, tool choice, structured output per
model family), stream and body decoding with the opaque thinking blocks, and error mapping;
and the same wire served to clients: ``FRONTENDS`` holds the gateway's ``POST /v1/messages``
front-end (``_front``, ``_front_stream``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from typing_extensions import Unpack

from ..._wire._settings import HttpSettings
from .. import _base as shared
from .._lazy import lazy_exports
from ._dialect import SCHEMA_DIALECTS
from ._rules import EXAMPLE_MODELS, MODEL_RULES

if TYPE_CHECKING:
    from .._http_model import HttpModel
    from .._serving import Frontend
    from .._vertex import VertexConfig
    from ._decode import AnthropicStreamDecoder
    from ._encode import wire_id
    from ._provider import DEFAULT_BASE_URL, AnthropicProvider

    # The front-ends this package serves, by the POST path the gateway mounts each at.
    FRONTENDS: dict[str, Frontend]

API_KEY_ENV_VARS = ("ANTHROPIC_API_KEY",)
DEFAULT_MODEL = "claude-sonnet-4-5"
HEADER_PREFIXES = ("anthropic-",)  # anthropic-version, anthropic-beta


class AnthropicSettings(HttpSettings, total=False):
    """``Lang.anthropic``'s keywords beyond the transport's (see ``AnthropicProvider``)."""

    version: str
    betas: Sequence[str]
    default_max_tokens: int | None


def build(
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    version: str = "2023-06-01",
    betas: Sequence[str] = (),
    default_max_tokens: int | None = None,
    vertex: VertexConfig | None = None,
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """Anthropic Messages as a model (key from ``ANTHROPIC_API_KEY``; Claude on Vertex AI
    with ``vertex``, where Google credentials replace the key)."""
    from ._provider import DEFAULT_BASE_URL, AnthropicProvider

    provider = AnthropicProvider(
        api_key=shared.api_key(api_key, API_KEY_ENV_VARS) if vertex is None else None,
        base_url=base_url or DEFAULT_BASE_URL,
        version=version,
        betas=betas,
        default_max_tokens=default_max_tokens,
        vertex=vertex,
    )
    return shared.connect(provider, model or DEFAULT_MODEL, **http)


def _frontends() -> dict[str, Frontend]:
    from ._front import AnthropicMessages

    return {"/v1/messages": AnthropicMessages()}


if not TYPE_CHECKING:
    # The wire code and the gateway's front-end load when first read: choosing another
    # provider, or looking up a model's rules, never loads them.
    __getattr__ = lazy_exports(
        __name__,
        {
            "AnthropicStreamDecoder": "._decode",
            "wire_id": "._encode",
            "DEFAULT_BASE_URL": "._provider",
            "AnthropicProvider": "._provider",
        },
        {"FRONTENDS": _frontends},
    )

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "EXAMPLE_MODELS",
    "FRONTENDS",
    "HEADER_PREFIXES",
    "MODEL_RULES",
    "SCHEMA_DIALECTS",
    "AnthropicProvider",
    "AnthropicSettings",
    "AnthropicStreamDecoder",
    "build",
    "wire_id",
]
