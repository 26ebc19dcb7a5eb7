"""OpenAI Chat Completions, for OpenAI itself and every OpenAI-compatible server.

The package owns the whole wire: the server profiles and presets, request encoding, stream and
body decoding, error mapping and the tool-schema dialects (``openai``, ``openai-strict``). Its
builders also hand out the Responses API (``openai_responses``) where ``api`` asks for it.
``FRONTENDS`` serves the same wire to clients (the gateway's ``POST /v1/chat/completions``,
``_front`` and ``_front_stream``), which is also the gateway's ``DEFAULT_FRONTEND``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typing_extensions import Unpack

from ..._errors import ConfigError
from ..._wire._settings import HttpSettings
from .. import _base as shared
from .._lazy import lazy_exports
from ._dialect import SCHEMA_DIALECTS
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
from ._rules import CATALOGUE_IDS, EXAMPLE_MODELS, MODEL_RULES

if TYPE_CHECKING:
    from .._http_model import HttpModel
    from .._serving import DefaultFrontend, Frontend
    from ..openai_responses import ResponsesProvider
    from ._decode import OpenAIStreamDecoder
    from ._provider import OpenAIProvider

    # The gateway's front-end for a wire no package serves, and the front-ends this package
    # serves, by the POST path the gateway mounts each at.
    DEFAULT_FRONTEND: DefaultFrontend
    FRONTENDS: dict[str, Frontend]

API_KEY_ENV_VARS = (OPENAI_ENV_VAR,)
DEFAULT_MODEL = "gpt-4o-mini"
HEADER_PREFIXES = ("openai-",)  # OpenAI-Organization, OpenAI-Project


class OpenAISettings(HttpSettings, total=False):
    """``Lang.openai``'s keywords beyond the transport's: the account's organization and project."""

    organization: str | None
    project: str | None


def build(
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    organization: str | None = None,
    project: str | None = None,
    api: str = "auto",
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """OpenAI as a model (key from ``OPENAI_API_KEY``), on the API ``api`` picks."""
    base_url, model = base_url or DEFAULT_BASE_URL, model or DEFAULT_MODEL
    provider = _wire(api, model)(
        api_key=shared.api_key(api_key, API_KEY_ENV_VARS),
        base_url=base_url,
        profile=openai_profile(base_url),
        organization=organization,
        project=project,
    )
    return shared.connect(provider, model, **http)


def build_compatible(
    base_url: str | None = None,
    *,
    model: str,
    preset: str | None = None,
    api_key: str | None = None,
    api: str = "auto",
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """Any OpenAI-compatible server as a model, by base URL or by ``preset`` name.

    A preset supplies the base URL, the key's environment variable and the server's wire
    quirks; ``base_url`` overrides its URL.
    """
    if preset is None:
        if base_url is None:
            raise ConfigError("openai_compatible needs base_url=... or preset=...")
        profile, key = profile_for_base_url(base_url), shared.api_key(api_key, (), required=False)
    else:
        _, env_var, profile = get_preset(preset)
        base_url = base_url or preset_base_url(preset)
        env_vars = (env_var,) if env_var else ()
        key = shared.api_key(api_key, env_vars, required=env_var is not None)
    provider = _wire(api, model)(api_key=key, base_url=base_url, profile=profile)
    return shared.connect(provider, model, **http)


def _wire(api: str, model: str) -> type[OpenAIProvider | ResponsesProvider]:
    """Chat Completions, or the Responses API where ``api`` asks for it for ``model``."""
    from ..openai_responses._choice import uses_responses

    if uses_responses(api, model):
        from ..openai_responses._provider import ResponsesProvider

        return ResponsesProvider
    from ._provider import OpenAIProvider

    return OpenAIProvider


def _default_frontend() -> DefaultFrontend:
    from ._front import OpenAIChat

    return OpenAIChat()


def _frontends() -> dict[str, Frontend]:
    from . import DEFAULT_FRONTEND  # the one instance, made on first read

    return {"/v1/chat/completions": DEFAULT_FRONTEND}


if not TYPE_CHECKING:
    # The wire code and the gateway's front-ends load when first read: choosing another
    # provider, or looking up a model's rules, never loads them.
    __getattr__ = lazy_exports(
        __name__,
        {"OpenAIStreamDecoder": "._decode", "OpenAIProvider": "._provider"},
        {"DEFAULT_FRONTEND": _default_frontend, "FRONTENDS": _frontends},
    )


__all__ = [
    "API_KEY_ENV_VARS",
    "CATALOGUE_IDS",
    "COMPATIBLE_PROFILE",
    "DEFAULT_BASE_URL",
    "DEFAULT_FRONTEND",
    "DEFAULT_MODEL",
    "EXAMPLE_MODELS",
    "FRONTENDS",
    "HEADER_PREFIXES",
    "MODEL_RULES",
    "OPENAI_ENV_VAR",
    "OPENAI_PROFILE",
    "PRESETS",
    "SCHEMA_DIALECTS",
    "OpenAIProfile",
    "OpenAIProvider",
    "OpenAISettings",
    "OpenAIStreamDecoder",
    "build",
    "build_compatible",
    "get_preset",
    "openai_profile",
    "preset_base_url",
    "profile_for_base_url",
]
