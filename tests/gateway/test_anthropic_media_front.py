"""Images and documents from a Messages client: read into parts, sent on to the backend.

The official ``anthropic`` SDK (against uvicorn on 127.0.0.1) sends an image block in a
prompt and one inside a ``tool_result``; an Anthropic-wire backend behind
``httpx.MockTransport`` shows what reached it. Blocks that cannot be read are a 400 in
Anthropic's error shape naming the field, sent in process through ``httpx.ASGITransport``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aiwrapper import Document, Image, Lang
from aiwrapper._conversation._messages import MediaPart, TextPart
from aiwrapper.gateway import Gateway

from ..providers.claude_media import BLUE, PDF, RED
from ..vendor_sdks import anthropic
from .harness import served

WEATHER = {
    "name": "snapshot",
    "description": "The sky over a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
RED_B64, BLUE_B64, PDF_B64 = (base64.b64encode(data).decode() for data in (RED, BLUE, PDF))
PNG_AS = {"type": "base64", "media_type": "image/png", "data": RED_B64}
RED_IMAGE = {"type": "image", "source": PNG_AS}
GATEWAY = Gateway({})


def upstream_answer(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_up",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }


def anthropic_backend(answers: list[dict[str, Any]], sent: list[dict[str, Any]]) -> Lang:
    """An Anthropic-wire backend answering ``answers`` in turn, recording each body."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=answers[len(sent) - 1])

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    return Lang.anthropic(
        "claude-sonnet-4-5", api_key="k", http_client=upstream, options={"stream": False}
    )


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(base_url: str) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(base_url=base_url, api_key="unused", max_retries=0) as sdk:
        yield sdk


def test_an_image_from_the_sdk_reaches_an_anthropic_backend(client: anthropic.Anthropic) -> None:
    sent: list[dict[str, Any]] = []
    GATEWAY.routes["claude"] = anthropic_backend([upstream_answer([_text("Red.")])], sent)
    message = client.messages.create(
        model="claude",
        max_tokens=50,
        messages=[{"role": "user", "content": [RED_IMAGE, {"type": "text", "text": "Colour?"}]}],
    )
    assert message.content[0].text == "Red."  # type: ignore[union-attr]
    assert sent[0]["messages"] == [
        {
            "role": "user",
            "content": [
                RED_IMAGE,
                {"type": "text", "text": "Colour?", "cache_control": {"type": "ephemeral"}},
            ],
        }
    ]


def test_a_tool_result_holding_an_image_reaches_an_anthropic_backend(
    client: anthropic.Anthropic,
) -> None:
    sent: list[dict[str, Any]] = []
    call = {"type": "tool_use", "id": "toolu_sky", "name": "snapshot", "input": {"city": "Oslo"}}
    answers = [upstream_answer([call], "tool_use"), upstream_answer([_text("Blue.")])]
    GATEWAY.routes["claude"] = anthropic_backend(answers, sent)
    question = {"role": "user", "content": "The sky over Oslo?"}
    first = client.messages.create(
        model="claude", max_tokens=50, messages=[question], tools=[WEATHER]
    )
    (use,) = [block for block in first.content if block.type == "tool_use"]
    blue = {"type": "base64", "media_type": "image/png", "data": BLUE_B64}
    result = {
        "type": "tool_result",
        "tool_use_id": use.id,
        "content": [{"type": "text", "text": "Here it is"}, {"type": "image", "source": blue}],
    }
    second = client.messages.create(
        model="claude",
        max_tokens=50,
        messages=[
            question,
            {"role": "assistant", "content": [b.model_dump() for b in first.content]},
            {"role": "user", "content": [result]},
        ],
        tools=[WEATHER],
    )
    assert second.content[0].text == "Blue."  # type: ignore[union-attr]
    assert sent[1]["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_sky",
                "content": [
                    {"type": "text", "text": "Here it is"},
                    {"type": "image", "source": blue},
                ],
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# In process, through ASGITransport: the parts a request became, and its refusals.

MESSAGES = "/v1/messages"


async def _post(lang: Lang, messages: list[Any], **fields: Any) -> httpx.Response:
    gateway = Gateway({"local": lang})
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        body = {"model": "local", "max_tokens": 16, "messages": messages, **fields}
        return await http.post(MESSAGES, json=body)


@pytest.mark.anyio
async def test_documents_of_every_source_become_parts_in_their_place() -> None:
    lang = Lang.scripted(["ok"])
    content = [
        {"type": "text", "text": "Compare:"},
        {
            "type": "document",
            "title": "map.pdf",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        },
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Hi"}},
        {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
    ]
    reply = await _post(lang, [{"role": "user", "content": content}])
    assert reply.status_code == 200, reply.text
    (message,) = lang.requests[0].messages
    assert [type(p) for p in message.parts] == [TextPart, *[MediaPart] * 4]
    media = [p.media for p in message.parts if isinstance(p, MediaPart)]
    assert media == [
        Document.from_bytes(PDF, name="map.pdf"),
        Document.from_bytes(b"Hi", "text/plain"),
        Document.from_url("https://example.com/a.pdf", "application/pdf"),
        Image.from_url("https://example.com/cat.png"),
    ]


@pytest.mark.anyio
async def test_a_breakpoint_on_an_image_reaches_an_anthropic_backend() -> None:
    sent: list[dict[str, Any]] = []
    lang = anthropic_backend([upstream_answer([_text("ok")])], sent)
    marked = {**RED_IMAGE, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    text = {"type": "text", "text": "Colour?"}
    reply = await _post(lang, [{"role": "user", "content": [marked, text]}])
    assert reply.status_code == 200, reply.text
    assert sent[0]["messages"][0]["content"][0] == marked


@pytest.mark.anyio
async def test_a_tool_result_of_only_text_is_read_as_before() -> None:
    lang = Lang.scripted(["ok"])
    use = {"type": "tool_use", "id": "toolu_1", "name": "snapshot", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "4C"}
    messages = [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result, RED_IMAGE, {"type": "text", "text": "And this?"}]},
    ]
    reply = await _post(lang, messages, tools=[WEATHER])
    assert reply.status_code == 200, reply.text
    roles = [(m.role, m.content) for m in lang.requests[0].messages]
    assert roles == [("user", "Go"), ("assistant", ""), ("tool", "4C"), ("user", "And this?")]
    assert isinstance(lang.requests[0].messages[3].parts[0], MediaPart)


def _image(source: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "image", "source": source, **extra}


def _pdf(source: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "document", "source": source, **extra}


TEXT_AS = {"type": "text", "media_type": "text/plain"}
PDF_AT = {"type": "url", "url": "https://x/a.pdf"}
HOSTILE = [
    (_image({"type": "file", "file_id": "file_011"}), "content[0].source.file_id"),
    (_image({**PNG_AS, "data": "not base64!"}), "content[0].source.data"),
    (_image({**PNG_AS, "data": ""}), "content[0].source.data"),
    (_image({**PNG_AS, "data": 7}), "content[0].source.data"),
    (_image({**PNG_AS, "media_type": "image/bmp"}), "content[0].source.media_type"),
    (_image({**PNG_AS, "media_type": "image/jpeg"}), "content[0].source.data"),
    (_image({**PNG_AS, "data": PDF_B64}), "content[0].source.data"),
    (_image("iVBOR"), "content[0].source"),
    (_image(None), "content[0].source"),
    (_image({"type": "bytes"}), "content[0].source.type"),
    (_image({"type": "url", "url": "file:///etc/passwd"}), "content[0].source.url"),
    (_image({"type": "url", "url": ["https://x"]}), "content[0].source.url"),
    (_image(PNG_AS, transformations={"resize": True}), "content[0].transformations"),
    (_image(PNG_AS, cache_control="yes"), "content[0].cache_control"),
    (_pdf({"type": "content", "content": "chunks"}), "content[0].source.type"),
    (_pdf({**PNG_AS, "media_type": "text/plain"}), "content[0].source.media_type"),
    (_pdf({**TEXT_AS, "data": None}), "content[0].source.data"),
    (_pdf({**TEXT_AS, "data": ""}), "content[0].source.data"),
    (_pdf({"type": "file", "file_id": "file_1"}), "content[0].source.file_id"),
    (_pdf(PNG_AS | {"media_type": "application/pdf"}), "content[0].source.data"),
    (_pdf(PDF_AT, title=3), "content[0].title"),
    (_pdf(PDF_AT, citations={"enabled": True}), "content[0].citations"),
    (_pdf(PDF_AT, context="secret"), "content[0].context"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("block", "field"), HOSTILE)
async def test_a_block_that_cannot_be_read_is_a_400_naming_its_field(
    block: dict[str, Any], field: str
) -> None:
    lang = Lang.scripted(["never sent"])
    reply = await _post(lang, [{"role": "user", "content": [block, _text("What?")]}])
    assert reply.status_code == 400
    body = reply.json()
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert f"messages[0].{field}" in body["error"]["message"]
    assert lang.requests == []


TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "snapshot", "input": {}}
HOSTILE_RESULTS = [
    ({"tool_use_id": 5, "content": [RED_IMAGE]}, "content[0].tool_use_id"),
    ({"tool_use_id": "toolu_1", "is_error": "no", "content": [RED_IMAGE]}, "content[0].is_error"),
    (
        {"tool_use_id": "toolu_1", "content": [RED_IMAGE, {"type": "thinking", "thinking": ""}]},
        "content[0].content[1]",
    ),
    (
        {"tool_use_id": "toolu_1", "content": [{"type": "text", "text": 3}, RED_IMAGE]},
        "content[0].content[0]",
    ),
    ({"tool_use_id": "toolu_1", "content": [_image({"type": "file"})]}, "content[0].content[0]"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("result", "field"), HOSTILE_RESULTS)
async def test_a_tool_result_that_cannot_be_read_is_a_400_naming_its_field(
    result: dict[str, Any], field: str
) -> None:
    lang = Lang.scripted(["never sent"])
    messages = [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": [TOOL_USE]},
        {"role": "user", "content": [{"type": "tool_result", **result}]},
    ]
    reply = await _post(lang, messages, tools=[WEATHER])
    assert reply.status_code == 400
    assert f"messages[2].{field}" in reply.json()["error"]["message"]
    assert lang.requests == []


@pytest.mark.anyio
async def test_an_image_in_an_assistant_message_is_a_400_naming_it() -> None:
    lang = Lang.scripted(["never sent"])
    messages = [
        {"role": "user", "content": "Draw"},
        {"role": "assistant", "content": [RED_IMAGE]},
        {"role": "user", "content": "Thanks"},
    ]
    reply = await _post(lang, messages)
    assert reply.status_code == 400
    assert (
        "messages[1].content[0]: images and documents are read in user messages only"
        in (reply.json()["error"]["message"])
    )


@pytest.mark.anyio
async def test_a_thousand_images_of_junk_are_refused_at_the_first() -> None:
    lang = Lang.scripted(["never sent"])
    junk = [_image({**PNG_AS, "data": "AAAA"})] * 1000
    reply = await _post(lang, [{"role": "user", "content": junk}])
    assert reply.status_code == 400
    assert "messages[0].content[0].source.data" in reply.json()["error"]["message"]


@pytest.mark.anyio
async def test_an_image_and_a_pdf_from_a_messages_client_reach_a_bedrock_backend() -> None:
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        message = {"role": "assistant", "content": [{"text": "A red square."}]}
        usage = {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}
        return httpx.Response(
            200, json={"output": {"message": message}, "stopReason": "end_turn", "usage": usage}
        )

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    lang = Lang.bedrock(
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        region="us-west-2",
        api_key="k",
        http_client=upstream,
        options={"stream": False},
    )
    pdf = {"type": "base64", "media_type": "application/pdf", "data": PDF_B64}
    content = [RED_IMAGE, _pdf(pdf, title="Plan.pdf"), _text("What are these?")]
    reply = await _post(lang, [{"role": "user", "content": content}])
    assert reply.status_code == 200, reply.text
    assert sent[0]["messages"][0]["content"] == [
        {"image": {"format": "png", "source": {"bytes": RED_B64}}},
        {"document": {"format": "pdf", "name": "Plan", "source": {"bytes": PDF_B64}}},
        {"text": "What are these?"},
        {"cachePoint": {"type": "default"}},
    ]
