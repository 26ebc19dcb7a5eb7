"""The Google Gemini provider: the Generative Language API and Vertex AI.

Owns the endpoint (URL per API, model and streaming mode), authentication headers, the request
body's options (tools, ``toolConfig``, ``generationConfig`` with ``thinkingConfig``, per model
generation), and the ``Provider`` interface over three helpers: ``_encode`` encodes the
conversation, ``_decode`` turns answers into neutral events, ``_errors`` maps
Google's error bodies. No I/O here: sending and SSE framing belong to ``_http.py`` and
``_framing.py``.

Vertex AI takes the same bodies and answers; only the URL and the credentials differ
(``VertexConfig``, shared with Claude on Vertex in ``providers/_vertex.py``): a bearer token the
user supplies, or credentials that refresh themselves (``auth``, which the HTTP model asks
before each request); a Vertex "express mode" API key goes in ``x-goog-api-key`` like a Gemini
API key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from ..._conversation._events import Event
from ..._errors import ConfigError, ProviderError
from ..._knowledge._modelrules import thinking_budget
from ..._run._contract import Framing, OutputSupport, ProviderRequest
from ..._run._output import output_spec
from ..._tools.decorator import read_only_schema
from ..._wire._httpcall import HttpCall
from .._base import extra_sampling, merge_extra_body, refuse_unenforceable, sampling_fields
from .._vertex import VertexConfig, vertex_token
from ._decode import GeminiStreamDecoder
from ._dialect import SCHEMA_DIALECTS
from ._encode import encode_contents, encode_system
from ._errors import error_from_response
from ._name import PROVIDER
from ._rules import rules_for

if TYPE_CHECKING:
    from ..._run._options import LangOptions

__all__ = [
    "DEFAULT_BASE_URL",
    "GeminiProvider",
    "GeminiStreamDecoder",
    "VertexConfig",
    "encode_body",
    "encode_thinking",
    "is_legacy",
]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_LEVELS = ("minimal", "low", "medium", "high")
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
# generationConfig's own sampling fields; it takes no logit bias nor an end user's id.
_EXTRA_SAMPLING = {
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
    "top_k": "topK",
    "logprobs": "responseLogprobs",
    "top_logprobs": "logprobs",  # Gemini's ``logprobs`` is the count of alternatives
}
# Gemini 2.x takes no thinkingLevel (400 "thinking_level is not supported by this model"; the
# thinking docs: "If you use the thinking_level parameter with a model earlier than Gemini 3,
# the model returns an error"), so an effort becomes a budget there, from the thinking table.


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
    framing: Framing = "sse"
    output_support = OutputSupport(forced_call=True)  # toolConfig mode ANY forces a call

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        api_version: str = "v1beta",
        schema_dialect: Literal["gemini", "gemini-json"] = "gemini",
        vertex: VertexConfig | None = None,
    ) -> None:
        if schema_dialect not in SCHEMA_DIALECTS:
            raise ConfigError(
                f"schema_dialect must be 'gemini' or 'gemini-json', not {schema_dialect!r}"
            )
        if not api_key and vertex is None:
            raise ConfigError("Gemini needs an api_key (GEMINI_API_KEY or GOOGLE_API_KEY)")
        # On Vertex without a token or key: refreshing credentials (ADC by default).
        self.auth = vertex_token(vertex, api_key=api_key) if vertex is not None else None
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.api_version = api_version
        self.schema_dialect = schema_dialect
        self.vertex = vertex

    def __repr__(self) -> str:
        where = f"vertex={self.vertex!r}" if self.vertex else f"base_url={self.base_url!r}"
        return f"GeminiProvider({where}, schema_dialect={self.schema_dialect!r})"

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The HTTP request for one round (see ``encode_body`` for the body)."""
        method = "streamGenerateContent?alt=sse" if request.stream else "generateContent"
        headers = self._headers()
        headers.update(request.options.extra_headers or {})
        return HttpCall(
            url=f"{self.model_url(request.model)}:{method}",
            headers=headers,
            body=encode_body(request, dialect=self.schema_dialect, vertex=self.vertex is not None),
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
        elif self.api_key and self.auth is None:
            headers["x-goog-api-key"] = self.api_key  # header, never ?key=, to keep URLs clean
        return headers

    def decode_stream(self, request: ProviderRequest | None = None) -> GeminiStreamDecoder:
        """A fresh decoder for one streamed answer."""
        return GeminiStreamDecoder(_top_logprobs(request))

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
        """Events for a whole ``generateContent`` body, the same as streaming would give."""
        decoder = GeminiStreamDecoder(_top_logprobs(request))
        return decoder.feed_json(body) + decoder.close()

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
        """The exception for an HTTP error answer (``google.rpc.Status`` body)."""
        return error_from_response(status, body, headers)


def _top_logprobs(request: ProviderRequest | None) -> int | None:
    """How many alternatives the decoder keeps per token; None: no logprobs were asked."""
    if request is None or not request.options.logprobs:
        return None
    return request.options.top_logprobs or 0


# --- request body ----------------------------------------------------------------------


def is_legacy(model: str) -> bool:
    """Whether ``model`` is a Gemini before 3 (budgets, unvalidated thought signatures).

    An id we cannot read (an alias like ``gemini-flash-latest``, a tuned model) is treated as
    current, the shape Google documents for new models.
    """
    return rules_for(PROVIDER, model).get("thinking_form") == "budget"


def encode_body(request: ProviderRequest, *, dialect: str, vertex: bool = False) -> dict[str, Any]:
    """The JSON body of a ``generateContent`` / ``streamGenerateContent`` request.

    Args:
        request: The round to encode.
        dialect: The tool schema dialect, ``"gemini"`` or ``"gemini-json"``.
        vertex: The body goes to Vertex AI (which fetches ``gs://`` URLs itself).

    Raises:
        ConfigError: An option Gemini cannot honour (see ``encode_tool_config`` and
            ``encode_thinking``), or a conversation it would reject (see
            ``_encode.encode_contents``).
    """
    options = request.options
    legacy = is_legacy(request.model)
    contents = encode_contents(
        request.messages,
        placeholders=not legacy,
        media_in_results=bool(rules_for(PROVIDER, request.model).get("media_in_results")),
        vertex=vertex,
    )
    body: dict[str, Any] = {"contents": contents}
    system = encode_system(request.messages)
    if system is not None:
        body["systemInstruction"] = system
    if request.tools:
        declarations = [read_only_schema(tool, dialect) for tool in request.tools]
        body["tools"] = [{"functionDeclarations": declarations}]
    if options.native_tools:  # googleSearch, codeExecution...: entries beside the functions
        body["tools"] = [*body.get("tools", ()), *options.native_tools]
    tool_config = encode_tool_config(request)
    if tool_config is not None:
        body["toolConfig"] = tool_config
    generation = encode_generation_config(options, legacy=legacy)
    output = output_spec(options.output_type)
    if output is not None:
        # §3.2: responseJsonSchema takes the same JSON Schema dialect as parametersJsonSchema.
        schema = output.tool.schema_for("gemini-json")["parametersJsonSchema"]
        generation.update(responseMimeType="application/json", responseJsonSchema=schema)
    if generation:
        body["generationConfig"] = generation
    merge_extra_body(body, options.extra_body)
    return body


def encode_tool_config(request: ProviderRequest) -> dict[str, Any] | None:
    """``toolConfig.functionCallingConfig`` from the request's tool choice, or None when unset.

    Without declarations nothing is sent: Gemini answers a ``toolConfig`` alone with 400
    "Function calling config is set without function_declarations".

    Raises:
        ConfigError: ``parallel_tool_calls=False``, which Gemini has no switch for.
    """
    if not request.tools:
        return None  # nothing to call: the choice is moot
    choice = request.tool_choice
    # Gemini has no switch for parallel calls (parallel=False still runs them one by one).
    refuse_unenforceable(PROVIDER, choice, request.options, forbids_parallel_calls=False)
    if choice is None:
        return None
    if choice.mode == "named":
        config: dict[str, Any] = {"mode": "ANY", "allowedFunctionNames": [choice.name]}
    else:
        config = {"mode": _MODES[choice.mode]}
    return {"functionCallingConfig": config}


def encode_generation_config(options: LangOptions, *, legacy: bool = False) -> dict[str, Any]:
    """``generationConfig``: sampling, output cap, stop sequences and thinking."""
    config = sampling_fields(
        options, max_tokens="maxOutputTokens", top_p="topP", stop="stopSequences"
    )
    config.update(extra_sampling(options, PROVIDER, _EXTRA_SAMPLING))
    if config.get("logprobs") == 0:
        # Vertex takes 1 to 20 alternatives; without the key the tokens come with none,
        # which is what 0 asks for, on both APIs.
        del config["logprobs"]
    thinking = encode_thinking(options.thinking, legacy=legacy)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    return config


def encode_thinking(value: object, *, legacy: bool = False) -> dict[str, Any] | None:
    """``thinkingConfig`` for the ``thinking`` option (§3.6); budget and level never both.

    ``True`` asks for thought summaries with the model's default thinking; an int is a
    ``thinkingBudget`` (``-1`` dynamic; Gemini 3 still takes budgets); ``"minimal"``/
    ``"low"``/``"medium"``/``"high"`` is a ``thinkingLevel`` on Gemini 3 and a budget from
    the thinking table (``thinking_budget``) on ``legacy`` (2.x) models. ``False`` or ``0`` sends
    ``thinkingBudget: 0``, Gemini's way to switch thinking off (models that cannot, such as
    2.5 Pro, answer 400: not silently changed here), without ``includeThoughts``.

    Raises:
        ConfigError: A string that is not a thinking level, or a budget below -1.
    """
    if value is None:
        return None
    if value is True:
        return {"includeThoughts": True}
    if value is False or value == 0:
        return {"thinkingBudget": 0}
    if isinstance(value, int) and value >= -1:
        return {"includeThoughts": True, "thinkingBudget": value}
    if isinstance(value, str) and value.lower() in _LEVELS:
        if legacy:
            return {"includeThoughts": True, "thinkingBudget": thinking_budget(value.lower())}
        return {"includeThoughts": True, "thinkingLevel": value.upper()}
    raise ConfigError(
        f"thinking={value!r} is not valid for Gemini: use True, a token budget (int, -1 for "
        f"dynamic), or one of {', '.join(_LEVELS)}"
    )
