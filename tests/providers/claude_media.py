"""One conversation with images and documents, run on a wire whose answers a test scripts.

Request 1 asks about a picture and a PDF; the model calls two tools at once, one returning
text and an image, the other text, an image and a document; request 2 carries their results.
The model answers, the user asks again (request 3), the model calls a tool once more, and
request 4 carries that result: every request replays the whole conversation before it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from aiwrapper import Document, Image, Lang, LangResult, tool
from aiwrapper._conversation._messages import LangMessage, MediaPart, TextPart

# Real 2x2 PNGs (red, blue, green) and a PDF of one empty catalogue.
RED = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a73000000104944415478da63"
    "f8cfc000440c100a001fee03fd635ebb5b0000000049454e44ae426082"
)
BLUE = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a730000000f4944415478da63"
    "6060f80f46600a0017f603fdc7908bb40000000049454e44ae426082"
)
GREEN = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a730000000f4944415478da63"
    "6058c00042100a00118e0281a6a798430000000049454e44ae426082"
)
PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)
# The parts, made once: a conversation replays the same objects each round.
PHOTO = Image.from_bytes(RED)
MAP = Document.from_bytes(PDF, name="city map.pdf")
OSLO_SKY = Image.from_bytes(BLUE)
ROME_SKY = Image.from_bytes(GREEN)
ROME_REPORT = Document.from_bytes(PDF, name="rome_report.pdf")
PARTS = (PHOTO, MAP, OSLO_SKY, ROME_SKY, ROME_REPORT)


@tool
def snapshot(city: str) -> list[object]:
    """The sky over a city: a line and a picture.

    Args:
        city: The city's name.
    """
    return [f"The sky over {city}", OSLO_SKY]


@tool
def report(city: str) -> list[object]:
    """A city's weather report: text, a picture and the report as a PDF.

    Args:
        city: The city's name.
    """
    return [f"Report for {city}", ROME_SKY, ROME_REPORT]


def prompt() -> list[LangMessage]:
    """A question about a picture and a PDF."""
    parts = [TextPart("Which cities are these?"), MediaPart(PHOTO), MediaPart(MAP)]
    return [LangMessage.text("system", "Be brief."), LangMessage("user", parts)]  # type: ignore[arg-type]


# The model's four answers, as neutral steps a wire writes in its own shape.
CALLS_1 = [("call_oslo", "snapshot", {"city": "Oslo"}), ("call_rome", "report", {"city": "Rome"})]
TEXT_2 = "Oslo and Rome."
CALLS_3 = [("call_oslo_2", "snapshot", {"city": "Oslo"})]
TEXT_4 = "Still blue."


@contextmanager
def counted_encodings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Every bytes value base64-encoded while the block runs, in order."""
    encoded: list[bytes] = []
    real = base64.b64encode

    def counting(data: bytes, *args: Any) -> bytes:
        encoded.append(bytes(data))
        return real(data, *args)

    monkeypatch.setattr(base64, "b64encode", counting)
    yield encoded


async def run_conversation(
    make_lang: Callable[[httpx.AsyncClient], Lang],
    answers: list[bytes],
) -> tuple[list[bytes], LangResult[Any]]:
    """The four request bodies, as sent, and the final result."""
    sent: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        return httpx.Response(200, content=answers[len(sent) - 1])

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        lang = make_lang(client)
        options: dict[str, Any] = {"functions": [snapshot, report], "stream": False}
        first = await lang.chat(prompt(), **options)
        assert first.answer == TEXT_2
        second = await lang.chat(first.messages.with_user("And now?"), **options)
    assert second.answer == TEXT_4
    return sent, second


def fixture_bytes(text: str) -> bytes:
    """A request fixture's bytes: the body exactly as sent (one line of compact JSON)."""
    return text.rstrip("\n").encode()


def without_final_marker(body: dict[str, Any], marker_key: str) -> list[Any]:
    """The body's messages, less the automatic cache marker on the final message's last block,
    which moves forward each round (Anthropic's ``cache_control`` on a block; Bedrock's
    ``cachePoint``, a block of its own)."""
    messages = json.loads(json.dumps(body["messages"]))
    last = messages[-1]["content"]
    if marker_key == "cachePoint":
        assert "cachePoint" in last[-1]
        last.pop()
    else:
        assert last[-1].pop(marker_key) == {"type": "ephemeral"}
    return messages  # type: ignore[no-any-return]


def compact(value: Any) -> bytes:
    """``value`` as the transport writes it."""
    return json.dumps(value, separators=(",", ":")).encode()
