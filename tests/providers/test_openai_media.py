"""Images and documents on Chat Completions: prompts, a turn's tool media in one follow-up user
message, replays; request bodies byte-exact against fixtures and checked by the ``openai`` SDK."""

from __future__ import annotations

import base64
import itertools
import json
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Document, Image, Lang, LangMessage, LangMessages
from aiwrapper import _errors as errors
from aiwrapper._conversation import _media
from aiwrapper._conversation._messages import MediaPart, ProviderState, TextPart, ToolCallPart
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper.providers.openai import PRESETS, OpenAIProvider
from aiwrapper.providers.openai._cache import conversation_key

from ..seeds.wires import WIRES
from .chat_media import BLUE_PNG, PDF, RED_PNG, quarterly_report, sales_chart
from .chat_sdk import assert_chat_sdk_accepts

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai"
OPENAI = WIRES["openai"]
CALLS = [
    ("call_chart", "sales_chart", '{"city":"Oslo"}'),
    ("call_report", "quarterly_report", '{"city":"Rome"}'),
]
RED_URL = "data:image/png;base64," + base64.b64encode(RED_PNG).decode()
BLUE_URL = "data:image/png;base64," + base64.b64encode(BLUE_PNG).decode()
PDF_URL = "data:application/pdf;base64," + base64.b64encode(PDF).decode()
SSE = {"content-type": "text/event-stream"}


def lang(answers: list[bytes], sent: list[bytes]) -> Lang:
    """Chat Completions answering request n with ``answers[n]``; raw bodies land in ``sent``."""

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        return httpx.Response(200, content=answers[len(sent) - 1], headers=SSE)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Lang.openai(api_key="k", model="gpt-4o-mini", http_client=client)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def encoded(messages: list[LangMessage], provider: OpenAIProvider | None = None) -> Any:
    provider = provider or OpenAIProvider(api_key="k")
    request = ProviderRequest("gpt-4o-mini", messages, [], LangOptions(), False)
    body = provider.encode(request).body
    assert_chat_sdk_accepts(body)
    return body["messages"]


def user(*parts: str | Image | Document) -> LangMessage:
    return LangMessage("user", [TextPart(p) if isinstance(p, str) else MediaPart(p) for p in parts])


def answered(call_id: str, *parts: str | Image | Document) -> list[LangMessage]:
    """An assistant turn calling ``look`` and the call's result holding ``parts``."""
    call = FunctionCall(id=call_id, name="look", arguments={}, status="done")
    content = [TextPart(p) if isinstance(p, str) else MediaPart(p) for p in parts]
    return [calling(call), LangMessage.tool_result(call, "", parts=content)]


def calling(*calls: FunctionCall) -> LangMessage:
    return LangMessage("assistant", [ToolCallPart(call) for call in calls])


# --- the fixtures ----------------------------------------------------------------------------


async def test_a_prompt_with_an_image_and_a_pdf_matches_its_fixture() -> None:
    sent: list[bytes] = []
    prompt = user(
        "What do the chart and the report say?",
        Image.from_bytes(RED_PNG),
        Document.from_bytes(PDF, name="q3.pdf"),
    )
    result = await lang([OPENAI.text("A red square.", "gpt-4o-mini")], sent).chat([prompt])
    assert result.answer == "A red square."
    assert sent == [fixture("request_prompt_media.json")]
    body = json.loads(sent[0])
    assert_chat_sdk_accepts(body)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What do the chart and the report say?"},
                {"type": "image_url", "image_url": {"url": RED_URL}},
                {"type": "file", "file": {"filename": "q3.pdf", "file_data": PDF_URL}},
            ],
        }
    ]


async def test_a_turn_of_parallel_tool_media_sends_one_follow_up_matching_its_fixture() -> None:
    sent: list[bytes] = []
    answers = [OPENAI.calls(CALLS, False, "gpt-4o-mini"), OPENAI.text("Done.", "gpt-4o-mini")]
    result = await lang(answers, sent).ask(
        "Chart Oslo and report on Rome.", functions=[sales_chart, quarterly_report]
    )
    assert result.answer == "Done."
    assert sent[1] == fixture("request_tool_media.json")
    body = json.loads(sent[1])
    for raw in sent:
        assert_chat_sdk_accepts(json.loads(raw))
    assert body["messages"][2:] == [
        {
            "role": "tool",
            "tool_call_id": "call_chart",
            "content": "Sales in Oslo, by month.\n[image/png image attached below]",
        },
        {
            "role": "tool",
            "tool_call_id": "call_report",
            "content": "Report for Rome.\n[image/png image attached below]\n"
            "[application/pdf document attached below]",
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Output of tool call call_chart:"},
                {"type": "image_url", "image_url": {"url": RED_URL}},
                {"type": "text", "text": "Output of tool call call_report:"},
                {"type": "image_url", "image_url": {"url": BLUE_URL}},
                {"type": "file", "file": {"filename": "q3.pdf", "file_data": PDF_URL}},
            ],
        },
    ]


@pytest.fixture
def encodings(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every piece of bytes base64-encoded for a part, as the parts encode them."""
    seen: list[bytes] = []
    original = _media.base64.b64encode

    def counting(data: bytes, *args: Any) -> bytes:
        seen.append(bytes(data))
        return original(data, *args)

    monkeypatch.setattr(_media.base64, "b64encode", counting)
    return seen


async def test_replaying_the_conversation_two_more_rounds_keeps_every_byte_sent_before(
    encodings: list[bytes],
) -> None:
    sent: list[bytes] = []
    answers = [
        OPENAI.calls(CALLS, False, "gpt-4o-mini"),
        *(OPENAI.text(t, "gpt-4o-mini") for t in ("Done.", "Rome leads.", "Oslo grows.")),
    ]
    chat = lang(answers, sent)
    tools = {"functions": [sales_chart, quarterly_report]}
    result = await chat.ask("Chart Oslo and report on Rome.", **tools)
    for question in ("Which city leads?", "And which grows?"):
        result = await chat.chat(result.messages.with_user(question), **tools)
    assert result.answer == "Oslo grows."
    assert sent[3] == fixture("request_tool_media_replayed.json")
    for before, after in itertools.pairwise(sent[1:]):
        shared = before[: before.index(b'],"tools":')]  # every message sent before
        assert after.startswith(shared + b",")
        assert_chat_sdk_accepts(json.loads(after))
    # Each image and the PDF were base64-encoded once, however often they were sent.
    assert sorted(encodings) == sorted([RED_PNG, BLUE_PNG, PDF])
    assert [json.loads(b)["messages"][-1]["content"] for b in sent[2:]] == [
        "Which city leads?",
        "And which grows?",
    ]


# --- the encoder's rules ---------------------------------------------------------------------


def test_a_text_only_user_message_is_still_a_plain_string() -> None:
    messages = encoded([LangMessage("user", [TextPart("Hi "), TextPart("there")])])
    assert messages == [{"role": "user", "content": "Hi there"}]


def test_a_plain_text_document_is_a_text_part_since_files_are_pdf_only() -> None:
    notes = Document.from_bytes(b"Q3 was good.", "text/plain", name="notes.txt")
    messages = encoded([user("Summarize:", notes)])
    assert messages[0]["content"] == [
        {"type": "text", "text": "Summarize:"},
        {"type": "text", "text": "Q3 was good."},
    ]


def test_an_unnamed_pdf_gets_a_file_name_and_an_image_url_goes_by_reference() -> None:
    picture = Image.from_url("https://example.com/cat.png")
    messages = encoded([user(Document.from_bytes(PDF), picture)])
    assert messages[0]["content"] == [
        {"type": "file", "file": {"filename": "document.pdf", "file_data": PDF_URL}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    ]


@pytest.mark.parametrize(
    ("media", "said"),
    [
        (Document.from_url("https://example.com/q3.pdf"), "documents as bytes only"),
        (Image.from_url("gs://bucket/cat.png"), "image URLs over https or http only"),
        (Image.from_url("s3://bucket/cat.png"), "image URLs over https or http only"),
    ],
)
def test_a_url_the_wire_cannot_take_is_a_config_error_not_a_download(
    media: Image | Document, said: str
) -> None:
    with pytest.raises(errors.ConfigError, match=said) as caught:
        encoded([user("Look:", media)])
    assert "from_path or" in str(caught.value)
    with pytest.raises(errors.ConfigError, match=said):  # in a tool result too
        encoded([user("Look."), *answered("call_1", media)])


def test_an_image_asked_at_a_detail_keeps_it_on_this_wire() -> None:
    state = ProviderState("openai", {"detail": "low"})
    message = LangMessage("user", [MediaPart(Image.from_bytes(RED_PNG), state)])
    other = LangMessage("user", [MediaPart(Image.from_bytes(RED_PNG), ProviderState("x", {}))])
    first, second = encoded([message, other])
    low = {"url": RED_URL, "detail": "low"}
    assert first["content"] == [{"type": "image_url", "image_url": low}]
    assert second["content"] == [{"type": "image_url", "image_url": {"url": RED_URL}}]


def test_a_result_of_one_image_alone_says_so_in_its_tool_message() -> None:
    messages = encoded([user("Look."), *answered("call_1", Image.from_bytes(RED_PNG))])
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "[image/png image attached below]"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Output of tool call call_1:"},
                {"type": "image_url", "image_url": {"url": RED_URL}},
            ],
        },
    ]


def test_a_plain_text_document_result_stays_in_the_tool_message() -> None:
    notes = Document.from_bytes(b"All fine.", "text/plain")
    messages = encoded([user("Look."), *answered("call_1", "Notes:", notes)])
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "Notes:\nAll fine."}
    ]


def test_each_turn_gets_its_own_follow_up_after_its_last_tool_message() -> None:
    call_a = FunctionCall(id="call_a", name="look", arguments={}, status="done")
    call_b = FunctionCall(id="call_b", name="look", arguments={}, status="done")
    conversation = LangMessages(
        [
            user("Look."),
            calling(call_a, call_b),
            LangMessage.tool_result(call_a, "", parts=[MediaPart(Image.from_bytes(RED_PNG))]),
            LangMessage.tool_result(call_b, "plain text"),
            *answered("call_c", "Blue:", Image.from_bytes(BLUE_PNG)),
            LangMessage("assistant", [TextPart("Seen both.")]),
        ]
    )
    roles = [(m["role"], m.get("tool_call_id")) for m in encoded(conversation)]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("tool", "call_a"),
        ("tool", "call_b"),
        ("user", None),
        ("assistant", None),
        ("tool", "call_c"),
        ("user", None),
        ("assistant", None),
    ]


def test_the_follow_up_names_the_id_the_server_was_sent() -> None:
    base_url, _, profile = PRESETS["mistral"]
    provider = OpenAIProvider(api_key="k", base_url=base_url, profile=profile)
    turn = answered("toolu_01Abc", Image.from_bytes(RED_PNG))
    messages = encoded([user("Look."), *turn], provider)
    wire_id = messages[1]["tool_calls"][0]["id"]
    assert len(wire_id) == 9
    assert wire_id != "toolu_01Abc"
    assert messages[2]["tool_call_id"] == wire_id
    assert messages[3]["content"][0] == {"type": "text", "text": f"Output of tool call {wire_id}:"}


def test_a_large_pdf_in_the_opening_keys_the_cache_by_digest_without_a_copy() -> None:
    def body(pdf: bytes) -> dict[str, Any]:
        url = "data:application/pdf;base64," + base64.b64encode(pdf).decode()
        file = {"type": "file", "file": {"filename": "big.pdf", "file_data": url}}
        return {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": [file]}]}

    big, other = body(PDF + b"%" * 3_000_000), body(PDF + b"#" * 3_000_000)
    tracemalloc.start()
    try:
        key = conversation_key(big, "messages")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 500_000  # the 4 MB of base64 is hashed in slices, never copied whole
    assert key == conversation_key(big, "messages")
    assert key != conversation_key(other, "messages")
