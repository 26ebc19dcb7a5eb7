"""Amazon Bedrock: the Converse and ConverseStream API, for every tool-capable model there.

The package owns the whole wire: request encoding (``toolConfig``, ``inferenceConfig``, Claude's
thinking), the decoding of ConverseStream's events (framed in binary eventstream messages) and
of whole Converse answers, error mapping, and how requests are authorized: a Bedrock API key as
a bearer token, or SigV4 with credentials from botocore's chain (``aiwrapper[bedrock]``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from typing_extensions import Unpack

from ..._wire._settings import HttpSettings
from .. import _base as shared
from .._lazy import lazy_exports
from ._dialect import SCHEMA_DIALECTS

if TYPE_CHECKING:
    from .._http_model import HttpModel
    from ._provider import BedrockProvider
    from ._sigv4 import AwsCredentials

# A Bedrock API key (Bedrock's own, long- or short-term): sent as a bearer token, no SigV4.
API_KEY_ENV_VARS = ("AWS_BEARER_TOKEN_BEDROCK",)
REGION_ENV_VARS = ("AWS_REGION", "AWS_DEFAULT_REGION")
DEFAULT_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
# No HEADER_PREFIXES: the x-amz-* headers are a per-request signature (and a session token),
# which a cassette must neither keep nor compare.
CATALOGUE_IDS = {"bedrock": "amazon-bedrock"}  # models.dev's name for Bedrock


class BedrockSettings(HttpSettings, total=False):
    """``Lang.bedrock``'s keywords beyond the transport's (see ``BedrockProvider``)."""

    credentials: AwsCredentials | None
    profile: str | None


def build(
    model: str | None = None,
    *,
    region: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    credentials: AwsCredentials | None = None,
    profile: str | None = None,
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """Bedrock as a model: the region from ``AWS_REGION``, a Bedrock API key from
    ``AWS_BEARER_TOKEN_BEDROCK``, else SigV4 with botocore's credential chain."""
    from ._provider import BedrockProvider

    provider = BedrockProvider(
        region=region or next((os.environ[v] for v in REGION_ENV_VARS if os.environ.get(v)), ""),
        # Credentials or a profile given outright win over a key in the environment.
        api_key=shared.api_key(api_key, API_KEY_ENV_VARS, required=False)
        if credentials is None and profile is None
        else api_key,
        credentials=credentials,
        profile=profile,
        base_url=base_url,
    )
    return shared.connect(provider, model or DEFAULT_MODEL, **http)


if not TYPE_CHECKING:
    __getattr__ = lazy_exports(
        __name__,
        {"BedrockProvider": "._provider", "AwsCredentials": "._sigv4"},
    )

__all__ = [
    "API_KEY_ENV_VARS",
    "CATALOGUE_IDS",
    "DEFAULT_MODEL",
    "REGION_ENV_VARS",
    "SCHEMA_DIALECTS",
    "AwsCredentials",
    "BedrockProvider",
    "BedrockSettings",
    "build",
]
