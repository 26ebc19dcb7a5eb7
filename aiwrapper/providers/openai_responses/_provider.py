"""``ResponsesProvider``: the Responses API as a provider, for OpenAI and compatible servers.

It pairs the request body of ``_encode`` with the decoder of ``_decode``. A server's quirks
are its Chat Completions profile (which tool choices it enforces, which call ids it takes);
HTTP error bodies share the Chat Completions envelope and its mapping. On OpenAI itself the
kept reasoning is replayed; toward a compatible server, turns travel without ids or reasoning.
``api="auto"`` picks this provider only for the models that no other OpenAI API serves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from ..._conversation._events import Event
from ..._run._contract import Framing, OutputSupport, ProviderRequest
from ..._wire._httpcall import HttpCall
from ..openai._errors import error_from_response
from ..openai._profiles import DEFAULT_BASE_URL, OPENAI_PROFILE, OpenAIProfile
from ..openai._provider import account_headers
from ._choice import NAME
from ._decode import ResponsesStreamDecoder
from ._encode import request_body

__all__ = ["ResponsesProvider"]

_MALFORMED = (LookupError, TypeError, AttributeError, ValueError)


class ResponsesProvider:
    """``POST {base}/responses`` for OpenAI or any server described by ``profile``.

    Args:
        api_key: Sent as ``Authorization: Bearer``; None for local servers without auth.
        base_url: Including the version (``https://api.openai.com/v1``).
        profile: The server's Chat Completions profile (OpenAI's, or a preset's).
        organization: Sent as ``OpenAI-Organization``.
        project: Sent as ``OpenAI-Project``.
    """

    framing: Framing = "sse"

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        profile: OpenAIProfile = OPENAI_PROFILE,
        organization: str | None = None,
        project: str | None = None,
    ) -> None:
        self.openai = profile is OPENAI_PROFILE
        # Its own name, so that no Chat Completions encoder reads the items this one keeps.
        self.name = NAME if self.openai else f"{profile.name}-responses"
        self.profile = dataclasses.replace(profile, name=self.name)
        self.output_support = OutputSupport(forced_call=self.openai)
        self.url = base_url.rstrip("/") + "/responses"
        self._headers = account_headers(api_key, organization, project)

    def __repr__(self) -> str:
        return f"ResponsesProvider(name={self.name!r}, url={self.url!r})"

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The ``POST /responses`` request for one round."""
        body = request_body(request, self.profile, openai=self.openai)
        headers = {**self._headers, **(request.options.extra_headers or {})}
        return HttpCall(self.url, headers, body, request.stream)

    def decode_stream(self, request: ProviderRequest | None = None) -> ResponsesStreamDecoder:
        """A fresh decoder for one streamed response."""
        return ResponsesStreamDecoder(self.name, logprobs=_logprobs(request))

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
        """Events for a whole ``response`` body, the same its stream would produce."""
        try:
            return ResponsesStreamDecoder(self.name, logprobs=_logprobs(request)).whole(body)
        except _MALFORMED as exc:
            raise errors.StreamError(
                f"{self.name}: unexpected response body: {body!r:.300}"
            ) from exc

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an HTTP error response (``{"error": {...}}``, as on Chat).

        A 404 naming an ``input`` item (a replayed item the server no longer has) is a
        ``NotFoundError`` like any 404, and is never retried.
        """
        return error_from_response(self.name, status, body, headers)


def _logprobs(request: ProviderRequest | None) -> bool:
    """Whether the round asked for token log probabilities (only then are they read)."""
    return request is not None and bool(request.options.logprobs)
