"""The Anthropic Messages wire format (``POST /v1/messages``).

This module owns the request as a whole: ``encode`` turns a ``ProviderRequest`` into the
Messages request (top-level ``system`` and content-block messages from ``_encode``, tools,
``tool_choice``, thinking per model generation from ``_models``); the stream decoder
(``_decode``) turns SSE events into neutral events, and ``_errors`` maps error responses.
Thinking blocks, signatures, redacted thinking and server-tool blocks ride on the assistant
message as ``ProviderState`` and are replayed verbatim and in order, because the API rejects a
tool loop whose thinking blocks were altered. Sending, retrying and SSE framing are left to the
transport and the framing.

Decisions where the wire leaves a choice:

* ``max_tokens`` is always sent. Left unset, it is ``default_max_tokens`` plus the thinking
  budget (or, for adaptive thinking, the budget matching the effort), so thinking never eats
  the answer. Set by the user, it must exceed a budget the user gave, else ``ConfigError``; a
  budget picked for ``True`` or an effort is fitted into it (at most half).
* A forced ``function_call`` (``"required"`` or a name) with thinking on, with no tools, or
  naming a tool not sent; a ``temperature`` other than 1 or a ``top_p`` below 0.95 with
  thinking on; both ``temperature`` and ``top_p`` on models from Opus 4.1 on; any sampling
  parameter on a model that removed them (Opus 4.7+); and thinking on while the calls
  awaiting results were made without Anthropic thinking (another provider's) are
  ``ConfigError`` before the request.
* HTTP 402 ``billing_error`` maps to ``PermissionDeniedError``: the key is valid but the
  account may not use the API until billing is fixed, and retrying cannot help.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ... import _errors as errors
from ..._conversation._events import Event
from ..._knowledge._modelfacts import ModelFacts
from ..._run._contract import Framing, OutputSupport, ProviderRequest
from ..._run._options import LangOptions
from ..._run._output import output_spec
from ..._tools.decorator import read_only_schema
from ..._wire._httpcall import HttpCall
from .._base import merge_extra_body
from .._vertex import VertexConfig, vertex_token
from ._cache import place_breakpoints
from ._decode import AnthropicStreamDecoder
from ._encode import encode_extra_sampling, encode_messages, holds_state, own_call_ids
from ._errors import error_from_response
from ._models import (
    check_budget_fits,
    check_thinking_turn,
    encode_sampling,
    encode_thinking,
    encode_tool_choice,
    family_for,
)
from ._name import NAME
from ._output import output_format, output_schema_supported

__all__ = ["DEFAULT_BASE_URL", "AnthropicProvider"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
VERTEX_VERSION = "vertex-2023-10-16"  # the body's anthropic_version on Vertex AI


class AnthropicProvider:
    """The Anthropic Messages API.

    Args:
        api_key: Sent as ``x-api-key``; ``None`` sends no key (a proxy that adds its own).
        base_url: The server root without ``/v1`` (``https://api.anthropic.com``).
        version: The ``anthropic-version`` header.
        betas: Flags joined into one ``anthropic-beta`` header
            (e.g. ``"interleaved-thinking-2025-05-14"`` for thinking between tool calls on
            Claude 4 models that use budgets).
        default_max_tokens: ``max_tokens`` when the options leave it unset (the API
            requires one), before thinking headroom is added. ``None`` (default) sends the
            model's output limit when ``aiwrapper.models`` knows it, else 4096 plus headroom.
        vertex: Send to Claude on Vertex AI instead (``api_key`` is then unused): the same
            Messages body, without ``model`` and with Vertex's ``anthropic_version``, posted to
            the model's ``:rawPredict`` (``:streamRawPredict`` when streamed) with a Google
            bearer token. A ``base_url`` other than the default replaces the Vertex host.
    """

    name = NAME
    framing: Framing = "sse"
    # Every model takes a forced tool, but only some take output_config.format, and only
    # for the schemas its grammar can carry.
    output_support = OutputSupport(forced_call=True, native_schemas=output_schema_supported)

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        version: str = "2023-06-01",
        betas: Sequence[str] = (),
        default_max_tokens: int | None = None,
        vertex: VertexConfig | None = None,
    ) -> None:
        self.vertex = vertex
        self.auth = vertex_token(vertex) if vertex is not None else None
        self.api_key = api_key if vertex is None else None
        self.base_url = base_url.rstrip("/")
        self.version = version
        self.betas = tuple(betas)
        self.default_max_tokens = default_max_tokens
        # What is known of each model (its output limit), kept while its sources stand.
        self._facts = ModelFacts()

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The Messages request for one round.

        A history holding ``tool_use``/``tool_result`` blocks is sent without ``tools`` when
        the round declares none: the API once answered that with 400 "Requests which include
        `tool_use` or `tool_result` blocks must define tools" (anthropic-sdk-python#494), but
        has accepted it since 2025-02-27 (API release notes; maintainer's answer in
        anthropic-sdk-python#849), so no stub declarations are invented for it.
        """
        options = request.options
        family = family_for(request.model)
        thinking, reserve = encode_thinking(options.thinking, family, max_tokens=options.max_tokens)
        extra_thinking = (options.extra_body or {}).get("thinking")
        thinking_on = bool(thinking) or _enabled(extra_thinking)
        system, messages = encode_messages(
            request.messages, thinking=thinking_on, urls=self.vertex is None
        )
        if thinking_on:
            check_thinking_turn(messages, own_call_ids(request.messages))
        names = [tool.name for tool in request.tools]
        choice = encode_tool_choice(request.tool_choice, options, names, thinking_on=thinking_on)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": self._max_tokens(request.model, options, thinking, reserve),
            "messages": messages,
        }
        if system:
            body["system"] = system
        if request.tools or options.native_tools:  # server tools go beside the functions
            body["tools"] = [read_only_schema(tool, "anthropic") for tool in request.tools]
            body["tools"] += options.native_tools or ()
        if choice is not None:
            body["tool_choice"] = choice
        body.update(encode_sampling(options, family, request.model, thinking_on=thinking_on))
        sampling, model = family.sampling, request.model
        body.update(
            encode_extra_sampling(options, model, sampling=sampling, thinking_on=thinking_on)
        )
        body.update(thinking)
        _add_output_format(body, options.output_type)
        if request.stream:
            body["stream"] = True
        merge_extra_body(body, options.extra_body)
        # After extra_body: its markers count too. Only what the user wrote can hold one: the
        # options that go in as given, and the provider's own state on message parts.
        unmarked = not (options.native_tools or options.extra_body or holds_state(request.messages))
        place_breakpoints(body, options.cache, unmarked=unmarked)
        return HttpCall(
            self._url(body, request.stream), self._headers(options), body, request.stream
        )

    def _url(self, body: dict[str, Any], stream: bool) -> str:
        """The Messages URL; on Vertex, the model's URL, taking ``model`` out of ``body``."""
        vertex = self.vertex
        if vertex is None:
            return self.base_url + "/v1/messages"
        # Claude on Vertex AI: the model goes in the path, the API version in the body (Google
        # Cloud's Claude docs; Anthropic's own Vertex client does the same).
        model = body.pop("model")
        body["anthropic_version"] = VERTEX_VERSION
        host = self.base_url if self.base_url != DEFAULT_BASE_URL else vertex.host()
        method = "streamRawPredict" if stream else "rawPredict"
        return (
            f"{host}/v1/projects/{vertex.project}/locations/{vertex.location}"
            f"/publishers/anthropic/models/{model}:{method}"
        )

    def decode_stream(self, request: ProviderRequest | None = None) -> AnthropicStreamDecoder:
        """A fresh decoder for one streamed response."""
        return AnthropicStreamDecoder()

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
        """Events for a whole (non-streamed) message body, as its stream would give them."""
        return AnthropicStreamDecoder().decode_message(body)

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an error response (``{"type":"error","error":{type,message}}``)."""
        return error_from_response(status, body, headers)

    def _max_tokens(
        self, model: str, options: LangOptions, thinking: dict[str, Any], reserve: int
    ) -> int:
        if options.max_tokens is None:
            limit = self._output_limit(model) if self.default_max_tokens is None else None
            if limit is not None:
                return limit
            return (self.default_max_tokens or _FALLBACK_MAX_TOKENS) + reserve
        interleaved = any(beta.startswith("interleaved-thinking") for beta in self.betas)
        check_budget_fits(options.max_tokens, thinking, interleaved=interleaved)
        return options.max_tokens

    def _output_limit(self, model: str) -> int | None:
        """The model's own output limit: thinking counts toward it, so no headroom is added."""
        info = self._facts.info(NAME, model)
        return info.max_output_tokens if info is not None else None

    def _headers(self, options: LangOptions) -> dict[str, str]:
        headers = (  # on Vertex the version rides in the body
            {"anthropic-version": self.version, "content-type": "application/json"}
            if self.vertex is None
            else {"content-type": "application/json"}
        )
        if self.vertex is not None and self.vertex.access_token:
            headers["Authorization"] = f"Bearer {self.vertex.access_token}"
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        if self.betas:
            headers["anthropic-beta"] = ",".join(self.betas)
        headers.update(options.extra_headers or {})
        return headers


_FALLBACK_MAX_TOKENS = 4096


def _enabled(thinking: object) -> bool:
    """Whether a raw ``thinking`` field (given through ``extra_body``) turns thinking on."""
    return isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive")


def _add_output_format(body: dict[str, Any], output_type: Any) -> None:
    """The structured output's format, beside a thinking effort in the same output_config."""
    output = output_spec(output_type)
    if output is not None:
        body.setdefault("output_config", {})["format"] = output_format(output.schema)
