"""Images a Gemini model returns: kept as parts beside the answer text, streamed and whole.

``image_answer.sse`` / ``.json`` are a ``gemini-3-pro-image-preview`` answer: a thought, an
interim thought image, the text and the final image, the last two signed. Hostile ``inlineData``
(bad base64, no or a wrong type, not an object) is kept as a described opaque part.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from aiwrapper import Image, Lang
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    MediaEvent,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
)
from aiwrapper._conversation._messages import (
    LangMessage,
    MediaPart,
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
)
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.gemini import GeminiProvider

from .gemini_media import BLUE_B64, BLUE_PNG, FIXTURES, RED_B64, inline

pytestmark = pytest.mark.anyio

PROVIDER = GeminiProvider(api_key="k")
WHOLE = json.loads((FIXTURES / "image_answer.json").read_bytes())
THOUGHT, DRAFT, TEXT, PICTURE = WHOLE["candidates"][0]["content"]["parts"]


def gemini(**data: Any) -> ProviderState:
    return ProviderState("gemini", data)


def stream(data: bytes) -> list[Event]:
    framing, decoder = SSEDecoder(), PROVIDER.decode_stream()
    events: list[Event] = []
    for name, text in [*framing.feed(data), *framing.flush()]:
        events += decoder.feed(name, text)
    return events + decoder.close()


def assemble(events: list[Event]) -> LangMessage:
    assembler = Assembler(provider="gemini")
    assembler.add_all(events)
    return assembler.finish()


def replayed(turn: LangMessage) -> Any:
    """The model content Gemini gets back for ``turn`` on the next round."""
    messages = [LangMessage.text("user", "Draw"), turn, LangMessage.text("user", "Bluer")]
    request = ProviderRequest("gemini-3-pro-image-preview", messages, [], LangOptions(), True)
    return PROVIDER.encode(request).body["contents"][1]


def chunk(*parts: Any) -> bytes:
    candidate = {"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}
    return f"data: {json.dumps({'candidates': [candidate]})}\r\n\r\n".encode()


def test_the_streamed_image_comes_out_as_a_media_event_with_its_signature() -> None:
    events = stream((FIXTURES / "image_answer.sse").read_bytes())
    assert events[:6] == [
        ModelEvent("gemini-3-pro-image-preview"),
        ThinkingDelta("**Sketching**\nA small blue square."),
        OpaquePartEvent(gemini(part=DRAFT), kind="thinking"),  # the interim draft: reasoning
        TextDelta("Here is a blue square.", new_part=True),
        PartStateEvent(gemini(thoughtSignature="EpYBAb4+9vimgtext==")),
        MediaEvent(Image.from_bytes(BLUE_PNG), gemini(thoughtSignature="EpYBAb4+9vimgdata==")),
    ]
    assert events[-1] == FinishEvent("stop", raw="STOP")


def test_streamed_or_whole_the_answer_keeps_its_text_and_its_image() -> None:
    streamed = assemble(stream((FIXTURES / "image_answer.sse").read_bytes()))
    whole = assemble(PROVIDER.decode_response(WHOLE))
    assert streamed.parts == whole.parts
    assert streamed.answer == "Here is a blue square."
    assert [type(p) for p in streamed.parts] == [ThinkingPart, OpaquePart, TextPart, MediaPart]
    image = streamed.parts[3]
    assert isinstance(image, MediaPart)
    assert (image.media.media_type, image.media.data) == ("image/png", BLUE_PNG)


def test_the_answer_goes_back_to_gemini_part_for_part_with_every_signature() -> None:
    turn = assemble(stream((FIXTURES / "image_answer.sse").read_bytes()))
    assert replayed(turn) == WHOLE["candidates"][0]["content"]


def replies(body: bytes, *, stream: bool) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        method = ":streamGenerateContent?alt=sse" if stream else ":generateContent"
        assert str(request.url).endswith(method)
        kind = "text/event-stream" if stream else "application/json"
        return httpx.Response(200, content=body, headers={"Content-Type": kind})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("streamed", [True, False])
async def test_a_run_answers_with_the_text_and_keeps_the_image_in_its_message(
    streamed: bool,
) -> None:
    name = "image_answer.sse" if streamed else "image_answer.json"
    client = replies((FIXTURES / name).read_bytes(), stream=streamed)
    async with Lang.gemini("gemini-3-pro-image-preview", api_key="k", http_client=client) as lang:
        result = await lang.ask("Draw a blue square", stream=streamed)
    assert result.answer == "Here is a blue square."
    last = result.messages[-1]
    assert [p.media.data for p in last.parts if isinstance(p, MediaPart)] == [BLUE_PNG]


# --- hostile inlineData ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blob", "problem"),
    [
        ({"mimeType": "image/png", "data": "not base64!"}, "its data is not base64"),
        ({"mimeType": "image/png", "data": base64.b64encode(b"%PDF-1.4").decode()}, "not the"),
        ({"mimeType": "image/png"}, "it holds no base64 data"),
        ({"mimeType": "image/png", "data": 7}, "it holds no base64 data"),
        ({"data": base64.b64encode(b"plain bytes").decode()}, "of no type it recognises"),
        ("iVBORw0", "it holds no base64 data"),
    ],
)
def test_unreadable_inline_data_is_kept_described_and_the_turn_goes_on(
    blob: Any, problem: str
) -> None:
    bad = {"inlineData": blob}
    turn = assemble(stream(chunk({"text": "Here:"}, bad, {"text": " done."})))
    kept = turn.parts[1]
    assert isinstance(kept, OpaquePart)
    assert kept.problem is not None
    assert kept.problem.startswith("Gemini sent inlineData that cannot be read: ")
    assert problem in kept.problem
    assert turn.content == "Here: done."
    # Gemini would refuse it back: it is not replayed.
    assert replayed(turn)["parts"] == [{"text": "Here:"}, {"text": " done."}]


def test_inline_data_without_a_type_or_in_url_safe_base64_is_read_from_its_bytes() -> None:
    unpadded = base64.urlsafe_b64encode(BLUE_PNG).decode().rstrip("=")
    events = stream(chunk({"inlineData": {"data": unpadded}}))
    assert events[0] == MediaEvent(Image.from_bytes(BLUE_PNG))


def test_speech_audio_stays_an_opaque_part_replayed_verbatim() -> None:
    audio = {"inlineData": {"mimeType": "audio/L16;codec=pcm;rate=24000", "data": "AAAA"}}
    turn = assemble(stream(chunk(audio)))
    assert turn.parts == [OpaquePart(gemini(part=audio))]
    assert replayed(turn)["parts"] == [audio]


def test_fields_the_sdk_does_not_read_go_back_with_the_image() -> None:
    part = {**inline("image/png", RED_B64), "partMetadata": {"k": 1}, "thoughtSignature": "c2ln"}
    turn = assemble(stream(chunk(part)))
    assert replayed(turn)["parts"] == [part]


def test_a_large_image_is_kept_whole() -> None:
    big = BLUE_PNG + bytes(3 * 1024 * 1024)  # a PNG signature and 3 MB of data
    turn = assemble(stream(chunk(inline("image/png", base64.b64encode(big).decode()))))
    [image] = turn.parts
    assert isinstance(image, MediaPart)
    assert image.media.data == big


def test_an_image_from_the_prompt_history_replays_unsigned() -> None:
    turn = LangMessage("assistant", [TextPart("Drawn."), MediaPart(Image.from_bytes(BLUE_PNG))])
    assert replayed(turn)["parts"] == [{"text": "Drawn."}, inline("image/png", BLUE_B64)]


@pytest.mark.parametrize("live", [False, True], ids=["batch", "live"])
def test_an_image_between_texts_is_a_part_of_its_own_and_the_answer_keeps_both(live: bool) -> None:
    assembler = Assembler("gemini", live=live)
    for event in [
        TextDelta("Before, "),
        MediaEvent(Image.from_bytes(BLUE_PNG)),
        TextDelta("after."),
    ]:
        assembler.add(event)
        assert assembler.answer in ("Before, ", "Before, after.")
    message = assembler.finish()
    assert [type(p) for p in message.parts] == [TextPart, MediaPart, TextPart]
    assert message.answer == "Before, after."
