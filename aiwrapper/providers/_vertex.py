"""Vertex AI, shared by the model families it serves: where to send, and with which token.

``VertexConfig`` names the project and location; Gemini (``publishers/google``) and Claude
(``publishers/anthropic``) build their URLs on its ``host()``. Credentials, in the order they
win: an ``access_token`` (sent as it is, never refreshed); ``credentials``, either a callable
returning a token (called on first use and again when the server refuses the token) or a
``google.auth`` credentials object; else Application Default Credentials (``"adc"``, through
the optional extra ``aiwrapper[google]``). The refreshing ones become a ``BearerToken`` that the
HTTP model asks before each request and refreshes once on a 401.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .. import _errors as errors
from .._wire._credentials import BearerToken

__all__ = ["VertexConfig", "vertex_from_env", "vertex_token"]

# Where the project and region are read from for a route, in the order Google's and
# Anthropic's own Vertex clients read them.
PROJECT_ENV_VARS = ("GOOGLE_CLOUD_PROJECT", "ANTHROPIC_VERTEX_PROJECT_ID")
LOCATION_ENV_VARS = ("GOOGLE_CLOUD_LOCATION", "CLOUD_ML_REGION")

# Multi-region endpoints, as Google's and Anthropic's own Vertex clients spell them.
_MULTI_REGION_HOSTS = {
    "global": "https://aiplatform.googleapis.com",
    "us": "https://aiplatform.us.rep.googleapis.com",
    "eu": "https://aiplatform.eu.rep.googleapis.com",
}


@dataclass(frozen=True, slots=True)
class VertexConfig:
    """Where and how to reach a model on Vertex AI (Gemini, or Claude).

    Attributes:
        project: The Google Cloud project id. Empty with an API key (and no token) selects
            Gemini's express mode, whose URLs carry no project or location.
        location: The region, e.g. ``"us-central1"``; ``"global"`` (default) uses the global
            endpoint ``https://aiplatform.googleapis.com``; ``"us"`` and ``"eu"`` the
            multi-region ones.
        access_token: An OAuth access token, sent as ``Authorization: Bearer`` and never
            refreshed (it expires after about an hour).
        credentials: ``"adc"`` (Application Default Credentials, the default when neither a
            token nor an API key is given; needs ``aiwrapper[google]``), a ``google.auth``
            credentials object, or a callable returning a token. The token is refreshed
            before it expires, in a worker thread, once for many concurrent requests, and
            once more when the server answers 401.
        api_version: Gemini's Vertex API version: ``"v1beta1"`` (default, as Google's SDK)
            or ``"v1"``. Claude's URLs are always ``v1``.
    """

    project: str
    location: str = "global"
    access_token: str | None = field(default=None, repr=False)
    api_version: str = "v1beta1"
    credentials: object = field(default=None, repr=False)

    def host(self) -> str:
        """The regional, multi-region or global Vertex AI endpoint."""
        known = _MULTI_REGION_HOSTS.get(self.location)
        return known or f"https://{self.location}-aiplatform.googleapis.com"


def vertex_from_env(env: Mapping[str, str] = os.environ) -> VertexConfig:
    """The Vertex AI project and location the environment names, with ADC credentials.

    Raises:
        ConfigError: No project is named.
    """
    project = next((env[v] for v in PROJECT_ENV_VARS if env.get(v)), None)
    if project is None:
        raise errors.ConfigError(f"Vertex AI needs a project: set {' or '.join(PROJECT_ENV_VARS)}")
    location = next((env[v] for v in LOCATION_ENV_VARS if env.get(v)), "global")
    return VertexConfig(project=project, location=location)


def vertex_token(config: VertexConfig, *, api_key: str | None = None) -> BearerToken | None:
    """The refreshing token ``config`` asks for, or ``None`` (a static token, or an API key).

    Raises:
        ConfigError: ``credentials`` is of no known kind, or Application Default Credentials
            are needed without ``google-auth`` installed.
    """
    from ._google_auth import adc_fetch, credentials_fetch, require_google_auth

    credentials = config.credentials
    if config.access_token or (credentials is None and api_key):
        return None
    if credentials is None or credentials == "adc":
        require_google_auth()
        return BearerToken(adc_fetch())
    if hasattr(credentials, "refresh") and hasattr(credentials, "token"):
        return BearerToken(credentials_fetch(credentials))
    if callable(credentials):
        return BearerToken(_called(credentials))
    raise errors.ConfigError(
        "VertexConfig(credentials=...) takes 'adc', a google.auth credentials object or a "
        f"callable returning a token, not {type(credentials).__name__}"
    )


def _called(get_token: Callable[[], object]) -> Callable[[], tuple[str, float | None]]:
    def fetch() -> tuple[str, float | None]:
        token = get_token()
        if not isinstance(token, str) or not token:
            raise errors.ConfigError(
                f"VertexConfig(credentials=...) returned {type(token).__name__}, not a token"
            )
        return token, None  # its expiry is the callable's business: kept until refused

    return fetch
