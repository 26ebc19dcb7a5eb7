"""The Chat Completions answer: ``chat.completion.chunk`` events and whole bodies, as events.

This module owns the decoder of one response: text and reasoning deltas, tool calls keyed by
``index`` (or by id where a server omits it), finish reasons, usage, the answer tokens' log
probabilities (``_logprobs.py``, after the text of the same chunk), and error objects inside a
200 stream. The rarer per-server keys are read by ``_quirks.py``.
"""

from __future__ import annotations

import json
from typing import Any

from ... import _errors as errors
from ..._conversation._events import (
    Event,
    FinishEvent,
    FinishReason,
    ModelEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..._conversation._messages import ProviderState
from ..._wire import _jsonscan as jsonscan
from ..._wire._framing import SSEEvent
from ..._wire._jsonenvelope import MISSING, Envelope
from ._errors import stream_error
from ._logprobs import logprobs_event
from ._quirks import KeptFields, content_items

__all__ = ["OpenAIStreamDecoder", "decode_body"]

_loads = jsonscan.loads
_scan_object = jsonscan.scan_object
_EMPTY: dict[str, Any] = {}
_NO_DETAILS: dict[str, Any] = {}

# Wire finish_reason -> canonical. "tool_calls" without calls in the turn
# is not trusted; calls are detected from content, never from the reason alone.
_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "error": "error",
}


def _delta_of(chunk: Any) -> Any:
    return chunk["choices"][0]["delta"]


def _with_delta(reference: dict[str, Any], delta: Any) -> dict[str, Any]:
    """A chunk read from the envelope: the reference chunk with its first choice's delta
    replaced, which is what parsing it whole gives (but for its padding, which nothing reads)."""
    first, *others = reference["choices"]
    return {**reference, "choices": [{**first, "delta": delta}, *others]}


def _padding_of(chunk: Any) -> Any:
    return chunk["obfuscation"]


_PADDING = (("obfuscation", _padding_of),)


def arguments_text(arguments: Any) -> str:
    """Arguments some servers send as a whole object instead of JSON text, as JSON text
    (an empty object as no text, as the empty object a server sends before the fragments).

    Raises:
        TypeError: Arguments neither text nor an object (a number, a list): a call that cannot
            be read, reported as ``StreamError`` before any tool of the turn runs.
    """
    if arguments.__class__ is not dict:
        raise TypeError(f"tool call arguments neither text nor an object: {arguments!r:.80}")
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False) if arguments else ""


def usage_event(usage: dict[str, Any]) -> UsageEvent:
    """The usage object of a chunk or body as an event."""
    prompt = usage.get("prompt_tokens_details") or _NO_DETAILS
    completion = usage.get("completion_tokens_details") or _NO_DETAILS
    cached = prompt.get("cached_tokens")
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek's name for it
    return UsageEvent(
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
        cached_input_tokens=cached,
        cache_write_tokens=prompt.get("cache_write_tokens"),
        reasoning_tokens=completion.get("reasoning_tokens"),
        raw=usage,
    )


def decode_body(provider: str, body: Any) -> list[Event]:
    """Events for a whole ``chat.completion`` body, the same a stream would produce."""
    decoder = OpenAIStreamDecoder(provider)
    try:
        if body.get("error") is not None or body.get("object") == "error":
            raise stream_error(provider, body.get("error") or body)
        choice = body["choices"][0]
        message = dict(choice.get("message") or _EMPTY)
        calls = message.get("tool_calls")
        if calls:
            message["tool_calls"] = [{**c, "index": i} for i, c in enumerate(calls)]
        chunk = {
            "choices": [
                {
                    "delta": message,
                    "finish_reason": choice.get("finish_reason"),
                    "logprobs": choice.get("logprobs"),
                }
            ],
            "usage": body.get("usage"),
            "model": body.get("model"),
            "id": body.get("id"),
        }
        return decoder.decode_chunk(chunk) + decoder.feed(None, "[DONE]")
    except (LookupError, TypeError, AttributeError, ValueError) as exc:
        raise errors.StreamError(f"{provider}: unexpected response body: {body!r:.300}") from exc


class OpenAIStreamDecoder:
    """Turns ``chat.completion.chunk`` payloads into events; one per streamed response.

    Calls are keyed by ``delta.tool_calls[].index``: the first delta of an index starts the
    call (its ``id`` and ``name``), later ones only add argument fragments. The per-chunk path
    is kept lean: one ``json.loads`` and a few dict lookups for a plain text delta.
    """

    __slots__ = (
        "_calls",
        "_done",
        "_envelope",
        "_finish",
        "_ids",
        "_kept",
        "_model",
        "_name",
        "_pending",
        "_reference",
        "_refused",
    )

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: dict[int, bool] = {}  # started index -> any argument text seen
        self._pending: dict[int, tuple[str | None, str]] = {}  # index without a name yet
        self._ids: dict[str, int] = {}  # id -> index, for servers that omit "index"
        self._kept = KeptFields()  # reasoning_details and annotations, until the turn ends
        self._finish: str | None = None
        self._refused = False
        self._done = False
        self._model: str | None = None
        self._envelope: Envelope | None = None  # made by feed_events: a whole body needs none
        self._reference: Any = None  # the chunk the envelope was learned from, parsed

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE ``data`` payload (``event`` names are not used on this wire)."""
        if data == "[DONE]":
            return self._on_done()
        if self._done:
            return []
        try:
            chunk = _loads(data)
        except ValueError as exc:
            if data.strip() == "[DONE]":  # white space around it, as some servers write
                return self._on_done()
            raise self._undecodable(data) from exc
        return self._decode(chunk, data)

    def feed_events(self, events: list[SSEEvent], into: list[Event]) -> None:
        """Decode a chunk's SSE events into ``into``, as ``feed`` would one at a time.

        Nearly every chunk carries one piece of text, or of a started call's arguments, in an
        envelope repeated byte for byte (``_jsonenvelope.py``): those are read right here, the
        delta alone scanned, with no call in between (the stream benchmarks measure this
        loop). Any other chunk is decoded as ``feed`` decodes it, parsed only once.
        """
        calls, text_delta, call_delta = self._calls, TextDelta, ToolCallDelta
        envelope = self._envelope or self._new_envelope()
        reading = envelope.tries(len(events))
        plain = self._model is not None and not self._done  # the first chunk names the model
        for _, data in events:
            chunk: Any = None  # the chunk parsed whole, where it was
            delta: Any = MISSING
            if plain:
                if reading:
                    delta = envelope.read(data)
                if delta is MISSING:
                    chunk, delta = self._parsed_whole(data, envelope)
                    reading = not envelope.cold  # learned, or gone cold, just now
            if delta.__class__ is dict and len(delta) == 1:
                if "content" in delta:
                    content = delta["content"]
                    if content.__class__ is str and content:
                        into.append(text_delta(content))
                        continue
                tool_calls = delta.get("tool_calls")
                if tool_calls.__class__ is list and tool_calls:
                    if len(tool_calls) == 1:
                        try:  # no type test on the way: anything but the plain shape raises
                            call = tool_calls[0]
                            index, arguments = call["index"], call["function"]["arguments"]
                        except (LookupError, TypeError):
                            index = arguments = None
                        if (
                            arguments.__class__ is str
                            and arguments
                            and index.__class__ is int
                            and calls.get(index) is not None
                        ):
                            calls[index] = True
                            into.append(call_delta(index, arguments))
                            continue
                    into += self._calls_only(tool_calls, data)  # a call starts, say
                    continue
            if chunk is None and delta is not MISSING and delta is not None:
                chunk = _with_delta(self._reference, delta)  # read from the envelope
            into += self.feed(None, data) if chunk is None else self._decode(chunk, data)
            plain = self._model is not None and not self._done

    def _new_envelope(self) -> Envelope:
        # OpenAI pads each chunk with a random "obfuscation" string after the choices.
        self._envelope = Envelope("delta", _delta_of, padding=_PADDING)
        return self._envelope

    def _parsed_whole(self, data: str, envelope: Envelope) -> tuple[Any, Any]:
        """A chunk the envelope did not read, parsed whole, and its delta: None unless the
        chunk carries nothing else (no usage, error or finish); such a chunk teaches the
        envelope. The chunk is None for ``[DONE]`` or no object (``feed`` says which)."""
        chunk: Any = _scan_object(data)
        try:  # no type test on the way: anything but the plain shape raises
            choice = chunk["choices"][0]
            finished = choice.get("finish_reason")
        except (LookupError, TypeError, AttributeError):
            return chunk, None
        # A chunk with log probabilities is decoded whole (they follow its text) and never
        # learned: the envelope's bytes around the delta then say a chunk carries none.
        if (
            finished
            or chunk.get("usage")
            or chunk.get("error") is not None
            or choice.get("logprobs")
        ):
            return chunk, None
        if envelope.due:
            envelope.learn(data, chunk)
            self._reference = chunk
        return chunk, choice.get("delta")

    def _decode(self, chunk: Any, data: str) -> list[Event]:
        """Events for a chunk parsed whole, as ``feed`` decodes one."""
        try:
            return self.decode_chunk(chunk)
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            raise self._undecodable(data) from exc

    def _calls_only(self, tool_calls: list[Any], data: str) -> list[Event]:
        """Events for a chunk whose delta holds only ``tool_calls``, a list not empty: all
        ``decode_chunk`` reads of such a chunk, without its checks for every other key."""
        out: list[Event] = []
        try:
            self._tool_deltas(tool_calls, out)
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            raise self._undecodable(data) from exc
        return out

    def _undecodable(self, data: str) -> errors.StreamError:
        return errors.StreamError(f"{self._name}: undecodable stream chunk {data:.200}")

    def close(self) -> list[Event]:
        """The body ended; a stream without ``data: [DONE]`` was cut off."""
        if not self._done:
            raise errors.StreamError(f"{self._name}: stream ended before [DONE]")
        return []

    def decode_chunk(self, chunk: dict[str, Any]) -> list[Event]:
        """Events for one parsed chunk (also used for whole bodies, as a single chunk)."""
        # An error object can arrive inside a 200 stream ("error": null is no error);
        # OpenRouter's docs confirm its mid-generation errors come this way, with an int code.
        if "error" in chunk and chunk["error"] is not None:
            raise stream_error(self._name, chunk["error"])
        out: list[Event] = []
        if self._model is None:  # the first chunk names the model that answers
            self._model = str(chunk.get("model") or "")
            if self._model:
                response_id = chunk.get("id")  # for telemetry; not every compatible server sends it
                out.append(
                    ModelEvent(self._model, response_id if isinstance(response_id, str) else None)
                )
        choices = chunk.get("choices")
        if not choices:  # the include_usage chunk has "choices": []
            if chunk.get("object") == "error":  # vLLM / Mistral error shape
                raise stream_error(self._name, chunk)
            usage = chunk.get("usage")
            if usage:
                out.append(usage_event(usage))
            return out
        choice = choices[0]
        delta = choice.get("delta")
        if delta:
            # Nearly every delta has one key, a piece of text or of one call's arguments:
            # those skip the checks ``_delta`` makes for the rarer keys.
            content = delta.get("content")
            if len(delta) > 1:
                self._delta(delta, out)
            elif content and content.__class__ is str:
                out.append(TextDelta(content))
            elif delta.get("tool_calls"):
                self._tool_deltas(delta["tool_calls"], out)
            else:
                self._delta(delta, out)
        logprobs = choice.get("logprobs")
        if logprobs:  # after the text they describe; null (or any empty value) holds none
            event = logprobs_event(logprobs)
            if event is not None:
                out.append(event)
        if choice.get("finish_reason"):
            self._on_finish(choice["finish_reason"], out)
        usage = chunk.get("usage")  # Mistral and others put it on the last choice chunk
        if usage:
            out.append(usage_event(usage))
        return out

    def _delta(self, delta: dict[str, Any], out: list[Event]) -> None:
        get = delta.get
        # DeepSeek / llama.cpp / older vLLM say reasoning_content, OpenRouter / Ollama / newer
        # vLLM say reasoning; some send both with the same text, so take one.
        reasoning = get("reasoning_content") or get("reasoning")
        if reasoning and reasoning.__class__ is str:
            out.append(ThinkingDelta(reasoning))
        content = get("content")
        if content:
            if content.__class__ is str:
                out.append(TextDelta(content))
            else:
                content_items(content, out)
        refusal = get("refusal")
        if refusal:
            self._refused = True
            out.append(TextDelta(refusal))  # shown as text; the turn ends as content_filter
        if get("tool_calls"):
            self._tool_deltas(delta["tool_calls"], out)
        if get("reasoning_details") or get("annotations"):
            self._kept.add(delta)
        if get("extra_content") and out:  # Gemini-compat signature on the part just sent
            state = ProviderState(self._name, {"extra_content": delta["extra_content"]})
            out.append(PartStateEvent(state))

    def _tool_deltas(self, tool_calls: list[dict[str, Any]], out: list[Event]) -> None:
        calls = self._calls
        for tc in tool_calls:
            index = tc.get("index")
            if index is None:
                index = self._index_without(tc)
            function = tc.get("function") or _EMPTY
            seen = calls.get(index)
            # id and name are read on the first delta of an index only, so servers that
            # resend them on later deltas merge idempotently.
            if seen is None and not self._start(index, tc, function, out):
                continue
            arguments = function.get("arguments")
            if arguments.__class__ is not str and arguments is not None:
                arguments = arguments_text(arguments)  # an object, or a call that cannot be read
            if arguments:
                out.append(ToolCallDelta(index, arguments))
                if not seen:
                    calls[index] = True

    def _start(
        self, index: int, tc: dict[str, Any], function: dict[str, Any], out: list[Event]
    ) -> bool:
        pending = self._pending.pop(index, None)
        call_id = tc.get("id") or (pending[0] if pending else None)
        buffered = pending[1] if pending else ""
        name = function.get("name")
        if not name:  # id before name: wait for the name, keeping any arguments
            arguments = function.get("arguments")
            if arguments.__class__ is not str:
                arguments = "" if arguments is None else arguments_text(arguments)
            self._pending[index] = (call_id, buffered + arguments)
            return False
        self._calls[index] = bool(buffered)
        out.append(ToolCallStart(index, call_id, name))
        if tc.get("extra_content"):  # Gemini-compat thought signature on this call
            state = ProviderState(self._name, {"extra_content": tc["extra_content"]})
            out.append(PartStateEvent(state, index=index))
        if buffered:
            out.append(ToolCallDelta(index, buffered))
        return True

    def _index_without(self, tc: dict[str, Any]) -> int:
        call_id = tc.get("id")
        if call_id is None:  # a continuation: the latest call
            return max(self._calls, default=0)
        if call_id not in self._ids:
            self._ids[call_id] = len(self._ids)
        return self._ids[call_id]

    def _on_finish(self, reason: str, out: list[Event]) -> None:
        if self._finish is None:  # some servers repeat the finish chunk: end calls once
            self._end_calls(out)
        self._finish = reason

    def _end_calls(self, out: list[Event]) -> None:
        for index, seen in self._calls.items():
            out.append(ToolCallEnd(index, None if seen else {}))  # no arguments at all = {}
        out += self._kept.flush(self._name)

    def _on_done(self) -> list[Event]:
        if self._done:
            return []
        self._done = True
        out: list[Event] = []
        if self._finish is None:  # [DONE] without a finish_reason: end what was started
            self._end_calls(out)
        else:  # reasoning details that came after the finish chunk are kept too
            out += self._kept.flush(self._name)
        out.append(FinishEvent(self._reason(), self._finish))
        return out

    def _reason(self) -> FinishReason:
        reason = _FINISH.get(self._finish or "stop", "stop")
        if reason == "length":  # kept with calls: their arguments may be cut off
            return reason
        if self._calls:  # named tool_choice reports "stop" with calls
            return "tool_calls"
        if reason == "stop" and self._refused:
            return "content_filter"
        return reason
