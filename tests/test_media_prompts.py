"""Prompts of text, images and documents; ``with_user``/``add_user``; tool results with media."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper import ConfigError, Document, FunctionCall, Image, Lang, LangMessage, LangMessages
from aiwrapper._conversation._messages import MediaPart, TextPart, opening

from .media_samples import GIF, PDF, png

pytestmark = pytest.mark.anyio

IMAGE = Image.from_bytes(png())
PAPER = Document.from_bytes(PDF, name="paper.pdf")


def _user_parts(lang: Lang) -> list[Any]:
    return lang.requests[0].messages[0].parts


async def test_a_prompt_list_is_one_user_message_of_its_parts_in_order() -> None:
    lang = Lang.scripted(["A cat."])
    result = await lang.ask(["What is in this picture?", IMAGE, "And this paper?", PAPER])
    assert _user_parts(lang) == [
        TextPart("What is in this picture?"),
        MediaPart(IMAGE),
        TextPart("And this paper?"),
        MediaPart(PAPER),
    ]
    assert result.prompt == "What is in this picture?\nAnd this paper?"
    assert result.messages[0].media == [IMAGE, PAPER]
    assert result.answer == "A cat."


async def test_a_lone_image_or_a_tuple_is_a_prompt_too() -> None:
    lang = Lang.scripted(["one", "two"])
    await lang.ask(IMAGE)  # type: ignore[arg-type]
    await lang.ask(("Describe", IMAGE))
    assert [r.messages[0].parts for r in lang.requests] == [
        [MediaPart(IMAGE)],
        [TextPart("Describe"), MediaPart(IMAGE)],
    ]


def test_ask_sync_takes_a_prompt_list() -> None:
    lang = Lang.scripted(["ok"])
    assert lang.ask_sync(["Look:", IMAGE]).answer == "ok"
    assert _user_parts(lang) == [TextPart("Look:"), MediaPart(IMAGE)]
    lang.close()


async def test_stream_takes_a_prompt_list() -> None:
    lang = Lang.scripted(["streamed"])
    async with lang.stream(["Look:", IMAGE]) as run:
        async for _ in run:
            pass
    assert run.result.answer == "streamed"
    assert _user_parts(lang) == [TextPart("Look:"), MediaPart(IMAGE)]


async def test_with_user_and_add_user_take_a_prompt_list() -> None:
    lang = Lang.scripted(["first", "second"])
    first = await lang.ask("Hi")
    asked = first.messages.with_user(["And this?", IMAGE])
    assert len(first.messages) == 2  # with_user leaves the conversation as it was
    await lang.chat(asked)
    assert lang.requests[1].messages[-1].parts == [TextPart("And this?"), MediaPart(IMAGE)]
    messages = LangMessages().add_user([PAPER]).add_user("plain")
    assert [m.parts for m in messages] == [[MediaPart(PAPER)], [TextPart("plain")]]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["Look:", {"role": "user", "content": "x"}], "item 1 of a prompt is a dict"),
        ([IMAGE, 5], "item 1 of a prompt is a int"),
        ([IMAGE, b"raw"], "item 1 of a prompt is a bytes"),
        ([{"role": "user", "content": "x"}, "Look:"], "message 1 must be .* not str .*prompt"),
        ([LangMessage.text("user", "x"), IMAGE], "message 1 .* not Image .*prompt list"),
        (b"bytes", "not bytes"),
        (42, "not int"),
    ],
)
def test_a_mixed_or_wrong_prompt_names_the_item_and_its_type(given: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        opening(given)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["ok", 3.5], "item 1 of a user message is a float"),
        ([], "an empty list"),
        ({"role": "user"}, "not dict"),
    ],
)
def test_add_user_refuses_what_is_not_a_prompt(given: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        LangMessages().add_user(given)


def test_an_empty_list_is_still_an_empty_conversation() -> None:
    assert opening([]) == ("", LangMessages())


def test_add_tool_result_with_media_builds_parts_in_the_tools_order() -> None:
    call = FunctionCall("c1", "chart")
    value = ["Sales by month:", IMAGE, {"total": 3}, PAPER]
    messages = LangMessages().add_tool_result(call, value)
    result = messages[0]
    assert result.parts == [
        TextPart("Sales by month:"),
        MediaPart(IMAGE),
        TextPart('{"total":3}'),
        MediaPart(PAPER),
    ]
    assert (result.role, result.tool_call_id, result.name) == ("tool", "c1", "chart")
    assert call.result is value
    assert call.status == "done"
    alone = LangMessages().add_tool_result(FunctionCall("c2", "snap"), IMAGE)[0]
    assert alone.parts == [MediaPart(IMAGE)]
    text = LangMessages().add_tool_result(FunctionCall("c3", "n"), [1, 2])[0]
    assert text.parts == [TextPart("[1,2]")]  # no media: written as JSON, as before


def test_to_dicts_writes_media_as_chat_content_parts_and_reads_them_back() -> None:
    messages = LangMessages().add_user(["Look:", IMAGE, PAPER, Image.from_url("https://x/c.png")])
    messages.add_tool_result(FunctionCall("c1", "snap"), ["done", IMAGE])
    dicts = messages.to_dicts()
    url = IMAGE.data_url()
    assert dicts[0] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Look:"},
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "file", "file": {"file_data": PAPER.data_url(), "filename": "paper.pdf"}},
            {"type": "image_url", "image_url": {"url": "https://x/c.png"}},
        ],
    }
    assert dicts[1]["content"] == [
        {"type": "text", "text": "done"},
        {"type": "image_url", "image_url": {"url": url}},
    ]
    again = LangMessages(dicts)
    assert [m.parts for m in again] == [m.parts for m in messages]
    assert again.to_dicts() == dicts


def test_a_message_without_media_is_written_as_before() -> None:
    assert LangMessage.text("user", "hi").to_dict() == {"role": "user", "content": "hi"}


def test_thinking_as_text_keeps_the_images_and_documents() -> None:
    messages = LangMessages().add_user(["Look:", IMAGE])
    assert messages.with_thinking_as_text()[0].parts == [TextPart("Look:"), MediaPart(IMAGE)]


def test_a_message_repr_names_its_media() -> None:
    message = LangMessages().add_user(["Look:", IMAGE, PAPER])[0]
    assert repr(message) == (
        "LangMessage(role='user', content='Look:', media=['image/png', 'application/pdf'])"
    )


def test_the_offline_model_says_what_it_was_shown() -> None:
    chart = png(200, 120)
    answer = Lang.offline().ask_sync(["What is this?", Image.from_bytes(chart), PAPER]).answer
    assert answer == (
        "(offline model, no API key set) You said: What is this? You sent an image/png image "
        f"({len(chart):,} bytes, 200x120 pixels). You sent an application/pdf document "
        f"'paper.pdf' ({len(PDF)} bytes)."
    )
    gif = Lang.offline().ask_sync([Image.from_bytes(GIF), Image.from_url("https://x/a.png")])
    assert gif.answer.endswith(
        f"You sent an image/gif image ({len(GIF)} bytes, 4x5 pixels). "
        "You sent an image/png image at https://x/a.png."
    )


def test_the_offline_model_describes_an_image_a_tool_returned() -> None:
    from aiwrapper import tool

    @tool
    def snap(name: str) -> list[object]:
        """Take a picture.

        Args:
            name: What to photograph.
        """
        return [f"photo of {name}", Image.from_bytes(png(8, 6), name="snap.png")]

    result = Lang.offline().ask_sync("Take a picture of Oslo", functions=[snap])
    assert result.answer == (
        "Here is what the tools returned (offline model):\n- snap: photo of Oslo\n"
        f"  The tool returned an image/png image 'snap.png' ({len(png(8, 6))} bytes, 8x6 pixels)."
    )


def test_traces_and_notebooks_show_media_as_labels_without_their_bytes() -> None:
    from aiwrapper._run._telemetry_attrs import input_content

    call = FunctionCall("c1", "snap")
    messages = LangMessages().add_user(["Look:", IMAGE]).add_tool_result(call, ["done", PAPER])
    traced = json.loads(input_content(messages)["gen_ai.input.messages"])
    assert traced == [
        {
            "role": "user",
            "parts": [
                {"type": "text", "content": "Look:"},
                {"type": "image", "mime_type": "image/png"},
            ],
        },
        {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": "c1",
                    "response": f"done\n[application/pdf document 'paper.pdf', {len(PDF)} bytes]",
                }
            ],
        },
    ]
    shown = call._repr_markdown_()
    assert shown == (
        f'✓ `snap({{}})` → ["done", "Document(\'application/pdf\', {len(PDF)} bytes, '
        "name='paper.pdf')\"]"
    )
