"""Offline models: ``ScriptedModel`` replays a script, ``OfflineModel`` calls each tool it may.

Both implement ``Model`` directly (no HTTP) and stream their turns in small chunks through the
same events as a real provider, so the whole loop runs unchanged in tests and in the demo.
``ScriptedModel`` records every request it receives, as the provider would see it.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Union

from ..._conversation._events import (
    Event,
    FinishEvent,
    LogprobsEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..._conversation._logprobs import TokenLogprob
from ..._conversation._messages import LangMessage, LangMessages, ToolCallPart
from ..._errors import ConfigError
from ..._run._contract import EventSink, ProviderRequest
from ..._run._options import LangOptions
from ..._run._output import output_spec
from ..._tools import Tool
from ..._tools.guess import arguments_from_prompt
from ._media import media_sentence

__all__ = ["OfflineModel", "ScriptedModel", "ScriptedRequest", "Turn"]

Turn = Union[str, Mapping[str, Any]]
TurnSource = Union[
    Sequence[Turn], Callable[[LangMessages, LangOptions], Union[Turn, Awaitable[Turn]]]
]
CHUNK = 8  # characters per streamed delta: small enough to exercise streaming paths


@dataclass(frozen=True, slots=True)
class ScriptedRequest:
    """One request a scripted model received: the conversation, tools and options.

    ``messages`` is a snapshot taken when the request was made, not a view of the run.
    """

    messages: LangMessages
    tools: list[dict[str, Any]]
    options: LangOptions


def _chunks(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def snapshot(messages: Sequence[LangMessage]) -> LangMessages:
    """A copy of the conversation that later changes to the run's messages do not reach."""
    return LangMessages(_copy_message(m) for m in messages)


def _copy_message(message: LangMessage) -> LangMessage:
    parts = [
        ToolCallPart(replace(p.call, arguments=dict(p.call.arguments)), p.state)
        if isinstance(p, ToolCallPart)
        else copy.copy(p)
        for p in message.parts
    ]
    return replace(message, parts=parts)


def turn_events(turn: Turn, *, stream: bool, logprobs: bool = False) -> list[Event]:
    """The events a real provider would send for ``turn``; its ``logprobs`` only when the
    request asked for them (``logprobs``), as a provider would."""
    if isinstance(turn, str):
        turn = {"text": turn}
    if not isinstance(turn, Mapping):
        raise ConfigError(f"a scripted turn is a string or a dict, not {turn!r}")
    unknown = set(turn) - {"text", "thinking", "function_calls", "logprobs"}
    if unknown:
        raise ConfigError(f"scripted turn has unknown keys {sorted(unknown)}")
    size = CHUNK if stream else 1 << 30
    events: list[Event] = [ThinkingDelta(c) for c in _chunks(turn.get("thinking") or "", size)]
    events += [TextDelta(c) for c in _chunks(turn.get("text") or "", size)]
    tokens = _tokens(turn.get("logprobs"))
    if logprobs and tokens:
        events.append(LogprobsEvent(tokens))
    for index, call in enumerate(turn.get("function_calls") or ()):
        events += _call_events(index, call, size)
    output = sum(len(str(turn.get(k) or "")) for k in ("text", "thinking")) // 4
    events.append(UsageEvent(input_tokens=0, output_tokens=output))
    events.append(FinishEvent("tool_calls" if turn.get("function_calls") else "stop"))
    return events


def _tokens(given: object) -> list[TokenLogprob]:
    if given is None:
        return []
    if isinstance(given, (list, tuple)) and all(isinstance(t, TokenLogprob) for t in given):
        return list(given)
    raise ConfigError(f"a scripted turn's logprobs are a list of TokenLogprob, not {given!r:.80}")


def _call_events(index: int, call: Mapping[str, Any], size: int) -> list[Event]:
    if not isinstance(call, Mapping) or "name" not in call:
        raise ConfigError(f"a scripted function call is a dict with a 'name', not {call!r}")
    arguments = call.get("arguments", {})
    # Unicode as a model writes it (not \u escapes), so raw_arguments look like the real thing.
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    events: list[Event] = [ToolCallStart(index, call.get("id"), str(call["name"]))]
    events += [ToolCallDelta(index, c) for c in _chunks(text, size)]
    events.append(ToolCallEnd(index))
    return events


def canonical_tool(tool: Tool) -> dict[str, Any]:
    """A tool's declaration as name, description and JSON Schema parameters."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


class ScriptedModel:
    """Replays scripted turns in order (or asks a callable for each) and records requests.

    Args:
        turns: A list of turns (a string is a final text turn; a dict may hold ``text``,
            ``thinking``, ``function_calls``: ``[{"name", "arguments", "id"?}]``, and
            ``logprobs``: the text's ``TokenLogprob`` list, sent when asked for), or a
            callable ``(messages, options) -> turn`` (sync or async; it gets a copy of the
            conversation). The script is consumed across calls.
        model: The model name reported in requests.
    """

    name = "scripted"

    def __init__(self, turns: TurnSource, *, model: str = "scripted") -> None:
        self.model = model
        self.requests: list[ScriptedRequest] = []
        self._source = turns if callable(turns) else list(turns)
        self._next = 0

    async def send(self, request: ProviderRequest, sink: EventSink) -> None:
        """Record the request and stream the next scripted turn."""
        messages = snapshot(request.messages)
        tools = [canonical_tool(t) for t in request.tools]
        self.requests.append(ScriptedRequest(messages, tools, request.options))
        turn = await self._next_turn(snapshot(messages), request.options)
        events = turn_events(turn, stream=request.stream, logprobs=bool(request.options.logprobs))
        for event in events:
            await sink([event])  # one event per batch: streams like a slow network

    async def _next_turn(self, messages: LangMessages, options: LangOptions) -> Turn:
        if callable(self._source):
            turn = self._source(messages, options)
            return await turn if inspect.isawaitable(turn) else turn
        if self._next >= len(self._source):
            raise ConfigError(
                f"Lang.scripted: the script has {len(self._source)} turn(s) and all were used; "
                f"request #{len(self.requests)} has no scripted answer"
            )
        self._next += 1
        return self._source[self._next - 1]

    async def aclose(self) -> None:
        """Nothing to release."""


class OfflineModel:
    """A model with no network: calls every given tool, then sums up their results.

    It reads the obvious values from the question (numbers, quoted text, names, named enum
    values) and calls a tool once per value when the question lists several ("Weather in
    Tokyo and Paris?"); what the question does not say comes from the tool's schema, so any
    set of tools can be demonstrated without an API key. ``function_call`` is honoured:
    ``"none"`` answers without calls, ``"required"`` or a name calls (that) tool even when
    results are in. Results are named by the call they answer (its id), so message dicts and
    gateway clients that send no name read right. With no tools it echoes the prompt; with
    ``output_type`` its answer is a valid example of that type, with what the prompt states.
    Images and documents, in the prompt or in a result, are named with their type and size
    (and, for a PNG or a GIF, the width and height its header states).
    """

    name = "offline"

    def __init__(self, *, model: str = "offline") -> None:
        self.model = model

    async def send(self, request: ProviderRequest, sink: EventSink) -> None:
        """Stream the offline model's next turn.

        Raises:
            ConfigError: The run asked for logprobs, which a model of no tokens cannot give
                (an empty list would read as an answer of no tokens).
        """
        if request.options.logprobs:
            raise ConfigError("logprobs is not supported by the offline model: it has no tokens")
        for event in turn_events(self._turn(request), stream=request.stream):
            await sink([event])

    def _turn(self, request: ProviderRequest) -> Turn:
        messages = request.messages
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        prompt = messages[last_user].content if last_user >= 0 else ""
        results = [m for m in messages[last_user + 1 :] if m.role == "tool"]
        choice = request.tool_choice
        forced = choice is not None and choice.mode in ("required", "named")
        tools = _callable_tools(request)
        if tools and (forced or not results):  # a forced choice calls again, results or not
            calls = [
                {"name": t.name, "arguments": arguments}
                for t in tools
                for arguments in arguments_from_prompt(t, prompt)
            ]
            for index, call in enumerate(calls):
                call["id"] = f"offline_{index}"
            return {"text": "Let me use the tools.", "function_calls": calls}
        output = output_spec(request.options.output_type)
        if output is not None:  # a valid example of the type, with what the prompt states
            return json.dumps(arguments_from_prompt(output.tool, prompt)[0], ensure_ascii=False)
        if results:
            lines = [_result_line(name, m) for name, m in _named_results(messages, results)]
            return "Here is what the tools returned (offline model):\n" + "\n".join(lines)
        return f"(offline model, no API key set) You said: {prompt}{_shown(messages, last_user)}"

    async def aclose(self) -> None:
        """Nothing to release."""


def _callable_tools(request: ProviderRequest) -> list[Tool]:
    """The tools the request lets the model call: none for ``"none"``, one when named."""
    choice = request.tool_choice
    named = choice.name if choice is not None and choice.mode == "named" else None
    allowed = set(request.tool_names)
    return [t for t in request.tools if t.name in allowed and named in (None, t.name)]


def _shown(messages: Sequence[LangMessage], index: int) -> str:
    """What the offline model says of the images and documents of the user's message."""
    media = messages[index].media if index >= 0 else []
    return "".join(f" You sent {media_sentence(m)}." for m in media)


def _result_line(name: str | None, message: LangMessage) -> str:
    """One result as a line; an image or a document the tool returned is described."""
    line = f"- {name}: {message.content}"
    for media in message.media:
        line += f"\n  The tool returned {media_sentence(media)}."
    return line


def _named_results(
    messages: Sequence[LangMessage], results: list[LangMessage]
) -> list[tuple[str | None, LangMessage]]:
    """Each result with the name of the call it answers, found by call id.

    A result from message dicts or a gateway client often has no name of its own, and the
    results need not come in the order of the calls.
    """
    names = {c.id: c.name for m in messages if m.role == "assistant" for c in m.tool_calls}
    return [(names.get(m.tool_call_id or "", m.name), m) for m in results]
