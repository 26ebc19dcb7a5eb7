"""MCP results and names, without a server: what the model reads, what it is called."""

from __future__ import annotations

import base64

import pytest

pytest.importorskip("mcp")

import mcp.types as types

from aiwrapper._conversation._media import Image
from aiwrapper._conversation._messages import MediaPart
from aiwrapper.mcp import MCPToolError
from aiwrapper.mcp._tools import exposed_name, to_content


def test_text_blocks_are_joined_and_structured_content_is_not_repeated() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="a"),
            types.TextContent(type="text", text="b"),
        ],
        structured_content={"x": 1},
    )
    assert to_content(result).text == "a\nb"


PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQ"
    "DwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_structured_content_is_sent_when_there_is_no_text() -> None:
    result = types.CallToolResult(content=[], structured_content={"x": 1, "ø": "å"})
    assert to_content(result).text == '{"x": 1, "ø": "å"}'


def test_images_become_image_parts_and_other_blocks_are_described() -> None:
    result = types.CallToolResult(
        content=[
            types.ImageContent(type="image", data=PNG_B64, mime_type="image/png"),
            types.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
            types.ResourceLink(type="resource_link", uri="file:///a.txt", name="a.txt"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///b.txt", text="inside b"),
            ),
        ]
    )
    content = to_content(result)
    assert content.parts[0] == MediaPart(Image.from_bytes(base64.b64decode(PNG_B64)))
    assert content.text.splitlines() == [  # the image is a part; the rest described
        "[audio/wav audio, not shown]",
        "[resource link: a.txt <file:///a.txt>]",
        "inside b",
    ]
    assert content.value is result


def test_an_error_result_raises_mcp_tool_error_carrying_it() -> None:
    result = types.CallToolResult(content=[], is_error=True)
    with pytest.raises(MCPToolError, match="the tool failed without a message") as caught:
        to_content(result)
    assert caught.value.result is result


@pytest.mark.parametrize(
    ("name", "prefix", "expected"),
    [
        ("read_file", None, "read_file"),
        ("read_file", "fs", "fs_read_file"),
        ("read.file", "fs", "fs_read_file_3778b100"),
        ("1st", None, "_1st_efc920c5"),
        ("x" * 70, None, "x" * 55 + "_bbaad84b"),
    ],
)
def test_names_are_made_portable_and_changed_ones_keep_apart(
    name: str, prefix: str | None, expected: str
) -> None:
    made = exposed_name(name, prefix)
    assert len(made) <= 64
    assert made == expected
