"""An example provider, the way a new one is added: this package, plus one factory line.

The "echo" wire is made up and tiny: ``POST {base_url}/echo`` with the conversation, the tools
and the model as JSON; the answer is NDJSON (one object a line: ``{"text": ...}``, ``{"call":
{"id", "name", "arguments"}}`` and a last ``{"done": true, "reason", "usage"}``), or, not
streamed, ``{"lines": [...]}`` holding the same objects. Errors are ``{"error": "message"}``
with an HTTP status. Everything else (sending, retries, framing, the tool loop, events for
``on_result``) is the SDK's machinery, reached through the contract only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from typing_extensions import Unpack

from aiwrapper import _errors as errors
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import LangMessage
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._wire._http import HttpSettings
from aiwrapper._wire._httpcall import HttpCall
from aiwrapper.providers import _base as shared
from aiwrapper.providers._http_model import HttpModel

__all__ = ["API_KEY_ENV_VARS", "DEFAULT_BASE_URL", "DEFAULT_MODEL", "EchoProvider", "build"]

API_KEY_ENV_VARS = ("ECHO_API_KEY",)
DEFAULT_BASE_URL = "http://127.0.0.1:9"
DEFAULT_MODEL = "echo-1"


class EchoProvider:
    """The echo wire: pure translation, as every provider is."""

    name = "echo"
    framing: Literal["sse", "ndjson"] = "ndjson"

    def __init__(self, *, base_url: str, api_key: str | None) -> None:
        self.url = base_url.rstrip("/") + "/echo"
        self.api_key = api_key

    def encode(self, request: ProviderRequest) -> HttpCall:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [_encode_message(m) for m in request.messages],
            "tools": [{"name": t.name, "parameters": t.parameters} for t in request.tools],
            "stream": request.stream,
        }
        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return HttpCall(self.url, headers, body, request.stream)

    def decode_stream(self, request: ProviderRequest) -> EchoDecoder:
        return EchoDecoder(request.tool_names)

    def decode_response(self, body: Any, request: ProviderRequest) -> list[Event]:
        decoder = EchoDecoder(request.tool_names)
        events = [e for line in body["lines"] for e in decoder.decode(line)]
        return events + decoder.close()

    def error(self, status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
        parsed = shared.parse_json_body(body)
        message = parsed.get("error") if isinstance(parsed, dict) else None
        cls = shared.error_class_for_status(status)
        return shared.make_error(
            cls,
            str(message or status),
            provider=self.name,
            status=status,
            body=parsed,
            headers=headers,
        )


class EchoDecoder:
    """One response's NDJSON lines as neutral events; it must end with ``done``.

    Args:
        tool_names: The tools the request let the model call; a call to any other is refused.
    """

    def __init__(self, tool_names: tuple[str, ...]) -> None:
        self._tool_names = tool_names
        self._calls = 0
        self._done = False

    def feed(self, event: str | None, data: str) -> list[Event]:
        return self.decode(json.loads(data))

    def decode(self, line: Mapping[str, Any]) -> list[Event]:
        if "text" in line:
            return [TextDelta(line["text"])]
        if "call" in line:
            call, index = line["call"], self._calls
            if call["name"] not in self._tool_names:
                raise errors.StreamError(f"echo: a call to {call['name']!r}, which was not allowed")
            self._calls += 1
            return [
                ToolCallStart(index, call["id"], call["name"]),
                ToolCallEnd(index, call["arguments"]),
            ]
        if line.get("done"):
            self._done = True
            usage = line.get("usage") or {}
            return [
                UsageEvent(input_tokens=usage.get("in"), output_tokens=usage.get("out")),
                FinishEvent(line["reason"], raw=line["reason"]),
            ]
        return []

    def close(self) -> list[Event]:
        if not self._done:
            raise errors.StreamError("echo: the answer ended before its done line")
        return []


def build(
    model: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    **http: Unpack[HttpSettings],
) -> HttpModel:
    """The echo wire as a model (key from ``ECHO_API_KEY``, optional)."""
    provider = EchoProvider(
        base_url=base_url or DEFAULT_BASE_URL,
        api_key=shared.api_key(api_key, API_KEY_ENV_VARS, required=False),
    )
    return HttpModel.connect(provider, model or DEFAULT_MODEL, **http)


def _encode_message(message: LangMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "text": message.content}
    if message.tool_calls:
        out["calls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        ]
    if message.role == "tool":
        out["call_id"] = message.tool_call_id
    return out
