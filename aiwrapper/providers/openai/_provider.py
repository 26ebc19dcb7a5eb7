"""The OpenAI Chat Completions provider, for OpenAI itself and every compatible server.

This module owns the request as a whole (URL, headers, the body's top-level keys) and the
``Provider`` interface over the package's parts: ``_encode`` writes messages and tools,
``_decode`` reads streamed chunks and whole bodies, ``_errors`` maps error bodies. Server
differences are data in ``_profiles.OpenAIProfile``; HTTP, retries and SSE framing belong to
the transport.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from ..._conversation._events import Event
from ..._run._contract import Framing, OutputSupport, ProviderRequest
from ..._run._output import output_spec
from ..._wire._httpcall import HttpCall
from .._base import merge_extra_body
from ._cache import add_cache_fields
from ._decode import OpenAIStreamDecoder, decode_body
from ._encode import encode_messages, encode_response_format, encode_sampling, encode_tools
from ._errors import error_from_response
from ._profiles import DEFAULT_BASE_URL, OPENAI_PROFILE, OpenAIProfile, thinking_fields

__all__ = ["OpenAIProvider", "account_headers"]


def account_headers(
    api_key: str | None, organization: str | None = None, project: str | None = None
) -> dict[str, str]:
    """Every request's headers on OpenAI's APIs: JSON, the key, the organization and project."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if organization:
        headers["OpenAI-Organization"] = organization
    if project:
        headers["OpenAI-Project"] = project
    return headers


class OpenAIProvider:
    """Chat Completions for OpenAI or any compatible server described by ``profile``.

    Args:
        api_key: Sent as ``Authorization: Bearer``; None for local servers without auth.
        base_url: Including the version (``https://api.openai.com/v1``).
        profile: What the server accepts (see ``_profiles.PRESETS``).
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
        self.name = profile.name
        self.profile = profile
        self.output_support = OutputSupport(forced_call=profile.forces_calls)
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._headers = account_headers(api_key, organization, project)

    def __repr__(self) -> str:
        return f"OpenAIProvider(name={self.name!r}, url={self.url!r})"

    # -- requests ---------------------------------------------------------------------------

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The ``POST /chat/completions`` request for one round."""
        options = request.options
        body: dict[str, Any] = {
            "model": request.model,
            "messages": encode_messages(self.profile, request.messages),
        }
        if request.tools:
            encode_tools(self.profile, request, body)
        if options.native_tools:  # the server's own tool types, beside the functions
            body["tools"] = [*body.get("tools", ()), *options.native_tools]
        if request.stream:
            body["stream"] = True
            if self.profile.include_usage:
                body["stream_options"] = {"include_usage": True}
        encode_sampling(self.profile, options, body)
        body.update(thinking_fields(self.profile, options.thinking))
        output = output_spec(options.output_type)
        if output is not None:
            body["response_format"] = encode_response_format(output)
        merge_extra_body(body, options.extra_body)
        if self.profile.prompt_cache:  # after extra_body: a key set there is kept
            add_cache_fields(body, options.cache, conversation="messages")
        return HttpCall(self.url, self.request_headers(options.extra_headers), body, request.stream)

    def request_headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """A request's headers: content type, key and organization, then ``extra``."""
        headers = dict(self._headers)
        if extra:
            headers.update(extra)
        return headers

    # -- responses --------------------------------------------------------------------------

    def decode_stream(self, request: ProviderRequest | None = None) -> OpenAIStreamDecoder:
        """A fresh decoder for one streamed response."""
        return OpenAIStreamDecoder(self.name)

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
        """Events for a whole ``chat.completion`` body, the same a stream would produce."""
        return decode_body(self.name, body)

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an HTTP error response (``{"error": {...}}`` and variants)."""
        return error_from_response(self.name, status, body, headers)
