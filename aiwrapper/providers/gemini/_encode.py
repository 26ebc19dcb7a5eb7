"""The conversation on the Gemini wire: ``contents`` and ``systemInstruction``.

Owns the encoding: ``user``/``model`` roles on every content, model
turns replayed part by part with every ``thoughtSignature`` on the part it came with, the
placeholder signature for function calls Gemini never signed, ids echoed only when Gemini
issued them, and every tool result of a turn grouped into the one ``user`` content that follows
the call turn. Images and documents go in their place among a message's parts, and those of
tool results inside ``functionResponse.parts`` on models that take them, else in a user content
right after the responses (the parts themselves are made in ``_media.py``). The rest of the
body (tools, configs) is built in ``_provider.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._conversation._media import Media
from ..._conversation._messages import (
    LangMessage,
    MediaPart,
    OpaquePart,
    Part,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ..._conversation._result import FunctionCall
from ..._errors import ConfigError
from ..._wire._jsontext import loads_standard
from .._base import result_text
from ._media import check_inline_limits, encode_media
from ._name import PROVIDER

__all__ = ["SKIP_SIGNATURE", "encode_contents", "encode_system"]

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The documented placeholder signature for function calls Gemini never signed (§3.6)."""

Content = dict[str, Any]


def encode_system(messages: Sequence[LangMessage]) -> dict[str, Any] | None:
    """``systemInstruction`` from every system message, or None when there is none."""
    parts = [{"text": m.content} for m in messages if m.role == "system" and m.content]
    return {"parts": parts} if parts else None


def encode_contents(
    messages: Sequence[LangMessage],
    *,
    placeholders: bool = True,
    media_in_results: bool = False,
    vertex: bool = False,
) -> list[Content]:
    """``contents``: user and model turns, each turn's tool results in ONE user content.

    Args:
        messages: The conversation (system messages are skipped: see ``encode_system``).
        placeholders: Put the placeholder signature on call turns that carry none. Off for
            models before Gemini 3, which never validate signatures.
        media_in_results: The model takes images and documents inside
            ``functionResponse.parts`` (Gemini 3); otherwise they follow the responses.
        vertex: The request goes to Vertex AI, which also fetches ``gs://`` URLs and takes
            URLs inside function responses.

    Raises:
        ConfigError: A tool result that names no function, or a call turn whose number of
            results differs from its number of calls (Gemini answers 400 to both); an image
            or document Gemini cannot take, or past the API's size limits (see ``_media``).
    """
    if not vertex:  # Vertex's limits differ and are left to its server
        check_inline_limits(p.media for m in messages for p in m.parts if isinstance(p, MediaPart))
    contents = _Contents(placeholders, media_in_results, vertex)
    for message in messages:
        if message.role == "tool":
            contents.add_result(message)
        elif message.role == "user":
            contents.add_user(message)
        elif message.role == "assistant":
            contents.add_model(message)
    return contents.finish()


class _Contents:
    """Builds ``contents`` in order, holding back what must wait for a turn's results.

    §3.5: the results of a call turn go in the user content right after it (400 "function
    response turn comes immediately after a function call turn", and "the number of function
    response parts is equal to the number of function call parts"). User text that sits
    between a call turn and its results is sent after them, in its own content: folding text
    into the function-response content is rejected by newer models (reported in
    langchain-ai/langchainjs#11477 and vellum-ai/vellum-assistant#39495), while consecutive
    user contents have been accepted since late 2024 (zuisong/gemini-openai-proxy#83).
    Results' media that cannot go inside their response (on models before Gemini 3, or a URL
    on the Gemini API, which takes none there) go in that same content, ahead of the held
    text, each result's introduced by the call it belongs to.
    """

    def __init__(self, placeholders: bool, nested: bool, vertex: bool) -> None:
        self.placeholders = placeholders
        self.nested, self.vertex = nested, vertex
        self.out: list[Content] = []
        self.calls: dict[str, tuple[str, bool]] = {}  # call id -> (name, id issued by Gemini)
        self.awaiting = 0  # calls of the last model content, to be answered
        self.responses: list[dict[str, Any]] = []
        self.held: list[dict[str, Any]] = []  # user parts waiting for the results
        self.after: list[dict[str, Any]] = []  # results' media that follow the responses

    def add_result(self, message: LangMessage) -> None:
        response, after = self._response(message)
        self.responses.append(response)
        if after:
            name = response["functionResponse"]["name"]
            intro = f"The result of {name} (call {len(self.responses)} of this turn) holds:"
            self.after += [{"text": intro}, *after]

    def add_user(self, message: LangMessage) -> None:
        # Gemini rejects empty text ("Unable to submit request because it has an empty text
        # parameter"), so a message without text is left out rather than sent as "".
        encoded = (self._user_part(p) for p in message.parts)
        parts = [part for part in encoded if part is not None]
        if self.awaiting > len(self.responses):
            self.held += parts
            return
        self._flush()
        if parts:
            self._append({"role": "user", "parts": parts})

    def add_model(self, message: LangMessage) -> None:
        self._flush()
        parts = self._model_parts(message)
        if parts:  # an empty parts list is a 400; a turn of only foreign thinking vanishes
            self._append({"role": "model", "parts": parts})
            self.awaiting += sum("functionCall" in part for part in parts)

    def finish(self) -> list[Content]:
        self._flush()
        return self.out

    def _flush(self) -> None:
        if self.awaiting or self.responses:
            if len(self.responses) != self.awaiting:
                raise ConfigError(
                    f"a model turn made {self.awaiting} function call(s) but "
                    f"{len(self.responses)} result(s) follow it; Gemini needs exactly one "
                    "result per call, right after the turn"
                )
            self.out.append({"role": "user", "parts": self.responses})
        if self.after or self.held:
            self.out.append({"role": "user", "parts": self.after + self.held})
        self.awaiting, self.responses, self.held, self.after = 0, [], [], []

    def _append(self, content: Content) -> None:
        # Consecutive user texts, or model turns, go in one content: a call turn must follow
        # a user or function-response turn. Function-response contents are never merged.
        last = self.out[-1] if self.out else None
        if last is not None and last["role"] == content["role"] and not _is_responses(last):
            last["parts"].extend(content["parts"])
        else:
            self.out.append(content)

    def _model_parts(self, message: LangMessage) -> list[dict[str, Any]]:
        gemini_turn = any(_own(p.state) is not None for p in message.parts)
        parts: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, MediaPart):  # an image the model made, say
                encoded: dict[str, Any] | None = {**self._media(part.media), **_signed(part)}
            else:
                encoded = _model_part(part, gemini_turn)
            if encoded is None:
                continue
            if isinstance(part, ToolCallPart):
                issued = _own(part.state) is not None and not part.call.synthetic_id
                self.calls[part.call.id] = (part.call.name, issued)
                encoded = {"functionCall": _function_call(part.call, issued), **encoded}
            parts.append(encoded)
        calls = [p for p in parts if "functionCall" in p]
        if self.placeholders and calls and not any("thoughtSignature" in p for p in calls):
            # §3.6: Gemini 3 signs the first call of every step it makes; calls it never
            # signed (another provider's, hand-built, or an older Gemini's) get the
            # documented placeholder on the first call part, or the request is a 400.
            calls[0]["thoughtSignature"] = SKIP_SIGNATURE
        return parts

    def _user_part(self, part: Part) -> dict[str, Any] | None:
        if isinstance(part, MediaPart):
            return self._media(part.media)
        return {"text": part.text} if isinstance(part, TextPart) and part.text else None

    def _media(self, media: Media) -> dict[str, Any]:
        return encode_media(media, vertex=self.vertex)

    def _response(self, message: LangMessage) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The result's ``functionResponse`` part, and the media parts to send after it."""
        # The most recent call with this id: ids from other providers may repeat over turns.
        name, issued = self.calls.get(message.tool_call_id or "", (None, False))
        name = message.name or name
        if not name:
            raise ConfigError(
                f"tool result {message.tool_call_id!r} names no function; "
                "Gemini needs the function name in every functionResponse"
            )
        inside, after = self._split_media(message)
        # §3.5: ``response`` must be a JSON object: {"output": ...} or {"error": ...}. With
        # media, it holds the texts; the media are parts (no displayName or "$ref": both are
        # optional, and the Gemini API's support for displayName is unsure).
        media = inside or after
        content = _texts(message) if media else result_text(message)
        if message.is_error:
            response: dict[str, Any] = {"error": content}
        else:
            response = {"output": _json_or_text(content)}
        body: dict[str, Any] = {"name": name, "response": response}
        if inside:  # multimodal function responses (Gemini 3)
            body["parts"] = [self._media(m) for m in inside]
        if issued:  # §5.3: never send Gemini an id it did not issue
            body = {"id": message.tool_call_id, **body}
        return {"functionResponse": body}, [self._media(m) for m in after]

    def _split_media(self, message: LangMessage) -> tuple[list[Media], list[Media]]:
        """A result's media: those that go inside its response, and those after it.

        ``functionResponse.parts`` takes inline bytes on Gemini 3; a URL there only on Vertex
        (the Gemini API has no ``fileData`` in function responses).
        """
        inside: list[Media] = []
        after: list[Media] = []
        for part in message.parts:
            if isinstance(part, MediaPart):
                fits = self.nested and (part.media.url is None or self.vertex)
                (inside if fits else after).append(part.media)
        return inside, after


def _texts(message: LangMessage) -> str:
    """The texts of a result that holds media, one per line (the media go as parts)."""
    return "\n".join(p.text for p in message.parts if isinstance(p, TextPart) and p.text)


def _signed(part: MediaPart) -> dict[str, Any]:
    """The signature and unread fields a media part of Gemini's brought, to replay with it."""
    data = _own(part.state) or {}
    extra = data.get("extra")
    signed = dict(extra) if isinstance(extra, dict) else {}
    signature = data.get("thoughtSignature")
    return {**signed, "thoughtSignature": signature} if isinstance(signature, str) else signed


def _is_responses(content: Content) -> bool:
    return any("functionResponse" in part for part in content["parts"])


def _own(state: ProviderState | None) -> dict[str, Any] | None:
    """The state's payload when Gemini made it (every Gemini call carries some, maybe {})."""
    return state.data if state is not None and state.provider == PROVIDER else None


def _model_part(part: Part, gemini_turn: bool) -> dict[str, Any] | None:
    """One part of a model turn; a call's ``functionCall`` is added by the caller."""
    data = _own(part.state)
    signature = data.get("thoughtSignature") if data is not None else None
    signed = {"thoughtSignature": signature} if isinstance(signature, str) else {}
    extra = data.get("extra") if data is not None else None
    if isinstance(extra, dict) and not isinstance(part, ToolCallPart):
        signed = {**extra, **signed}  # fields of a text part this SDK does not read, verbatim
    match part:
        case TextPart():
            # §3.6: a signature goes back on the very part it came with, even when that
            # part's text is empty (the final streamed chunk of a text answer).
            return {"text": part.text, **signed} if part.text or signed else None
        case ThinkingPart():
            # Thought summaries are replayed only to Gemini, and only when they are Gemini's.
            if not gemini_turn or (part.state is not None and data is None):
                return None
            return {"text": part.text, "thought": True, **signed}
        case ToolCallPart():
            return signed
        case OpaquePart():
            if part.problem is not None:  # never read whole: Gemini would refuse it back
                return None
            raw = data.get("part") if data is not None else None
            return dict(raw) if isinstance(raw, dict) else None
    return None  # pragma: no cover - Part is a closed union


def _function_call(call: FunctionCall, issued: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"name": call.name, "args": call.arguments}
    return {"id": call.id, **body} if issued else body


def _json_or_text(text: str) -> Any:
    """A result as JSON when it is JSON; NaN, Infinity and absurd nesting stay text."""
    try:
        return loads_standard(text)
    except ValueError:
        return text
