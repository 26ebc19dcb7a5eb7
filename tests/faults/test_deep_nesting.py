"""Arguments nested absurdly deep (a 2 KB string of brackets) end as an error result for the
call or a ``StreamError``, on every wire, never as a bare ``RecursionError``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper import StreamError, tool

from . import wires
from .wires import Wire

pytestmark = pytest.mark.anyio


@tool
def store(data: Any = None) -> str:
    """Stores anything."""
    return "stored"


def nested_text(depth: int) -> str:
    return '{"data": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
@pytest.mark.parametrize("name", wires.WIRES)
async def test_deeply_nested_arguments_are_an_error_result_or_a_stream_error(
    name: str, depth: int
) -> None:
    text = nested_text(depth)
    if name in ("openai", "anthropic"):
        first = wires.CALL[name]("call_1", "store", text)
    else:  # these wires send arguments as JSON objects: splice the raw text in
        placeholder = {"__deep__": 1}
        first = wires.CALL[name]("call_1", "store", placeholder)
        first = first.replace(json.dumps(placeholder).encode(), text.encode())
    wire = Wire(name, [first, wires.TEXT[name]("done")])
    try:
        result = await wire.lang.ask("go", functions=[store])
    except StreamError as exc:
        failed: StreamError | None = exc
    else:
        failed = None
    if failed is not None:
        assert failed.result is not None
        return
    assert result.answer == "done"
    [call] = result.function_calls
    assert len(wire.sent) == 2
    # Whether a depth still parses depends on the Python version (3.12 parses far deeper);
    # what does not is answered with an error result and replayed as {}.
    assert call.status in ("done", "error")
    if call.status == "error":
        assert len(json.dumps(wire.sent[1])) < 20_000  # replayed as {}, not the brackets


@pytest.mark.parametrize("name", wires.WIRES)
async def test_a_tool_result_nested_absurdly_deep_is_sent_as_text(name: str) -> None:
    @tool
    def deep() -> str:
        """Returns a deeply nested JSON text."""
        return nested_text(40_000)  # 80,000 characters: under the tool result limit

    arguments: Any = {} if name in ("gemini", "ollama") else "{}"
    wire = Wire(name, [wires.CALL[name]("call_1", "deep", arguments), wires.TEXT[name]("ok")])
    result = await wire.lang.ask("go", functions=[deep])
    assert result.answer == "ok"
    assert "[" * 40_000 in wire.raw[1].decode()
