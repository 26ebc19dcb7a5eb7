"""Failures keep a continuable conversation: every error after the first request carries
``.result``, whose messages ``chat`` accepts as is (every call answered exactly once, none left
``running``), whether the run broke in a stream, in a tool, or was cancelled."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import (
    AIWrapperError,
    BadRequestError,
    Lang,
    LangResult,
    MaxIterationsError,
    RunTimeoutError,
    StreamError,
    tool,
)

pytestmark = pytest.mark.anyio


def assert_continuable(result: LangResult) -> None:
    """Each call of each assistant turn is answered exactly once, right after its turn."""
    messages = list(result.messages)
    in_messages = []
    for i, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        answers = []
        for later in messages[i + 1 :]:
            if later.role != "tool":
                break
            answers.append(later.tool_call_id)
        assert answers == [c.id for c in message.tool_calls]
        in_messages += message.tool_calls
    assert {id(c) for c in result.function_calls} <= {id(c) for c in in_messages}
    assert all(c.status not in ("running", "streaming", "pending") for c in in_messages)


async def chat_accepts(result: LangResult) -> None:
    more = await Lang.scripted(["fine"]).chat(result.messages.add_user("go on"))
    assert more.answer == "fine"


def calls(*names: str) -> dict[str, Any]:
    return {
        "function_calls": [{"name": n, "arguments": {}, "id": f"c{i}"} for i, n in enumerate(names)]
    }


@tool
async def sleepy() -> str:
    """Sleeps."""
    await anyio.sleep(10)
    return "late"


@tool
def quick() -> str:
    """Quick."""
    return "quick done"


async def test_run_timeout_during_a_tool_answers_every_call() -> None:
    with pytest.raises(RunTimeoutError) as info:
        await Lang.scripted([calls("quick", "sleepy", "quick")]).ask(
            "go", functions=[sleepy, quick], timeout=0.2
        )
    result = info.value.result
    assert_continuable(result)
    tool_texts = [m.content for m in result.messages if m.role == "tool"]
    assert tool_texts[0] == tool_texts[2] == "quick done"
    assert "interrupted" in tool_texts[1]
    assert "RunTimeoutError" in tool_texts[1]
    assert [c.status for c in result.function_calls] == ["done", "error", "done"]
    await chat_accepts(result)


async def test_cancelling_a_run_during_a_tool_leaves_the_result_continuable() -> None:
    seen: list[LangResult] = []
    lang = Lang.scripted([calls("sleepy")])
    with anyio.move_on_after(0.2):
        await lang.ask("go", functions=[sleepy], on_result=seen.append)
    result = seen[-1]
    assert_continuable(result)
    assert result.function_calls[0].status == "error"
    assert "cancelled" in (result.function_calls[0].error or "")
    await chat_accepts(result)


async def test_a_raised_tool_error_leaves_the_other_calls_answered() -> None:
    @tool
    def broken() -> str:
        """Fails."""
        raise ValueError("boom")

    lang = Lang.scripted([calls("sleepy", "broken")])
    with pytest.raises(ValueError, match="boom") as info:
        await lang.ask("go", functions=[sleepy, broken], tool_errors="raise")
    result = info.value.result  # type: ignore[attr-defined]
    assert_continuable(result)
    assert [c.status for c in result.function_calls] == ["error", "error"]
    await chat_accepts(result)


async def test_max_iterations_result_is_continuable() -> None:
    with pytest.raises(MaxIterationsError) as info:
        await Lang.scripted([calls("quick")] * 3).ask("go", functions=[quick], max_iterations=2)
    assert_continuable(info.value.result)
    await chat_accepts(info.value.result)


def sse(*chunks: dict[str, Any], done: bool = True) -> bytes:
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    return body + (b"data: [DONE]\n\n" if done else b"")


def call_chunk(index: int, call_id: str | None, arguments: str) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    entry: dict[str, Any] = {"index": index, "function": function}
    if call_id is not None:
        entry.update(id=call_id, type="function")
        function["name"] = "quick"
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]}


FINISH_CALLS = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
ONE_CALL = sse(call_chunk(0, "call_1", "{}"), FINISH_CALLS)


def openai_lang(*answers: httpx.Response | Callable[[], httpx.Response]) -> Lang:
    sent: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        answer = answers[len(sent) - 1]
        return answer if isinstance(answer, httpx.Response) else answer()

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Lang.openai(api_key="k", http_client=client, max_retries=0)


def stream(body: bytes) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


async def test_a_stream_error_in_round_two_carries_the_result() -> None:
    lang = openai_lang(stream(ONE_CALL), stream(sse(done=False)))
    with pytest.raises(StreamError) as info:
        await lang.ask("go", functions=[quick])
    result = info.value.result
    assert result is not None
    assert result.iterations == 1
    assert result.function_calls[0].result == "quick done"
    assert_continuable(result)
    await chat_accepts(result)


async def test_a_provider_error_in_round_two_carries_the_result() -> None:
    refused = httpx.Response(400, json={"error": {"message": "no"}})
    lang = openai_lang(stream(ONE_CALL), refused)
    with pytest.raises(BadRequestError) as info:
        await lang.ask("go", functions=[quick])
    result = info.value.result
    assert result is not None
    assert_continuable(result)
    assert [m.role for m in result.messages] == ["user", "assistant", "tool"]


async def test_a_stream_cut_mid_arguments_answers_the_call_without_running_it() -> None:
    ran: list[str] = []

    @tool
    def quick(city: str) -> str:
        """Records."""
        ran.append(city)
        return city

    cut = sse(call_chunk(0, "call_1", '{"city": "Os'), done=False)
    with pytest.raises(StreamError) as info:
        await openai_lang(stream(cut)).ask("go", functions=[quick])
    result = info.value.result
    assert result is not None
    assert ran == []
    assert_continuable(result)
    answer = result.messages[-1]
    assert answer.is_error
    assert "was not run" in answer.content
    assert result.function_calls[0].raw_arguments == '{"city": "Os'
    await chat_accepts(result)


async def stalled_stream(first: bytes) -> AsyncIterator[bytes]:
    yield first
    await anyio.sleep(30)


async def test_run_timeout_mid_stream_answers_the_calls_it_listed() -> None:
    head = sse(call_chunk(0, "call_1", "{}"), call_chunk(1, "call_2", '{"a"'), done=False)

    def stalled() -> httpx.Response:
        return httpx.Response(
            200, content=stalled_stream(head), headers={"content-type": "text/event-stream"}
        )

    with pytest.raises(RunTimeoutError) as info:
        await openai_lang(stalled).ask("go", functions=[quick], timeout=0.3)
    result = info.value.result
    assert [c.id for c in result.function_calls] == ["call_1", "call_2"]
    assert_continuable(result)
    assert all(c.status == "error" for c in result.function_calls)
    await chat_accepts(result)


async def test_errors_before_any_result_still_carry_one() -> None:
    refused = httpx.Response(400, json={"error": {"message": "no"}})
    with pytest.raises(BadRequestError) as info:
        await openai_lang(refused).ask("go")
    assert info.value.result is not None
    assert [m.role for m in info.value.result.messages] == ["user"]


def test_error_constructors_are_unchanged() -> None:
    assert AIWrapperError("x").result is None
    assert StreamError("x").result is None
    assert BadRequestError("m", provider="p", status_code=400).result is None
