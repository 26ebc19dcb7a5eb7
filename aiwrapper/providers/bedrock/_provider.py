"""Amazon Bedrock's Converse API: ``POST /model/{modelId}/converse`` and ``/converse-stream``.

This module owns the request as a whole: ``system`` and ``messages`` from ``_encode``, the
``toolConfig`` (``toolSpec`` declarations and a ``toolChoice`` of ``auto``, ``any`` or one
``tool``), the ``inferenceConfig`` (``maxTokens``, ``temperature``, ``topP``,
``stopSequences``), and Claude's thinking in ``additionalModelRequestFields``. Streamed answers
arrive in the binary eventstream framing, which the transport decodes; ``_decode`` reads the
events and ``_errors`` the error answers.

Decisions where the wire leaves a choice:

* Converse has no ``none`` tool choice, and a conversation holding ``toolUse`` blocks must
  declare its tools, so ``function_call="none"`` sends no tools when the history has no calls
  and is a ``ConfigError`` otherwise: dropping the choice would let the model call anyway.
* ``parallel_tool_calls=False`` has no switch here and is a ``ConfigError``.
* Credentials: a Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``) is sent as a bearer token and
  needs no extra; otherwise every request is SigV4-signed with botocore's credential chain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from ... import _errors as errors
from ..._conversation._events import Event
from ..._conversation._messages import LangMessage, ToolCallPart
from ..._run._contract import Framing, OutputSupport, ProviderRequest
from ..._run._options import LangOptions
from ..._tools.decorator import read_only_schema
from ..._wire._httpcall import HttpCall
from .._base import extra_sampling, merge_extra_body, refuse_unenforceable, stop_sequences
from ..anthropic._models import (
    check_budget_fits,
    encode_sampling,
    encode_thinking,
    encode_tool_choice,
    family_for,
)
from ._aws_auth import SigV4Signer
from ._cache import caches, place_cache_points
from ._decode import BedrockStreamDecoder, decode_converse
from ._encode import encode_messages
from ._errors import error_from_response
from ._name import NAME
from ._sigv4 import AwsCredentials

__all__ = ["BedrockProvider"]

_ANSWER_TOKENS = 4096  # room for the answer beside a thinking budget, when maxTokens is unset


class BedrockProvider:
    """Amazon Bedrock's Converse API, for every model that takes tools there.

    Args:
        region: The AWS region (``us-east-1``...); the endpoint is
            ``https://bedrock-runtime.{region}.amazonaws.com`` unless ``base_url`` is given.
        api_key: A Bedrock API key, sent as ``Authorization: Bearer``; no SigV4 then.
        credentials: Fixed AWS credentials to sign with; ``None`` reads botocore's chain.
        profile: The shared-config profile botocore's chain reads.
        base_url: Another endpoint (a VPC endpoint, a proxy, a test server).
    """

    name = NAME
    framing: Framing = "eventstream"
    output_support = OutputSupport(forced_call=True)  # toolChoice "tool" forces one

    def __init__(
        self,
        *,
        region: str,
        api_key: str | None = None,
        credentials: AwsCredentials | None = None,
        profile: str | None = None,
        base_url: str | None = None,
    ) -> None:
        if not region:
            raise errors.ConfigError("Bedrock needs a region: region=... or AWS_REGION")
        self.region = region
        self.base_url = (base_url or f"https://bedrock-runtime.{region}.amazonaws.com").rstrip("/")
        self.api_key = api_key
        self.signer = (
            None if api_key else SigV4Signer(region, credentials=credentials, profile=profile)
        )

    def __repr__(self) -> str:
        return f"BedrockProvider(region={self.region!r}, base_url={self.base_url!r})"

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The Converse request for one round."""
        options = request.options
        system, messages = encode_messages(request.messages)
        body: dict[str, Any] = {"messages": messages}
        if system:
            body["system"] = system
        tool_config = _tool_config(request)
        if tool_config is not None:
            body["toolConfig"] = tool_config
        extra_sampling(options, NAME, {})  # Converse has none of them: each is refused by name
        thinking, reserve = _thinking(request)
        inference = _inference(options, reserve)
        if inference:
            body["inferenceConfig"] = inference
        if thinking:
            body["additionalModelRequestFields"] = thinking
        merge_extra_body(body, options.extra_body)
        if options.cache and caches(request.model):
            place_cache_points(body, options.cache, request.model)
        action = "converse-stream" if request.stream else "converse"
        url = f"{self.base_url}/model/{quote(request.model, safe='')}/{action}"
        return HttpCall(url, self._headers(options), body, request.stream)

    def decode_stream(self, request: ProviderRequest | None = None) -> BedrockStreamDecoder:
        """A fresh decoder for one ConverseStream answer."""
        return BedrockStreamDecoder()

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
        """Events for a whole Converse answer."""
        return decode_converse(body)

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an error answer (its kind in ``x-amzn-ErrorType``)."""
        return error_from_response(status, body, headers)

    def _headers(self, options: LangOptions) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        headers.update(options.extra_headers or {})
        return headers


def _tool_config(request: ProviderRequest) -> dict[str, Any] | None:
    choice = request.tool_choice
    if not request.tools:
        return None
    if choice is not None and choice.mode == "none":
        if _holds_calls(request.messages):
            raise errors.ConfigError(
                "Bedrock's Converse API has no 'none' tool choice, and a conversation with "
                "tool calls must declare its tools: function_call='none' cannot be enforced"
            )
        return None
    refuse_unenforceable(NAME, choice, request.options, forbids_parallel_calls=False)
    config: dict[str, Any] = {"tools": [read_only_schema(t, NAME) for t in request.tools]}
    if choice is not None and choice.mode == "required":
        config["toolChoice"] = {"any": {}}
    elif choice is not None and choice.mode == "named":
        config["toolChoice"] = {"tool": {"name": choice.name}}
    return config


def _holds_calls(messages: Sequence[LangMessage]) -> bool:
    return any(
        message.role == "tool" or any(isinstance(p, ToolCallPart) for p in message.parts)
        for message in messages
    )


def _thinking(request: ProviderRequest) -> tuple[dict[str, Any], int]:
    """Claude's thinking fields, sent through ``additionalModelRequestFields``, and the tokens
    to reserve for them.

    Raises:
        ConfigError: Thinking asked of a model that is not Claude: Converse has no common
            field for it, and each other family takes its own in ``extra_body``.
    """
    options, model = request.options, request.model
    if options.thinking is None or options.thinking is False:
        return {}, 0
    _, found, claude = model.partition("anthropic.")  # "us.anthropic.claude-..."
    if not found:
        raise errors.ConfigError(
            f"Bedrock: the thinking option is sent for Claude models only, not {model!r}; pass "
            "the model's own field through extra_body={'additionalModelRequestFields': {...}}"
        )
    family = family_for(claude)
    thinking = encode_thinking(options.thinking, family, max_tokens=options.max_tokens)
    # Claude refuses these on Bedrock as on Anthropic's API: the same checks, before the request.
    encode_sampling(options, family, claude, thinking_on=True)
    encode_tool_choice(request.tool_choice, options, request.tool_names, thinking_on=True)
    if options.max_tokens is not None:
        check_budget_fits(options.max_tokens, thinking[0])
    return thinking


def _inference(options: LangOptions, reserve: int) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if options.max_tokens is not None:
        fields["maxTokens"] = options.max_tokens
    elif reserve:  # thinking counts toward maxTokens: leave the answer its own room
        fields["maxTokens"] = reserve + _ANSWER_TOKENS
    if options.temperature is not None:
        fields["temperature"] = options.temperature
    if options.top_p is not None:
        fields["topP"] = options.top_p
    if options.stop is not None:
        fields["stopSequences"] = stop_sequences(options.stop)
    return fields
