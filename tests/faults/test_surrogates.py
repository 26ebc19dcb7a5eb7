"""An emoji sent as two escaped UTF-16 surrogate halves in separate deltas (``"\\ud83d"`` then
``"\\ude00"``) is joined into one character in the answer and thinking, streamed or watched."""

from __future__ import annotations

import pytest

from aiwrapper import LangResult

from . import wires
from .wires import Wire

pytestmark = pytest.mark.anyio

HALVES = [b'"\\ud83d"', b'"\\ude00 ok"']


def openai_deltas(key: str) -> bytes:
    chunks = [
        b'data: {"choices":[{"index":0,"delta":{"' + key.encode() + b'":' + half + b"}}]}\n\n"
        for half in HALVES
    ]
    finish = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    return b"".join(chunks) + finish + b"data: [DONE]\n\n"


@pytest.mark.parametrize("watched", [False, True])
async def test_surrogate_halves_in_two_deltas_make_one_emoji(watched: bool) -> None:
    seen: list[str] = []

    def watch(result: LangResult) -> None:
        seen.append(result.answer)

    wire = Wire("openai", [openai_deltas("content")])
    result = await wire.lang.ask("go", on_result=watch if watched else None)
    assert result.answer == "\U0001f600 ok"
    assert result.messages[-1].content.encode() == "\U0001f600 ok".encode()


async def test_surrogate_halves_in_thinking_make_one_emoji() -> None:
    wire = Wire("openai", [openai_deltas("reasoning_content")])
    result = await wire.lang.ask("go")
    assert result.thinking == "\U0001f600 ok"


@pytest.mark.parametrize("name", ["anthropic", "gemini", "ollama"])
async def test_every_wire_joins_the_halves(name: str) -> None:
    bodies = {
        "anthropic": wires.anthropic(
            [
                (
                    {"type": "text", "text": ""},
                    [
                        {"type": "text_delta", "text": "\ud83d"},
                        {"type": "text_delta", "text": "\ude00"},
                    ],
                )
            ]
        ),
        "gemini": wires.sse({"candidates": [{"content": {"parts": [{"text": "\ud83d"}]}}]})
        + wires.gemini([{"text": "\ude00"}]),
        "ollama": wires.ollama({"content": "\ud83d"}).split(b"\n")[0]
        + b"\n"
        + wires.ollama({"content": "\ude00"}),
    }
    result = await Wire(name, [bodies[name]]).lang.ask("go")
    assert result.answer == "\U0001f600"
