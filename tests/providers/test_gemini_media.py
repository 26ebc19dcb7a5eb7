"""Images and documents sent to Gemini: in prompts, in tool results, replayed round after round.

The requests of a whole conversation are compared byte for byte with fixtures: a prompt holding
an image and a PDF, a turn of two parallel calls whose tools return text, images and a
document, and two more rounds replaying it all. Gemini 3 takes the results' media inside
``functionResponse.parts``; Gemini 2.5 gets them in a user content after the responses.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from aiwrapper import ConfigError, Document, Image, Lang, VertexConfig
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
from aiwrapper.providers.gemini import GeminiProvider
from aiwrapper.providers.gemini._media import check_inline_limits

from .gemini_media import (
    BLUE_B64,
    FIXTURES,
    PDF,
    PDF_B64,
    RED_B64,
    RED_PNG,
    chart,
    inline,
    mock_gemini,
    report,
)

pytestmark = pytest.mark.anyio

PROMPT = LangMessage(
    "user",
    [
        TextPart("Compare this chart with the report."),
        MediaPart(Image.from_bytes(RED_PNG)),
        MediaPart(Document.from_bytes(PDF, name="q3.pdf")),
    ],
)
ROUNDS = {
    "gemini-3-pro-preview": ("media_calls_ids.sse", "text_signature_final.sse"),
    "gemini-2.5-flash": ("media_calls_no_ids.sse", "text.sse"),
}


async def conversation(model: str) -> list[bytes]:
    """The bodies of four rounds: calls, their results, then two follow-up questions."""
    calls, answer = (FIXTURES / name for name in ROUNDS[model])
    replies = [calls.read_bytes(), *[answer.read_bytes()] * 3]
    bodies: list[bytes] = []
    client = mock_gemini(replies, bodies)
    tools = [chart, report]
    async with Lang.gemini(model, api_key="k", http_client=client) as lang:
        result = await lang.chat(LangMessages([PROMPT]), functions=tools)
        result = await lang.chat(
            result.messages.with_user("Which city did better?"), functions=tools
        )
        await lang.chat(result.messages.with_user("Thanks."), functions=tools)
    return bodies


@pytest.mark.parametrize("model", list(ROUNDS))
async def test_every_request_of_the_conversation_matches_its_fixture_byte_for_byte(
    model: str,
) -> None:
    fixture = (FIXTURES / f"media_requests_{model}.jsonl").read_bytes().splitlines()
    assert await conversation(model) == fixture


@pytest.mark.parametrize("model", list(ROUNDS))
async def test_each_round_replays_the_rounds_before_it_with_the_same_bytes(model: str) -> None:
    bodies = await conversation(model)
    for before, after in itertools.pairwise(bodies):
        contents = json.loads(before)["contents"]
        shared = json_bytes({"contents": contents})[: -len(b"]}")]  # open at the array's end
        assert after.startswith(shared)
        assert len(json.loads(after)["contents"]) > len(contents)


async def test_the_prompt_sends_its_image_and_pdf_inline_in_order() -> None:
    first = json.loads((await conversation("gemini-3-pro-preview"))[0])
    assert first["contents"] == [
        {
            "role": "user",
            "parts": [
                {"text": "Compare this chart with the report."},
                inline("image/png", RED_B64),
                inline("application/pdf", PDF_B64),
            ],
        }
    ]


async def test_gemini_3_takes_each_results_media_inside_its_function_response() -> None:
    second = json.loads((await conversation("gemini-3-pro-preview"))[1])
    assert second["contents"][2] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "fc_c1",
                    "name": "chart",
                    "response": {"output": "Sales in Oslo"},
                    "parts": [inline("image/png", RED_B64)],
                }
            },
            {
                "functionResponse": {
                    "id": "fc_r2",
                    "name": "report",
                    "response": {"output": "Report for Rome"},
                    "parts": [inline("image/png", BLUE_B64), inline("application/pdf", PDF_B64)],
                }
            },
        ],
    }
    assert len(second["contents"]) == 3


async def test_gemini_2_5_gets_the_results_media_after_the_responses_each_introduced() -> None:
    second = json.loads((await conversation("gemini-2.5-flash"))[1])
    assert second["contents"][2:] == [
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "chart", "response": {"output": "Sales in Oslo"}}},
                {"functionResponse": {"name": "report", "response": {"output": "Report for Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"text": "The result of chart (call 1 of this turn) holds:"},
                inline("image/png", RED_B64),
                {"text": "The result of report (call 2 of this turn) holds:"},
                inline("image/png", BLUE_B64),
                inline("application/pdf", PDF_B64),
            ],
        },
    ]


async def test_each_image_is_encoded_once_however_many_rounds_replay_it() -> None:
    image = PROMPT.parts[1]
    assert isinstance(image, MediaPart)
    await conversation("gemini-2.5-flash")
    encoded = image.media.base64()
    await conversation("gemini-2.5-flash")
    assert image.media.base64() is encoded


# --- the encoder, part by part ----------------------------------------------------------

VERTEX = GeminiProvider(api_key=None, vertex=VertexConfig(project="p", access_token="t"))
API = GeminiProvider(api_key="k")


def contents(
    messages: list[LangMessage], model: str = "gemini-3-pro-preview", provider: Any = API
) -> Any:
    request = ProviderRequest(model, messages, [], merge_options(), stream=True)
    return provider.encode(request).body["contents"]


def user(*media: Image | Document) -> LangMessage:
    return LangMessage("user", [TextPart("Look:"), *(MediaPart(m) for m in media)])


def call_turn(*names: str) -> tuple[LangMessage, list[FunctionCall]]:
    calls = [FunctionCall(id=f"c{i}", name=n, arguments={}) for i, n in enumerate(names)]
    return LangMessage("assistant", [ToolCallPart(c) for c in calls]), calls


def test_a_text_only_conversation_is_sent_as_before() -> None:
    turn, [call] = call_turn("get_weather")
    messages = [LangMessage.text("user", "Hi"), turn, LangMessage.tool_result(call, '{"c": 4}')]
    assert contents(messages)[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": {"c": 4}}}}],
    }


def test_a_plain_text_document_goes_as_text_plain_inline_data() -> None:
    note = Document.from_bytes("Ünïcode notes\n".encode(), "text/plain")
    assert contents([user(note)])[0]["parts"][1] == inline("text/plain", note.base64())


@pytest.mark.parametrize(
    ("url", "media_type", "part"),
    [
        (
            "https://generativelanguage.googleapis.com/v1beta/files/abc-123",
            None,
            {"fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc-123"},
        ),
        (
            "https://example.com/q3.pdf",
            "application/pdf",
            {"mimeType": "application/pdf", "fileUri": "https://example.com/q3.pdf"},
        ),
    ],
)
def test_an_https_url_goes_by_reference_as_file_data(
    url: str, media_type: str | None, part: dict[str, Any]
) -> None:
    sent = contents([user(Document.from_url(url, media_type))])[0]["parts"][1]
    assert sent == {"fileData": part}


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("gs://bucket/q3.pdf", "gs:// URLs only on Vertex AI"),
        ("s3://bucket/q3.pdf", "cannot read s3:// URLs"),
        ("http://example.com/q3.pdf", "only https URLs"),
    ],
)
def test_a_url_the_gemini_api_cannot_fetch_is_a_config_error(url: str, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason) as caught:
        contents([user(Document.from_url(url))])
    assert "from_path or from_bytes" in str(caught.value)
    assert url in str(caught.value)


def test_vertex_fetches_gs_urls_itself() -> None:
    sent = contents([user(Image.from_url("gs://bucket/cat.png"))], provider=VERTEX)
    assert sent[0]["parts"][1] == {
        "fileData": {"mimeType": "image/png", "fileUri": "gs://bucket/cat.png"}
    }


def test_a_gif_is_refused_naming_the_part_and_what_gemini_reads() -> None:
    gif = Image.from_bytes(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")
    with pytest.raises(ConfigError) as caught:
        contents([user(gif)])
    assert str(caught.value) == (
        "Gemini does not take image/gif (Image('image/gif', 14 bytes)); it reads PNG, JPEG "
        "and WebP images, PDF and plain text: convert it first"
    )


MB = 1024 * 1024


def test_a_pdf_past_50_mb_is_refused_before_sending() -> None:
    big = Document.from_bytes(b"%PDF-1.4\n" + bytes(50 * MB), name="big.pdf")
    with pytest.raises(ConfigError, match=r"big\.pdf.*50 MB the Gemini API takes"):
        contents([user(big)])
    assert not big._encoded  # refused before any encoding


def test_inline_data_past_100_mb_per_request_is_refused_naming_the_part() -> None:
    parts = [
        Document.from_bytes(b"%PDF-1.4\n" + bytes(30 * MB), name=f"p{i}.pdf") for i in range(3)
    ]
    with pytest.raises(ConfigError, match=r"p2\.pdf.*100 MB per request"):
        contents([user(*parts)])
    assert not any(p._encoded for p in parts)  # counted from the sizes, nothing encoded


def test_a_url_counts_toward_no_limit() -> None:
    check_inline_limits([Document.from_url("https://example.com/huge.pdf")] * 5)


def test_a_url_in_a_tool_result_follows_the_responses_on_the_gemini_api() -> None:
    turn, [call] = call_turn("find")
    link = Image.from_url("https://example.com/cat.png")
    result = LangMessage.tool_result(call, "", parts=[TextPart("Found"), MediaPart(link)])
    file_data = {"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/cat.png"}}
    api = contents([LangMessage.text("user", "Find a cat"), turn, result])
    assert api[2:] == [
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "find", "response": {"output": "Found"}}}],
        },
        {
            "role": "user",
            "parts": [{"text": "The result of find (call 1 of this turn) holds:"}, file_data],
        },
    ]
    vertex = contents([LangMessage.text("user", "Find a cat"), turn, result], provider=VERTEX)
    response = {"name": "find", "response": {"output": "Found"}, "parts": [file_data]}
    assert vertex[2:] == [{"role": "user", "parts": [{"functionResponse": response}]}]


def test_user_text_held_behind_the_results_follows_their_media() -> None:
    turn, [call] = call_turn("chart")
    result = LangMessage.tool_result(call, "", parts=[MediaPart(Image.from_bytes(RED_PNG))])
    sent = contents(
        [LangMessage.text("user", "Hi"), turn, LangMessage.text("user", "Be brief."), result],
        model="gemini-2.5-flash",
    )
    assert sent[2:] == [
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "chart", "response": {"output": ""}}}],
        },
        {
            "role": "user",
            "parts": [
                {"text": "The result of chart (call 1 of this turn) holds:"},
                inline("image/png", RED_B64),
                {"text": "Be brief."},
            ],
        },
    ]


def test_a_failed_tool_with_media_sends_the_error_and_its_media() -> None:
    turn, [call] = call_turn("shot")
    parts = [TextPart("Timed out"), MediaPart(Image.from_bytes(RED_PNG))]
    result = LangMessage.tool_result(call, "", is_error=True, parts=parts)
    response = contents([LangMessage.text("user", "Hi"), turn, result])[2]["parts"][0]
    assert response == {
        "functionResponse": {
            "name": "shot",
            "response": {"error": "Timed out"},
            "parts": [inline("image/png", RED_B64)],
        }
    }
