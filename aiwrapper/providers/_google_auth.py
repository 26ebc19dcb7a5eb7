"""Google credentials for Vertex AI, through ``google-auth`` (the extra ``aiwrapper[google]``).

Application Default Credentials (a service-account or authorized-user file named by
``GOOGLE_APPLICATION_CREDENTIALS``, gcloud's own file, the metadata server on GCE, GKE and
Cloud Run) are found by ``google.auth.default`` with the ``cloud-platform`` scope, the scope
Vertex AI asks for. A credentials object refreshes itself through a ``google.auth`` transport
request, which this module implements over a plain ``httpx.Client`` so that the extra needs
``google-auth`` alone (not ``requests``). Everything here blocks: ``BearerToken`` runs it in a
worker thread. google-auth's failures become the package's errors: no credentials found is a
``ConfigError``, a refused refresh an ``AuthenticationError``, an unreachable token endpoint a
``ConnectionError``.
"""

from __future__ import annotations

import calendar
import importlib.util
from collections.abc import Mapping
from typing import Any

from .. import _errors as errors
from .._wire._credentials import Fetch

__all__ = ["adc_fetch", "credentials_fetch", "require_google_auth"]

SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
_TIMEOUT = 30.0


def require_google_auth() -> None:
    """Check, without importing it, that ``google-auth`` is installed.

    Raises:
        ConfigError: It is not: Application Default Credentials need the extra.
    """
    try:
        found = importlib.util.find_spec("google.auth") is not None
    except (ImportError, ValueError):  # no "google" package, or a module set to None
        found = False
    if not found:
        raise errors.ConfigError(
            "Vertex AI without an access_token needs Google credentials from google-auth: "
            "pip install 'aiwrapper[google]' (or pass VertexConfig(access_token=...) or "
            "credentials=<a callable returning a token>)"
        )


def adc_fetch() -> Fetch:
    """A fetch of Application Default Credentials' tokens; the credentials load on first use."""
    found: list[Any] = []

    def fetch() -> tuple[str, float | None]:
        if not found:
            found.append(_default_credentials())
        return _refreshed(found[0])

    return fetch


def credentials_fetch(credentials: Any) -> Fetch:
    """A fetch of tokens from a ``google.auth`` credentials object the user made, given Vertex
    AI's scope when it has none (a service account's key made without scopes is refused)."""
    import google.auth.credentials

    scoped = google.auth.credentials.with_scopes_if_required(  # type: ignore[no-untyped-call]
        credentials, list(SCOPES)
    )
    return lambda: _refreshed(scoped)


def _default_credentials() -> Any:
    import google.auth
    import google.auth.exceptions

    try:
        credentials, _project = google.auth.default(scopes=list(SCOPES))
    except google.auth.exceptions.DefaultCredentialsError as exc:
        raise errors.ConfigError(f"Vertex AI: no Google credentials found ({exc})") from exc
    return credentials


def _refreshed(credentials: Any) -> tuple[str, float | None]:
    """Refresh ``credentials`` and return the token and its expiry (``time.time()`` seconds)."""
    import google.auth.exceptions

    try:
        credentials.refresh(_HttpxRequest())
    except google.auth.exceptions.TransportError as exc:
        raise errors.ConnectionError(f"Vertex AI: the token endpoint failed ({exc})") from exc
    except google.auth.exceptions.RefreshError as exc:
        raise errors.AuthenticationError(
            f"the Google credentials could not be refreshed ({exc})", provider="vertex"
        ) from exc
    token = credentials.token
    if not isinstance(token, str) or not token:
        raise errors.AuthenticationError("the Google credentials gave no token", provider="vertex")
    expiry = credentials.expiry  # a naive UTC datetime, or None
    return token, (float(calendar.timegm(expiry.timetuple())) if expiry is not None else None)


class _Response:
    """The ``google.auth.transport.Response`` shape over an httpx response."""

    def __init__(self, response: Any) -> None:  # an httpx.Response
        self.status = response.status_code
        self.headers: Mapping[str, str] = response.headers
        self.data = response.content


class _HttpxRequest:
    """A ``google.auth.transport.Request`` made over ``httpx``: one client per refresh."""

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _Response:
        import google.auth.exceptions
        import httpx

        try:
            with httpx.Client(timeout=timeout or _TIMEOUT) as client:
                response = client.request(method, url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise google.auth.exceptions.TransportError(str(exc)) from exc  # type: ignore[no-untyped-call]
        return _Response(response)
