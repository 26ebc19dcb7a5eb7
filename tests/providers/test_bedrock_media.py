"""Images and documents on Bedrock's Converse wire: blocks in user content and in toolResults.

The conversation of ``claude_media`` runs through ``Lang.bedrock`` over
``httpx.MockTransport``: each request body is compared with its fixture byte for byte, shown to
be what botocore itself would send for the same parameters, and to replay the one before it.
"""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import ConfigError, Document, Image, Lang
from aiwrapper._conversation._messages import LangMessage, MediaPart, TextPart, ToolCallPart
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.bedrock import BedrockProvider

from . import claude_media as convo
from .converse_sdk import assert_botocore_sends

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "bedrock"
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
CACHE_POINT = {"cachePoint": {"type": "default"}}
MB = 1024 * 1024


def answer(content: list[dict[str, Any]], stop: str) -> bytes:
    usage = {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
    message = {"role": "assistant", "content": content}
    return json.dumps({"output": {"message": message}, "stopReason": stop, "usage": usage}).encode()


def calls(steps: list[tuple[str, str, dict[str, Any]]]) -> bytes:
    blocks = [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in steps]
    return answer(blocks, "tool_use")


ANSWERS = [
    calls(convo.CALLS_1),
    answer([{"text": convo.TEXT_2}], "end_turn"),
    calls(convo.CALLS_3),
    answer([{"text": convo.TEXT_4}], "end_turn"),
]


def make_lang(client: httpx.AsyncClient) -> Lang:
    return Lang.bedrock(MODEL, region="us-west-2", api_key="k", http_client=client, max_retries=0)


async def sent_bodies() -> list[bytes]:
    sent, _ = await convo.run_conversation(make_lang, ANSWERS)
    return sent


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def image(data: bytes) -> dict[str, Any]:
    return {"image": {"format": "png", "source": {"bytes": b64(data)}}}


def pdf(name: str) -> dict[str, Any]:
    return {"document": {"format": "pdf", "name": name, "source": {"bytes": b64(convo.PDF)}}}


def encode(messages: list[LangMessage], **options: Any) -> dict[str, Any]:
    request = ProviderRequest(MODEL, messages, [], merge_options(options), stream=False)
    provider = BedrockProvider(region="us-west-2", api_key="k")
    return provider.encode(request).body


def user(*parts: TextPart | MediaPart) -> LangMessage:
    return LangMessage("user", list(parts))


def named(*names: str | None) -> list[str]:
    """The names Bedrock gets for PDFs with these file names, in one request."""
    parts = [MediaPart(Document.from_bytes(convo.PDF, name=name)) for name in names]
    content = encode([user(TextPart("Read these."), *parts)])["messages"][0]["content"]
    return [block["document"]["name"] for block in content if "document" in block]


async def test_a_prompt_holds_text_an_image_and_a_pdf_in_order() -> None:
    body = json.loads((await sent_bodies())[0])
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"text": "Which cities are these?"},
                image(convo.RED),
                pdf("city map"),  # "city map.pdf": a dot is no name character
                CACHE_POINT,
            ],
        }
    ]


async def test_tool_results_hold_their_text_images_and_documents_in_the_tools_order() -> None:
    body = json.loads((await sent_bodies())[1])
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": "call_oslo",
                    "content": [{"text": "The sky over Oslo"}, image(convo.BLUE)],
                }
            },
            {
                "toolResult": {
                    "toolUseId": "call_rome",
                    "content": [
                        {"text": "Report for Rome"},
                        image(convo.GREEN),
                        pdf("rome report"),
                    ],
                }
            },
            CACHE_POINT,  # after the newest results, as for text
        ],
    }


@pytest.mark.parametrize("index", [1, 2, 3, 4])
async def test_each_request_matches_its_fixture_byte_for_byte(index: int) -> None:
    sent = await sent_bodies()
    fixture = (FIXTURES / f"request_media_{index}.json").read_text()
    assert sent[index - 1] == convo.fixture_bytes(fixture)


async def test_every_request_is_what_botocore_sends_for_the_same_parameters() -> None:
    for sent in await sent_bodies():
        assert_botocore_sends(json.loads(sent), MODEL)


async def test_each_round_replays_the_one_before_it_with_the_same_bytes() -> None:
    bodies = [json.loads(sent) for sent in await sent_bodies()]
    for before, after in itertools.pairwise(bodies):
        earlier = convo.without_final_marker(before, "cachePoint")
        assert convo.compact(after["messages"][: len(earlier)]) == convo.compact(earlier)
        assert convo.compact(after["toolConfig"]) == convo.compact(before["toolConfig"])
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


@pytest.mark.parametrize(
    "part",
    [Image.from_url("https://example.com/cat.png"), Document.from_url("s3://bucket/paper.pdf")],
)
def test_a_part_sent_by_url_is_a_config_error(part: Image | Document) -> None:
    with pytest.raises(ConfigError, match="takes images and documents as bytes, not by URL"):
        encode([user(TextPart("What?"), MediaPart(part))])


def test_a_url_in_a_tool_result_is_a_config_error_too() -> None:
    call = FunctionCall(id="call_1", name="snapshot", arguments={}, status="done")
    result = LangMessage.tool_result(
        call, "", parts=[MediaPart(Image.from_url("https://example.com/cat.png"))]
    )
    with pytest.raises(ConfigError, match="aiwrapper does not send S3 locations"):
        encode([user(TextPart("Go.")), LangMessage("assistant", []), result])


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Q3 report (final).v2.pdf"], ["Q3 report (final) v2"]),
        (["a_b  c\t[d].pdf"], ["a b c [d]"]),
        (["rapport été.pdf"], ["rapport ete"]),
        (["분기보고서.pdf", ".pdf"], ["document", "pdf"]),
        ([None, None, "document.pdf"], ["document", "document (2)", "document (3)"]),
        (["Report.pdf", "report.pdf"], ["Report", "report (2)"]),
        (["x" * 250 + ".pdf", "x" * 300], ["x" * 200, "x" * 196 + " (2)"]),
    ],
)
def test_document_names_keep_to_the_characters_bedrock_takes_and_never_repeat(
    names: list[str | None], expected: list[str]
) -> None:
    assert named(*names) == expected


def test_names_are_unique_across_the_prompt_and_the_tool_results() -> None:
    call = FunctionCall(id="call_1", name="report", arguments={}, status="done")
    again = Document.from_bytes(convo.PDF, name="city map.pdf")
    turn = LangMessage("assistant", [ToolCallPart(call)])
    result = LangMessage.tool_result(call, "", parts=[TextPart("Here"), MediaPart(again)])
    body = encode([*convo.prompt(), turn, result])
    names = [
        block["document"]["name"]
        for message in body["messages"]
        for outer in message["content"]
        for block in (outer.get("toolResult", {}).get("content") or [outer])
        if "document" in block
    ]
    assert names == ["city map", "city map (2)"]
    assert_botocore_sends(body, MODEL)


def test_a_plain_text_document_is_a_txt_document() -> None:
    notes = Document.from_bytes(b"Ski at 9.", "text/plain", name="plan.txt")
    body = encode([user(MediaPart(notes), TextPart("When?"))], cache=False)
    assert body["messages"][0]["content"][0] == {
        "document": {"format": "txt", "name": "plan", "source": {"bytes": b64(b"Ski at 9.")}}
    }
    assert_botocore_sends(body, MODEL)


def test_a_document_without_text_beside_it_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="takes a document in a message only beside text"):
        encode([user(MediaPart(convo.MAP))])


def test_an_image_alone_needs_no_text() -> None:
    body = encode([user(MediaPart(convo.PHOTO))], cache=False)
    assert body["messages"][0]["content"] == [image(convo.RED)]


@pytest.mark.parametrize(
    ("part", "match"),
    [
        (
            Image.from_bytes(b"\x89PNG\r\n\x1a\n" + bytes(4 * MB), name="big.png"),
            r"images of at most 3.75 MB each; the image/png image 'big.png' is 4.00 MB",
        ),
        (
            Document.from_bytes(b"%PDF-1.4\n" + bytes(5 * MB), name="big.pdf"),
            r"documents of at most 4.5 MB each; the application/pdf document 'big.pdf' is 5.00 MB",
        ),
    ],
)
def test_a_part_over_its_size_limit_is_a_config_error_naming_it(
    part: Image | Document, match: str
) -> None:
    with pytest.raises(ConfigError, match=match):
        encode([user(TextPart("What?"), MediaPart(part))])


def test_an_image_of_exactly_the_limit_is_sent() -> None:
    fits = Image.from_bytes(b"\x89PNG\r\n\x1a\n" + bytes(int(3.75 * MB) - 8))
    body = encode([user(TextPart("What?"), MediaPart(fits))])
    assert len(base64.b64decode(body["messages"][0]["content"][1]["image"]["source"]["bytes"])) == (
        int(3.75 * MB)
    )


@pytest.mark.parametrize(("make", "most"), [(lambda: convo.PHOTO, 20), (lambda: convo.MAP, 5)])
def test_one_part_too_many_in_a_message_is_a_config_error(make: Any, most: int) -> None:
    parts = [MediaPart(make()) for _ in range(most)]
    encode([user(TextPart("All of them."), *parts)])  # the limit itself is fine
    with pytest.raises(ConfigError, match=f"at most {most} .*s in one message, not {most + 1}"):
        encode([user(TextPart("All of them."), *parts, MediaPart(make()))])


def test_the_counts_start_again_in_each_message() -> None:
    photos = [MediaPart(convo.PHOTO) for _ in range(20)]
    conversation = [user(TextPart("Look."), *photos), LangMessage.text("assistant", "Seen.")]
    body = encode([*conversation, user(TextPart("And these?"), *photos)])
    assert sum("image" in block for block in body["messages"][2]["content"]) == 20


def test_a_tool_results_images_count_toward_its_message() -> None:
    call = FunctionCall(id="call_1", name="snapshot", arguments={}, status="done")
    photos = [MediaPart(convo.PHOTO) for _ in range(11)]
    result = LangMessage.tool_result(call, "", parts=photos)
    turn = LangMessage("assistant", [ToolCallPart(call)])
    with pytest.raises(ConfigError, match="at most 20 images in one message, not 21"):
        encode([user(TextPart("Go.")), turn, result, user(TextPart("And these:"), *photos[1:])])


def test_an_image_in_an_assistant_turn_is_not_sent_back() -> None:
    drawn = LangMessage("assistant", [TextPart("Here:"), MediaPart(convo.PHOTO)])
    body = encode([user(TextPart("Draw.")), drawn, user(TextPart("Thanks."))], cache=False)
    assert body["messages"][1]["content"] == [{"text": "Here:"}]
