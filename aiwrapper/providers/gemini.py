"""The Google Gemini provider: the Generative Language API and Vertex AI (protocols.md §3).

Owns the endpoint (URL per API, model and streaming mode), authentication headers, and the
``Provider`` interface over three helpers: ``gemini_encode`` builds request bodies,
``gemini_decode`` turns answers into neutral events, ``gemini_errors`` maps Google's error
bodies. No I/O here: sending and SSE framing belong to ``http.py`` and ``framing.py``.

Vertex AI takes the same bodies and answers; only the URL and the credentials differ
(``VertexConfig``). A bearer token is supplied by the user (no Google auth library is used);
a Vertex "express mode" API key goes in ``x-goog-api-key`` like a Gemini API key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ConfigError, ProviderError
from ..events import Event
from .base import HttpCall, ProviderRequest
from .gemini_decode import GeminiStreamDecoder
from .gemini_encode import PROVIDER, encode_body
from .gemini_errors import error_from_response

__all__ = ["DEFAULT_BASE_URL", "GeminiProvider", "GeminiStreamDecoder", "VertexConfig"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_DIALECTS = ("gemini", "gemini-json")


@dataclass(frozen=True, slots=True)
class VertexConfig:
    """Where and how to reach Gemini on Vertex AI.

    Attributes:
        project: The Google Cloud project id. Empty with an API key (and no token) selects
            express mode, whose URLs carry no project or location.
        location: The region, e.g. ``"us-central1"``; ``"global"`` (default) uses the global
            endpoint ``https://aiplatform.googleapis.com``.
        access_token: An OAuth access token, sent as ``Authorization: Bearer``. Without it the
            provider's ``api_key`` is sent as ``x-goog-api-key`` (express mode).
        api_version: ``"v1beta1"`` (default, as Google's SDK) or ``"v1"``.
    """

    project: str
    location: str = "global"
    access_token: str | None = field(default=None, repr=False)
    api_version: str = "v1beta1"

    def host(self) -> str:
        """The regional (or global) Vertex AI endpoint."""
        if self.location == "global":
            return "https://aiplatform.googleapis.com"
        return f"https://{self.location}-aiplatform.googleapis.com"


class GeminiProvider:
    """Gemini's ``generateContent`` wire, on the Gemini API or on Vertex AI.

    Args:
        api_key: A Gemini API key (``x-goog-api-key``), or a Vertex express-mode key.
        base_url: The API root without version (Google AI); with ``vertex`` a non-default value
            replaces the Vertex host (a private endpoint, a proxy).
        api_version: The Gemini API version (``v1beta``: thinking and ``parametersJsonSchema``
            may be missing from ``v1``). Vertex uses ``VertexConfig.api_version``.
        schema_dialect: ``"gemini"`` sends tools as the OpenAPI-subset ``parameters`` every
            Gemini model accepts; ``"gemini-json"`` sends ``parametersJsonSchema``.
        vertex: Send to Vertex AI instead of the Gemini API.

    Raises:
        ConfigError: No credentials at all, or an unknown schema dialect.
    """

    name = PROVIDER
    framing: Literal["sse", "ndjson"] = "sse"

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        api_version: str = "v1beta",
        schema_dialect: Literal["gemini", "gemini-json"] = "gemini",
        vertex: VertexConfig | None = None,
    ) -> None:
        if schema_dialect not in _DIALECTS:
            raise ConfigError(
                f"schema_dialect must be 'gemini' or 'gemini-json', not {schema_dialect!r}"
            )
        token = vertex.access_token if vertex is not None else None
        if not api_key and not token:
            where = "a Vertex access_token or an express-mode api_key" if vertex else "an api_key"
            raise ConfigError(f"Gemini needs {where} (GEMINI_API_KEY or GOOGLE_API_KEY)")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.api_version = api_version
        self.schema_dialect = schema_dialect
        self.vertex = vertex

    def __repr__(self) -> str:
        where = f"vertex={self.vertex!r}" if self.vertex else f"base_url={self.base_url!r}"
        return f"GeminiProvider({where}, schema_dialect={self.schema_dialect!r})"

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The HTTP request for one round (see ``gemini_encode.encode_body`` for the body)."""
        method = "streamGenerateContent?alt=sse" if request.stream else "generateContent"
        headers = self._headers()
        headers.update(request.options.extra_headers or {})
        return HttpCall(
            url=f"{self.model_url(request.model)}:{method}",
            headers=headers,
            body=encode_body(request, dialect=self.schema_dialect),
            stream=request.stream,
        )

    def model_url(self, model: str) -> str:
        """The model's resource URL, to which ``:generateContent`` is appended."""
        model = model.removeprefix("models/")  # "models/gemini-x" is the resource name form
        vertex = self.vertex
        if vertex is None:
            return f"{self.base_url}/{self.api_version}/models/{model}"
        host = self.base_url if self.base_url != DEFAULT_BASE_URL else vertex.host()
        root = f"{host}/{vertex.api_version}"
        if vertex.project:
            root += f"/projects/{vertex.project}/locations/{vertex.location}"
        return f"{root}/publishers/google/models/{model}"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.vertex is not None and self.vertex.access_token:
            headers["Authorization"] = f"Bearer {self.vertex.access_token}"
        elif self.api_key:
            headers["x-goog-api-key"] = self.api_key  # header, never ?key=, to keep URLs clean
        return headers

    def decode_stream(self) -> GeminiStreamDecoder:
        """A fresh decoder for one streamed answer."""
        return GeminiStreamDecoder()

    def decode_response(self, body: Any) -> list[Event]:
        """Events for a whole ``generateContent`` body, the same as streaming would give."""
        decoder = GeminiStreamDecoder()
        return decoder.feed_json(body) + decoder.close()

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
        """The exception for an HTTP error answer (``google.rpc.Status`` body)."""
        return error_from_response(status, body, headers)
