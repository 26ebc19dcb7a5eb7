"""AWS credentials for Bedrock, and the signer the HTTP model asks before each request.

Credentials come from botocore's standard chain (the optional extra ``aiwrapper[bedrock]``):
the environment, the shared config and credentials files with their profiles, SSO, container
and instance roles; temporary ones refresh themselves inside botocore. Finding them may reach a
metadata server and refreshing them may call STS, so both run in a worker thread, never on the
event loop. Credentials given directly (an ``AwsCredentials``) need no extra.
"""

from __future__ import annotations

import importlib.util
import threading
from datetime import datetime, timezone
from typing import Any

import anyio.to_thread

from ... import _errors as errors
from ..._wire._outgoing import json_bytes
from ._sigv4 import AwsCredentials, sign

__all__ = ["SigV4Signer", "require_botocore"]


def require_botocore() -> None:
    """Check, without importing it, that botocore is installed.

    Raises:
        ConfigError: It is not, and the credential chain needs it.
    """
    try:
        found = importlib.util.find_spec("botocore") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise errors.ConfigError(
            "Bedrock with AWS credentials needs botocore: pip install 'aiwrapper[bedrock]' "
            "(or set AWS_BEARER_TOKEN_BEDROCK to use a Bedrock API key)"
        )


class SigV4Signer:
    """Signs each request with the current credentials: given ones, or botocore's chain's.

    Args:
        region: The AWS region the requests go to.
        credentials: Fixed credentials; ``None`` reads botocore's chain (with ``profile``).
        profile: The shared-config profile for the chain (``None``: ``AWS_PROFILE`` or default).
    """

    def __init__(
        self, region: str, *, credentials: AwsCredentials | None = None, profile: str | None = None
    ) -> None:
        if credentials is None:
            require_botocore()
        self.region = region
        self._fixed = credentials
        self._profile = profile
        self._chain: Any = None
        self._lock = threading.Lock()  # one chain lookup, however many requests start at once

    def __repr__(self) -> str:
        return f"SigV4Signer(region={self.region!r})"

    async def headers(self, url: str, body: dict[str, Any]) -> dict[str, str]:
        """The signing headers for ``POST url`` with ``body`` (as the transport will send it)."""
        credentials = self._fixed
        if credentials is None:
            credentials = await anyio.to_thread.run_sync(self._current)
        now = datetime.now(timezone.utc)
        return sign(url, json_bytes(body), credentials, region=self.region, now=now)

    def _current(self) -> AwsCredentials:
        import botocore.exceptions  # type: ignore[import-untyped]

        try:
            with self._lock:
                if self._chain is None:
                    self._chain = _chain(self._profile)
            frozen = self._chain.get_frozen_credentials()  # refreshes temporary ones when due
        except botocore.exceptions.ProfileNotFound as exc:
            raise errors.ConfigError(f"bedrock: {exc}") from exc
        except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as exc:
            # SSO, STS or a credential process refused or failed: the credentials, not the call
            raise errors.AuthenticationError(
                f"AWS credentials could not be found or refreshed ({exc})", provider="bedrock"
            ) from exc
        return AwsCredentials(frozen.access_key, frozen.secret_key, frozen.token)


def _chain(profile: str | None) -> Any:
    """botocore's credentials for ``profile``, found through its whole chain.

    Raises:
        ConfigError: The chain found none.
    """
    import botocore.session  # type: ignore[import-untyped]  # botocore ships no types

    found = botocore.session.Session(profile=profile).get_credentials()
    if found is None:
        raise errors.ConfigError(
            "no AWS credentials found (environment, profile, SSO or instance role); "
            "set them up as for the AWS CLI, or set AWS_BEARER_TOKEN_BEDROCK"
        )
    return found
