"""Tool options every wire shares, checked in one place before any request is sent.

A forced or named ``function_call`` is checked by the run against the functions given; a
switch a wire lacks (forcing a call, ``parallel_tool_calls=False``) is refused by the one
shared check, with the same words on every wire.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from aiwrapper import BadRequestError, ConfigError, Lang, tool

pytestmark = pytest.mark.anyio

Factory = Callable[[httpx.AsyncClient], Lang]

FACTORIES: dict[str, Factory] = {
    "openai": lambda client: Lang.openai(api_key="k", http_client=client),
    "responses": lambda client: Lang.openai(api_key="k", api="responses", http_client=client),
    "anthropic": lambda client: Lang.anthropic(api_key="k", http_client=client),
    "gemini": lambda client: Lang.gemini(api_key="k", http_client=client),
    "ollama": lambda client: Lang.ollama(base_url="http://127.0.0.1:9", http_client=client),
    "ollama preset": lambda client: Lang.openai_compatible(
        "http://127.0.0.1:9/v1", preset="ollama", model="qwen3", http_client=client
    ),
}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _lang(name: str, sent: list[httpx.Request]) -> Lang:
    def server(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(400, json={"error": {"message": "refused"}})  # never retried

    return FACTORIES[name](httpx.AsyncClient(transport=httpx.MockTransport(server)))


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize(
    ("functions", "function_call", "message"),
    [
        ([add], "sub", r"function_call names 'sub', which is not one of the functions \['add'\]"),
        ([add], {"name": "sub"}, "function_call names 'sub'"),
        ([], "required", r"function_call='required' needs functions=\[...\]"),
        ([], "add", "needs functions"),
    ],
)
async def test_a_choice_that_names_no_given_function_is_refused_on_every_wire(
    name: str, functions: list[Any], function_call: Any, message: str
) -> None:
    sent: list[httpx.Request] = []
    with pytest.raises(ConfigError, match=message):
        await _lang(name, sent).ask("hi", functions=functions, function_call=function_call)
    assert sent == []


@pytest.mark.parametrize(("name", "wire"), [("gemini", "gemini"), ("ollama", "ollama")])
async def test_a_wire_without_a_parallel_switch_refuses_parallel_tool_calls_false(
    name: str, wire: str
) -> None:
    sent: list[httpx.Request] = []
    with pytest.raises(ConfigError) as caught:
        await _lang(name, sent).ask("hi", functions=[add], parallel_tool_calls=False)
    assert str(caught.value) == (
        f"{wire} cannot stop a model from making several calls per turn "
        "(parallel_tool_calls=False); leave parallel_tool_calls unset, or use parallel=False "
        "to run the calls one at a time"
    )
    assert sent == []


@pytest.mark.parametrize("name", ["ollama", "ollama preset"])
async def test_a_wire_that_cannot_force_a_call_refuses_a_forced_choice(name: str) -> None:
    sent: list[httpx.Request] = []
    with pytest.raises(ConfigError) as caught:
        await _lang(name, sent).ask("hi", functions=[add], function_call="add")
    assert str(caught.value) == (
        "ollama ignores tool_choice and cannot force a tool call, so function_call='add' cannot "
        "be enforced; use 'auto' and ask for the call in the prompt, or pass only that function"
    )
    assert sent == []


@pytest.mark.parametrize("name", ["gemini", "ollama", "ollama preset"])
async def test_with_function_call_none_there_is_nothing_to_enforce(name: str) -> None:
    sent: list[httpx.Request] = []
    with pytest.raises(BadRequestError):  # the server's answer: the request went out
        await _lang(name, sent).ask(
            "hi", functions=[add], function_call="none", parallel_tool_calls=False
        )
    assert len(sent) == 1
