"""Decoding Gemini answers (streamed SSE chunks or whole bodies) into neutral events.

Owns the decoding: every ``GenerateContentResponse`` chunk is
read part by part, in order. Text parts become ``TextDelta``, ``thought`` parts
``ThinkingDelta``, whole ``functionCall`` parts a Start/State/End triple, an image or document
in ``inlineData`` a ``MediaEvent`` (read in ``_media.py``), and parts the SDK
does not interpret are kept verbatim as opaque parts (never raising: a part that is not even an
object is reported in the event's ``problem``). A ``thoughtSignature``, and any field of a text
part the SDK does not know, stays on the part it arrived with (``PartStateEvent``). Usage is
cumulative (the last chunk wins, and an event goes out only when it changed); the finish reason
is remembered and emitted by ``close()``, because Gemini has no end marker and may still send
usage after it. Token log probabilities, when the request asked for them, go out after each
chunk's answer text (``_logprobs.py`` reads them). Error mapping lives in ``_errors.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._conversation._events import (
    Event,
    FinishEvent,
    FinishReason,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..._conversation._logprobs import TokenLogprob
from ..._conversation._messages import ProviderState
from ..._errors import BadRequestError, StreamError
from ..._wire import _jsonscan as jsonscan
from ..._wire._framing import SSEEvent
from ..._wire._jsonenvelope import MISSING, Envelope
from .._base import logprobs_after_text
from ._errors import error_in_stream
from ._logprobs import decode_logprobs
from ._media import decode_inline
from ._name import PROVIDER

__all__ = ["GeminiStreamDecoder", "finish_reason", "usage_event"]

_loads = jsonscan.loads
_scan_object = jsonscan.scan_object
_EMPTY: dict[str, Any] = {}  # read-only stand-in for a missing object
_CONTENT_FILTER = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"})
# Keys a text or thought part may carry besides ``text``; anything else is another data field.
_TEXT_METADATA = frozenset({"text", "thought", "thoughtSignature"})


def finish_reason(raw: str, has_calls: bool) -> FinishReason:
    """Map Gemini's ``finishReason`` to the canonical reason.

    ``STOP`` is also what Gemini says after function calls, so calls in the turn win over any
    reason but ``MAX_TOKENS``, which stays ``length`` so the cut-off is not lost.
    ``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``, ``TOO_MANY_TOOL_CALLS``, ``OTHER``,
    ``LANGUAGE`` and unknown reasons are ``error``.
    """
    if raw == "MAX_TOKENS":
        return "length"
    if has_calls:
        return "tool_calls"
    if raw == "STOP":
        return "stop"
    if raw in _CONTENT_FILTER or raw.startswith("IMAGE_"):
        return "content_filter"
    return "error"


def usage_event(usage: Mapping[str, Any]) -> UsageEvent:
    """The request's usage from ``usageMetadata`` (§3.8): cumulative, so it replaces earlier."""
    thoughts = usage.get("thoughtsTokenCount")
    prompt = int(usage.get("promptTokenCount", 0)) + int(usage.get("toolUsePromptTokenCount", 0))
    output = int(usage.get("candidatesTokenCount", 0)) + int(thoughts or 0)
    cached = usage.get("cachedContentTokenCount")
    return UsageEvent(
        input_tokens=prompt,
        output_tokens=output,
        cached_input_tokens=int(cached) if cached is not None else None,
        reasoning_tokens=int(thoughts) if thoughts is not None else None,
        raw=dict(usage),
    )


def _text_of(payload: Any) -> Any:
    return payload["candidates"][0]["content"]["parts"][0]["text"]


def _state(data: dict[str, Any]) -> ProviderState:
    return ProviderState(provider=PROVIDER, data=data)


def _text_events(
    text: str, *, thought: bool, signature: str | None, extra: dict[str, Any]
) -> list[Event]:
    delta = ThinkingDelta if thought else TextDelta
    data: dict[str, Any] = {} if signature is None else {"thoughtSignature": signature}
    if extra:  # fields newer than this SDK: replayed with the text they came with
        data["extra"] = extra
    if not data:
        return [delta(text)] if text else []
    # §3.6/§3.7: a signed part stays its own part, even with empty text, so the signature can
    # go back on exactly that part.
    return [delta(text, new_part=True), PartStateEvent(_state(data))]


class GeminiStreamDecoder:
    """Decodes one Gemini response: feed every SSE ``data`` payload, then ``close()``.

    Args:
        top_logprobs: None unless the request asked for log probabilities; then how many
            alternatives to keep per token (``LogprobsEvent`` after each chunk's answer text).
    """

    def __init__(self, top_logprobs: int | None = None) -> None:
        self._top = top_logprobs
        self._calls = 0
        self._finish: str | None = None
        self._usage: Any = None  # the last usageMetadata seen
        self._model: str | None = None
        # Each chunk of text repeats the last but for the text (its usage too, while the
        # answer streams): read from the envelope (``_jsonenvelope.py``).
        self._envelope = Envelope("text", _text_of)

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE event's data (Gemini sends no ``event:`` names)."""
        try:
            payload = _loads(data)
        except ValueError as exc:
            raise StreamError(f"Gemini sent a chunk that is not JSON: {data[:200]!r}") from exc
        return self.feed_json(payload)

    def feed_events(self, events: list[SSEEvent], into: list[Event]) -> None:
        """Decode a chunk's SSE events into ``into``, as ``feed`` would one at a time.

        Nearly every chunk is one plain piece of text: read right here, from the envelope
        where it fits, else parsed whole and read with a few lookups. Any other chunk is
        decoded as ``feed_json`` decodes it, parsed only once.
        """
        if self._top is not None:  # asked for logprobs: every chunk carries its own
            for _, data in events:
                into += self.feed(None, data)
            return
        envelope, text_delta = self._envelope, TextDelta
        reading = envelope.tries(len(events))
        for _, data in events:
            payload: Any = None
            text: Any = envelope.read(data) if reading else MISSING
            if text is MISSING:
                payload = _scan_object(data)  # None: no object (feed says what it is)
                text = None if payload is None else self._plain_text(payload, data)
                reading = not envelope.cold  # learned, or gone cold, just now
            if text.__class__ is str:
                if text:
                    into.append(text_delta(text))
                continue
            usage = self._usage
            into += self.feed(None, data) if payload is None else self.feed_json(payload)
            if self._usage is not usage:  # the envelope was learned with the usage before
                envelope.forget()
                reading = False

    def _plain_text(self, payload: dict[str, Any], data: str) -> Any:
        """The text of a chunk parsed whole when it is all the chunk brings (one plain text
        part, no finish, no new usage, no model to announce); else None. Such a chunk
        teaches the envelope when it is due."""
        try:  # no type test on the way: anything but the plain shape raises
            candidate = payload["candidates"][0]
            (part,) = candidate["content"]["parts"]
            text = part["text"]
        except (LookupError, TypeError, ValueError):
            return None
        if text.__class__ is not str or len(part) != 1 or candidate.get("finishReason"):
            return None
        if "error" in payload or (self._model is None and payload.get("modelVersion")):
            return None
        usage = payload.get("usageMetadata")
        if usage and usage != self._usage:
            return None
        if self._envelope.due:
            self._envelope.learn(data, payload)
        return text

    def feed_json(self, payload: Any) -> list[Event]:
        """Decode one parsed ``GenerateContentResponse`` (or a JSON array of them)."""
        try:
            return self._decode(payload)
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
            raise StreamError(f"Gemini sent a chunk that cannot be decoded: {exc!r}") from exc

    def close(self) -> list[Event]:
        """The body ended: emit the finish, or raise ``StreamError`` if none was seen."""
        if self._finish is None:
            raise StreamError("the Gemini response ended without a finishReason (cut off?)")
        return [FinishEvent(finish_reason(self._finish, self._calls > 0), raw=self._finish)]

    def _decode(self, payload: Any) -> list[Event]:
        # Parsed JSON objects are plain dicts: a type test, not an ABC ``Mapping`` check.
        if not isinstance(payload, dict):
            if isinstance(payload, list):  # a non-SSE answer is an array of chunks
                return [event for item in payload for event in self._decode(item)]
            raise StreamError(f"Gemini sent a chunk that is not a JSON object: {payload!r}")
        if "error" in payload:
            raise error_in_stream(payload)
        if self._model is None and payload.get("modelVersion"):  # on every chunk: read once
            self._model = str(payload["modelVersion"])
            response_id = payload.get("responseId")
            response_id = response_id if isinstance(response_id, str) else None
            return [ModelEvent(self._model, response_id), *self._decode(payload)]
        candidates = payload.get("candidates")
        if candidates:
            events = self._candidate(candidates[0])
        else:
            events = []
            _raise_if_blocked(payload)
        usage = payload.get("usageMetadata")
        if usage and usage != self._usage:
            # §3.7: every chunk repeats the cumulative usageMetadata; the last one holds the
            # totals. An event goes out only when it changed: the assembler keeps the last.
            self._usage = usage
            events.append(usage_event(usage))
        return events

    def _candidate(self, candidate: Mapping[str, Any]) -> list[Event]:
        # §3.4: a candidate may have no content/parts (a safety stop, say).
        content = candidate.get("content") or _EMPTY
        events: list[Event] = []
        for part in content.get("parts") or ():
            if part.__class__ is dict and len(part) == 1:
                text = part.get("text")
                if text.__class__ is str:
                    # The common part, plain answer text: no signature, thought or data to check.
                    if text:
                        events.append(TextDelta(text))
                    continue
            events += self._part(part)
        if self._top is not None and "logprobsResult" in candidate:
            _add_logprobs(events, decode_logprobs(candidate["logprobsResult"], self._top))
        if candidate.get("finishReason"):
            self._finish = str(candidate["finishReason"])
        return events

    def _part(self, part: Any) -> list[Event]:
        if not isinstance(part, dict):  # unreadable, so never replayed; the turn goes on
            problem = f"Gemini sent a part that is not an object: {part!r:.200}"
            return [OpaquePartEvent(_state({"part": part}), problem=problem)]
        signature = part.get("thoughtSignature")
        if "functionCall" in part:
            return self._call(part["functionCall"], signature)
        if "inlineData" in part and not part.get("thought"):
            # A generated image is part of the answer, beside its text (a thought image, an
            # interim draft, stays with the reasoning as an opaque part).
            return decode_inline(part)
        extra = {key: value for key, value in part.items() if key not in _TEXT_METADATA}
        if not extra or part.get("text").__class__ is str:
            text = str(part.get("text", ""))
            thought = bool(part.get("thought"))
            return _text_events(text, thought=thought, signature=signature, extra=extra)
        # executableCode, codeExecutionResult, thought images...: replayed to Gemini unchanged.
        state = _state({"part": dict(part)})
        if part.get("thought"):
            return [OpaquePartEvent(state, kind="thinking")]
        return [OpaquePartEvent(state, kind="raw")]

    def _call(self, call: Mapping[str, Any], signature: str | None) -> list[Event]:
        # §3.7: calls arrive whole, without an index; parallel calls may be split across
        # chunks, so number them in arrival order over the whole response.
        if "partialArgs" in call or call.get("willContinue"):
            # Vertex's streamFunctionCallArguments splits one call over chunks; read as whole
            # calls, each fragment would run as a call of its own.
            raise StreamError(
                "Gemini streamed function-call arguments in pieces (partialArgs); this SDK "
                "reads whole calls: leave toolConfig.functionCallingConfig."
                "streamFunctionCallArguments unset"
            )
        index = self._calls
        self._calls += 1
        args = call.get("args")
        if args is None:  # a call without parameters may leave them out
            args = {}
        if not isinstance(args, dict):
            raise StreamError(
                f"Gemini sent functionCall args that are not an object: {args!r:.200}"
            )
        name = call["name"]
        if not name or not isinstance(name, str):  # its result could not name it back
            raise StreamError(f"Gemini sent a functionCall without a name: {call!r:.200}")
        # Every Gemini call carries Gemini state (its signature, or an empty marker): that is
        # how the encoder knows the turn is Gemini's own and needs no placeholder signature.
        data = {"thoughtSignature": signature} if signature else {}
        return [
            ToolCallStart(index, call.get("id") or None, name),
            PartStateEvent(_state(data), index=index),
            ToolCallEnd(index, arguments=args),
        ]


def _add_logprobs(events: list[Event], tokens: list[TokenLogprob]) -> None:
    """Put a chunk's tokens right after its last answer ``TextDelta``.

    Gemini gives the tokens per chunk, not per part: a streamed chunk's ``logprobsResult``
    is read as the tokens of that chunk alone, in order after those of the chunks before. A
    chunk whose text is all thinking has no answer text for them to describe: they are
    dropped. A chunk that mixes thought and answer text (a whole ``generateContent`` body,
    say) gives all of its tokens to the answer, since nothing on the wire tells where the
    thought ends among them.
    """
    if tokens:
        logprobs_after_text(events, tokens)


def _raise_if_blocked(payload: Mapping[str, Any]) -> None:
    # §3.4: a blocked prompt has no candidates, only promptFeedback.blockReason. There is no
    # turn to finish, so it surfaces as a clear error naming the reason rather than an empty
    # answer.
    feedback = payload.get("promptFeedback") or {}
    reason = feedback.get("blockReason")
    if not reason:
        return
    detail = feedback.get("blockReasonMessage")
    suffix = f": {detail}" if detail else ""
    raise BadRequestError(
        f"Gemini blocked the prompt (blockReason {reason}){suffix}",
        provider=PROVIDER,
        body=dict(payload),
    )
