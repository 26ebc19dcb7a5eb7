"""An MCP server's tool is traced as any other: an ``execute_tool`` span, of type extension."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from aiwrapper import Lang

from ..otel_support import Recorded, attributes, recorded
from .conftest import server_for

pytestmark = pytest.mark.anyio
__all__ = ["recorded"]  # the fixture, used by name


async def test_an_mcp_tool_call_is_an_execute_tool_span(
    recorded: Recorded, http_urls: dict[str, str]
) -> None:
    turn = {"function_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}, "id": "c0"}]}
    lang = Lang.scripted([turn, "5."])
    async with server_for("http", http_urls) as server:
        result = await lang.ask("2+3?", functions=[server])
    assert result.answer == "5."
    (call,) = recorded.named("execute_tool add")
    assert attributes(call) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.call.id": "c0",
        "gen_ai.tool.type": "extension",
        "gen_ai.tool.description": "Add two integers.",
    }
    assert ("execute_tool add", "invoke_agent") in recorded.tree()
