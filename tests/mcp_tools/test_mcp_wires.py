"""MCP tools on every provider's wire: declarations in each dialect, results and images.

A real MCP server (stdio and HTTP) supplies the tools; the provider is ``httpx.MockTransport``
answering a first turn that calls ``plan`` (a schema with ``$defs``/``$ref``) and ``picture``
(an image result), then a text turn. The second request must carry both results.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")

from aiwrapper import Lang
from aiwrapper.mcp import MCPServer

from .conftest import server_for

pytestmark = pytest.mark.anyio
TRIP = {"traveller": "Ada", "stops": [{"city": "Oslo", "nights": 2}]}
PLAN = "Ada: Oslo x2"
PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQ"
    "DwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
DESCRIBED = "[image/png image of 70 bytes, which this model cannot be shown]"

FIRST = {
    "openai": {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "plan", "arguments": json.dumps({"trip": TRIP})},
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "picture", "arguments": "{}"},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5},
    },
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "plan", "input": {"trip": TRIP}},
            {"type": "tool_use", "id": "toolu_2", "name": "picture", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 5},
    },
    "gemini": {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "plan", "args": {"trip": TRIP}}},
                        {"functionCall": {"name": "picture", "args": {}}},
                    ],
                },
                "finishReason": "STOP",
            }
        ]
    },
    "ollama": {
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "plan", "arguments": {"trip": TRIP}}},
                {"function": {"name": "picture", "arguments": {}}},
            ],
        },
        "done": True,
        "done_reason": "stop",
    },
}
SECOND = {
    "openai": {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    },
    "anthropic": {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 5, "output_tokens": 1},
    },
    "gemini": {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}
        ]
    },
    "ollama": {"message": {"role": "assistant", "content": "Done."}, "done": True},
}
MAKE: dict[str, Callable[[httpx.AsyncClient], Lang]] = {
    "openai": lambda c: Lang.openai(api_key="k", http_client=c),
    "anthropic": lambda c: Lang.anthropic(api_key="k", http_client=c),
    "gemini": lambda c: Lang.gemini(api_key="k", http_client=c),
    "ollama": lambda c: Lang.ollama(http_client=c),
}


@pytest.fixture(scope="module", params=["stdio-asyncio", "http-asyncio", "http-trio"])
def setup(request: pytest.FixtureRequest) -> list[str]:
    return str(request.param).split("-")


@pytest.fixture(scope="module")
def transport(setup: list[str]) -> str:
    return setup[0]


@pytest.fixture(scope="module")
def anyio_backend(setup: list[str]) -> str:
    return setup[1]


@pytest.fixture(scope="module")
async def main(transport: str, http_urls: dict[str, str]) -> AsyncIterator[MCPServer]:
    async with server_for(transport, http_urls) as server:  # shared by the module's tests
        yield server


async def run_on(provider: str, server: MCPServer) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = FIRST[provider] if len(sent) == 1 else SECOND[provider]
        return httpx.Response(200, json=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        result = await MAKE[provider](client).ask(
            "plan", functions=[server], stream=False, tool_errors="raise"
        )
    assert result.answer == "Done."
    return sent


def declared(provider: str, body: dict[str, Any]) -> dict[str, Any]:
    if provider == "gemini":
        found = body["tools"][0]["functionDeclarations"]
        return {d["name"]: d for d in found}
    if provider == "anthropic":
        return {t["name"]: t for t in body["tools"]}
    return {t["function"]["name"]: t["function"] for t in body["tools"]}


async def test_openai_declares_strict_only_when_lossless_and_sends_images_after_results(
    main: MCPServer,
) -> None:
    first, second = await run_on("openai", main)
    tools = declared("openai", first)
    assert tools["plan"]["strict"] is True  # closing its objects changes nothing it accepts
    assert tools["plan"]["parameters"]["additionalProperties"] is False
    assert "strict" not in tools["tally"]  # a free-form map has no strict form
    counts = tools["tally"]["parameters"]["properties"]["counts"]
    assert counts["additionalProperties"] == {"type": "integer"}
    assert second["messages"][-3:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": PLAN},
        {"role": "tool", "tool_call_id": "call_2", "content": "[image/png image attached below]"},
        {  # a tool message takes text only: the image follows the turn's results
            "role": "user",
            "content": [
                {"type": "text", "text": "Output of tool call call_2:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG_B64}},
            ],
        },
    ]


async def test_anthropic_gets_the_image_inside_its_tool_result(main: MCPServer) -> None:
    first, second = await run_on("anthropic", main)
    assert "$defs" in declared("anthropic", first)["plan"]["input_schema"]
    blocks = second["messages"][-1]["content"]
    assert blocks == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": PLAN},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                }
            ],
            "cache_control": {"type": "ephemeral"},  # the loop's moving cache breakpoint
        },
    ]


async def test_gemini_gets_refs_inlined_and_the_image_after_the_responses(main: MCPServer) -> None:
    first, second = await run_on("gemini", main)
    plan = declared("gemini", first)["plan"]
    text = json.dumps(plan)
    assert "$ref" not in text
    assert "$defs" not in text
    stops = plan["parameters"]["properties"]["trip"]["properties"]["stops"]
    assert sorted(stops["items"]["properties"]) == ["city", "nights"]
    # Gemini 2.5 (the default model) takes no media inside function responses: the image
    # follows them, introduced by the call it belongs to.
    results, after = second["contents"][-2:]
    assert [p["functionResponse"]["response"] for p in results["parts"]] == [
        {"output": PLAN},
        {"output": ""},
    ]
    assert after["parts"] == [
        {
            "text": f"The result of {results['parts'][1]['functionResponse']['name']} "
            "(call 2 of this turn) holds:"
        },
        {"inlineData": {"mimeType": "image/png", "data": PNG_B64}},
    ]


async def test_ollama_gets_the_schema_and_the_image_on_its_tool_message(main: MCPServer) -> None:
    first, second = await run_on("ollama", main)
    assert declared("ollama", first)["plan"]["parameters"]["required"] == ["trip"]
    results = [(m["content"], m.get("images")) for m in second["messages"] if m["role"] == "tool"]
    assert results == [(PLAN, None), ("", [PNG_B64])]
