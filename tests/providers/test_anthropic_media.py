"""Images and documents on the Messages wire: blocks in user content and in tool results.

The conversation of ``claude_media`` runs through ``Lang.anthropic`` over
``httpx.MockTransport``: each request body is compared with its fixture byte for byte, checked
against the official SDK's param types, and shown to replay the one before it unchanged.
"""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import ConfigError, Document, Image, Lang, VertexConfig
from aiwrapper._conversation._messages import (
    LangMessage,
    MediaPart,
    ProviderState,
    TextPart,
)
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.anthropic import AnthropicProvider

from . import claude_media as convo
from .anthropic_sdk import assert_sdk_accepts

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "anthropic"
MODEL = "claude-sonnet-4-5"
EPHEMERAL = {"type": "ephemeral"}
VERTEX = VertexConfig(project="my-proj", location="us-east5", access_token="ya29.tok")


def answer(content: list[dict[str, Any]], stop: str) -> bytes:
    return json.dumps(
        {
            "id": "msg_media",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    ).encode()


def calls(steps: list[tuple[str, str, dict[str, Any]]]) -> bytes:
    blocks = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in steps]
    return answer(blocks, "tool_use")


ANSWERS = [
    calls(convo.CALLS_1),
    answer([{"type": "text", "text": convo.TEXT_2}], "end_turn"),
    calls(convo.CALLS_3),
    answer([{"type": "text", "text": convo.TEXT_4}], "end_turn"),
]


def make_lang(client: httpx.AsyncClient) -> Lang:
    return Lang.anthropic(MODEL, api_key="k", http_client=client, max_retries=0)


async def sent_bodies() -> list[bytes]:
    sent, _ = await convo.run_conversation(make_lang, ANSWERS)
    return sent


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def encode(
    messages: list[LangMessage], provider: AnthropicProvider | None = None, **options: Any
) -> dict[str, Any]:
    request = ProviderRequest(MODEL, messages, [], merge_options(options), stream=False)
    return (provider or AnthropicProvider(api_key="k")).encode(request).body


def user(*parts: TextPart | MediaPart) -> LangMessage:
    return LangMessage("user", list(parts))


def image_block(data: bytes) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": b64(data)},
    }


def pdf_block(title: str) -> dict[str, Any]:
    source = {"type": "base64", "media_type": "application/pdf", "data": b64(convo.PDF)}
    return {"type": "document", "source": source, "title": title}


async def test_a_prompt_holds_text_an_image_and_a_pdf_in_order() -> None:
    body = json.loads((await sent_bodies())[0])
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Which cities are these?"},
                image_block(convo.RED),
                {**pdf_block("city map.pdf"), "cache_control": EPHEMERAL},  # the final block
            ],
        }
    ]


async def test_tool_results_hold_their_text_images_and_documents_in_the_tools_order() -> None:
    body = json.loads((await sent_bodies())[1])
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call_oslo",
                "content": [
                    {"type": "text", "text": "The sky over Oslo"},
                    image_block(convo.BLUE),
                ],
            },
            {
                "type": "tool_result",
                "tool_use_id": "call_rome",
                "content": [
                    {"type": "text", "text": "Report for Rome"},
                    image_block(convo.GREEN),
                    pdf_block("rome_report.pdf"),
                ],
                "cache_control": EPHEMERAL,  # the newest result: the next round reads the rest
            },
        ],
    }


@pytest.mark.parametrize("index", [1, 2, 3, 4])
async def test_each_request_matches_its_fixture_byte_for_byte(index: int) -> None:
    sent = await sent_bodies()
    fixture = (FIXTURES / f"request_media_{index}.json").read_text()
    assert sent[index - 1] == convo.fixture_bytes(fixture)


async def test_every_request_is_a_body_the_official_sdk_accepts() -> None:
    for sent in await sent_bodies():
        assert_sdk_accepts(json.loads(sent))


async def test_each_round_replays_the_one_before_it_with_the_same_bytes() -> None:
    bodies = [json.loads(sent) for sent in await sent_bodies()]
    for before, after in itertools.pairwise(bodies):
        earlier = convo.without_final_marker(before, "cache_control")
        assert convo.compact(after["messages"][: len(earlier)]) == convo.compact(earlier)
        assert convo.compact(after["tools"]) == convo.compact(before["tools"])
        assert after["system"] == before["system"]


async def test_each_part_is_encoded_once_across_all_four_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for part in convo.PARTS:  # the module's parts may have been encoded by an earlier test
        part._encoded.clear()
    with convo.counted_encodings(monkeypatch) as encoded:
        await sent_bodies()
    assert [encoded.count(data) for data in (convo.RED, convo.BLUE, convo.GREEN)] == [1, 1, 1]
    assert encoded.count(convo.PDF) == 2  # two documents holding the same bytes


async def test_claude_on_vertex_gets_the_same_blocks_at_raw_predict() -> None:
    anthropic_body = json.loads((await sent_bodies())[1])
    sent: list[httpx.Request] = []

    def vertex_answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, content=ANSWERS[len(sent) - 1])

    async with httpx.AsyncClient(transport=httpx.MockTransport(vertex_answer)) as client:
        lang = Lang.anthropic(
            "claude-sonnet-4-5@20250929", vertex=VERTEX, http_client=client, max_retries=0
        )
        await lang.chat(convo.prompt(), functions=[convo.snapshot, convo.report], stream=False)
    assert sent[1].url.path.endswith("/models/claude-sonnet-4-5@20250929:rawPredict")
    vertex_body = json.loads(sent[1].content)
    assert vertex_body["anthropic_version"] == "vertex-2023-10-16"
    assert vertex_body["messages"] == anthropic_body["messages"]


def test_claude_on_vertex_refuses_a_part_sent_by_url() -> None:
    vertex = AnthropicProvider(api_key=None, vertex=VERTEX)
    photo = Image.from_url("https://example.com/cat.png")
    with pytest.raises(ConfigError, match="Vertex AI takes images and documents as base64 only"):
        encode([user(TextPart("What?"), MediaPart(photo))], vertex)


def test_parts_sent_by_url_go_as_url_sources() -> None:
    photo = Image.from_url("https://example.com/cat.png")
    paper = Document.from_url("https://example.com/paper.pdf")
    body = encode([user(MediaPart(photo), MediaPart(paper), TextPart("Compare."))], cache=False)
    assert body["messages"][0]["content"][:2] == [
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
        {"type": "document", "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
    ]
    assert_sdk_accepts(body)


@pytest.mark.parametrize(
    ("part", "match"),
    [
        (Image.from_url("gs://bucket/cat.png"), "fetches https URLs only"),
        (Document.from_url("s3://bucket/paper.pdf"), "fetches https URLs only"),
        (Document.from_url("https://example.com/notes.txt"), "only as a PDF, not text/plain"),
    ],
)
def test_a_url_the_api_cannot_fetch_is_a_config_error(part: Image | Document, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        encode([user(TextPart("What?"), MediaPart(part))])


def test_a_plain_text_document_goes_as_a_text_source() -> None:
    notes = Document.from_bytes(b"Ski at 9.\nLunch at 12.", "text/plain", name="plan.txt")
    body = encode([user(MediaPart(notes), TextPart("When is lunch?"))], cache=False)
    assert body["messages"][0]["content"][0] == {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "Ski at 9.\nLunch at 12."},
        "title": "plan.txt",
    }
    assert_sdk_accepts(body)


def test_a_title_is_cut_to_the_500_characters_the_api_takes() -> None:
    paper = Document.from_bytes(convo.PDF, name="p" * 600 + ".pdf")
    body = encode([user(TextPart("Read."), MediaPart(paper))])
    assert body["messages"][0]["content"][1]["title"] == "p" * 500


def test_a_document_without_a_name_has_no_title() -> None:
    body = encode([user(TextPart("Read."), MediaPart(Document.from_bytes(convo.PDF)))])
    assert "title" not in body["messages"][0]["content"][1]


def test_the_automatic_breakpoint_lands_on_a_final_image() -> None:
    body = encode([user(TextPart("What is it?"), MediaPart(convo.PHOTO))])
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "What is it?"},
        {**image_block(convo.RED), "cache_control": EPHEMERAL},
    ]
    assert_sdk_accepts(body)


def test_a_breakpoint_the_user_placed_on_an_image_is_kept_and_counted() -> None:
    marked = MediaPart(convo.PHOTO, ProviderState("anthropic", {"cache_control": EPHEMERAL}))
    body = encode([user(marked, TextPart("What is it?"))], extra_body={"cache_control": EPHEMERAL})
    content = body["messages"][0]["content"]
    assert content[0]["cache_control"] == EPHEMERAL
    # The top-level marker and the user's take two of four slots: the final text gets one.
    assert content[1] == {"type": "text", "text": "What is it?", "cache_control": EPHEMERAL}


def test_an_image_in_an_assistant_turn_is_not_sent_back() -> None:
    drawn = LangMessage("assistant", [TextPart("Here:"), MediaPart(convo.PHOTO)])
    body = encode([user(TextPart("Draw.")), drawn, user(TextPart("Thanks."))], cache=False)
    assert body["messages"][1]["content"] == [{"type": "text", "text": "Here:"}]


def test_an_image_over_five_megabytes_of_base64_is_a_config_error_naming_it() -> None:
    big = Image.from_bytes(b"\x89PNG\r\n\x1a\n" + bytes(4 * 1024 * 1024), name="huge.png")
    with pytest.raises(ConfigError, match=r"at most 5 MB as base64.*'huge.png'.*5\.3 MB"):
        encode([user(TextPart("What?"), MediaPart(big))])


def test_an_image_just_under_the_limit_is_sent() -> None:
    fits = Image.from_bytes(b"\x89PNG\r\n\x1a\n" + bytes(3 * 1024 * 1024 - 8))
    body = encode([user(TextPart("What?"), MediaPart(fits))])
    assert len(body["messages"][0]["content"][1]["source"]["data"]) == 4 * 1024 * 1024


def test_media_past_the_32_megabyte_request_limit_is_a_config_error() -> None:
    pdfs = [
        Document.from_bytes(b"%PDF-1.4\n" + bytes(9 * 1024 * 1024), name=f"{i}.pdf")
        for i in range(3)
    ]
    with pytest.raises(ConfigError, match=r"at most 32 MB.*'2.pdf'.*36\.0 MB"):
        encode([user(TextPart("Read."), *(MediaPart(p) for p in pdfs))])
