"""The provider for Ollama's native ``/api/chat`` wire.

This module owns the request as a whole (URL, headers, the body's top-level keys such as
``think``, ``format``, ``keep_alive`` and an explicit ``stream``) and the ``Provider``
interface over the package's parts: ``_encode`` writes messages and tools, ``_decode`` reads the
NDJSON answer, ``_errors`` maps error bodies, ``_defaults`` reads ``OLLAMA_HOST``. Sending
bytes and splitting lines belong to the transport and the framing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ... import _errors as errors
from ..._conversation._events import Event
from ..._run._contract import Framing, ProviderRequest
from ..._run._options import LangOptions
from ..._run._output import output_spec
from ..._tools.walk import inline_refs
from ..._wire._httpcall import HttpCall
from .._base import merge_extra_body
from ._decode import OllamaDecoder
from ._defaults import DEFAULT_BASE_URL, NAME
from ._encode import (
    encode_generation,
    encode_logprobs,
    encode_messages,
    encode_think,
    encode_tools,
)
from ._errors import error_from_response

__all__ = ["OllamaProvider"]


class OllamaProvider:
    """The native Ollama chat API (``POST {base_url}/api/chat``), local or ollama.com.

    Args:
        base_url: The server root, without ``/api`` (see ``default_base_url`` for
            ``OLLAMA_HOST``).
        api_key: Sent as a bearer token; only ollama.com needs one.
        keep_alive: How long the server keeps the model loaded (``"5m"``, seconds, ``-1``).
        tool_calls_in_content: Recognize tool calls that a model wrote as JSON text in its
            answer (only when they name a declared tool and make up the whole answer).
    """

    name: str = NAME
    framing: Framing = "ndjson"

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        keep_alive: str | int | None = None,
        tool_calls_in_content: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.keep_alive = keep_alive
        self.tool_calls_in_content = tool_calls_in_content
        # Thinking goes back on assistant turns: Ollama's tool-calling guide asks for the
        # turn's thinking, content and calls together, and the model's template decides what
        # to render (Qwen templates keep it within a tool loop; confirmed by ollama/ollama
        # #18281). ollama.com itself reportedly answers 400 to history messages carrying
        # ``thinking`` (can1357/oh-my-pi#1000; unconfirmed by Ollama's docs), so not there.
        self._replay_thinking = urlsplit(self.base_url).hostname != "ollama.com"

    def encode(self, request: ProviderRequest) -> HttpCall:
        """The ``/api/chat`` request for one round.

        Raises:
            ConfigError: ``function_call`` forces a call, or ``parallel_tool_calls=False``,
                with tools given: Ollama's native API has neither switch. Or thinking is
                turned off for GPT-OSS, which always reasons.
        """
        options = request.options
        messages = encode_messages(request, thinking=self._replay_thinking)
        body: dict[str, Any] = {"model": request.model, "messages": messages}
        tools = encode_tools(request)
        if tools:
            body["tools"] = tools
        body["stream"] = request.stream  # explicit: Ollama streams when the key is missing
        think = encode_think(options.thinking, request.model)
        if think is not None:
            body["think"] = think
        output = output_spec(options.output_type)
        if output is not None:  # a JSON schema that constrains the answer; refs inlined
            body["format"] = inline_refs(output.schema, output.schema)
        generation = encode_generation(options)
        if generation:
            body["options"] = generation
        body.update(encode_logprobs(options))
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        merge_extra_body(body, options.extra_body)
        return HttpCall(self.base_url + "/api/chat", self._headers(options), body, request.stream)

    def decode_stream(self, request: ProviderRequest | None = None) -> OllamaDecoder:
        """A fresh decoder; the tools ``request`` lets the model call enable the JSON fallback
        (this wire may carry a call as text)."""
        reads_text = request is not None and self.tool_calls_in_content
        names = request.tool_names if request is not None and reads_text else ()
        if request is None or not request.options.logprobs:
            return OllamaDecoder(names)
        return OllamaDecoder(names, top_logprobs=request.options.top_logprobs or 0)

    def decode_response(self, body: Any, request: ProviderRequest | None = None) -> list[Event]:
        """Events for a whole ``stream: false`` body (one object with ``done: true``)."""
        decoder = self.decode_stream(request)
        return decoder.feed_object(body) + decoder.close()

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        """The exception for an HTTP error; the message says how to fix the common ones."""
        return error_from_response(status, body, headers)

    def _headers(self, options: LangOptions) -> dict[str, str]:
        headers: dict[str, str] = {}  # _http.py sets the JSON content type
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        headers.update(options.extra_headers or {})
        return headers
