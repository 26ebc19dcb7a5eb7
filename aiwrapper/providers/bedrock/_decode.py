"""Converse answers as neutral events: ConverseStream's event messages, or a whole body.

A stream (decoded from its binary framing by the transport) is a sequence of named events:
``messageStart``; per content block ``contentBlockStart`` (a tool use's id and name),
``contentBlockDelta`` (``text``, ``toolUse.input`` fragments, ``reasoningContent`` text,
signature or redacted bytes) and ``contentBlockStop``; ``messageStop`` with the stop reason;
and ``metadata`` with the usage. An exception event (``throttlingException``...) ends the
stream with its error. A whole Converse body holds the same blocks at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from ..._conversation._events import (
    Event,
    FinishEvent,
    FinishReason,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..._conversation._messages import ProviderState
from ._errors import stream_error
from ._name import NAME

__all__ = ["BedrockStreamDecoder", "decode_converse"]

_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}


class BedrockStreamDecoder:
    """Turns ConverseStream's events into neutral events; one decoder per answer."""

    def __init__(self) -> None:
        self._calls: set[int] = set()
        self._started: set[int] = set()  # blocks whose first piece was seen

    def feed(self, name: str | None, data: str) -> list[Event]:
        """The events of one stream message (``name`` is its event or exception type)."""
        try:
            payload = json.loads(data) if data else {}
        except ValueError as exc:
            raise errors.StreamError(f"bedrock: an event is not JSON ({exc})") from exc
        if not isinstance(payload, dict):
            raise errors.StreamError(f"bedrock: a {name} event is not an object")
        handler = _HANDLERS.get(name or "")
        if handler is not None:
            return handler(self, payload)
        if name == ":error" or (name or "").endswith("Exception"):
            raise stream_error(name or "", payload)
        return []  # messageStart, and events this SDK does not read

    def close(self) -> list[Event]:
        """Nothing is held back: every event is complete when it arrives."""
        return []

    def _start(self, payload: Mapping[str, Any]) -> list[Event]:
        index = _index(payload)
        tool = _object(payload.get("start"), "start").get("toolUse")
        if tool is None:
            return []
        tool = _object(tool, "start.toolUse")
        name, call_id = tool.get("name"), tool.get("toolUseId")
        if not isinstance(name, str) or not isinstance(call_id, str):
            raise errors.StreamError("bedrock: a tool use starts without a string name and id")
        self._calls.add(index)
        return [ToolCallStart(index, call_id, name)]

    def _delta(self, payload: Mapping[str, Any]) -> list[Event]:
        index = _index(payload)
        delta = _object(payload.get("delta"), "delta")
        first = index not in self._started
        self._started.add(index)
        if "text" in delta:
            return [TextDelta(_string(delta["text"], "delta.text"), new_part=first)]
        if "toolUse" in delta:
            fragment = _object(delta["toolUse"], "delta.toolUse").get("input", "")
            return [ToolCallDelta(index, _string(fragment, "delta.toolUse.input"))]
        if "reasoningContent" in delta:
            return _reasoning(_object(delta["reasoningContent"], "reasoningContent"), first)
        return []

    def _stop(self, payload: Mapping[str, Any]) -> list[Event]:
        index = _index(payload)
        return [ToolCallEnd(index)] if index in self._calls else []

    def _finish(self, payload: Mapping[str, Any]) -> list[Event]:
        return [_finish_event(payload.get("stopReason"))]

    def _metadata(self, payload: Mapping[str, Any]) -> list[Event]:
        usage = payload.get("usage")
        return [_usage(usage)] if isinstance(usage, dict) else []


_HANDLERS = {
    "contentBlockStart": BedrockStreamDecoder._start,
    "contentBlockDelta": BedrockStreamDecoder._delta,
    "contentBlockStop": BedrockStreamDecoder._stop,
    "messageStop": BedrockStreamDecoder._finish,
    "metadata": BedrockStreamDecoder._metadata,
}


def decode_converse(body: Any) -> list[Event]:
    """The events of a whole Converse answer, in the order its stream would give them."""
    body = _object(body, "the answer")
    message = _object(_object(body.get("output"), "output").get("message"), "output.message")
    content = message.get("content")
    if not isinstance(content, list):
        raise errors.StreamError("bedrock: output.message.content is not a list")
    events: list[Event] = []
    for index, block in enumerate(content):
        events += _whole_block(index, _object(block, "a content block"))
    if isinstance(body.get("usage"), dict):
        events.append(_usage(body["usage"]))
    events.append(_finish_event(body.get("stopReason")))
    return events


def _whole_block(index: int, block: Mapping[str, Any]) -> list[Event]:
    if "text" in block:
        return [TextDelta(_string(block["text"], "text"), new_part=True)]
    if "toolUse" in block:
        tool = _object(block["toolUse"], "toolUse")
        name, call_id = tool.get("name"), tool.get("toolUseId")
        if not isinstance(name, str) or not isinstance(call_id, str):
            raise errors.StreamError("bedrock: a tool use without a string name and id")
        arguments = _object(tool.get("input", {}), "toolUse.input")
        return [ToolCallStart(index, call_id, name), ToolCallEnd(index, dict(arguments))]
    if "reasoningContent" in block:
        reasoning = _object(block["reasoningContent"], "reasoningContent")
        text = reasoning.get("reasoningText")
        if isinstance(text, dict):
            return _reasoning(text, True)
        return _reasoning(reasoning, True)
    return []


def _reasoning(piece: Mapping[str, Any], first: bool) -> list[Event]:
    events: list[Event] = []
    if "text" in piece:
        events.append(ThinkingDelta(_string(piece["text"], "reasoning text"), new_part=first))
    if "signature" in piece:
        signature = _string(piece["signature"], "reasoning signature")
        events.append(PartStateEvent(ProviderState(NAME, {"signature": signature})))
    if "redactedContent" in piece:
        redacted = _string(piece["redactedContent"], "redactedContent")
        events.append(OpaquePartEvent(ProviderState(NAME, {"redacted": redacted}), "thinking"))
    return events


def _finish_event(reason: object) -> FinishEvent:
    raw = reason if isinstance(reason, str) else None
    return FinishEvent(_FINISH.get(raw or "", "error" if raw else "stop"), raw)


def _usage(usage: Mapping[str, Any]) -> UsageEvent:
    def count(key: str) -> int | None:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    uncached, read, written = (
        count("inputTokens"),
        count("cacheReadInputTokens"),
        count("cacheWriteInputTokens"),
    )
    return UsageEvent(
        # As on Anthropic's own API, inputTokens counts the uncached input only (AWS's
        # prompt-caching guide): the prompt is all three.
        input_tokens=None if uncached is None else uncached + (read or 0) + (written or 0),
        output_tokens=count("outputTokens"),
        cached_input_tokens=read,
        cache_write_tokens=written,
        raw=dict(usage),
    )


def _index(payload: Mapping[str, Any]) -> int:
    index = payload.get("contentBlockIndex", 0)
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise errors.StreamError(f"bedrock: contentBlockIndex {index!r} is not an index")
    return index


def _object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise errors.StreamError(f"bedrock: {what} is not an object")
    return value


def _string(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise errors.StreamError(f"bedrock: {what} is not a string")
    return value
