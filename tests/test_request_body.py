"""A request body's JSON: shared tool declarations are written once, the bytes never change."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aiwrapper import Lang, ProviderError, tool
from aiwrapper._wire._jsontext import Declaration, dumps_compact, write_body
from aiwrapper._wire._outgoing import json_bytes


def _declaration(name: str) -> Declaration:
    return Declaration(
        {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    )


TOOLS = [_declaration("a"), _declaration("b")]
NATIVE = {"type": "web_search"}


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS},
        {"tools": TOOLS, "model": "m", "stream": True},  # first
        {"tools": TOOLS},  # alone
        {"model": "m", "tools": [*TOOLS, NATIVE], "tool_choice": "auto"},  # a native tool after
        {"model": "m", "tools": [NATIVE, *TOOLS]},  # not led by a declaration: written whole
        {"model": "m", "tools": []},
        {"model": "m", "messages": [{"content": 'he said "tools": [] \u00e9'}], "tools": TOOLS},
    ],
)
def test_a_body_is_written_exactly_as_the_compact_encoder_writes_it(body: dict[str, Any]) -> None:
    assert write_body(body) == dumps_compact(body)
    assert json_bytes(body) == dumps_compact(body).encode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(
    before=st.dictionaries(st.text().filter(lambda k: k != "tools"), json_values, max_size=3),
    after=st.dictionaries(st.text().filter(lambda k: k != "tools"), json_values, max_size=3),
    declarations=st.lists(
        st.dictionaries(st.text(), json_values, max_size=3), min_size=1, max_size=4
    ),
)
def test_any_body_with_declarations_is_written_as_the_compact_encoder_writes_it(
    before: dict[str, Any], after: dict[str, Any], declarations: list[dict[str, Any]]
) -> None:
    tools = [Declaration(d) for d in declarations]
    body = {**before, "tools": tools, **{k: v for k, v in after.items() if k not in before}}
    assert write_body(body) == dumps_compact(body)


def test_a_declaration_is_written_once_for_every_body_that_carries_it() -> None:
    declaration = _declaration("a")
    first = declaration.compact_json()
    assert first == dumps_compact(declaration)
    assert declaration.compact_json() is first  # kept, not written again


def test_a_declaration_holding_nan_is_sent_with_null_like_any_other_value() -> None:
    declaration = Declaration({"name": "a", "default": math.nan})
    sent = json.loads(json_bytes({"model": "m", "tools": [declaration]}))
    assert sent == {"model": "m", "tools": [{"name": "a", "default": None}]}


@tool
def add(x: int) -> int:
    """Add one."""
    return x + 1


@pytest.mark.parametrize(
    ("factory", "path"),
    [
        (lambda c: Lang.openai("gpt-4o-mini", api_key="k", http_client=c), "chat/completions"),
        (lambda c: Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=c), "messages"),
        (lambda c: Lang.ollama("llama3.2", http_client=c), "api/chat"),
    ],
)
@pytest.mark.anyio
async def test_every_request_sends_the_tools_as_they_render(factory: Any, path: str) -> None:
    bodies: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith(path)
        bodies.append(request.content)
        return httpx.Response(400, json={"error": {"message": "stop here"}})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = factory(client)
        for _ in range(2):
            with pytest.raises(ProviderError, match="stop here"):
                await lang.ask("hi", functions=[add])
    assert len(bodies) == 2
    assert bodies[0] == bodies[1]
    sent = json.loads(bodies[0])
    assert bodies[0] == dumps_compact(sent).encode()
    assert add.name in json.dumps(sent["tools"])
