"""Images and documents on the Responses API: request bodies byte for byte, checked against the
official SDK's input types, in a prompt, in parallel tool results, and replayed round after round.
"""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Document, Image, Lang, tool
from aiwrapper import _errors as errors
from aiwrapper._conversation._messages import (
    LangMessage,
    LangMessages,
    MediaPart,
    TextPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._wire._http import HttpTransport
from aiwrapper.providers._http_model import HttpModel
from aiwrapper.providers.openai_responses import ResponsesProvider

from .responses_sdk import assert_sdk_accepts
from .test_openai_responses_encode import body

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_responses"
RED_DOT = (FIXTURES / "red_dot.png").read_bytes()  # 2x2 RGB
BLUE_BAR = (FIXTURES / "blue_bar.png").read_bytes()  # 4x1 RGB
PDF = (FIXTURES / "tiny.pdf").read_bytes()  # %PDF-1.4, no pages


@tool
def rain_chart(city: str) -> list[object]:
    """A chart of a city's rainfall.

    Args:
        city: City name.
    """
    return [f"Rainfall in {city}, by month:", Image.from_bytes(RED_DOT)]


@tool
def city_dossier(city: str) -> list[object]:
    """Everything known about a city.

    Args:
        city: City name.
    """
    pdf = Document.from_bytes(PDF, name=f"{city.lower()}.pdf")
    return [f"Dossier for {city}.", Image.from_bytes(BLUE_BAR), pdf]


class Server:
    """Answers request n with the response fixture ``answers[n]``; keeps the bytes sent."""

    def __init__(self, *answers: str) -> None:
        self.answers = answers
        self.sent: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request.content)
        answer = (FIXTURES / self.answers[len(self.sent) - 1]).read_bytes()
        return httpx.Response(200, content=answer, headers={"content-type": "application/json"})

    def lang(self) -> Lang:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        provider = ResponsesProvider(api_key="sk-test")
        return Lang(HttpModel(provider, HttpTransport(http_client=client), model="o3"))

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(sent) for sent in self.sent]


def prompt() -> LangMessage:
    return LangMessage(
        "user",
        [
            TextPart("What do the picture and the PDF show?"),
            MediaPart(Image.from_bytes(RED_DOT)),
            MediaPart(Document.from_bytes(PDF, name="report.pdf")),
        ],
    )


def data_url(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


def inputs_of(sent: bytes) -> bytes:
    """The bytes of the body up to the end of its last input item."""
    return sent[: sent.index(b'],"store":')]


async def test_a_prompt_with_an_image_and_a_pdf_is_sent_as_its_fixture() -> None:
    server = Server("media_answer_3.json")
    result = await server.lang().chat([prompt()], stream=False)
    assert result.answer == "The PDF has no pages."
    assert server.sent == [(FIXTURES / "request_image_pdf.json").read_bytes()]
    (sent,) = server.bodies()
    assert_sdk_accepts(sent)
    assert sent["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What do the picture and the PDF show?"},
                {
                    "type": "input_image",
                    "image_url": data_url("image/png", RED_DOT),
                    "detail": "auto",
                },
                {
                    "type": "input_file",
                    "filename": "report.pdf",
                    "file_data": data_url("application/pdf", PDF),
                },
            ],
        }
    ]


async def test_parallel_results_with_images_and_a_document_go_back_as_part_lists() -> None:
    server = Server("media_calls.json", "media_answer.json")
    result = await server.lang().chat(
        [LangMessage.text("user", "Tell me about Oslo's rain.")],
        functions=[rain_chart, city_dossier],
        stream=False,
    )
    assert result.answer == "Oslo's rain peaks in autumn; the dossier agrees."
    assert server.sent[1] == (FIXTURES / "request_media_results.json").read_bytes()
    first, second = server.bodies()
    assert_sdk_accepts(first)
    assert_sdk_accepts(second)
    items = second["input"]
    assert [(i["type"], i.get("id") or i.get("call_id")) for i in items] == [
        ("message", None),
        ("reasoning", "rs_6927a1b1aa"),
        ("function_call", "fc_6927a1b2c1"),
        ("function_call", "fc_6927a1b2d2"),
        ("function_call_output", "call_Chart3Kp8"),
        ("function_call_output", "call_Dossier5Wq1"),
    ]
    chart, dossier = (i["output"] for i in items[4:])
    assert [part["type"] for part in chart] == ["input_text", "input_image"]
    assert [part["type"] for part in dossier] == ["input_text", "input_image", "input_file"]
    assert chart[0] == {"type": "input_text", "text": "Rainfall in Oslo, by month:"}
    assert "detail" not in chart[1]  # optional in a tool output, unlike in a message
    assert dossier[2]["filename"] == "oslo.pdf"
    assert dossier[2]["file_data"].startswith("data:application/pdf;base64,JVBERi0xLjQK")
    images = [call.result[1] for call in result.function_calls]
    assert [image.data for image in images] == [RED_DOT, BLUE_BAR]  # what the tools returned


async def test_two_more_rounds_resend_the_conversation_with_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoded: list[int] = []
    encode = base64.b64encode

    def counted(data: bytes) -> bytes:
        encoded.append(len(data))
        return encode(data)

    monkeypatch.setattr(base64, "b64encode", counted)
    server = Server(
        "media_calls.json", "media_answer.json", "media_answer_2.json", "media_answer_3.json"
    )
    lang = server.lang()
    opening = LangMessages([prompt()])
    result = await lang.chat(opening, functions=[rain_chart, city_dossier], stream=False)
    result = await lang.chat(
        result.messages.with_user("What is the red square?"),
        functions=[rain_chart, city_dossier],
        stream=False,
    )
    result = await lang.chat(
        result.messages.with_user("And the PDF?"),
        functions=[rain_chart, city_dossier],
        stream=False,
    )
    assert result.answer == "The PDF has no pages."
    assert len(server.sent) == 4
    # Each image and PDF encoded once, though the prompt's went out four times and the
    # results' three: the prompt's image and PDF, then each tool's parts.
    assert encoded == [len(RED_DOT), len(PDF), len(RED_DOT), len(BLUE_BAR), len(PDF)]
    for before, after in itertools.pairwise(server.sent):
        assert after.startswith(inputs_of(before))
    assert server.sent[3] == (FIXTURES / "request_media_round4.json").read_bytes()
    bodies = server.bodies()
    for sent in bodies:
        assert_sdk_accepts(sent)
    assert [i.get("role") or i["type"] for i in bodies[3]["input"]] == [
        "user",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "assistant",
        "user",
        "assistant",
        "user",
    ]


def test_a_text_only_user_message_keeps_the_string_form() -> None:
    sent = body([LangMessage("user", [TextPart("Hi "), TextPart("there")])])
    assert sent["input"] == [{"type": "message", "role": "user", "content": "Hi there"}]


def test_urls_go_by_reference_and_plain_text_goes_as_text() -> None:
    notes = Document.from_bytes(b"Rain: 90 mm in October.", "text/plain", name="n.txt")
    message = LangMessage(
        "user",
        [
            MediaPart(Image.from_url("https://example.com/chart.png")),
            MediaPart(Document.from_url("https://example.com/letter.pdf")),
            MediaPart(notes),
            TextPart(""),  # an empty text is no part at all
        ],
    )
    sent = body([message], stream=False)
    assert_sdk_accepts(sent)
    assert sent["input"][0]["content"] == [
        {"type": "input_image", "image_url": "https://example.com/chart.png", "detail": "auto"},
        {"type": "input_file", "file_url": "https://example.com/letter.pdf"},
        {"type": "input_text", "text": "Rain: 90 mm in October."},
    ]


def test_an_unnamed_pdf_is_given_the_filename_the_api_requires() -> None:
    message = LangMessage("user", [MediaPart(Document.from_bytes(PDF))])
    (part,) = body([message], stream=False)["input"][0]["content"]
    assert (part["type"], part["filename"]) == ("input_file", "document.pdf")


@pytest.mark.parametrize("url", ["gs://bucket/chart.png", "s3://bucket/chart.png"])
def test_a_url_openai_cannot_fetch_is_a_config_error_suggesting_the_bytes(url: str) -> None:
    message = LangMessage("user", [TextPart("What is it?"), MediaPart(Image.from_url(url))])
    with pytest.raises(errors.ConfigError, match=r"only http\(s\) URLs.*Image\.from_path"):
        body([message])


def test_a_failed_call_keeps_its_error_text_and_a_text_result_its_string() -> None:
    call = FunctionCall(id="call_1", name="rain_chart", arguments={"city": "Oslo"})
    failed = LangMessage.tool_result(call, "boom", is_error=True, error_type="ValueError")
    plain = LangMessage.tool_result(call, "dry")
    turn = LangMessage("assistant", [ToolCallPart(call)])
    outputs = [i["output"] for i in body([turn, failed, plain])["input"][1:]]
    assert outputs == ['{"error":"boom","error_type":"ValueError"}', "dry"]
