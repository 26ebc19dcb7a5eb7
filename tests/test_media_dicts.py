"""Message dicts with images and documents, in OpenAI's and Anthropic's shapes, read into parts."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from aiwrapper import ConfigError, Document, Image, LangMessage, LangMessages
from aiwrapper._conversation._messages import MediaPart, ProviderState, TextPart

from .media_samples import PDF, png

B64 = base64.b64encode(png()).decode()
PDF64 = base64.b64encode(PDF).decode()
IMAGE = Image.from_bytes(png())


def _parts(content: list[dict[str, Any]], role: str = "user") -> list[Any]:
    return LangMessage.from_dict({"role": role, "content": content}).parts


def test_openai_image_url_parts_with_a_data_or_an_https_url() -> None:
    parts = _parts(
        [
            {"type": "text", "text": "Compare"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
            {"type": "image_url", "image_url": {"url": "https://x/b.jpg", "detail": "low"}},
        ]
    )
    assert parts == [
        TextPart("Compare"),
        MediaPart(IMAGE),
        MediaPart(Image.from_url("https://x/b.jpg"), ProviderState("openai", {"detail": "low"})),
    ]


def test_openai_file_parts_with_file_data_and_a_filename() -> None:
    parts = _parts(
        [
            {
                "type": "file",
                "file": {"file_data": f"data:application/pdf;base64,{PDF64}", "filename": "q3.pdf"},
            },
            {"type": "file", "file": {"file_data": PDF64}},  # bare base64, sniffed
        ]
    )
    assert parts == [
        MediaPart(Document.from_bytes(PDF, name="q3.pdf")),
        MediaPart(Document.from_bytes(PDF)),
    ]


def test_anthropic_image_and_document_blocks_with_every_source() -> None:
    marker = {"type": "ephemeral"}
    parts = _parts(
        [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
            {"type": "image", "source": {"type": "url", "url": "https://x/a.gif"}},
            {
                "type": "document",
                "title": "Q3",
                "cache_control": marker,
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF64},
            },
            {"type": "document", "source": {"type": "url", "url": "https://x/r.pdf"}},
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "plain words"},
            },
        ]
    )
    assert parts == [
        MediaPart(IMAGE),
        MediaPart(Image.from_url("https://x/a.gif")),
        MediaPart(
            Document.from_bytes(PDF, name="Q3"),
            ProviderState("anthropic", {"cache_control": marker}),
        ),
        MediaPart(Document.from_url("https://x/r.pdf")),
        MediaPart(Document.from_bytes(b"plain words", "text/plain")),
    ]


def test_media_inside_an_anthropic_tool_result_becomes_the_results_parts() -> None:
    messages = LangMessages(
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "snap", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {"type": "text", "text": "here"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": B64,
                                },
                            },
                        ],
                    },
                    {"type": "text", "text": "What do you see?"},
                ],
            },
        ]
    )
    assert [m.role for m in messages] == ["assistant", "tool", "user"]
    assert messages[1].parts == [TextPart("here"), MediaPart(IMAGE)]
    assert messages[1].tool_call_id == "t1"


def test_an_openai_tool_message_may_hold_media_as_to_dict_writes_it() -> None:
    message = LangMessage.from_dict(
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}
            ],
        }
    )
    assert message.parts == [MediaPart(IMAGE)]


BAD_PARTS = [
    ({"type": "image_url", "image_url": "https://x/a.png"}, r"needs an object 'image_url'"),
    ({"type": "image_url", "image_url": {"url": 5}}, r"needs a string 'url'"),
    ({"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}, r"Image.from_path"),
    ({"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "max"}}, "detail"),
    ({"type": "image_url", "image_url": {"url": "data:image/png;base64,!!!"}}, "invalid"),
    (
        {"type": "image_url", "image_url": {"url": f"data:image/gif;base64,{B64}"}},
        "bytes are image/png, not the stated image/gif",
    ),
    ({"type": "file", "file": {"file_id": "file-abc"}}, "file id.*not supported"),
    ({"type": "file", "file": {"filename": "x.pdf"}}, "needs its 'file_data'"),
    ({"type": "file", "file": {"file_data": "%%%"}}, "not valid base64"),
    ({"type": "file", "file": {"file_data": PDF64, "filename": 7}}, "'filename' must be a string"),
    ({"type": "file", "file": {"file_data": B64}}, "bytes are image/png; accepted: application"),
    ({"type": "image", "source": "abc"}, "needs an object 'source'"),
    (
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "*"}},
        "not valid base64",
    ),
    ({"type": "image", "source": {"type": "base64", "data": B64}}, "needs a string 'media_type'"),
    (
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": B64}},
        "bytes are image/png, not the stated image/jpeg",
    ),
    ({"type": "image", "source": {"type": "file", "file_id": "f"}}, "file id.*not supported"),
    ({"type": "image", "source": {"type": "magic"}}, "source of type 'magic' cannot be read"),
    ({"type": "document", "source": {"type": "text", "data": 5}}, "needs its text"),
    ({"type": "document", "source": {"type": "text", "data": "\ud800"}}, "must be UTF-8"),
    ({"type": "document", "source": {"type": "content", "content": []}}, "cannot be read"),
]


@pytest.mark.parametrize(("block", "message"), BAD_PARTS)
def test_a_bad_media_part_is_a_config_error_naming_message_and_part(
    block: dict[str, Any], message: str
) -> None:
    given = [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": [{"type": "text", "text": "look"}, block]},
    ]
    with pytest.raises(ConfigError, match=f"^message 1: content part 1 \\({block['type']}\\): "):
        LangMessages(given)
    with pytest.raises(ConfigError, match=message):
        LangMessages(given)


def test_a_bad_part_inside_a_tool_result_is_named_through_the_result() -> None:
    block = {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": [{"type": "image", "source": {"type": "url", "url": "ftp://x"}}],
    }
    with pytest.raises(ConfigError, match=r"content part 0 \(tool_result\), part 0 \(image\)"):
        LangMessages([{"role": "user", "content": [block]}])


def test_a_system_message_cannot_hold_an_image() -> None:
    block = {"type": "image_url", "image_url": {"url": "https://x/a.png"}}
    with pytest.raises(ConfigError, match="cannot be read here"):
        LangMessages([{"role": "system", "content": [block]}])


def test_deep_nesting_and_huge_values_give_a_short_error_not_a_crash() -> None:
    deep: Any = "x"
    for _ in range(100_000):
        deep = {"a": deep}
    huge = "A" * 5_000_000
    for block in ({"type": "weird", "nested": deep}, {"type": "weird", "data": huge}):
        with pytest.raises(ConfigError, match="cannot be read here") as caught:
            LangMessages([{"role": "user", "content": [block]}])
        assert len(str(caught.value)) < 400
    with pytest.raises(ConfigError, match="needs an object 'image_url'"):
        LangMessages([{"role": "user", "content": [{"type": "image_url", "image_url": [deep]}]}])
