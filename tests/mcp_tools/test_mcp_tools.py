"""MCP servers as tools: declarations, names, results, timeouts and concurrency.

Every test drives a real MCP server (``server_app.py``, written with the official SDK) over
stdio and over streamable HTTP, with ``Lang.scripted`` as the model.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from aiwrapper import CallReady, Lang, LangResult, RunTimeoutError, ToolDefinitionError
from aiwrapper.mcp import MCPServer, MCPToolError

from .conftest import server_for

pytestmark = pytest.mark.anyio
MakeServer = Callable[..., MCPServer]


# Both transports on asyncio, and HTTP on trio: the loop behaves the same on both backends, and
# stdio on trio is covered by test_mcp_lifecycle.py. Module scope lets the tests share one open
# server per setup (a stdio server costs a process); a test about opening makes its own.
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
    async with server_for(transport, http_urls) as server:
        yield server


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A scripted turn making these calls, in order."""
    return {
        "function_calls": [
            {"name": name, "arguments": arguments, "id": f"c{i}"}
            for i, (name, arguments) in enumerate(pairs)
        ]
    }


def results(result: LangResult) -> list[tuple[str, str, bool]]:
    return [(m.name or "", m.content, m.is_error) for m in result.messages if m.role == "tool"]


def tag() -> str:
    return uuid.uuid4().hex[:8]


async def report(server: MCPServer, label: str) -> dict[str, bool]:
    tools = {t.name: t for t in await server.tools()}
    content = await tools["report"].invoke({"tag": label})
    value: dict[str, bool] = json.loads(content.text)
    return value


async def test_a_two_round_run_calls_the_server_and_sends_the_result(
    main: MCPServer,
) -> None:
    lang = Lang.scripted([calls(("add", {"a": 2, "b": 3})), "5."])
    result = await lang.ask("2+3?", functions=[main])
    assert result.answer == "5."
    assert results(result) == [("add", "5", False)]
    assert lang.requests[1].messages[-1].content == "5"
    declared = {t["name"]: t for t in lang.requests[0].tools}
    assert declared["add"]["description"] == "Add two integers."
    assert declared["add"]["parameters"]["required"] == ["a", "b"]
    assert result.function_calls[0].result.structured_content == {"result": 5}


async def test_a_paged_tool_list_is_read_whole(make_server: MakeServer) -> None:
    lang = Lang.scripted([calls(("t4", {})), "ok"])
    result = await lang.ask("go", functions=[make_server("paged")])
    assert [t["name"] for t in lang.requests[0].tools] == ["t0", "t1", "t2", "t3", "t4"]
    assert results(result) == [("t4", "tool 4", False)]


async def test_prefixes_keep_two_servers_apart_and_calls_reach_the_right_one(
    make_server: MakeServer,
) -> None:
    main, twin = make_server(prefix="main"), make_server("twin", prefix="twin")
    lang = Lang.scripted(
        [calls(("main_add", {"a": 2, "b": 3}), ("twin_add", {"a": 2, "b": 3})), "ok"]
    )
    result = await lang.ask("add", functions=[main, twin])
    names = [t["name"] for t in lang.requests[0].tools]
    assert "main_add" in names
    assert "twin_add" in names
    assert "add" not in names
    assert results(result) == [("main_add", "5", False), ("twin_add", "twin says 5", False)]


async def test_a_name_clash_without_prefix_names_both_servers(make_server: MakeServer) -> None:
    main, twin = make_server(), make_server("twin")
    with pytest.raises(ToolDefinitionError) as caught:
        await Lang.scripted(["never"]).ask("add", functions=[main, twin])
    message = str(caught.value)
    assert message.startswith("two tools are named 'add': 'add' of MCP server ")
    assert repr(main)[len("MCPServer('") : -2] in message  # the labels: command line or URL
    assert repr(twin)[len("MCPServer('") : -2] in message
    assert "prefix" in message


async def test_include_and_exclude_filter_by_the_servers_names(make_server: MakeServer) -> None:
    async with make_server(include={"add", "weather", "fail"}, exclude={"fail"}) as server:
        assert sorted(t.name for t in await server.tools()) == ["add", "weather"]


async def test_per_tool_options_apply_to_the_named_tools(make_server: MakeServer) -> None:
    server = make_server(
        include={"add", "slow"}, timeout=7, sequential={"slow"}, requires_approval=True
    )
    tools = {t.name: t for t in await server.tools()}  # read on a short connection
    assert [tools[n].sequential for n in ("add", "slow")] == [False, True]
    assert [tools[n].requires_approval for n in ("add", "slow")] == [True, True]
    assert tools["add"].timeout == 7
    assert (await tools["add"].invoke({"a": 4, "b": 5})).text == "9"  # a connection per call


async def test_errors_unknown_tools_and_bad_arguments_become_error_results(
    main: MCPServer,
) -> None:
    turn = calls(("fail", {"reason": "x"}), ("nope", {}), ("add", {"a": "two", "b": 3}))
    lang = Lang.scripted([turn, "sorry"])
    result = await lang.ask("go", functions=[main])
    (fail, fail_text, fail_error), unknown, bad = results(result)
    assert (fail, fail_error) == ("fail", True)
    assert fail_text == "MCPToolError: Error executing tool fail: failed because x"
    assert unknown[2]
    assert "Unknown function 'nope'" in unknown[1]
    assert bad[2]
    assert "/a" in bad[1]
    assert result.function_calls[0].status == "error"


async def test_raise_mode_raises_mcp_tool_error_with_the_servers_result(
    main: MCPServer,
) -> None:
    lang = Lang.scripted([calls(("fail", {"reason": "y"}))])
    with pytest.raises(MCPToolError, match="failed because y") as caught:
        await lang.ask("go", functions=[main], tool_errors="raise")
    assert caught.value.result.is_error is True


async def test_structured_content_and_its_text_are_sent_once(main: MCPServer) -> None:
    lang = Lang.scripted([calls(("weather", {"city": "Oslo"})), "warm"])
    result = await lang.ask("weather?", functions=[main])
    [(_, text, is_error)] = results(result)
    assert not is_error
    assert json.loads(text) == {"city": "Oslo", "temp_c": 21.5}
    assert text.count("Oslo") == 1
    assert result.function_calls[0].result.structured_content == {"city": "Oslo", "temp_c": 21.5}


async def test_a_timed_out_call_is_cancelled_on_the_server_and_the_connection_lives_on(
    main: MCPServer,
) -> None:
    label = tag()
    lang = Lang.scripted([calls(("slow", {"seconds": 30, "tag": label})), "too slow"])
    started = time.monotonic()
    result = await lang.ask("go", functions=[main], tool_timeout=0.5)
    elapsed = time.monotonic() - started
    [(_, text, is_error)] = results(result)
    assert is_error
    assert "timed out after 0.5 s" in text
    assert elapsed < 2
    with anyio.fail_after(5):
        while not (await report(main, label))["cancelled"]:
            await anyio.sleep(0.05)
    again = Lang.scripted([calls(("add", {"a": 1, "b": 1})), "2"])
    assert results(await again.ask("1+1", functions=[main])) == [("add", "2", False)]


async def test_three_one_second_calls_in_one_turn_run_together(main: MCPServer) -> None:
    turn = calls(*[("slow", {"seconds": 1, "tag": tag()}) for _ in range(3)])
    lang = Lang.scripted([turn, "done"])
    started = time.monotonic()
    result = await lang.ask("go", functions=[main])
    elapsed = time.monotonic() - started
    assert [r[1] for r in results(result)] == ["slept 1.0"] * 3
    assert elapsed < 2.5


async def test_a_denied_call_never_reaches_the_server(main: MCPServer) -> None:
    denied, allowed = tag(), tag()
    turn = calls(("touch", {"tag": denied}), ("touch", {"tag": allowed}))
    lang = Lang.scripted([turn, "ok"])

    def approve(call: Any) -> bool:
        return bool(call.arguments["tag"] == allowed)

    result = await lang.ask("go", functions=[main], approve=approve)
    assert [c.status for c in result.function_calls] == ["denied", "done"]
    assert (await report(main, denied))["seen"] is False
    assert (await report(main, allowed))["seen"] is True


async def test_after_a_run_timeout_no_call_is_left_running(main: MCPServer) -> None:
    label = tag()
    lang = Lang.scripted([calls(("slow", {"seconds": 30, "tag": label}))])
    with pytest.raises(RunTimeoutError) as caught:
        await lang.ask("go", functions=[main], timeout=0.5)
    assert [c.status for c in caught.value.result.function_calls] != ["running"]
    with anyio.fail_after(5):
        while not (await report(main, label))["cancelled"]:
            await anyio.sleep(0.05)


async def test_a_tool_that_adds_a_tool_makes_it_declared_at_the_next_request(
    make_server: MakeServer,
) -> None:
    new = f"added_{tag()}"
    lang = Lang.scripted([calls(("grow", {"name": new})), calls((new, {})), "done"])
    result = await lang.ask("grow", functions=[make_server()])
    declared = [[t["name"] for t in r.tools] for r in lang.requests]
    assert new not in declared[0]
    assert new in declared[1]
    assert results(result)[-1] == (new, f"{new} ran", False)


async def test_leaving_a_stream_early_leaves_no_call_running(main: MCPServer) -> None:
    label = tag()
    lang = Lang.scripted([calls(("slow", {"seconds": 30, "tag": label}))])
    async with lang.stream("go", functions=[main]) as run:
        async for event in run:
            if isinstance(event, CallReady):
                with anyio.fail_after(5):  # the call reaches the server, then we leave
                    while not (await report(main, label))["seen"]:
                        await anyio.sleep(0.05)
                break
    assert [c.status for c in run.result.function_calls] == ["error"]
    with anyio.fail_after(5):
        while not (await report(main, label))["cancelled"]:
            await anyio.sleep(0.05)


async def test_the_tool_list_is_kept_until_refresh_asks_for_it_again(main: MCPServer) -> None:
    first, again = await main.tools(), await main.tools()
    assert [a is b for a, b in zip(first, again, strict=True)] == [True] * len(first)
    await main.refresh()
    fresh = await main.tools()
    assert [t.name for t in fresh] == [t.name for t in first]
    assert fresh[0] is not first[0]
