"""Images sent to Ollama: ``images`` on user and tool messages, replayed round after round.

The requests of a whole conversation are compared byte for byte with a fixture: a prompt
holding an image and a plain-text document, a turn of two parallel calls whose tools return
text, images and a document, and two more rounds replaying it. Ollama reads no documents
but plain text, and fetches no URLs: both are refused before sending.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import ConfigError, Document, Image, Lang, tool
from aiwrapper._conversation._messages import (
    LangMessage,
    LangMessages,
    MediaPart,
    TextPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._wire._outgoing import json_bytes
from aiwrapper.providers.ollama import OllamaProvider

from .gemini_media import BLUE_B64, BLUE_PNG, PDF, RED_B64, RED_PNG

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ollama"
NOTES = Document.from_bytes(b"Q3: sales up 4%.\n", "text/plain", name="notes.txt")
PROMPT = LangMessage(
    "user",
    [
        TextPart("Compare this chart with the notes."),
        MediaPart(Image.from_bytes(RED_PNG)),
        MediaPart(NOTES),
    ],
)


@tool
def chart(city: str) -> list[Any]:
    """Draw the sales chart of a city.

    Args:
        city: The city's name.
    """
    return [f"Sales in {city}", Image.from_bytes(RED_PNG)]


@tool
def report(city: str) -> list[Any]:
    """Fetch the sales report of a city.

    Args:
        city: The city's name.
    """
    text = Document.from_bytes(f"{city}: flat.".encode(), "text/plain")
    return [f"Report for {city}", Image.from_bytes(BLUE_PNG), text]


def mock_ollama(replies: list[bytes], bodies: list[bytes]) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        headers = {"Content-Type": "application/x-ndjson"}
        return httpx.Response(200, content=replies[len(bodies) - 1], headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def conversation() -> list[bytes]:
    """The bodies of four rounds: calls, their results, then two follow-up questions."""
    answer = (FIXTURES / "text.ndjson").read_bytes()
    replies = [(FIXTURES / "media_calls.ndjson").read_bytes(), *[answer] * 3]
    bodies: list[bytes] = []
    client = mock_ollama(replies, bodies)
    tools = [chart, report]
    base = "http://localhost:11434"
    async with Lang.ollama("qwen2.5vl", base_url=base, http_client=client) as lang:
        result = await lang.chat(LangMessages([PROMPT]), functions=tools)
        result = await lang.chat(result.messages.with_user("Which did better?"), functions=tools)
        await lang.chat(result.messages.with_user("Thanks."), functions=tools)
    return bodies


async def test_every_request_of_the_conversation_matches_its_fixture_byte_for_byte() -> None:
    fixture = (FIXTURES / "media_requests.jsonl").read_bytes().splitlines()
    assert await conversation() == fixture


async def test_each_round_replays_the_rounds_before_it_with_the_same_bytes() -> None:
    bodies = await conversation()
    for before, after in itertools.pairwise(bodies):
        messages = json.loads(before)["messages"]
        shared = json_bytes({"model": "qwen2.5vl", "messages": messages})[: -len(b"]}")]
        assert after.startswith(shared)
        assert len(json.loads(after)["messages"]) > len(messages)


async def test_images_ride_on_the_user_and_tool_messages_text_documents_as_text() -> None:
    second = json.loads((await conversation())[1])["messages"]
    assert second[0] == {
        "role": "user",
        "content": "Compare this chart with the notes.\nQ3: sales up 4%.\n",
        "images": [RED_B64],
    }
    assert second[2:] == [
        {
            "role": "tool",
            "tool_name": "chart",
            "tool_call_id": "call_c4rt0aaa",
            "content": "Sales in Oslo",
            "images": [RED_B64],
        },
        {
            "role": "tool",
            "tool_name": "report",
            "tool_call_id": "call_r3p0rtbb",
            "content": "Report for Rome\nRome: flat.",
            "images": [BLUE_B64],
        },
    ]


# --- what Ollama cannot take ---------------------------------------------------------------


def encode(*messages: LangMessage) -> Any:
    request = ProviderRequest("qwen2.5vl", list(messages), [], merge_options(), stream=True)
    return OllamaProvider().encode(request).body["messages"]


def test_a_pdf_in_a_prompt_is_a_config_error_naming_the_part() -> None:
    pdf = Document.from_bytes(PDF, name="q3.pdf")
    with pytest.raises(ConfigError) as caught:
        encode(LangMessage("user", [TextPart("Read"), MediaPart(pdf)]))
    assert str(caught.value) == (
        "Ollama reads no documents, only text and images: Document('application/pdf', "
        f"{len(PDF)} bytes, name='q3.pdf') cannot be sent; pass its text instead (a text/plain "
        "Document is sent as text)"
    )


def test_a_pdf_returned_by_a_tool_is_a_config_error_too() -> None:
    call = FunctionCall(id="c1", name="fetch", arguments={})
    result = LangMessage.tool_result(call, "", parts=[MediaPart(Document.from_bytes(PDF))])
    with pytest.raises(ConfigError, match="Ollama reads no documents"):
        encode(
            LangMessage.text("user", "Hi"), LangMessage("assistant", [ToolCallPart(call)]), result
        )


def test_a_url_is_a_config_error_suggesting_the_bytes() -> None:
    link = Image.from_url("https://example.com/cat.png")
    with pytest.raises(ConfigError) as caught:
        encode(LangMessage("user", [MediaPart(link)]))
    assert str(caught.value) == (
        "Ollama fetches no URLs, so Image('image/png', url='https://example.com/cat.png') "
        "cannot be sent; pass its bytes with Image.from_path or .from_bytes"
    )


def test_a_failed_tool_keeps_its_images_beside_the_error_text() -> None:
    call = FunctionCall(id="c1", name="shot", arguments={})
    parts = [TextPart("Timed out"), MediaPart(Image.from_bytes(RED_PNG))]
    result = LangMessage.tool_result(call, "", is_error=True, parts=parts)
    sent = encode(
        LangMessage.text("user", "Hi"), LangMessage("assistant", [ToolCallPart(call)]), result
    )
    assert sent[2] == {
        "role": "tool",
        "tool_name": "shot",
        "tool_call_id": "c1",
        "content": '{"error":"Timed out","error_type":"Error"}',
        "images": [RED_B64],
    }


def test_a_text_only_conversation_has_no_images_key() -> None:
    assert encode(LangMessage.text("user", "Hi")) == [{"role": "user", "content": "Hi"}]
