"""Images and documents sent by the official ``openai`` SDK to the gateway's Responses front-end.

``input_image`` and ``input_file`` parts, in a user message and inside a
``function_call_output``, are read into image and document parts for the backend; a data URL
arrives as bytes, an https URL by reference. Malformed parts are 400s naming the field.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._messages import LangMessage, MediaPart, TextPart
from aiwrapper.gateway import Gateway

from ..seeds import wires
from ..vendor_sdks import openai
from .harness import served_in_loop

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "openai_responses"
PNG = (FIXTURES / "red_dot.png").read_bytes()
PDF = (FIXTURES / "tiny.pdf").read_bytes()
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()
PDF_URL = "data:application/pdf;base64," + base64.b64encode(PDF).decode()
CHART = {
    "type": "function",
    "name": "rain_chart",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": False,
}
CALL = {"type": "function_call", "call_id": "call_c1", "name": "rain_chart", "arguments": "{}"}
GATEWAY = Gateway({})


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, asyncio.AbstractEventLoop]]:
    with served_in_loop(GATEWAY) as served:
        yield served


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(server: tuple[str, asyncio.AbstractEventLoop]) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server[0] + "/v1", api_key="-", max_retries=0) as sdk:
        yield sdk


def route(turns: list[Any]) -> Lang:
    lang = Lang.scripted(turns)
    GATEWAY.routes["scripted"] = lang
    return lang


def _image(**fields: Any) -> dict[str, Any]:
    return {"type": "input_image", **fields}


def _file(**fields: Any) -> dict[str, Any]:
    return {"type": "input_file", **fields}


def media(message: LangMessage) -> list[tuple[str, Any]]:
    """A message's parts, shown as (kind, payload) in order."""
    shown: list[tuple[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            shown.append(("text", part.text))
        elif isinstance(part, MediaPart):
            item = part.media
            payload = item.url or item.data
            shown.append((f"{item.kind} {item.media_type} {item.name}", payload))
    return shown


def test_an_image_a_pdf_and_an_image_url_reach_the_backend_as_parts(
    client: openai.OpenAI,
) -> None:
    lang = route(["A red dot and an empty PDF."])
    answer = client.responses.create(
        model="scripted",
        input=[
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What are these?"},
                    {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
                    {"type": "input_file", "filename": "report.pdf", "file_data": PDF_URL},
                    {
                        "type": "input_image",
                        "image_url": "https://example.com/a.png",
                        "detail": "low",
                    },
                    {"type": "input_file", "file_url": "https://example.com/b.pdf"},
                ],
            }
        ],
    )
    assert answer.output_text == "A red dot and an empty PDF."
    (sent,) = lang.requests[0].messages
    assert sent.role == "user"
    assert media(sent) == [
        ("text", "What are these?"),
        ("image image/png None", PNG),
        ("document application/pdf report.pdf", PDF),
        ("image image/png None", "https://example.com/a.png"),
        ("document application/pdf None", "https://example.com/b.pdf"),
    ]


def test_a_function_call_output_with_an_image_and_a_document_is_read_in_order(
    client: openai.OpenAI,
) -> None:
    lang = route(["It rains."])
    client.responses.create(
        model="scripted",
        tools=[CHART],
        input=[
            {"role": "user", "content": "Rain in Oslo?"},
            CALL,
            {
                "type": "function_call_output",
                "call_id": "call_c1",
                "output": [
                    {"type": "input_text", "text": "Rainfall:"},
                    {"type": "input_image", "image_url": PNG_URL},
                    {"type": "input_file", "filename": "notes.txt", "file_data": "UmFpbnk="},
                    {"type": "input_file", "filename": "data.pdf", "file_data": PDF_URL},
                ],
            },
        ],
    )
    result = lang.requests[0].messages[-1]
    assert (result.role, result.tool_call_id) == ("tool", "call_c1")
    assert media(result) == [
        ("text", "Rainfall:"),
        ("image image/png None", PNG),
        ("document text/plain notes.txt", b"Rainy"),
        ("document application/pdf data.pdf", PDF),
    ]


@pytest.fixture
def upstreams(server: tuple[str, asyncio.AbstractEventLoop]) -> Iterator[list[httpx.AsyncClient]]:
    """Backends' clients, closed after the test in the loop that used them."""
    clients: list[httpx.AsyncClient] = []
    yield clients
    for upstream in clients:
        asyncio.run_coroutine_threadsafe(upstream.aclose(), server[1]).result(10)


def test_a_responses_backend_gets_the_image_and_the_result_parts_as_sent(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient]
) -> None:
    sent: list[wires.Body] = []
    answers = [(FIXTURES / "text.sse").read_bytes()]
    upstream = wires.recording_client(wires.WIRES["openai"], answers, sent)
    upstreams.append(upstream)
    GATEWAY.routes["o3"] = Lang.openai("o3", api_key="k", api="responses", http_client=upstream)
    image = {"type": "input_image", "image_url": PNG_URL, "detail": "auto"}
    output = [
        {"type": "input_text", "text": "Rainfall:"},
        {"type": "input_image", "image_url": PNG_URL},
    ]
    client.responses.create(
        model="o3",
        tools=[CHART],
        input=[
            {"role": "user", "content": [{"type": "input_text", "text": "Chart?"}, image]},
            CALL,
            {"type": "function_call_output", "call_id": "call_c1", "output": output},
        ],
    )
    (upstream_body,) = sent
    user, call, result = upstream_body["input"]
    assert user["content"] == [{"type": "input_text", "text": "Chart?"}, image]
    assert (call["call_id"], result["call_id"]) == ("call_c1", "call_c1")
    assert result["output"] == output


JPEG_AS_PNG = "data:image/png;base64," + base64.b64encode(b"\xff\xd8\xff\xe0rest").decode()
DOCX = "data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,UEsD"
HOSTILE = [
    (_image(), "input[0].content[0].image_url"),
    (_image(image_url=42), "input[0].content[0].image_url"),
    (_image(image_url={"url": {"deep": [PNG_URL]}}), "input[0].content[0].image_url"),
    (_image(image_url="ftp://example.com/a.png"), "input[0].content[0].image_url"),
    (_image(image_url="data:image/png;base64,!!not base64!!"), "input[0].content[0].image_url"),
    (_image(image_url=PDF_URL), "input[0].content[0].image_url"),
    (_image(image_url=JPEG_AS_PNG), "input[0].content[0].image_url"),
    (_image(image_url="data:image/png;base64," + "A" * 400_000), "input[0].content[0].image_url"),
    (_image(file_id="file-abc123"), "input[0].content[0].file_id"),
    (_image(image_url=PNG_URL, detail="ultra"), "input[0].content[0].detail"),
    (_file(file_id="file-abc123", filename="a.pdf"), "input[0].content[0].file_id"),
    (_file(filename="a.pdf"), "input[0].content[0]"),
    (_file(file_data=PDF_URL, file_url="https://example.com/a.pdf"), "input[0].content[0]"),
    (_file(file_data="%%% not base64", filename="a.pdf"), "input[0].content[0].file_data"),
    (_file(file_data=DOCX, filename="a.docx"), "input[0].content[0].file_data"),
    (_file(file_data="", filename="a.pdf"), "input[0].content[0].file_data"),
    (_file(file_data=["x"]), "input[0].content[0].file_data"),
    (_file(file_data=PDF_URL, filename=7), "input[0].content[0].filename"),
    (_file(file_url="data:,"), "input[0].content[0].file_url"),
    (_file(file_data=PDF_URL, detail="original"), "input[0].content[0].detail"),
]


@pytest.mark.parametrize(("part", "param"), HOSTILE)
def test_a_malformed_part_in_a_message_is_a_400_naming_the_field(
    client: openai.OpenAI, part: dict[str, Any], param: str
) -> None:
    lang = route(["never sent"])
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="scripted", input=[{"role": "user", "content": [part]}])
    assert caught.value.param == param
    assert caught.value.type == "invalid_request_error"
    assert lang.requests == []


@pytest.mark.parametrize(
    ("item", "param"),
    [
        ({"role": "user", "content": [_image(image_url=PNG_URL), "oops"]}, "input[0].content[1]"),
        (
            {"role": "user", "content": [_image(image_url=PNG_URL), {"type": "input_audio"}]},
            "input[0].content[1].type",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "input_text", "text": 5}, _image(image_url=PNG_URL)],
            },
            "input[0].content[0].text",
        ),
        ({"role": "developer", "content": [_image(image_url=PNG_URL)]}, "input[0].content"),
        ({"role": "assistant", "content": [_image(image_url=PNG_URL)]}, "input[0].content"),
        (
            {"type": "function_call_output", "call_id": "call_c1", "output": [_image(file_id="f")]},
            "input[0].output[0].file_id",
        ),
        (
            {
                "type": "function_call_output",
                "call_id": "call_c1",
                "output": [{"type": "input_text", "text": "ok"}, _image(image_url="nope")],
            },
            "input[0].output[1].image_url",
        ),
    ],
)
def test_a_malformed_item_holding_media_is_a_400_naming_the_field(
    client: openai.OpenAI, item: dict[str, Any], param: str
) -> None:
    lang = route(["never sent"])
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="scripted", input=[item])
    assert caught.value.param == param
    assert lang.requests == []
